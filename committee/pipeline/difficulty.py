"""From committee marks to difficulties, and the difficulty files (docs/method.md §4, §8).

* :func:`difficulties` — ``d_i = (#members wrong on word i) / K``.
* ``NAME.weight`` — one line per test sentence: each gold word's difficulty,
  separated by one space, ``\\n`` after every line (an empty sentence gives an
  empty line).  ``NAME.weight_c`` — the same with one number per character,
  the difficulty of the gold word containing it.  Numbers are written as
  Python's ``repr(float)`` (shortest round-trip form: ``0.0``, ``1.0``,
  ``0.3333333333333333``), so reading gives back the exact values and the
  NLPCC 2016 evaluation script (``float(x) for x in line.strip().split()``)
  reads the files unchanged.  They are written and read in
  :mod:`committee.pipeline.weightfiles` (re-exported here).
* ``words.tsv`` — a tidy per-word table that pandas reads directly.
* :func:`load_difficulty` — the difficulties of a gold corpus from any of
  these files, a run directory or in-memory values (``committee.score``).
"""

from __future__ import annotations

import csv
import numbers
import os
from pathlib import Path

import numpy as np

from committee.system.arguments import count, got, require
from committee.corpus import Corpus
from committee.errors import InputError
from committee.system.files import atomic_open
from committee.pipeline.weightfiles import (  # noqa: F401  (re-exported)
    format_value, gold_line, read_weight, read_weight_c, write_weight, write_weight_c)

WORDS_TSV_COLUMNS = ("sentence", "word_index", "start", "end", "word", "difficulty",
                     "n_correct", "oov", "pos")

#: The columns of ``words.tsv`` for entities (``task: ner``): the entity's
#: type where a word has its POS.
ENTITIES_TSV_COLUMNS = WORDS_TSV_COLUMNS[:-1] + ("type",)


# --------------------------------------------------------------------------
# Marks -> difficulties
# --------------------------------------------------------------------------

def difficulties(marks) -> tuple[np.ndarray, np.ndarray]:
    """Difficulty of every gold word from a ``(K, N)`` mark matrix.

    ``marks[k, i]`` is true iff member ``k`` predicted gold word ``i``
    exactly.  Returns ``(d, n_correct)``: ``n_correct[i]`` members were
    right, and ``d[i] = (K - n_correct[i]) / K`` — one division of an
    integer count by K, so equal counts give bit-identical difficulties
    whatever the order of the members.

    Examples
    --------
    >>> d, n = difficulties(np.array([[1, 0, 1], [1, 0, 0], [1, 1, 0]], dtype=bool))
    >>> d.tolist(), n.tolist()
    ([0.0, 0.6666666666666666, 0.6666666666666666], [3, 1, 1])
    """
    m = np.asarray(marks)
    if m.ndim != 2:
        raise ValueError(f"marks must be a (K, N) matrix, got shape {m.shape}")
    if m.dtype != bool:
        if m.size and not np.isin(m, (0, 1)).all():
            raise ValueError("marks must be 0/1 or boolean")
        m = m.astype(bool)
    K = m.shape[0]
    if K == 0:
        raise ValueError("a committee needs at least one member (K = 0)")
    n_correct = m.sum(axis=0, dtype=np.int64)
    d = (K - n_correct) / K
    return d.astype(np.float64), n_correct


# --------------------------------------------------------------------------
# Difficulties for scoring, from any source
# --------------------------------------------------------------------------

#: How in-memory difficulties are named in error messages.
IN_MEMORY = "<difficulty>"


def difficulty_file(source) -> Path | None:
    """The file that :func:`load_difficulty` reads for ``source``, or None.

    A run directory (any directory) stands for its ``test.weight``
    (:func:`committee.pipeline.layout.paths`); any other path is the file itself;
    in-memory difficulties have no file.

    >>> difficulty_file("runs/default/test.weight_c").name
    'test.weight_c'
    >>> difficulty_file([0.5, 1.0]) is None
    True
    """
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = Path(source)
    if path.is_dir():
        from committee.pipeline import layout

        return layout.paths(path).weight
    return path


def check_from_final_run(source) -> None:
    """Refuse difficulties read from a committee run that is not final: one a
    ``committee run`` is writing, or one it left unfinished
    (:func:`committee.pipeline.layout.check_final`, a :class:`RunError`), or a
    difficulty file changed since the run wrote it
    (:func:`committee.pipeline.layout.verify`, an :class:`InputError`).  A file
    outside a run directory, and in-memory values, are not checked.

    >>> check_from_final_run("no/such/dir/test.weight"), check_from_final_run([0.5])
    (None, None)
    """
    path = difficulty_file(source)
    if path is not None:
        from committee.pipeline import layout

        layout.check_final(path.parent)
        layout.verify(path.parent, [path.name])


#: What difficulties may be, as messages say it.
SOURCES = ("a .weight file, a run directory, one list of values per gold sentence or one "
           "value per gold word")


def load_difficulty(source, gold: Corpus, *,
                    argument: tuple[str, str] = ("load_difficulty", "source")) -> np.ndarray:
    """The difficulty of every gold word (corpus order), from any source.

    Parameters
    ----------
    source : path, run directory, sequence of sequences, or 1-d array
        A ``.weight`` file (one value per gold word), a ``.weight_c`` file
        (one value per character, equal within each gold word), the output
        directory of ``committee run`` (its ``test.weight``), one list of
        values per gold sentence, or a flat sequence with one value per gold
        word.  Values in memory are real numbers (``int``, ``float``, numpy
        numbers); a bool or a string is a :class:`TypeError`.
    gold : Corpus
        The gold standard the difficulties belong to.
    argument : (str, str)
        The function and argument that a :class:`TypeError` names
        (``("score", "difficulty")``).

    Returns
    -------
    numpy.ndarray of float64, shape (N_gold,)

    Raises
    ------
    InputError
        When the difficulties do not fit ``gold`` (number of sentences,
        values per sentence) or a value is not a finite number in [0, 1];
        in-memory values are named ``<difficulty>:SENTENCE``.
    TypeError
        ``source`` or one of its values is of another type, or ``gold`` is
        not a :class:`Corpus`.
    RunError
        When they are read from a committee run that is not final
        (:func:`check_from_final_run`).

    Examples
    --------
    >>> gold = Corpus("gold.txt", [["我", "爱", "北京"], ["你好"]], [1, 2])
    >>> load_difficulty([[0.1, 0.2, 0.9], [0.5]], gold).tolist()
    [0.1, 0.2, 0.9, 0.5]
    >>> load_difficulty(np.array([0.1, 0.2, 0.9, 0.5]), gold).tolist()
    [0.1, 0.2, 0.9, 0.5]
    >>> load_difficulty([[0.1, 0.2], [0.5]], gold)
    Traceback (most recent call last):
    ...
    committee.errors.InputError: <difficulty>:1: has 2 values, gold gold.txt:1 has 3 words
    >>> load_difficulty([[0.1, True, 0.9], [0.5]], gold)
    Traceback (most recent call last):
    ...
    TypeError: load_difficulty: source must hold real numbers, got bool True (sentence 1, value 2)
    """
    api, name = argument
    require(api, name, source, (str, os.PathLike, np.ndarray, list, tuple), SOURCES)
    require(api, "gold", gold, Corpus, "a Corpus")
    check_from_final_run(source)
    path = difficulty_file(source)
    if path is not None:
        if path.name.endswith(".weight_c"):
            return _per_word(path, read_weight_c(path, gold), gold)
        return read_weight(path, gold)
    if isinstance(source, np.ndarray) and source.ndim == 2:
        source = list(source)
    if isinstance(source, np.ndarray) or not any(
            isinstance(row, (list, tuple, np.ndarray)) for row in source):
        return _flat(source, gold, argument)
    if len(source) != len(gold.words):
        raise InputError(IN_MEMORY, None,
                         f"has {count(len(source), 'sentence')}, gold {gold.path} has "
                         f"{len(gold.words)}: give one list of values per gold sentence")
    out: list[float] = []
    for i, (row, sentence) in enumerate(zip(source, gold.words)):
        values = _values(row, i + 1, argument)
        if len(values) != len(sentence):
            raise InputError(IN_MEMORY, i + 1,
                             f"has {count(len(values), 'value')}, gold "
                             f"{gold.path}:{gold_line(gold, i)} has "
                             f"{count(len(sentence), 'word')}")
        out.extend(values)
    return np.array(out, dtype=np.float64)


def _real(x) -> bool:
    """A real number: int, float, a numpy number, a Fraction; not a bool."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _values(row, line: int | None, argument: tuple[str, str]) -> list[float]:
    """Values of one in-memory sentence (or of a flat vector), checked:
    real numbers (else :class:`TypeError`), finite and in [0, 1] (else
    :class:`InputError` naming the sentence and the position, from 1)."""
    api, name = argument
    where = "" if line is None else f"sentence {line}, "
    if isinstance(row, np.ndarray):
        if row.ndim != 1:
            raise InputError(IN_MEMORY, line, f"expected a list of numbers, got shape {row.shape}")
        if row.dtype.kind not in "iuf" and not all(map(_real, row.tolist())):
            raise TypeError(f"{api}: {name} must hold real numbers, got an array of "
                            f"{row.dtype}" + ("" if line is None else f" (sentence {line})"))
    elif not isinstance(row, (list, tuple)):
        raise TypeError(f"{api}: {name} must hold one list of real numbers per sentence, got "
                        f"{got(row)} for sentence {line}")
    else:
        bad = next((j for j, x in enumerate(row) if not _real(x)), None)
        if bad is not None:
            raise TypeError(f"{api}: {name} must hold real numbers, got {got(row[bad])} "
                            f"({where}value {bad + 1})")
    a = np.asarray(row, dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(a) & (a >= 0.0) & (a <= 1.0)))
    if len(bad):
        raise InputError(IN_MEMORY, line, f"value {row[bad[0]]!r} at position {bad[0] + 1} is "
                                          "not a finite number in [0, 1]")
    return a.tolist()


def _flat(source, gold: Corpus, argument: tuple[str, str]) -> np.ndarray:
    values = _values(source, None, argument)
    if len(values) != gold.n_words():
        raise InputError(IN_MEMORY, None,
                         f"has {count(len(values), 'value')}, gold {gold.path} has "
                         f"{count(gold.n_words(), 'word')} (a flat vector needs one value per "
                         "gold word, in corpus order)")
    return np.array(values, dtype=np.float64)


def _per_word(path, per_char: np.ndarray, gold: Corpus) -> np.ndarray:
    """Per-word difficulties from ``.weight_c`` values, equal within each gold word."""
    lengths = np.fromiter((len(w) for s in gold.words for w in s), dtype=np.int64,
                          count=gold.n_words())
    starts = np.cumsum(lengths) - lengths
    word_of_char = np.repeat(np.arange(len(lengths)), lengths)
    first = per_char[starts] if len(lengths) else per_char[:0]
    differ = np.flatnonzero(per_char != first[word_of_char])
    if len(differ):
        word = int(word_of_char[differ[0]])
        sizes = np.fromiter((len(s) for s in gold.words), dtype=np.int64, count=len(gold.words))
        sentence = int(np.searchsorted(np.cumsum(sizes), word, side="right"))
        raise InputError(path, sentence + 1,
                         f"characters of one gold word ({gold.path}:{gold_line(gold, sentence)}, "
                         f"word {word - int(np.sum(sizes[:sentence])) + 1}) have different values: "
                         "is it the .weight_c file of this gold?")
    return first.astype(np.float64)


# --------------------------------------------------------------------------
# words.tsv
# --------------------------------------------------------------------------

def write_words_tsv(path, gold: Corpus, d, n_correct, oov=None) -> None:
    """Write the tidy per-word table ``words.tsv`` (UTF-8, tab-separated, header).

    Columns: ``sentence`` (0-based sentence index), ``word_index`` (0-based
    within the sentence), ``start``, ``end`` (character span within the
    sentence), ``word``, ``difficulty`` (``repr`` of the float),
    ``n_correct`` (members right), ``oov`` (1/0, empty when unknown) and
    ``pos`` (empty when unknown).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "words.tsv"
    >>> g = Corpus("gold.txt", [["约翰", "喜欢"]], [1])
    >>> write_words_tsv(p, g, [0.0, 0.5], [2, 1], oov=[False, True])
    >>> for line in p.read_text(encoding="utf-8").splitlines():
    ...     print(line.split("\\t"))
    ['sentence', 'word_index', 'start', 'end', 'word', 'difficulty', 'n_correct', 'oov', 'pos']
    ['0', '0', '0', '2', '约翰', '0.0', '2', '0', '']
    ['0', '1', '2', '4', '喜欢', '0.5', '1', '1', '']
    """
    d = np.asarray(d, dtype=np.float64).tolist()
    n_correct = np.asarray(n_correct, dtype=np.int64).tolist()
    n = gold.n_words()
    if len(d) != n or len(n_correct) != n:
        raise ValueError(f"difficulty/n_correct have {len(d)}/{len(n_correct)} entries, "
                         f"gold has {n} words")
    oov_l = None if oov is None else np.asarray(oov, dtype=bool).tolist()
    if oov_l is not None and len(oov_l) != n:
        raise ValueError(f"oov has {len(oov_l)} entries, gold has {n} words")
    rows = ["\t".join(WORDS_TSV_COLUMNS) + "\n"]
    k = 0
    for s, sentence in enumerate(gold.words):
        tags = gold.pos[s] if gold.pos is not None else None
        start = 0
        for j, w in enumerate(sentence):
            if "\t" in w or "\n" in w or "\r" in w:
                raise InputError(gold.path, gold_line(gold, s),
                                 f"word {w!r} contains a tab or line break")
            end = start + len(w)
            o = "" if oov_l is None else ("1" if oov_l[k] else "0")
            pos = tags[j] if tags is not None else ""
            rows.append(f"{s}\t{j}\t{start}\t{end}\t{w}\t{d[k]!r}\t{n_correct[k]}\t{o}\t{pos}\n")
            start = end
            k += 1
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(rows)


def read_words_tsv(path):
    """Read ``words.tsv`` into a pandas DataFrame (words and POS as strings;
    pandas' default float parser reads the written ``repr`` values exactly).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "words.tsv"
    >>> write_words_tsv(p, Corpus("g", [["1998年", "NA"]], [1]), [1 / 3, 1.0], [2, 0])
    >>> df = read_words_tsv(p)
    >>> df["word"].tolist(), df["difficulty"].tolist(), df["oov"].tolist()
    (['1998年', 'NA'], [0.3333333333333333, 1.0], ['', ''])
    """
    import pandas as pd

    extra = {}
    if int(pd.__version__.split(".")[0]) < 3:  # pandas 3 parses floats exactly by default
        extra["float_precision"] = "round_trip"
    from committee.pipeline import runfiles

    return runfiles.read_table(path, sep="\t", keep_default_na=False, quoting=csv.QUOTE_NONE,
                               dtype={"word": str, "pos": str}, **extra)


# --------------------------------------------------------------------------
# Labelled spans (task: ner, docs/method.md §13)
# --------------------------------------------------------------------------

def char_weights(gold: Corpus, units: list, d, spurious_count, K: int) -> np.ndarray:
    """The per-character weights of ``test.weight_c`` for entities.

    A character inside gold entity ``i`` has ``d_i``; any other character
    has the share of members that put a predicted entity over it
    (``spurious_count`` members of ``K``, one integer division as for
    ``d``): the weight a predicted entity ending there gets on the
    precision side (d'_j, docs/method.md §13).

    >>> g = Corpus("g", [["江", "泽", "民", "好"]], [1])
    >>> char_weights(g, [[(0, 3, "PER")]], [0.5], np.array([0, 1, 1, 2]), 4).tolist()
    [0.5, 0.5, 0.5, 0.5]
    >>> char_weights(g, [[(1, 3, "PER")]], [1.0], np.array([3, 0, 0, 1]), 4).tolist()
    [0.75, 1.0, 1.0, 0.25]
    """
    out = np.asarray(spurious_count, dtype=np.int64) / K
    d = np.asarray(d, dtype=np.float64)
    k, base = 0, 0
    for words, sent in zip(gold.words, units):
        for start, end, _ in sent:
            out[base + start:base + end] = d[k]
            k += 1
        base += sum(map(len, words))
    return out.astype(np.float64)


def write_unit_weight(path, units: list, d) -> None:
    """``test.weight`` for entities: one line per sentence, each gold
    entity's difficulty (an empty line for a sentence without one)."""
    texts = list(map(repr, np.asarray(d, dtype=np.float64).tolist()))
    lines, k = [], 0
    for sent in units:
        lines.append(" ".join(texts[k:k + len(sent)]) + "\n")
        k += len(sent)
    if k != len(texts):
        raise ValueError(f"difficulty has {len(texts)} values, gold has {k} entities")
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def write_char_values(path, gold: Corpus, values) -> None:
    """One line per sentence, one value per character (``test.weight_c``)."""
    texts = list(map(repr, np.asarray(values, dtype=np.float64).tolist()))
    lines, k = [], 0
    for words in gold.words:
        n = sum(map(len, words))
        lines.append(" ".join(texts[k:k + n]) + "\n")
        k += n
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def write_entities_tsv(path, gold: Corpus, units: list, d, n_correct, oov) -> None:
    """``words.tsv`` for entities: one row per gold entity, with its
    sentence, index in the sentence, character span, text, difficulty,
    members right, whether its text is unseen in training and its type
    (:data:`ENTITIES_TSV_COLUMNS`)."""
    d, n_correct = np.asarray(d, dtype=np.float64).tolist(), np.asarray(n_correct).tolist()
    oov = np.asarray(oov, dtype=bool).tolist()
    rows, k = ["\t".join(ENTITIES_TSV_COLUMNS) + "\n"], 0
    for s, (words, sent) in enumerate(zip(gold.words, units)):
        text = "".join(words)
        for j, (start, end, kind) in enumerate(sent):
            rows.append(f"{s}\t{j}\t{start}\t{end}\t{text[start:end]}\t{d[k]!r}\t"
                        f"{n_correct[k]}\t{int(oov[k])}\t{kind}\n")
            k += 1
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(rows)


def load_entity_difficulty(source, gold: Corpus, units: list) -> tuple[np.ndarray, np.ndarray]:
    """The difficulty of every gold entity and the per-character weights
    of the precision side, from a run directory or its ``.weight_c`` file
    (docs/method.md §13).

    A ``.weight`` file gives the entities' difficulties but not the weights
    of characters outside them, which spurious entities take: it is
    refused with the file to give instead.
    """
    check_from_final_run(source)
    path = difficulty_file(source)
    if path is None:
        raise TypeError("entity difficulties are read from a run directory or its .weight_c file")
    if path.name.endswith(".weight") and path.with_name(path.name + "_c").is_file():
        path = path.with_name(path.name + "_c")
    elif not path.name.endswith(".weight_c"):
        raise InputError(path, None, "entity scores need the per-character weights: give the "
                                     "run directory or its .weight_c file (docs/method.md §13)")
    per_char = read_weight_c(path, gold)
    return entity_values(path, per_char, gold, units), per_char


def entity_values(path, per_char: np.ndarray, gold: Corpus, units: list) -> np.ndarray:
    """Each gold entity's value from per-character values (``.weight_c``),
    which must be equal within every entity (:class:`InputError` naming
    ``path`` and the line otherwise)."""
    d, base = [], 0
    for i, (words, sent) in enumerate(zip(gold.words, units)):
        for start, end, _ in sent:
            values = per_char[base + start:base + end]
            if (values != values[0]).any():
                raise InputError(path, i + 1, f"characters {start + 1}-{end} of one gold entity "
                                              "have different values: is it the .weight_c file "
                                              "of this gold?")
            d.append(values[0])
        base += sum(map(len, words))
    return np.array(d, dtype=np.float64)
