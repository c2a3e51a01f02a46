"""Confusion matrices of a run of labelled units (entities, ``task: ner``;
tagged words, ``task: pos``): for each ranked system (the Table 2 models,
then the others), gold label × predicted label as
:mod:`committee.metrics.confusion` counts them (docs/metrics.md, Confusion
matrices): entities paired by overlap, with a ``spurious`` row and a
``missed`` column; tags on the words segmented as the gold.

``report/confusion.csv`` holds every system's matrix (a ``system`` column,
the gold label in ``gold``, one column per predicted label);
``report.html`` draws it as a labelled heat map, one system at a time.
``confusion.png`` is the heat map of the system ranked first by f1.
"""

from __future__ import annotations

from committee import tasks as tasks_mod
from committee.pipeline import layout
from committee.report.analyses.base import Analysis, Chart, Context

TITLE = "Confusion matrices"
CSV = "confusion.csv"
FIGURE = "confusion.png"
#: The heat map of report.md shows at most this many labels (the most frequent).
FIGURE_LABELS = 20


def matrix(data, system):
    """The :class:`~committee.metrics.confusion.Confusion` of ``system``
    against the run ``data``'s gold units."""
    from committee.metrics.confusion import entity_confusion, tag_confusion
    from committee.tasks import match

    task = tasks_mod.get(data.task)
    lengths = [sum(map(len, ws)) for ws in data.test.words]
    pred = task.as_corpus(system.name, system.words, data.test.lines, system.tags)
    g, p, _, _ = match(task, lengths, data.units, task.gold(pred))
    return entity_confusion(g, p) if task.tagged else tag_confusion(g, p)


def section(ctx: Context) -> str | None:
    """Confusion matrices (``report/confusion.csv``, ``confusion.png``)."""
    import pandas as pd

    from committee.metrics.confusion import MISSED
    from committee.report.output import markdown_table, write_csv

    systems = ctx.ranked
    if not systems:
        ctx.notes.append(f"{TITLE}: no system to compare with the gold")
        return None
    frames, matrices = [], {}
    for s in systems:
        c = matrices[s.name] = matrix(ctx.data, s)
        frame = pd.DataFrame(c.cells, columns=list(c.columns))
        frame.insert(0, "gold", list(c.rows))
        frame.insert(0, "system", s.name)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)  # a label no system predicts: 0, not NaN
    labels = [x for x in table.columns if x not in ("system", "gold")]
    last = [x for x in labels if x == MISSED]
    table = table[["system", "gold", *sorted(set(labels) - set(last)), *last]]
    write_csv(ctx.out_dir / CSV, table.fillna(0).astype({x: "int64" for x in labels}))
    best = next((s.name for s in systems if s.name in _first(ctx)), systems[0].name)
    c = matrices[best]
    figure(ctx.out_dir / FIGURE, c, f"{best}: gold (down) against predicted (across)")
    ctx.figures.append(FIGURE)
    rows, cols = c.shown()
    what = ("entities paired by overlap (the partial scheme's pairs), with the predicted "
            "entities paired with none (spurious) and the gold entities paired with none "
            "(missed)" if c.kind == "entities" else
            "the gold words each system segments as the gold does")
    shown = markdown_table(["gold \\ predicted", *(c.columns[j] for j in cols)],
                           [[c.rows[i], *(f"{c.cells[i, j]:,}" for j in cols)] for i in rows])
    return (f"## {TITLE}\n\nGold label × predicted label of {what}; every system's matrix is "
            f"in `{layout.REPORT_DIR}/{CSV}`. {best}, ranked first by f1:\n\n{shown}\n\n"
            f"![{TITLE}]({layout.REPORT_DIR}/{FIGURE})\n")


def _first(ctx: Context) -> set[str]:
    """The names of the systems ranked first by f1."""
    return {s.name for s, r in zip(ctx.ranked, ctx.f1_rank) if r == 1}


def figure(path, c, title: str) -> None:
    """A labelled heat map of confusion ``c`` (its most frequent labels)."""
    import numpy as np

    from committee.report import plots

    plt = plots.require_matplotlib()
    plots.style(plt)
    rows, cols = c.shown()
    if len(rows) > FIGURE_LABELS:  # the labels of the most units, in their order
        k = len(c.rows) - (c.kind == "entities")
        size = c.cells.sum(axis=1)[:k] + c.cells.sum(axis=0)[:k]
        keep = sorted(sorted(range(k), key=lambda i: -size[i])[:FIGURE_LABELS])
        rows = cols = keep + ([k] if c.kind == "entities" else [])
    cells = c.cells[np.ix_(rows, cols)]
    fig, ax = plt.subplots(figsize=(1.2 + 0.45 * len(cols), 1.0 + 0.4 * len(rows)))
    ax.imshow(cells, cmap="Blues", aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(len(cols)), [c.columns[j] for j in cols], rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), [c.rows[i] for i in rows])
    top = cells.max() if cells.size else 0
    for (i, j), v in np.ndenumerate(cells):
        ax.text(j, i, f"{v:,}", ha="center", va="center", fontsize=7,
                color="white" if top and v > top / 2 else "black")
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(title)
    plots.save(fig, path)


ANALYSIS = Analysis(
    "confusion", section, TITLE,
    "labels of a task: ner or pos run: each system's confusion matrix (gold x predicted)",
    (), (f"{layout.REPORT_DIR}/{CSV}", f"{layout.REPORT_DIR}/{FIGURE}"),
    (Chart(f"{layout.REPORT_DIR}/{CSV}", TITLE, "heatmap", "gold",
           lambda columns: [c for c in columns if c not in ("system", "gold")],
           text="Gold label (down) against predicted label (across), one system at a time "
                "(the menu): entities paired by overlap, with spurious and missed; tags on "
                "the words segmented as the gold.",
           x_title="gold", y_title="predicted", group="system"),),
    units=(tasks_mod.ENTITIES, tasks_mod.TAGS))
