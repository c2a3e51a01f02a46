"""Table 2 of the paper: models of one feature template trained on growing
shares of the training sentences, scored by p, r, f1 and by the balanced
pb, rb, fb (``table2.csv``, ``report/table2.md``, ``report/table2.png``).

The models themselves are trained (or read back) by
:func:`committee.report.systems.table2_systems` before the analyses run;
this module shows their scores and names their files: each model's output
of the test set, ``report/table2/F2-50.txt`` (``F2`` trained on 50% of the
training sentences), in the task's format (:func:`output_file`), which
``committee score`` reads as it is and names ``F2-50``, and its record
beside it (``F2-50.json``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Sequence

import numpy as np
from pydantic import Field

from committee.learners import crf
from committee.learners.features import TEMPLATES
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import (Analysis, Chart, Context, Fraction, Positive, Setting,
                                            for_task)
from committee.report.analyses.text import PAPER_PKU, paper_spread, undefined_note
from committee.report.output import markdown_table, pct, write_csv
from committee.system.files import atomic_write_text

TITLE = "Table 2: segmenters trained on more data"
#: The table in Markdown and the figure, in ``report/``.
MARKDOWN = "table2.md"
FIGURE = "table2.png"

#: The directory of ``report/`` that keeps the Table 2 models' outputs and records.
MODELS_DIR = "table2"
#: A model's output of the test set: words (``sighan``), tokens and entity
#: tags (``bio``) or words and parts of speech (``pku``), as the task's
#: format; :func:`committee.scoring.system_name` strips the suffix.
OUTPUT_SUFFIX = ".txt"
#: A model's record: its training sample, recipe, timings and the key that
#: decides whether it is trained again.
RECORD_SUFFIX = ".json"


def model_stem(template: str, fraction: float) -> str:
    """The name of a Table 2 model's files, and the row ``committee score``
    gives its output.

    >>> [model_stem("F2", f) for f in (0.2, 0.5, 1.0, 0.125)]
    ['F2-20', 'F2-50', 'F2-100', 'F2-12.5']
    """
    return f"{template}-{100 * fraction:g}"


def legacy_stem(template: str, fraction: float) -> str:
    """The name the files of a Table 2 model had in runs reported before
    :func:`model_stem` (per mille, four digits): ``F2-0500``.

    >>> legacy_stem("F2", 0.5)
    'F2-0500'
    """
    return f"{template}-{round(1000 * fraction):04d}"


def output_file(template: str, fraction: float) -> str:
    """A Table 2 model's output of the test set, relative to ``report/``.

    >>> output_file("F2", 1.0)
    'table2/F2-100.txt'
    """
    return f"{MODELS_DIR}/{model_stem(template, fraction)}{OUTPUT_SUFFIX}"


def record_file(template: str, fraction: float) -> str:
    """A Table 2 model's record, relative to ``report/``, beside its output."""
    return f"{MODELS_DIR}/{model_stem(template, fraction)}{RECORD_SUFFIX}"


#: Readers' names of the metric columns of Table 2.
_METRIC_NAMES = {"p": "precision p", "r": "recall r", "f1": "F1", "pb": "balanced precision pb",
                 "rb": "balanced recall rb", "fb": "balanced F fb"}


def _rows(t2) -> list[dict]:
    """One row of ``table2.csv`` per Table 2 model: its sample, scores and times."""
    trows = []
    for s in t2:
        r = {"model": s.name, "template": s.info["template"], "fraction": s.info["fraction"],
             "n_sentences": s.info["n_sentences"], "n_chars": s.info["n_chars"]}
        r.update({k: s.scores[k] for k in ("p", "r", "f1", "pb", "rb", "fb", "oov_recall",
                                           "iv_recall")})
        r["max_iterations"] = s.info["params"].get("max_iterations")
        r["train_s"] = s.info["timings"]["train_s"]
        r["total_s"] = s.info["timings"]["total_s"]
        trows.append(r)
    return trows


def section(ctx: Context) -> str | None:
    """Table 2: the scores of models trained on more and more data (``table2.csv``)."""
    import pandas as pd

    out_dir = ctx.out_dir
    run_dir = ctx.run_dir
    t2 = ctx.table2
    if not t2:
        return "## Table 2\n\nNo Table 2 model.\n"
    trows = _rows(t2)
    df = pd.DataFrame(trows)
    write_csv(run_dir / layout.TABLE2_FILE, df)
    md = markdown_table(
        ["model", "sentences", "p", "r", "f1", "pb", "rb", "fb", "train time"],
        [[r["model"], f"{r['n_sentences']:,}", *(pct(r[k]) for k in
                                                 ("p", "r", "f1", "pb", "rb", "fb")),
          f"{r['train_s']:.0f} s"] for r in trows])
    atomic_write_text(out_dir / MARKDOWN, md + "\n")
    words = ctx.data.task_record.paper_figures  # the paper's PKU figures are of words
    title = for_task(TITLE, ctx.data.task)
    paper = PAPER_PKU["table2"]
    figure(out_dir / FIGURE, [r["fraction"] for r in trows],
           {k: [r[k] for r in trows] for k in ("f1", "fb", "pb", "rb")},
           paper={k: (list(paper), [paper[f][k] for f in paper]) for k in ("f1", "fb")}
           if words else None, title=title)
    ctx.figures.append(FIGURE)
    first, last = trows[0], trows[-1]
    spread = undefined_note(ctx, t2, ("f1", "fb", "pb", "rb"), "no point in the figure")
    if len(trows) > 1 and all(r[k] is not None for r in (first, last) for k in ("f1", "fb")):
        spread = (f" From {first['model']} to {last['model']}, f1 moves "
                  f"{pct(first['f1'])} → {pct(last['f1'])} "
                  f"(+{100 * (last['f1'] - first['f1']):.2f} points) but fb moves "
                  f"{pct(first['fb'])} → {pct(last['fb'])} "
                  f"(+{100 * (last['fb'] - first['fb']):.2f} points). "
                  + (paper_spread() if words else "") + spread)
    params = t2[0].info["params"]
    return (
        f"## {title}\n\n"
        f"Template {t2[0].info['template']}, {t2[0].info['algorithm']} "
        f"({', '.join(f'{k}={v}' for k, v in sorted(params.items()))}), nested random "
        f"samples of the {t2[0].info['n_train']:,} training sentences (seed "
        f"{t2[0].info['seed']}). Scores in %; data in `{layout.TABLE2_FILE}` (fractions in "
        "[0, 1]). Each model's output of the test set is kept in the task's format, which "
        "`committee score` reads as it is: "
        + ", ".join(f"`{layout.REPORT_DIR}/{output_file(s.info['template'], s.info['fraction'])}`"
                    for s in t2) + ".\n\n"
        + md + "\n\n" + spread.strip() + f"\n\n![Table 2]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, fractions: Sequence[float], scores: dict[str, Sequence[float]],
           paper: dict[str, Sequence[float]] | None = None,
           title: str = TITLE) -> Path:
    """Table 2 as a figure: each metric against the share of training data."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = 100 * np.asarray(fractions)
    for i, (metric, values) in enumerate(scores.items()):
        # lines that lie on each other stay apart by colour, marker and dash:
        # the balanced metrics (pb, rb, fb) dashed
        style = {"color": plots.COLORS[i % len(plots.COLORS)],
                 "marker": plots.MARKERS[i % len(plots.MARKERS)]}
        ax.plot(x, 100 * np.asarray(values, dtype=float), **style, markersize=6,
                ls="--" if metric in plots.BALANCED else "-", label=f"{metric} (ours)")
        if paper and metric in paper:
            px, py = paper[metric]
            ax.plot(100 * np.asarray(px), py, **style, ls=":", lw=1, markersize=4,
                    markerfacecolor="none", alpha=0.7, label=f"{metric} (paper, PKU)")
    ax.set_xlabel("share of the training data (%)")
    ax.set_ylabel("score (%)")
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "table2", section, TITLE,
    "Table 2: models of one template trained on shares of the training data (trains models)",
    (Setting("table2_fractions", Annotated[tuple[Fraction, ...], Field(min_length=1)],
             (0.2, 0.5, 0.8, 1.0), "shares of the training sentences, nested random samples",
             unique=True),
     Setting("table2_template", Literal[TEMPLATES], "F2", "feature template of the models"),
     Setting("table2_preset", Literal[(*crf.PRESETS, "committee")], "paper",
             "recipe of the models, a preset of crf.trainer (committee: the members' own crf "
             "section)"),
     Setting("table2_max_iterations", Positive | None, None,
             "replaces the recipe's max_iterations for these models; null: the recipe's")),
    (layout.TABLE2_FILE, f"{layout.REPORT_DIR}/{MARKDOWN}", f"{layout.REPORT_DIR}/{FIGURE}"),
    (Chart(layout.TABLE2_FILE, TITLE, "line", "fraction",
           ("p", "r", "f1", "pb", "rb", "fb"),
           text="Scores of template models trained on growing shares of the training "
                "sentences: p, r, f1 count every word alike (solid), the balanced pb, rb, "
                "fb weigh each word by its difficulty (dashed).",
           x_title="share of the training sentences", y_title="score",
           names=_METRIC_NAMES),))
