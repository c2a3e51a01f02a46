"""A finished run's config, read back from its manifest: for the report
(:mod:`committee.report.rundata`) and ``committee check-gold``
(:mod:`committee.scoring.checkgold`), which both sit above this module."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Iterable

from committee import config as config_mod
from committee import segmenters as segmenters_mod
from committee.errors import ConfigError, UntrustedWarning
from committee.pipeline import layout
from committee.pipeline import lock
from committee.pipeline.layout import need


def load_run_config(run_dir, config_path=None, overrides: Iterable[str] = ()):
    """The config of a run: ``config_path`` if given, else the one its manifest
    records (with ``output.dir`` set to ``run_dir`` and, as the manifest
    records no ``parallel`` section, ``parallel.n_jobs: -1``: every usable
    core); ``overrides`` applied."""
    run_dir = Path(run_dir)
    overrides = list(overrides)
    if config_path is not None:
        cfg = config_mod.load_config(config_path, overrides=overrides + [f"output.dir={run_dir}"])
    else:
        layout.check_final(run_dir, lock.REPORT)
        manifest_path = need(layout.paths(run_dir).manifest)
        data = layout.read_manifest(run_dir, lock.REPORT)["config"]
        data["output"] = {"dir": str(run_dir)}
        _drop_untrusted(data, manifest_path)
        # the manifest leaves out how the run ran (its outputs do not depend
        # on it): the report's Table 2 models train on every usable core
        data["parallel"] = {"backend": "loky", "n_jobs": -1}
        try:
            cfg = config_mod.parse_config(data, str(manifest_path), overrides, check_paths=False)
        except ConfigError as exc:  # what --set changed is not the manifest's doing
            from committee.config.loading import blame_set

            raise blame_set(exc, data, overrides) from None
    return cfg


def _drop_untrusted(data: dict, manifest_path: Path) -> None:
    """Leave out of a manifest's config what a file may not decide: a
    command to run (``experiments.segmenters``) and a host to send work to
    (``parallel``), each with a warning saying how to name it on the command
    line (docs/security.md)."""
    e = data.get("experiments")
    names = e.get("segmenters") if isinstance(e, dict) else None
    if isinstance(names, list):
        commands = [n for n in names if isinstance(n, str) and n.startswith(segmenters_mod.CMD_PREFIX)]
        if commands:
            e["segmenters"] = [n for n in names if n not in commands]
            warnings.warn(f"{manifest_path}: experiments.segmenters names the command "
                          f"{commands[0]!r}{f' and {len(commands) - 1} more' * (len(commands) > 1)}"
                          ", which is never run from a file: its saved output in report/systems/ "
                          "is used if there is one; to run it, name it on the command line "
                          "(--with)", UntrustedWarning, stacklevel=3)
    parallel = data.get("parallel")
    if isinstance(parallel, dict) and parallel.get("scheduler"):
        warnings.warn(f"{manifest_path}: parallel.scheduler {parallel['scheduler']!r} is not "
                      "contacted: a file never chooses where work is sent; Table 2 models train "
                      "here (name a scheduler with --scheduler)", UntrustedWarning, stacklevel=3)
