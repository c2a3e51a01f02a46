"""Fig. 1 of the paper: is the committee large enough?  The difficulties
from the committee's first K' members against the whole committee's, with
their split-half reliability, and a few words followed as the committee
grows (``report/fig1-*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee.errors import ConfigError
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, Positive, Setting
from committee.report.analyses.text import shown
from committee.report.output import write_csv

TITLE = "Fig. 1: is the committee large enough?"
FIGURE = "fig1-committee-size.png"
#: The distances and reliabilities per committee size, and the sampled words' difficulties.
SUMMARY_CSV = "fig1-committee-size.csv"
WORDS_CSV = "fig1-sampled-words.csv"


def check(e, data) -> str | None:
    """What of ``experiments.stability_sizes`` the run ``data`` cannot satisfy."""
    return _sizes_problem(e, data.K)


def _sizes_problem(e, K: int) -> str | None:
    bad = [k for k in (e.stability_sizes or ()) if k > K]
    return (f"experiments.stability_sizes: sizes {bad} exceed the run's committee size "
            f"K = {K}") if bad else None


def section(ctx: Context) -> str | None:
    """Fig. 1: difficulties of the committee's prefixes against the whole committee's."""
    import pandas as pd

    e = ctx.cfg.experiments
    data = ctx.data
    K = ctx.data.K
    out_dir = ctx.out_dir
    sizes = list(e.stability_sizes) if e.stability_sizes else difficulty_stats.default_sizes(K)
    problem = _sizes_problem(e, K)
    if problem:
        raise ConfigError("experiments", [problem])
    summary = difficulty_stats.stability(data.marks, sizes)
    idx = difficulty_stats.sample_words(data.d, 12, e.seed)
    flat_words = data.unit_texts()
    prefix = difficulty_stats.prefix_difficulties(data.marks, sizes)
    stop = data.manifest.get("committee", {}).get("stability")
    figure(out_dir / FIGURE, sizes, prefix[:, idx], [flat_words[i] for i in idx], summary, stop)
    ctx.figures.append(FIGURE)
    write_csv(out_dir / SUMMARY_CSV, pd.DataFrame(summary))
    write_csv(out_dir / WORDS_CSV, pd.DataFrame(
        {"word_id": np.repeat(idx, len(sizes)), "word": np.repeat([flat_words[i] for i in idx],
                                                                  len(sizes)),
         "size": np.tile(sizes, len(idx)), "d": prefix[:, idx].T.ravel()}))
    j = len(sizes) // 2
    return (
        f"## {TITLE}\n\n"
        f"Difficulties from the first K' of the {K} members (a prefix of the member list "
        "is itself a committee). At K' = "
        f"{sizes[j]}, the mean |d_K' − d_K| is {summary['mean_abs_diff'][j]:.3f} and "
        f"Pearson r with the full committee's d is {summary['pearson'][j]:.4f}; at "
        f"K' = {sizes[-2] if len(sizes) > 1 else sizes[-1]}: "
        f"{summary['mean_abs_diff'][-2 if len(sizes) > 1 else -1]:.3f} and "
        f"{summary['pearson'][-2 if len(sizes) > 1 else -1]:.4f}. The split-half "
        f"reliability of the whole committee's d is {shown(summary['reliability'][-1])}"
        + ("" if stop is None else
           f"; `size: auto` stopped at K = {stop['size']} (target {stop['target']}, "
           f"{'reached' if stop['reached'] else 'not reached'})")
        + f". The left panel follows 12 {data.units_name} sampled across the difficulty range.\n\n"
        f"![Fig. 1]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, sizes: Sequence[int], word_d: np.ndarray, word_labels: Sequence[str],
           summary: dict, stop: dict | None = None) -> Path:
    """Fig. 1: difficulty of sampled words as the committee grows, and the
    distance of each prefix committee's difficulties from the full one's,
    with their split-half reliability.

    ``word_d`` has shape ``(len(sizes), n_words)``; ``summary`` is
    :func:`committee.metrics.difficulty_stats.stability`; ``stop``, the manifest's
    ``stability`` record of a ``size: auto`` run, marks where it stopped.
    """
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [1.5, 1]})
    _words_panel(plt, a, sizes, word_d, word_labels)
    _distance_panel(b, summary, stop)
    fig.tight_layout()
    return plots.save(fig, path)


def _words_panel(plt, a, sizes: Sequence[int], word_d: np.ndarray,
                 word_labels: Sequence[str]) -> None:
    """The left panel: each sampled word's difficulty as the committee grows."""
    cmap = plt.get_cmap("viridis")
    final = word_d[-1]
    for j in range(word_d.shape[1]):
        a.plot(sizes, word_d[:, j], marker=".", lw=1.2, color=cmap(0.1 + 0.8 * final[j]),
               alpha=0.9)
    # label the lines at the right end, spread so that labels do not overlap
    order = np.argsort(final, kind="stable")
    ys = np.array([final[j] for j in order], dtype=float)
    gap = 0.06
    for i in range(1, len(ys)):
        ys[i] = max(ys[i], ys[i - 1] + gap)
    ys -= max(0.0, ys[-1] - 1.02) if len(ys) else 0.0
    for y, j in zip(ys, order):
        a.annotate(word_labels[j], xy=(sizes[-1], final[j]),
                   xytext=(sizes[-1] + 0.05 * (sizes[-1] - sizes[0]) + 0.3, y),
                   fontsize=7.5, va="center",
                   arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "#999999"})
    a.set_xlim(sizes[0] - 0.5, sizes[-1] + 0.22 * (sizes[-1] - sizes[0]) + 1)
    if len(sizes) <= 15:
        a.set_xticks(list(sizes))
    a.set_ylim(-0.05, 1.12)
    a.set_xlabel("committee size K (first K members)")
    a.set_ylabel("difficulty d")
    a.set_title("Difficulty of sampled words as the committee grows")


def _distance_panel(b, summary: dict, stop: dict | None) -> None:
    """The right panel: distance of each prefix committee's difficulties from
    the full one's, their Pearson r and reliability, where ``size: auto`` stopped."""
    colors = plots.COLORS
    b.plot(summary["size"], summary["mean_abs_diff"], marker="o", color=colors[0],
           label="mean |d_K' - d_K|")
    b.plot(summary["size"], summary["max_abs_diff"], marker="^", color=colors[1], lw=1,
           label="max |d_K' - d_K|")
    b.set_ylim(0, max(0.05, float(np.nanmax(summary["max_abs_diff"])) * 1.1))
    b.set_xlabel("committee size K'")
    if len(summary["size"]) <= 15:
        b.set_xticks(list(summary["size"]))
    b.set_ylabel("distance from the full committee")
    b2 = b.twinx()
    b2.plot(summary["size"], summary["pearson"], marker="s", color=colors[2], lw=1,
            label="Pearson r with d_K")
    b2.plot(summary["size"], summary["reliability"], marker="D", color=colors[3], lw=1,
            ls="--", label="split-half reliability of d_K'")
    low = np.concatenate([summary["pearson"], summary["reliability"]])
    b2.set_ylim(min(0.5, float(np.nanmin(low)) - 0.05) if np.isfinite(low).any() else 0, 1.01)
    b2.set_ylabel("Pearson r, reliability", color=colors[2])
    if stop is not None:  # where size: auto stopped, named in the legend
        value = "–" if stop["value"] is None else stop["value"]
        b.axvline(stop["size"], color="#555555", lw=1, ls=":",
                  label=f"size: auto stopped (K = {stop['size']}, reliability {value}, "
                        f"target {stop['target']})")
    b2.grid(False)
    b2.spines["right"].set_visible(True)
    lines = b.get_lines() + b2.get_lines()
    b.legend(lines, [ln.get_label() for ln in lines], loc="upper center",
             bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=7.5, frameon=False)
    b.set_title("Prefix committees against the full one")


ANALYSIS = Analysis(
    "stability", section, TITLE,
    "Fig. 1: difficulties of the committee's first members against the whole committee's",
    (Setting("stability_sizes", tuple[Positive, ...] | None, None,
             "committee sizes to compare; null: about ten steps up to the committee's size"),),
    (f"{layout.REPORT_DIR}/fig1-*",),
    (Chart(f"{layout.REPORT_DIR}/{SUMMARY_CSV}", TITLE,
           "line", "size", ("mean_abs_diff", "max_abs_diff", "pearson", "reliability"),
           text="Difficulties from the first K' members against the full committee's.",
           x_title="committee size K' (its first K' members)",
           y_title="against the full committee",
           names={"mean_abs_diff": "mean |d(K') − d(K)|",
                  "max_abs_diff": "largest |d(K') − d(K)|",
                  "pearson": "Pearson r of d(K') with d(K)",
                  "reliability": "split-half reliability of d(K')"}),),
    check=check)
