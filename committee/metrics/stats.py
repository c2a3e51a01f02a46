"""Sufficient statistics: an output against gold reduced to per-sentence counts.

:class:`Collector` prepares the gold side once (spans, boundaries,
difficulty bins, OOV flags) and reduces any number of outputs to
:class:`SufficientStats`; :func:`collect` is its one-shot form.  Counts are
over *units* (here words, as character spans): a unit is correct iff its
span is one of the predicted spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Iterable

import numpy as np

from committee.corpus import Corpus
from committee.metrics.align import check_aligned
from committee.tasks.spans import Spans, match, spans

#: Difficulty bins ``[0, .1) ... [.9, 1.0]``.
N_BINS = 10

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
        TW = n(n+1)/2, the candidate words of a sentence of n characters
        (None for entities, :mod:`committee.metrics.labelled`).
    boundary_gold, boundary_pred, boundary_correct : int64
        Word boundaries in the n-1 inner gaps: gold, predicted, both (None
        for entities).
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
    buckets : dict or None
        With a :class:`~committee.metrics.buckets.Bucketer`: attribute ->
        :class:`~committee.metrics.buckets.BucketStats` (per-sentence counts
        per bucket; not among :meth:`columns`).
    """

    n_gold: np.ndarray
    n_pred: np.ndarray
    n_correct: np.ndarray
    total_words: np.ndarray | None = None
    boundary_gold: np.ndarray | None = None
    boundary_pred: np.ndarray | None = None
    boundary_correct: np.ndarray | None = None
    gold_d: np.ndarray | None = None
    correct_d: np.ndarray | None = None
    pred_d: np.ndarray | None = None
    n_oov: np.ndarray | None = None
    oov_correct: np.ndarray | None = None
    bin_gold: np.ndarray | None = None
    bin_correct: np.ndarray | None = None
    buckets: dict | None = field(default=None, compare=False)

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
            if not isinstance(v, np.ndarray) or (v.ndim == 2 and not bins):
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


def check_difficulty(difficulty, n: int) -> np.ndarray:
    d = np.asarray(difficulty, dtype=np.float64)
    if d.shape != (n,):
        raise ValueError(f"difficulty has shape {d.shape}, gold has {n} words")
    if n and not (np.isfinite(d).all() and d.min() >= 0.0 and d.max() <= 1.0):
        raise ValueError("difficulties must be finite and in [0, 1]")
    return d


class Collector:
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
    bucketer : Bucketer, optional
        Results by word attribute (:mod:`committee.metrics.buckets`) to collect.

    Examples
    --------
    >>> scorer = Collector(Corpus("gold.txt", [["约翰", "喜欢", "玛丽"]], [1]), difficulty=[0.0, 0.5, 1.0])
    >>> s = scorer.collect(Corpus("out.txt", [["约翰喜欢", "玛丽"]], [1]))
    >>> s.n_correct.tolist(), s.pred_d.tolist()
    ([1], [1.5])
    """

    def __init__(self, gold: Corpus, difficulty=None, train_words=None, *,
                 oov: np.ndarray | None = None, bucketer=None):
        self.gold = gold
        self.bucketer = bucketer
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
            d = self.difficulty = check_difficulty(difficulty, len(g.starts))
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

    #: Characters (global axis) whose words are left out on both sides
    #: (:meth:`leaving_out`); None: every word counts.
    excluded: np.ndarray | None = None

    def leaving_out(self, excluded: np.ndarray) -> Collector:
        """This gold side with every gold word that overlaps an ``excluded``
        character (one boolean per test character) left out, and in
        :meth:`collect` every predicted word that overlaps one as well: the
        scores of the test set without those spans (``committee score
        --check-gold``).  The boundary counts and TNR, which need whole
        sentences, are not collected.

        >>> g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"]], [1])
        >>> c = Collector(g, difficulty=[0.0, 0.5, 1.0])
        >>> s = c.leaving_out(np.array([0, 0, 1, 1, 0, 0], dtype=bool)).collect(
        ...     Corpus("out.txt", [["约翰", "喜", "欢", "玛丽"]], [1]))
        >>> s.n_gold.tolist(), s.n_pred.tolist(), s.n_correct.tolist(), s.gold_d.tolist()
        ([2], [2], [2], [1.0])
        """
        import copy

        g = self.spans
        excluded = np.asarray(excluded, dtype=bool)
        if excluded.shape != (g.n_chars,):
            raise ValueError(f"excluded has shape {excluded.shape}, the gold has "
                             f"{g.n_chars} characters")
        before = np.concatenate(([0], np.cumsum(excluded)))
        keep = before[g.ends] == before[g.starts]
        out = copy.copy(self)
        out.excluded = excluded
        out._all_spans, out._kept = g, keep
        out.spans = Spans(g.starts[keep], g.ends[keep], g.sentence[keep], g.sentence_offsets)
        S = self.n_sentences
        out._n_gold = np.bincount(g.sentence[keep], minlength=S)
        out._total_words = out._boundary_gold = None
        if self.difficulty is not None:
            d = out.difficulty = self.difficulty[keep]
            out._gold_d = np.bincount(g.sentence[keep], weights=d, minlength=S)
            out._bin_key = self._bin_key[keep]
            out._bin_gold = np.bincount(out._bin_key, minlength=S * N_BINS).reshape(S, N_BINS)
        if self.oov is not None:
            out.oov = self.oov[keep]
            out._n_oov = np.bincount(g.sentence[keep][out.oov], minlength=S)
        out.bucketer = None
        return out

    def collect(self, pred: Corpus, check: bool = True,
                pred_spans: Spans | None = None) -> SufficientStats:
        """Sufficient statistics of ``pred`` (checked to align with gold unless
        ``check=False``); ``pred_spans`` spares recomputing ``spans(pred.words)``
        when the caller has them."""
        gold, g, S = self.gold, self.spans, self.n_sentences
        p = spans(pred.words) if pred_spans is None else pred_spans
        if self.excluded is not None:
            if check:
                check_aligned(gold, pred)
            return self._collect_kept(p)
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
        # d'_j: difficulty of the gold word containing the last character of word j
        extra = unit_sums(self, g, p, gold_ok,
                          None if self.difficulty is None else self._char_d[p.ends - 1])
        if self.bucketer is not None:
            extra["buckets"] = self.bucketer.collect(pred.words, p.ends, gold_ok)
        return SufficientStats(
            n_gold=self._n_gold,
            n_pred=per_sentence(p.sentence),
            n_correct=per_sentence(g.sentence[gold_ok]),
            total_words=self._total_words,
            boundary_gold=self._boundary_gold,
            boundary_pred=per_sentence(p_sentence_inner),
            boundary_correct=per_sentence(p_sentence_inner[self._boundary[p.ends[p_inner]]]),
            **extra)


    def _collect_kept(self, p: Spans) -> SufficientStats:
        """:meth:`collect` of a collector :meth:`leaving_out` characters."""
        before = np.concatenate(([0], np.cumsum(self.excluded)))
        keep = before[p.ends] == before[p.starts]
        gold_ok = match(self._all_spans, p)[0][self._kept]  # matched on whole sentences
        p = Spans(p.starts[keep], p.ends[keep], p.sentence[keep], p.sentence_offsets)
        g, S = self.spans, self.n_sentences
        extra = unit_sums(self, g, p, gold_ok,
                          None if self.difficulty is None else self._char_d[p.ends - 1])
        return SufficientStats(n_gold=self._n_gold,
                               n_pred=np.bincount(p.sentence, minlength=S),
                               n_correct=np.bincount(g.sentence[gold_ok], minlength=S), **extra)

    def error_types(self, pred_spans: Spans) -> dict[str, int]:
        """:func:`error_types` of an aligned output given by its spans, with
        the gold's spans prepared once."""
        return _outcome_counts(self.spans, pred_spans)


def unit_sums(collector, g: Spans, p: Spans, gold_ok: np.ndarray, pred_weights) -> dict:
    """The statistics of matched units (words, or entities) that need
    difficulties or a vocabulary: ``gold_d``, ``correct_d``, ``pred_d``
    (Σ of ``pred_weights``, each predicted unit's d'), the bins and the OOV
    counts, per sentence; those whose input the ``collector`` lacks are
    left out.  ``collector`` holds the gold side: ``difficulty``, ``oov``
    and their per-sentence sums (:class:`Collector`,
    :class:`committee.metrics.labelled.EntityCollector`)."""
    S, extra = collector.n_sentences, {}
    if collector.difficulty is not None:
        d = collector.difficulty
        extra["gold_d"] = collector._gold_d
        extra["correct_d"] = np.bincount(g.sentence, np.where(gold_ok, d, 0.0), minlength=S)
        extra["pred_d"] = np.bincount(p.sentence, pred_weights, minlength=S)
        extra["bin_gold"] = collector._bin_gold
        extra["bin_correct"] = np.bincount(collector._bin_key[gold_ok],
                                           minlength=S * N_BINS).reshape(S, N_BINS)
    if collector.oov is not None:
        extra["n_oov"] = collector._n_oov
        extra["oov_correct"] = np.bincount(g.sentence[collector.oov & gold_ok], minlength=S)
    return extra


def collect(gold: Corpus, pred: Corpus, difficulty=None, train_words=None, *,
            oov: np.ndarray | None = None, check: bool = True) -> SufficientStats:
    """Reduce ``pred`` scored against ``gold`` to per-sentence sufficient statistics.

    One-shot form of :class:`Collector` (use a ``Collector`` to score many outputs
    against the same gold).

    Parameters
    ----------
    gold, pred : Corpus
        Same sentences, same characters (checked unless ``check=False``).
    difficulty, train_words, oov
        As for :class:`Collector`.

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
    return Collector(gold, difficulty, train_words, oov=oov).collect(pred, check=check)



def error_types(gold: Corpus, pred: Corpus, check: bool = True) -> dict[str, int]:
    """How many gold words ``pred`` gets right, splits, merges or crosses.

    Each gold word falls in exactly one of :data:`committee.tasks.spans.OUTCOMES`
    (defined in :func:`committee.tasks.spans.outcomes` and ``docs/metrics.md``), so
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
    from committee.tasks.spans import OUTCOMES, outcomes

    counts = np.bincount(outcomes(gold, pred), minlength=len(OUTCOMES))
    return {name: int(n) for name, n in zip(OUTCOMES, counts)}
