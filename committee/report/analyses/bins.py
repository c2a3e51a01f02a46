"""Fig. 4 of the paper: accuracy by difficulty.  Each system's recall of
the gold units in each difficulty bin (``report/fig4-*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Fig. 4: accuracy by difficulty"
FIGURE = "fig4-recall-by-bin.png"
DATA_CSV = "fig4-recall-by-bin.csv"


def section(ctx: Context) -> str | None:
    """Fig. 4: each system's recall of the gold words in each difficulty bin."""
    import pandas as pd

    data = ctx.data
    out_dir = ctx.out_dir
    ranked = ctx.ranked
    if not ranked:
        return None
    rec = np.array([[np.nan if v is None else v for v in s.scores["recall_by_bin"]]
                    for s in ranked])
    counts = difficulty_stats.bin_counts(data.d)
    figure(out_dir / FIGURE, difficulty_stats.BIN_LABELS, [s.name for s in ranked], rec,
           counts)
    ctx.figures.append(FIGURE)
    table = {"bin": list(difficulty_stats.BIN_LABELS), "gold_words": counts}
    for s, r in zip(ranked, rec):
        table[s.name] = r
    write_csv(out_dir / DATA_CSV, pd.DataFrame(table))
    body = [[s.name, *(pct(v, 1) for v in r)] for s, r in zip(ranked, rec)]
    return (
        f"## {TITLE}\n\n"
        f"Recall of the gold {data.units_name} in each difficulty bin (%), bin sizes in grey.\n\n"
        + markdown_table(["system", *difficulty_stats.BIN_LABELS],
                         [[f"gold {data.units_name}", *(f"{c:,}" for c in counts)]] + body)
        + f"\n\n![Fig. 4]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, labels: Sequence[str], names: Sequence[str], recalls: np.ndarray,
           counts: np.ndarray) -> Path:
    """Fig. 4: recall of each system in each difficulty bin, over the bins' sizes."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, ax = plt.subplots(figsize=(9, 4.4))
    x = np.arange(len(labels))
    ax2 = ax.twinx()
    ax2.bar(x, counts, color="#dddddd", width=0.7, zorder=0)
    ax2.set_yscale("log")
    ax2.set_ylabel("gold words in the bin (log scale, grey bars)", color="#777777")
    ax2.grid(False)
    ax2.spines["right"].set_visible(True)
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    markers = "osD^v<>pXh"
    for i, name in enumerate(names):
        ax.plot(x, recalls[i], marker=markers[i % len(markers)], ms=4, lw=1.3,
                color=plots.COLORS[i % len(plots.COLORS)], label=name)
    plots.bin_ticks(ax, labels)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("difficulty bin")
    ax.set_ylabel("recall of the bin's gold words")
    ax.set_title("Accuracy by difficulty: systems separate on the hard words")
    ax.legend(fontsize=8, loc="lower left", ncol=2)
    fig.tight_layout()
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "bins", section, TITLE,
    "Fig. 4: recall of each system in each difficulty bin",
    (), (f"{layout.REPORT_DIR}/fig4-*",),
    (Chart(f"{layout.REPORT_DIR}/{DATA_CSV}", TITLE, "line", "bin",
           lambda columns: [c for c in columns if c not in ("bin", "gold_words")],
           text="Recall of the gold words in each difficulty bin, per system.",
           x_title="difficulty bin", y_title="recall of the bin's gold words"),))
