"""The report's "Tags by difficulty" analysis of a run of tagged words
(``task: pos``, docs/method.md §14): how hard each part of speech is, the
hardest words of each tag, and each system's accuracy per tag.

A word's difficulty is the share of the members that tag it otherwise, so a
tag's mean difficulty is the committee's error rate on the words the gold
gives that tag (its recall, missing from 1), and its hardest words are those
the committee tags otherwise most often.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee import tasks as tasks_mod
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, marks_of
from committee.report.analyses.text import drop_recall
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Tags by difficulty"
FIGURE = "tags-by-difficulty.png"
#: Every tag's row, those of the figure, every word of every tag by mean d,
#: and each system's recall per tag.
ALL_CSV = "tags-all.csv"
BY_DIFFICULTY_CSV = "tags-by-difficulty.csv"
HARDEST_CSV = "tags-hardest.csv"
RECALL_CSV = "tags-recall.csv"

#: Tags with fewer gold words are left out of the figure and the accuracy table
#: (their mean difficulty rests on too few words); the CSV files keep them.
MIN_WORDS = 20
#: The accuracy table shows this many tags, the most frequent.
TOP_TAGS = 12
#: Words of a tag shown as its hardest (occurring at least twice).
HARDEST = 3


def section(ctx: Context) -> str | None:
    """Tags by difficulty (``report/tags-*.csv``, ``tags-by-difficulty.png``)."""
    import pandas as pd

    data, out_dir = ctx.data, ctx.out_dir
    tag = np.array([u[2] for sentence in data.units for u in sentence])
    rows = _tag_rows(data, tag, out_dir)
    shown = [r for r in rows if r["words"] >= MIN_WORDS]
    write_csv(out_dir / ALL_CSV, pd.DataFrame(rows))
    write_csv(out_dir / BY_DIFFICULTY_CSV, pd.DataFrame(shown, columns=list(rows[0])))
    shown_figure = ""
    if shown:
        figure(out_dir / FIGURE, [r["tag"] for r in shown], [r["mean_d"] for r in shown],
               [r["words"] for r in shown], [r["d_half_or_more"] for r in shown])
        ctx.figures.append(FIGURE)
        shown_figure = f"\n\n![Tags by difficulty]({layout.REPORT_DIR}/{FIGURE})"
    else:  # an earlier build's figure and accuracies would not match this table
        for name in (FIGURE, RECALL_CSV):
            (out_dir / name).unlink(missing_ok=True)
    recall_md = _recall_part(ctx, tag) if shown else ""
    if not recall_md:  # no system: an earlier build's accuracies would be drawn
        (out_dir / RECALL_CSV).unlink(missing_ok=True)
    few = len(rows) - len(shown)
    return (
        f"## {TITLE}\n\n"
        "The gold words of each tag: how many, their mean difficulty (the committee's share "
        "of wrong tags on them), the shares with d = 0, d ≥ 0.5 and d = 1, the share out of "
        "the training vocabulary (OOV), and the hardest words of the tag that occur twice or "
        "more (mean d over their occurrences; every word in "
        f"`{layout.REPORT_DIR}/{HARDEST_CSV}`). "
        f"Hardest tag first; data in `{layout.REPORT_DIR}/{ALL_CSV}`"
        + (f"; no tag has {MIN_WORDS} words or more, so there is no figure and no accuracy by "
           "tag" if not shown else
           f"; the {few} tags of fewer than {MIN_WORDS} words come last, and the figure "
           f"(`{layout.REPORT_DIR}/{BY_DIFFICULTY_CSV}`) leaves them out" if few else "")
        + ".\n\n"
        + markdown_table(["tag", "words", "mean d", "d = 0", "d ≥ 0.5", "d = 1", "OOV",
                          "hardest words (mean d)"],
                         [[r["tag"], f"{r['words']:,}", f"{r['mean_d']:.3f}", pct(r["d_0"], 1),
                           pct(r["d_half_or_more"], 1), pct(r["d_1"], 1), pct(r["oov"], 1),
                           r["hardest"] or "–"] for r in rows])
        + shown_figure + "\n" + recall_md)


def _tag_rows(data, tag: np.ndarray, out_dir) -> list[dict]:
    """One row per gold tag (its words, mean d, shares, OOV, hardest words),
    hardest first, tags of fewer than :data:`MIN_WORDS` words last; writes
    ``tags-hardest.csv`` (every word of every tag, by mean d)."""
    import pandas as pd

    d = data.d
    frame = pd.DataFrame({"word": np.array(data.unit_texts()), "tag": tag, "d": d})
    hardest = (frame.groupby(["tag", "word"], sort=False)["d"].agg(["count", "mean"])
               .reset_index().rename(columns={"count": "occurrences", "mean": "mean_d"}))
    hardest = hardest.sort_values(["tag", "mean_d", "occurrences", "word"],
                                  ascending=[True, False, False, True], kind="mergesort")
    write_csv(out_dir / HARDEST_CSV, hardest[["tag", "word", "occurrences", "mean_d"]])
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
    import pandas as pd

    if not ctx.ranked:
        return ""
    names = sorted((t for t in set(tag.tolist()) if (tag == t).sum() >= MIN_WORDS),
                   key=lambda t: (-int((tag == t).sum()), t))
    table = {"tag": names, "gold_words": [int((tag == t).sum()) for t in names]}
    for s in ctx.ranked:
        right = marks_of(ctx.data, s)
        table[f"{s.name} recall"] = [float(right[tag == t].mean()) for t in names]
    frame = pd.DataFrame(table)
    write_csv(ctx.out_dir / RECALL_CSV, frame)
    top = frame.head(TOP_TAGS)
    body = [[r["tag"], f"{r['gold_words']:,}", *(pct(r[f"{s.name} recall"], 1)
                                                for s in ctx.ranked)]
            for _, r in top.iterrows()]
    return ("\n### Accuracy by tag\n\n"
            f"Recall of the gold words of the {len(top)} most frequent tags (%): the share each "
            f"system gets right, span and tag ({_how_scored(ctx)}). Every tag of {MIN_WORDS} "
            "words or more in "
            f"`{layout.REPORT_DIR}/{RECALL_CSV}`.\n\n"
            + markdown_table(["tag", "gold words", *(s.name for s in ctx.ranked)], body) + "\n")


def _how_scored(ctx) -> str:
    """How the systems' recall by tag reads: a tag accuracy for those that
    keep the gold segmentation, joint for those with their own (named)."""
    gold = ctx.data.test.words
    own = [s.name for s in ctx.ranked if [list(w) for w in s.words] != [list(w) for w in gold]]
    on_gold = "on the gold segmentation, a system's accuracy on the tag's words"
    if not own:
        return on_gold
    joint = "scored jointly with its own segmentation"
    if len(own) == len(ctx.ranked):
        return f"each system {joint}"
    return f"{on_gold}; {', '.join(own)} {joint}"


def figure(path, tags: Sequence[str], mean_d: Sequence[float], counts: Sequence[int],
           hard_share: Sequence[float]) -> Path:
    """Tags by difficulty: one horizontal bar per gold tag, its mean
    difficulty, hardest at the top; each bar names its tag and the number of
    its words, with a dot at the share of its words with d ≥ 0.5."""
    plt = plots.require_matplotlib()
    plots.style(plt)
    n = len(tags)
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.26 * n + 1.4)))
    y = np.arange(n)[::-1]
    ax.barh(y, mean_d, color=plots.COLORS[0], height=0.7, label="mean difficulty d")
    ax.plot(hard_share, y, "o", color=plots.COLORS[1], markersize=4, label="share with d ≥ 0.5")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{t} ({c:,})" for t, c in zip(tags, counts)], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean difficulty d of the tag's gold words; dot: their share with d ≥ 0.5")
    ax.set_ylabel("gold tag (its words in the test set)")
    ax.set_title("Which parts of speech are hard to tag?")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "tags", section, TITLE,
    "parts of speech of a task: pos run: mean difficulty per tag, the hardest words of "
    "each tag, each system's accuracy per tag",
    (), (f"{layout.REPORT_DIR}/tags-*",),
    (Chart(f"{layout.REPORT_DIR}/{BY_DIFFICULTY_CSV}", TITLE, "bar", "tag",
           ("mean_d",), text="Mean difficulty of the gold words of each tag (tags of 20 "
           "words or more), hardest first.", x_title="gold tag",
           y_title="mean difficulty d of its words", names={"mean_d": "mean d"}),
     Chart(f"{layout.REPORT_DIR}/{RECALL_CSV}", "Accuracy by tag", "bar", "tag",
           lambda columns: [c for c in columns if c.endswith(" recall")],
           text="Share of the gold words of each tag that each system gets right (span "
                "and tag), tags of 20 words or more, the most frequent first.",
           needs="a system to score", x_title="gold tag",
           y_title="recall of the tag's gold words", names=drop_recall)),
    units=(tasks_mod.TAGS,))
