"""Build a report: read the run, gather and score the systems, run the
analyses of :data:`committee.report.analyses.REGISTRY` and write
``report.md`` (and ``report.html``)."""

from __future__ import annotations

import logging
import os
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from committee import __version__
from committee import metrics, scoring
from committee.metrics import difficulty_stats
from committee.report import analyses as _analyses
from committee.report import plots
from committee.pipeline import layout
from committee.pipeline import lock
from committee import tasks as tasks_mod
from committee.config import ANALYSES  # noqa: F401  (re-exported: committee.report.ANALYSES)
from committee.errors import CommitteeError, OutputError, ReportWarning
from committee.system.files import atomic_write_text
from committee.pipeline.marks import words_from_ends
from committee.report.analyses import Context, check_run
from committee.report.output import score_columns, write_csv
from committee.report.rundata import (check_experiments, load_run, load_run_config,
                                      recorded_commands)
from committee.report.systems import (System, other_systems, read_human, saved_outputs, score,
                                      table2_systems)

log = logging.getLogger("committee.run")

#: Bootstrap resamples of the intervals of report.html's systems table.
PAGE_BOOTSTRAP = 1000


@dataclass(frozen=True)
class ReportOptions:
    """What :func:`build_report` is told besides the run and its config (the
    keywords of :func:`build_report`, documented there)."""

    inputs: object = None
    analyses: Sequence[str] | None = None
    systems: Sequence[str] = ()
    segmenters: Sequence[str] = ()
    human: object = None
    progress: bool = True
    load_inputs: Callable | None = None
    timeout: float | None = None
    timeout_name: str = "timeout"


def build_report(run_dir, cfg=None, **options) -> Path:
    """Write ``report.md``, ``table2.csv`` and ``report/`` into ``run_dir``.

    Parameters
    ----------
    run_dir : path
        Output directory of a finished ``committee run``.
    cfg : Config, optional
        Its config (default: the one its manifest records).

    Keywords (the fields of :class:`ReportOptions`)
    -----------------------------------------------
    inputs : pipeline.RunInputs, optional
        The run's corpora, already read (spares reading the training corpus).
    analyses : sequence of str, optional
        Which of :data:`ANALYSES` to run (default: those switched on in
        ``cfg.experiments``).
    systems, segmenters, human
        Added to ``cfg.experiments.systems`` / ``segmenters`` / ``human``
        (``human`` replaces it).
    load_inputs : callable, optional
        ``load_inputs(cfg)`` reads the run's corpora when Table 2 models
        must be trained and ``inputs`` is not given
        (:func:`committee.pipeline.workflow.report` passes
        :func:`committee.pipeline.dataset.load_inputs`).
    timeout : float, optional
        Seconds a ``cmd:COMMAND`` segmenter may run (default:
        ``experiments.command_timeout``, else no limit); its message names
        it ``timeout_name`` (:func:`committee.segmenters.command`).

    Returns
    -------
    Path of ``report.md``.
    """
    opts = ReportOptions(**options)
    run_dir = Path(run_dir)
    if cfg is None:
        cfg = load_run_config(run_dir)
    names = tuple(cfg.experiments.enabled() if opts.analyses is None else opts.analyses)
    unknown = [a for a in names if a not in ANALYSES]
    if unknown:
        raise ValueError(f"unknown analyses {unknown}; choose from {', '.join(ANALYSES)}")
    check_experiments(cfg, names or ("ranking",))
    if opts.timeout is None and cfg.experiments.command_timeout is not None:
        opts = replace(opts, timeout=cfg.experiments.command_timeout,
                       timeout_name="experiments.command_timeout")
    with lock.hold(run_dir, lock.REPORT):  # one writer of run_dir at a time
        return _build(run_dir, cfg, names, opts)


def _build(run_dir: Path, cfg, analyses, opts: ReportOptions) -> Path:
    """:func:`build_report` once ``run_dir`` is held: the analyses named
    ``analyses`` (those that read runs of its task)."""
    data = load_run(run_dir)
    analyses, left_out = _for_task(analyses, data.task)
    check_run(cfg, data, analyses)
    handler = layout.open_log(run_dir)  # committee report: log to the run's log too
    try:
        started = time.monotonic()
        ctx = Context(cfg, data, run_dir / layout.REPORT_DIR)
        ctx.out_dir.mkdir(exist_ok=True)
        if left_out:
            ctx.notes.append(f"Not made for a run of {data.task} ({data.unit} difficulties): "
                             + "; ".join(f"{a} (it reads runs of "
                                         f"{_readers(_analyses.by_name(a))})"
                                         for a in left_out) + ".")
        if plots.cjk_font() is None:
            ctx.notes.append(plots.NO_CJK_FONT)
            log.warning("no CJK font found: Chinese words in the figures show as boxes")
        _gather_systems(ctx, analyses, opts)
        _rank_systems(ctx, analyses, opts.human)
        sections, made = [], []
        for name in [a.name for a in _analyses.REGISTRY]:
            if name in analyses or (name == "table2" and ctx.table2):
                section = _run_analysis(ctx, name)
                if section is not None:
                    sections.append(section)
                    made.append(name)
        section = _check_gold(ctx)
        if section is not None:
            sections.append(section)
        html_problem = _without_plotly(ctx)
        page = _write_page(ctx, analyses, sections, started)
        if html_problem is None:
            _write_html(ctx, [n for n in made if n not in dict(ctx.failed)])
        return page
    finally:
        layout.close_log(handler)


def _check_gold(ctx: Context) -> str | None:
    """The "Suspicious gold" section (:mod:`committee.report.checkgold`); one
    that fails becomes a note, never the report's end."""
    from committee.report import checkgold

    try:
        return checkgold.section(ctx)
    except Exception as exc:  # noqa: BLE001 - one failing part never takes the report down
        log.warning("suspicious gold: %s", _reason(exc))
        ctx.notes.append(f"{checkgold.TITLE}: not made ({_reason(exc)}).")
        return None


def _for_task(analyses, task: str) -> tuple[tuple[str, ...], list[str]]:
    """The analyses of ``analyses`` that read runs of ``task``, and those left out."""
    kept = tuple(a for a in analyses if _analyses.reads(_analyses.by_name(a), task))
    return kept, [a for a in analyses if a not in kept]


def _readers(analysis) -> str:
    """The tasks whose runs ``analysis`` reads, for a note.

    >>> _readers(_analyses.by_name("buckets"))
    'segmentation'
    """
    return ", ".join(t.name for t in tasks_mod.TASKS.values()
                     if t.runnable and _analyses.reads(analysis, t.name))


def _gather_systems(ctx: Context, analyses, opts: ReportOptions) -> None:
    """The Table 2 models, other systems and members of ``ctx``, scored
    (``opts.timeout``: the seconds a ``cmd:`` segmenter may run)."""
    cfg, data, e = ctx.cfg, ctx.data, ctx.cfg.experiments
    scorer = data.collector()
    ctx.table2, t2_notes = table2_systems(cfg, data, ctx.out_dir, train="table2" in analyses,
                                          inputs=opts.inputs, progress=opts.progress,
                                          load_inputs=opts.load_inputs)
    ctx.notes += t2_notes
    files = [cfg.resolve(p) for p in e.systems] + [Path(p) for p in opts.systems]
    segs = list(dict.fromkeys(list(e.segmenters) + list(opts.segmenters)))
    ctx.others = other_systems(cfg, data, ctx.out_dir, files, segs, progress=opts.progress,
                               timeout=opts.timeout, timeout_name=opts.timeout_name)
    recorded = [c for c in recorded_commands(ctx.run_dir) if c not in segs]
    if recorded:  # never run: their saved outputs, read as data
        saved, notes = saved_outputs(data, ctx.out_dir, recorded,
                                     {s.name for s in ctx.others})
        ctx.others += saved
        ctx.notes += notes
    signature = _score_signature(ctx.run_dir, data)
    score(ctx.ranked, scorer, data.test, signature, data.task_record)
    if data.pred_ends is not None and data.task_record.tiles:  # the members' words
        texts = ["".join(s) for s in data.test.words]
        ctx.members = [System(f"member {k}", "member", words_from_ends(texts, data.pred_ends[k]))
                       for k in range(data.K)]
        score(ctx.members, scorer, data.test, signature, data.task_record)
    elif data.pred_labels is not None:  # the members' labels of the gold units (tags)
        names = data.label_names
        ctx.members = [System(f"member {k}", "member", data.test.words, tags=_per_sentence(
            data.test.words, [names[c] for c in data.pred_labels[k]])) for k in range(data.K)]
        score(ctx.members, scorer, data.test, signature, data.task_record)
    for s in ctx.others:
        if s.info.get("note"):
            ctx.notes.append(f"{s.name}: {s.info['note']}.")


def _per_sentence(words: list[list[str]], flat: list) -> list[list]:
    """``flat`` (one value per word, in corpus order) cut into sentences like ``words``.

    >>> _per_sentence([["a", "b"], [], ["c"]], [1, 2, 3])
    [[1, 2], [], [3]]
    """
    out, k = [], 0
    for sentence in words:
        out.append(flat[k:k + len(sentence)])
        k += len(sentence)
    return out


def _rank_systems(ctx: Context, analyses, human) -> None:
    """Ranks by f1 and fb, human judgements, and ``systems.csv``."""
    e, ranked = ctx.cfg.experiments, ctx.ranked
    ctx.f1_rank = scoring.rank([s.scores["f1"] for s in ranked])
    ctx.fb_rank = scoring.rank([s.scores["fb"] for s in ranked])
    for s in ranked:
        undefined = [k for k in ("f1", "fb") if s.scores[k] is None]
        if undefined:
            none = s.scores.counts.get("n_pred") == 0
            ctx.notes.append(
                f"{s.name}: {' and '.join(undefined)} undefined"
                + (f" (it predicts no {ctx.data.unit})" if none else "")
                + ": `–` in the tables, no rank by "
                + ("them" if len(undefined) > 1 else "it")
                + ", and no point in the figures that plot "
                + ("them" if len(undefined) > 1 else "it") + ".")
    ctx.human_path = human if human is not None else (
        ctx.cfg.resolve(e.human) if e.human else None)
    if ctx.human_path is not None and "ranking" in analyses:
        ctx.human_scores = read_human(ctx.human_path, [s.name for s in ranked])
    rows = []
    for s, rf, rb in zip(ranked, ctx.f1_rank, ctx.fb_rank):
        row = {"system": s.name, "kind": s.kind}
        row.update({k: s.scores[k] for k, _ in score_columns()})
        row["rank_f1"], row["rank_fb"] = rf, rb
        if ctx.human_scores is not None:
            row["human"] = ctx.human_scores.get(s.name)
        rows.append(row)
    if ranked:
        write_csv(ctx.out_dir / "systems.csv", pd.DataFrame(rows))


def _write_page(ctx: Context, analyses, sections: list[str], started: float) -> Path:
    """``report.md``: the run in a few lines, every section, then the notes."""
    data, test, run_dir = ctx.data, ctx.data.test, ctx.run_dir
    m = data.manifest
    hist = difficulty_stats.bin_counts(data.d)
    units = data.units_name
    head = [
        f"# Report: {m.get('name', run_dir.name)}",
        "",
        f"Committee of K = {data.K} CRF {data.task_record.models}; "
        f"test set: {len(test.words):,} sentences, {len(data.d):,} {units}"
        f"{_by_type(data)}, {test.n_chars():,} characters. Mean difficulty "
        f"{data.d.mean():.3f}; {100 * (data.d == 0).mean():.1f}% of the {units} have d = 0 and "
        f"{100 * (data.d == 1).mean():.1f}% have d = 1"
        + (f"; OOV rate {100 * data.oov.mean():.2f}%." if data.oov is not None else "."),
        "",
        data.task_record.unit_kind.how_to_read,
        "",
        "Difficulties: `" + m.get("signature", "?") + "`",
        "",
        "Scores: `" + _score_signature(run_dir, data).format() + "` (the same as `committee score "
        + ("" if data.task == tasks_mod.DEFAULT_TASK else f"--task {data.task} ")
        + f"--gold test.txt --difficulty {data.task_record.weight_file}"
        + " --train-words train-words.txt` prints)",
        "",
        f"{units.capitalize()} per difficulty bin: "
        + ", ".join(f"{lab} {n:,}" for lab, n in zip(difficulty_stats.BIN_LABELS, hist)) + ".",
        "",
        f"Analyses: {', '.join(analyses) or 'none'}"
        + (f" ({len(ctx.failed)} failed: {', '.join(n for n, _ in ctx.failed)})"
           if ctx.failed else "") + f"; figures: {len(ctx.figures)} "
        f"(`report/*.png`, data beside each as CSV). Built in "
        f"{time.monotonic() - started:.0f} s by committee {__version__}.",
        "",
    ]
    tail = []
    if ctx.notes:
        tail = ["## Notes", ""] + [f"- {n}" for n in ctx.notes] + [""]
    text = "\n".join(head) + "\n" + "\n".join(sections) + "\n" + "\n".join(tail)
    path = layout.paths(run_dir).root / layout.REPORT_FILE
    atomic_write_text(path, text)
    log.info("report: %s (%d figures)", path, len(ctx.figures))
    return path


def _by_type(data) -> str:
    """`` (LOC 3,244, ORG 376, PER 1,896)``: the gold entities by type; for
    tagged words the number of tags; empty for words
    (:meth:`committee.tasks.units.UnitKind.by_label`)."""
    return "" if data.units is None else data.task_record.unit_kind.by_label(data.units)


def _run_analysis(ctx: Context, name: str) -> str | None:
    """Run analysis ``name`` on its own: its section of ``report.md``, or,
    when it fails, a section that says why (:func:`_failed_section`).

    Any exception but a failed write (:class:`OutputError`, exit 6) or an
    interruption is the analysis's failure: what it added to ``ctx`` and
    the files it writes (its record's ``outputs``) are
    removed, the traceback goes to ``run.log`` and a
    :class:`~committee.errors.ReportWarning` says it once.
    """
    n_figures, n_notes, irt = len(ctx.figures), len(ctx.notes), ctx.irt
    analysis = _analyses.by_name(name)
    try:
        return analysis.function(ctx)
    except OutputError:
        raise
    except Exception as exc:  # noqa: BLE001 - one analysis never sinks the report
        del ctx.figures[n_figures:], ctx.notes[n_notes:]
        ctx.irt = irt
        reason = _reason(exc)
        log.error("analysis %s failed: %s", name, reason, exc_info=exc)
        for pattern in analysis.outputs:
            for path in ctx.run_dir.glob(pattern):
                _remove(path)
        ctx.failed.append((name, reason))
        warnings.warn(ReportWarning(
            f"analysis {name} failed: {reason}; report.md and report.html say so in its "
            f"section and hold the rest of the report (traceback in "
            f"{layout.paths(ctx.run_dir).log})"))
        return _failed_section(name, reason)


def _reason(exc: Exception) -> str:
    """An exception in one line: a :class:`CommitteeError`'s message (its
    lines joined), else ``TYPE: message`` as the CLI says of a bug."""
    if isinstance(exc, CommitteeError):
        return "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return f"{type(exc).__name__}: {' '.join(str(exc).split()) or '(no message)'}"


def _failed_section(name: str, reason: str) -> str:
    return (f"## {_analyses.by_name(name).title}\n\n"
            f"**Not made: the {name} analysis failed.** {reason}\n\n"
            "The other sections do not depend on it. The traceback is in `run.log`; "
            "`committee report` makes this section again (Table 2 models are read back, "
            "not retrained).\n")


def _without_plotly(ctx: Context) -> str | None:
    """Why ``report.html`` cannot be written (plotly is missing), or None.

    Then the ``report.html`` of an earlier build is removed (it would not
    match the new ``report.md``), a note of ``report.md`` says so, and a
    :class:`~committee.errors.ReportWarning` is issued.
    """
    from committee.report import html

    problem = html.plotly_problem()
    if problem is None:
        return None
    stale = layout.paths(ctx.run_dir).root / layout.REPORT_HTML_FILE
    removed = "; the page of an earlier build was removed" if _remove(stale) else ""
    ctx.notes.append(f"report.html not written: {problem}{removed}.")
    warnings.warn(ReportWarning(f"{stale}: not written: {problem}{removed}; report.md holds "
                                "the whole report"))
    return problem


def _remove(path: Path) -> bool:
    """Remove ``path`` if it exists; whether it did."""
    try:
        os.unlink(path)
    except OSError:  # not there, or not ours to remove: left as it is
        return False
    return True


def _write_html(ctx: Context, made: Sequence[str]) -> None:
    """``report.html``: the systems of ``report.md``, the charts of the
    analyses ``made`` (read back from their CSV files; a file missing is
    said in the page's notes), the analyses that failed, and the item
    explorer (:mod:`committee.report.html`).

    A failed write is an :class:`OutputError` (exit 6), its hint saying that
    ``report.md`` is written; the ``report.html`` of an earlier build is
    removed then, as it would not match the new ``report.md``.
    """
    from committee.report import html

    data, irt = ctx.data, ctx.irt or {}
    theta = irt.get("theta", {})
    ci = _intervals(ctx.ranked)
    page = html.ReportData(
        name=data.manifest.get("name", ctx.run_dir.name),
        signature=_score_signature(ctx.run_dir, data, bool(ci)).format(), gold=data.test.words,
        d=data.d, oov=data.oov, irt_a=irt.get("a"), irt_b=irt.get("b"),
        systems=[html.SystemData(s.name, s.words, s.scores.data() | {
            "rank_f1": rf, "rank_fb": rb} | ({"theta": theta[s.name]} if s.name in theta else {})
            | ({"ci": ci[k]} if ci else {}), tags=s.tags)
            for k, (s, rf, rb) in enumerate(zip(ctx.ranked, ctx.f1_rank, ctx.fb_rank))],
        analyses=_page_analyses(ctx, made), lines=data.test.lines,
        notes=list(ctx.notes) + _missing_charts(ctx.run_dir, made),
        failed=[{"analysis": name, "title": _analyses.by_name(name).title, "reason": reason}
                for name, reason in ctx.failed], units=data.units, page=data.task_record.page)
    path = layout.paths(ctx.run_dir).root / layout.REPORT_HTML_FILE
    try:
        html.write_html(path, page)
    except OutputError as exc:
        removed = _remove(path)
        raise OutputError(exc.path, exc.reason, f"{exc.hint}; report.md is written" + (
            " and the report.html of an earlier build removed" if removed else "")
            + ": rerun `committee report` for report.html") from None
    log.info("report: %s", path)


def _page_analyses(ctx: Context, made: Sequence[str]) -> list:
    """The charts of the analyses ``made`` for report.html, titled for the run's task."""
    from committee.report import checkgold, html

    return [replace(a, title=_analyses.for_task(a.title, ctx.data.task))
            for a in html.run_analyses(ctx.run_dir, made)] + checkgold.page_tables(ctx)


def _missing_charts(run_dir: Path, made: Sequence[str]) -> list[str]:
    """A note for each chart of the analyses ``made`` whose CSV file is not
    in ``run_dir`` (a chart that needs an input the run lacks, such as human
    judgements, is not expected)."""
    return [f"{chart.title}: not drawn, {chart.file} was not written."
            for a in _analyses.REGISTRY if a.name in made for chart in a.charts
            if chart.needs is None and not (run_dir / chart.file).is_file()]


def _intervals(systems: Sequence[System]) -> list[dict]:
    """The 95% bootstrap intervals of each system's metrics (``{metric: [lo,
    hi]}``), as ``committee score --bootstrap`` :data:`PAGE_BOOTSTRAP`
    gives them; none (an empty list) on a test set of too few sentences."""
    from committee.metrics import significance

    n_sentences = len(systems[0].words) if systems else 0
    if n_sentences < significance.MIN_SENTENCES:
        return []
    return [{k: list(v) for k, v in significance.bootstrap(
        s.stats, n=PAGE_BOOTSTRAP, seed=scoring.SEED, warn=False, where=s.name).items()}
        for s in systems]


def _score_signature(run_dir: Path, data, bootstrap: bool = False) -> metrics.Signature:
    """The signature of the report's scores (:meth:`RunData.score_signature`),
    with ``--bootstrap`` :data:`PAGE_BOOTSTRAP` when ``bootstrap``."""
    return data.score_signature(PAGE_BOOTSTRAP if bootstrap else 0, scoring.SEED)
