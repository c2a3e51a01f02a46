"""Entities by type, of a run of entities (``task: ner``, docs/method.md
§13): how the difficulties of each type's gold entities spread, and the
hardest entities (``report/entities-*``)."""

from __future__ import annotations

import numpy as np

from committee import tasks as tasks_mod
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Entities by type"
FIGURE = "entities-by-type.png"
#: Each type's share per difficulty bin, each type's figures, every entity by mean d.
BY_TYPE_CSV = "entities-by-type.csv"
TYPES_CSV = "entities-types.csv"
HARDEST_CSV = "entities-hardest.csv"


def section(ctx: Context) -> str | None:
    """Entities by type: how their difficulties spread, and the hardest ones."""
    import pandas as pd

    data, out_dir = ctx.data, ctx.out_dir
    kinds = np.array([u[2] for sent in data.units for u in sent])
    texts = np.array(data.unit_texts())
    bins_of = np.minimum(np.floor(data.d * 10 + 1e-9), 9).astype(int)
    shares, rows = {}, []
    for kind in sorted(set(kinds.tolist())):
        mask = kinds == kind
        counts = np.bincount(bins_of[mask], minlength=10)
        shares[kind] = {"n": counts, "share": counts / counts.sum()}
        d = data.d[mask]
        rows.append({"type": kind, "entities": int(mask.sum()), "mean_d": float(d.mean()),
                     "d_0": float((d == 0).mean()), "d_half_or_more": float((d >= 0.5).mean()),
                     "d_1": float((d == 1).mean()),
                     "oov": float(data.oov[mask].mean()) if data.oov is not None else None})
    plots.bin_shares(out_dir / FIGURE, difficulty_stats.BIN_LABELS, shares,
                     title="Where persons, places and organisations fall on the difficulty scale",
                     ylabel="share of the type's gold entities")
    ctx.figures.append(FIGURE)
    table = {"bin": list(difficulty_stats.BIN_LABELS)}
    table.update({f"{k} share": v["share"] for k, v in shares.items()})
    write_csv(out_dir / BY_TYPE_CSV, pd.DataFrame(table))
    write_csv(out_dir / TYPES_CSV, pd.DataFrame(rows))
    frame = pd.DataFrame({"entity": texts, "type": kinds, "d": data.d})
    hardest = (frame.groupby(["entity", "type"], sort=False)["d"].agg(["count", "mean"])
               .reset_index().rename(columns={"count": "occurrences", "mean": "mean_d"}))
    hardest = hardest.sort_values(["mean_d", "occurrences", "entity"],
                                  ascending=[False, False, True], kind="mergesort")
    write_csv(out_dir / HARDEST_CSV, hardest)
    top = hardest[hardest["occurrences"] >= 2].head(15)
    return (
        f"## {TITLE}\n\n"
        "Gold entities of each type: how many, their mean difficulty, the shares with d = 0, "
        "d ≥ 0.5 and d = 1, and the share unseen as training entities (OOV).\n\n"
        + markdown_table(["type", "entities", "mean d", "d = 0", "d ≥ 0.5", "d = 1", "OOV"],
                         [[r["type"], f"{r['entities']:,}", f"{r['mean_d']:.3f}",
                           pct(r["d_0"], 1), pct(r["d_half_or_more"], 1), pct(r["d_1"], 1),
                           pct(r["oov"], 1)] for r in rows])
        + "\n\nThe hardest entities that occur twice or more in the test set (mean d over "
        f"their occurrences; all of them in `{layout.REPORT_DIR}/{HARDEST_CSV}`):\n\n"
        + markdown_table(["entity", "type", "occurrences", "mean d"],
                         [[r.entity, r.type, str(r.occurrences), f"{r.mean_d:.3f}"]
                          for r in top.itertuples()])
        + f"\n\n![Entities by type]({layout.REPORT_DIR}/{FIGURE})\n")


ANALYSIS = Analysis(
    "entities", section, TITLE,
    "entities of a task: ner run: difficulty by type, the hardest entities",
    (), (f"{layout.REPORT_DIR}/entities-*",),
    (Chart(f"{layout.REPORT_DIR}/{BY_TYPE_CSV}", TITLE, "bar", "bin",
           lambda columns: [c for c in columns if c.endswith(" share")],
           text="Share of each type's gold entities in each difficulty bin.",
           x_title="difficulty bin", y_title="share of the type's gold entities"),),
    units=(tasks_mod.ENTITIES,))
