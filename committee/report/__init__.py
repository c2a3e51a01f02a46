"""The run report: the paper's evaluation (Table 2, Figures 1–7) on a run directory.

:func:`build_report` reads what ``committee run`` wrote (``test.txt``,
``words.tsv``, ``marks.npz``, ``predictions.npz``, ``manifest.json``),
scores every system against the run's difficulties, computes each analysis
with :mod:`committee.metrics.difficulty_stats`, draws it with :mod:`committee.report.plots` and
writes, inside the run directory:

* ``report.md`` — the page to open first: every table and figure, with
  the numbers that matter in the text;
* ``table2.csv`` — the Table 2 models' scores (fractions in [0, 1]) and
  training times;
* ``report/`` — one PNG and one CSV per analysis, ``systems.csv`` (every
  system's scores), and ``report/table2/`` with each Table 2 model's
  output of the test set in the task's format (``F2-50.txt``: F2 on 50%
  of the training sentences; ``committee score`` reads it as it is and
  names it ``F2-50``) and its record (``F2-50.json``: settings, times).

Systems are (1) the Table 2 models: template F2 (configurable) trained on
20/50/80/100% of the training sentences, nested random samples drawn with
``experiments.seed``; (2) segmenters run by the report itself
(``experiments.segmenters``, :mod:`committee.segmenters`); (3) output files
of any other segmenter (``experiments.systems``).  The committee members'
own segmentations (``predictions.npz``) join the split-half analysis.

Which analyses run: ``committee run`` runs those switched on in the
config's ``experiments`` section; ``committee report RUN_DIR`` runs all of
them but those given to ``--skip``.  Table 2 models are trained once and
reused afterwards: a model whose record matches the corpora and settings is
read back, not retrained.

The package: :mod:`~committee.report.rundata` reads the run back,
:mod:`~committee.report.systems` gathers and scores the systems,
:mod:`committee.report.analyses` holds one module per analysis (its
record, its code, its figure and its files' names; their registry
:data:`~committee.report.analyses.REGISTRY`), :mod:`~committee.report.plots`
what the figures share, :mod:`~committee.report.build` puts the page
together, :mod:`~committee.report.html` writes ``report.html`` and
:mod:`~committee.report.output` formats tables and CSV files.
"""

import importlib as _importlib

#: Public name -> module of the package that defines it, imported on first use
#: so that the analyses' registry (:mod:`committee.report.analyses`, read by the
#: config) comes without the report's machinery.
_LAZY = {
    "PAPER_PKU": "analyses", "REGISTRY": "analyses", "Context": "analyses",
    "ANALYSES": "build", "build_report": "build", "ReportOptions": "build",
    "markdown_table": "output", "RunData": "rundata", "check_experiments": "rundata",
    "load_run": "rundata", "load_run_config": "rundata", "System": "systems",
    "other_systems": "systems", "read_human": "systems", "table2_systems": "systems",
}

__all__ = ["ANALYSES", "PAPER_PKU", "REGISTRY", "Context", "ReportOptions", "RunData", "System",
           "build_report", "check_experiments", "load_run", "load_run_config", "markdown_table",
           "other_systems", "read_human", "table2_systems"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'committee.report' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"committee.report.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


# ``committee.report(run_dir, ...)`` writes a run's report: the package is
# callable (see committee._ReportModule).
import sys as _sys  # noqa: E402

from committee import _ReportModule  # noqa: E402

_sys.modules[__name__].__class__ = _ReportModule
