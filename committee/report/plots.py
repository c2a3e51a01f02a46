"""Figures of the run report, drawn with matplotlib (Agg backend, PNG files).

What the figures share: the style, fonts with CJK glyphs, colours, markers
and hatches, bins on the x axis, labels placed beside points, the atomic
write of a PNG, and the figure of shares per difficulty bin that two
analyses draw.  Each analysis of :mod:`committee.report.analyses` draws its
own figure from the numbers it computed (never from a corpus or a file)
with these.  Matplotlib is an optional dependency (``pip install
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
    "BALANCED",
    "COLORS",
    "HATCHES",
    "KIND_LABELS",
    "KIND_STYLE",
    "MARKERS",
    "NO_CJK_FONT",
    "PlotError",
    "bar_style",
    "bin_shares",
    "bin_ticks",
    "cjk_font",
    "label_points",
    "require_matplotlib",
    "save",
    "style",
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
#: Markers of line series, in turn.
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
#: Metrics drawn dashed beside the plain ones they balance.
BALANCED = ("pb", "rb", "fb")
#: Colour and marker of each kind of model (scatter charts).
KIND_STYLE = {"table2": ("#0072B2", "o"), "member": ("#999999", "."),
               "system": ("#D55E00", "s")}
#: Legend names of each kind of model (scatter charts).
KIND_LABELS = {"member": "committee members", "table2": "Table 2 models",
               "system": "other systems"}


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


def style(plt) -> str | None:
    """Set the figures' style (and a CJK font when there is one); the font's family."""
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


def save(fig, path) -> Path:
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


def bin_ticks(ax, labels: Sequence[str]) -> None:
    """Name the bins on the x axis, slanted."""
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right")


def bar_style(i: int) -> dict:
    """Colour and hatch of the ``i``-th bar series: :data:`COLORS` in turn,
    then again with each of :data:`HATCHES`.

    >>> bar_style(0), bar_style(len(COLORS))["hatch"]
    ({'color': '#0072B2', 'hatch': None}, '/')
    """
    turn = i // len(COLORS)
    return {"color": COLORS[i % len(COLORS)],
            "hatch": HATCHES[(turn - 1) % len(HATCHES)] if turn else None}


#: Directions (degrees) a point's label is tried in, in turn: beside the
#: point on the right first, then left, then above and below.
_LABEL_ANGLES = (30, 0, -30, 150, 180, 210, 90, 270)


class _Places:
    """The pixel boxes of an axes already taken (points, legends, labels
    placed so far) and the search for a free place for a label."""

    def __init__(self, frame, taken: list):
        self.frame = frame
        self.taken = taken

    def free(self, box, in_frame: bool) -> bool:
        """Whether ``box`` covers nothing taken (and, ``in_frame``, lies inside the axes)."""
        frame = self.frame
        if in_frame and (box[0] < frame[0] or box[1] < frame[1] or box[2] > frame[2]
                         or box[3] > frame[3]):
            return False
        return not any(box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3]
                       for t in self.taken)

    def find(self, x: float, y: float, w: float, h: float) -> tuple:
        """``(cx, cy, ring, box)``: the centre of the nearest free place of a
        ``w`` × ``h`` label of the point ``(x, y)``, the ring it lies on
        (0: beside the point) and its box; the box is then taken."""
        spot = None
        for in_frame in (True, False):
            for ring in range(40):
                spot = self._on_ring(x, y, w, h, ring, in_frame)
                if spot:
                    break
            if spot:
                break
        if spot is None:  # nowhere free within reach: beside the point
            spot = (x + 3 + w / 2, y + 3 + h / 2, 0,
                    np.array([x + 3, y + 3, x + 3 + w, y + 3 + h]))
        self.taken.append(spot[3])
        return spot

    def _on_ring(self, x, y, w, h, ring: int, in_frame: bool) -> tuple | None:
        """The first free place at ``ring`` distances from the point, in the
        directions of :data:`_LABEL_ANGLES`; None if there is none."""
        gap = 3 + ring * 0.9 * h
        for angle in _LABEL_ANGLES:
            c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
            cx = x + c * (gap + w / 2) if abs(c) > 1e-9 else x
            cy = y + s * (gap + h / 2) if abs(s) > 1e-9 else y
            box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
            if self.free(box, in_frame):
                return (cx, cy, ring, box)
        return None


def label_points(fig, ax, xs, ys, names, fontsize: float = 8, avoid=(),
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
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    px = 72.0 / fig.dpi  # points per pixel

    def pixels(u, v):
        xy = np.column_stack([np.asarray(u, dtype=float), np.asarray(v, dtype=float)])
        return ax.transData.transform(xy).reshape(-1, 2)

    pts = pixels(xs, ys)
    mark = 4.0 / px  # half a marker, in pixels
    taken = [np.array([x - mark, y - mark, x + mark, y + mark])
             for x, y in np.vstack([pts, pixels(*others)]) if np.isfinite([x, y]).all()]
    taken += [a.get_window_extent(renderer).extents for a in avoid]
    places = _Places(ax.get_window_extent(renderer).extents, taken)
    to_data = ax.transData.inverted().transform
    out = []
    for (x, y), name, xd, yd in zip(pts, names, xs, ys):
        if not np.isfinite([x, y]).all():  # no point, no label
            continue
        probe = ax.text(0, 0, name, fontsize=fontsize)
        w, h = probe.get_window_extent(renderer).size
        probe.remove()
        cx, cy, ring, _ = places.find(x, y, w + 2, h + 1)  # a pixel of air around each label
        if ring:  # the leader, from the point to under the label
            lx, ly = to_data((cx, cy))
            ax.plot([xd, lx], [yd, ly], color="#999999", lw=0.5, zorder=2.5)
        out.append(ax.annotate(name, (xd, yd), xytext=((cx - x) * px, (cy - y) * px),
                               textcoords="offset points", ha="center", va="center",
                               fontsize=fontsize, zorder=4,
                               bbox={"boxstyle": "square,pad=0.05", "fc": "white",
                                     "ec": "none", "alpha": 0.85}))
    return out


def bin_shares(path, labels: Sequence[str], shares: dict[str, dict], title: str,
               ylabel: str) -> Path:
    """The share of each group's units in each difficulty bin (grouped bars):
    Fig. 2's word groups, the entities of each type.  ``shares`` maps a
    group's name to its ``n`` (units per bin) and ``share``."""
    plt = require_matplotlib()
    style(plt)
    fig, ax = plt.subplots(figsize=(9, 4))
    names = list(shares)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(labels))
    for i, name in enumerate(names):
        s = shares[name]
        total = int(np.sum(s["n"]))
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(s["share"]), width,
               color=COLORS[i % len(COLORS)], label=f"{name} (n = {total:,})")
    bin_ticks(ax, labels)
    ax.set_xlabel("difficulty bin")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, path)
