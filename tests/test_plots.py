"""The report's figures (committee.report.plots) as drawn: where their labels land,
measured with matplotlib's renderer on the figure about to be saved."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="matplotlib is not installed (the report extra)")

from committee.report import plots
from committee.report.analyses import split_half


@pytest.fixture()
def drawn(monkeypatch):
    """The figures saved while the fixture is in use, each as its axes' labels
    (text and pixel box of the text, without a leader line) and legends'
    boxes, measured just before saving."""
    from matplotlib.text import Text

    kept = []
    save = plots.save

    def measuring(fig, path):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        kept.append([{"labels": [(t.get_text(), Text.get_window_extent(t, renderer))
                                 for t in ax.texts],
                      "legend": (ax.get_legend().get_window_extent(renderer)
                                 if ax.get_legend() else None),
                      "points": np.vstack([ax.transData.transform(c.get_offsets())
                                           for c in ax.collections] or [np.empty((0, 2))])}
                     for ax in fig.axes])
        return save(fig, path)

    monkeypatch.setattr(plots, "save", measuring)
    return kept


def _overlapping(boxes):
    return [(a, b) for i, (a, p) in enumerate(boxes) for b, q in boxes[i + 1:]
            if p.x0 < q.x1 and q.x0 < p.x1 and p.y0 < q.y1 and q.y0 < p.y1]


def test_split_half_labels_of_crowded_points_do_not_overlap(drawn, tmp_path):
    """Fig. 6a: ten systems and four Table 2 models within a point of each
    other (two at one place), among twelve committee members: every model
    named once, no two names over each other, over the legend or over a
    point's centre."""
    rng = np.random.default_rng(0)
    names = ["jieba", "rjieba", "lac", "jiojio", "thulac", "pkuseg", "snownlp", "hanlp",
             "ltp", "stanza", "F2 20%", "F2 50%", "F2 80%", "F2 100%"]
    n_members = 12
    a = np.concatenate([0.66 + 0.01 * rng.random(len(names)),
                        np.linspace(0.36, 0.54, n_members)])
    b = a + 0.004 * rng.standard_normal(len(a))
    a[1], b[1] = a[0], b[0]  # jieba and rjieba score alike
    kinds = ["system"] * 10 + ["table2"] * 4 + ["member"] * n_members
    all_names = names + [f"member {i}" for i in range(n_members)]
    split_half.figure(tmp_path / "fig6.png", a, b, kinds, np.array([0.99, 0.98, 0.995]),
                     names=all_names)
    assert (tmp_path / "fig6.png").is_file()
    scatter = drawn[0][0]
    labels = scatter["labels"]
    assert sorted(t for t, _ in labels) == sorted(names)  # members are left unnamed
    assert _overlapping(labels) == []
    legend = scatter["legend"]
    assert [t for t, box in labels if box.overlaps(legend)] == []
    points = scatter["points"]
    assert len(points) == len(kinds)
    assert [t for t, box in labels if any(box.contains(x, y) for x, y in points)] == []


def test_overlap_check_sees_labels_over_each_other():
    """The test's own measure: two boxes that share pixels overlap, two side
    by side do not."""
    from matplotlib.transforms import Bbox

    boxes = [("a", Bbox.from_extents(0, 0, 10, 5)), ("b", Bbox.from_extents(8, 2, 20, 7)),
             ("c", Bbox.from_extents(20, 0, 30, 5))]
    assert _overlapping(boxes) == [("a", "b")]
