"""The difficulty files ``.weight`` and ``.weight_c`` (docs/method.md §4):
one line per test sentence, each gold word's difficulty (``.weight``) or
each character's, the difficulty of the gold word containing it
(``.weight_c``), separated by one space, ``\\n`` after every line (an empty
sentence gives an empty line).  Numbers are written as Python's
``repr(float)``, so reading gives back the exact values.
:mod:`committee.pipeline.difficulty` re-exports the public names here.
"""

from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np

from committee.system.arguments import DECIMAL, count
from committee.corpus import Corpus
from committee.errors import caller_level, InputError, PlausibilityWarning
from committee.system.files import atomic_open
from committee.system.streams import read_text

def format_value(x: float) -> str:
    """How one difficulty is written: ``repr`` of the Python float.

    >>> [format_value(x) for x in (0, 1, 1 / 3, 0.1 * 3)]
    ['0.0', '1.0', '0.3333333333333333', '0.30000000000000004']
    """
    return repr(float(x))


def _check_length(gold: Corpus, d: np.ndarray, per_char: bool) -> None:
    n = sum(len(w) for s in gold.words for w in s) if per_char else gold.n_words()
    if d.shape != (n,):
        unit = "characters" if per_char else "words"
        raise ValueError(f"difficulty has shape {d.shape}, gold has {n} {unit}")


def write_weight(path, gold: Corpus, d) -> None:
    """Write ``NAME.weight``: per sentence, each gold word's difficulty.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.weight"
    >>> g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"], []], [1, 2])
    >>> write_weight(p, g, [0.0, 2 / 3, 1.0])
    >>> p.read_bytes().decode()
    '0.0 0.6666666666666666 1.0\\n\\n'
    """
    _write_values(path, gold, d, per_char=False)


def write_weight_c(path, gold: Corpus, d) -> None:
    """Write ``NAME.weight_c``: per sentence, one number per character, the
    difficulty of the gold word containing it (``d`` is per word).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.weight_c"
    >>> write_weight_c(p, Corpus("gold.txt", [["约翰", "喜", "玛丽"]], [1]), [0.0, 0.5, 1.0])
    >>> p.read_bytes().decode()
    '0.0 0.0 0.5 1.0 1.0\\n'
    """
    _write_values(path, gold, d, per_char=True)


def _write_values(path, gold: Corpus, d, per_char: bool) -> None:
    """One line per sentence: each gold word's value, repeated per character
    when ``per_char``; shortest round-trip ``repr``, single spaces."""
    d = np.asarray(d, dtype=np.float64)
    _check_length(gold, d, per_char=False)
    texts = list(map(repr, d.tolist()))
    lines, k = [], 0
    for sentence in gold.words:
        words = texts[k:k + len(sentence)]
        if per_char:
            words = [" ".join([t] * len(w)) for t, w in zip(words, sentence)]
        lines.append(" ".join(words) + "\n")
        k += len(sentence)
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def _read_lines(path) -> list[str]:
    """Lines of a UTF-8 file, read block by block (:func:`committee.system.streams.read_text`:
    undecodable bytes, NUL and a line without end are refused at once); a
    BOM and CRLF line ends are accepted."""
    text = read_text(path)
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [s[:-1] if s.endswith("\r") else s for s in lines]


_TOKEN = re.compile(r"\S+")


def _parse(path, lineno: int, line: str) -> list[float]:
    """The values of one line of a difficulty file: ASCII decimal numbers
    (:data:`committee.system.arguments.DECIMAL`) in [0, 1], separated by
    whitespace; anything else is an :class:`InputError` naming the line and
    the column (from 1) where the value starts.

    >>> _parse("g.weight", 1, "0.5 1e-05 .25")
    [0.5, 1e-05, 0.25]
    >>> _parse("g.weight", 2, "0.5 0.3_3")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: g.weight:2: value '0.3_3' at column 5 is not a decimal number of ASCII digits (such as 0.25 or 1e-05)
    """
    values = []
    for m in _TOKEN.finditer(line):
        tok, where = m.group(), f"value {m.group()!r} at column {m.start() + 1}"
        try:
            x = float(tok)
        except ValueError:
            raise InputError(path, lineno, f"{where} is not a number") from None
        if not math.isfinite(x):
            raise InputError(path, lineno, f"{where} is not a finite number")
        if DECIMAL.fullmatch(tok) is None:  # 0.3_3, full-width or other digits
            raise InputError(path, lineno, f"{where} is not a decimal number of ASCII digits "
                                           "(such as 0.25 or 1e-05)")
        if not 0.0 <= x <= 1.0:
            raise InputError(path, lineno, f"{where} is outside [0, 1]")
        values.append(x)
    return values


def _check_line_count(path, lines: list[str], gold: Corpus) -> None:
    if not lines and gold.words:
        raise InputError(path, None,
                         f"file is empty, gold {gold.path} has "
                         f"{count(len(gold.words), 'sentence')}: a difficulty file has one line "
                         "per gold sentence (from committee run)")
    if len(lines) != len(gold.words):
        raise InputError(path, None,
                         f"has {count(len(lines), 'line')}, gold {gold.path} has "
                         f"{count(len(gold.words), 'sentence')}: is it the difficulty file of "
                         "this gold? (one line per gold sentence)")


def gold_line(gold: Corpus, i: int) -> int:
    """The line of ``gold``'s file where its sentence ``i`` (from 0) is."""
    return gold.lines[i] if i < len(gold.lines) else i + 1


def read_weight(path, gold: Corpus) -> np.ndarray:
    """Read ``NAME.weight`` against ``gold``; returns d of every gold word.

    Checks one line per gold sentence, one value per gold word, and every
    value a finite number in [0, 1]; raises :class:`InputError` naming the
    line otherwise.
    """
    lines = _read_lines(path)
    _check_line_count(path, lines, gold)
    out = []
    for i, (line, sentence) in enumerate(zip(lines, gold.words)):
        values = _parse(path, i + 1, line)
        if len(values) != len(sentence):
            n_chars = sum(map(len, sentence))
            hint = (" (one value per character: a .weight_c file? give the per-word .weight)"
                    if len(values) == n_chars else "")
            raise InputError(path, i + 1,
                             f"has {count(len(values), 'value')}, gold "
                             f"{gold.path}:{gold_line(gold, i)} has "
                             f"{count(len(sentence), 'word')}{hint}")
        out.extend(values)
    return np.array(out, dtype=np.float64)


def read_weight_c(path, gold: Corpus) -> np.ndarray:
    """Read ``NAME.weight_c`` against ``gold``; returns one d per character.

    Same checks as :func:`read_weight`, one value per character.  Some
    released files count a character outside the Basic Multilingual Plane
    (e.g. an emoji) as two values, one per UTF-16 code unit; a line whose
    count equals the sentence's UTF-16 length is accepted, each surrogate
    pair's two values (which must be equal) read as one, and one
    :class:`PlausibilityWarning` per file says how many lines were so
    counted.
    """
    lines = _read_lines(path)
    _check_line_count(path, lines, gold)
    out: list[float] = []
    utf16_lines = 0
    for i, (line, sentence) in enumerate(zip(lines, gold.words)):
        text = "".join(sentence)
        values = _parse(path, i + 1, line)
        if len(values) == len(text):
            out.extend(values)
            continue
        n16 = len(text.encode("utf-16-le")) // 2
        if n16 != len(text) and len(values) == n16:
            j = 0
            for k, ch in enumerate(text):
                if ord(ch) > 0xFFFF:
                    a, b = values[j], values[j + 1]
                    if a != b:
                        raise InputError(
                            path, i + 1,
                            f"values {a!r} and {b!r} of the two UTF-16 units of {ch!r} "
                            f"(character {k + 1} of the sentence) differ")
                    j += 2
                else:
                    a = values[j]
                    j += 1
                out.append(a)
            utf16_lines += 1
            continue
        raise InputError(path, i + 1,
                         f"has {count(len(values), 'value')}, gold "
                         f"{gold.path}:{gold_line(gold, i)} has {count(len(text), 'character')}")
    if utf16_lines:
        warnings.warn(PlausibilityWarning(
            f"{os.fspath(path)}: {count(utf16_lines, 'line')} "
            f"{'counts' if utf16_lines == 1 else 'count'} characters outside the Basic "
            f"Multilingual Plane as two values (UTF-16 code units); each pair was read as "
            f"one value"), stacklevel=caller_level())
    return np.array(out, dtype=np.float64)
