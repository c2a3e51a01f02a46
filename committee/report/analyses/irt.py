"""Item response theory on the committee's marks: the fit of ``committee
irt`` (its files written into the run), b against d, a's distribution, item
curves, θ of every system against fb and f1, the informative subset's
estimates and the flagged words (``report/irt-*``; docs/irt.md)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from committee import tasks as tasks_mod
from committee.errors import PlausibilityWarning
from committee.metrics import difficulty_stats
from committee.pipeline import layout, runfiles
from committee.report import plots
from committee.report.analyses.base import (Analysis, Chart, Context, Positive, Setting,
                                            marks_of)
from committee.report.analyses.text import KINDS, rank_cell, undefined_note
from committee.report.output import markdown_table, pct, write_csv

TITLE = "IRT: item response theory on the committee's marks"
#: The figures, and the data of their charts, in ``report/``.
ITEMS_FIGURE = "irt-items.png"
SYSTEMS_FIGURE = "irt-systems.png"
B_VS_D_CSV = "irt-b-vs-d.csv"
A_HISTOGRAM_CSV = "irt-a-histogram.csv"
ICC_CSV = "irt-icc.csv"
SYSTEMS_CSV = "irt-systems.csv"
SUBSET_CSV = "irt-subset.csv"


def section(ctx: Context) -> str | None:
    """IRT: the fit of ``committee irt`` (its files written into the run;
    the model chosen as there: 2PL, or 1PL on a small committee), b against
    d, a's distribution, item curves, θ of every system against fb and f1,
    the informative subset's estimates, words to check."""
    from committee.metrics import itemresponse
    from committee.scoring import irt as irt_mod

    data, e = ctx.data, ctx.cfg.experiments
    if data.K < itemresponse.MIN_K:
        return (f"## {TITLE}\n\nNot fitted: {data.K} members are too few for an IRT "
                f"fit (at least {itemresponse.MIN_K} for the 1PL model, {itemresponse.MIN_K_2PL} for the "
                "2PL; `committee irt` refuses the same committee). Train a larger committee "
                "(`committee.size`) for this section (docs/irt.md).\n")
    systems = [{"name": s.name, "kind": s.kind, "marks": marks_of(data, s),
                "stats": s.stats, "scores": s.scores} for s in ctx.ranked]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = irt_mod.compute(ctx.run_dir, extra=systems, seed=e.seed,
                             subset=min(e.irt_subset, data.marks.shape[1]))
        irt_mod.write(ctx.run_dir, res)
    ctx.notes += [f"IRT: {w.message}" for w in caught
                  if issubclass(w.category, PlausibilityWarning)]
    fit = res.fit
    ctx.irt = {"a": fit.discrimination, "b": fit.difficulty,
               "theta": {s["name"]: s["theta"] for s in res.systems}}
    flags = ", ".join(f"{k} {v:,}" for k, v in res.summary["flags"].items()) or "none"
    model = (f"A {fit.model.upper()} model" if fit.model == "2pl" else
             "A 1PL model (one discrimination shared by every word: "
             f"{res.summary['model_reason'] or 'as asked'}; docs/irt.md)")
    return (
        f"## {TITLE}\n\n"
        f"{model} fitted to the K = {data.K} members × {fit.n_items:,} words "
        f"(`committee irt`; {fit.n_iter} EM iterations; flags: {flags}). θ is on the "
        "committee's scale (members: mean 0, sd 1); b is the ability at which a word is "
        "right half the time, a how sharply that chance rises with θ "
        f"(docs/irt.md, docs/method.md §11). Files: `{layout.IRT_ITEMS_FILE}`, "
        f"`{layout.IRT_FIT_FILE}`, `{layout.IRT_CHECK_FILE}`, `{layout.IRT_SUBSET_FILE}`.\n\n"
        + _items_part(ctx, fit) + _systems_part(ctx, fit, res.systems)
        + _subset_part(ctx, res.summary["subset"]) + _check_part(ctx))


def _items_part(ctx: Context, fit) -> str:
    """b against d, a's histogram and item curves (``irt-items.png``)."""
    import pandas as pd

    d = ctx.data.d
    varied = ~(fit.all_correct | fit.all_wrong)
    values = np.unique(d)
    b_by_d = {"d": values, "n_words": [], "b_median": [], "b_q10": [], "b_q90": []}
    for v in values:
        b = fit.difficulty[d == v]
        b_by_d["n_words"].append(int(b.size))
        for key, q in (("b_median", 0.5), ("b_q10", 0.1), ("b_q90", 0.9)):
            b_by_d[key].append(float(np.quantile(b, q)))
    a = fit.discrimination[varied]
    edges = np.histogram_bin_edges(a, bins=30) if a.size else np.array([0.0, 1.0])
    counts, _ = np.histogram(a, bins=edges)
    pick = difficulty_stats.sample_words(np.where(varied, d, -1.0), 6, ctx.cfg.experiments.seed)
    pick = [int(i) for i in pick if varied[i]] or [0]
    flat = [w for s in ctx.data.test.words for w in s]
    icc = {"word_id": pick, "word": [flat[i] for i in pick], "d": d[pick].tolist(),
           "a": fit.discrimination[pick].tolist(), "b": fit.difficulty[pick].tolist()}
    items_figure(ctx.out_dir / ITEMS_FIGURE, b_by_d, edges, counts, icc)
    ctx.figures.append(ITEMS_FIGURE)
    write_csv(ctx.out_dir / B_VS_D_CSV, pd.DataFrame(b_by_d))
    write_csv(ctx.out_dir / A_HISTOGRAM_CSV, pd.DataFrame(
        {"a_low": edges[:-1], "a_high": edges[1:], "n_words": counts}))
    write_csv(ctx.out_dir / ICC_CSV, pd.DataFrame(icc))
    r = float(np.corrcoef(d[varied], fit.difficulty[varied])[0, 1]) if varied.sum() > 2 else None
    return (f"Words with variance ({int(varied.sum()):,}): Pearson r(b, d) = "
            + ("–" if r is None else f"{r:.3f}")
            + f"; median a {np.median(a) if a.size else float('nan'):.2f}, "
            f"{int((a < 0).sum()):,} with a < 0. Left: the median b (and its 10–90% band) of "
            "the words at each d; middle: a; right: item curves of words sampled across d. "
            f"Data: `{layout.REPORT_DIR}/{B_VS_D_CSV}`, `{A_HISTOGRAM_CSV}`, `{ICC_CSV}`.\n\n"
            f"![IRT items]({layout.REPORT_DIR}/{ITEMS_FIGURE})\n\n")


def _systems_part(ctx: Context, fit, systems) -> str:
    """Systems ranked by θ, fb and f1, and θ against fb (``irt-systems.png``)."""
    ranked = ctx.ranked
    if not ranked:
        return ""
    import pandas as pd

    from committee.scoring import rank

    theta = [s["theta"] for s in systems]
    rank_theta = rank(theta)
    rows = [{"system": s.name, "kind": s.kind, "theta": t["theta"], "theta_se": t["theta_se"],
             "f1": s.scores["f1"], "fb": s.scores["fb"], "rank_f1": rf, "rank_fb": rb,
             "rank_theta": rt}
            for s, t, rf, rb, rt in zip(ranked, systems, ctx.f1_rank, ctx.fb_rank, rank_theta)]
    write_csv(ctx.out_dir / SYSTEMS_CSV, pd.DataFrame(rows))
    names = [r["system"] for r in rows] + [m.name for m in ctx.members]
    kinds = [r["kind"] for r in rows] + ["member"] * len(ctx.members)
    thetas = theta + fit.ability[:len(ctx.members)].tolist()
    fbs = [r["fb"] for r in rows] + [m.scores["fb"] for m in ctx.members]
    systems_figure(ctx.out_dir / SYSTEMS_FIGURE, names, kinds, thetas,
                      [np.nan if v is None else v for v in fbs])
    ctx.figures.append(SYSTEMS_FIGURE)
    table = markdown_table(["system", "θ", "± se", "f1", "fb", "#f1", "#fb", "#θ"],
                           [[r["system"], f"{r['theta']:.3f}", f"{r['theta_se']:.3f}",
                             pct(r["f1"]), pct(r["fb"]), rank_cell(r["rank_f1"]),
                             rank_cell(r["rank_fb"]), rank_cell(r["rank_theta"])] for r in rows])
    differ = {k: [r["system"] for r in rows if r[f"rank_{k}"] is not None
                  and r["rank_theta"] != r[f"rank_{k}"]] for k in ("f1", "fb")}
    text = " ".join(f"θ and {k} rank these differently: {', '.join(v)}." if v else
                    f"θ and {k} rank the systems in the same order." for k, v in differ.items())
    return ("### Systems ranked by θ\n\nEAP ability of every system from its right/wrong "
            "outcome on each gold word, the words' a and b fixed (`committee score --irt`); "
            "members shown in grey in the figure. "
            f"Data: `{layout.REPORT_DIR}/{SYSTEMS_CSV}`.\n\n"
            + table + "\n\n" + text + "\n"
            + undefined_note(ctx, ranked, ("f1", "fb"), "no rank by it, and no point in the "
                              "figure θ against fb")
            + f"\n![IRT systems]({layout.REPORT_DIR}/{SYSTEMS_FIGURE})\n\n")


def _subset_part(ctx: Context, sub: dict) -> str:
    """The informative subset: θ, r, fb estimated from its words alone."""
    import pandas as pd
    from committee.scoring import irt as irt_mod

    rows = sub["systems"]
    write_csv(ctx.out_dir / SUBSET_CSV, pd.DataFrame(rows))
    rms = sub["rms"]
    body = [[r["system"], f"{r['theta']:.3f}", f"{r['theta_subset']:.3f}",
             f"{r['theta_random']:.3f}", pct(r["fb"]), pct(r["fb_subset"]),
             pct(r["fb_random"])] for r in rows]
    return (f"### An informative subset of {sub['n']:,} words\n\n"
            f"The {sub['n']:,} words with the most Fisher information over the members' θ "
            f"range [{sub['theta_range'][0]:.2f}, {sub['theta_range'][1]:.2f}] "
            f"(`{layout.IRT_SUBSET_FILE}`). Each system below, none of which chose the words (the "
            f"report's systems and the gold {'tags' if ctx.data.labelled else 'segmentation'} "
            "perturbed at "
            + ", ".join(f"{100 * q:g}%" for q in irt_mod.PERTURB_RATES) + "), is scored from its "
            "outcomes on those words alone: θ by EAP, fb with every other word's outcome "
            "replaced by P(correct | θ); as many random words for comparison. RMS error "
            f"against the full test: θ {rms['theta_subset']:.3f} (random words "
            f"{rms['theta_random']:.3f}); fb {pct(rms['fb_subset'])} points (random "
            f"{pct(rms['fb_random'])}). Data: `{layout.REPORT_DIR}/{SUBSET_CSV}`.\n\n"
            + markdown_table(["system", "θ", "θ subset", "θ random", "fb", "fb subset",
                              "fb random"], body) + "\n\n")


def _check_part(ctx: Context, n: int = 15) -> str:
    """The first rows of ``irt-flags.tsv``."""
    path = layout.paths(ctx.run_dir).irt_check
    df = runfiles.read_table(path, sep="\t", keep_default_na=False, quoting=3, dtype=str)
    if df.empty:
        return "### Flagged words\n\nNo word is flagged.\n"
    body = [[r["word"], r["d"], r["n_correct"], r["irt_a"], r["reason"],
             r["right_by_strong"] or "–", window(r["context"])]
            for _, r in df.head(n).iterrows()]
    return ("### Flagged words\n\n"
            f"{len(df):,} words (`{layout.IRT_CHECK_FILE}`; the first {min(n, len(df))} "
            "below): words every member misses that strong systems (θ at least the members' "
            "median) get right first, then the other words every member misses, then words with negative "
            "or near-zero discrimination (the ranked list of likely annotation errors is "
            "`committee check-gold`'s, below).\n\n"
            + markdown_table(["word", "d", "members right", "a", "reason",
                              "right by strong systems", "sentence"], body) + "\n")


def window(context: str, width: int = 20) -> str:
    """A sentence with its word in 【】 cut to ``width`` characters each side.

    >>> window("一二三【四】五六七", 2)
    '…二三【四】五六…'
    """
    a, b = context.find("【"), context.find("】")
    if a < 0 or b < a:
        return context
    left, right = context[max(0, a - width):a], context[b + 1:b + 1 + width]
    return (("…" if a > width else "") + left + context[a:b + 1] + right
            + ("…" if b + 1 + width < len(context) else ""))


def items_figure(path, b_by_d: dict, a_edges: np.ndarray, a_counts: np.ndarray,
              icc: dict) -> Path:
    """IRT items: b against d (median and 10–90% band of the words at each
    d), the distribution of a, and item characteristic curves of a sample
    of words.

    ``b_by_d``: ``d``, ``b_median``, ``b_q10``, ``b_q90`` (sequences);
    ``a_edges``/``a_counts``: histogram of a; ``icc``: ``word``, ``a``,
    ``b`` of the words whose curve is drawn.
    """
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, (bx, ax, cx) = plt.subplots(1, 3, figsize=(13, 4))
    d = np.asarray(b_by_d["d"], dtype=np.float64)
    bx.fill_between(d, b_by_d["b_q10"], b_by_d["b_q90"], color=plots.COLORS[0], alpha=0.25,
                    label="10–90% of the words")
    bx.plot(d, b_by_d["b_median"], color=plots.COLORS[0], lw=1.5, marker="o", ms=3, label="median")
    bx.set_xlabel("difficulty d (share of members wrong)")
    bx.set_ylabel("IRT difficulty b")
    bx.set_title("b against d")
    bx.legend(fontsize=8, loc="upper left")
    widths = np.diff(a_edges)
    ax.bar(a_edges[:-1], a_counts, width=widths, align="edge", color=plots.COLORS[2], alpha=0.85)
    ax.axvline(0.0, color="#888888", lw=0.8, ls="--")
    ax.set_xlabel("discrimination a")
    ax.set_ylabel("words with variance")
    ax.set_title("Distribution of a")
    theta = np.linspace(-4, 4, 161)
    for i, (w, a, b) in enumerate(zip(icc["word"], icc["a"], icc["b"])):
        p = 1 / (1 + np.exp(-a * (theta - b)))
        cx.plot(theta, p, color=plots.COLORS[i % len(plots.COLORS)], lw=1.3,
                label=f"{w} (a {a:.2f}, b {b:.2f})")
    cx.set_xlabel("ability θ")
    cx.set_ylabel("P(correct)")
    cx.set_ylim(-0.02, 1.02)
    cx.set_title("Item characteristic curves")
    cx.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return plots.save(fig, path)


def systems_figure(path, names: Sequence[str], kinds: Sequence[str], theta: Sequence[float],
                fb: Sequence[float]) -> Path:
    """Ability θ against fb of every system (members included)."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    th, f = np.asarray(theta, dtype=np.float64), 100 * np.asarray(fb, dtype=np.float64)
    for kind in ("member", "table2", "system"):
        sel = [i for i, k in enumerate(kinds) if k == kind]
        if not sel:
            continue
        color, marker = plots.KIND_STYLE[kind]
        label = plots.KIND_LABELS[kind]
        ax.scatter(th[sel], f[sel], color=color, marker=marker, s=30, zorder=3,
                   label=f"{label} ({len(sel)})")
        if kind != "member":
            for i in sel:
                ax.annotate(names[i], (th[i], f[i]), xytext=(4, 3), textcoords="offset points",
                            fontsize=8)
    ax.set_xlabel("ability θ (committee scale)")
    ax.set_ylabel("fb (%)")
    ax.set_title("θ against fb")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "irt", section, TITLE,
    "2PL item response theory on the marks (as committee irt), θ of every system",
    (Setting("irt_subset", Positive, 500,
             "informative words chosen to estimate θ and fb (docs/irt.md)"),),
    (f"{layout.REPORT_DIR}/irt-*",),
    (Chart(f"{layout.REPORT_DIR}/{B_VS_D_CSV}", "IRT: b against d", "line", "d",
           ("b_median", "b_q10", "b_q90"),
           text="IRT difficulty b of the words at each committee difficulty d.",
           x_title="committee difficulty d", y_title="IRT difficulty b",
           names={"b_median": "median b", "b_q10": "10th percentile of b",
                  "b_q90": "90th percentile of b"}),
     Chart(f"{layout.REPORT_DIR}/{A_HISTOGRAM_CSV}", "IRT: distribution of a", "bar", "a_low",
           ("n_words",), text="Discrimination of the words with variance.",
           x_title="discrimination a (lower edge of the bin)", y_title="words",
           names={"a_low": "a from", "a_high": "a below", "n_words": "words"}),
     Chart(f"{layout.REPORT_DIR}/{SYSTEMS_CSV}", "IRT: ability θ against fb", "scatter", "theta",
           ("fb",), "system", "Each system's θ (items fixed) against its fb.",
           x_title="ability θ", y_title="fb", names={"theta": "θ", **KINDS},
           group="kind"),
     Chart(f"{layout.REPORT_DIR}/{SUBSET_CSV}", "IRT: estimates from an informative subset",
           "table",
           text="θ and fb of held-out systems from all words, the chosen words and "
                "random words.")),
    units=(tasks_mod.WORDS, tasks_mod.TAGS))
