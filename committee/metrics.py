"""Scoring a segmentation against gold (docs/method.md §5, §6).

Count first, divide once.  :func:`collect` (or :class:`Scorer`, which
prepares the gold side once for many outputs) reduces a system output to
per-sentence sufficient statistics (:class:`SufficientStats`): word counts,
difficulty-weighted sums, OOV counts, boundary counts and per-bin counts.
:func:`compute` turns their corpus totals into every metric with one division
each; :mod:`committee.significance` (bootstrap intervals, paired bootstrap)
resamples sentences and re-uses the same arithmetic on resampled totals,
never re-scoring text.

Conventions (see ``docs/metrics.md``):

* A word is a character span ``[start, end)``; a gold word is correct iff its
  span is one of the predicted spans.
* ``d'_j`` of predicted word ``j`` is the difficulty of the gold word that
  contains the last character of ``j`` (NLPCC 2016 evaluation script).
* A zero denominator makes a metric undefined: :func:`compute` returns
  ``None`` for it and emits :class:`~committee.errors.UndefinedMetricWarning`
  saying why.  ``H(0, 0) = 0``; the harmonic mean of an undefined value is
  undefined.
* Difficulty bins are ``[0, .1), [.1, .2), ..., [.9, 1.0]``, bin index
  ``min(floor(10 d + 1e-9), 9)`` so that ``d = 0.3`` lands in ``[.3, .4)``.

:func:`reference_scores` is a deliberately plain per-word implementation of
the same definitions, the oracle of the tests and the baseline of
``scripts/bench_score.py``.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from dataclasses import dataclass, fields
from typing import Iterable

import numpy as np

from committee import __version__
from committee.checkargs import count
from committee.corpus import Corpus
from committee.errors import InputError, UndefinedMetricWarning
from committee.spans import Spans, match, spans

N_BINS = 10

#: Scalar metrics, in the order :func:`compute` returns them.
METRICS = (
    "p", "r", "f1", "pb", "rb", "fb",
    "p_reward", "p_punishment", "r_reward", "r_punishment",
    "oov_rate", "oov_recall", "iv_recall", "er", "tnr",
    "boundary_p", "boundary_r", "boundary_f1",
)


# --------------------------------------------------------------------------
# Alignment
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------
# Sufficient statistics
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class SufficientStats:
    """Per-sentence counts and sums from which every metric is one division.

    Every field is a numpy array with one row per sentence (shape ``(S,)``,
    or ``(S, 10)`` for the bins).  Fields that need difficulties
    (``gold_d``, ``correct_d``, ``pred_d``, ``bin_gold``, ``bin_correct``)
    or a training vocabulary (``n_oov``, ``oov_correct``) are ``None`` when
    those inputs were not given.

    Attributes
    ----------
    n_gold, n_pred, n_correct : int64
        Gold words N, predicted words N', correctly predicted words c.
    total_words : int64
        TW = n(n+1)/2, the candidate words of a sentence of n characters.
    boundary_gold, boundary_pred, boundary_correct : int64
        Word boundaries in the n-1 inner gaps: gold, predicted, both.
    gold_d : float64
        Σ d_i over gold words.
    correct_d : float64
        Σ d_i m_i over gold words.
    pred_d : float64
        Σ d'_j over predicted words.  The punishment sums are derived:
        Σ(1-d_i)m_i = n_correct - correct_d, Σ(1-d_i) = n_gold - gold_d,
        Σ(1-d'_j) = n_pred - pred_d.
    n_oov, oov_correct : int64
        Gold words not in the training vocabulary, and how many are correct.
    bin_gold, bin_correct : int64, shape (S, 10)
        Gold words per difficulty bin, and how many are correct.
    """

    n_gold: np.ndarray
    n_pred: np.ndarray
    n_correct: np.ndarray
    total_words: np.ndarray
    boundary_gold: np.ndarray
    boundary_pred: np.ndarray
    boundary_correct: np.ndarray
    gold_d: np.ndarray | None = None
    correct_d: np.ndarray | None = None
    pred_d: np.ndarray | None = None
    n_oov: np.ndarray | None = None
    oov_correct: np.ndarray | None = None
    bin_gold: np.ndarray | None = None
    bin_correct: np.ndarray | None = None

    @property
    def n_sentences(self) -> int:
        return len(self.n_gold)

    def columns(self, bins: bool = True) -> tuple[list[str], np.ndarray]:
        """The statistics as one ``(S, F)`` float64 matrix and its column names.

        Bins become columns ``bin_gold_0 … bin_gold_9`` and
        ``bin_correct_0 … bin_correct_9`` (left out with ``bins=False``).
        Summing rows (with bootstrap weights or without) gives the corpus
        totals.
        """
        names, cols = [], []
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or (v.ndim == 2 and not bins):
                continue
            if v.ndim == 2:
                for b in range(v.shape[1]):
                    names.append(f"{f.name}_{b}")
                    cols.append(v[:, b])
            else:
                names.append(f.name)
                cols.append(v)
        matrix = np.column_stack(cols).astype(np.float64) if cols else np.zeros((0, 0))
        return names, matrix


def oov_flags(gold: Corpus | list[list[str]], train_words: Iterable[str]) -> np.ndarray:
    """Whether each gold token (corpus order) is out of the training vocabulary.

    Compute once per gold corpus and pass to :func:`collect` as ``oov=``.

    >>> oov_flags([["约翰", "喜欢", "玛丽"]], {"喜欢"}).tolist()
    [True, False, True]
    """
    words = gold.words if isinstance(gold, Corpus) else gold
    vocab = train_words if isinstance(train_words, (set, frozenset)) else set(train_words)
    n = sum(len(s) for s in words)
    return np.fromiter((w not in vocab for s in words for w in s), dtype=bool, count=n)


def difficulty_bins(d: np.ndarray) -> np.ndarray:
    """Bin index 0…9 of each difficulty: ``[0, .1) … [.9, 1.0]``.

    >>> difficulty_bins(np.array([0.0, 0.09, 0.1, 0.3, 0.7, 0.99, 1.0])).tolist()
    [0, 0, 1, 3, 7, 9, 9]
    """
    return np.minimum(np.floor(np.asarray(d, dtype=np.float64) * 10 + 1e-9),
                      N_BINS - 1).astype(np.int64)


def _check_difficulty(difficulty, n: int) -> np.ndarray:
    d = np.asarray(difficulty, dtype=np.float64)
    if d.shape != (n,):
        raise ValueError(f"difficulty has shape {d.shape}, gold has {n} words")
    if n and not (np.isfinite(d).all() and d.min() >= 0.0 and d.max() <= 1.0):
        raise ValueError("difficulties must be finite and in [0, 1]")
    return d


class Scorer:
    """Everything about the gold side, computed once; scores any number of outputs.

    Like a sacrebleu metric object built with its references: the gold spans,
    gold text, inner boundaries, difficulty bins and OOV flags are prepared
    here, so :meth:`collect` does only the per-output work.

    Parameters
    ----------
    gold : Corpus
    difficulty : array of float, shape (N_gold,), optional
        d of every gold word in corpus order.
    train_words : set of str, optional
        Training vocabulary for the OOV metrics.
    oov : array of bool, shape (N_gold,), optional
        Precomputed :func:`oov_flags` (wins over ``train_words``).

    Examples
    --------
    >>> scorer = Scorer(Corpus("gold.txt", [["约翰", "喜欢", "玛丽"]], [1]), difficulty=[0.0, 0.5, 1.0])
    >>> s = scorer.collect(Corpus("out.txt", [["约翰喜欢", "玛丽"]], [1]))
    >>> compute(s)["r"], s.pred_d.tolist()
    (0.3333333333333333, [1.5])
    """

    def __init__(self, gold: Corpus, difficulty=None, train_words=None, *,
                 oov: np.ndarray | None = None):
        self.gold = gold
        g = self.spans = spans(gold.words)
        self.n_sentences = S = len(gold.words)
        self._text = "".join(map("".join, gold.words))
        n_chars = np.diff(g.sentence_offsets)
        self._n_gold = np.bincount(g.sentence, minlength=S)
        self._total_words = n_chars * (n_chars + 1) // 2
        # inner boundaries: word ends that are not a sentence end, as a mask over
        # the global character axis (index = offset of the gap)
        inner = g.ends != g.sentence_offsets[1:][g.sentence]
        self._boundary = np.zeros(g.n_chars + 1, dtype=bool)
        self._boundary[g.ends[inner]] = True
        self._boundary_gold = np.bincount(g.sentence[inner], minlength=S)
        self.difficulty = None
        if difficulty is not None:
            d = self.difficulty = _check_difficulty(difficulty, len(g.starts))
            self._gold_d = np.bincount(g.sentence, weights=d, minlength=S)
            # d of the gold word containing each character (global axis)
            self._char_d = np.repeat(d, g.ends - g.starts)
            self._bin_key = g.sentence * N_BINS + difficulty_bins(d)
            self._bin_gold = np.bincount(self._bin_key,
                                         minlength=S * N_BINS).reshape(S, N_BINS)
        if oov is None and train_words is not None:
            oov = oov_flags(gold, train_words)
        self.oov = None
        if oov is not None:
            oov = self.oov = np.asarray(oov, dtype=bool)
            if oov.shape != (len(g.starts),):
                raise ValueError(f"oov flags have shape {oov.shape}, gold has "
                                 f"{len(g.starts)} words")
            self._n_oov = np.bincount(g.sentence[oov], minlength=S)

    def collect(self, pred: Corpus, check: bool = True,
                pred_spans: Spans | None = None) -> SufficientStats:
        """Sufficient statistics of ``pred`` (checked to align with gold unless
        ``check=False``); ``pred_spans`` spares recomputing ``spans(pred.words)``
        when the caller has them."""
        gold, g, S = self.gold, self.spans, self.n_sentences
        p = spans(pred.words) if pred_spans is None else pred_spans
        if check:
            # fast path: same characters per sentence and the same text overall
            if (len(pred.words) != S or not np.array_equal(p.sentence_offsets, g.sentence_offsets)
                    or "".join(map("".join, pred.words)) != self._text
                    or gold.normalization != pred.normalization):
                check_aligned(gold, pred)  # raises, naming the first difference
        gold_ok, pred_ok = match(g, p)

        def per_sentence(sentence_ids, weights=None):
            return np.bincount(sentence_ids, weights=weights, minlength=S)

        p_inner = p.ends != p.sentence_offsets[1:][p.sentence]
        p_sentence_inner = p.sentence[p_inner]
        extra = {}
        if self.difficulty is not None:
            d = self.difficulty
            extra["gold_d"] = self._gold_d
            extra["correct_d"] = per_sentence(g.sentence, np.where(gold_ok, d, 0.0))
            # d'_j: difficulty of the gold word containing the last character of word j
            extra["pred_d"] = per_sentence(p.sentence, self._char_d[p.ends - 1])
            extra["bin_gold"] = self._bin_gold
            extra["bin_correct"] = np.bincount(self._bin_key[gold_ok],
                                               minlength=S * N_BINS).reshape(S, N_BINS)
        if self.oov is not None:
            extra["n_oov"] = self._n_oov
            extra["oov_correct"] = per_sentence(g.sentence[self.oov & gold_ok])
        return SufficientStats(
            n_gold=self._n_gold,
            n_pred=per_sentence(p.sentence),
            n_correct=per_sentence(g.sentence[gold_ok]),
            total_words=self._total_words,
            boundary_gold=self._boundary_gold,
            boundary_pred=per_sentence(p_sentence_inner),
            boundary_correct=per_sentence(p_sentence_inner[self._boundary[p.ends[p_inner]]]),
            **extra)


    def error_types(self, pred_spans: Spans) -> dict[str, int]:
        """:func:`error_types` of an aligned output given by its spans, with
        the gold's spans prepared once."""
        return _outcome_counts(self.spans, pred_spans)


def collect(gold: Corpus, pred: Corpus, difficulty=None, train_words=None, *,
            oov: np.ndarray | None = None, check: bool = True) -> SufficientStats:
    """Reduce ``pred`` scored against ``gold`` to per-sentence sufficient statistics.

    One-shot form of :class:`Scorer` (use a ``Scorer`` to score many outputs
    against the same gold).

    Parameters
    ----------
    gold, pred : Corpus
        Same sentences, same characters (checked unless ``check=False``).
    difficulty : array of float, shape (N_gold,), optional
        d of every gold word in corpus order.
    train_words : set of str, optional
        Training vocabulary for the OOV metrics.
    oov : array of bool, shape (N_gold,), optional
        Precomputed :func:`oov_flags` (wins over ``train_words``).

    Examples
    --------
    >>> g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"]], [1])
    >>> p = Corpus("out.txt", [["约翰喜欢", "玛丽"]], [1])
    >>> s = collect(g, p, difficulty=[0.0, 0.5, 1.0])
    >>> s.n_gold.tolist(), s.n_pred.tolist(), s.n_correct.tolist()
    ([3], [2], [1])
    >>> s.gold_d.tolist(), s.correct_d.tolist(), s.pred_d.tolist()
    ([1.5], [1.0], [1.5])
    """
    if check and len(pred.words) != len(gold.words):
        check_aligned(gold, pred)
    return Scorer(gold, difficulty, train_words, oov=oov).collect(pred, check=check)


# --------------------------------------------------------------------------
# From totals to metrics (one home for every formula)
# --------------------------------------------------------------------------

def harmonic(a, b):
    """H(a, b) = 2ab / (a + b), with H(0, 0) = 0 and H(x, NaN) = NaN (elementwise).

    >>> harmonic(np.array([0.5, 0.0, 1.0]), np.array([1/3, 0.0, np.nan])).round(6).tolist()
    [0.4, 0.0, nan]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    s = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(s > 0, 2 * a * b / np.where(s > 0, s, 1.0), 0.0)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


def _ratio(num, den, clip=False):
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)
    if clip:
        # Ratios of float sums whose exact value lies in [0, 1] can miss it by
        # an ulp (the two sums are accumulated in different orders).
        out = np.clip(out, 0.0, 1.0)
    return out


def _metric_arrays(t: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every metric from totals ``t`` (arrays of equal shape); NaN = undefined.

    The one home of the formulas: :func:`compute` applies it to corpus totals,
    :mod:`committee.significance` to bootstrap resamples.
    """
    out = {}
    out["p"] = _ratio(t["n_correct"], t["n_pred"])
    out["r"] = _ratio(t["n_correct"], t["n_gold"])
    out["f1"] = harmonic(out["p"], out["r"])
    nan = np.full(np.shape(t["n_gold"]), np.nan)
    if "gold_d" in t:
        correct_easy = t["n_correct"] - t["correct_d"]  # Σ (1 - d_i) m_i
        out["p_reward"] = _ratio(t["correct_d"], t["pred_d"], clip=True)
        out["p_punishment"] = _ratio(correct_easy, t["n_pred"] - t["pred_d"], clip=True)
        out["r_reward"] = _ratio(t["correct_d"], t["gold_d"], clip=True)
        out["r_punishment"] = _ratio(correct_easy, t["n_gold"] - t["gold_d"], clip=True)
        out["pb"] = harmonic(out["p_reward"], out["p_punishment"])
        out["rb"] = harmonic(out["r_reward"], out["r_punishment"])
        out["fb"] = harmonic(out["pb"], out["rb"])
    else:
        for k in ("pb", "rb", "fb", "p_reward", "p_punishment", "r_reward", "r_punishment"):
            out[k] = nan
    if "n_oov" in t:
        out["oov_rate"] = _ratio(t["n_oov"], t["n_gold"])
        out["oov_recall"] = _ratio(t["oov_correct"], t["n_oov"])
        out["iv_recall"] = _ratio(t["n_correct"] - t["oov_correct"], t["n_gold"] - t["n_oov"])
    else:
        out["oov_rate"] = out["oov_recall"] = out["iv_recall"] = nan
    out["er"] = _ratio(t["n_pred"] - t["n_correct"], t["n_gold"])
    out["tnr"] = 1.0 - _ratio(t["n_pred"] - t["n_correct"], t["total_words"] - t["n_gold"])
    out["boundary_p"] = _ratio(t["boundary_correct"], t["boundary_pred"])
    out["boundary_r"] = _ratio(t["boundary_correct"], t["boundary_gold"])
    out["boundary_f1"] = harmonic(out["boundary_p"], out["boundary_r"])
    return {k: out[k] for k in METRICS}


def _why_undefined(t: dict[str, float]) -> dict[str, str]:
    """For each metric undefined at these totals, the reason (component metrics only;
    harmonic means inherit from their parts)."""
    why = {}
    if t["n_pred"] == 0:
        why["p"] = "p undefined (and so f1): the output has no words (N' = 0)"
    if t["n_gold"] == 0:
        why["r"] = "r undefined (and so f1, er, oov_rate): the gold standard has no words (N = 0)"
    if "gold_d" in t:
        if t["pred_d"] == 0:
            why["p_reward"] = ("p_reward undefined (and so pb, fb): Σ d' over predicted words "
                               "is 0 (every predicted word ends in a gold word of difficulty 0)")
        if t["n_pred"] - t["pred_d"] == 0:
            why["p_punishment"] = ("p_punishment undefined (and so pb, fb): Σ (1 - d') over "
                                   "predicted words is 0 (every predicted word ends in a gold "
                                   "word of difficulty 1)")
        if t["gold_d"] == 0:
            why["r_reward"] = ("r_reward undefined (and so rb, fb): Σ d over gold words is 0 "
                               "(every word has difficulty 0)")
        if t["n_gold"] - t["gold_d"] == 0:
            why["r_punishment"] = ("r_punishment undefined (and so rb, fb): Σ (1 - d) over gold "
                                   "words is 0 (every word has difficulty 1)")
    if "n_oov" in t:
        if t["n_oov"] == 0 and t["n_gold"] > 0:
            why["oov_recall"] = "oov_recall undefined: no gold word is out of vocabulary"
        if t["n_gold"] - t["n_oov"] == 0 and t["n_gold"] > 0:
            why["iv_recall"] = "iv_recall undefined: no gold word is in the vocabulary"
    if t["total_words"] - t["n_gold"] == 0:
        why["tnr"] = ("tnr undefined: there is no non-gold candidate word "
                      "(Σ TW - N = 0; every sentence has at most one character)")
    if t["boundary_pred"] == 0:
        why["boundary_p"] = "boundary_p undefined (and so boundary_f1): the output has no inner boundary"
    if t["boundary_gold"] == 0:
        why["boundary_r"] = ("boundary_r undefined (and so boundary_f1): the gold standard "
                             "has no inner boundary")
    return why


def _totals(stats: SufficientStats) -> dict[str, np.ndarray]:
    """Corpus totals of every statistic (bins as arrays of 10)."""
    names, m = stats.columns()
    tot = m.sum(axis=0)
    t = {name: tot[j] for j, name in enumerate(names)}
    if stats.bin_gold is not None:
        t["bin_gold"] = np.stack([t.pop(f"bin_gold_{b}") for b in range(N_BINS)], axis=-1)
        t["bin_correct"] = np.stack([t.pop(f"bin_correct_{b}") for b in range(N_BINS)], axis=-1)
    return t


def _none(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def compute(stats: SufficientStats, where: str | None = None) -> dict:
    """Every metric from sufficient statistics (corpus micro-averages).

    Returns a dict with the keys of :data:`METRICS` (fractions in [0, 1],
    except ``er`` which can exceed 1; ``None`` when undefined), plus
    ``recall_by_bin`` (10 recalls, ``None`` for an empty bin; ``None``
    without difficulties) and ``counts`` (``n_gold``, ``n_pred``,
    ``n_correct``).  An undefined metric comes with an
    :class:`UndefinedMetricWarning` saying why; metrics whose inputs were not
    given (no difficulty, no vocabulary) are ``None`` without a warning.
    ``where`` (the output's name) starts each warning's text.

    Examples
    --------
    >>> g = Corpus("gold.txt", [["計算機", "總是", "有問題"]], [1])
    >>> p = Corpus("out.txt", [["計算機", "總是", "有", "問題"]], [1])
    >>> m = compute(collect(g, p))
    >>> m["p"], round(m["r"], 4), m["counts"]
    (0.5, 0.6667, {'n_gold': 3, 'n_pred': 4, 'n_correct': 2})
    >>> m["pb"] is None
    True
    """
    t = _totals(stats)
    arrays = _metric_arrays(t)
    for msg in _why_undefined({k: v for k, v in t.items() if np.ndim(v) == 0}).values():
        warnings.warn(UndefinedMetricWarning(f"{where}: {msg}" if where else msg), stacklevel=2)
    out: dict = {k: _none(arrays[k]) for k in METRICS}
    if "bin_gold" in t:
        rec = _ratio(t["bin_correct"], t["bin_gold"])
        out["recall_by_bin"] = [_none(x) for x in rec]
    else:
        out["recall_by_bin"] = None
    out["counts"] = {k: int(t[k]) for k in ("n_gold", "n_pred", "n_correct")}
    return out


# --------------------------------------------------------------------------
# Signature
# --------------------------------------------------------------------------

def words_sha256(words: Iterable[str]) -> str:
    """Checksum of a vocabulary: SHA-256 of its sorted distinct words, one per line."""
    text = "".join(w + "\n" for w in sorted(set(words)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def array_sha256(d) -> str:
    """Checksum of a difficulty vector: SHA-256 of its little-endian float64 bytes."""
    return hashlib.sha256(np.ascontiguousarray(d, dtype="<f8").tobytes()).hexdigest()


def signature(*, match: str = "exact-span", normalization: str | None = None,
              gold_sha256: str | None = None, difficulty=None,
              difficulty_sha256: str | None = None, train_words=None,
              train_words_sha256: str | None = None, n_bootstrap: int = 0,
              seed: int | None = None) -> str:
    """A sacrebleu-style signature: two scores with the same one are comparable.

    Fields, ``|``-separated:

    ``committee-score``
        what produced the numbers.
    ``gold:sha256=<12 hex>`` (only when given)
        checksum of the gold file.
    ``match:exact-span``
        a word is correct iff its character span is a gold span.
    ``norm:none|nfkc|fullwidth``
        character normalisation applied identically to every file.
    ``difficulty:sha256=<12 hex>`` or ``difficulty:none``
        checksum of the ``.weight`` file (``difficulty_sha256``) or of the
        difficulty vector (``difficulty``, little-endian float64 bytes).
    ``oov:words=<12 hex>`` or ``oov:none``
        checksum of the vocabulary source: the word list or training corpus
        file (``train_words_sha256``), or the sorted distinct words
        (``train_words``, see :func:`words_sha256`).
    ``bootstrap:<n>,seed=<seed>`` (only with ``n_bootstrap > 0``)
        resamples and seed of the confidence intervals.
    ``version:<committee version>``

    >>> signature(difficulty_sha256="ab" * 32, train_words_sha256="cd" * 32)[:-len(__version__)]
    'committee-score|match:exact-span|norm:none|difficulty:sha256=abababababab|oov:words=cdcdcdcdcdcd|version:'
    """
    if difficulty_sha256 is None and difficulty is not None:
        difficulty_sha256 = array_sha256(difficulty)
    if train_words_sha256 is None and train_words is not None:
        train_words_sha256 = words_sha256(train_words)
    parts = ["committee-score"]
    if gold_sha256:
        parts.append(f"gold:sha256={gold_sha256[:12]}")
    parts.append(f"match:{match}")
    parts.append(f"norm:{normalization or 'none'}")
    parts.append(f"difficulty:sha256={difficulty_sha256[:12]}" if difficulty_sha256
                 else "difficulty:none")
    parts.append(f"oov:words={train_words_sha256[:12]}" if train_words_sha256 else "oov:none")
    if n_bootstrap:
        parts.append(f"bootstrap:{n_bootstrap},seed={seed}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)


# --------------------------------------------------------------------------
# Reference implementation (plain Python; oracle for tests and benchmark)
# --------------------------------------------------------------------------

def _ref_div(a, b):
    return None if b == 0 else a / b


def _ref_h(a, b):
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def _ref_clip(x):
    return None if x is None else min(1.0, max(0.0, x))


def _ref_balanced(known, sum_d, sum_dm, sum_dp, sum_1d, sum_1dm, sum_1dp, bins_g, bins_c):
    """The balanced metrics of :func:`reference_scores` from its sums."""
    keys = ("pb", "rb", "fb", "p_reward", "p_punishment", "r_reward", "r_punishment")
    if not known:
        return dict.fromkeys(keys) | {"recall_by_bin": None}
    div, h, clip = _ref_div, _ref_h, _ref_clip
    out = {"p_reward": clip(div(sum_dm, sum_dp)), "p_punishment": clip(div(sum_1dm, sum_1dp)),
           "r_reward": clip(div(sum_dm, sum_d)), "r_punishment": clip(div(sum_1dm, sum_1d))}
    out["pb"] = h(out["p_reward"], out["p_punishment"])
    out["rb"] = h(out["r_reward"], out["r_punishment"])
    out["fb"] = h(out["pb"], out["rb"])
    out["recall_by_bin"] = [div(bins_c[b], bins_g[b]) for b in range(N_BINS)]
    return out


def reference_scores(gold_words: list[list[str]], pred_words: list[list[str]],
                     difficulty=None, train_words=None) -> dict:
    """The metrics of :func:`compute`, computed word by word from span sets.

    Straightforward and slow on purpose: per-sentence sets of ``(start, end)``
    tuples and loops over words, following docs/method.md §5–§6 literally.  No
    warnings; undefined metrics are ``None``.

    >>> ref = reference_scores([["約翰", "喜歡", "瑪麗"]], [["約翰", "喜", "歡", "瑪麗"]])
    >>> ref["p"], ref["r"]
    (0.5, 0.6666666666666666)
    """
    div, h = _ref_div, _ref_h
    vocab = None if train_words is None else set(train_words)
    N = Np = c = 0
    tw = 0
    sum_d = sum_dm = sum_dp = 0.0
    sum_1d = sum_1dm = sum_1dp = 0.0
    n_oov = oov_c = 0
    bg = bp = bc = 0
    bins_g = [0] * N_BINS
    bins_c = [0] * N_BINS
    k = 0  # index of the current gold word in the flat difficulty vector
    for gs, ps in zip(gold_words, pred_words):
        gspans, pos = [], 0
        for w in gs:
            gspans.append((pos, pos + len(w)))
            pos += len(w)
        n = pos
        pspans, pos = [], 0
        for w in ps:
            pspans.append((pos, pos + len(w)))
            pos += len(w)
        pset = set(pspans)
        N += len(gspans)
        Np += len(pspans)
        tw += n * (n + 1) // 2
        owner = {}
        for i, (s, e) in enumerate(gspans):
            for ch in range(s, e):
                owner[ch] = i
        for i, (sp, w) in enumerate(zip(gspans, gs)):
            ok = sp in pset
            c += ok
            if difficulty is not None:
                d = float(difficulty[k + i])
                sum_d += d
                sum_1d += 1 - d
                if ok:
                    sum_dm += d
                    sum_1dm += 1 - d
                b = min(int(math.floor(d * 10 + 1e-9)), N_BINS - 1)
                bins_g[b] += 1
                bins_c[b] += ok
            if vocab is not None and w not in vocab:
                n_oov += 1
                oov_c += ok
        if difficulty is not None:
            for (s, e) in pspans:
                dp = float(difficulty[k + owner[e - 1]])
                sum_dp += dp
                sum_1dp += 1 - dp
        k += len(gspans)
        gb = {e for (s, e) in gspans if e != n}
        pb = {e for (s, e) in pspans if e != n}
        bg += len(gb)
        bp += len(pb)
        bc += len(gb & pb)
    p, r = div(c, Np), div(c, N)
    out = {"p": p, "r": r, "f1": h(p, r)}
    out |= _ref_balanced(difficulty is not None, sum_d, sum_dm, sum_dp, sum_1d, sum_1dm,
                         sum_1dp, bins_g, bins_c)
    if vocab is not None:
        out["oov_rate"] = div(n_oov, N)
        out["oov_recall"] = div(oov_c, n_oov)
        out["iv_recall"] = div(c - oov_c, N - n_oov)
    else:
        out["oov_rate"] = out["oov_recall"] = out["iv_recall"] = None
    out["er"] = div(Np - c, N)
    fp = div(Np - c, tw - N)
    out["tnr"] = None if fp is None else 1 - fp
    out["boundary_p"] = div(bc, bp)
    out["boundary_r"] = div(bc, bg)
    out["boundary_f1"] = h(out["boundary_p"], out["boundary_r"])
    out["counts"] = {"n_gold": N, "n_pred": Np, "n_correct": c}
    return {key: out[key] for key in (*METRICS, "recall_by_bin", "counts")}


# --------------------------------------------------------------------------
# Error types
# --------------------------------------------------------------------------

def error_types(gold: Corpus, pred: Corpus, check: bool = True) -> dict[str, int]:
    """How many gold words ``pred`` gets right, splits, merges or crosses.

    Each gold word falls in exactly one of :data:`committee.spans.OUTCOMES`
    (defined in :func:`committee.spans.outcomes` and ``docs/metrics.md``), so
    the counts add up to ``n_gold`` and ``correct`` equals ``n_correct`` of
    :func:`compute`.  ``pred`` is checked to align with ``gold`` unless
    ``check=False``.

    Examples
    --------
    >>> g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽", "和", "猫"]], [1])
    >>> p = Corpus("out.txt", [["约翰", "喜", "欢", "玛", "丽和", "猫"]], [1])
    >>> error_types(g, p)
    {'correct': 2, 'split': 1, 'merged': 1, 'crossed': 1}
    """
    if check:
        check_aligned(gold, pred)
    return _outcome_counts(spans(gold.words), spans(pred.words))


def _outcome_counts(gold: Spans, pred: Spans) -> dict[str, int]:
    from committee.spans import OUTCOMES, outcomes

    counts = np.bincount(outcomes(gold, pred), minlength=len(OUTCOMES))
    return {name: int(n) for name, n in zip(OUTCOMES, counts)}
