"""From sufficient statistics to metrics: count first, divide once.

:func:`compute` sums the per-sentence statistics into corpus totals and
applies every record of :data:`committee.metrics.records.REGISTRY` to them.
"""

from __future__ import annotations

import math

import numpy as np

from committee.metrics.records import metric_arrays, ratio, registry, report_undefined
from committee.metrics.stats import N_BINS, SufficientStats

#: The counts every result carries.
COUNTS = ("n_gold", "n_pred", "n_correct")


def totals(stats: SufficientStats) -> dict[str, np.ndarray]:
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


def compute(stats: SufficientStats, where: str | None = None, *,
            undefined: str = "warn", units: str = "words") -> dict:
    """Every metric from sufficient statistics (corpus micro-averages).

    Returns a dict with the key of every statistics record of the registry
    (:data:`committee.metrics.records.METRICS`: fractions in [0, 1], except
    ``er`` which can exceed 1; ``None`` when undefined), plus
    ``recall_by_bin`` (10 recalls, ``None`` for an empty bin; ``None``
    without difficulties) and ``counts`` (``n_gold``, ``n_pred``,
    ``n_correct``).  With ``undefined="warn"`` an undefined metric comes with
    an :class:`~committee.errors.UndefinedMetricWarning` saying why
    (``where``, the output's name, starts its text; ``units`` names what is
    counted: ``words``, ``entities``); ``undefined="ignore"``
    leaves it None silently.  Metrics whose inputs were not given (no
    difficulty, no vocabulary) are ``None`` without a warning.

    Examples
    --------
    >>> from committee.corpus import Corpus
    >>> from committee.metrics.stats import collect
    >>> g = Corpus("gold.txt", [["計算機", "總是", "有問題"]], [1])
    >>> p = Corpus("out.txt", [["計算機", "總是", "有", "問題"]], [1])
    >>> m = compute(collect(g, p))
    >>> m["p"], round(m["r"], 4), m["counts"]
    (0.5, 0.6667, {'n_gold': 3, 'n_pred': 4, 'n_correct': 2})
    >>> m["pb"] is None
    True
    """
    t = totals(stats)
    arrays = metric_arrays(t)
    report_undefined({k: v for k, v in t.items() if np.ndim(v) == 0}, where, undefined,
                     units=units)
    out: dict = {m.key: _none(arrays[m.key]) for m in registry("stats")}
    if "bin_gold" in t:
        rec = ratio(t["bin_correct"], t["bin_gold"])
        out["recall_by_bin"] = [_none(x) for x in rec]
    else:
        out["recall_by_bin"] = None
    out["counts"] = {k: int(t[k]) for k in COUNTS}
    return out
