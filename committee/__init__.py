"""committee: difficulty-weighted evaluation of Chinese word segmentation.

A committee of CRF segmenters estimates how hard each test word is; the
balanced metrics of Qian, Qiu & Huang (ACL 2016) weight each word by that
difficulty.  See ``docs/api.md``, ``docs/`` and ``README.md``.

>>> import committee
>>> s = committee.score([["我", "爱", "北京"]], [["我爱", "北京"]], difficulty=[[0.1, 0.2, 0.9]])
>>> s.f1, round(s.fb, 4)
(0.4, 0.1353)

The public names are imported on first use, so ``import committee`` stays
cheap (no numpy, no pandas).
"""

from __future__ import annotations

import importlib
import types

from committee.errors import (
    CommitteeError,
    ConfigError,
    InputError,
    OutputError,
    PlausibilityWarning,
    RunError,
    UndefinedMetricWarning,
)

__version__ = "0.1.0"

#: Public name -> (module, attribute), imported on first access.
_LAZY = {
    "score": ("committee.scoring", "score"),
    "Scorer": ("committee.scoring", "Scorer"),
    "Scores": ("committee.scoring", "Scores"),
    "compare": ("committee.scoring", "compare"),
    "read_corpus": ("committee.scoring", "read_corpus"),  # corpus.read_corpus, arguments checked
    "load_difficulty": ("committee.pipeline.difficulty", "load_difficulty"),
    "run": ("committee.pipeline.workflow", "run"),
    "report": ("committee.pipeline.workflow", "report"),
    "check_gold": ("committee.scoring.checkgold", "check_gold"),
    "adaptive_score": ("committee.scoring.adaptive_run", "adaptive_score"),
    "schemes": ("committee.metrics.schemes", "score_output"),
    "confusion": ("committee.metrics.confusion", "of_output"),
}

__all__ = [
    "__version__",
    "score",
    "Scorer",
    "Scores",
    "compare",
    "read_corpus",
    "load_difficulty",
    "run",
    "report",
    "check_gold",
    "adaptive_score",
    "schemes",
    "confusion",
    "CommitteeError",
    "InputError",
    "ConfigError",
    "RunError",
    "OutputError",
    "UndefinedMetricWarning",
    "PlausibilityWarning",
]


class _ReportModule(types.ModuleType):
    """The type of the :mod:`committee.report` package, which is also the
    function ``committee.report(run_dir, ...)``: once the package is imported,
    ``committee.report`` names it, so calling it must write a run's report
    (:func:`committee.pipeline.workflow.report`)."""

    def __call__(self, run_dir, *args, **kwargs):
        from committee.pipeline.workflow import report

        return report(run_dir, *args, **kwargs)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'committee' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    if name == "report":  # the package itself, callable (_ReportModule)
        return importlib.import_module("committee.report")
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
