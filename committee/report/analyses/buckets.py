"""Results by word attribute: recall and rb of every system by word length,
OOV, sentence length and difficulty, with bootstrap intervals
(:mod:`committee.metrics.buckets`, docs/metrics.md; ``report/buckets-*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee import corpus as corpus_mod
from committee import tasks as tasks_mod
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, NonNegative, Setting
from committee.report.analyses.text import drop_recall
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Results by word attribute"
#: Each attribute's figure and data are ``buckets-<attribute>.png`` and ``.csv``.
PREFIX = "buckets-"

#: The word attributes of the analysis, with their chart titles: those a run
#: directory allows (it keeps the training vocabulary, not the training
#: corpus that frequency and consistency need).
BUCKET_ATTRIBUTES = {"length": "word length", "oov": "OOV / IV",
                     "sentence": "sentence length", "difficulty": "difficulty"}


def section(ctx: Context) -> str | None:
    """Results by word attribute: recall and rb of every system per bucket
    (:mod:`committee.metrics.buckets`), with percentile intervals from
    ``buckets_bootstrap`` resamples of the test sentences."""
    import pandas as pd

    if not ctx.ranked:
        return None
    frames = _frames(ctx)
    parts = [f"## {TITLE}\n\n"
             "Recall of each system's gold words per bucket (%; 95% bootstrap interval in "
             "the figures), buckets as defined in docs/metrics.md (Results by word "
             "attribute).\n"]
    for key, frame in frames.items():
        title = BUCKET_ATTRIBUTES[key]
        labels = list(dict.fromkeys(frame["bucket"]))
        counts = frame.groupby("bucket", sort=False)["gold_words"].first().tolist()
        names = list(dict.fromkeys(frame["system"]))
        wide = pd.DataFrame({"bucket": labels, "gold_words": counts})
        panels = {}
        for metric, axis in (("recall", "recall of the bucket's gold words"),
                             ("rb", "balanced recall rb")):
            table = {end: frame.pivot(index="system", columns="bucket",
                                      values=f"{metric}{end}").loc[names, labels].to_numpy()
                     for end in ("", "_low", "_high")}
            panels[axis] = (table[""], table["_low"], table["_high"])
            for name, i in zip(names, range(len(names))):
                for end, label in (("", ""), ("_low", " low"), ("_high", " high")):
                    wide[f"{name} {metric}{label}"] = table[end][i]
        png = f"{PREFIX}{key}.png"
        figure(ctx.out_dir / png, f"Results by {title}", labels, counts, names, panels)
        ctx.figures.append(png)
        write_csv(ctx.out_dir / f"{PREFIX}{key}.csv", wide)
        rec = panels["recall of the bucket's gold words"][0]
        body = [[n, *(pct(v, 1) for v in r)] for n, r in zip(names, rec)]
        parts.append(f"\n### By {title}\n\n"
                     + markdown_table(["system", *labels],
                                      [["gold words", *(f"{c:,}" for c in counts)]] + body)
                     + f"\n\n![Results by {title}]({layout.REPORT_DIR}/{png})\n")
    return "".join(parts)


def _frames(ctx: Context) -> dict:
    """``{attribute: rows of every ranked system}`` for the attributes of
    :data:`BUCKET_ATTRIBUTES` the run allows (``oov``
    with its training vocabulary)."""
    import pandas as pd

    from committee.metrics import significance
    from committee.metrics.buckets import Bucketer, bucket_rows
    from committee.tasks.spans import match, spans

    data, n = ctx.data, ctx.cfg.experiments.buckets_bootstrap
    vocabulary = None
    if data.oov is not None:
        vocabulary = corpus_mod.read_word_list(layout.paths(data.run_dir).train_words)
    attrs = [k for k in BUCKET_ATTRIBUTES if k != "oov" or vocabulary is not None]
    bucketer = Bucketer(data.test.words, attrs, difficulty=data.d, vocabulary=vocabulary)
    gold = spans(data.test.words)
    rows = []
    for system in ctx.ranked:
        pred = spans(system.words)
        counts = bucketer.collect(system.words, pred.ends, match(gold, pred)[0])
        ci = (significance.bucket_bootstrap(counts, n=n, seed=ctx.cfg.experiments.seed)
              if n else None)
        rows += [{"system": system.name, **row} for row in bucket_rows(counts, ci)]
    frame = pd.DataFrame(rows)
    for metric in ("recall", "rb"):
        for end in ("_low", "_high"):
            if f"{metric}{end}" not in frame:
                frame[f"{metric}{end}"] = np.nan
    return {key: frame[frame["attr"] == key] for key in attrs}


def figure(path, title: str, labels: Sequence[str], counts: Sequence[int],
            names: Sequence[str], panels: dict[str, tuple]) -> Path:
    """Results by one word attribute: for each panel (``{y-axis label:
    (values, low, high)}``, arrays of shape (systems, buckets)), grouped bars
    of every system per bucket, each labelled with its value, intervals as
    error bars; the x axis names each bucket with its gold words."""
    plt = plots.require_matplotlib()
    plots.style(plt)
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
                          **plots.bar_style(i))
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
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "buckets", section, TITLE,
    "recall and rb of each system by word length, OOV, sentence length and difficulty, "
    "with bootstrap intervals (docs/metrics.md)",
    (Setting("buckets_bootstrap", NonNegative, 200,
             "bootstrap resamples of the test sentences for the intervals; 0: none"),),
    (f"{layout.REPORT_DIR}/{PREFIX}*",),
    tuple(Chart(f"{layout.REPORT_DIR}/{PREFIX}{key}.csv", f"Results by {title}", "bar", "bucket",
                lambda columns: [c for c in columns if c.endswith(" recall")],
                text=f"Recall of each system's gold words by {title}.",
                needs="the training vocabulary" if key == "oov" else None,
                x_title=title, y_title="recall of the bucket's gold words",
                names=drop_recall)
          for key, title in BUCKET_ATTRIBUTES.items()),
    units=(tasks_mod.WORDS,))
