"""Adaptive testing against its alternatives (docs/benchmarks.md, "Adaptive
testing"; docs/method.md §16).

Systems outside the committee (the offline segmenters installed, the gold
perturbed at 2, 5, 10 and 20%, and a system that splits every
four-character word) are scored once on the whole test set of a run; each
system's per-sentence counts and per-word outcomes are computed once, and
the administration of a few sentences is simulated on them.  Four methods
at each budget of sentences, over several seeds:

* ``adaptive``: ``committee score --adaptive``'s draws and estimator;
* ``fixed``: the budget's most informative sentences (Fisher information
  averaged over θ in [-2, 2]), the rest filled in by the model (θ by EAP
  from those sentences; interval from the binomial variance of the unseen
  words and θ's standard error);
* ``random``: a simple random sample, the plain ratio estimate of the
  sample's totals (interval: delta method, finite population corrected);
* ``random+model``: uniform draws with the model-assisted estimator.

Prints, per method and budget, the mean absolute error of f1 and fb against
the full test (points), the coverage of the 95% intervals, Kendall's τ of
the systems' fb ranking with the full test's, and per method the sentences
needed until 90% of (system, seed) pairs have fb within 0.5 points; then
the command and its CPU-seconds.

    nice -n 10 .venv/bin/python benchmarks/bench_adaptive.py runs/default --seeds 5
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import committee
from committee import metrics
from committee.metrics import estimators, itemresponse
from committee.scoring import adaptive, adaptive_run
from committee.tasks.units.words import perturb
from committee.tasks.spans import match, spans

METHODS = ("adaptive", "fixed", "random", "random+model")
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
        self.unit_sentence = bank.unit_sentence

    def counts(self, indices):
        return self.rows[indices], self.ok[np.isin(self.unit_sentence, indices)]


def systems_of(bank) -> dict[str, list]:
    """The systems: installed offline segmenters, perturbed gold, split fours."""
    from committee import segmenters

    texts = [bank.gold.text(i) for i in range(bank.n_sentences)]
    out = {}
    for name in ("jieba", "snownlp"):
        try:
            seg = segmenters.load(name)
        except segmenters.SegmenterUnavailable:
            continue
        out[name] = segmenters.segment(seg, texts)
        if name == "jieba":  # its dictionary alone, no HMM for unknown words
            import jieba

            plain = segmenters.Segmenter("jieba-nohmm", "0",
                                         lambda t: jieba.lcut(t, HMM=False))
            out["jieba (no HMM)"] = segmenters.segment(plain, texts)
    for rate in (0.02, 0.05, 0.1, 0.2):
        out[f"gold {100 * rate:g}%"] = perturb(bank.gold.words, rate, 7)
    out["split fours"] = [[c for w in s for c in (w if len(w) == 4 else [w])]
                          for s in bank.gold.words]
    return out


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


def estimate(method, bank, system, budget, seed, order):
    if method == "fixed":
        return fixed_set(bank, system, order, budget)
    if method == "random":
        return random_plain(bank, system, budget, np.random.default_rng(seed))
    settings = adaptive.Settings(max_sentences=budget, target=1e-9, seed=seed,
                                 floor=1.0 if method == "random+model" else adaptive.FLOOR)
    return adaptive.administer(bank, system, settings)["estimates"]


def kendall_tau(x, y) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(x, y).statistic)


def table(results, full, budgets, seeds) -> list[str]:
    """The Markdown table of the results."""
    names = list(full)
    lines = ["| method | sentences | MAE f1 | MAE fb | coverage f1 | coverage fb | τ (fb) |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    needed = {}
    for method in METHODS:
        for b in budgets:
            err = {k: [] for k in KEYS}
            cov = {k: [] for k in KEYS}
            taus = []
            for seed in seeds:
                for n in names:
                    e = results[method, b, seed, n]
                    for k in KEYS:
                        err[k].append(abs(e[k]["value"] - full[n][k]))
                        cov[k].append(e[k]["low"] <= full[n][k] <= e[k]["high"])
                taus.append(kendall_tau([results[method, b, seed, n]["fb"]["value"]
                                         for n in names], [full[n]["fb"] for n in names]))
            if method not in needed and np.mean(np.array(err["fb"]) <= 0.005) >= 0.9:
                needed[method] = b
            lines.append(f"| {method} | {b} | {100 * np.mean(err['f1']):.2f} | "
                         f"{100 * np.mean(err['fb']):.2f} | {np.mean(cov['f1']):.0%} | "
                         f"{np.mean(cov['fb']):.0%} | {np.mean(taus):.2f} |")
    lines.append("")
    lines.append("Sentences until 90% of (system, seed) pairs have fb within 0.5 points: "
                 + ", ".join(f"{m} {needed.get(m, f'> {budgets[-1]}')}" for m in METHODS))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a finished run directory (its test.txt, test.weight, items)")
    ap.add_argument("--budgets", type=int, nargs="+", default=[25, 50, 100, 200, 400])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    t0 = time.process_time()
    bank = adaptive_run.load_bank(f"{args.run}/test.txt", args.run)
    raw = systems_of(bank)
    t_seg = time.process_time() - t0
    systems = {n: Precomputed(bank, w) for n, w in raw.items()}
    full = {n: committee.score(bank.gold, w, difficulty=bank.d) for n, w in raw.items()}
    mean_info = estimators.sentence_sums(
        itemresponse.mean_information(bank.a, bank.b, (-2.0, 2.0)), bank.unit_sentence,
        bank.n_sentences)
    order = np.argsort(-mean_info, kind="stable")
    seeds = list(range(args.seeds))
    results = {}
    for method in METHODS:
        for b in args.budgets:
            for seed in seeds:
                for n, s in systems.items():
                    results[method, b, seed, n] = estimate(method, bank, s, b, seed, order)
    print(f"{bank.n_sentences} test sentences, {bank.d.shape[0]} words; systems (full-test "
          "f1 / fb, %): " + "; ".join(f"{n} {100 * full[n]['f1']:.2f} / "
                                       f"{100 * full[n]['fb']:.2f}" for n in full))
    print("\n".join(table(results, full, args.budgets, seeds)))
    print(f"\ncommand: {' '.join(sys.argv)}")
    print(f"CPU-seconds: {time.process_time() - t0:.0f} (segmenters {t_seg:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
