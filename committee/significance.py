"""Bootstrap over test sentences: confidence intervals and paired comparisons.

Both resample whole sentences with replacement (a seeded local
``np.random.default_rng``) and recompute every metric from the resampled
totals of the sufficient statistics of :mod:`committee.metrics`, with the
same formulas as :func:`committee.metrics.compute`; no text is re-scored.
See ``docs/metrics.md`` (Bootstrap).
"""

from __future__ import annotations

import warnings

import numpy as np

from committee.corpus import Corpus
from committee.errors import UndefinedMetricWarning
from committee.metrics import METRICS, SufficientStats, _metric_arrays, collect, compute  # noqa: F401 (Corpus, collect: doctests)

__all__ = ["bootstrap", "paired_bootstrap"]


_BLOCK = 100  # resamples drawn per block (memory bound; part of the RNG stream's definition)


def _resample_weights(n_sentences: int, n: int, seed: int):
    """Yield ``(b, S)`` matrices: how often each sentence is drawn in each resample.

    Resample ``r`` draws S sentence indices with replacement from
    ``np.random.default_rng(seed)``; the stream depends only on ``seed``,
    ``n`` and S, so two systems scored on the same gold get the same
    resamples.
    """
    rng = np.random.default_rng(seed)
    S = n_sentences
    for start in range(0, n, _BLOCK):
        b = min(_BLOCK, n - start)
        idx = rng.integers(0, S, size=(b, S))
        flat = (np.arange(b)[:, None] * S + idx).ravel()
        yield np.bincount(flat, minlength=b * S).reshape(b, S).astype(np.float64)


def _resampled(stats_list, n: int, seed: int) -> list[dict[str, np.ndarray]]:
    S = stats_list[0].n_sentences
    if S == 0:
        raise ValueError("cannot bootstrap an empty corpus")
    columns = [st.columns(bins=False) for st in stats_list]
    parts = [[] for _ in stats_list]
    for w in _resample_weights(S, n, seed):
        for j, (names, m) in enumerate(columns):
            # one total per resample and statistic; einsum (not BLAS matmul) keeps the
            # summation order fixed, so results do not depend on BLAS threads
            tot = np.einsum("bs,sf->bf", w, m)
            parts[j].append(_metric_arrays({name: tot[:, k] for k, name in enumerate(names)}))
    return [{k: np.concatenate([p[k] for p in ps]) for k in METRICS} for ps in parts]


def _interval(values: np.ndarray, level: float, name: str) -> tuple[float | None, float | None]:
    ok = values[~np.isnan(values)]
    if len(ok) == 0:
        return (None, None)
    if len(ok) < len(values):
        warnings.warn(UndefinedMetricWarning(
            f"{name} undefined in {len(values) - len(ok)} of {len(values)} resamples; "
            f"interval over the other {len(ok)}"), stacklevel=3)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(ok, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def bootstrap(stats: SufficientStats, n: int = 1000, seed: int = 12345,
              level: float = 0.95) -> dict[str, tuple[float | None, float | None]]:
    """Percentile bootstrap intervals over sentences for every metric.

    Resamples sentences with replacement ``n`` times (seeded local RNG), sums
    the sufficient statistics of each resample and computes each metric with
    the same formulas as :func:`compute`.  A metric undefined on the full
    corpus gets ``(None, None)``.

    Examples
    --------
    >>> g = Corpus("g", [["我", "爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> p = Corpus("o", [["我爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> ci = bootstrap(collect(g, p), n=200, seed=1)
    >>> lo, hi = ci["r"]; lo <= 4 / 6 <= hi
    True
    """
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        point = compute(stats)
    res = _resampled([stats], n, seed)[0]
    return {k: (None, None) if point[k] is None else _interval(res[k], level, k)
            for k in METRICS}


def paired_bootstrap(stats_a: SufficientStats, stats_b: SufficientStats, metric: str = "fb",
                     n: int = 1000, seed: int = 12345, level: float = 0.95) -> dict:
    """Compare two systems on the same bootstrap resamples of the test sentences.

    Returns ``share_a_better``, ``share_b_better`` and ``ties`` (shares of
    the ``n`` resamples; resamples where either system's metric is undefined
    count in none of them), ``delta`` (metric of A minus metric of B on the
    full corpus) and ``ci`` (percentile interval of the resampled deltas).

    Examples
    --------
    >>> g = Corpus("g", [["我", "爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> p = Corpus("o", [["我爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> s = collect(g, p)
    >>> paired_bootstrap(s, s, metric="f1", n=100)["ties"]
    1.0
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    if stats_a.n_sentences != stats_b.n_sentences or not np.array_equal(stats_a.n_gold,
                                                                        stats_b.n_gold):
        raise ValueError("the two systems were not scored against the same gold sentences")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        pa, pb_ = compute(stats_a)[metric], compute(stats_b)[metric]
    ra, rb = (r[metric] for r in _resampled([stats_a, stats_b], n, seed))
    with np.errstate(invalid="ignore"):
        diff = ra - rb
    out = {
        "metric": metric,
        "n": n,
        "share_a_better": float(np.mean(ra > rb)),
        "share_b_better": float(np.mean(rb > ra)),
        "ties": float(np.mean(ra == rb)),
        "delta": None if pa is None or pb_ is None else pa - pb_,
        "ci": (None, None) if pa is None or pb_ is None else _interval(diff, level, metric),
    }
    return out
