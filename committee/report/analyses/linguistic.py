"""Fig. 2 of the paper: which words are hard?  How idioms, 2-character
words and OOV words spread over the difficulty bins (``report/fig2-*``)."""

from __future__ import annotations

import numpy as np

from committee import corpus as corpus_mod
from committee import tasks as tasks_mod
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.report import plots
from committee.report.analyses.base import Analysis, Chart, Context, PathSetting, Setting
from committee.report.output import markdown_table, pct, write_csv

TITLE = "Fig. 2: which words are hard?"
FIGURE = "fig2-linguistic.png"
DATA_CSV = "fig2-linguistic.csv"


def idiom_list(cfg, idioms: str) -> set[str]:
    """A word list file, or the words tagged ``i`` in the embedded corpus."""
    if idioms == corpus_mod.EMBEDDED_NAME:
        pd98 = corpus_mod.read_embedded()
        return {w for ws, ps in zip(pd98.words, pd98.pos) for w, p in zip(ws, ps) if p == "i"}
    return corpus_mod.read_word_list(cfg.resolve(idioms))


def _idioms(ctx: Context, flat_words: list[str], groups: dict) -> str:
    """Add the idioms' group to ``groups`` (from ``experiments.idioms``, else
    from the test corpus's POS tags); what the section says of them."""
    e, test = ctx.cfg.experiments, ctx.data.test
    idiom_note = ""
    if e.idioms is not None:
        idioms = idiom_list(ctx.cfg, e.idioms)
        groups["idioms"] = np.fromiter((w in idioms for w in flat_words), bool,
                                       len(flat_words))
        idiom_note = (f"idioms: the {len(idioms):,} words tagged `i` in People's Daily "
                      "1998-01" if e.idioms == corpus_mod.EMBEDDED_NAME
                      else f"idioms: the words of `{e.idioms}`")
    elif test.pos is not None:
        pos = [p for s in test.pos for p in s]
        groups["idioms"] = np.array([p == "i" for p in pos], dtype=bool)
        idiom_note = "idioms: words tagged `i` in the corpus"
    else:
        ctx.notes.append("Fig. 2 has no idioms: the test corpus has no POS tags; give a word "
                         "list as `experiments.idioms`.")
    if "idioms" in groups and not groups["idioms"].any():
        del groups["idioms"]  # a group of no word has no share of any bin
        idiom_note = f"no idioms in this corpus, {idiom_note.removeprefix('idioms: ')}: none"
    return idiom_note


def section(ctx: Context) -> str | None:
    """Fig. 2: how idioms, 2-character and OOV words spread over the difficulty bins."""
    import pandas as pd

    data = ctx.data
    test = ctx.data.test
    out_dir = ctx.out_dir
    flat_words = [w for s in test.words for w in s]
    groups: dict[str, np.ndarray] = {}
    idiom_note = _idioms(ctx, flat_words, groups)
    groups["2-character words"] = np.fromiter((len(w) == 2 for w in flat_words), bool,
                                              len(flat_words))
    if data.oov is not None:
        groups["OOV words"] = data.oov
    groups["all words"] = np.ones(len(flat_words), dtype=bool)
    shares = difficulty_stats.bin_shares(data.d, groups)
    plots.bin_shares(out_dir / FIGURE, difficulty_stats.BIN_LABELS, shares,
                     title="Where idioms, 2-character words and OOV words fall on the "
                           "difficulty scale",
                     ylabel="share of the group's words")
    ctx.figures.append(FIGURE)
    table = {"bin": list(difficulty_stats.BIN_LABELS)}
    for name, s in shares.items():
        table[f"{name} n"] = s["n"]
        table[f"{name} share"] = s["share"]
    write_csv(out_dir / DATA_CSV, pd.DataFrame(table))
    mean_d = {name: float(data.d[m].mean()) if m.any() else float("nan")
              for name, m in groups.items()}
    md = markdown_table(["group", "words", "mean d", "share with d ≥ 0.5"],
                        [[name, f"{int(groups[name].sum()):,}", f"{mean_d[name]:.3f}",
                          pct(float((data.d[groups[name]] >= 0.5).mean())
                              if groups[name].any() else None, 1)]
                         for name in groups])
    return (
        f"## {TITLE}\n\n"
        f"Distribution of word groups over the ten difficulty bins ({idiom_note or 'no idioms'}"
        "; OOV: not in the training word list).\n\n" + md
        + f"\n\n![Fig. 2]({layout.REPORT_DIR}/{FIGURE})\n")


ANALYSIS = Analysis(
    "linguistic", section, TITLE,
    "Fig. 2: idioms, 2-character and OOV words over the difficulty bins",
    (Setting("idioms", PathSetting | None, None,
             "idiom word list, one a line, when the test corpus has no POS tag 'i'"),),
    (f"{layout.REPORT_DIR}/fig2-*",),
    (Chart(f"{layout.REPORT_DIR}/{DATA_CSV}", TITLE, "bar", "bin",
           lambda columns: [c for c in columns if c.endswith(" share")],
           text="Share of each word group in each difficulty bin.",
           x_title="difficulty bin", y_title="share of the group's words"),),
    units=(tasks_mod.WORDS, tasks_mod.TAGS))
