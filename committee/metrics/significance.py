"""Bootstrap over test sentences: confidence intervals and paired comparisons.

Both resample whole sentences with replacement (a seeded local
``np.random.default_rng``) and recompute every metric from the resampled
totals of the sufficient statistics of :mod:`committee.metrics`, with the
same formulas as :func:`committee.metrics.compute`; no text is re-scored.
Resamples are drawn in blocks of :data:`_BLOCK`, so the working memory is
that of one block plus the resampled values that the percentile intervals
need (8 bytes per resample and metric kept); :func:`check_resamples`
refuses a number of resamples whose values would not fit in memory, and a
long bootstrap shows its progress on standard error.  Fewer test sentences
than :data:`MIN_SENTENCES` draw a warning.  See ``docs/metrics.md``
(Bootstrap).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from committee.system.arguments import count
from committee.corpus import Corpus
from committee.errors import caller_level, PlausibilityWarning, UndefinedMetricWarning
from committee.metrics import METRICS, SufficientStats, collect, compute, metric_arrays  # noqa: F401 (Corpus, collect: doctests)

__all__ = ["MIN_SENTENCES", "bootstrap", "bucket_bootstrap", "check_resamples",
           "paired_bootstrap", "warn_few"]


_BLOCK = 100  # resamples drawn per block (memory bound; part of the RNG stream's definition)

#: A bootstrap over fewer test sentences than this warns: its 95% percentile
#: intervals hold the true value far less often than 95% of the time (87% at
#: 10 sentences, 47% at 2; docs/metrics.md, Bootstrap;
#: benchmarks/bootstrap_coverage.py), and one sentence gives zero-width intervals.
MIN_SENTENCES = 30

#: The resampled values may take at most this share of the available memory.
MEMORY_SHARE = 0.5

#: Seconds a bootstrap runs before its progress bar appears.
PROGRESS_DELAY = 2.0


def available_memory() -> int | None:
    """Bytes of memory this process can still take (psutil's estimate, or
    ``MemAvailable`` of ``/proc/meminfo``, capped by a cgroup v2 limit);
    None when the system does not say."""
    try:
        import psutil

        free = int(psutil.virtual_memory().available)
    except (ImportError, OSError, AttributeError):
        free = _meminfo_available()
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            used = int(f.read().strip())
        if limit != "max":
            free = min(free, int(limit) - used) if free is not None else int(limit) - used
    except (OSError, ValueError):
        pass
    return free


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _size(n_bytes: float) -> str:
    """``n_bytes`` in decimal units: ``'168.0 TB'``, ``'950 B'``."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n_bytes < 1000 or unit == "PB":
            return f"{n_bytes:.0f} {unit}" if unit == "B" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000
    raise AssertionError("unreachable")


def resample_bytes(n: int, n_values: int, n_sentences: int = 0) -> int:
    """Bytes a bootstrap of ``n`` resamples holds at its peak: ``n_values``
    resampled values per resample (the metrics kept, of every system) and
    three more for the interval (the defined values, their copy in the
    quantile, a mask), 8 bytes each, plus one block of resample weights
    over ``n_sentences`` sentences (indices, flat indices, counts and their
    float64 copy)."""
    return 8 * n * (n_values + 3) + 32 * _BLOCK * n_sentences


def check_resamples(n: int, n_values: int = len(METRICS), n_sentences: int = 0) -> None:
    """Raise :class:`ValueError` when a bootstrap of ``n`` resamples would
    take more than :data:`MEMORY_SHARE` of the available memory
    (:func:`resample_bytes`); the message gives the estimate and the
    largest ``n`` that fits.  Nothing is checked when the system does not
    say how much memory is available.

    >>> check_resamples(1000)
    """
    need = resample_bytes(n, n_values, n_sentences)
    free = available_memory()
    if free is None or need <= MEMORY_SHARE * free:
        return
    per = 8 * (n_values + 3)
    most = max(0, int((MEMORY_SHARE * free - 32 * _BLOCK * n_sentences) // per))
    raise ValueError(f"{n:,} resamples need about {_size(need)} of memory ({n_values + 3} "
                     f"values of 8 bytes per resample), more than half of the {_size(free)} "
                     f"available: use at most {most:,}; 1,000 to 10,000 are usual")


def warn_few(n_sentences: int, stacklevel: int = 2) -> None:
    """Warn (:class:`PlausibilityWarning`) when a bootstrap over
    ``n_sentences`` sentences is too small to mean anything: fewer than
    :data:`MIN_SENTENCES`.  :func:`bootstrap` and :func:`paired_bootstrap`
    call it unless told not to, so that a caller running many on one test
    set (``Scorer.score_all``) warns once."""
    if n_sentences >= MIN_SENTENCES:
        return
    if n_sentences == 1:
        why = "every resample is that one sentence, so every interval has zero width"
    else:
        why = (f"intervals from fewer than {MIN_SENTENCES} sentences are too narrow to trust "
               "(docs/metrics.md, Bootstrap)")
    warnings.warn(PlausibilityWarning(
        f"bootstrap over {count(n_sentences, 'sentence')}: {why}; score a test set of at "
        f"least {MIN_SENTENCES} sentences for meaningful intervals"), stacklevel=stacklevel + 1)


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


def _resampled(stats_list, n: int, seed: int, keys=METRICS, progress: bool = False,
               warn: bool = True) -> list[dict[str, np.ndarray]]:
    """The metrics ``keys`` of every system of ``stats_list`` on ``n``
    resamples: for each system, ``{metric: array of n}``."""
    from tqdm import tqdm

    S = stats_list[0].n_sentences
    if S == 0:
        raise ValueError("cannot bootstrap an empty corpus")
    check_resamples(n, len(keys) * len(stats_list), S)
    if warn:
        warn_few(S, stacklevel=caller_level())
    columns = [st.columns(bins=False) for st in stats_list]
    out = [np.empty((len(keys), n)) for _ in stats_list]
    bar = tqdm(total=n, unit="resample", desc="bootstrap", disable=not progress,
               delay=PROGRESS_DELAY, dynamic_ncols=True, leave=False)
    start = 0
    with bar:
        for w in _resample_weights(S, n, seed):
            b = len(w)
            for j, (names, m) in enumerate(columns):
                # one total per resample and statistic; einsum (not BLAS matmul) keeps the
                # summation order fixed, so results do not depend on BLAS threads
                tot = np.einsum("bs,sf->bf", w, m)
                values = metric_arrays({name: tot[:, k] for k, name in enumerate(names)})
                for i, key in enumerate(keys):
                    out[j][i, start:start + b] = values[key]
            start += b
            bar.update(b)
    return [dict(zip(keys, o)) for o in out]


def _interval(values: np.ndarray, level: float, name: str,
              where: str = "") -> tuple[float | None, float | None]:
    ok = values[~np.isnan(values)]
    if len(ok) == 0:
        return (None, None)
    if len(ok) < len(values):
        warnings.warn(UndefinedMetricWarning(
            f"{where}{name} undefined in {len(values) - len(ok)} of {len(values)} resamples; "
            f"interval over the other {len(ok)}"), stacklevel=caller_level())
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(ok, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def _check_n(n) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1 (resamples), got {n!r}")


def bootstrap(stats: SufficientStats, n: int = 1000, seed: int = 12345,
              level: float = 0.95, progress: bool = False, warn: bool = True,
              where: str | None = None) -> dict[str, tuple[float | None, float | None]]:
    """Percentile bootstrap intervals over sentences for every metric.

    Resamples sentences with replacement ``n`` times (seeded local RNG), sums
    the sufficient statistics of each resample and computes each metric with
    the same formulas as :func:`compute`.  A metric undefined on the full
    corpus gets ``(None, None)``.  ``progress`` shows a progress bar on
    standard error once the bootstrap has run for :data:`PROGRESS_DELAY`
    seconds; ``warn`` warns of fewer than :data:`MIN_SENTENCES` sentences
    (:func:`warn_few`).  ``where`` (the output's name) starts the warning of
    a metric undefined in some resamples.

    Raises
    ------
    ValueError
        ``n`` < 1, ``level`` outside (0, 1), no sentence, or more resamples
        than fit in memory (:func:`check_resamples`).

    Examples
    --------
    >>> g = Corpus("g", [["我", "爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> p = Corpus("o", [["我爱", "北京"], ["約翰", "喜歡", "瑪麗"]], [1, 2])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PlausibilityWarning)  # 2 sentences: too few
    ...     ci = bootstrap(collect(g, p), n=200, seed=1)
    >>> lo, hi = ci["r"]; lo <= 4 / 6 <= hi
    True
    """
    _check_n(n)
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    point = compute(stats, undefined="ignore")
    keys = tuple(k for k in METRICS if point[k] is not None)
    res = _resampled([stats], n, seed, keys, progress, warn)[0] if keys else {}
    prefix = f"{where}: " if where else ""
    return {k: (None, None) if point[k] is None else _interval(res[k], level, k, prefix)
            for k in METRICS}


def bucket_bootstrap(buckets: dict, n: int = 1000, seed: int = 12345,
                     level: float = 0.95) -> dict:
    """Percentile intervals of every bucket metric (:mod:`committee.metrics.buckets`).

    The same resamples of the sentences as :func:`bootstrap` (same ``n``
    and ``seed``), applied to the per-sentence bucket counts of
    ``stats.buckets``.  A bucket's interval is over the resamples where its
    metric is defined (a small bucket can be empty in some), NaN when it is
    defined in none.  Returns ``{attr: {metric key: (low array, high array)}}``
    with one value per bucket.
    """
    from committee.metrics.buckets import BUCKET_METRICS, bucket_metrics

    _check_n(n)
    parts = {attr: bs.arrays() for attr, bs in buckets.items()}
    S = next(iter(parts.values()))["n_gold"].shape[0] if parts else 0
    if S == 0:
        raise ValueError("cannot bootstrap an empty corpus")
    res: dict = {attr: {k: [] for k in BUCKET_METRICS} for attr in parts}
    for w in _resample_weights(S, n, seed):
        for attr, arrays in parts.items():
            tot = {name: np.einsum("bs,sk->bk", w, a.astype(np.float64))
                   for name, a in arrays.items()}
            for k, v in bucket_metrics(tot).items():
                res[attr][k].append(v)
    alpha = (1.0 - level) / 2
    out: dict = {}
    for attr, by_key in res.items():
        out[attr] = {}
        for k, blocks in by_key.items():
            v = np.concatenate(blocks, axis=0)
            with warnings.catch_warnings():  # a bucket undefined in every resample: NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                lo, hi = np.nanquantile(v, [alpha, 1.0 - alpha], axis=0)
            out[attr][k] = (lo, hi)
    return out


def paired_bootstrap(stats_a: SufficientStats, stats_b: SufficientStats, metric: str = "fb",
                     n: int = 1000, seed: int = 12345, level: float = 0.95,
                     progress: bool = False, warn: bool = True) -> dict:
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
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PlausibilityWarning)  # 2 sentences: too few
    ...     paired_bootstrap(s, s, metric="f1", n=100)["ties"]
    1.0
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    _check_n(n)
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    if stats_a.n_sentences != stats_b.n_sentences or not np.array_equal(stats_a.n_gold,
                                                                        stats_b.n_gold):
        raise ValueError("the two systems were not scored against the same gold sentences")
    pa = compute(stats_a, undefined="ignore")[metric]
    pb_ = compute(stats_b, undefined="ignore")[metric]
    ra, rb = (r[metric] for r in _resampled([stats_a, stats_b], n, seed, (metric,), progress,
                                            warn))
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
