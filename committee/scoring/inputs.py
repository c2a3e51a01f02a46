"""The inputs of a score, from files or memory, checked: segmentations,
difficulties, vocabularies, IRT items; the names and ranks of systems.

Every input can be a file or in memory:

* a segmentation (gold or output): a path, a :class:`~committee.corpus.Corpus`,
  a list of word lists, or a list of space-separated sentences;
* difficulties: a ``.weight``/``.weight_c`` path, a run directory, one list
  of values per sentence, or a flat vector (:func:`committee.pipeline.difficulty.load_difficulty`);
* a training vocabulary: a word-list path, a training ``Corpus`` (or a
  corpus path with ``train_format``), or any iterable of words.
"""

from __future__ import annotations

import errno
import io
import stat
import os
import warnings
from pathlib import Path

import numpy as np

from committee.corpus import plausibility
from committee.pipeline import layout
from committee.pipeline import runfiles
from committee.system.streams import open_problem
from committee import corpus as corpus_mod
from committee.pipeline import difficulty as difficulty_mod
from committee.system.arguments import count, got, require, require_choice, require_int, require_many
from committee.corpus import Corpus
from committee.corpus.encodings import text_encoding
from committee.errors import caller_level, InputError, PlausibilityWarning

#: An OOV rate above this (share of gold tokens) draws a PlausibilityWarning.
OOV_WARN_RATE = 0.5

# --------------------------------------------------------------------------
# Inputs from files or memory
# --------------------------------------------------------------------------

def read_segmentation(source, *, label: str = "<gold>", format: str = "sighan",
                      encoding: str = "utf-8", normalization: str | None = None,
                      fix=None, argument: tuple[str, str] = ("read_segmentation", "source")) -> Corpus:
    """A segmentation as a :class:`~committee.corpus.Corpus`, from a file or memory.

    Parameters
    ----------
    source : path, Corpus, list of word lists, or list of str
        A file (read with :func:`committee.corpus.read_corpus`), a corpus
        (returned as is), or sentences: each a list of words or a string of
        words separated by spaces.
    label : str
        How in-memory sentences are named in messages (``<gold>:2: ...``).
    format, encoding, normalization, fix
        As in :func:`committee.corpus.read_corpus`; in-memory words are
        normalised the same way.  A path ``"-"`` is standard input.
    argument : (str, str)
        The function and argument that a :class:`TypeError` names for a
        ``source`` of another type (``("score", "gold")``).

    Examples
    --------
    >>> c = read_segmentation(["我 爱 北京", ["你好"]], label="<output>")
    >>> c.path, c.words, c.lines
    ('<output>', [['我', '爱', '北京'], ['你好']], [1, 2])
    >>> read_segmentation([["我", ""]])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: <gold>:1: word '' is empty or contains whitespace
    """
    if isinstance(source, Corpus):
        return source
    if isinstance(source, (str, os.PathLike)):
        return corpus_mod.read_corpus(source, format=format, encoding=encoding,
                                      normalization=normalization, fix=fix)
    if normalization not in corpus_mod.NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}")
    sentences = require_many(*argument, source, SEGMENTATION)
    words = []
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str):
            ws = sentence.split()
        elif isinstance(sentence, (list, tuple)) and all(isinstance(w, str) for w in sentence):
            ws = list(sentence)
        else:
            raise InputError(label, i + 1, "expected a list of words or a string of words "
                                           f"separated by spaces, got {sentence!r}")
        if normalization is not None:
            ws = [corpus_mod.normalize(w, normalization) for w in ws]
        bad = next((w for w in ws if not w or w.split() != [w]), None)
        if bad is not None:
            raise InputError(label, i + 1, f"word {bad!r} is empty or contains whitespace")
        words.append(ws)
    # the checksum of the same words written as a SIGHAN UTF-8 file
    sha = corpus_mod.content_sha256(words)
    return Corpus(label, words, list(range(1, len(words) + 1)), sha256=sha,
                  normalization=normalization, content_sha256=sha)


#: What a gold or an output may be, as messages say it.
SEGMENTATION = "a path, a Corpus or a list of sentences"


def read_corpus(path, format: str = "sighan", encoding: str = "utf-8",
                normalization: str | None = None, **options) -> Corpus:
    """:func:`committee.corpus.read_corpus` (``committee.read_corpus``) with
    its arguments checked: a path that is not a ``str`` or path-like is a
    :class:`TypeError` naming it.

    >>> read_corpus(None)
    Traceback (most recent call last):
    ...
    TypeError: read_corpus: path must be a path (str or os.PathLike), got NoneType
    """
    require("read_corpus", "path", path, (str, os.PathLike), "a path (str or os.PathLike)")
    check_file_options("read_corpus", {"format": format, "encoding": encoding,
                                        "normalization": normalization})
    return corpus_mod.read_corpus(path, format=format, encoding=encoding,
                                  normalization=normalization, **options)


#: The keyword arguments of :class:`Scorer` that :func:`score` passes on.
SCORER_OPTIONS = ("gold_format", "gold_encoding", "train_encoding", "allow_overlap", "spelling",
                  "buckets", "task", "mode", "scheme")


def check_file_options(api: str, options: dict) -> None:
    """Raise :class:`TypeError` or :class:`ValueError` naming ``api`` and the
    keyword for a format, encoding, normalization or flag it cannot use."""
    for key, value in options.items():
        if key.endswith("format"):
            require_choice(api, key, value, corpus_mod.FORMATS, none=key != "format")
        elif key.endswith("encoding"):
            require(api, key, value, str, "a codec name such as 'utf-8' or 'gb18030'",
                    none=key != "encoding")
            try:
                value is None or text_encoding(value)
            except LookupError:
                raise ValueError(f"{api}: {key} must be a codec name such as 'utf-8' or "
                                 f"'gb18030', got {value!r}") from None
            except ValueError as exc:
                raise ValueError(f"{api}: {key}: {exc}; give one such as 'utf-8' or "
                                 "'gb18030'") from None
        elif key == "normalization":
            require_choice(api, key, value, corpus_mod.NORMALIZATIONS[1:], none=True)
        elif key == "allow_overlap":
            require(api, key, value, bool, "True or False")
        elif key == "spelling" and value is not None and not callable(value):
            raise TypeError(f"{api}: spelling must be a function or None, got {got(value)}")
        elif key == "irt":
            require(api, key, value, (str, os.PathLike), "a run directory or its items.tsv",
                    none=True)


def check_segmentation(api: str, name: str, value) -> None:
    """A gold or an output: a path, a Corpus or a collection of sentences."""
    if not isinstance(value, (str, os.PathLike, Corpus)):
        require_many(api, name, value, SEGMENTATION)


def check_difficulty(api: str, value) -> None:
    """The container of difficulties (its values are checked where they are read)."""
    require(api, "difficulty", value, (str, os.PathLike, np.ndarray, list, tuple),
            "a .weight file, a run directory, one list of values per gold sentence or one "
            "value per gold word", none=True)


def check_vocabulary(api: str, value) -> None:
    """A training vocabulary: a path, a Corpus or a collection of words."""
    if value is not None and not isinstance(value, (str, os.PathLike, Corpus)):
        require_many(api, "train_words", value, "a word-list file, a training Corpus or a "
                                                "collection of words")


def check_resampling(api: str, bootstrap, seed) -> None:
    require_int(api, "bootstrap", bootstrap, 0)
    require_int(api, "seed", seed, 0)


def python_spelling(source: str):
    """How :class:`Scorer` messages spell setting ``key`` of ``source``
    (``"gold"``, ``"train"`` or ``"output"``): its keyword argument.

    >>> python_spelling("gold")("format", "conllu"), python_spelling("output")("encoding", "gb18030")
    ("gold_format='conllu'", "encoding='gb18030'")
    """
    prefix = "" if source == "output" else f"{source}_"
    return lambda key, value: (f"{key}={value!r}" if key == "allow_overlap"
                               else f"{prefix}{key}={value!r}")


def vocabulary_of(source, *, encoding, normalization, train_format, fix=None, api="Scorer"):
    """``(words, sha256, corpus)`` of a training vocabulary, or ``(None, None, None)``.

    The checksum is of the words (:func:`committee.corpus.word_list_sha256`),
    whatever file, format or encoding they came from; ``corpus`` is the
    training corpus when the vocabulary came from one.
    """
    if source is None:
        return None, None, None
    train = None
    if isinstance(source, Corpus):
        train = source
    elif isinstance(source, (str, os.PathLike)) and train_format is not None:
        train = corpus_mod.read_corpus(source, format=train_format, encoding=encoding,
                                       normalization=normalization, fix=fix)
    if train is not None:
        words = corpus_mod.training_words(train)
    elif isinstance(source, (str, os.PathLike)):
        words = corpus_mod.read_word_list(source, encoding=encoding,
                                          normalization=normalization, fix=fix)
    else:
        items = list(source)
        bad = [w for w in items if not isinstance(w, str)][:1]
        if bad:
            raise TypeError(f"{api}: train_words must hold words (str), got {got(bad[0])} "
                            "among them")
        words = set(items)
        if normalization:
            words = {corpus_mod.normalize(w, normalization) for w in words}
    return words, corpus_mod.word_list_sha256(words), train


def _run_test_sha256(difficulty_path) -> str | None:
    """The checksum of ``test.txt`` that the manifest beside a difficulty
    file records (None without a readable run manifest)."""
    try:
        files = layout.manifest_in(Path(difficulty_path).parent).get("files", {})
    except InputError:
        return None
    return files.get(layout.TEST_FILE)


def not_this_gold(exc: InputError, difficulty, gold: Corpus) -> InputError:
    """``exc`` (difficulties that do not fit ``gold``), with what is known
    when the difficulties come from a run whose test set is not ``gold``:
    the gold and an output given the wrong way round when the gold holds the
    text of the run's test set with other words (it looks like an output of
    it, :func:`committee.corpus.plausibility.looks_like_output`), another test set
    otherwise."""
    path = difficulty_mod.difficulty_file(difficulty)
    sha = None if path is None else _run_test_sha256(path)
    if sha is None or sha == corpus_mod.content_sha256(gold.words):
        return exc
    test_path = Path(path).parent / layout.TEST_FILE
    try:
        test = corpus_mod.read_corpus(test_path, normalization=gold.normalization)
    except (InputError, OSError):
        return exc
    if plausibility.looks_like_output(gold, test):
        return InputError(exc.path, exc.line, f"{exc.message}; the gold {gold.path} is not the "
                          f"test set of this run ({test_path}): were the gold and an output "
                          "given the wrong way round?")
    return InputError(exc.path, exc.line, f"{exc.message}; these difficulties belong to the "
                      f"test set of a run ({test_path}), whose text differs from the gold "
                      f"{gold.path}: give the difficulties made for this gold")


def check_overlap(train: Corpus, gold: Corpus, allow: bool, fix) -> None:
    """:func:`committee.corpus.plausibility.check_train_test` with the way out spelled by ``fix``."""
    try:
        plausibility.check_train_test(train, gold, allow_identical=allow)
    except InputError as exc:
        raise InputError(exc.path, exc.line,
                         f"{exc.message}, or accept it with {fix('allow_overlap', True)}") from None


def check_oov_rate(gold: Corpus, oov: np.ndarray, source) -> float | None:
    """Warn when more than half of the gold tokens are out of vocabulary.

    ``oov`` holds :func:`committee.metrics.oov_flags` of ``gold``.  Real test
    sets have OOV rates of 2-20%; above :data:`OOV_WARN_RATE` the vocabulary
    most likely belongs to another corpus, or was read with another encoding
    or normalization.  Returns the rate (None for a gold without words).
    """
    if len(oov) == 0:
        return None
    rate = float(oov.mean())
    if rate > OOV_WARN_RATE:
        where = (os.fspath(source) if isinstance(source, (str, os.PathLike))
                 else getattr(source, "path", None))
        vocabulary = "the training vocabulary" + (f" {where}" if where else "")
        warnings.warn(PlausibilityWarning(
            f"{gold.path}: {100 * rate:.1f}% of the gold words are not in {vocabulary} "
            f"(OOV rate above {OOV_WARN_RATE:.0%}): is it the "
            "word list of this corpus, in the same encoding and normalization?"), stacklevel=caller_level())
    return rate


# --------------------------------------------------------------------------
# Checks and names
# --------------------------------------------------------------------------

def check_provenance(difficulty_path, gold: corpus_mod.Corpus) -> set[str]:
    """Warn when a difficulty file from ``committee run`` does not fit ``gold``.

    The rule: when a ``manifest.json`` sits beside the difficulty file, it is
    the record of the run that wrote it, and the gold must be that run's
    test set: its file bytes must have the checksum of the run's
    ``test.txt`` or of the original test corpus file
    (``corpus.test.sha256``), or its words, written as SIGHAN UTF-8 (one
    sentence per line, words joined by one space), must be byte-identical to
    ``test.txt``.  A mismatch gives one :class:`PlausibilityWarning`; without
    a manifest nothing is checked.  (A difficulty file changed since the run,
    and an unreadable manifest, were refused before, by
    :func:`committee.pipeline.layout.verify`.)

    Returns the content checksums known to be the run's gold (that of its
    ``test.txt``, written as SIGHAN UTF-8), for
    :func:`committee.corpus.plausibility.check_gold_output`; empty without a manifest.
    """
    path = Path(difficulty_path)
    manifest_path = path.parent / layout.MANIFEST_FILE
    if not manifest_path.is_file():
        return set()
    manifest = layout.manifest_in(path.parent)  # damaged: refused, as by layout.verify
    files = manifest.get("files")
    if not files:
        return set()  # not a committee run manifest
    test_sha = files.get(layout.TEST_FILE)
    test = manifest.get("corpus", {}).get("test", {}) if isinstance(manifest.get("corpus"), dict) else {}
    known = {s for s in (test_sha, test.get("sha256") if isinstance(test, dict) else None)
             if isinstance(s, str)}
    golds = {test_sha} if isinstance(test_sha, str) else set()
    if not known or gold.sha256 in known:
        return golds
    if corpus_mod.content_sha256(gold.words) == test_sha:
        return golds
    warnings.warn(PlausibilityWarning(
        f"{path}: made by committee run for another test set ({manifest_path.name}: "
        f"{layout.TEST_FILE} sha256 {str(test_sha)[:12]}; gold {gold.path}: "
        f"{gold.sha256[:12]}): its difficulties may belong to other words; score against "
        f"{path.parent / layout.TEST_FILE}"), stacklevel=caller_level())
    return golds


#: Bytes an output file may hold per character of its gold (and a margin):
#: a character in UTF-8 (up to 4 bytes) with a separator, a tag or a line of
#: a ``bio`` file about it; a larger file is no output of that gold.
OUTPUT_BYTES_PER_CHAR = 64
OUTPUT_MARGIN = 1 << 20


def check_output_size(source, gold: Corpus) -> None:
    """Refuse, before reading it, an output file far larger than any output
    of ``gold`` can be (:data:`OUTPUT_BYTES_PER_CHAR`); standard input, a
    pipe and data in memory are bounded as they are read instead.

    >>> check_output_size([["我"]], None)
    """
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return
    try:
        st = os.stat(source)
    except OSError:
        return  # the reader says why
    n_chars = gold.n_chars()
    limit = OUTPUT_BYTES_PER_CHAR * n_chars + OUTPUT_MARGIN
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise InputError(os.fspath(source), None,
                         f"holds {runfiles.size_text(st.st_size)}, more than any output of the "
                         f"gold's {n_chars:,} characters can ({runfiles.size_text(limit)}): not "
                         "read; is it the output of this test set?")


def read_irt_items(source, units: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of every gold unit from ``items.tsv`` of ``committee irt``
    (``source``: the run directory or the file; ``units``: the gold units'
    texts in corpus order, words or entities, :meth:`committee.tasks.Segmentation.texts`);
    :class:`InputError` naming file and line when it is missing, malformed
    or made for other units."""
    import csv

    path = Path(source)
    if path.is_dir():
        path = layout.paths(path).irt_items
    if not os.path.lexists(path):
        raise InputError(str(path), None, "no such file (run `committee irt RUN_DIR` first)")
    layout.verify(path.parent, [path.name])  # as committee irt wrote it
    fix = f"rerun committee irt {path.parent}"
    data = runfiles.read_bytes(path, runfiles.LIMITS["table"], fix)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), data[:exc.start].count(b"\n") + 1,
                         f"is not valid UTF-8; {fix}") from None
    gold_words = units
    a, b = [], []
    with io.StringIO(text, newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        head = next(rows, [])
        if not {"word", "irt_a", "irt_b"} <= set(head):
            raise InputError(str(path), 1, "not an items.tsv: no columns word, irt_a, irt_b")
        cw, ca, cb = head.index("word"), head.index("irt_a"), head.index("irt_b")
        for line, row in enumerate(rows, start=2):
            i = line - 2
            if i >= len(gold_words) or row[cw] != gold_words[i]:
                found = "nothing" if i >= len(gold_words) else repr(gold_words[i])
                raise InputError(str(path), line, f"word {row[cw]!r} but gold word {i + 1} is "
                                 f"{found}: the items belong to another test set")
            try:
                a.append(float(row[ca]))
                b.append(float(row[cb]))
            except (ValueError, IndexError):
                raise InputError(str(path), line, "irt_a / irt_b is not a number") from None
    if len(a) != len(gold_words):
        raise InputError(str(path), None, f"has {count(len(a), 'word')}, gold has "
                         f"{len(gold_words)}: "
                         "the items belong to another test set")
    return np.array(a), np.array(b)


#: Extensions of output files that :func:`system_name` leaves out of a
#: system's name (in any case): plain text, encodings, formats, tasks, outputs.
OUTPUT_SUFFIXES = (".txt", ".text", ".utf8", ".utf-8", ".u8", ".gb", ".gbk", ".gb2312",
                   ".gb18030", ".big5", ".bio", ".bioes", ".bmes", ".iob", ".iob2", ".iobes",
                   ".conll", ".conllu", ".tsv", ".pku", ".pos", ".ner", ".cws", ".seg", ".out",
                   ".dat", ".pred")


def system_name(path: str, taken: set[str]) -> str:
    """A short unique name for an output file: its file name without the
    extensions of :data:`OUTPUT_SUFFIXES` at its end, ``-2``, ``-3``, ...
    appended when ``taken`` holds it already (``taken`` gains the name);
    ``stdin`` for ``-``.

    >>> taken = set()
    >>> [system_name(p, taken) for p in ("runs/jieba.txt", "tagger.bio", "pku.utf8.seg",
    ...                                  "other/jieba.TXT", "msr.gb", "model.v2", ".txt",
    ...                                  "thulac.pos.txt", "lac.ner.bio")]
    ['jieba', 'tagger', 'pku', 'jieba-2', 'msr', 'model.v2', '.txt', 'thulac', 'lac']
    """
    name = "stdin" if path == "-" else Path(path).name
    stripped = True
    while stripped:
        stripped = False
        for suffix in OUTPUT_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name, stripped = name[: -len(suffix)], True
                break
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def rank(values: list[float | None]) -> list[int | None]:
    """Competition ranks, 1 = best (highest); undefined values get no rank.

    >>> rank([0.9, 0.95, None, 0.9])
    [2, 1, None, 2]
    """
    defined = sorted((v for v in values if v is not None), reverse=True)
    return [None if v is None else defined.index(v) + 1 for v in values]


def require_files(paths) -> None:
    """Fail early, with one line, on a file that is missing, a directory or
    a symbolic link that leads nowhere (a loop, or to a missing file)."""
    for p in paths:
        if p is None:
            continue
        problem = _missing(p)
        if problem is not None:
            raise InputError(p, None, problem)
        if os.path.isdir(p):
            raise InputError(p, None, "is a directory, expected a file")


def _missing(path) -> str | None:
    """Why ``path`` cannot be opened as an existing file, or None."""
    try:
        os.stat(path)
        return None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOENT):
            return None  # read by the reader, which says why it cannot
        return open_problem(path, exc)
