#!/usr/bin/env python3
"""Scoring speed: the vectorised scorer (committee.metrics) against the plain
per-word reference implementation, on a gold test set of ~100k words.

    python3 benchmarks/bench_score.py [--outputs 10] [--seed 0] [--export DIR]

Gold: the embedded People's Daily 1998-01 test split (1,948 sentences);
training vocabulary: the words of the train split; difficulties: seeded
random multiples of 1/10.  Ten system outputs are made by perturbing gold
(output k, k = 1..10, splits each word at a random inner position with
probability k%, then merges each word with the previous one of its sentence
with probability k%).
Each output is scored by both implementations (the vectorised one through a
``metrics.Collector`` that prepares the gold side once, after loading); the script checks they agree
on every metric to 1e-9 and prints time per output and the speed-up.

``--export DIR`` also writes the gold, the outputs and the training word list
as SIGHAN files (UTF-8) with our scores (``scores.json``), for a comparison
with other scorers (see docs/metrics.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from committee import corpus as corpus_mod  # noqa: E402
from committee import metrics  # noqa: E402
from committee.metrics import significance
from committee import scoring  # noqa: E402
from committee.corpus import Corpus  # noqa: E402
from committee.errors import UndefinedMetricWarning  # noqa: E402
from reference import reference_scores  # noqa: E402  (tests/reference.py)


def perturb(words: list[list[str]], rate: float, rng: np.random.Generator) -> list[list[str]]:
    """Split each word (length >= 2) with probability ``rate`` at a random inner
    position, then merge each resulting word with the previous one of its
    sentence with probability ``rate``."""
    out = []
    for sentence in words:
        pieces: list[str] = []
        for w in sentence:
            if len(w) >= 2 and rng.random() < rate:
                k = int(rng.integers(1, len(w)))
                pieces.extend([w[:k], w[k:]])
            else:
                pieces.append(w)
        merged: list[str] = []
        for w in pieces:
            if merged and rng.random() < rate:
                merged[-1] += w
            else:
                merged.append(w)
        out.append(merged)
    return out


def agree(a: dict, b: dict, tol: float = 1e-9) -> list[str]:
    bad = []
    for key in (*metrics.METRICS, "recall_by_bin"):
        x, y = a[key], b[key]
        xs = x if isinstance(x, list) else [x]
        ys = y if isinstance(y, list) else [y]
        for u, v in zip(xs, ys):
            if (u is None) != (v is None) or (u is not None and abs(u - v) > tol):
                bad.append(f"{key}: {x} vs {y}")
                break
    if a["counts"] != b["counts"]:
        bad.append(f"counts: {a['counts']} vs {b['counts']}")
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--outputs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3,
                    help="timing repeats per output and scorer (the best is reported)")
    ap.add_argument("--export", metavar="DIR", help="write SIGHAN files and our scores here")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    gold = corpus_mod.read_embedded("test")
    train = corpus_mod.read_embedded("train")
    vocab = corpus_mod.training_words(train)
    load_s = time.perf_counter() - t0
    n = gold.n_words()
    rng = np.random.default_rng(args.seed)
    d = rng.integers(0, 11, size=n) / 10
    t0 = time.perf_counter()
    scorer = metrics.Collector(gold, difficulty=d, train_words=vocab)  # gold side, once
    prep_s = time.perf_counter() - t0
    print(f"gold: {len(gold)} sentences, {n} words, "
          f"{sum(len(w) for s in gold.words for w in s)} characters; "
          f"vocabulary {len(vocab)} words; loaded in {load_s:.2f} s; "
          f"gold side prepared in {prep_s:.3f} s")

    outputs = []
    for k in range(1, args.outputs + 1):
        words = perturb(gold.words, k / 100, np.random.default_rng([args.seed, k]))
        outputs.append(Corpus(path=f"perturbed-{k:02d}", words=words, lines=gold.lines))

    rows, failures, all_scores = [], [], {}
    for k, pred in enumerate(outputs, start=1):
        best = float("inf")
        for _ in range(args.repeats):
            t = time.perf_counter()
            fast = metrics.compute(scorer.collect(pred), undefined="ignore")
            best = min(best, time.perf_counter() - t)
        ref_s = float("inf")
        for _ in range(args.repeats):
            t = time.perf_counter()
            ref = reference_scores(gold.words, pred.words, d, vocab)
            ref_s = min(ref_s, time.perf_counter() - t)
        bad = agree(fast, ref)
        failures += [f"{pred.path}: {b}" for b in bad]
        rows.append((pred.path, k, fast["f1"], fast["fb"], best, ref_s))
        all_scores[pred.path] = fast

    print()
    print(f"{'output':<14}{'rate':>5}{'f1':>9}{'fb':>9}{'vectorised s':>14}"
          f"{'reference s':>13}{'ratio':>8}")
    for name, k, f1, fb, fast_s, ref_s in rows:
        print(f"{name:<14}{k:>4}%{100 * f1:>9.2f}{100 * fb:>9.2f}{fast_s:>14.4f}"
              f"{ref_s:>13.4f}{ref_s / fast_s:>7.1f}x")
    fast_mean = float(np.mean([r[4] for r in rows]))
    ref_mean = float(np.mean([r[5] for r in rows]))
    print(f"{'mean':<14}{'':>5}{'':>9}{'':>9}{fast_mean:>14.4f}{ref_mean:>13.4f}"
          f"{ref_mean / fast_mean:>7.1f}x")

    t = time.perf_counter()
    metrics.compute(metrics.collect(gold, outputs[0], difficulty=d, train_words=vocab),
                    undefined="ignore")
    oneshot_s = time.perf_counter() - t
    api = scoring.Scorer(gold, difficulty=d, train_words=vocab)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for o in outputs:
            api.score(o)
    api_s = (time.perf_counter() - t) / len(outputs)
    stats_a = scorer.collect(outputs[0])
    stats_b = scorer.collect(outputs[-1])
    t = time.perf_counter()
    significance.bootstrap(stats_a, n=1000, seed=12345)
    boot_s = time.perf_counter() - t
    t = time.perf_counter()
    paired = significance.paired_bootstrap(stats_a, stats_b, metric="fb", n=1000, seed=12345)
    paired_s = time.perf_counter() - t
    print()
    print(f"one-shot collect()+compute() with the gold side prepared anew: {oneshot_s:.4f} s")
    print(f"committee.Scorer.score (plausibility checks, error types, every metric), "
          f"per output: {api_s:.4f} s")
    print(f"bootstrap, 1000 resamples of {len(gold)} sentences, all metrics: {boot_s:.3f} s")
    print(f"paired bootstrap (fb), 1000 resamples: {paired_s:.3f} s; "
          f"share {outputs[0].path} better: {paired['share_a_better']:.3f}")

    print()
    print(f"agreement with the reference on every metric to 1e-9: "
          f"{'yes' if not failures else 'NO'}")
    for f in failures:
        print("  " + f)
    ok_ratio = ref_mean / fast_mean >= 10
    ok_time = max(r[4] for r in rows) < 0.1
    ok_boot = boot_s < 1.0
    print(f"target >= 10x faster than the reference: {'met' if ok_ratio else 'NOT met'} "
          f"({ref_mean / fast_mean:.1f}x)")
    print(f"target < 0.1 s per output after loading: {'met' if ok_time else 'NOT met'} "
          f"(slowest {max(r[4] for r in rows):.4f} s)")
    print(f"target bootstrap of 1000 resamples < 1 s: {'met' if ok_boot else 'NOT met'} "
          f"({boot_s:.3f} s)")

    if args.export:
        out = Path(args.export)
        out.mkdir(parents=True, exist_ok=True)
        corpus_mod.write_sighan(out / "gold.utf8", gold.words)
        for pred in outputs:
            corpus_mod.write_sighan(out / f"{pred.path}.utf8", pred.words)
        (out / "train_words.utf8").write_text("".join(w + "\n" for w in sorted(vocab)),
                                              encoding="utf-8")
        (out / "scores.json").write_text(json.dumps(all_scores, ensure_ascii=False, indent=1),
                                         encoding="utf-8")
        print(f"\nwrote SIGHAN files and scores.json to {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
