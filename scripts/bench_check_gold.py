"""How well ``committee check-gold`` finds annotation errors, against
cleanlab, variation n-grams alone, the IRT flag list and difficulty alone
(docs/benchmarks.md, "Suspicious gold").

For each finished run of segmentation given and each seed, errors are
injected into its test gold (:func:`committee.metrics.suspicion.inject_words`:
merges, splits and boundary shifts at ``--rate`` of the words, each new
word a word of the corpus), and every method ranks the corrupted gold
using the members' readings that the run recorded (the members never saw
the test set, so the corruption needs no retraining).  For n injected
errors each method's list is cut at n and 2n rows: recall@k is the share
of the errors its first k rows touch (an error touched twice counts
once), precision@k the share of those rows that touch one; AP is the
average precision over the whole list.

The methods:

* ``check-gold``: :func:`committee.metrics.suspicion.check_words`;
* ``variation n-grams``: its candidates that the training corpus or the
  rest of the test gold reads another way, by the share of that other
  reading (Dickinson & Meurers 2003);
* ``cleanlab``: ``cleanlab.token_classification.filter.find_label_issues``
  on the gold's BMES tags with, as probabilities, the members' tags
  averaged (each member's decoding is one-hot: the run keeps decodings,
  not marginals), smoothed by 1e-3; a flagged character stands for the
  gold word that holds it;
* ``irt flags``: ``committee irt``'s ``irt-flags.tsv`` order (all-wrong
  words, then negative and flat discriminations), refitted on the
  corrupted gold's marks (``--no-irt`` skips it);
* ``difficulty``: the corrupted gold's words by difficulty (share of
  members that miss them), ties in corpus order.

``--fit`` prints the weights of :data:`committee.metrics.suspicion.WEIGHTS`
fitted on the first run's clean gold with
:data:`~committee.metrics.suspicion.FIT_RATE` injected errors (seed 1000):
a candidate is an error when it overlaps one and proposes the reading the
injection replaced (:func:`committee.metrics.suspicion.restores`).

Usage: python scripts/bench_check_gold.py RUN [RUN ...] [--rate 0.02] [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from committee.errors import PlausibilityWarning
from committee.metrics import suspicion as S
from committee.pipeline import marks as marks_mod
from committee.scoring import goldcheck
from committee.tasks import spans as spans_mod


def bmes(ends: np.ndarray, sentence_starts: np.ndarray) -> np.ndarray:
    """BMES tag ids (B 0, M 1, E 2, S 3) of every character from word ends."""
    begin = np.zeros(ends.size, dtype=bool)
    begin[0] = True
    begin[1:] = ends[:-1]
    begin[sentence_starts] = True
    return np.where(begin, np.where(ends, 3, 0), np.where(ends, 2, 1))


def word_rows(words) -> tuple[np.ndarray, np.ndarray]:
    s = spans_mod.spans(words)
    return s.starts, s.ends


def corrupted_marks(words, member_words) -> np.ndarray:
    return np.stack([spans_mod.marks(words, m) for m in member_words])


def cleanlab_rows(words, pred, offsets):
    from cleanlab.token_classification.filter import find_label_issues

    gold = bmes(S.ends_of(words), offsets[:-1])
    votes = np.zeros((gold.size, 4))
    for member in pred:
        votes[np.arange(gold.size), bmes(member, offsets[:-1])] += 1
    probs = (votes / len(pred) + 1e-3) / (1 + 4e-3)
    labels = [gold[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
    probs = [probs[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    issues = find_label_issues(labels, probs)
    starts, ends = word_rows(words)
    seen, out = set(), []
    for s, j in issues:
        c = int(offsets[s]) + j
        w = int(np.searchsorted(ends, c, side="right"))
        if w not in seen:
            seen.add(w)
            out.append(w)
    out = np.array(out, dtype=np.int64)
    return starts[out], ends[out]


def irt_rows(words, marks):
    from committee.scoring import irt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)
        fit, _ = irt.fit_model("marks", marks, "auto")
    order = np.array(irt.flag_order(fit, irt.flags(fit)), dtype=np.int64)
    starts, ends = word_rows(words)
    return starts[order], ends[order]


def difficulty_rows(words, marks):
    d = 1 - marks.mean(0)
    order = np.argsort(-d, kind="stable")
    starts, ends = word_rows(words)
    return starts[order], ends[order]


def variation_rows(check: S.Check):
    c = check.candidates
    ex = c.extra
    alt, gold = ex["train_alt"] + ex["test_alt"], ex["train_gold"] + ex["test_gold"]
    keep = np.flatnonzero(alt > 0)
    share = alt[keep] / (alt[keep] + gold[keep])
    order = keep[S.rank(c.start[keep], c.end[keep], share + 1e-6 * np.log1p(alt[keep]))]
    return c.start[order], c.end[order]


def fit_weights(run: str) -> None:
    p, test, pred, train_words, vocabulary = goldcheck.load_inputs(run)
    inject_vocab = vocabulary | {w for s in test.words for w in s}
    bad, errors = S.inject_words(test.words, S.FIT_RATE, 1000, inject_vocab)
    c, train, testvar, text = S.word_inputs(bad, pred, train_words)
    x = S.features(c, text, train, testvar, vocabulary)
    y = S.restores(c, S.ends_of(test.words), errors).astype(float)
    w = S.fit(x, y)
    print(f"{run}: {len(errors)} injected errors, {len(c)} candidates, {int(y.sum())} of them "
          "propose the reading an error replaced")
    print("WEIGHTS = np.array([" + ", ".join(f"{v:.4f}" for v in w) + "])")
    print(f"FITTED_RATE = {y.mean():.4f}")


def bench(run: str, rate: float, seeds, methods) -> list[dict]:
    t = time.process_time()
    p, test, pred, train_words, vocabulary = goldcheck.load_inputs(run)
    print(f"\n## {run}: K = {pred.shape[0]}, {test.n_words():,} test words "
          f"(read in {time.process_time() - t:.1f} CPU-s)", flush=True)
    inject_vocab = vocabulary | {w for s in test.words for w in s}
    texts = ["".join(s) for s in test.words]
    offsets = np.concatenate(([0], np.cumsum([len(x) for x in texts])))
    member_words = [marks_mod.words_from_ends(texts, m) for m in pred]
    t = time.process_time()
    clean = S.check_words(test.words, pred, train_words, vocabulary)
    print(f"clean gold: {len(clean.order):,} rows, expected errors {clean.expected:.0f} "
          f"(rate {clean.rate:.4f}); check-gold took {time.process_time() - t:.1f} CPU-s",
          flush=True)
    results = []
    for seed in seeds:
        bad, errors = S.inject_words(test.words, rate, seed, inject_vocab)
        n = len(errors)
        ks = (n, 2 * n)
        check = S.check_words(bad, pred, train_words, vocabulary)
        rows = {"check-gold": (check.candidates.start[check.order],
                               check.candidates.end[check.order])}
        if "variation" in methods:
            rows["variation n-grams"] = variation_rows(check)
        marks = corrupted_marks(bad, member_words)
        if "cleanlab" in methods:
            rows["cleanlab"] = cleanlab_rows(bad, pred, offsets)
        if "irt" in methods:
            rows["irt flags"] = irt_rows(bad, marks)
        rows["difficulty"] = difficulty_rows(bad, marks)
        for name, (s, e) in rows.items():
            r = S.detection(s, e, errors, ks)
            results.append({"run": run, "seed": seed, "method": name, "n": n,
                            "rows": r["n_rows"], "r@n": r[f"recall@{n}"],
                            "p@n": r[f"precision@{n}"], "r@2n": r[f"recall@{2 * n}"],
                            "p@2n": r[f"precision@{2 * n}"], "ap": r["ap"]})
        extra = check.expected - clean.expected
        print(f"seed {seed}: {n} errors injected; check-gold expects {check.expected:.0f} "
              f"errors in its list ({extra:+.0f} against the clean gold)", flush=True)
    return results


def table(results) -> str:
    import pandas as pd

    df = pd.DataFrame(results)
    g = df.groupby(["run", "method"], sort=False)
    lines = ["| run | method | rows | recall@n | precision@n | recall@2n | precision@2n | AP |",
             "|---|---|---|---|---|---|---|---|"]
    for (run, method), part in g:
        cells = [f"{part[c].mean():.3f} ± {part[c].std(ddof=0):.3f}"
                 for c in ("r@n", "p@n", "r@2n", "p@2n", "ap")]
        lines.append(f"| {run} | {method} | {part['rows'].mean():,.0f} | " + " | ".join(cells)
                     + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--rate", type=float, default=0.02)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--fit", action="store_true", help="print the model's weights and stop")
    ap.add_argument("--no-irt", action="store_true")
    ap.add_argument("--no-cleanlab", action="store_true")
    args = ap.parse_args(argv)
    if args.fit:
        fit_weights(args.runs[0])
        return 0
    methods = {"variation"} | ({"irt"} if not args.no_irt else set()) | (
        {"cleanlab"} if not args.no_cleanlab else set())
    results = []
    for run in args.runs:
        results += bench(run, args.rate, args.seeds, methods)
    print(f"\n### {100 * args.rate:g}% of the words injected, seeds "
          f"{' '.join(map(str, args.seeds))} (mean ± sd)\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
