"""Figures of the run report, drawn with matplotlib (Agg backend, PNG files).

One function per figure; each takes the numbers computed by
:mod:`committee.metrics.difficulty_stats` (never a corpus or a file), writes one PNG and
returns its path.  Matplotlib is an optional dependency (``pip install
'committee[report]'``); :func:`require_matplotlib` says so when it is
missing.

Chinese text needs a font with CJK glyphs.  :func:`cjk_font` looks for one
among the fonts matplotlib knows (Noto Sans CJK, Source Han Sans, WenQuanYi,
SimHei, ...), then in the ``mplfonts`` package and in the usual system
folders; ``scripts/bootstrap.sh`` installs Debian's ``fonts-wqy-microhei``
where it can.  Without one, figures are still drawn, Chinese words show as
empty boxes, and the report says so (:data:`NO_CJK_FONT`).
"""

from __future__ import annotations

import glob
import os
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from committee.errors import DependencyError
from committee.system.files import atomic_open

__all__ = [
    "NO_CJK_FONT",
    "cjk_font",
    "committee_size",
    "linguistic",
    "ranking",
    "recall_by_bin",
    "require_matplotlib",
    "split_half",
    "table2",
    "word_weights",
]

#: Font families with CJK glyphs, most preferred first.
CJK_FAMILIES = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans CJK JP", "Noto Serif CJK SC",
    "SimHei", "Microsoft YaHei", "PingFang SC", "Heiti SC", "AR PL UMing CN",
)

_FONT_GLOBS = (
    "/usr/share/fonts/**/*[Ww][Qq][Yy]*.tt[cf]",
    "/usr/share/fonts/**/*CJK*.tt[cf]",
    "/usr/share/fonts/**/*CJK*.otf",
    "/usr/local/share/fonts/**/*CJK*.*",
)

#: What the report says when no CJK font was found.
NO_CJK_FONT = ("No font with Chinese glyphs was found, so Chinese words in the figures "
               "show as boxes. Install one and rerun `committee report`: "
               "`apt-get install fonts-wqy-microhei` (Debian/Ubuntu; scripts/bootstrap.sh "
               "does this when it can) or `pip install mplfonts`.")

#: The colours of systems and series, in the figures and on report.html alike:
#: colour-blind-safe (Okabe & Ito) first, then four more for long lists.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
          "#8c564b", "#7a4fb5", "#bcbd22", "#17becf", "#7f7f7f")
#: Hatches of bars past the last colour: the colours again, hatched, so no two
#: bars of a chart look alike.
HATCHES = ("/", "x", ".", "\\", "+", "-")
_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
#: Metrics drawn dashed beside the plain ones they balance.
_BALANCED = ("pb", "rb", "fb")
_KIND_STYLE = {"table2": ("#0072B2", "o"), "member": ("#999999", "."),
               "system": ("#D55E00", "s")}


class PlotError(DependencyError):
    """Figures cannot be drawn: matplotlib is not installed (exit code 3,
    :class:`~committee.errors.DependencyError`)."""

    def __init__(self):
        super().__init__("matplotlib", "the report's figures need it", "report")


def require_matplotlib():
    """Import matplotlib with the Agg backend, or raise :class:`PlotError`."""
    try:
        import matplotlib
    except ImportError:
        raise PlotError() from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """Family name of a font with CJK glyphs, registered with matplotlib; None if none.

    Looks at the fonts matplotlib already knows, then registers the first
    font file found in the ``mplfonts`` package or the system font folders.
    """
    require_matplotlib()
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    for family in CJK_FAMILIES:
        if family in known:
            return family
    candidates: list[str] = []
    try:
        import mplfonts  # noqa: F401  (ships Noto Sans CJK SC)

        here = os.path.dirname(mplfonts.__file__)
        candidates += sorted(glob.glob(os.path.join(here, "fonts", "NotoSansCJK*")))
    except ImportError:
        pass
    for pattern in _FONT_GLOBS:
        candidates += sorted(glob.glob(pattern, recursive=True))
    for path in candidates:
        try:
            font_manager.fontManager.addfont(path)
            name = font_manager.FontProperties(fname=path).get_name()
        except (OSError, RuntimeError, ValueError):
            continue
        return name
    return None


def _style(plt) -> str | None:
    font = cjk_font()
    plt.rcdefaults()
    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 110, "font.size": 9, "axes.titlesize": 10,
        "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
        "grid.alpha": 0.3, "legend.frameon": False, "axes.unicode_minus": False,
    })
    if font is not None:
        plt.rcParams["font.sans-serif"] = [font, "DejaVu Sans"]
        plt.rcParams["font.family"] = "sans-serif"
    return font


def _save(fig, path) -> Path:
    """Write ``fig`` as PNG to ``path`` atomically (a failed write is an
    :class:`~committee.errors.OutputError` naming ``path``) and close it."""
    import matplotlib.pyplot as plt

    path = Path(path)
    try:
        with warnings.catch_warnings(), atomic_open(path, "wb", encoding=None,
                                                    newline=None) as f:
            warnings.filterwarnings("ignore", message="Glyph .* missing from")
            fig.savefig(f, format="png", bbox_inches="tight", metadata={"Software": None})
    finally:
        plt.close(fig)
    return path


def _bin_ticks(ax, labels: Sequence[str]) -> None:
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right")


#: Directions (degrees) a point's label is tried in, in turn: beside the
#: point on the right first, then left, then above and below.
_LABEL_ANGLES = (30, 0, -30, 150, 180, 210, 90, 270)


def _label_points(fig, ax, xs, ys, names, fontsize: float = 8, avoid=(),
                  others=((), ())) -> list:
    """Name each point ``(xs[i], ys[i])`` (data coordinates) by ``names[i]``,
    each label where it covers no label placed before it, no point (these
    nor the unnamed ``others``, a pair of x and y sequences) and none of the
    artists ``avoid`` (a legend), inside the axes if it can be.

    Call once the figure's layout is final (after ``tight_layout``): the
    places are measured with the renderer, in pixels.  A label is tried in
    the directions of :data:`_LABEL_ANGLES` at growing distances from its
    point, the nearest free place taken.  A label away from its point gets a
    thin leader line to it, drawn under every label (labels sit on a white
    ground), so that crossing leaders leave the names legible.  Labels are
    placed in the order given, so the same figure always gets the same
    places.  Returns the labels (annotations).
    """
    # size: one search (directions x distances, each place tested against the
    # labels placed so far, the points and the legends) over state it shares;
    # split, its pieces would pass that state around.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    px = 72.0 / fig.dpi  # points per pixel

    def pixels(u, v):
        xy = np.column_stack([np.asarray(u, dtype=float), np.asarray(v, dtype=float)])
        return ax.transData.transform(xy).reshape(-1, 2)

    pts = pixels(xs, ys)
    frame = ax.get_window_extent(renderer).extents
    mark = 4.0 / px  # half a marker, in pixels
    taken = [np.array([x - mark, y - mark, x + mark, y + mark])
             for x, y in np.vstack([pts, pixels(*others)]) if np.isfinite([x, y]).all()]
    taken += [a.get_window_extent(renderer).extents for a in avoid]

    def free(box, in_frame):
        if in_frame and (box[0] < frame[0] or box[1] < frame[1] or box[2] > frame[2]
                         or box[3] > frame[3]):
            return False
        return not any(box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3]
                       for t in taken)

    to_data = ax.transData.inverted().transform
    out = []
    for (x, y), name, xd, yd in zip(pts, names, xs, ys):
        if not np.isfinite([x, y]).all():  # no point, no label
            continue
        probe = ax.text(0, 0, name, fontsize=fontsize)
        w, h = probe.get_window_extent(renderer).size
        probe.remove()
        w, h = w + 2, h + 1  # a pixel of air around each label
        spot = None
        for in_frame in (True, False):
            for ring in range(40):
                gap = 3 + ring * 0.9 * h
                for angle in _LABEL_ANGLES:
                    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
                    cx = x + c * (gap + w / 2) if abs(c) > 1e-9 else x
                    cy = y + s * (gap + h / 2) if abs(s) > 1e-9 else y
                    box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
                    if free(box, in_frame):
                        spot = (cx, cy, ring, box)
                        break
                if spot:
                    break
            if spot:
                break
        if spot is None:  # nowhere free within reach: beside the point
            spot = (x + 3 + w / 2, y + 3 + h / 2, 0,
                    np.array([x + 3, y + 3, x + 3 + w, y + 3 + h]))
        cx, cy, ring, box = spot
        taken.append(box)
        if ring:  # the leader, from the point to under the label
            lx, ly = to_data((cx, cy))
            ax.plot([xd, lx], [yd, ly], color="#999999", lw=0.5, zorder=2.5)
        out.append(ax.annotate(name, (xd, yd), xytext=((cx - x) * px, (cy - y) * px),
                               textcoords="offset points", ha="center", va="center",
                               fontsize=fontsize, zorder=4,
                               bbox={"boxstyle": "square,pad=0.05", "fc": "white",
                                     "ec": "none", "alpha": 0.85}))
    return out


# --------------------------------------------------------------------------
# the figures


def committee_size(path, sizes: Sequence[int], word_d: np.ndarray, word_labels: Sequence[str],
                   summary: dict, stop: dict | None = None) -> Path:
    """Fig. 1: difficulty of sampled words as the committee grows, and the
    distance of each prefix committee's difficulties from the full one's,
    with their split-half reliability.

    ``word_d`` has shape ``(len(sizes), n_words)``; ``summary`` is
    :func:`committee.metrics.difficulty_stats.stability`; ``stop``, the manifest's
    ``stability`` record of a ``size: auto`` run, marks where it stopped.
    """
    # size: two panels drawn in one figure (words, then distance and reliability)
    # whose axes share the committee sizes; split, each would repeat the set-up.
    plt = require_matplotlib()
    _style(plt)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [1.5, 1]})
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
        a.annotate(word_labels[j], xy=(sizes[-1], final[j]), xytext=(sizes[-1] + 0.05 * (sizes[-1] - sizes[0]) + 0.3, y),
                   fontsize=7.5, va="center",
                   arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "#999999"})
    a.set_xlim(sizes[0] - 0.5, sizes[-1] + 0.22 * (sizes[-1] - sizes[0]) + 1)
    if len(sizes) <= 15:
        a.set_xticks(list(sizes))
    a.set_ylim(-0.05, 1.12)
    a.set_xlabel("committee size K (first K members)")
    a.set_ylabel("difficulty d")
    a.set_title("Difficulty of sampled words as the committee grows")
    b.plot(summary["size"], summary["mean_abs_diff"], marker="o", color=COLORS[0],
           label="mean |d_K' - d_K|")
    b.plot(summary["size"], summary["max_abs_diff"], marker="^", color=COLORS[1], lw=1,
           label="max |d_K' - d_K|")
    b.set_ylim(0, max(0.05, float(np.nanmax(summary["max_abs_diff"])) * 1.1))
    b.set_xlabel("committee size K'")
    if len(summary["size"]) <= 15:
        b.set_xticks(list(summary["size"]))
    b.set_ylabel("distance from the full committee")
    b2 = b.twinx()
    b2.plot(summary["size"], summary["pearson"], marker="s", color=COLORS[2], lw=1,
            label="Pearson r with d_K")
    b2.plot(summary["size"], summary["reliability"], marker="D", color=COLORS[3], lw=1,
            ls="--", label="split-half reliability of d_K'")
    low = np.concatenate([summary["pearson"], summary["reliability"]])
    b2.set_ylim(min(0.5, float(np.nanmin(low)) - 0.05) if np.isfinite(low).any() else 0, 1.01)
    b2.set_ylabel("Pearson r, reliability", color=COLORS[2])
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
    fig.tight_layout()
    return _save(fig, path)


def linguistic(path, labels: Sequence[str], shares: dict[str, dict],
               title: str = "Where idioms, 2-character words and OOV words fall on the "
                            "difficulty scale",
               ylabel: str = "share of the group's words") -> Path:
    """Fig. 2: share of each word group in each difficulty bin (grouped bars);
    the entities of each type alike (``title``, ``ylabel``)."""
    plt = require_matplotlib()
    _style(plt)
    fig, ax = plt.subplots(figsize=(9, 4))
    names = list(shares)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(labels))
    for i, name in enumerate(names):
        s = shares[name]
        total = int(np.sum(s["n"]))
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(s["share"]), width,
               color=COLORS[i % len(COLORS)], label=f"{name} (n = {total:,})")
    _bin_ticks(ax, labels)
    ax.set_xlabel("difficulty bin")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def recall_by_bin(path, labels: Sequence[str], names: Sequence[str], recalls: np.ndarray,
                  counts: np.ndarray) -> Path:
    """Fig. 4: recall of each system in each difficulty bin, over the bins' sizes."""
    plt = require_matplotlib()
    _style(plt)
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
                color=COLORS[i % len(COLORS)], label=name)
    _bin_ticks(ax, labels)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("difficulty bin")
    ax.set_ylabel("recall of the bin's gold words")
    ax.set_title("Accuracy by difficulty: systems separate on the hard words")
    ax.legend(fontsize=8, loc="lower left", ncol=2)
    fig.tight_layout()
    return _save(fig, path)


def ranking(path, names: Sequence[str], f1: Sequence[float | None],
            fb: Sequence[float | None], rank_f1: Sequence[int | None],
            rank_fb: Sequence[int | None]) -> Path:
    """Fig. 3: f1 against fb of each system, and its rank by each.

    A system whose f1 or fb is undefined (None: an entity tagger that
    predicts no entity) has no point on the left; on the right it has only
    the ranks it has.  A line under the figure names the systems left out.
    """
    plt = require_matplotlib()
    _style(plt)
    n = len(names)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, max(3.6, 0.32 * n + 1.5)),
                               gridspec_kw={"width_ratios": [1.3, 1]})
    for i, name in enumerate(names):
        if f1[i] is None or fb[i] is None:
            continue
        color = COLORS[i % len(COLORS)]
        a.scatter(100 * f1[i], 100 * fb[i], color=color, s=28, zorder=3)
        a.annotate(name, (100 * f1[i], 100 * fb[i]), xytext=(4, 3), textcoords="offset points",
                   fontsize=8)
    a.set_xlabel("f1 (%)")
    a.set_ylabel("fb (%)")
    a.set_title("f1 against fb")
    for i, name in enumerate(names):
        color = COLORS[i % len(COLORS)]
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
    return _save(fig, path)


def table2(path, fractions: Sequence[float], scores: dict[str, Sequence[float]],
           paper: dict[str, Sequence[float]] | None = None,
           title: str = "Table 2: segmenters trained on more data") -> Path:
    """Table 2 as a figure: each metric against the share of training data."""
    plt = require_matplotlib()
    _style(plt)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = 100 * np.asarray(fractions)
    for i, (metric, values) in enumerate(scores.items()):
        # lines that lie on each other stay apart by colour, marker and dash:
        # the balanced metrics (pb, rb, fb) dashed
        style = {"color": COLORS[i % len(COLORS)], "marker": _MARKERS[i % len(_MARKERS)]}
        ax.plot(x, 100 * np.asarray(values, dtype=float), **style, markersize=6,
                ls="--" if metric in _BALANCED else "-", label=f"{metric} (ours)")
        if paper and metric in paper:
            px, py = paper[metric]
            ax.plot(100 * np.asarray(px), py, **style, ls=":", lw=1, markersize=4,
                    markerfacecolor="none", alpha=0.7, label=f"{metric} (paper, PKU)")
    ax.set_xlabel("share of the training data (%)")
    ax.set_ylabel("score (%)")
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return _save(fig, path)


def split_half(path, a: np.ndarray, b: np.ndarray, kinds: Sequence[str],
               r_all: np.ndarray, metric: str = "fb", names: Sequence[str] = ()) -> Path:
    """Fig. 6: one split's scores on half A against half B, and r over all splits;
    the points of models that are not committee members labelled by ``names``."""
    plt = require_matplotlib()
    _style(plt)
    fig, (ax, hx) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [1.2, 1]})
    a100, b100 = 100 * np.asarray(a), 100 * np.asarray(b)
    named = []  # the points labelled once the layout is final
    for kind in ("member", "table2", "system"):
        sel = [i for i, k in enumerate(kinds) if k == kind]
        if sel:
            color, marker = _KIND_STYLE[kind]
            label = {"member": "committee members", "table2": "Table 2 models",
                     "system": "other systems"}[kind]
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
    hx.hist(finite, bins=min(30, max(5, len(finite) // 3)), color=COLORS[0], alpha=0.8)
    if finite.size:
        hx.axvline(float(np.mean(finite)), color=COLORS[1], lw=1.2,
                   label=f"mean {np.mean(finite):.4f}")
        hx.legend(fontsize=8, loc="upper left")
    hx.set_xlabel("Pearson r between halves")
    hx.set_ylabel("splits")
    hx.set_title(f"{len(r_all)} random splits")
    fig.tight_layout()
    rest = [i for i in range(len(kinds)) if i not in named]
    _label_points(fig, ax, a100[named], b100[named], [names[i] for i in named], avoid=[legend],
                  others=(a100[rest], b100[rest]))
    return _save(fig, path)


def word_weights(path, sentences: Sequence[Sequence[str]], weights: Sequence[Sequence[float]],
                 titles: Sequence[str]) -> Path:
    """Fig. 7: sentences with each word shaded and labelled by its difficulty."""
    plt = require_matplotlib()
    _style(plt)
    from matplotlib import colors

    cmap = plt.get_cmap("YlOrRd")
    norm = colors.Normalize(0, 1)
    # lay words out in rows of at most `width` character cells
    width = 26.0
    rows: list[list[tuple[float, str, float]]] = []  # per figure row: (x, word, d)
    row_titles: list[tuple[int, str]] = []
    for words, ds, title in zip(sentences, weights, titles):
        row_titles.append((len(rows), title))
        x, row = 0.0, []
        for w, d in zip(words, ds):
            cells = max(len(w), 1.6) + 0.5
            if row and x + cells > width:
                rows.append(row)
                x, row = 0.0, []
            row.append((x, w, d))
            x += cells
        rows.append(row)
    height = 0.5 * len(rows) + 0.45 * len(row_titles) + 0.6
    fig, ax = plt.subplots(figsize=(10, height))
    # y grows downwards: per sentence a title line, then rows of boxes with d below each
    y = 0.0
    title_at = dict(row_titles)
    for i, row in enumerate(rows):
        if i in title_at:
            y += 0.7 if i else 0.0
            ax.text(0, y + 0.5, title_at[i], fontsize=8.5, color="#444444", va="bottom")
            y += 0.65
        for x, w, d in row:
            cells = max(len(w), 1.6) + 0.3
            ax.add_patch(plt.Rectangle((x, y), cells, 0.8, facecolor=cmap(norm(d)),
                                       edgecolor="#888888", lw=0.4))
            ax.text(x + cells / 2, y + 0.42, w, ha="center", va="center", fontsize=11,
                    color="white" if d > 0.65 else "black")
            ax.text(x + cells / 2, y + 1.08, f"{d:.2f}", ha="center", va="center",
                    fontsize=6.5, color="#555555")
        y += 1.35
    ax.set_xlim(-0.2, width + 0.5)
    ax.set_ylim(y, 0)
    ax.axis("off")
    sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
    cb = fig.colorbar(sm, ax=ax, fraction=0.025, pad=0.01)
    cb.set_label("difficulty d")
    ax.set_title("Word difficulties (share of committee members that miss the word)",
                 loc="left")
    return _save(fig, path)


def irt_items(path, b_by_d: dict, a_edges: np.ndarray, a_counts: np.ndarray,
              icc: dict) -> Path:
    """IRT items: b against d (median and 10–90% band of the words at each
    d), the distribution of a, and item characteristic curves of a sample
    of words.

    ``b_by_d``: ``d``, ``b_median``, ``b_q10``, ``b_q90`` (sequences);
    ``a_edges``/``a_counts``: histogram of a; ``icc``: ``word``, ``a``,
    ``b`` of the words whose curve is drawn.
    """
    plt = require_matplotlib()
    _style(plt)
    fig, (bx, ax, cx) = plt.subplots(1, 3, figsize=(13, 4))
    d = np.asarray(b_by_d["d"], dtype=np.float64)
    bx.fill_between(d, b_by_d["b_q10"], b_by_d["b_q90"], color=COLORS[0], alpha=0.25,
                    label="10–90% of the words")
    bx.plot(d, b_by_d["b_median"], color=COLORS[0], lw=1.5, marker="o", ms=3, label="median")
    bx.set_xlabel("difficulty d (share of members wrong)")
    bx.set_ylabel("IRT difficulty b")
    bx.set_title("b against d")
    bx.legend(fontsize=8, loc="upper left")
    widths = np.diff(a_edges)
    ax.bar(a_edges[:-1], a_counts, width=widths, align="edge", color=COLORS[2], alpha=0.85)
    ax.axvline(0.0, color="#888888", lw=0.8, ls="--")
    ax.set_xlabel("discrimination a")
    ax.set_ylabel("words with variance")
    ax.set_title("Distribution of a")
    theta = np.linspace(-4, 4, 161)
    for i, (w, a, b) in enumerate(zip(icc["word"], icc["a"], icc["b"])):
        p = 1 / (1 + np.exp(-a * (theta - b)))
        cx.plot(theta, p, color=COLORS[i % len(COLORS)], lw=1.3,
                label=f"{w} (a {a:.2f}, b {b:.2f})")
    cx.set_xlabel("ability θ")
    cx.set_ylabel("P(correct)")
    cx.set_ylim(-0.02, 1.02)
    cx.set_title("Item characteristic curves")
    cx.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return _save(fig, path)


def irt_systems(path, names: Sequence[str], kinds: Sequence[str], theta: Sequence[float],
                fb: Sequence[float]) -> Path:
    """Ability θ against fb of every system (members included)."""
    plt = require_matplotlib()
    _style(plt)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    th, f = np.asarray(theta, dtype=np.float64), 100 * np.asarray(fb, dtype=np.float64)
    for kind in ("member", "table2", "system"):
        sel = [i for i, k in enumerate(kinds) if k == kind]
        if not sel:
            continue
        color, marker = _KIND_STYLE[kind]
        label = {"member": "committee members", "table2": "Table 2 models",
                 "system": "other systems"}[kind]
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
    return _save(fig, path)


def bar_style(i: int) -> dict:
    """Colour and hatch of the ``i``-th bar series: :data:`COLORS` in turn,
    then again with each of :data:`HATCHES`.

    >>> bar_style(0), bar_style(len(COLORS))["hatch"]
    ({'color': '#0072B2', 'hatch': None}, '/')
    """
    turn = i // len(COLORS)
    return {"color": COLORS[i % len(COLORS)],
            "hatch": HATCHES[(turn - 1) % len(HATCHES)] if turn else None}


def buckets(path, title: str, labels: Sequence[str], counts: Sequence[int],
            names: Sequence[str], panels: dict[str, tuple]) -> Path:
    """Results by one word attribute: for each panel (``{y-axis label:
    (values, low, high)}``, arrays of shape (systems, buckets)), grouped bars
    of every system per bucket, each labelled with its value, intervals as
    error bars; the x axis names each bucket with its gold words."""
    plt = require_matplotlib()
    _style(plt)
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 3.4 * len(panels)), squeeze=False)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(labels))
    ticks = [f"{label}\n({int(n):,} gold words)" for label, n in zip(labels, counts)]
    for ax, (ylabel, (values, low, high)) in zip(axes[:, 0], panels.items()):
        for i, name in enumerate(names):
            v = np.asarray(values[i], dtype=np.float64)
            err = np.vstack([np.nan_to_num(v - low[i]), np.nan_to_num(high[i] - v)]).clip(0)
            pos = x - 0.4 + width * (i + 0.5)
            bars = ax.bar(pos, np.nan_to_num(v), width, yerr=err, capsize=2,
                          label=name, error_kw={"elinewidth": 0.8, "ecolor": "#333333"},
                          **bar_style(i))
            ax.bar_label(bars, labels=["–" if np.isnan(u) else f"{100 * u:.0f}" for u in v],
                         fontsize=6, padding=1)
        ax.set_xticks(x)
        ax.set_xticklabels(ticks, fontsize=8)
        ax.set_ylim(0, 1.12)
        ax.set_ylabel(ylabel)
    axes[0, 0].set_title(title, pad=24)
    axes[-1, 0].set_xlabel("bucket (bar labels: percent; error bars: 95% bootstrap intervals)")
    axes[0, 0].legend(fontsize=8, ncol=min(6, max(1, len(names))), loc="lower center",
                      bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    return _save(fig, path)


def tags_by_difficulty(path, tags: Sequence[str], mean_d: Sequence[float], counts: Sequence[int],
                       hard_share: Sequence[float]) -> Path:
    """Tags by difficulty: one horizontal bar per gold tag, its mean
    difficulty, hardest at the top; each bar names its tag and the number of
    its words, with a dot at the share of its words with d ≥ 0.5."""
    plt = require_matplotlib()
    _style(plt)
    n = len(tags)
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.26 * n + 1.4)))
    y = np.arange(n)[::-1]
    ax.barh(y, mean_d, color=COLORS[0], height=0.7, label="mean difficulty d")
    ax.plot(hard_share, y, "o", color=COLORS[1], markersize=4, label="share with d ≥ 0.5")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{t} ({c:,})" for t, c in zip(tags, counts)], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean difficulty d of the tag's gold words; dot: their share with d ≥ 0.5")
    ax.set_ylabel("gold tag (its words in the test set)")
    ax.set_title("Which parts of speech are hard to tag?")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return _save(fig, path)
