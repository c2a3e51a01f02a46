"""Adaptive testing against its alternatives (docs/benchmarks.md, "Adaptive
testing"; docs/method.md §16).

Systems outside the committee are scored once on the whole test set of a
run: the offline segmenters installed (``--with NAME``, repeatable;
default: those of jieba, thulac, snownlp, pkuseg, lac and jiojio that
load, a missing one named on standard error; jieba brings jieba without
its HMM), output files aligned with the run's test.txt (``--output
NAME=PATH``), the Table 2 models ``committee report RUN --only table2``
wrote into the run (``--table2``: report/table2/F2-20.txt …), the gold
perturbed at 2, 5, 10 and 20% and a system that splits every
four-character word (``--no-gold-variants`` leaves these out).  A system
whose words are those of one before it is left out with a line on
standard error (rjieba's, asked for with ``--with rjieba``, are jieba's
on the embedded test set, not on all of NLPCC 2016 Weibo's).  Each
system's per-sentence counts and per-word outcomes are computed once, and
the administration of a few sentences is simulated on them.  The methods,
at each budget of sentences (``--budgets``, default 25, 50, 100, 200,
400), over several seeds:

* ``adaptive``: ``committee score --adaptive``'s draws and estimator (draw
  probabilities ∝ the spread of each sentence's contribution to fb, the
  2PL's predictions calibrated with inverse-probability weights, Student's
  t intervals);
* ``adaptive+lengths``: the same with the ``lengths`` predictor (the
  counts calibrated on the gold words of 1, 2, 3 and 4+ characters);
* ``adaptive-v1``: the first design (draws ∝ Fisher information at θ, an
  unweighted calibration, normal intervals);
* ``random``: a simple random sample, the plain ratio estimate of the
  sample's totals (interval: delta method, finite population corrected);
* ``random+model``: uniform draws (floor 1) with ``adaptive``'s estimator;
* ``fixed`` (only with ``--methods``): the budget's most informative
  sentences (Fisher information averaged over θ in [-2, 2]), the rest
  filled in by the model (θ by EAP from those sentences; interval from the
  binomial variance of the unseen words and θ's standard error).

Prints the segmenters' versions and every system's full-test f1 and fb;
then, per method and budget, the mean absolute error of f1 and fb
against the full test (points) ± its standard error over seeds (of the
per-seed means over systems; ``random`` gets ``--random-seeds``, 500, as
it costs nothing), the ratio of the fb error to ``random``'s
with a 95% bootstrap interval (the seeds of each method resampled), the
coverage of the 95% intervals and Kendall's τ of the systems' fb ranking
with the full test's; per method the sentences needed until 90% of
(system, seed) pairs have fb within 0.5 points, and until 90% of the
systems have an fb MAE (over seeds) of at most 0.5; the fb error and
coverage of each system under the adaptive methods and the random sample;
for each system the share of the variance of the sentences' fb
contributions explained by the ratio to the gold totals and, beyond it, by
the model, and the standard deviation of one draw under each design
relative to uniform draws (the ``oracle`` design, q ∝ |residual|, bounds
what any design can do with these predictions); then the command and its
CPU-seconds.

    nice -n 19 .venv/bin/python benchmarks/bench_adaptive.py runs/default
    nice -n 19 python benchmarks/bench_adaptive.py RUN --table2   # after
        # `committee report RUN --only table2`, with the segmenters installed
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import numpy as np

import committee
from committee import metrics
from committee.metrics import estimators, itemresponse
from committee.scoring import adaptive, adaptive_run
from committee.tasks.units.words import perturb
from committee.tasks.spans import match, spans

METHODS = ("adaptive", "adaptive+lengths", "adaptive-v1", "random", "random+model", "fixed")
#: The methods run unless ``--methods`` says otherwise (``fixed`` is far off: see the docs).
DEFAULT_METHODS = METHODS[:5]
KEYS = ("f1", "fb")


class Precomputed:
    """A system's counts per sentence and outcome per gold word, made once."""

    def __init__(self, bank, words):
        from committee.corpus import Corpus

        pred = Corpus("<system>", words, bank.gold.lines)
        collector = metrics.Collector(bank.gold, difficulty=bank.d)
        st = collector.collect(pred)
        self.rows = np.column_stack((st.n_correct, st.correct_d, st.n_pred,
                                     st.pred_d)).astype(np.float64)
        self.ok = match(collector.spans, spans(words))[0]
        self.bank = bank

    def counts(self, indices):
        return self.rows[indices], self.ok[adaptive.units_of(self.bank, indices)]


#: The offline segmenters run by default, those installed (``--with`` names
#: others): every adapter but rjieba, jieba in Rust, whose words are jieba's
#: but for a few sentences (it keeps a score such as "2-1" whole).
DEFAULT_SEGMENTERS = ("jieba", "thulac", "snownlp", "pkuseg", "lac", "jiojio")


def segmenter_systems(bank, names) -> tuple[dict[str, list], dict[str, str]]:
    """The words of each segmenter of ``names`` that loads (a missing one
    is left out with a line on standard error), and its version; jieba
    brings "jieba (no HMM)", its dictionary alone."""
    from committee import segmenters

    texts = [bank.gold.text(i) for i in range(bank.n_sentences)]
    out, versions = {}, {}
    for name in names:
        try:
            seg = segmenters.load(name)
        except segmenters.SegmenterUnavailable as exc:
            print(f"left out: {exc}", file=sys.stderr)
            continue
        out[name], versions[name] = segmenters.segment(seg, texts), seg.version
        if name == "jieba":  # its dictionary alone, no HMM for unknown words
            import jieba

            plain = segmenters.Segmenter("jieba-nohmm", "0",
                                         lambda t: jieba.lcut(t, HMM=False))
            out["jieba (no HMM)"] = segmenters.segment(plain, texts)
            versions["jieba (no HMM)"] = seg.version
    return out, versions


def output_words(bank, path) -> list:
    """The words of an output file in SIGHAN format aligned with the run's
    test set (one sentence a line), read as ``committee score`` reads an
    output; each sentence must have its gold sentence's characters."""
    from committee.corpus import read_corpus
    from committee.errors import InputError

    out = read_corpus(path)
    if len(out.words) != bank.n_sentences:
        raise InputError(str(path), None, f"has {len(out.words)} sentences, gold "
                         f"{bank.gold.path} has {bank.n_sentences}: every output needs one "
                         "line per gold line, in the same order")
    for i, w in enumerate(out.words):
        adaptive.check_words(bank, i, w, (str(path), out.lines[i]))
    return [list(w) for w in out.words]


def table2_outputs(run) -> dict[str, str]:
    """The Table 2 models' outputs that ``committee report`` wrote into the
    run (``report/table2/F2-20.txt`` …), by template and fraction."""
    from pathlib import Path

    from committee.pipeline.names import REPORT_DIR
    from committee.report.analyses.table2 import MODELS_DIR, OUTPUT_SUFFIX

    found = sorted(Path(run, REPORT_DIR, MODELS_DIR).glob(f"*{OUTPUT_SUFFIX}"))
    if not found:
        print(f"{run}: no Table 2 outputs in {REPORT_DIR}/{MODELS_DIR}/: run "
              f"`committee report {run} --only table2` first", file=sys.stderr)

    def order(p):
        template, _, share = p.stem.rpartition("-")
        return template, float(share) if re.fullmatch(r"[0-9.]+", share) else 0.0

    return {p.stem: str(p) for p in sorted(found, key=order)}


def systems_of(bank, names=DEFAULT_SEGMENTERS, outputs=None,
               gold_variants: bool = True) -> tuple[dict[str, list], dict[str, str]]:
    """The systems and the versions of the segmenters: output files
    (``outputs``, name -> path: the Table 2 models, say), segmenters, the
    gold perturbed at 2, 5, 10 and 20% and split fours.  A system whose
    words are those of one before it is left out (a line on standard error
    says so): rjieba's, say, where they are jieba's."""
    out = {n: output_words(bank, p) for n, p in (outputs or {}).items()}
    segs, versions = segmenter_systems(bank, names)
    out.update(segs)
    if gold_variants:
        for rate in (0.02, 0.05, 0.1, 0.2):
            out[f"gold {100 * rate:g}%"] = perturb(bank.gold.words, rate, 7)
        out["split fours"] = [[c for w in s for c in (w if len(w) == 4 else [w])]
                              for s in bank.gold.words]
    kept: dict[str, list] = {}
    for n, w in out.items():
        same = next((k for k, v in kept.items() if v == w), None)
        if same is not None:
            print(f"left out: {n} gives the words of {same}, sentence for sentence",
                  file=sys.stderr)
            continue
        kept[n] = w
    return kept, {n: v for n, v in versions.items() if n in kept}


def _fixed_cov(bank, p, theta_se, kappa, unseen, jac):
    """Model variance of the unseen sentences' totals and θ's share."""
    units = np.isin(bank.unit_sentence, unseen)
    v = p[units] * (1 - p[units])
    d = bank.d[units]
    var = np.array([[v.sum(), (d * v).sum()], [(d * v).sum(), (d * d * v).sum()]])
    lin = np.array([[1, 0], [0, 1], [1 - kappa[0], 0], [0, 1 - kappa[1]]])
    return lin @ var @ lin.T + np.outer(jac, jac) * theta_se ** 2


def fixed_set(bank, system, order, budget):
    """The budget's most informative sentences, the rest filled in by the model."""
    chosen = np.sort(order[:budget])
    rows, ok = system.counts(chosen)
    items = np.flatnonzero(np.isin(bank.unit_sentence, chosen))
    theta, se = itemresponse.ability(ok, bank.a, bank.b, items=items)
    kappa = estimators.ratios(rows, bank.gold_rows[chosen])
    unseen = np.setdiff1d(np.arange(bank.n_sentences), chosen)

    def totals(th):
        p = itemresponse.probability([th], bank.a, bank.b)[0]
        pred = estimators.predict(p, bank.d, bank.unit_sentence, bank.gold_rows, kappa)
        return rows.sum(0) + pred[unseen].sum(0), p

    mean, p = totals(theta)
    jac = (totals(theta + 1e-4)[0] - totals(theta - 1e-4)[0]) / 2e-4
    cov = _fixed_cov(bank, p, se, kappa, unseen, jac)
    return estimators.intervals(bank.known, mean, cov, KEYS)


def random_plain(bank, system, budget, rng):
    """A simple random sample and the ratio estimate of its totals."""
    s = bank.n_sentences
    idx = np.sort(rng.choice(s, size=budget, replace=False))
    x = np.column_stack((bank.gold_rows[idx], system.rows[idx]))  # n_gold, gold_d, 4 counts
    mean = x.mean(0)
    cov = (1 - budget / s) * np.cov(x, rowvar=False) / budget
    names = (*estimators.KNOWN, *estimators.ESTIMATED)
    steps = 1e-6 * np.maximum(np.abs(mean), 1.0)
    pts = np.vstack([mean] + [mean + h * e for h, e in zip(steps, np.eye(6))]
                    + [mean - h * e for h, e in zip(steps, np.eye(6))])
    vals = metrics.metric_arrays({k: pts[:, j] for j, k in enumerate(names)}, KEYS)
    out = {}
    for k in KEYS:
        v = vals[k]
        g = np.nan_to_num((v[1:7] - v[7:13]) / (2 * steps))
        se = float(np.sqrt(max(g @ cov @ g, 0.0)))
        out[k] = {"value": float(v[0]), "low": float(v[0] - 1.96 * se),
                  "high": float(v[0] + 1.96 * se)}
    return out


def _design_variance(e: np.ndarray, q: np.ndarray) -> float:
    """Variance of one draw's Hansen–Hurwitz estimate of Σ e with draw
    probabilities q: Σ e² / q − (Σ e)²."""
    return float((e * e / q).sum() - e.sum() ** 2)


def bound(bank, system, key: str = "fb") -> dict:
    """On the full test, for the contributions u_s = ∇g · y_s of each
    sentence to metric ``key`` (``g`` linearised at the full-test totals):
    ``r2_gold``, the share of their variance the ratio to the gold totals
    explains; ``r2_model``, the share of what is left that the 2PL's
    predictions (θ from every word, calibrated on every sentence) explain,
    ``r2_lengths`` that the word-length classes explain;
    and the standard deviation of a draw's estimate under each design
    relative to uniform draws with the ratio: ``variance`` and
    ``information`` (floor 0.2), ``oracle`` (q ∝ |residual|: no design
    does better with these predictions)."""
    rows, s = system.rows, bank.n_sentences
    _, g = estimators.gradient(bank.known, rows.sum(0), key)
    ratio = estimators.calibrate(rows, bank.gold_rows, np.arange(s), rows, with_model=False)
    theta, _ = itemresponse.ability(system.ok, bank.a, bank.b)
    p = itemresponse.probability([theta], bank.a, bank.b)[0]
    kappa = estimators.ratios(rows, bank.gold_rows)
    model = estimators.calibrate(
        estimators.predict(p, bank.d, bank.unit_sentence, bank.gold_rows, kappa),
        bank.gold_rows, np.arange(s), rows)
    u, e_ratio, e = rows @ g, (rows - ratio) @ g, (rows - model) @ g
    e_len = (rows - estimators.calibrate_lengths(bank.classes, np.arange(s), rows,
                                                 np.ones(s))) @ g
    uniform = _design_variance(e_ratio, np.full(s, 1.0 / s))
    size = estimators.spread(estimators.word_weights(g, bank.d, kappa), bank.unit_sentence, s)
    info = estimators.sentence_sums(bank.a ** 2 * p * (1 - p), bank.unit_sentence, s)
    out = {"r2_gold": 1 - e_ratio.var() / u.var(), "r2_model": 1 - e.var() / e_ratio.var(),
           "r2_lengths": 1 - e_len.var() / e_ratio.var()}
    for name, q in (("variance", estimators.selection_probabilities(size, adaptive.FLOOR)),
                    ("information", estimators.selection_probabilities(info, adaptive.FLOOR))):
        out[name] = np.sqrt(_design_variance(e, q) / uniform)
    out["oracle"] = np.sqrt((np.abs(e).sum() ** 2 - e.sum() ** 2) / uniform)
    return out


def bound_table(bank, systems) -> list[str]:
    """:func:`bound` of fb for every system, as a Markdown table."""
    cols = ("r2_gold", "r2_model", "r2_lengths", "variance", "information", "oracle")
    lines = ["| system | R² gold ratio | R² model on residual | R² lengths on residual | "
             "sd ÷ uniform: variance | information | oracle |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    for n, sys_ in systems.items():
        b = bound(bank, sys_)
        lines.append(f"| {n} | " + " | ".join(f"{b[c]:.3f}" for c in cols) + " |")
    return lines


#: Each model-assisted method's settings beyond the budget and the seed.
SETTINGS = {"adaptive": {}, "adaptive+lengths": {"predictor": "lengths"},
            "adaptive-v1": {"design": "information", "predictor": "model", "weighted": False,
                            "quantile": "normal"},
            "random+model": {"floor": 1.0}}


def estimate(method, bank, system, budget, seed, order):
    """One method's estimates of f1 and fb (and more) at one budget and seed."""
    if method == "fixed":
        return fixed_set(bank, system, order, budget)
    if method == "random":
        return random_plain(bank, system, budget, np.random.default_rng(seed))
    settings = adaptive.Settings(max_sentences=budget, target=1e-9, seed=seed,
                                 **SETTINGS[method])
    return adaptive.administer(bank, system, settings)["estimates"]


def kendall_tau(x, y) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(x, y).statistic)


def summary(results, full, method, budget, seeds) -> dict:
    """Per seed (rows) and system (columns): the absolute errors and the
    coverage of f1 and fb; per seed: Kendall's τ of the fb ranking.
    ``seeds``: a list, or a dict of one list per method."""
    names = list(full)
    if isinstance(seeds, dict):
        seeds = seeds[method]
    err = {k: np.zeros((len(seeds), len(names))) for k in KEYS}
    cov = {k: np.zeros((len(seeds), len(names)), bool) for k in KEYS}
    taus = []
    for i, seed in enumerate(seeds):
        for j, n in enumerate(names):
            e = results[method, budget, seed, n]
            for k in KEYS:
                err[k][i, j] = abs(e[k]["value"] - full[n][k])
                cov[k][i, j] = e[k]["low"] <= full[n][k] <= e[k]["high"]
        taus.append(kendall_tau([results[method, budget, seed, n]["fb"]["value"]
                                 for n in names], [full[n]["fb"] for n in names]))
    return {"err": err, "cov": cov, "tau": np.array(taus)}


def ratio_interval(a: np.ndarray, b: np.ndarray, draws: int = 2000) -> tuple:
    """mean(a) / mean(b) of two methods' per-seed mean errors, with a 95%
    bootstrap interval: the seeds of each resampled independently.

    >>> ratio_interval(np.array([1.0, 1.0]), np.array([2.0, 2.0]))
    (0.5, 0.5, 0.5)
    """
    rng = np.random.default_rng(0)
    ra = a[rng.integers(0, a.size, (draws, a.size))].mean(1)
    rb = b[rng.integers(0, b.size, (draws, b.size))].mean(1)
    lo, hi = np.percentile(ra / rb, [2.5, 97.5])
    return float(a.mean() / b.mean()), float(lo), float(hi)


def _mae(err: np.ndarray) -> str:
    """MAE in points ± its standard error over seeds (of the per-seed means)."""
    per_seed = err.mean(1)
    se = per_seed.std(ddof=1) / np.sqrt(per_seed.size) if per_seed.size > 1 else np.nan
    return f"{100 * per_seed.mean():.2f} ± {100 * se:.2f}"


def table(results, full, budgets, seeds, methods) -> list[str]:
    """The Markdown table of the results."""
    lines = ["| method | sentences | MAE f1 | MAE fb | fb MAE ÷ random [95%] | coverage f1 "
             "| coverage fb | τ (fb) |", "|:---|---:|---:|---:|---:|---:|---:|---:|"]
    needed, by_system = {}, {}
    for method in methods:
        for b in budgets:
            s = summary(results, full, method, b, seeds)
            if method not in needed and np.mean(s["err"]["fb"] <= 0.005) >= 0.9:
                needed[method] = b
            if method not in by_system and np.mean(s["err"]["fb"].mean(0) <= 0.005) >= 0.9:
                by_system[method] = b
            rel = "–"
            if method != "random" and "random" in methods:
                base = summary(results, full, "random", b, seeds)["err"]["fb"].mean(1)
                rel = "{:.2f} [{:.2f}, {:.2f}]".format(
                    *ratio_interval(s["err"]["fb"].mean(1), base))
            lines.append(f"| {method} | {b} | {_mae(s['err']['f1'])} | {_mae(s['err']['fb'])} "
                         f"| {rel} | {s['cov']['f1'].mean():.0%} | {s['cov']['fb'].mean():.0%} "
                         f"| {s['tau'].mean():.2f} |")
    lines.append("")
    lines.append("Sentences until 90% of (system, seed) pairs have fb within 0.5 points: "
                 + ", ".join(f"{m} {needed.get(m, f'> {budgets[-1]}')}" for m in methods))
    lines.append("Sentences until 90% of systems have an fb MAE (over seeds) of at most 0.5 "
                 "points: " + ", ".join(f"{m} {by_system.get(m, f'> {budgets[-1]}')}"
                                        for m in methods))
    return lines


def per_system(results, full, budgets, seeds, method) -> list[str]:
    """One method's fb MAE (points) and coverage per system and budget."""
    lines = [f"| {method}: system | " + " | ".join(f"{b}" for b in budgets) + " |",
             "|:---|" + "---:|" * len(budgets)]
    cells = [summary(results, full, method, b, seeds) for b in budgets]
    for j, n in enumerate(full):
        lines.append(f"| {n} | " + " | ".join(
            f"{100 * c['err']['fb'][:, j].mean():.2f}, {c['cov']['fb'][:, j].mean():.0%}"
            for c in cells) + " |")
    return lines


def _named_path(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: give NAME=PATH")
    return name, path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a finished run directory (its test.txt, test.weight, items)")
    ap.add_argument("--with", dest="segmenters", action="append", metavar="NAME",
                    help="a segmenter (committee.segmenters.load; repeatable); default: "
                         f"those installed of {', '.join(DEFAULT_SEGMENTERS)}")
    ap.add_argument("--output", action="append", type=_named_path, default=[],
                    metavar="NAME=PATH", help="a system's output file aligned with the run's "
                                              "test.txt, one sentence a line (repeatable)")
    ap.add_argument("--table2", action="store_true",
                    help="add every Table 2 model output of the run's report "
                         "(report/table2/F2-20.txt …: `committee report RUN --only table2`)")
    ap.add_argument("--no-gold-variants", dest="gold_variants", action="store_false",
                    help="leave out the perturbed gold and split fours")
    ap.add_argument("--budgets", type=int, nargs="+", default=[25, 50, 100, 200, 400])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--random-seeds", type=int, default=500,
                    help="seeds of the random sample (cheap: its mean error is the ratios' "
                         "denominator, so it gets many)")
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(DEFAULT_METHODS))
    args = ap.parse_args(argv)
    t0 = time.process_time()
    bank = adaptive_run.load_bank(f"{args.run}/test.txt", args.run)
    outputs = dict(table2_outputs(args.run)) if args.table2 else {}
    outputs.update(args.output)
    raw, versions = systems_of(bank, args.segmenters or DEFAULT_SEGMENTERS, outputs,
                               args.gold_variants)
    t_seg = time.process_time() - t0
    systems = {n: Precomputed(bank, w) for n, w in raw.items()}
    full = {n: committee.score(bank.gold, w, difficulty=bank.d) for n, w in raw.items()}
    mean_info = estimators.sentence_sums(
        itemresponse.mean_information(bank.a, bank.b, (-2.0, 2.0)), bank.unit_sentence,
        bank.n_sentences)
    order = np.argsort(-mean_info, kind="stable")
    seeds = {m: list(range(args.random_seeds if m == "random" else args.seeds))
             for m in args.methods}
    results = {}
    for method in args.methods:
        for b in args.budgets:
            for seed in seeds[method]:
                for n, s in systems.items():
                    results[method, b, seed, n] = estimate(method, bank, s, b, seed, order)
    print(f"{bank.n_sentences} test sentences, {bank.d.shape[0]} words; segmenters: "
          + (", ".join(f"{n} {v}" for n, v in versions.items()) or "none"))
    print(f"{len(full)} systems (full-test f1 / fb, %): " + "; ".join(
        f"{n} {100 * full[n]['f1']:.2f} / {100 * full[n]['fb']:.2f}" for n in full))
    print("\n".join(table(results, full, args.budgets, seeds, args.methods)))
    for method in ("adaptive", "adaptive+lengths", "adaptive-v1", "random"):
        if method in args.methods:
            print("\n" + "\n".join(per_system(results, full, args.budgets, seeds, method)))
    print("\n" + "\n".join(bound_table(bank, systems)))
    print(f"\ncommand: {' '.join(sys.argv)}")
    print(f"CPU-seconds: {time.process_time() - t0:.0f} (of which {t_seg:.0f} reading the run, "
          "fitting its items if missing, reading the outputs and running the segmenters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
