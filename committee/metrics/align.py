"""Alignment of an output with its gold: same sentences, same characters.

:func:`check_aligned` raises :class:`~committee.errors.InputError` naming the
first difference (a line, a character, a normalisation to apply).
"""

from __future__ import annotations

from committee.system.arguments import count
from committee.corpus import Corpus
from committee.errors import InputError

def _line(corpus: Corpus, i: int) -> int:
    return corpus.lines[i] if i < len(corpus.lines) else i + 1


def check_aligned(gold: Corpus, pred: Corpus) -> None:
    """Raise :class:`InputError` unless ``pred`` has gold's sentences and characters.

    Examples
    --------
    >>> g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"]], [1])
    >>> check_aligned(g, Corpus("out.txt", [["约翰喜欢", "玛丽"]], [1]))
    >>> check_aligned(g, Corpus("out.txt", [["约翰", "喜欢", "玛莉"]], [1]))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: out.txt:1: characters differ from gold.txt:1 at character 6: the output has '莉' where the gold has '丽'
    >>> check_aligned(g, Corpus("out.txt", [["约翰", "喜欢"]], [1]))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: out.txt:1: characters differ from gold.txt:1 at character 5: the output's line ends where the gold has '玛'
    >>> check_aligned(g, Corpus("out.txt", [["约翰"], ["喜欢"]], [1, 2]))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    committee.errors.InputError: out.txt: has 2 lines, gold gold.txt has 1: the first difference
    is at out.txt:1 vs gold.txt:1; every output needs one line per gold line, in the same order
    >>> check_aligned(g, Corpus("out.txt", [["约翰", "喜欢", "玛丽"], []], [1, 2]))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: out.txt: has 2 lines, gold gold.txt has 1: line 2 is extra (a blank line at the end?); every output needs one line per gold line, in the same order
    >>> gw = Corpus("gold.txt", [["ABC", "，"]], [1])
    >>> check_aligned(gw, Corpus("out.txt", [["ＡＢＣ", ","]], [1]))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: out.txt:1: characters differ from gold.txt:1 at character 1: the output has 'Ａ' where the gold has 'A'; the files differ only by full-width forms: score every file with --normalize fullwidth
    """
    if len(pred.words) != len(gold.words):
        raise InputError(pred.path, None,
                         f"has {count(len(pred.words), 'line')}, gold {gold.path} has "
                         f"{len(gold.words)}"
                         f"{_where_lines_differ(gold, pred)}; every output needs one line per "
                         "gold line, in the same order")
    if gold.normalization != pred.normalization:
        raise InputError(pred.path, None,
                         f"characters normalised as {pred.normalization or 'none'}, "
                         f"gold {gold.path} as {gold.normalization or 'none'}")
    gold_text = ["".join(s) for s in gold.words]
    pred_text = ["".join(s) for s in pred.words]
    if gold_text == pred_text:  # fast path: one list comparison
        return
    for i, (g, p) in enumerate(zip(gold_text, pred_text)):
        if g == p:
            continue
        k = next((k for k, (a, b) in enumerate(zip(g, p)) if a != b), min(len(g), len(p)))
        raise InputError(pred.path, _line(pred, i),
                         f"characters differ from {gold.path}:{_line(gold, i)} "
                         f"at character {k + 1}: {first_difference(p, g, k, 'the output')}"
                         f"{_normalization_hint(gold, gold_text, pred_text, i)}")


def first_difference(text: str, expected: str, k: int, who: str) -> str:
    """What ``text`` (from ``who``) has at character ``k`` (from 0) where
    the gold ``expected`` has another character or ends.

    >>> first_difference("我爱", "我爱北京", 2, "the output")
    "the output's line ends where the gold has '北'"
    >>> first_difference("我爱北京", "我爱", 2, "the output")
    "the output has '北' where the gold's line ends"
    """
    if k >= len(text):
        return f"{who}'s line ends where the gold has {expected[k]!r}"
    if k >= len(expected):
        return f"{who} has {text[k]!r} where the gold's line ends"
    return f"{who} has {text[k]!r} where the gold has {expected[k]!r}"


_FOLDINGS = (("fullwidth", "full-width forms"), ("nfkc", "Unicode compatibility forms (NFKC)"))


def _normalization_hint(gold: Corpus, gold_text: list[str], pred_text: list[str], i: int) -> str:
    """Suggest ``--normalize`` when folding makes differing line ``i`` equal."""
    from committee.corpus import normalize

    for mode, what in _FOLDINGS:
        if mode == gold.normalization:
            continue
        if normalize(gold_text[i], mode) != normalize(pred_text[i], mode):
            continue
        if all(normalize(a, mode) == normalize(b, mode)
               for a, b in zip(gold_text, pred_text) if a != b):
            return f"; the files differ only by {what}: score every file with --normalize {mode}"
        return (f"; this line differs only by {what} (--normalize {mode} would fold it), "
                "but other lines differ in more than that")
    return ""


def _where_lines_differ(gold: Corpus, pred: Corpus) -> str:
    """Where the sentences of gold and an output with another line count part."""
    g = ["".join(s) for s in gold.words]
    p = ["".join(s) for s in pred.words]
    n = min(len(g), len(p))
    i = next((i for i in range(n) if g[i] != p[i]), None)
    if i is None:
        if len(p) < len(g):
            return (f": the output ends after line {_line(pred, n - 1) if n else 0}, gold goes "
                    f"on to line {_line(gold, len(g) - 1)} (a truncated output?)")
        extra = p[n:]
        span = (f"line {_line(pred, n)} is" if len(extra) == 1
                else f"lines {_line(pred, n)}-{_line(pred, len(p) - 1)} are")
        blank = " (a blank line at the end?)" if not any(extra) else ""
        return f": {span} extra{blank}"
    where = f"{pred.path}:{_line(pred, i)} vs {gold.path}:{_line(gold, i)}"
    if i + 1 < len(g) and p[i] == g[i] + g[i + 1]:
        return f": {where} joins two gold lines into one"
    if i + 1 < len(p) and g[i] == p[i] + p[i + 1]:
        return f": {where} splits one gold line in two"
    if i + 1 < len(g) and p[i] == g[i + 1]:
        return f": {where}, the output lacks gold line {_line(gold, i)}"
    if i + 1 < len(p) and p[i + 1] == g[i]:
        return f": {where}, the output has an extra line"
    return f": the first difference is at {where}"
