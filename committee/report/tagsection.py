"""The report's "Tags by difficulty" analysis of a run of tagged words
(``task: pos``, docs/method.md §14): how hard each part of speech is, the
hardest words of each tag, and each system's accuracy per tag.

A word's difficulty is the share of the members that tag it otherwise, so a
tag's mean difficulty is the committee's error rate on the words the gold
gives that tag (its recall, missing from 1), and its hardest words are those
the committee tags otherwise most often.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from committee.report import plots
from committee.report.analyses import by_name
from committee.report.output import markdown_table, pct, write_csv
from committee.report.systems import marks_of

if TYPE_CHECKING:  # sections imports this module to fill its registry
    from committee.report.sections import Context

#: Tags with fewer gold words are left out of the figure and the accuracy table
#: (their mean difficulty rests on too few words); the CSV files keep them.
MIN_WORDS = 20
#: The accuracy table shows this many tags, the most frequent.
TOP_TAGS = 12
#: Words of a tag shown as its hardest (occurring at least twice).
HARDEST = 3


def tags(ctx: Context) -> str | None:
    """Tags by difficulty (``report/tags-*.csv``, ``tags-by-difficulty.png``)."""
    data, out_dir = ctx.data, ctx.out_dir
    tag = np.array([u[2] for sentence in data.units for u in sentence])
    rows = _tag_rows(data, tag, out_dir)
    shown = [r for r in rows if r["words"] >= MIN_WORDS]
    write_csv(out_dir / "tags-all.csv", pd.DataFrame(rows))
    write_csv(out_dir / "tags-by-difficulty.csv", pd.DataFrame(shown, columns=list(rows[0])))
    figure = ""
    if shown:
        plots.tags_by_difficulty(out_dir / "tags-by-difficulty.png", [r["tag"] for r in shown],
                                 [r["mean_d"] for r in shown], [r["words"] for r in shown],
                                 [r["d_half_or_more"] for r in shown])
        ctx.figures.append("tags-by-difficulty.png")
        figure = "\n\n![Tags by difficulty](report/tags-by-difficulty.png)"
    else:  # an earlier build's figure and accuracies would not match this table
        for name in ("tags-by-difficulty.png", "tags-recall.csv"):
            (out_dir / name).unlink(missing_ok=True)
    recall_md = _recall_part(ctx, tag) if shown else ""
    if not recall_md:  # no system: an earlier build's accuracies would be drawn
        (out_dir / "tags-recall.csv").unlink(missing_ok=True)
    few = len(rows) - len(shown)
    return (
        f"## {by_name('tags').title}\n\n"
        "The gold words of each tag: how many, their mean difficulty (the committee's share "
        "of wrong tags on them), the shares with d = 0, d ≥ 0.5 and d = 1, the share out of "
        "the training vocabulary (OOV), and the hardest words of the tag that occur twice or "
        "more (mean d over their occurrences; every word in `report/tags-hardest.csv`). "
        f"Hardest tag first; data in `report/tags-all.csv`"
        + (f"; no tag has {MIN_WORDS} words or more, so there is no figure and no accuracy by "
           "tag" if not shown else
           f"; the {few} tags of fewer than {MIN_WORDS} words come last, and the figure "
           "(`report/tags-by-difficulty.csv`) leaves them out" if few else "") + ".\n\n"
        + markdown_table(["tag", "words", "mean d", "d = 0", "d ≥ 0.5", "d = 1", "OOV",
                          "hardest words (mean d)"],
                         [[r["tag"], f"{r['words']:,}", f"{r['mean_d']:.3f}", pct(r["d_0"], 1),
                           pct(r["d_half_or_more"], 1), pct(r["d_1"], 1), pct(r["oov"], 1),
                           r["hardest"] or "–"] for r in rows])
        + figure + "\n" + recall_md)


def _tag_rows(data, tag: np.ndarray, out_dir) -> list[dict]:
    """One row per gold tag (its words, mean d, shares, OOV, hardest words),
    hardest first, tags of fewer than :data:`MIN_WORDS` words last; writes
    ``tags-hardest.csv`` (every word of every tag, by mean d)."""
    d = data.d
    frame = pd.DataFrame({"word": np.array(data.unit_texts()), "tag": tag, "d": d})
    hardest = (frame.groupby(["tag", "word"], sort=False)["d"].agg(["count", "mean"])
               .reset_index().rename(columns={"count": "occurrences", "mean": "mean_d"}))
    hardest = hardest.sort_values(["tag", "mean_d", "occurrences", "word"],
                                  ascending=[True, False, False, True], kind="mergesort")
    write_csv(out_dir / "tags-hardest.csv", hardest[["tag", "word", "occurrences", "mean_d"]])
    twice = hardest[hardest["occurrences"] >= 2]
    rows = []
    for t in sorted(set(tag.tolist())):
        mask = tag == t
        dt = d[mask]
        top = twice[twice["tag"] == t].head(HARDEST)
        rows.append({"tag": t, "words": int(mask.sum()), "mean_d": float(dt.mean()),
                     "d_0": float((dt == 0).mean()), "d_half_or_more": float((dt >= 0.5).mean()),
                     "d_1": float((dt == 1).mean()),
                     "oov": float(data.oov[mask].mean()) if data.oov is not None else None,
                     "hardest": "; ".join(f"{r.word} {r.mean_d:.2f}" for r in top.itertuples())})
    # tags of too few words for a mean to say much come last
    rows.sort(key=lambda r: (r["words"] < MIN_WORDS, -r["mean_d"], -r["words"], r["tag"]))
    return rows


def _recall_part(ctx: Context, tag: np.ndarray) -> str:
    """Each ranked system's recall of the gold words of each tag of
    :data:`MIN_WORDS` words or more (``report/tags-recall.csv``), the
    :data:`TOP_TAGS` most frequent in ``report.md``."""
    if not ctx.ranked:
        return ""
    names = sorted((t for t in set(tag.tolist()) if (tag == t).sum() >= MIN_WORDS),
                   key=lambda t: (-int((tag == t).sum()), t))
    table = {"tag": names, "gold_words": [int((tag == t).sum()) for t in names]}
    for s in ctx.ranked:
        right = marks_of(ctx.data, s)
        table[f"{s.name} recall"] = [float(right[tag == t].mean()) for t in names]
    frame = pd.DataFrame(table)
    write_csv(ctx.out_dir / "tags-recall.csv", frame)
    top = frame.head(TOP_TAGS)
    body = [[r["tag"], f"{r['gold_words']:,}", *(pct(r[f"{s.name} recall"], 1)
                                                for s in ctx.ranked)]
            for _, r in top.iterrows()]
    return ("\n### Accuracy by tag\n\n"
            f"Recall of the gold words of the {len(top)} most frequent tags (%): the share each "
            "system gets right, span and tag (on the gold segmentation, its accuracy on the "
            f"tag's words). Every tag of {MIN_WORDS} words or more in "
            "`report/tags-recall.csv`.\n\n"
            + markdown_table(["tag", "gold words", *(s.name for s in ctx.ranked)], body) + "\n")
