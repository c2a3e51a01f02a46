"""The two commands end to end: :func:`run` (the committee, then the
analyses its config switches on) and :func:`report` (the analyses on a
finished run).

This is the only module that knows both :mod:`committee.pipeline` (which
makes the difficulty dataset) and :mod:`committee.report` (which reads it):
neither imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from committee import pipeline, report as report_mod


def run(cfg, restart: bool = False, progress: bool = True) -> Path:
    """``committee run``: run (or resume) the committee of ``cfg``, then the
    experiments switched on in ``cfg.experiments``; return the output directory.

    Missing experiment files or segmenters are refused before any training.
    """
    inputs = pipeline.load_inputs(cfg)
    experiments = getattr(cfg, "experiments", None)
    wanted = experiments is not None and bool(experiments.enabled())
    if wanted:
        report_mod.check_experiments(cfg)
    out = pipeline.run(cfg, restart=restart, progress=progress, inputs=inputs)
    if wanted:
        report_mod.build_report(out, cfg, inputs=inputs, progress=progress)
    return out


def report(run_dir, config_path=None, overrides: Iterable[str] = (), *,
           analyses: Sequence[str] | None = None, systems: Sequence[str] = (),
           segmenters: Sequence[str] = (), human=None, progress: bool = True) -> Path:
    """``committee report``: the analyses on the finished run in ``run_dir``
    (config: ``config_path``, else the one its manifest records; ``overrides``
    applied); return the path of ``report.md``."""
    cfg = report_mod.load_run_config(run_dir, config_path, overrides)
    return report_mod.build_report(run_dir, cfg, analyses=analyses, systems=systems,
                                   segmenters=segmenters, human=human, progress=progress,
                                   load_inputs=pipeline.load_inputs)
