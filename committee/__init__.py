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
    "read_corpus": ("committee.corpus", "read_corpus"),
    "load_difficulty": ("committee.difficulty", "load_difficulty"),
    "run": ("committee.workflow", "run"),
    "report": ("committee.workflow", "report"),
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
    "CommitteeError",
    "InputError",
    "ConfigError",
    "RunError",
    "OutputError",
    "UndefinedMetricWarning",
    "PlausibilityWarning",
]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'committee' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != "committee.workflow":
            raise
        # TODO(merge): fallback while committee.workflow does not exist; remove it,
        # with _fallback_run and _fallback_report, once it does.
        return {"run": _fallback_run, "report": _fallback_report}[name]
    value = getattr(module, attr)
    if name != "report":  # committee.report is also a submodule's name: never cache it
        globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _fallback_run(config, *, restart: bool = False, progress: bool = False, **overrides):
    """Run (or resume) the committee of a YAML config; returns the output directory.

    ``overrides`` set config keys: ``committee__size=3`` (or
    ``**{"committee.size": 3}``) is ``--set committee.size=3``.
    """
    import json

    from committee import config as config_mod
    from committee import pipeline

    sets = [f"{k.replace('__', '.')}={json.dumps(v)}" for k, v in overrides.items()]
    cfg = config_mod.load_config(config, overrides=sets)
    return pipeline.run(cfg, restart=restart, progress=progress)


def _fallback_report(run_dir, **kwargs):
    """Write the report of a finished run (:func:`committee.report.build_report`)."""
    build_report = importlib.import_module("committee.report").build_report
    return build_report(run_dir, progress=kwargs.pop("progress", False), **kwargs)
