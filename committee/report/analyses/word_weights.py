"""Fig. 7 of the paper: word weights.  The words of a few test sentences
(chosen, or the hardest) each with its difficulty (``report/fig7-*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from committee import tasks as tasks_mod
from committee.errors import ConfigError
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, NonNegative, Setting
from committee.report.output import write_csv

TITLE = "Fig. 7: word weights"
FIGURE = "fig7-word-weights.png"
DATA_CSV = "fig7-word-weights.csv"


def check(e, data) -> str | None:
    """What of ``experiments.word_weight_sentences`` the run ``data`` cannot satisfy."""
    return _sentences_problem(e, len(data.test.words))


def _sentences_problem(e, S: int) -> str | None:
    bad = [i for i in e.word_weight_sentences if i >= S]
    return (f"experiments.word_weight_sentences: {bad} do not exist (the test set has {S} "
            "sentences, 0-based)") if bad else None


def section(ctx: Context) -> str | None:
    """Fig. 7: the words of a few sentences with their difficulties."""
    import pandas as pd

    e = ctx.cfg.experiments
    data = ctx.data
    test = ctx.data.test
    out_dir = ctx.out_dir
    S = len(test.words)
    chosen = list(e.word_weight_sentences)
    problem = _sentences_problem(e, S)
    if problem:
        raise ConfigError("experiments", [problem])
    sentence_of = np.repeat(np.arange(S), [len(s) for s in test.words])
    how = "the sentences chosen in `experiments.word_weight_sentences`"
    if not chosen:
        chosen = difficulty_stats.hardest_sentences(data.d, sentence_of, 3).tolist()
        how = ("the 3 sentences with the highest mean word difficulty among those of "
               "6–24 words")
    starts = np.concatenate(([0], np.cumsum([len(s) for s in test.words])))
    ws = [test.words[i] for i in chosen]
    ds = [data.d[starts[i]:starts[i + 1]].tolist() for i in chosen]
    titles = [f"sentence {i} (line {test.lines[i]}), mean d = {np.mean(d):.2f}"
              for i, d in zip(chosen, ds)]
    figure(out_dir / FIGURE, ws, ds, titles)
    ctx.figures.append(FIGURE)
    write_csv(out_dir / DATA_CSV, pd.DataFrame(
        {"sentence": np.repeat(chosen, [len(w) for w in ws]),
         "word_index": [j for w in ws for j in range(len(w))],
         "word": [x for w in ws for x in w], "d": [x for d in ds for x in d]}))
    tags = [test.pos[i] for i in chosen] if data.labelled and test.pos else None
    lines = [" ".join(f"{w}{'/' + t if tags else ''}<sub>{d:.2f}</sub>"
                      for w, d, t in zip(w_, d_, tags[k] if tags else w_))
             for k, (w_, d_) in enumerate(zip(ws, ds))]
    return (
        f"## {TITLE}\n\n"
        f"Shown: {how}; each word with {'its gold tag and ' if tags else ''}its difficulty.\n\n"
        + "\n\n".join(f"- {t}: {ln}" for t, ln in zip(titles, lines))
        + f"\n\n![Fig. 7]({layout.REPORT_DIR}/{FIGURE})\n")


def figure(path, sentences: Sequence[Sequence[str]], weights: Sequence[Sequence[float]],
                 titles: Sequence[str]) -> Path:
    """Fig. 7: sentences with each word shaded and labelled by its difficulty."""
    plt = plots.require_matplotlib()
    plots.style(plt)
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
    return plots.save(fig, path)


ANALYSIS = Analysis(
    "word_weights", section, TITLE,
    "Fig. 7: sentences with each word's difficulty",
    (Setting("word_weight_sentences", tuple[NonNegative, ...], (),
             "test sentence indices (0-based); empty: the hardest sentences"),),
    (f"{layout.REPORT_DIR}/fig7-*",),
    (Chart(f"{layout.REPORT_DIR}/{DATA_CSV}", TITLE, "bar", "word_index",
           ("d",), "word", "The words of the chosen sentences with their difficulties.",
           x_title="the words of each sentence, numbered from 0", y_title="difficulty d",
           names={"word_index": "word"}, group="sentence"),),
    units=(tasks_mod.WORDS, tasks_mod.TAGS),
    check=check)
