"""The numbers behind the paper's analyses (docs/method.md §7), as pure functions.

Every function here takes arrays (marks, difficulties, masks, sufficient
statistics) and returns arrays or plain values; nothing reads or writes
files and nothing draws (:mod:`committee.report.plots` draws,
:mod:`committee.report` gathers).  Random choices take an explicit ``seed``
and use a local ``numpy.random.default_rng``.

=====================  ===================================================
analysis               function
=====================  ===================================================
committee size (Fig.1) :func:`default_sizes`, :func:`prefix_difficulties`,
                       :func:`stability`, :func:`sample_words`
linguistic (Fig. 2)    :func:`bin_counts`, :func:`bin_shares`
accuracy (Fig. 4)      :func:`accuracy_by_bin`
ranking (Fig. 3)       :func:`pearson`, :func:`correlations`
split-half (Fig. 6)    :func:`split_half_masks`, :func:`split_half_scores`,
                       :func:`split_half_pearson`
word weights (Fig. 7)  :func:`hardest_sentences`
=====================  ===================================================

Difficulty bins are those of :func:`committee.metrics.difficulty_bins`:
``[0, .1), [.1, .2), ..., [.9, 1.0]``.
"""

from __future__ import annotations

import math
import warnings
from typing import Mapping, Sequence

import numpy as np

from committee import metrics
from committee.errors import caller_level, UndefinedMetricWarning
from committee.metrics import N_BINS, difficulty_bins

__all__ = [
    "BIN_LABELS",
    "accuracy_by_bin",
    "bin_counts",
    "bin_shares",
    "correlations",
    "default_sizes",
    "hardest_sentences",
    "pearson",
    "prefix_difficulties",
    "sample_words",
    "split_half_masks",
    "split_half_pearson",
    "split_half_scores",
    "stability",
]

#: Labels of the ten difficulty bins.
BIN_LABELS = tuple(f"[{b / 10:.1f}, {(b + 1) / 10:.1f}{']' if b == N_BINS - 1 else ')'}"
                   for b in range(N_BINS))


# --------------------------------------------------------------------------
# committee size (Fig. 1)

def default_sizes(K: int) -> list[int]:
    """Committee sizes for the stability curve: about ten even steps up to ``K``.

    Every size up to 12 members; beyond that steps of ``ceil(K / 10)``,
    always ending with ``K`` itself.

    >>> default_sizes(5)
    [1, 2, 3, 4, 5]
    >>> default_sizes(90)
    [9, 18, 27, 36, 45, 54, 63, 72, 81, 90]
    >>> default_sizes(25)
    [3, 6, 9, 12, 15, 18, 21, 24, 25]
    """
    if K < 1:
        raise ValueError(f"a committee has at least one member, got K = {K}")
    if K <= 12:
        return list(range(1, K + 1))
    step = math.ceil(K / 10)
    sizes = list(range(step, K + 1, step))
    if sizes[-1] != K:
        sizes.append(K)
    return sizes


def _check_sizes(sizes: Sequence[int], K: int) -> list[int]:
    sizes = [int(k) for k in sizes]
    bad = [k for k in sizes if not 1 <= k <= K]
    if bad:
        raise ValueError(f"committee sizes must lie in 1..{K} (the run's K), got {bad}")
    return sizes


def prefix_difficulties(marks, sizes: Sequence[int]) -> np.ndarray:
    """Difficulty of every word under the committee of the first ``k`` members.

    Member ``k`` of a committee does not depend on its size (docs/method.md §3), so
    the prefix of the mark matrix *is* the smaller committee.

    Parameters
    ----------
    marks : array of bool, shape (K, N)
    sizes : sequence of int
        Committee sizes, each in ``1..K``.

    Returns
    -------
    ndarray of float, shape (len(sizes), N)
        Row ``j`` is ``d`` from the first ``sizes[j]`` members.

    Examples
    --------
    >>> m = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=bool)
    >>> prefix_difficulties(m, [1, 2, 4]).tolist()
    [[0.0, 1.0, 0.0], [0.0, 1.0, 0.5], [0.25, 0.5, 0.75]]
    """
    m = np.asarray(marks, dtype=bool)
    if m.ndim != 2:
        raise ValueError(f"marks must be a (K, N) matrix, got shape {m.shape}")
    sizes = _check_sizes(sizes, m.shape[0])
    correct = np.cumsum(m, axis=0, dtype=np.int64)  # members right among the first k
    k = np.asarray(sizes)
    return (k[:, None] - correct[k - 1]) / k[:, None]


def stability(marks, sizes: Sequence[int]) -> dict[str, np.ndarray]:
    """How far each prefix committee's difficulties are from the full committee's.

    Returns a dict of arrays, one entry per size: ``size``; ``mean_d``, the
    mean difficulty; ``mean_abs_diff`` and ``max_abs_diff``, the mean and
    largest ``|d_k - d_K|`` over words; ``pearson``, the correlation of
    ``d_k`` with ``d_K`` (NaN where either is constant); ``reliability``,
    the split-half reliability of ``d_k`` (:func:`reliability`, NaN where
    undefined), the measure ``size: auto`` stops on.

    Examples
    --------
    >>> m = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=bool)
    >>> s = stability(m, [1, 2, 4])
    >>> s["mean_abs_diff"].round(4).tolist(), s["max_abs_diff"].tolist()
    ([0.5, 0.3333, 0.0], [0.75, 0.5, 0.0])
    >>> s["reliability"].tolist()  # K' = 2: halves d = (0, 1, 0), (0, 1, 1), r = 0.5
    [nan, 0.6667, nan]
    """
    d = prefix_difficulties(marks, sizes)
    full = prefix_difficulties(marks, [np.asarray(marks).shape[0]])[0]
    diff = np.abs(d - full)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = [pearson(row, full) for row in d]
    return {
        "size": np.asarray(list(sizes), dtype=np.int64),
        "mean_d": d.mean(axis=1),
        "mean_abs_diff": diff.mean(axis=1),
        "max_abs_diff": diff.max(axis=1),
        "pearson": np.array([np.nan if x is None else x for x in r]),
        "reliability": np.array([np.nan if x is None else x for x in
                                 (reliability(np.asarray(marks)[:k]) for k in sizes)]),
    }


def sample_words(d, n: int, seed: int) -> np.ndarray:
    """Indices of ``n`` words for the stability plot, spread over the difficulty range.

    Words are taken round-robin from the bins of the full committee's
    difficulty (a random word of each non-empty bin in turn, lowest bin
    first), so that easy, middling and hard words all appear.  Sorted by
    difficulty, then index.

    >>> d = np.array([0.0, 0.0, 0.5, 0.55, 1.0])
    >>> sample_words(d, 3, seed=0).tolist()[2], len(sample_words(d, 9, seed=0))
    (4, 5)
    """
    d = np.asarray(d, dtype=np.float64)
    rng = np.random.default_rng(seed)
    bins = difficulty_bins(d)
    pools = [rng.permutation(np.flatnonzero(bins == b)).tolist() for b in range(N_BINS)]
    chosen: list[int] = []
    while len(chosen) < min(n, d.size):
        for pool in pools:
            if pool and len(chosen) < n:
                chosen.append(pool.pop())
    chosen.sort(key=lambda i: (d[i], i))
    return np.asarray(chosen, dtype=np.int64)


# --------------------------------------------------------------------------
# difficulty bins (Fig. 2, Fig. 4)

def bin_counts(d, mask=None) -> np.ndarray:
    """Number of words in each of the ten difficulty bins (only where ``mask``).

    >>> bin_counts([0.0, 0.05, 0.3, 1.0, 1.0], mask=[True, True, True, True, False]).tolist()
    [2, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    """
    b = difficulty_bins(np.asarray(d, dtype=np.float64))
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != b.shape:
            raise ValueError(f"mask has shape {mask.shape}, difficulties have {b.shape}")
        b = b[mask]
    return np.bincount(b, minlength=N_BINS).astype(np.int64)


def bin_shares(d, groups: Mapping[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """Distribution of each word group over the ten bins (the paper's Fig. 2).

    Parameters
    ----------
    d : array of float, shape (N,)
    groups : mapping of name to bool array of shape (N,)
        e.g. ``{"idioms": pos == "i", "2-character": lengths == 2, "OOV": oov}``.

    Returns
    -------
    dict
        ``{name: {"n": counts per bin, "share": counts / group size}}``; the
        shares of an empty group are NaN.

    Examples
    --------
    >>> d = np.array([0.0, 0.0, 0.5, 0.9])
    >>> out = bin_shares(d, {"two": np.array([True, False, True, True]),
    ...                      "none": np.zeros(4, dtype=bool)})
    >>> out["two"]["share"].round(3).tolist()
    [0.333, 0.0, 0.0, 0.0, 0.0, 0.333, 0.0, 0.0, 0.0, 0.333]
    >>> bool(np.isnan(out["none"]["share"]).all())
    True
    """
    out = {}
    for name, mask in groups.items():
        n = bin_counts(d, mask)
        total = n.sum()
        share = n / total if total else np.full(N_BINS, np.nan)
        out[name] = {"n": n, "share": share}
    return out


def accuracy_by_bin(d, correct) -> dict[str, np.ndarray]:
    """Recall of the gold words of each difficulty bin (the paper's Fig. 4).

    Parameters
    ----------
    d : array of float, shape (N,)
    correct : array of bool, shape (N,)
        Whether the system predicted each gold word exactly.

    Returns
    -------
    dict
        ``n`` (gold words per bin), ``n_correct`` and ``recall``
        (``n_correct / n``, NaN for an empty bin).

    Examples
    --------
    >>> a = accuracy_by_bin([0.0, 0.0, 0.5, 0.5, 1.0], [True, True, True, False, False])
    >>> a["n"][[0, 5, 9]].tolist(), a["recall"][[0, 5, 9]].tolist()
    ([2, 2, 1], [1.0, 0.5, 0.0])
    >>> bool(np.isnan(a["recall"][1]))
    True
    """
    correct = np.asarray(correct, dtype=bool)
    n = bin_counts(d)
    c = bin_counts(d, correct)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(n > 0, c / np.maximum(n, 1), np.nan)
    return {"n": n, "n_correct": c, "recall": recall}


# --------------------------------------------------------------------------
# correlation (Fig. 3, Fig. 6)

def reliability(marks) -> float | None:
    """Split-half reliability of the difficulties of a committee (docs/method.md §12).

    The members are split by index into even and odd ones, each half gives
    its own difficulties, and their Pearson correlation ``r`` is stepped up
    to the whole committee by the Spearman–Brown formula ``2r / (1 + r)``:
    the correlation expected between the difficulties of this committee and
    of another one as large, drawn the same way.  The split depends on
    nothing but the member indices, so a committee's reliability is a
    function of its marks.  ``None`` when undefined (fewer than 2 members, a
    half whose difficulties are constant); a negative ``r`` gives 0.

    Examples
    --------
    >>> m = np.array([[1, 0, 1, 1], [1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1]], dtype=bool)
    >>> reliability(m)  # halves d = (0, 1, .5, 0) and (0, .5, .5, 0): r = 0.9045
    0.9499
    >>> reliability(np.ones((4, 3), dtype=bool)) is None  # every d is 0: constant halves
    True

    The value is rounded to 4 decimals, so that a stopping rule comparing it
    with a target does not hang on the last bits of a floating-point sum.
    """
    m = np.asarray(marks, dtype=bool)
    if m.ndim != 2:
        raise ValueError(f"marks must be a (K, N) matrix, got shape {m.shape}")
    if m.shape[0] < 2:
        return None
    halves = [1.0 - m[start::2].mean(axis=0) for start in (0, 1)]
    if any(h.min() == h.max() for h in halves):
        return None
    a, b = (h - h.mean() for h in halves)
    r = float(a @ b) / math.sqrt(float(a @ a) * float(b @ b))
    return round(max(0.0, 2 * r / (1 + r)), 4) if r > -1 else 0.0


def members_needed(k: int, value: float | None, target: float) -> int | None:
    """Members a committee of ``k`` whose reliability is ``value`` needs to
    reach ``target``, by the Spearman–Brown prophecy
    ``k · target (1 − value) / (value (1 − target))``, at least ``k``;
    None when ``value`` is undefined or 0.

    >>> members_needed(20, 0.95, 0.99), members_needed(60, 0.995, 0.99)
    (105, 60)
    """
    if not value:
        return None
    if value >= target:
        return k
    return math.ceil(round(k * target * (1 - value) / (value * (1 - target)), 9))


def pearson(x, y) -> float | None:
    """Pearson's correlation coefficient; ``None`` (with a warning) when undefined.

    Pairs where either value is missing (``None`` or NaN) are left out.
    Undefined with fewer than two pairs or when either vector is constant.

    >>> pearson([1, 2, 3, 4], [2, 4, 6, 8])
    1.0
    >>> pearson([1, 2, 3], [3, 2, 1])
    -1.0
    >>> round(pearson([1, 2, 3, 4], [1, 3, 2, 4]), 6)
    0.8
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     print(pearson([1, 1, 1], [1, 2, 3]))
    None
    """
    a = np.array([np.nan if v is None else v for v in x], dtype=np.float64)
    b = np.array([np.nan if v is None else v for v in y], dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"vectors differ in length: {a.size} and {b.size}")
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    if a.size < 2:
        warnings.warn(UndefinedMetricWarning(
            f"Pearson correlation undefined: {a.size} complete pair(s), need 2"), stacklevel=caller_level())
        return None
    constant = a.min() == a.max() or b.min() == b.max()  # exact, unlike a rounded mean
    a = a - a.mean()
    b = b - b.mean()
    den = math.sqrt(float(a @ a) * float(b @ b))
    if constant or den == 0:
        warnings.warn(UndefinedMetricWarning(
            "Pearson correlation undefined: one of the vectors is constant"), stacklevel=caller_level())
        return None
    return max(-1.0, min(1.0, float(a @ b) / den))


def correlations(scores: Mapping[str, Sequence[float | None]],
                 reference: Sequence[float | None]) -> dict[str, float | None]:
    """Pearson correlation of each metric's scores with a reference (e.g. human judgement).

    >>> correlations({"f1": [0.9, 0.8, 0.7], "fb": [0.5, 0.6, 0.4]}, [3, 2, 1])
    {'f1': 1.0, 'fb': 0.5}
    """
    return {name: pearson(values, reference) for name, values in scores.items()}


# --------------------------------------------------------------------------
# split-half reliability (Fig. 6)

def split_half_masks(n_sentences: int, repeats: int, seed: int) -> np.ndarray:
    """Random halves of the test sentences: row ``r`` is true for half A of split ``r``.

    Each split is a uniform random permutation of the sentences; its first
    ``n_sentences // 2`` form half A, the others half B.

    >>> m = split_half_masks(5, repeats=3, seed=0)
    >>> m.shape, m.sum(axis=1).tolist()
    ((3, 5), [2, 2, 2])
    """
    if n_sentences < 2:
        raise ValueError(f"cannot split {n_sentences} sentence(s) into two halves")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    rng = np.random.default_rng(seed)
    masks = np.zeros((repeats, n_sentences), dtype=bool)
    for r in range(repeats):
        masks[r, rng.permutation(n_sentences)[: n_sentences // 2]] = True
    return masks


def split_half_scores(stats: Sequence[metrics.SufficientStats], masks,
                      metric: str = "fb") -> tuple[np.ndarray, np.ndarray]:
    """``metric`` of every model on both halves of every split.

    Sums each model's per-sentence sufficient statistics over half A and
    half B and applies the formulas of :func:`committee.metrics.compute`
    (count first, divide once; nothing is re-scored).

    Parameters
    ----------
    stats : sequence of SufficientStats
        One per model, all against the same gold sentences.
    masks : bool array, shape (R, S)
        :func:`split_half_masks`.
    metric : str
        A name of :data:`committee.metrics.METRICS`.

    Returns
    -------
    (a, b) : ndarrays of shape (R, M)
        The metric on half A and half B (NaN where undefined).

    Examples
    --------
    >>> from committee.corpus import Corpus
    >>> g = Corpus("g", [["我", "爱"], ["北京"]], [1, 2])
    >>> p = Corpus("p", [["我爱"], ["北京"]], [1, 2])
    >>> s = metrics.collect(g, p)
    >>> a, b = split_half_scores([s], np.array([[True, False]]), metric="r")
    >>> a.tolist(), b.tolist()
    ([[0.0]], [[1.0]])
    """
    if metric not in metrics.METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(metrics.METRICS)}")
    w = np.asarray(masks, dtype=np.float64)
    if w.ndim != 2:
        raise ValueError(f"masks must be an (R, S) matrix, got shape {w.shape}")
    halves = (w, 1.0 - w)
    out = [np.empty((w.shape[0], len(stats))), np.empty((w.shape[0], len(stats)))]
    for j, st in enumerate(stats):
        if st.n_sentences != w.shape[1]:
            raise ValueError(f"model {j} was scored on {st.n_sentences} sentences, "
                             f"masks have {w.shape[1]}")
        names, m = st.columns(bins=False)
        for h, weights in enumerate(halves):
            # einsum keeps the summation order fixed (no BLAS threads), as in bootstrap
            tot = np.einsum("rs,sf->rf", weights, m)
            values = metrics.metric_arrays({name: tot[:, k] for k, name in enumerate(names)})
            out[h][:, j] = values[metric]
    return out[0], out[1]


def split_half_pearson(a, b) -> np.ndarray:
    """Per split, Pearson's r of the models' scores on half A against half B.

    NaN for a split where it is undefined.

    >>> a = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    >>> b = np.array([[0.2, 0.4, 0.6], [0.3, 0.2, 0.1]])
    >>> split_half_pearson(a, b).tolist()
    [1.0, -1.0]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"a and b must be (R, M) matrices of one shape, got {a.shape}, {b.shape}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = [pearson(x, y) for x, y in zip(a, b)]
    return np.array([np.nan if v is None else v for v in r])


# --------------------------------------------------------------------------
# word weights (Fig. 7)

def hardest_sentences(d, sentence, n: int, min_words: int = 6,
                      max_words: int = 24) -> np.ndarray:
    """Indices of the ``n`` sentences with the highest mean word difficulty.

    Only sentences of ``min_words`` to ``max_words`` words compete (very
    short lines such as datelines would win otherwise, and long ones do not
    fit a figure); ties go to the earlier sentence.

    Parameters
    ----------
    d : array of float, shape (N,)
    sentence : array of int, shape (N,)
        Sentence index of each word (non-decreasing).

    Examples
    --------
    >>> d = np.array([0.0, 0.0, 0.5, 1.0, 1.0, 0.2, 0.4])
    >>> s = np.array([0, 0, 1, 1, 2, 3, 3])
    >>> hardest_sentences(d, s, n=2, min_words=2, max_words=3).tolist()
    [1, 3]
    """
    d = np.asarray(d, dtype=np.float64)
    sentence = np.asarray(sentence, dtype=np.int64)
    if d.shape != sentence.shape:
        raise ValueError(f"d has shape {d.shape}, sentence ids have {sentence.shape}")
    if d.size == 0:
        return np.zeros(0, dtype=np.int64)
    S = int(sentence.max()) + 1
    count = np.bincount(sentence, minlength=S)
    total = np.bincount(sentence, weights=d, minlength=S)
    ok = (count >= min_words) & (count <= max_words)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(ok, total / np.maximum(count, 1), -np.inf)
    order = np.lexsort((np.arange(S), -mean))  # highest mean first, then earliest
    return order[: min(n, int(ok.sum()))].astype(np.int64)
