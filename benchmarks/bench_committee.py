#!/usr/bin/env python3
"""Benchmark ``committee run`` on the embedded corpus, side by side in one run.

Contenders (same K, templates, ratios, samples, attributes and CRF
parameters):

* ``pipeline, 2 workers`` and ``pipeline, 1 worker``: :func:`committee.pipeline.dataset.run`
  (loky), wall-clock including worker start-up and writing every output;
* ``baseline``: what a user would write otherwise: a sequential loop over
  ``sklearn_crfsuite.CRF`` with per-character feature dicts built the usual
  way, fitted on the very same member samples and predicting the test set;
  its difficulties must equal the pipeline's;
* ``floor``: the sum over members of the bare python-crfsuite work
  (``Trainer.append`` + ``Trainer.train`` + ``Tagger.tag``, as timed inside
  the 1-worker run) divided by the number of workers.

Peak memory per worker (``ru_maxrss`` of each worker process) and of the
parent are reported.

    python3 benchmarks/bench_committee.py [--size 9] [--iterations 30]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from committee import corpus as corpus_mod  # noqa: E402
from committee.learners import members as members_mod
from committee.pipeline import dataset
from committee.pipeline import layout
from committee.config import parse_config  # noqa: E402
from committee.tasks.spans import marks as span_marks  # noqa: E402

OFFSETS = {  # the templates of docs/method.md §2, written out the way a user would
    "F1": ((-1, 0, 1), (-1, 0), ()),
    "F2": ((-2, -1, 0, 1, 2), (-2, -1, 0, 1), ()),
    "F3": ((-2, -1, 0, 1, 2), (-2, -1, 0, 1), (-2, -1, 0)),
}


def char2features(sent: str, i: int, template: str) -> dict:
    """Per-character feature dict, as in the sklearn-crfsuite tutorial."""
    def c(j):
        return sent[j] if 0 <= j < len(sent) else "<P>"

    uni, bi, tri = OFFSETS[template]
    feats = {}
    for o in uni:
        feats[f"C{o}={c(i + o)}"] = 1.0
    for o in bi:
        feats[f"C{o}:{o + 1}={c(i + o)}{c(i + o + 1)}"] = 1.0
    for o in tri:
        feats[f"C{o}:{o + 2}={c(i + o)}{c(i + o + 1)}{c(i + o + 2)}"] = 1.0
    return feats


def sent2features(sent: str, template: str) -> list[dict]:
    return [char2features(sent, i, template) for i in range(len(sent))]


def baseline(committee, train_sentences, test, algorithm, params, seed):
    """Sequential sklearn-crfsuite loop; returns (difficulties, seconds)."""
    import sklearn_crfsuite

    t0 = time.perf_counter()
    test_chars = ["".join(s) for s in test.words]
    n_train = len(train_sentences)
    wrong = np.zeros(test.n_words(), dtype=np.int64)
    for m in committee:
        idx = members_mod.member_sample(m, n_train, seed)
        sample = [train_sentences[i] for i in idx]
        X = [sent2features("".join(s), m.template) for s in sample]
        y = [list(corpus_mod.to_bmes(s)) for s in sample]
        crf = sklearn_crfsuite.CRF(algorithm=algorithm, **params)
        crf.fit(X, y)
        X_test = [sent2features(s, m.template) for s in test_chars]
        tags = crf.predict(X_test)
        pred = [corpus_mod.from_bmes(s, t) for s, t in zip(test_chars, tags)]
        wrong += ~span_marks(test.words, pred)
    return wrong / len(committee), time.perf_counter() - t0


def make_config(out: Path, size: int, iterations: int, n_jobs: int, seed: int):
    return parse_config({
        "name": "bench",
        "corpus": {"train": {"builtin": "peoples-daily-1998", "split": "train"},
                   "test": {"builtin": "peoples-daily-1998", "split": "test"}},
        "committee": {"size": size, "templates": ["F1", "F2", "F3"],
                      "ratios": [0.1, 0.2, 0.3], "draw": "grid", "seed": seed},
        # the recipe of the figures in docs/benchmarks.md: L2 only (preset legacy)
        "crf": {"preset": "legacy", "params": {"max_iterations": iterations}},
        "parallel": {"backend": "loky", "n_jobs": n_jobs},
        "output": {"dir": str(out)},
    })


def member_timings(out: Path) -> list[dict]:
    """Per-member timings parsed from run.log (``append_s 1.2, ...``)."""
    rows = []
    for line in (out / "run.log").read_text(encoding="utf-8").splitlines():
        if " member " not in line or "f1 " not in line:
            continue
        tail = line.split("; ", 1)[1]
        rows.append({k: float(v) for k, v in (p.split(" ") for p in tail.split(", "))})
    return rows


def timed_run(cfg) -> float:
    t0 = time.perf_counter()
    dataset.run(cfg, progress=False)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=9, help="committee size K (default 9)")
    ap.add_argument("--iterations", type=int, default=30, help="L-BFGS iterations (default 30)")
    ap.add_argument("--seed", type=int, default=2016)
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="bench-committee-"))
    print(f"K={args.size}, templates F1/F2/F3 x ratios 0.1/0.2/0.3 (grid), lbfgs c2=1.0, "
          f"max_iterations={args.iterations}, embedded People's Daily 1998-01")

    wall2 = timed_run(make_config(tmp / "w2", args.size, args.iterations, 2, args.seed))
    print(f"pipeline, 2 workers: {wall2:8.1f} s", flush=True)
    wall1 = timed_run(make_config(tmp / "w1", args.size, args.iterations, 1, args.seed))
    print(f"pipeline, 1 worker:  {wall1:8.1f} s", flush=True)
    same = all((tmp / "w1" / f).read_bytes() == (tmp / "w2" / f).read_bytes()
               for f in layout.OUTPUT_FILES)
    print(f"outputs of 1 and 2 workers byte-identical: {'yes' if same else 'NO'}")

    rows1 = member_timings(tmp / "w1")
    bare = sum(r["append_s"] + r["train_s"] + r["tag_s"] for r in rows1)
    attrs = sum(r["attributes_s"] for r in rows1)
    floor = bare / 2
    print(f"floor (bare append+train+tag, sum {bare:.1f} s, over 2 workers): {floor:8.1f} s")
    print(f"attribute building, sum over members: {attrs:.1f} s")
    workers_peak = max(r["peak_rss_mb"] for r in member_timings(tmp / "w2"))
    parent_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    figures = {"K": args.size, "iterations": args.iterations, "pipeline_2_workers_s": wall2,
               "pipeline_1_worker_s": wall1, "floor_s": floor, "bare_sum_s": bare,
               "attributes_sum_s": attrs, "worker_peak_rss_mb": workers_peak,
               "parent_peak_rss_mb": parent_peak, "byte_identical_1_vs_2": same}
    if not args.skip_baseline:
        cfg = make_config(tmp / "w1", args.size, args.iterations, 1, args.seed)
        inputs = dataset.load_inputs(cfg)
        committee = members_mod.draw_committee(
            args.size, len(inputs.train_sentences), cfg.committee.templates,
            cfg.committee.ratios, draw="grid", seed=args.seed)
        d_base, wall_base = baseline(committee, inputs.train_sentences, inputs.test,
                                     "lbfgs", cfg.crf.trainer_params(), args.seed)
        d_pipe = np.array([float(x) for line in
                           (tmp / "w2" / "test.weight").read_text().splitlines()
                           for x in line.split()])
        equal = bool(np.array_equal(d_base, d_pipe))
        print(f"baseline (sequential sklearn-crfsuite): {wall_base:8.1f} s")
        print(f"baseline difficulties equal the pipeline's: {'yes' if equal else 'NO'} "
              f"(max |diff| {np.abs(d_base - d_pipe).max():.3g})")
        figures.update(baseline_s=wall_base, baseline_equal=equal,
                       speedup_vs_baseline=wall_base / wall2)
    figures.update(speedup_1_to_2=wall1 / wall2, over_floor=wall2 / floor)
    print()
    if "baseline_s" in figures:
        print(f"speed-up over the baseline:   {figures['speedup_vs_baseline']:.2f}x  (target >= 4x)")
    print(f"pipeline / floor:             {figures['over_floor']:.2f}x  (target <= 1.15x)")
    print(f"1 -> 2 workers:               {figures['speedup_1_to_2']:.2f}x  (target >= 1.8x)")
    print(f"peak memory: worker {workers_peak:.0f} MB, parent {parent_peak:.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
