"""Cost of evaluation: the adaptive test of ``committee score --adaptive``
(docs/method.md §16) run on each ranked system, its outputs already in
hand, so that no system is called again: how many test sentences it
administers before the 95% interval of the target metric is narrower than
the target, and the estimate with its interval after each batch against the
system's full-test value (``report/cost*``).

The test bank is the run's (:func:`committee.scoring.adaptive_run.load_bank`):
its difficulties and the 2PL items of its ``items.tsv`` (fitted on demand as
``committee irt --no-export`` fits them when the run has none, as the ``irt``
analysis before this one writes them).  A committee too small for an IRT fit
gets a note instead of the section.  The settings are the analysis's
(``cost_metric``, ``cost_target``, ``cost_max_sentences``, ``cost_seed``);
with the same ones, :func:`committee.adaptive_score` on a system's
output gives the last estimate of its trace.  Every task's runs: words,
entities or tagged words, the systems' outputs from memory.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Literal, Sequence

import numpy as np
from pydantic import Field

from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import (Analysis, Chart, Context, NonNegative, Positive,
                                            Setting)
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Cost of evaluation: scores estimated from a few sentences"
FIGURE = "cost.png"
#: The traces in long format (:data:`COLUMNS`): one row per system and batch.
TRACE_CSV = "cost.csv"
#: The same traces as report.html draws them: the estimate, its interval and
#: the full-test value side by side.
CHART_CSV = "cost-trace.csv"
#: One row per system: what the test used and what it estimated.
SYSTEMS_CSV = "cost-systems.csv"
#: Columns of :data:`TRACE_CSV`.
COLUMNS = ("system", "sentences", "metric", "value", "low", "high")
#: The metrics the test can stop on
#: (:data:`committee.metrics.estimators.METRICS`; this module is imported
#: with the config, before the estimators are needed).
METRICS = ("p", "r", "f1", "pb", "rb", "fb")
#: The table's name of each kind of system.
KIND = {"table2": "Table 2 model", "system": "other system", "member": "committee member"}
#: Defaults of the settings: those of ``committee score --adaptive``
#: (:data:`committee.scoring.adaptive.TARGET`, ``SEED``) but a cap on the
#: sentences, since θ is re-estimated after every batch.
TARGET = 1.0
SEED = 12345
MAX_SENTENCES = 400


def settings_of(experiments):
    """The :class:`committee.scoring.adaptive.Settings` of the
    ``experiments`` section's ``cost_*`` keys (the others at their defaults)."""
    from committee.scoring import adaptive

    return adaptive.Settings(target=experiments.cost_target, metric=experiments.cost_metric,
                             max_sentences=experiments.cost_max_sentences,
                             seed=experiments.cost_seed)


def section(ctx: Context) -> str | None:
    """Cost of evaluation: each ranked system's adaptive test, its trace and
    where it stopped; a note instead when there is no system or no IRT
    items can be had."""
    if not ctx.ranked:
        ctx.notes.append(f"{TITLE}: not made, the report ranks no system (give --system "
                         "OUTPUT or --with NAME, or switch table2 on).")
        return None
    bank, source = _bank(ctx)
    if bank is None:
        return None
    settings = settings_of(ctx.cfg.experiments)
    results = [administer(bank, output_of(s), settings) for s in ctx.ranked]
    n = bank.n_sentences
    rows = _system_rows(ctx.ranked, results, settings.metric, n)
    _write_files(ctx, rows, results, settings.metric)
    figure(ctx.out_dir / FIGURE, [s.name for s in ctx.ranked], results,
           [r["full_test"] for r in rows], settings.metric, n)
    ctx.figures.append(FIGURE)
    return _text(ctx, rows, settings, n, source)


def _bank(ctx: Context):
    """The run's test bank and where its items came from, or ``(None, None)``
    with a note when the committee is too small or the fit fails."""
    from committee.errors import CommitteeError, PlausibilityWarning
    from committee.metrics import itemresponse
    from committee.scoring import adaptive_run

    data = ctx.data
    if data.K < itemresponse.MIN_K:
        ctx.notes.append(
            f"{TITLE}: not made, {data.K} members are too few for the IRT items the "
            f"adaptive test draws by (at least {itemresponse.MIN_K}; `committee irt` refuses "
            "the same committee). Train a larger committee (`committee.size`) for it "
            "(docs/method.md §16).")
        return None, None
    from committee.scoring import ScorerOptions

    had = layout.paths(ctx.run_dir).irt_items.exists()
    try:
        with warnings.catch_warnings(record=True) as caught:  # the fit's, said as notes
            warnings.simplefilter("always")
            bank = adaptive_run.load_bank(data.test, ctx.run_dir,
                                          options=ScorerOptions(task=data.task), quiet=True)
    except (CommitteeError, ValueError) as exc:
        ctx.notes.append(f"{TITLE}: not made, the run's IRT items could not be had: "
                         f"{str(exc).splitlines()[0]}")
        return None, None
    ctx.notes += [f"{TITLE}: {w.message}" for w in caught
                  if issubclass(w.category, PlausibilityWarning)]
    return bank, ("the run's" if had else "fitted now, as `committee irt --no-export` fits "
                  "them, into the run's")


def output_of(system) -> list:
    """A report system's output as the adaptive test takes it from memory:
    its word lists, or for a task of labels (entities, parts of speech) a
    ``(tokens, labels)`` pair per sentence."""
    return system.words if system.tags is None else list(zip(system.words, system.tags))


def administer(bank, words, settings) -> dict:
    """One system's adaptive test on its output ``words`` (one entry per
    gold sentence, :func:`output_of`; from memory: no system is called):
    :func:`committee.scoring.adaptive.administer`'s result, with ``points``,
    its trace of the target metric as ``(sentences, value, low, high)``
    rows, ending with the final estimate."""
    from committee.scoring import adaptive, adaptive_run

    out = adaptive.administer(bank, adaptive_run.source_for(words, bank), settings)
    points = [(t["sentences"], t["value"], t["low"], t["high"]) for t in out["trace"]]
    if not points or points[-1][0] != out["sentences_used"]:  # stopped before any look
        final = out["estimates"][settings.metric]
        points.append((out["sentences_used"], final["value"], final["low"], final["high"]))
    out["points"] = points
    return out


def _system_rows(systems, results, metric: str, n: int) -> list[dict]:
    """One row per system of ``cost-systems.csv``."""
    rows = []
    for s, r in zip(systems, results):
        e = r["estimates"][metric]
        full = s.scores[metric]
        covers = None if None in (full, e["low"], e["high"]) else e["low"] <= full <= e["high"]
        rows.append({"system": s.name, "kind": s.kind, "metric": metric, "full_test": full,
                     "estimate": e["value"], "low": e["low"], "high": e["high"],
                     "sentences": r["sentences_used"], "share": r["sentences_used"] / n,
                     "stopped_by": r["stopped_by"], "covers_full_test": covers})
    return rows


def _write_files(ctx: Context, rows: list[dict], results: list[dict], metric: str) -> None:
    """``cost.csv`` (long), ``cost-trace.csv`` (report.html's chart) and ``cost-systems.csv``."""
    import pandas as pd

    long, wide = [], []
    for row, r in zip(rows, results):
        for sentences, value, low, high in r["points"]:
            long.append(dict(zip(COLUMNS, (row["system"], sentences, metric, value, low, high))))
            wide.append({"system": row["system"], "sentences": sentences, "estimate": value,
                         "estimate low": low, "estimate high": high,
                         "full test": row["full_test"]})
    write_csv(ctx.out_dir / TRACE_CSV, pd.DataFrame(long, columns=list(COLUMNS)))
    write_csv(ctx.out_dir / CHART_CSV, pd.DataFrame(wide))
    write_csv(ctx.out_dir / SYSTEMS_CSV, pd.DataFrame(rows))


def _interval(low, high) -> str:
    return "–" if low is None or high is None else f"[{pct(low)}, {pct(high)}]"


def _text(ctx: Context, rows: list[dict], settings, n: int, source: str) -> str:
    """The section: how the test ran, the table and the figure."""
    m = settings.metric
    body = [[r["system"], KIND.get(r["kind"], r["kind"]), pct(r["full_test"]),
             pct(r["estimate"]), _interval(r["low"], r["high"]), f"{r['sentences']:,}",
             f"{100 * r['share']:.1f}%", r["stopped_by"],
             {True: "yes", False: "no", None: "–"}[r["covers_full_test"]]] for r in rows]
    used = sorted(r["sentences"] for r in rows)
    covered = [r["covers_full_test"] for r in rows if r["covers_full_test"] is not None]
    cap = ("the whole test set" if settings.max_sentences is None
           else f"{settings.max_sentences:,} sentences")
    points = "point" if settings.target == 1 else "points"
    spread = (f"each used {used[0]:,}" if used[0] == used[-1] else
              f"used {used[0]:,} to {used[-1]:,} (median {int(np.median(used)):,})")
    return (
        f"## {TITLE}\n\n"
        f"Each system's adaptive test (`committee score --adaptive`, docs/method.md §16), "
        "administered from the output the report already holds: sentences drawn "
        f"{settings.batch} at a time with known probabilities, the system's ability "
        f"re-estimated after each batch, until the 95% interval of {m} is narrower than {settings.target:g} {points} or "
        f"{cap} are used (seed {settings.seed}; IRT items: {source} "
        f"`{layout.IRT_ITEMS_FILE}`). The test set has {n:,} sentences; the systems "
        f"{spread}, and the interval holds the full-test {m} for {sum(covered)} of {len(covered)}. "
        f"`committee score --adaptive --metric {m} --target {settings.target:g}"
        + ("" if settings.max_sentences is None else
           f" --max-sentences {settings.max_sentences}")
        + f" --seed {settings.seed}` gives the same numbers. Data: "
        f"`{layout.REPORT_DIR}/{TRACE_CSV}` (every batch), `{SYSTEMS_CSV}`.\n\n"
        + markdown_table(["system", "kind", f"full-test {m}", f"adaptive {m}", "95% interval",
                          "sentences", "share of the test", "stopped by",
                          "holds the full test"], body, "llrrrrrll")
        + f"\n\n![Cost of evaluation]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, names: Sequence[str], results: Sequence[dict], full: Sequence, metric: str,
           n_sentences: int) -> Path:
    """The estimate of ``metric`` (%) and its 95% interval (a band) against
    the sentences administered, one line per system, its full-test value a
    dashed line of its colour."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, ax = plt.subplots(figsize=(9, 5))
    for i, (name, r, f) in enumerate(zip(names, results, full)):
        color = plots.COLORS[i % len(plots.COLORS)]
        x = np.array([p[0] for p in r["points"]], dtype=np.float64)
        y, lo, hi = (100 * np.array([np.nan if p[k] is None else p[k] for p in r["points"]],
                                    dtype=np.float64) for k in (1, 2, 3))
        ax.fill_between(x, lo, hi, color=color, alpha=0.15, lw=0)
        if x.size == 1:  # a band needs two points: the interval as a bar
            ax.errorbar(x, y, yerr=[y - lo, hi - y], color=color, capsize=3, lw=1)
        ax.plot(x, y, color=color, lw=1.5, marker=plots.MARKERS[i % len(plots.MARKERS)], ms=3,
                label=f"{name}: estimate (band: 95% interval)")
        if f is not None:
            ax.axhline(100 * f, color=color, lw=1, ls="--",
                       label=f"{name}: full test, {100 * f:.2f}")
    ax.set_xlim(left=0)
    ax.set_xlabel(f"sentences administered (of {n_sentences:,} in the test set)")
    ax.set_ylabel(f"estimate of {metric} (%)")
    ax.set_title(f"Adaptive estimate of {metric} against sentences administered")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "cost", section, TITLE,
    "the adaptive test (committee score --adaptive) run on each ranked system's output: "
    "the sentences it needs and its estimate against the full test",
    (Setting("cost_metric", Literal[METRICS], "fb",
             "metric whose 95% interval stops each system's adaptive test"),
     Setting("cost_target", Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)],
             TARGET, "width, in points, of that interval that stops the test"),
     Setting("cost_max_sentences", Positive | None, MAX_SENTENCES,
             "sentences at most per system (null: up to the whole test set; the time grows "
             "faster than the sentences)"),
     Setting("cost_seed", NonNegative, SEED, "seed of the adaptive test's draws")),
    (f"{layout.REPORT_DIR}/cost*",),
    (Chart(f"{layout.REPORT_DIR}/{CHART_CSV}",
           "Cost of evaluation: estimate against sentences administered", "line", "sentences",
           ("estimate", "full test"),
           text="Each system's adaptive estimate of the target metric (experiments.cost_metric) "
                "after each batch, with its 95% interval, and its value on the full test set.",
           x_title="sentences administered",
           y_title="estimate of the target metric (fraction)",
           names={"estimate": "adaptive estimate", "full test": "full-test value"},
           group="system"),
     Chart(f"{layout.REPORT_DIR}/{SYSTEMS_CSV}", "Cost of evaluation: sentences each system used",
           "table",
           text="The adaptive test's final estimate and interval, the sentences it used and "
                "why it stopped, against the full-test value.")))
