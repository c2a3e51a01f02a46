"""Fig. 3 of the paper: every system ranked by f1 and by fb, and, given
human judgements of the systems, each metric's correlation with them
(``report/fig3-*``).  Its settings name the systems: output files, and
segmenters the report runs itself."""

from __future__ import annotations

import difflib
import shlex
import warnings
from pathlib import Path
from typing import Annotated, Sequence

from pydantic import AfterValidator, Field

from committee.errors import UndefinedMetricWarning
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, PathSetting, Setting
from committee.report.analyses.text import rank_cell, undefined_note
from committee.report.output import markdown_table, pct, score_columns, write_csv
from committee.segmenters import CMD_PREFIX, SEGMENTERS as _SEGMENTER_TABLE, name_problem

TITLE = "Fig. 3: ranking systems by f1 and by fb"
FIGURE = "fig3-ranking.png"
#: Each metric's Pearson r with the human judgements (written when they are given).
HUMAN_CSV = "fig3-human-correlation.csv"

#: Real segmenters the report can run itself (committee.segmenters).
SEGMENTERS = tuple(_SEGMENTER_TABLE)


def command_refusal(name: str) -> str:
    """Why a config (or a run's manifest) may not name the command ``name``:
    a file is data, and only the person at the keyboard runs a command
    (docs/security.md).

    >>> command_refusal("cmd:./seg --utf8")
    "'cmd:./seg --utf8': a config never names a command (files are data, docs/security.md); name it on the command line: --with 'cmd:./seg --utf8'"
    """
    return (f"{name!r}: a config never names a command (files are data, docs/security.md); "
            f"name it on the command line: --with {shlex.quote(name)}")


def _segmenter_name(name: str) -> str:
    """``name`` when it is a segmenter of :data:`SEGMENTERS`; a
    ``cmd:COMMAND`` is refused (:func:`command_refusal`), as is an unknown
    name (:func:`committee.segmenters.name_problem`).

    >>> _segmenter_name("jieba")
    'jieba'
    >>> _segmenter_name("jeiba")
    Traceback (most recent call last):
    ...
    ValueError: unknown value 'jeiba' (did you mean 'jieba'?); expected one of: jieba, thulac, snownlp, pkuseg, lac, jiojio, rjieba (a command: --with 'cmd:COMMAND' on the command line)
    """
    if name.startswith(CMD_PREFIX):
        raise ValueError(command_refusal(name))
    problem = name_problem(name)
    if problem == "unknown segmenter":
        close = difflib.get_close_matches(name, list(_SEGMENTER_TABLE), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ValueError(f"unknown value '{name}'{hint}; expected one of: "
                         f"{', '.join(_SEGMENTER_TABLE)} (a command: --with '{CMD_PREFIX}COMMAND' "
                         "on the command line)")
    if problem is not None:
        raise ValueError(f"'{name}': {problem}")
    return name


_Segmenter = Annotated[str, Field(strict=True, min_length=1), AfterValidator(_segmenter_name)]


def section(ctx: Context) -> str | None:
    """Fig. 3: every system ranked by f1 and by fb (and human judgements, if given)."""
    import pandas as pd

    out_dir = ctx.out_dir
    ranked = ctx.ranked
    f1_rank = ctx.f1_rank
    fb_rank = ctx.fb_rank
    human_scores = ctx.human_scores
    human_path = ctx.human_path
    if not ranked:
        return None
    names = [s.name for s in ranked]
    figure(out_dir / FIGURE, names, [s.scores["f1"] for s in ranked],
           [s.scores["fb"] for s in ranked], f1_rank, fb_rank)
    ctx.figures.append(FIGURE)
    header = ["system", *(h for _, h in score_columns()), "#f1", "#fb"]
    body = [[s.name, *(pct(s.scores[k]) for k, _ in score_columns()), rank_cell(rf),
             rank_cell(rb)] for s, rf, rb in zip(ranked, f1_rank, fb_rank)]
    if human_scores is not None:
        header.append("human")
        for r, s in zip(body, ranked):
            r.append(human_scores.get(s.name, "–"))
    text = (f"## {TITLE}\n\n"
            "Every system scored against this run's difficulties (scores in %, # = rank). "
            "Data in `report/systems.csv`.\n\n" + markdown_table(header, body) + "\n")
    both = [(s, rf, rb) for s, rf, rb in zip(ranked, f1_rank, fb_rank)
            if rf is not None and rb is not None]
    moved = [s.name for s, rf, rb in both if rf != rb]
    if len(both) > 1:
        text += ("\nf1 and fb rank these systems differently: " + ", ".join(moved) + ".\n"
                 if moved else "\nf1 and fb rank the systems in the same order.\n")
    text += undefined_note(ctx, ranked, ("f1", "fb"), "no rank and no point in Fig. 3")
    if human_scores is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            corr = difficulty_stats.correlations(
                {k: [s.scores[k] for s in ranked] for k in ("p", "r", "f1", "pb", "rb", "fb")},
                [human_scores.get(s.name) for s in ranked])
        write_csv(out_dir / HUMAN_CSV,
                  pd.DataFrame({"metric": list(corr), "pearson": list(corr.values())}))
        text += ("\nPearson correlation with the human judgements "
                 f"(`{human_path}`, {len(human_scores)} "
                 f"system{'' if len(human_scores) == 1 else 's'}):\n\n"
                 + markdown_table(list(corr), [[("–" if v is None else f"{v:.3f}")
                                                for v in corr.values()]], "r" * len(corr))
                 + "\n")
    return text + f"\n![Fig. 3]({layout.REPORT_DIR}/{FIGURE})\n"


def figure(path, names: Sequence[str], f1: Sequence[float | None],
           fb: Sequence[float | None], rank_f1: Sequence[int | None],
           rank_fb: Sequence[int | None]) -> Path:
    """Fig. 3: f1 against fb of each system, and its rank by each.

    A system whose f1 or fb is undefined (None: an entity tagger that
    predicts no entity) has no point on the left; on the right it has only
    the ranks it has.  A line under the figure names the systems left out.
    """
    plt = plots.require_matplotlib()
    plots.style(plt)
    n = len(names)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, max(3.6, 0.32 * n + 1.5)),
                               gridspec_kw={"width_ratios": [1.3, 1]})
    for i, name in enumerate(names):
        if f1[i] is None or fb[i] is None:
            continue
        color = plots.COLORS[i % len(plots.COLORS)]
        a.scatter(100 * f1[i], 100 * fb[i], color=color, s=28, zorder=3)
        a.annotate(name, (100 * f1[i], 100 * fb[i]), xytext=(4, 3), textcoords="offset points",
                   fontsize=8)
    a.set_xlabel("f1 (%)")
    a.set_ylabel("fb (%)")
    a.set_title("f1 against fb")
    for i, name in enumerate(names):
        color = plots.COLORS[i % len(plots.COLORS)]
        ranks = [(x, r) for x, r in ((0, rank_f1[i]), (1, rank_fb[i])) if r is not None]
        if ranks:
            b.plot(*zip(*ranks), marker="o", color=color, lw=1.5)
        if rank_f1[i] is not None:
            b.annotate(f"{name}  {rank_f1[i]}", (0, rank_f1[i]), xytext=(-6, 0),
                       textcoords="offset points", ha="right", va="center", fontsize=8)
        if rank_fb[i] is not None:
            b.annotate(f"{rank_fb[i]}  {name}", (1, rank_fb[i]), xytext=(6, 0),
                       textcoords="offset points", ha="left", va="center", fontsize=8)
    left_out = [name for i, name in enumerate(names) if f1[i] is None or fb[i] is None]
    if left_out:
        fig.text(0.01, 0.005, "Undefined f1 or fb (no point, no rank): " + ", ".join(left_out),
                 fontsize=7.5, color="#555555", ha="left", va="bottom")
    b.set_xlim(-0.9, 1.9)
    b.set_ylim(n + 0.5, 0.5)
    b.set_xticks([0, 1])
    b.set_xticklabels(["rank by f1", "rank by fb"])
    b.set_yticks([])
    b.grid(False)
    b.spines["left"].set_visible(False)
    b.set_title("Ranks (1 = best)")
    fig.tight_layout(rect=(0, 0.06, 1, 1) if left_out else None)
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "ranking", section, TITLE,
    "Fig. 3: the systems ranked by f1 and by fb (and against human judgements)",
    (Setting("systems", tuple[PathSetting, ...], (),
             "other segmenters' outputs of the test set (SIGHAN files) scored beside the "
             "Table 2 models"),
     Setting("segmenters", tuple[_Segmenter, ...], (),
             "segmenters the report runs on the test set itself: names of "
             "committee.segmenters (a command is named on the command line only: "
             "--with 'cmd:COMMAND', docs/security.md)"),
     Setting("human", PathSetting | None, None,
             "human judgements of the systems: 'system<TAB>score' per line")),
    (f"{layout.REPORT_DIR}/fig3-*",),
    (Chart(f"{layout.REPORT_DIR}/{HUMAN_CSV}", "Fig. 3: correlation with human judgements",
           "bar", "metric", ("pearson",),
           text="Pearson r of each metric with the human scores.",
           needs="human judgements", x_title="metric",
           y_title="Pearson r with the human scores", names={"pearson": "Pearson r"}),))
