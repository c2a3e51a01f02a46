"""The two commands end to end: :func:`run` (the committee, then the
analyses its config switches on) and :func:`report` (the analyses on a
finished run).

This is the only module that knows both :mod:`committee.pipeline.dataset` (which
makes the difficulty dataset) and :mod:`committee.report` (which reads it):
neither imports the other.  :func:`run` holds ``output.dir``'s lock
(:mod:`committee.pipeline.lock`) from the committee to the end of its report, so
no other process writes the run in between.  Both are imported on first
use: a refused run (``output.dir`` in use) costs little more than reading
the config.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Iterable, Sequence

from committee import config as config_mod
from committee.pipeline import layout
from committee.pipeline import lock as lock_mod
from committee.system.arguments import require, require_many, require_real
from committee.errors import ConfigError

_PATH = (str, os.PathLike)


def _overrides(overrides: dict) -> list[str]:
    """``committee__size=3`` or ``{"committee.size": 3}`` as ``--set committee.size=3``."""
    return [f"{key.replace('__', '.')}={json.dumps(value)}" for key, value in overrides.items()]


def run(config, restart: bool = False, progress: bool = True, *, where: str | None = None,
        segmenters: Sequence[str] = (), timeout: float | None = None,
        timeout_name: str = "timeout", analyses: Sequence[str] | None = None,
        **overrides) -> Path:
    """``committee run``: run (or resume) the committee of ``config``, then the
    report's ``analyses`` (default: the experiments switched on in its
    ``experiments`` section; ``[]``: no report); return the output directory.
    When there are analyses, one line on stderr names them before any member
    trains.

    ``config`` is a YAML path or a loaded :class:`committee.config.Config`
    (``where`` then names its file in messages).
    Keyword ``overrides`` set config keys of a YAML path, as ``--set`` does:
    ``run("configs/default.yaml", committee__size=3)`` or
    ``run(path, **{"crf.params.c2": 0.5})``.  Missing experiment files or
    segmenters, a committee that cannot fit in memory and members that
    would be identical are refused before any training.  ``segmenters``
    adds systems the report runs, as ``committee run --with`` does (a
    ``cmd:COMMAND`` is named here or on the command line, never in a
    config: docs/security.md).  ``timeout`` (seconds, default
    ``experiments.command_timeout``) stops a ``cmd:COMMAND`` that runs
    longer, its message naming it ``timeout_name``
    (:func:`committee.segmenters.command`).  An argument of another type is
    a :class:`TypeError` naming it, an unknown analysis a :class:`ValueError`.
    """
    _check_timeout("run", timeout)
    require("run", "config", config, (*_PATH, config_mod.Config),
            "a path to a YAML config or a committee.config.Config")
    require("run", "restart", restart, bool, "True or False")
    require("run", "progress", progress, bool, "True or False")
    for i, item in enumerate(require_many("run", "segmenters", segmenters, "a list of names")):
        require("run", f"segmenters[{i}]", item, str, "a str")
    where = str(where) if where is not None else "<config>"
    if isinstance(config, (str, os.PathLike)):
        cfg, where = config_mod.load_config(config, overrides=_overrides(overrides)), str(config)
    elif overrides:
        raise TypeError("overrides apply to a config path; this config is already loaded")
    else:
        cfg = config
    out = Path(cfg.output.dir)
    lock_mod.check_free(out, lock_mod.RUN)  # in use: refused before anything heavy is loaded
    layout.check_inputs(out, _run_inputs(cfg), lock_mod.RUN)  # none of them is an output
    from committee import report as report_mod
    from committee.pipeline import dataset as dataset_mod

    inputs = dataset_mod.load_inputs(cfg, where)
    dataset_mod.check_committee(cfg, inputs, where)  # refused before a member is drawn or a file written
    chosen = _run_analyses(cfg, analyses)
    if segmenters and "ranking" not in chosen:
        if "ranking" in cfg.experiments.enabled():
            raise ValueError("run: segmenters are ranked by the analysis ranking, which "
                             "analyses leaves out")
        raise ConfigError(where, [
            "experiments.ranking: the report ranks the systems named with --with; switch it "
            "on (experiments: {ranking: true})"])
    if chosen:
        report_mod.check_experiments(cfg, chosen)
    # refused (another run's files): nothing is written, not even a lock
    layout.check_output_dir(out, dataset_mod.run_fingerprint(cfg, inputs), restart,
                            dataset_mod.run_fingerprint(cfg, inputs, members=True))
    with lock_mod.hold(out, lock_mod.RUN, create=True):
        if chosen:  # said before the committee, which may take hours
            print(f"committee: after the committee, the report: {', '.join(chosen)} "
                  "(--skip NAMES or --no-report leaves analyses out)", file=sys.stderr,
                  flush=True)
        out = dataset_mod.run(cfg, restart=restart, progress=progress, inputs=inputs, where=where)
        if chosen:
            report_mod.build_report(out, cfg, inputs=inputs, analyses=chosen,
                                    progress=progress, segmenters=segmenters, timeout=timeout,
                                    timeout_name=timeout_name)
    return out


def _run_analyses(cfg, analyses: Sequence[str] | None) -> tuple[str, ...]:
    """The analyses :func:`run` makes after the committee: ``analyses``, in
    report order, else those ``cfg`` switches on."""
    if analyses is None:
        return tuple(cfg.experiments.enabled())
    names = [require("run", f"analyses[{i}]", a, str, "a str")
             for i, a in enumerate(require_many("run", "analyses", analyses, "a list of names"))]
    unknown = [a for a in names if a not in config_mod.ANALYSES]
    if unknown:
        raise ValueError(f"run: unknown analyses {unknown}; choose from "
                         f"{', '.join(config_mod.ANALYSES)}")
    return tuple(a for a in config_mod.ANALYSES if a in names)


def choose_analyses(only: str | None, skip: str | None, *, no_report: bool = False,
                    segmenters: bool = False) -> list[str]:
    """The analyses that ``--only NAMES`` and ``--skip NAMES`` (comma-separated)
    choose of every analysis, in report order; ``[]`` with ``--no-report``
    (of ``committee run``, given alone).  ``segmenters`` (``--with`` of
    ``committee run``) needs the ranking among them.  A :class:`ValueError`
    says what is wrong in the words of the command line.

    >>> choose_analyses("table2,bins", None), choose_analyses(None, "table2")[:2]
    (['table2', 'bins'], ['stability', 'linguistic'])
    >>> choose_analyses(None, "tabel2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --skip: unknown analysis tabel2 (did you mean table2?); choose from table2, ...
    """
    import difflib

    analyses = config_mod.ANALYSES
    chosen = []
    for flag, value in (("--only", only), ("--skip", skip)):
        names = [n.strip() for n in (value or "").split(",") if n.strip()]
        unknown = [n for n in names if n not in analyses]
        if unknown:
            guess = difflib.get_close_matches(unknown[0], analyses, n=1)
            hint = f" (did you mean {guess[0]}?)" if guess else ""
            raise ValueError(f"{flag}: unknown analysis {', '.join(unknown)}{hint}; "
                             f"choose from {', '.join(analyses)}")
        chosen.append(names)
    if no_report and (only or skip):
        raise ValueError("--no-report leaves the whole report out; give it without --only "
                         "and --skip")
    names = [] if no_report else [a for a in analyses
                                  if (not chosen[0] or a in chosen[0]) and a not in chosen[1]]
    if segmenters and "ranking" not in names:
        raise ValueError("--with: the segmenters named are ranked by the analysis ranking, "
                         "which --no-report, --skip or --only leaves out; keep ranking or "
                         "drop --with")
    return names


def describe_run(out: Path, cfg, analyses: Sequence[str]) -> str:
    """What ``committee run`` wrote into ``out``: the committee's size, the
    test set's units, their mean difficulty and OOV rate, the run's
    signature, and ``report.md`` when the run made the report."""
    from committee.tasks import get as get_task

    manifest = layout.read_manifest(out)
    d = manifest["difficulty"]
    task = get_task(cfg.task)
    lines = [f"wrote {out}/: K={manifest['committee']['size']}, "
             f"{d[task.count_key]:,} test {task.units}, mean difficulty {d['mean']:.3f}, test "
             f"OOV rate {100 * manifest['corpus']['test_oov_rate']:.2f}%", manifest["signature"]]
    if analyses and (out / layout.REPORT_FILE).exists():
        lines.append(f"report: {out / layout.REPORT_FILE}")
    return "\n".join(lines)


def report(run_dir, config_path=None, overrides: Iterable[str] = (), *,
           analyses: Sequence[str] | None = None, systems: Sequence[str] = (),
           segmenters: Sequence[str] = (), human=None, progress: bool = True,
           timeout: float | None = None, timeout_name: str = "timeout") -> Path:
    """``committee report``: the analyses on the finished run in ``run_dir``
    (config: ``config_path``, else the one its manifest records; ``overrides``
    applied); return the path of ``report.md``.  ``timeout`` (seconds,
    default ``experiments.command_timeout``) stops a ``cmd:COMMAND`` of
    ``segmenters`` that runs longer, its message naming it ``timeout_name``
    (:func:`committee.segmenters.command`).  An argument of another type is
    a :class:`TypeError` naming it."""
    from committee import report as report_mod
    from committee.pipeline import dataset as dataset_mod

    _check_report_args(run_dir, config_path, overrides, analyses, systems, segmenters, human,
                       progress)
    _check_timeout("report", timeout)
    cfg = report_mod.load_run_config(run_dir, config_path, overrides)
    _check_report_inputs(run_dir, cfg, systems, human)
    manifest_path = layout.paths(run_dir).manifest
    recorded = layout.read_manifest(run_dir, "committee report")

    def load_inputs(cfg):  # the corpora the run used, and only those
        return dataset_mod.load_inputs(cfg, str(manifest_path), recorded, RECORDED_FIX)

    try:
        return report_mod.build_report(run_dir, cfg, analyses=analyses, systems=systems,
                                       segmenters=segmenters, human=human, progress=progress,
                                       load_inputs=load_inputs, timeout=timeout,
                                       timeout_name=timeout_name)
    except ConfigError as exc:  # what --set changed is the user's doing, not the run's
        from committee.config.loading import blame_keys

        raise blame_keys(exc, list(overrides)) from None


#: How to go on when ``committee report`` finds a corpus that is not the one
#: the run used (:func:`committee.pipeline.dataset.load_recorded`).
RECORDED_FIX = ("restore the original, or name it with --set corpus.train.path=PATH (a path "
                "below corpus.root), or rerun committee run on this corpus")


def written_since(run_dir, since_ns: int) -> list[tuple[Path, int]]:
    """The files below ``run_dir`` written at or after ``since_ns``
    (``time.time_ns()``), with their sizes in bytes, sorted by path; the
    run's lock file and temporary files (names starting with ``.``) left out."""
    run_dir = Path(run_dir)
    out = []
    for dirpath, dirnames, filenames in os.walk(run_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            path = Path(dirpath) / name
            if name.startswith(".") or name == lock_mod.LOCK_FILE:
                continue
            st = path.stat()
            if st.st_mtime_ns >= since_ns:
                out.append((path, st.st_size))
    return sorted(out)


def describe_written(run_dir, files: Sequence[tuple[Path, int]]) -> str:
    """What a command wrote into ``run_dir``, for its user: one line per file
    of ``run_dir`` itself with its size, and one per folder below it with its
    number of files, their size and a few of their names.

    >>> print(describe_written("r", [(Path("r/report/a.png"), 3_500_000),
    ...                              (Path("r/report.md"), 2048),
    ...                              (Path("r/report/a.csv"), 100)]))
    wrote r/: 3 files, 3.5 MB
      report.md  2.0 kB
      report/    2 files (1 figure), 3.5 MB: a.csv, a.png
    """
    run_dir = Path(run_dir)
    rows: dict[str, list[tuple[str, int]]] = {}
    # the files of run_dir first, then each folder's
    for path, size in sorted(files, key=lambda f: (len(f[0].relative_to(run_dir).parts) > 1,
                                                   f[0])):
        rel = path.relative_to(run_dir)
        key = rel.parts[0] + ("/" if len(rel.parts) > 1 else "")
        rows.setdefault(key, []).append(("/".join(rel.parts[1:]), size))
    total = sum(size for _, size in files)
    width = max((len(k) for k in rows), default=0) + 2
    lines = [f"wrote {run_dir.as_posix()}/: {len(files):,} file{'s' * (len(files) != 1)}, "
             f"{_size(total)}"]
    for key, items in rows.items():
        size = sum(n for _, n in items)
        if not key.endswith("/"):
            lines.append(f"  {key:<{width}}{_size(size)}")
            continue
        names = [name for name, _ in items]
        shown = ", ".join(names[:4]) + (f", … ({len(names) - 4} more)" if len(names) > 4 else "")
        figures = sum(name.endswith(".png") for name in names)
        counted = f" ({figures} figure{'s' * (figures != 1)})" if figures else ""
        lines.append(f"  {key:<{width}}{len(items):,} file{'s' * (len(items) != 1)}{counted}, "
                     f"{_size(size)}: {shown}")
    return "\n".join(lines)


def _size(n: int) -> str:
    """A size in bytes for a reader.

    >>> _size(999), _size(6_900_000), _size(16_000_000_000)
    ('999 bytes', '6.9 MB', '16.0 GB')
    """
    if n < 1000:
        return f"{n} bytes"
    for unit in ("kB", "MB", "GB", "TB"):
        n /= 1000
        if n < 1000 or unit == "TB":
            return f"{n:.1f} {unit}"
    raise AssertionError("unreachable")


def _check_timeout(api: str, timeout) -> None:
    """``timeout``: None or a number of seconds > 0."""
    if timeout is not None:
        require_real(api, "timeout", timeout, 0, math.inf, open_ends=True)


def _check_report_args(run_dir, config_path, overrides, analyses, systems, segmenters, human,
                       progress) -> None:
    """The arguments of :func:`report`, checked at the API's boundary."""
    require("report", "run_dir", run_dir, _PATH, "a path (the output.dir of a run)")
    for name, value in (("config_path", config_path), ("human", human)):
        require("report", name, value, _PATH, "a path or None", none=True)
    lists = (("overrides", overrides, "KEY=VALUE strings"), ("analyses", analyses, "names"),
             ("systems", systems, "paths"), ("segmenters", segmenters, "names"))
    for name, value, what in lists:
        if value is None and name == "analyses":
            continue
        items = require_many("report", name, value, f"a list of {what}")
        kinds = _PATH if name == "systems" else str
        for i, item in enumerate(items):
            require("report", f"{name}[{i}]", item, kinds, "a path" if name == "systems"
                    else "a str")
    require("report", "progress", progress, bool, "True or False")


def _report_inputs(cfg, systems: Sequence[str] = (), human=None) -> list[tuple]:
    """The files a report reads besides the run: ``(flag or config key, path)``."""
    e = cfg.experiments
    given = [(f"experiments.systems[{i}]", cfg.resolve(p)) for i, p in enumerate(e.systems)]
    given += [("--system", p) for p in systems]
    if human is not None:
        given.append(("--human", human))
    elif e.human is not None:
        given.append(("experiments.human", cfg.resolve(e.human)))
    return given


def _run_inputs(cfg) -> list[tuple]:
    """The files ``committee run`` reads (corpora, word list, the report's files)."""
    c = cfg.corpus
    given = [(f"corpus.{key}.path", cfg.resolve(source))
             for key, source in (("train", c.train), ("test", c.test)) if source.path is not None]
    if c.train_words is not None:
        given.append(("corpus.train_words", cfg.resolve(c.train_words)))
    return given + _report_inputs(cfg)


def _check_report_inputs(run_dir, cfg, systems: Sequence[str] = (), human=None) -> None:
    """Refuse, before anything runs, a system's output or human judgements
    that the report would overwrite (:func:`committee.pipeline.layout.check_inputs`)."""
    layout.check_inputs(run_dir, _report_inputs(cfg, systems, human), lock_mod.REPORT)
