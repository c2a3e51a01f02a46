"""Fig. 6 of the paper: split-half reliability.  fb of every model (Table 2
models, committee members, other systems) on two random halves of the test
sentences, and Pearson r across the halves over many splits
(``report/fig6-*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee import tasks as tasks_mod
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, Positive, Setting
from committee.report.analyses.text import KINDS, PAPER_PKU, nan_stat, shown, undefined_note
from committee.report.output import write_csv

TITLE = "Fig. 6: split-half reliability"
FIGURE = "fig6-split-half.png"
#: Each model's scores on the halves of the first split, and r of every split.
HALVES_CSV = "fig6-split-half.csv"
PEARSON_CSV = "fig6-split-half-pearson.csv"


def section(ctx: Context) -> str | None:
    """Fig. 6: split-half reliability of fb across random halves of the test set."""
    import pandas as pd

    e = ctx.cfg.experiments
    test = ctx.data.test
    out_dir = ctx.out_dir
    t2 = ctx.table2
    members = ctx.members
    others = ctx.others
    pool = t2 + members + others
    if len(pool) < 3:
        ctx.notes.append("Split-half reliability needs at least 3 models; "
                         f"this run has {len(pool)} (no {layout.PREDICTIONS_FILE} and few "
                         "systems).")
        return None
    masks = difficulty_stats.split_half_masks(len(test.words), e.split_half_repeats, e.seed)
    a, b = difficulty_stats.split_half_scores([s.stats for s in pool], masks, "fb")
    r = difficulty_stats.split_half_pearson(a, b)
    fa, fb_ = difficulty_stats.split_half_scores([s.stats for s in pool], masks, "f1")
    r_f1 = difficulty_stats.split_half_pearson(fa, fb_)
    figure(out_dir / FIGURE, a[0], b[0], [s.kind for s in pool], r,
           names=[s.name for s in pool])
    ctx.figures.append(FIGURE)
    write_csv(out_dir / HALVES_CSV, pd.DataFrame(
        {"model": [s.name for s in pool], "kind": [s.kind for s in pool],
         "fb_half_a": a[0], "fb_half_b": b[0], "f1_half_a": fa[0], "f1_half_b": fb_[0]}))
    write_csv(out_dir / PEARSON_CSV,
              pd.DataFrame({"split": np.arange(len(r)), "pearson_fb": r,
                            "pearson_f1": r_f1}))
    kinds = ", ".join(f"{sum(s.kind == k for s in pool)} {label}"
                      for k, label in (("table2", "Table 2 models"),
                                       ("member", "committee members"),
                                       ("system", "other systems"))
                      if any(s.kind == k for s in pool))
    if not members:
        ctx.notes.append("Split-half used no committee member: the run has no "
                         f"{layout.PREDICTIONS_FILE} (members trained before segmentations were "
                         "recorded).")
    return (
        f"## {TITLE}\n\n"
        f"The test sentences split at random into two halves, {len(r)} times "
        f"(seed {e.seed}); {len(pool)} models ({kinds}) scored on each half. "
        f"Pearson r of fb across halves: first split {shown(r[0])}, mean "
        f"{shown(nan_stat(np.nanmean, r))}, min {shown(nan_stat(np.nanmin, r))} (f1: mean "
        f"{shown(nan_stat(np.nanmean, r_f1))}). "
        f"The paper reports {PAPER_PKU['split_half_pearson']} on PKU.\n"
        + undefined_note(ctx, pool, ("f1", "fb"), "no point in Fig. 6a, and left out of "
                         "each split's Pearson r")
        + f"\n![Fig. 6]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, a: np.ndarray, b: np.ndarray, kinds: Sequence[str],
           r_all: np.ndarray, metric: str = "fb", names: Sequence[str] = ()) -> Path:
    """Fig. 6: one split's scores on half A against half B, and r over all splits;
    the points of models that are not committee members labelled by ``names``."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, (ax, hx) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [1.2, 1]})
    a100, b100 = 100 * np.asarray(a), 100 * np.asarray(b)
    named = []  # the points labelled once the layout is final
    for kind in ("member", "table2", "system"):
        sel = [i for i, k in enumerate(kinds) if k == kind]
        if sel:
            color, marker = plots.KIND_STYLE[kind]
            label = plots.KIND_LABELS[kind]
            ax.scatter(a100[sel], b100[sel], color=color, marker=marker,
                       s=40 if kind != "member" else 30, label=f"{label} ({len(sel)})", zorder=3)
            if kind != "member" and len(names) == len(kinds):
                named += sel
    ok = np.isfinite(a100) & np.isfinite(b100)
    if ok.any():
        lo = float(min(a100[ok].min(), b100[ok].min()))
        hi = float(max(a100[ok].max(), b100[ok].max()))
        pad = 0.05 * (hi - lo or 1)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#888888", lw=0.8, ls="--")
    ax.set_xlabel(f"{metric} on half A (%)")
    ax.set_ylabel(f"{metric} on half B (%)")
    r0 = r_all[0]
    ax.set_title(f"One random split: Pearson r = {r0:.4f}" if np.isfinite(r0)
                 else "One random split: Pearson r undefined")
    legend = ax.legend(fontsize=8, loc="upper left")
    finite = r_all[np.isfinite(r_all)]
    hx.hist(finite, bins=min(30, max(5, len(finite) // 3)), color=plots.COLORS[0], alpha=0.8)
    if finite.size:
        hx.axvline(float(np.mean(finite)), color=plots.COLORS[1], lw=1.2,
                   label=f"mean {np.mean(finite):.4f}")
        hx.legend(fontsize=8, loc="upper left")
    hx.set_xlabel("Pearson r between halves")
    hx.set_ylabel("splits")
    hx.set_title(f"{len(r_all)} random splits")
    fig.tight_layout()
    rest = [i for i in range(len(kinds)) if i not in named]
    plots.label_points(fig, ax, a100[named], b100[named], [names[i] for i in named],
                       avoid=[legend], others=(a100[rest], b100[rest]))
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "split_half", section, TITLE,
    "Fig. 6: fb on two random halves of the test set, Pearson r over the models",
    (Setting("split_half_repeats", Positive, 100, "random splits of the test sentences"),),
    (f"{layout.REPORT_DIR}/fig6-*",),
    (Chart(f"{layout.REPORT_DIR}/{HALVES_CSV}", "Fig. 6a: fb on the two halves of one split",
           "scatter", "fb_half_a", ("fb_half_b",), "model",
           "fb of each model on the two halves of the first split.",
           x_title="fb on half A", y_title="fb on half B",
           names={"fb_half_a": "fb on half A", "fb_half_b": "fb on half B", **KINDS},
           group="kind"),
     Chart(f"{layout.REPORT_DIR}/{PEARSON_CSV}", "Fig. 6b: Pearson r of each split",
           "line", "split", ("pearson_fb", "pearson_f1"),
           text="Pearson r across halves, for each random split.",
           x_title="random split", y_title="Pearson r between the halves",
           names={"pearson_fb": "r of fb", "pearson_f1": "r of f1"})),
    units=(tasks_mod.WORDS, tasks_mod.TAGS))
