"""Scoring a segmentation against gold (docs/method.md §5, §6).

Count first, divide once.  :func:`collect` (or :class:`Collector`, which
prepares the gold side once for many outputs) reduces a system output to
per-sentence sufficient statistics (:class:`SufficientStats`): unit counts,
difficulty-weighted sums, OOV counts, boundary counts and per-bin counts.
:func:`compute` turns their corpus totals into every metric of the registry
(:mod:`committee.metrics.records`, one record per metric) with one division
each; :mod:`committee.metrics.significance` (bootstrap intervals, paired bootstrap)
resamples sentences and re-uses the same formulas on resampled totals,
never re-scoring text.

Modules: :mod:`~committee.metrics.align` (an output has gold's sentences and
characters), :mod:`~committee.metrics.stats` (sufficient statistics, error
types), :mod:`~committee.metrics.records` (the metrics),
:mod:`~committee.metrics.totals` (:func:`compute`),
:mod:`~committee.metrics.signature` (:class:`Signature`).  A plain per-word
implementation of the same definitions, the oracle of the tests and the
baseline of ``benchmarks/bench_score.py``, is ``tests/reference.py``.

Conventions (see ``docs/metrics.md``):

* A word is a character span ``[start, end)``; a gold word is correct iff its
  span is one of the predicted spans.
* ``d'_j`` of predicted word ``j`` is the difficulty of the gold word that
  contains the last character of ``j`` (NLPCC 2016 evaluation script).
* A zero denominator makes a metric undefined: :func:`compute` returns
  ``None`` for it and, unless ``undefined="ignore"``, emits
  :class:`~committee.errors.UndefinedMetricWarning` saying why.
  ``H(0, 0) = 0``; the harmonic mean of an undefined value is undefined.
* Difficulty bins are ``[0, .1), [.1, .2), ..., [.9, 1.0]``, bin index
  ``min(floor(10 d + 1e-9), 9)`` so that ``d = 0.3`` lands in ``[.3, .4)``.
"""

from committee.metrics.align import check_aligned, first_difference
from committee.metrics.records import (METRICS, REGISTRY, UNDEFINED, Metric, harmonic,
                                       metric_arrays, pct)
from committee.metrics.signature import Signature, array_sha256, make_signature
from committee.metrics.stats import (N_BINS, Collector, SufficientStats, collect,
                                     difficulty_bins, error_types, oov_flags)
from committee.metrics.totals import compute, totals


def collector_for(kind, gold, difficulty=None, char_difficulty=None, *, task, oov=None,
                  **options):
    """The collector of a gold's units, by their kind (a task's
    :attr:`~committee.tasks.Task.unit_kind`, :mod:`committee.tasks.units`):
    :class:`Collector` for words,
    :class:`~committee.metrics.labelled.EntityCollector` for entities (which
    also takes the per-character difficulties),
    :class:`~committee.metrics.tagged.TagCollector` for tagged words.  The
    one place a collector is built: the scorer, the report and ``committee
    irt`` build theirs here.  ``task`` (a :class:`committee.tasks.Task` whose
    units are of ``kind``) reads the units from a corpus; ``options`` go to
    the collector (``bucketer``; ``mode``, ``scheme``, ``buckets``).
    """
    from committee.tasks.units import UnitKind

    if not isinstance(kind, UnitKind):
        raise ValueError(f"no collector for units of kind {kind!r}: a kind is a "
                         "committee.tasks.units.UnitKind")
    return kind.collector(task, gold, difficulty, char_difficulty, oov=oov, **options)


__all__ = [
    "METRICS", "N_BINS", "REGISTRY", "UNDEFINED", "Collector", "Metric", "Signature",
    "SufficientStats", "array_sha256", "check_aligned", "collect", "collector_for", "compute",
    "difficulty_bins", "error_types", "first_difference", "harmonic", "make_signature",
    "metric_arrays", "oov_flags", "pct", "totals",
]
