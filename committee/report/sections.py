"""The report's analyses: one function per analysis, in :data:`REGISTRY`.

Each function takes the :class:`Context` of a report (the run read back,
its config, the scored systems) and writes its figure and data into
``ctx.out_dir`` (``report/``); it returns its section of ``report.md``, or
None when it has nothing to show, and adds notes to ``ctx.notes``.  The
numbers come from :mod:`committee.metrics.difficulty_stats`, the figures from
:mod:`committee.report.plots`.

To add an analysis: write ``def name(ctx) -> str | None`` here and its
record in :data:`committee.report.analyses.REGISTRY` where its section belongs:
the config's switch and settings, ``--only``/``--skip``, the order of
``report.md``, :data:`TITLES`, :data:`OUTPUTS` and the charts of
``report.html`` follow from it.
"""

from __future__ import annotations

# size: near the 800-line cap because it holds one function per analysis of
# the registry (the paper's tables and figures, entities, IRT), each short;
# an analysis added beyond the cap goes into a module of its own.

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from committee.metrics import difficulty_stats
from committee.scoring import irt as irtrun
from committee.report import plots
from committee.pipeline import layout
from committee.pipeline import runfiles
from committee.report import analyses as _registry
from committee import corpus as corpus_mod
from committee.errors import ConfigError, PlausibilityWarning, UndefinedMetricWarning
from committee.system.files import atomic_write_text
from committee.report.output import markdown_table, pct, score_columns, write_csv
from committee.report.rundata import RunData
from committee.report.systems import System, marks_of


@dataclass
class Context:
    """What every analysis of one report sees.

    Attributes
    ----------
    cfg : Config
    data : RunData
        The run, read back.
    out_dir : Path
        ``report/`` inside the run directory.
    table2, others, members : list of System
        Scored Table 2 models, other systems, and committee members (the
        last from ``predictions.npz``; empty without it).
    f1_rank, fb_rank : list
        Ranks of ``ranked`` (Table 2 models, then other systems).
    human_scores : dict or None
        Human judgements by system name; ``human_path`` their file.
    notes, figures : list of str
        Filled by the analyses.
    irt : dict or None
        Filled by :func:`irt`: each word's ``a`` and ``b`` and each ranked
        system's ``theta`` and ``theta_se`` (by name), for ``report.html``.
    failed : list of (str, str)
        The analyses that failed and why, in report order (filled by
        :func:`committee.report.build.build_report`).
    """

    cfg: object
    data: RunData
    out_dir: Path
    table2: list[System] = field(default_factory=list)
    others: list[System] = field(default_factory=list)
    members: list[System] = field(default_factory=list)
    f1_rank: list = field(default_factory=list)
    fb_rank: list = field(default_factory=list)
    human_scores: dict | None = None
    human_path: object = None
    notes: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    irt: dict | None = None
    failed: list[tuple[str, str]] = field(default_factory=list)
    #: the CSV files of the "Suspicious gold" section written in this build
    gold_check_files: set[str] = field(default_factory=set)

    @property
    def run_dir(self) -> Path:
        return self.data.run_dir

    @property
    def ranked(self) -> list[System]:
        return self.table2 + self.others


#: What the paper reports for PKU (Qian et al. 2016, Table 2 and §5), percentages.
PAPER_PKU = {
    "table2": {0.2: {"f1": 89.97, "fb": 44.28},
               1.0: {"p": 94.03, "r": 92.91, "f1": 93.47, "pb": 64.22, "rb": 59.16,
                     "fb": 61.59}},
    "split_half_pearson": 0.996,
}

#: Each analysis's heading in ``report.md`` (and ``report.html``), from
#: :data:`committee.report.analyses.REGISTRY`.
TITLES = {e.name: e.title for e in _registry.REGISTRY}

#: The files each analysis writes (globs relative to the run directory),
#: from :data:`committee.report.analyses.REGISTRY`.  Those of an analysis that
#: failed are removed, so that neither ``report/`` nor ``report.html`` shows
#: an earlier build's figures beside the section that says it failed.
#: ``items.tsv``, ``irt.json`` and the other files of ``committee irt`` are
#: not among them: a failed fit leaves them as they were, as ``committee
#: irt`` does.
OUTPUTS = {e.name: e.outputs for e in _registry.REGISTRY}


def _sizes_problem(e, K: int) -> str | None:
    bad = [k for k in (e.stability_sizes or ()) if k > K]
    return (f"experiments.stability_sizes: sizes {bad} exceed the run's committee size "
            f"K = {K}") if bad else None


def _sentences_problem(e, S: int) -> str | None:
    bad = [i for i in e.word_weight_sentences if i >= S]
    return (f"experiments.word_weight_sentences: {bad} do not exist (the test set has {S} "
            "sentences, 0-based)") if bad else None


def check_run(cfg, data: RunData, names) -> None:
    """Refuse, before any compute, settings of ``cfg.experiments`` that the
    run ``data`` cannot satisfy (for the analyses in ``names``): a
    :class:`ConfigError` listing them."""
    problems = []
    if "stability" in names:
        problems.append(_sizes_problem(cfg.experiments, data.K))
    if "word_weights" in names:
        problems.append(_sentences_problem(cfg.experiments, len(data.test.words)))
    problems = [p for p in problems if p]
    if problems:
        raise ConfigError("experiments", problems)


def _paper_spread() -> str:
    """Table 2 of the paper from its smallest to its largest share, in one sentence."""
    paper = PAPER_PKU["table2"]
    first, last = paper[min(paper)], paper[max(paper)]
    return "The paper (PKU): " + ", ".join(
        f"{k} {first[k]:.2f} → {last[k]:.2f} (+{last[k] - first[k]:.2f})"
        for k in ("f1", "fb")) + "."


def table2(ctx: Context) -> str | None:
    """Table 2: the scores of models trained on more and more data (``table2.csv``)."""
    out_dir = ctx.out_dir
    run_dir = ctx.run_dir
    t2 = ctx.table2
    if not t2:
        return "## Table 2\n\nNo Table 2 model.\n"
    trows = []
    for s in t2:
        r = {"model": s.name, "template": s.info["template"], "fraction": s.info["fraction"],
             "n_sentences": s.info["n_sentences"], "n_chars": s.info["n_chars"]}
        r.update({k: s.scores[k] for k in ("p", "r", "f1", "pb", "rb", "fb", "oov_recall",
                                           "iv_recall")})
        r["max_iterations"] = s.info["params"].get("max_iterations")
        r["train_s"] = s.info["timings"]["train_s"]
        r["total_s"] = s.info["timings"]["total_s"]
        trows.append(r)
    df = pd.DataFrame(trows)
    write_csv(run_dir / layout.TABLE2_FILE, df)
    md = markdown_table(
        ["model", "sentences", "p", "r", "f1", "pb", "rb", "fb", "train time"],
        [[r["model"], f"{r['n_sentences']:,}", *(pct(r[k]) for k in
                                                 ("p", "r", "f1", "pb", "rb", "fb")),
          f"{r['train_s']:.0f} s"] for r in trows])
    atomic_write_text(out_dir / "table2.md", md + "\n")
    words = ctx.data.kind.paper_figures  # the paper's PKU figures are of words
    title = _registry.for_task(TITLES["table2"], ctx.data.task)
    paper = PAPER_PKU["table2"]
    plots.table2(out_dir / "table2.png", [r["fraction"] for r in trows],
                 {k: [r[k] for r in trows] for k in ("f1", "fb", "pb", "rb")},
                 paper={k: (list(paper), [paper[f][k] for f in paper]) for k in ("f1", "fb")}
                 if words else None, title=title)
    ctx.figures.append("table2.png")
    first, last = trows[0], trows[-1]
    spread = _undefined_note(ctx, t2, ("f1", "fb", "pb", "rb"), "no point in the figure")
    if len(trows) > 1 and all(r[k] is not None for r in (first, last) for k in ("f1", "fb")):
        spread = (f" From {first['model']} to {last['model']}, f1 moves "
                  f"{pct(first['f1'])} → {pct(last['f1'])} "
                  f"(+{100 * (last['f1'] - first['f1']):.2f} points) but fb moves "
                  f"{pct(first['fb'])} → {pct(last['fb'])} "
                  f"(+{100 * (last['fb'] - first['fb']):.2f} points). "
                  + (_paper_spread() if words else "") + spread)
    params = t2[0].info["params"]
    return (
        f"## {title}\n\n"
        f"Template {t2[0].info['template']}, {t2[0].info['algorithm']} "
        f"({', '.join(f'{k}={v}' for k, v in sorted(params.items()))}), nested random "
        f"samples of the {t2[0].info['n_train']:,} training sentences (seed "
        f"{t2[0].info['seed']}). Scores in %; data in `table2.csv` (fractions in [0, 1]).\n\n"
        + md + "\n\n" + spread.strip() + "\n\n![Table 2](report/table2.png)\n")


def stability(ctx: Context) -> str | None:
    """Fig. 1: difficulties of the committee's prefixes against the whole committee's."""
    e = ctx.cfg.experiments
    data = ctx.data
    K = ctx.data.K
    out_dir = ctx.out_dir
    sizes = list(e.stability_sizes) if e.stability_sizes else difficulty_stats.default_sizes(K)
    problem = _sizes_problem(e, K)
    if problem:
        raise ConfigError("experiments", [problem])
    summary = difficulty_stats.stability(data.marks, sizes)
    idx = difficulty_stats.sample_words(data.d, 12, e.seed)
    flat_words = data.unit_texts()
    prefix = difficulty_stats.prefix_difficulties(data.marks, sizes)
    stop = data.manifest.get("committee", {}).get("stability")
    plots.committee_size(out_dir / "fig1-committee-size.png", sizes, prefix[:, idx],
                         [flat_words[i] for i in idx], summary, stop)
    ctx.figures.append("fig1-committee-size.png")
    write_csv(out_dir / "fig1-committee-size.csv", pd.DataFrame(summary))
    write_csv(out_dir / "fig1-sampled-words.csv", pd.DataFrame(
        {"word_id": np.repeat(idx, len(sizes)), "word": np.repeat([flat_words[i] for i in idx],
                                                                  len(sizes)),
         "size": np.tile(sizes, len(idx)), "d": prefix[:, idx].T.ravel()}))
    j = len(sizes) // 2
    return (
        f"## {TITLES['stability']}\n\n"
        f"Difficulties from the first K' of the {K} members (a prefix of the member list "
        "is itself a committee). At K' = "
        f"{sizes[j]}, the mean |d_K' − d_K| is {summary['mean_abs_diff'][j]:.3f} and "
        f"Pearson r with the full committee's d is {summary['pearson'][j]:.4f}; at "
        f"K' = {sizes[-2] if len(sizes) > 1 else sizes[-1]}: "
        f"{summary['mean_abs_diff'][-2 if len(sizes) > 1 else -1]:.3f} and "
        f"{summary['pearson'][-2 if len(sizes) > 1 else -1]:.4f}. The split-half "
        f"reliability of the whole committee's d is {_shown(summary['reliability'][-1])}"
        + ("" if stop is None else
           f"; `size: auto` stopped at K = {stop['size']} (target {stop['target']}, "
           f"{'reached' if stop['reached'] else 'not reached'})")
        + f". The left panel follows 12 {data.units_name} sampled across the difficulty range.\n\n"
        "![Fig. 1](report/fig1-committee-size.png)\n")


def _shown(value: float) -> str:
    """A reliability for the text: 4 decimals, or undefined."""
    return "undefined" if not np.isfinite(value) else f"{value:.4f}"


def linguistic(ctx: Context) -> str | None:
    """Fig. 2: how idioms, 2-character and OOV words spread over the difficulty bins."""
    e = ctx.cfg.experiments
    data = ctx.data
    test = ctx.data.test
    out_dir = ctx.out_dir
    cfg = ctx.cfg
    flat_words = [w for s in test.words for w in s]
    groups: dict[str, np.ndarray] = {}
    idiom_note = ""
    if e.idioms is not None:
        idioms = _idiom_list(cfg, e.idioms)
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
    groups["2-character words"] = np.fromiter((len(w) == 2 for w in flat_words), bool,
                                              len(flat_words))
    if data.oov is not None:
        groups["OOV words"] = data.oov
    groups["all words"] = np.ones(len(flat_words), dtype=bool)
    shares = difficulty_stats.bin_shares(data.d, groups)
    plots.linguistic(out_dir / "fig2-linguistic.png", difficulty_stats.BIN_LABELS, shares)
    ctx.figures.append("fig2-linguistic.png")
    table = {"bin": list(difficulty_stats.BIN_LABELS)}
    for name, s in shares.items():
        table[f"{name} n"] = s["n"]
        table[f"{name} share"] = s["share"]
    write_csv(out_dir / "fig2-linguistic.csv", pd.DataFrame(table))
    mean_d = {name: float(data.d[m].mean()) if m.any() else float("nan")
              for name, m in groups.items()}
    md = markdown_table(["group", "words", "mean d", "share with d ≥ 0.5"],
                        [[name, f"{int(groups[name].sum()):,}", f"{mean_d[name]:.3f}",
                          pct(float((data.d[groups[name]] >= 0.5).mean())
                               if groups[name].any() else None, 1)]
                         for name in groups])
    return (
        f"## {TITLES['linguistic']}\n\n"
        f"Distribution of word groups over the ten difficulty bins ({idiom_note or 'no idioms'}"
        "; OOV: not in the training word list).\n\n" + md
        + "\n\n![Fig. 2](report/fig2-linguistic.png)\n")


def ranking(ctx: Context) -> str | None:
    """Fig. 3: every system ranked by f1 and by fb (and human judgements, if given)."""
    out_dir = ctx.out_dir
    ranked = ctx.ranked
    f1_rank = ctx.f1_rank
    fb_rank = ctx.fb_rank
    human_scores = ctx.human_scores
    human_path = ctx.human_path
    if not ranked:
        return None
    names = [s.name for s in ranked]
    plots.ranking(out_dir / "fig3-ranking.png", names, [s.scores["f1"] for s in ranked],
                  [s.scores["fb"] for s in ranked], f1_rank, fb_rank)
    ctx.figures.append("fig3-ranking.png")
    header = ["system", *(h for _, h in score_columns()), "#f1", "#fb"]
    body = [[s.name, *(pct(s.scores[k]) for k, _ in score_columns()), _rank(rf), _rank(rb)]
            for s, rf, rb in zip(ranked, f1_rank, fb_rank)]
    if human_scores is not None:
        header.append("human")
        for r, s in zip(body, ranked):
            r.append(human_scores.get(s.name, "–"))
    text = (f"## {TITLES['ranking']}\n\n"
            "Every system scored against this run's difficulties (scores in %, # = rank). "
            "Data in `report/systems.csv`.\n\n" + markdown_table(header, body) + "\n")
    both = [(s, rf, rb) for s, rf, rb in zip(ranked, f1_rank, fb_rank)
            if rf is not None and rb is not None]
    moved = [s.name for s, rf, rb in both if rf != rb]
    if len(both) > 1:
        text += ("\nf1 and fb rank these systems differently: " + ", ".join(moved) + ".\n"
                 if moved else "\nf1 and fb rank the systems in the same order.\n")
    text += _undefined_note(ctx, ranked, ("f1", "fb"), "no rank and no point in Fig. 3")
    if human_scores is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            corr = difficulty_stats.correlations(
                {k: [s.scores[k] for s in ranked] for k in ("p", "r", "f1", "pb", "rb", "fb")},
                [human_scores.get(s.name) for s in ranked])
        write_csv(out_dir / "fig3-human-correlation.csv",
                   pd.DataFrame({"metric": list(corr), "pearson": list(corr.values())}))
        text += ("\nPearson correlation with the human judgements "
                 f"(`{human_path}`, {len(human_scores)} systems):\n\n"
                 + markdown_table(list(corr), [[("–" if v is None else f"{v:.3f}")
                                                for v in corr.values()]], "r" * len(corr))
                 + "\n")
    return (text + "\n![Fig. 3](report/fig3-ranking.png)\n")


def _rank(r: int | None) -> str:
    """A rank for a table: the number, or ``–`` for a system whose metric is undefined."""
    return "–" if r is None else str(r)


def _undefined_note(ctx: Context, systems, keys, consequence: str) -> str:
    """A paragraph naming the systems with any of the metrics ``keys``
    undefined (``–`` in the tables) and what that costs them; empty when
    there is none."""
    bad = [s for s in systems if any(s.scores[k] is None for k in keys)]
    if not bad:
        return ""
    return ("\nUndefined (`–`): " + "; ".join(
        f"{s.name} ({', '.join(k for k in keys if s.scores[k] is None)}"
        + (f": it predicts no {ctx.data.unit}" if _predicts_none(s) else "") + ")"
        for s in bad) + f"; {consequence}.\n")


def _predicts_none(s) -> bool:
    """Whether a system predicts no unit at all (its precision, and so its
    f1 and fb, are undefined: docs/metrics.md)."""
    return (getattr(s.scores, "counts", None) or {}).get("n_pred") == 0


def entities(ctx: Context) -> str | None:
    """Entities by type: how their difficulties spread, and the hardest ones."""
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
    plots.linguistic(out_dir / "entities-by-type.png", difficulty_stats.BIN_LABELS, shares,
                     title="Where persons, places and organisations fall on the difficulty scale",
                     ylabel="share of the type's gold entities")
    ctx.figures.append("entities-by-type.png")
    table = {"bin": list(difficulty_stats.BIN_LABELS)}
    table.update({f"{k} share": v["share"] for k, v in shares.items()})
    write_csv(out_dir / "entities-by-type.csv", pd.DataFrame(table))
    write_csv(out_dir / "entities-types.csv", pd.DataFrame(rows))
    frame = pd.DataFrame({"entity": texts, "type": kinds, "d": data.d})
    hardest = (frame.groupby(["entity", "type"], sort=False)["d"].agg(["count", "mean"])
               .reset_index().rename(columns={"count": "occurrences", "mean": "mean_d"}))
    hardest = hardest.sort_values(["mean_d", "occurrences", "entity"],
                                  ascending=[False, False, True], kind="mergesort")
    write_csv(out_dir / "entities-hardest.csv", hardest)
    top = hardest[hardest["occurrences"] >= 2].head(15)
    return (
        f"## {TITLES['entities']}\n\n"
        "Gold entities of each type: how many, their mean difficulty, the shares with d = 0, "
        "d ≥ 0.5 and d = 1, and the share unseen as training entities (OOV).\n\n"
        + markdown_table(["type", "entities", "mean d", "d = 0", "d ≥ 0.5", "d = 1", "OOV"],
                         [[r["type"], f"{r['entities']:,}", f"{r['mean_d']:.3f}",
                           pct(r["d_0"], 1), pct(r["d_half_or_more"], 1), pct(r["d_1"], 1),
                           pct(r["oov"], 1)] for r in rows])
        + "\n\nThe hardest entities that occur twice or more in the test set (mean d over "
        "their occurrences; all of them in `report/entities-hardest.csv`):\n\n"
        + markdown_table(["entity", "type", "occurrences", "mean d"],
                         [[r.entity, r.type, str(r.occurrences), f"{r.mean_d:.3f}"]
                          for r in top.itertuples()])
        + "\n\n![Entities by type](report/entities-by-type.png)\n")


def bins(ctx: Context) -> str | None:
    """Fig. 4: each system's recall of the gold words in each difficulty bin."""
    data = ctx.data
    out_dir = ctx.out_dir
    ranked = ctx.ranked
    if not ranked:
        return None
    rec = np.array([[np.nan if v is None else v for v in s.scores["recall_by_bin"]]
                    for s in ranked])
    counts = difficulty_stats.bin_counts(data.d)
    plots.recall_by_bin(out_dir / "fig4-recall-by-bin.png", difficulty_stats.BIN_LABELS,
                        [s.name for s in ranked], rec, counts)
    ctx.figures.append("fig4-recall-by-bin.png")
    table = {"bin": list(difficulty_stats.BIN_LABELS), "gold_words": counts}
    for s, r in zip(ranked, rec):
        table[s.name] = r
    write_csv(out_dir / "fig4-recall-by-bin.csv", pd.DataFrame(table))
    body = [[s.name, *(pct(v, 1) for v in r)] for s, r in zip(ranked, rec)]
    return (
        f"## {TITLES['bins']}\n\n"
        f"Recall of the gold {data.units_name} in each difficulty bin (%), bin sizes in grey.\n\n"
        + markdown_table(["system", *difficulty_stats.BIN_LABELS],
                         [[f"gold {data.units_name}", *(f"{c:,}" for c in counts)]] + body)
        + "\n\n![Fig. 4](report/fig4-recall-by-bin.png)\n")


def buckets(ctx: Context) -> str | None:
    """Results by word attribute: recall and rb of every system per bucket
    (:mod:`committee.metrics.buckets`), with percentile intervals from
    ``buckets_bootstrap`` resamples of the test sentences."""
    if not ctx.ranked:
        return None
    frames = _bucket_frames(ctx)
    parts = [f"## {TITLES['buckets']}\n\n"
             "Recall of each system's gold words per bucket (%; 95% bootstrap interval in "
             "the figures), buckets as defined in docs/metrics.md (Results by word "
             "attribute).\n"]
    for key, frame in frames.items():
        title = _registry.BUCKET_ATTRIBUTES[key]
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
        figure = f"buckets-{key}.png"
        plots.buckets(ctx.out_dir / figure, f"Results by {title}", labels, counts, names, panels)
        ctx.figures.append(figure)
        write_csv(ctx.out_dir / f"buckets-{key}.csv", wide)
        rec = panels["recall of the bucket's gold words"][0]
        body = [[n, *(pct(v, 1) for v in r)] for n, r in zip(names, rec)]
        parts.append(f"\n### By {title}\n\n"
                     + markdown_table(["system", *labels],
                                      [["gold words", *(f"{c:,}" for c in counts)]] + body)
                     + f"\n\n![Results by {title}](report/{figure})\n")
    return "".join(parts)


def _bucket_frames(ctx: Context) -> dict[str, pd.DataFrame]:
    """``{attribute: rows of every ranked system}`` for the attributes of
    :data:`committee.report.analyses.BUCKET_ATTRIBUTES` the run allows (``oov``
    with its training vocabulary)."""
    from committee.metrics import significance
    from committee.metrics.buckets import Bucketer, bucket_rows
    from committee.tasks.spans import match, spans

    data, n = ctx.data, ctx.cfg.experiments.buckets_bootstrap
    vocabulary = None
    if data.oov is not None:
        vocabulary = corpus_mod.read_word_list(layout.paths(data.run_dir).train_words)
    attrs = [k for k in _registry.BUCKET_ATTRIBUTES if k != "oov" or vocabulary is not None]
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


def split_half(ctx: Context) -> str | None:
    """Fig. 6: split-half reliability of fb across random halves of the test set."""
    e = ctx.cfg.experiments
    test = ctx.data.test
    out_dir = ctx.out_dir
    t2 = ctx.table2
    members = ctx.members
    others = ctx.others
    pool = t2 + members + others
    if len(pool) < 3:
        ctx.notes.append("Split-half reliability needs at least 3 models; "
                         f"this run has {len(pool)} (no predictions.npz and few systems).")
        return None
    masks = difficulty_stats.split_half_masks(len(test.words), e.split_half_repeats, e.seed)
    a, b = difficulty_stats.split_half_scores([s.stats for s in pool], masks, "fb")
    r = difficulty_stats.split_half_pearson(a, b)
    fa, fb_ = difficulty_stats.split_half_scores([s.stats for s in pool], masks, "f1")
    r_f1 = difficulty_stats.split_half_pearson(fa, fb_)
    plots.split_half(out_dir / "fig6-split-half.png", a[0], b[0],
                     [s.kind for s in pool], r, names=[s.name for s in pool])
    ctx.figures.append("fig6-split-half.png")
    write_csv(out_dir / "fig6-split-half.csv", pd.DataFrame(
        {"model": [s.name for s in pool], "kind": [s.kind for s in pool],
         "fb_half_a": a[0], "fb_half_b": b[0], "f1_half_a": fa[0], "f1_half_b": fb_[0]}))
    write_csv(out_dir / "fig6-split-half-pearson.csv",
              pd.DataFrame({"split": np.arange(len(r)), "pearson_fb": r,
                            "pearson_f1": r_f1}))
    kinds = ", ".join(f"{sum(s.kind == k for s in pool)} {label}"
                      for k, label in (("table2", "Table 2 models"),
                                       ("member", "committee members"),
                                       ("system", "other systems"))
                      if any(s.kind == k for s in pool))
    if not members:
        ctx.notes.append("Split-half used no committee member: the run has no "
                         "predictions.npz (members trained before segmentations were "
                         "recorded).")
    return (
        f"## {TITLES['split_half']}\n\n"
        f"The test sentences split at random into two halves, {len(r)} times "
        f"(seed {e.seed}); {len(pool)} models ({kinds}) scored on each half. "
        f"Pearson r of fb across halves: first split {_shown(r[0])}, mean "
        f"{_shown(_nan_stat(np.nanmean, r))}, min {_shown(_nan_stat(np.nanmin, r))} (f1: mean "
        f"{_shown(_nan_stat(np.nanmean, r_f1))}). "
        f"The paper reports {PAPER_PKU['split_half_pearson']} on PKU.\n"
        + _undefined_note(ctx, pool, ("f1", "fb"), "no point in Fig. 6a, and left out of "
                          "each split's Pearson r")
        + "\n![Fig. 6](report/fig6-split-half.png)\n")


def _nan_stat(f, values) -> float:
    """``f`` (``np.nanmean``, ``np.nanmin``) of ``values``, NaN when every value is NaN."""
    values = np.asarray(values, dtype=np.float64)
    return float(f(values)) if np.isfinite(values).any() else float("nan")


def word_weights(ctx: Context) -> str | None:
    """Fig. 7: the words of a few sentences with their difficulties."""
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
    plots.word_weights(out_dir / "fig7-word-weights.png", ws, ds, titles)
    ctx.figures.append("fig7-word-weights.png")
    write_csv(out_dir / "fig7-word-weights.csv", pd.DataFrame(
        {"sentence": np.repeat(chosen, [len(w) for w in ws]),
         "word_index": [j for w in ws for j in range(len(w))],
         "word": [x for w in ws for x in w], "d": [x for d in ds for x in d]}))
    tags = [test.pos[i] for i in chosen] if data.labelled and test.pos else None
    lines = [" ".join(f"{w}{'/' + t if tags else ''}<sub>{d:.2f}</sub>"
                      for w, d, t in zip(w_, d_, tags[k] if tags else w_))
             for k, (w_, d_) in enumerate(zip(ws, ds))]
    return (
        f"## {TITLES['word_weights']}\n\n"
        f"Shown: {how}; each word with {'its gold tag and ' if tags else ''}its difficulty.\n\n"
        + "\n\n".join(f"- {t}: {ln}" for t, ln in zip(titles, lines))
        + "\n\n![Fig. 7](report/fig7-word-weights.png)\n")


def _idiom_list(cfg, idioms: str) -> set[str]:
    """A word list file, or the words tagged ``i`` in the embedded corpus."""
    if idioms == corpus_mod.EMBEDDED_NAME:
        pd98 = corpus_mod.read_embedded()
        return {w for ws, ps in zip(pd98.words, pd98.pos) for w, p in zip(ws, ps) if p == "i"}
    return corpus_mod.read_word_list(cfg.resolve(idioms))


def irt(ctx: Context) -> str | None:
    """IRT: the fit of ``committee irt`` (its files written into the run;
    the model chosen as there: 2PL, or 1PL on a small committee), b against
    d, a's distribution, item curves, θ of every system against fb and f1,
    the informative subset's estimates, words to check."""
    from committee.metrics import itemresponse as irt_mod

    data, e = ctx.data, ctx.cfg.experiments
    if data.K < irt_mod.MIN_K:
        return (f"## {TITLES['irt']}\n\nNot fitted: {data.K} members are too few for an IRT "
                f"fit (at least {irt_mod.MIN_K} for the 1PL model, {irt_mod.MIN_K_2PL} for the "
                "2PL; `committee irt` refuses the same committee). Train a larger committee "
                "(`committee.size`) for this section (docs/irt.md).\n")
    systems = [{"name": s.name, "kind": s.kind, "marks": marks_of(data, s),
                "stats": s.stats, "scores": s.scores} for s in ctx.ranked]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = irtrun.compute(ctx.run_dir, extra=systems, seed=e.seed,
                             subset=min(e.irt_subset, data.marks.shape[1]))
        irtrun.write(ctx.run_dir, res)
    ctx.notes += [f"IRT: {w.message}" for w in caught
                  if issubclass(w.category, PlausibilityWarning)]
    fit = res.fit
    ctx.irt = {"a": fit.discrimination, "b": fit.difficulty,
               "theta": {s["name"]: s["theta"] for s in res.systems}}
    flags = ", ".join(f"{k} {v:,}" for k, v in res.summary["flags"].items()) or "none"
    model = (f"A {fit.model.upper()} model" if fit.model == "2pl" else
             "A 1PL model (one discrimination shared by every word: "
             f"{res.summary['model_reason'] or 'as asked'}; docs/irt.md)")
    return (
        f"## {TITLES['irt']}\n\n"
        f"{model} fitted to the K = {data.K} members × {fit.n_items:,} words "
        f"(`committee irt`; {fit.n_iter} EM iterations; flags: {flags}). θ is on the "
        "committee's scale (members: mean 0, sd 1); b is the ability at which a word is "
        "right half the time, a how sharply that chance rises with θ "
        "(docs/irt.md, docs/method.md §11). Files: `items.tsv`, `irt.json`, "
        "`irt-flags.tsv`, `irt-subset.tsv`.\n\n"
        + _irt_items_part(ctx, fit) + _irt_systems_part(ctx, fit, res.systems)
        + _irt_subset_part(ctx, res.summary["subset"]) + _irt_check_part(ctx))


def _irt_items_part(ctx: Context, fit) -> str:
    """b against d, a's histogram and item curves (``irt-items.png``)."""
    d = ctx.data.d
    varied = ~(fit.all_correct | fit.all_wrong)
    values = np.unique(d)
    b_by_d = {"d": values, "n_words": [], "b_median": [], "b_q10": [], "b_q90": []}
    for v in values:
        b = fit.difficulty[d == v]
        b_by_d["n_words"].append(int(b.size))
        for key, q in (("b_median", 0.5), ("b_q10", 0.1), ("b_q90", 0.9)):
            b_by_d[key].append(float(np.quantile(b, q)))
    a = fit.discrimination[varied]
    edges = np.histogram_bin_edges(a, bins=30) if a.size else np.array([0.0, 1.0])
    counts, _ = np.histogram(a, bins=edges)
    pick = difficulty_stats.sample_words(np.where(varied, d, -1.0), 6, ctx.cfg.experiments.seed)
    pick = [int(i) for i in pick if varied[i]] or [0]
    flat = [w for s in ctx.data.test.words for w in s]
    icc = {"word_id": pick, "word": [flat[i] for i in pick], "d": d[pick].tolist(),
           "a": fit.discrimination[pick].tolist(), "b": fit.difficulty[pick].tolist()}
    plots.irt_items(ctx.out_dir / "irt-items.png", b_by_d, edges, counts, icc)
    ctx.figures.append("irt-items.png")
    write_csv(ctx.out_dir / "irt-b-vs-d.csv", pd.DataFrame(b_by_d))
    write_csv(ctx.out_dir / "irt-a-histogram.csv", pd.DataFrame(
        {"a_low": edges[:-1], "a_high": edges[1:], "n_words": counts}))
    write_csv(ctx.out_dir / "irt-icc.csv", pd.DataFrame(icc))
    r = float(np.corrcoef(d[varied], fit.difficulty[varied])[0, 1]) if varied.sum() > 2 else None
    return (f"Words with variance ({int(varied.sum()):,}): Pearson r(b, d) = "
            + ("–" if r is None else f"{r:.3f}")
            + f"; median a {np.median(a) if a.size else float('nan'):.2f}, "
            f"{int((a < 0).sum()):,} with a < 0. Left: the median b (and its 10–90% band) of "
            "the words at each d; middle: a; right: item curves of words sampled across d. "
            "Data: `report/irt-b-vs-d.csv`, `irt-a-histogram.csv`, `irt-icc.csv`.\n\n"
            "![IRT items](report/irt-items.png)\n\n")


def _irt_systems_part(ctx: Context, fit, systems) -> str:
    """Systems ranked by θ, fb and f1, and θ against fb (``irt-systems.png``)."""
    ranked = ctx.ranked
    if not ranked:
        return ""
    from committee.scoring import rank

    theta = [s["theta"] for s in systems]
    rank_theta = rank(theta)
    rows = [{"system": s.name, "kind": s.kind, "theta": t["theta"], "theta_se": t["theta_se"],
             "f1": s.scores["f1"], "fb": s.scores["fb"], "rank_f1": rf, "rank_fb": rb,
             "rank_theta": rt}
            for s, t, rf, rb, rt in zip(ranked, systems, ctx.f1_rank, ctx.fb_rank, rank_theta)]
    write_csv(ctx.out_dir / "irt-systems.csv", pd.DataFrame(rows))
    names = [r["system"] for r in rows] + [m.name for m in ctx.members]
    kinds = [r["kind"] for r in rows] + ["member"] * len(ctx.members)
    thetas = theta + fit.ability[:len(ctx.members)].tolist()
    fbs = [r["fb"] for r in rows] + [m.scores["fb"] for m in ctx.members]
    plots.irt_systems(ctx.out_dir / "irt-systems.png", names, kinds, thetas,
                      [np.nan if v is None else v for v in fbs])
    ctx.figures.append("irt-systems.png")
    table = markdown_table(["system", "θ", "± se", "f1", "fb", "#f1", "#fb", "#θ"],
                           [[r["system"], f"{r['theta']:.3f}", f"{r['theta_se']:.3f}",
                             pct(r["f1"]), pct(r["fb"]), _rank(r["rank_f1"]),
                             _rank(r["rank_fb"]), _rank(r["rank_theta"])] for r in rows])
    differ = {k: [r["system"] for r in rows if r[f"rank_{k}"] is not None
                  and r["rank_theta"] != r[f"rank_{k}"]] for k in ("f1", "fb")}
    text = " ".join(f"θ and {k} rank these differently: {', '.join(v)}." if v else
                    f"θ and {k} rank the systems in the same order." for k, v in differ.items())
    return ("### Systems ranked by θ\n\nEAP ability of every system from its right/wrong "
            "outcome on each gold word, the words' a and b fixed (`committee score --irt`); "
            "members shown in grey in the figure. Data: `report/irt-systems.csv`.\n\n"
            + table + "\n\n" + text + "\n"
            + _undefined_note(ctx, ranked, ("f1", "fb"), "no rank by it, and no point in the "
                              "figure θ against fb")
            + "\n![IRT systems](report/irt-systems.png)\n\n")


def _irt_subset_part(ctx: Context, sub: dict) -> str:
    """The informative subset: θ, r, fb estimated from its words alone."""
    rows = sub["systems"]
    write_csv(ctx.out_dir / "irt-subset.csv", pd.DataFrame(rows))
    rms = sub["rms"]
    body = [[r["system"], f"{r['theta']:.3f}", f"{r['theta_subset']:.3f}",
             f"{r['theta_random']:.3f}", pct(r["fb"]), pct(r["fb_subset"]),
             pct(r["fb_random"])] for r in rows]
    return (f"### An informative subset of {sub['n']:,} words\n\n"
            f"The {sub['n']:,} words with the most Fisher information over the members' θ "
            f"range [{sub['theta_range'][0]:.2f}, {sub['theta_range'][1]:.2f}] "
            "(`irt-subset.tsv`). Each system below, none of which chose the words (the "
            f"report's systems and the gold {'tags' if ctx.data.labelled else 'segmentation'} "
            "perturbed at "
            + ", ".join(f"{100 * q:g}%" for q in irtrun.PERTURB_RATES) + "), is scored from its "
            "outcomes on those words alone: θ by EAP, fb with every other word's outcome "
            "replaced by P(correct | θ); as many random words for comparison. RMS error "
            f"against the full test: θ {rms['theta_subset']:.3f} (random words "
            f"{rms['theta_random']:.3f}); fb {pct(rms['fb_subset'])} points (random "
            f"{pct(rms['fb_random'])}). Data: `report/irt-subset.csv`.\n\n"
            + markdown_table(["system", "θ", "θ subset", "θ random", "fb", "fb subset",
                              "fb random"], body) + "\n\n")


def _irt_check_part(ctx: Context, n: int = 15) -> str:
    """The first rows of ``irt-flags.tsv``."""
    path = layout.paths(ctx.run_dir).irt_check
    df = runfiles.read_table(path, sep="\t", keep_default_na=False, quoting=3, dtype=str)
    if df.empty:
        return "### Flagged words\n\nNo word is flagged.\n"
    body = [[r["word"], r["d"], r["n_correct"], r["irt_a"], r["reason"],
             r["right_by_strong"] or "–", _window(r["context"])]
            for _, r in df.head(n).iterrows()]
    return ("### Flagged words\n\n"
            f"{len(df):,} words (`irt-flags.tsv`; the first {min(n, len(df))} below): words "
            "every member misses that strong systems (θ at least the members' median) get "
            "right first, then the other words every member misses, then words with negative "
            "or near-zero discrimination (the ranked list of likely annotation errors is "
            "`committee check-gold`'s, below).\n\n"
            + markdown_table(["word", "d", "members right", "a", "reason",
                              "right by strong systems", "sentence"], body) + "\n")


def _window(context: str, width: int = 20) -> str:
    """A sentence with its word in 【】 cut to ``width`` characters each side.

    >>> _window("一二三【四】五六七", 2)
    '…二三【四】五六…'
    """
    a, b = context.find("【"), context.find("】")
    if a < 0 or b < a:
        return context
    left, right = context[max(0, a - width):a], context[b + 1:b + 1 + width]
    return (("…" if a > width else "") + left + context[a:b + 1] + right
            + ("…" if b + 1 + width < len(context) else ""))


#: The function of each analysis, in the order of their sections in
#: ``report.md`` (:data:`committee.report.analyses.REGISTRY`).
REGISTRY: dict[str, Callable[[Context], str | None]] = {
    e.name: _registry.function_of(e) for e in _registry.REGISTRY}
