"""Where ``committee.size: auto`` stops, what it costs and how far its
difficulties are from a large committee's (docs/benchmarks.md, "Committees
that stop when their difficulties are stable").

Reads one finished fixed-size run (K = 297, say).  Member k of a committee
does not depend on its size (docs/method.md §3), so the first k members of
that run *are* the committee of size k, and an auto run that stops at k is
that committee byte for byte (tests/test_auto_size.py): the stopping point
of each target is found by applying the rule of ``size: auto`` (the first
``--min-size`` members, then rounds of ``--round``) to the prefixes'
split-half reliability, side by side in one invocation.  For each target it
prints the size reached, the members' time against the whole run's (each
member's attributes, training and tagging seconds as run.log times them in
its worker: single-threaded work, so its share is the share of the CPU), the
Pearson correlation of d with the whole committee's, and the fb of each
segmenter under both.  ``--check DIR`` also runs ``committee run`` with
``size: auto`` on a copy of the run's members (nothing is trained) and
checks that it stops where this script says.

    python benchmarks/bench_auto_size.py runs/nlpcc2016-weibo --with jieba thulac snownlp \
        --check runs/auto-check --config configs/nlpcc2016-weibo.yaml
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import committee
from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee import corpus as corpus_mod

_MEMBER = re.compile(r"INFO member (\d+) \(.*?\): f1 [^;]*; (.*)$")


def member_seconds(run_dir: Path) -> dict[int, float]:
    """Each member's attributes + training + tagging seconds (its last log line)."""
    out = {}
    for line in (run_dir / layout.LOG_FILE).read_text(encoding="utf-8").splitlines():
        m = _MEMBER.search(line)
        if m:
            t = dict(kv.rsplit(" ", 1) for kv in m.group(2).split(", "))
            out[int(m.group(1))] = sum(float(t.get(k, 0)) for k in
                                       ("attributes_s", "train_s", "tag_s"))
    return out


def stop_at(marks: np.ndarray, target: float, min_size: int, round_: int) -> tuple[int, float]:
    """The size ``size: auto`` stops at, and its reliability."""
    k = min(min_size, len(marks))
    while True:
        value = difficulty_stats.reliability(marks[:k])
        if (value is not None and value >= target) or k >= len(marks):
            return k, value
        k = min(len(marks), k + round_)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--targets", type=float, nargs="+", default=[0.98, 0.99, 0.995])
    ap.add_argument("--min-size", type=int, default=10)
    ap.add_argument("--round", type=int, default=10)
    ap.add_argument("--with", dest="segmenters", nargs="*", default=[])
    ap.add_argument("--check", type=Path, help="a directory for the committee run check")
    ap.add_argument("--config", type=Path, help="the run's config (for --check)")
    ap.add_argument("--set", action="append", default=[], help="its overrides (for --check)")
    args = ap.parse_args(argv)

    run = args.run_dir
    marks = np.load(run / layout.MARKS_FILE)["marks"]
    K = len(marks)
    gold = corpus_mod.read_corpus(run / layout.TEST_FILE)
    lengths = [len(s) for s in gold.words]
    seconds = member_seconds(run)
    missing = sorted(set(range(K)) - set(seconds))
    if missing:
        sys.exit(f"run.log has no timings of members {missing[:5]}")
    total = sum(seconds[k] for k in range(K))
    full = difficulty_stats.prefix_difficulties(marks, [K])[0]

    def per_sentence(d):
        ends = np.cumsum(lengths)
        return [d[e - n:e].tolist() for n, e in zip(lengths, ends)]

    outputs = {}
    for name in args.segmenters:
        path = run / f"bench-{name}.txt"
        if not path.exists():
            subprocess.run([sys.executable, "-m", "committee", "segment", "--with", name, "--quiet",
                            "-o", str(path), str(run / layout.TEST_FILE)], check=True)
        outputs[name] = corpus_mod.read_corpus(path).words

    def fb(d) -> dict[str, float]:
        scorer = committee.Scorer(gold.words, difficulty=per_sentence(d))
        return {n: scorer.score(w).fb for n, w in outputs.items()}

    print(f"run {run}: K = {K}, {marks.shape[1]:,} test words, members' time {total:,.0f} s "
          f"(attributes + training + tagging), reliability of the whole committee "
          f"{difficulty_stats.reliability(marks)}")
    reference = fb(full)
    cols = ["target", "K reached", "reliability", "members' s", "share of K's", "Pearson d vs K",
            *(f"{n} fb ({reference[n] * 100:.2f} at K)" for n in outputs)]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    found = {}
    for target in args.targets:
        k, value = stop_at(marks, target, args.min_size, args.round)
        found[target] = k
        d = difficulty_stats.prefix_difficulties(marks, [k])[0]
        cpu = sum(seconds[i] for i in range(k))
        row = [f"{target}", f"{k}", f"{value}", f"{cpu:,.0f}", f"{cpu / total:.3f}",
               f"{difficulty_stats.pearson(d, full):.4f}",
               *(f"{v * 100:.2f} ({(v - reference[n]) * 100:+.2f})" for n, v in fb(d).items())]
        print("| " + " | ".join(row) + " |")
    sizes = sorted({s for s in (10, 20, 30, 45, 60, 90, 150) if s < K} | {K})
    print("\nprefix | " + " | ".join(map(str, sizes)))
    print("reliability | " + " | ".join(str(difficulty_stats.reliability(marks[:s])) for s in sizes))
    prefix = {s: difficulty_stats.prefix_difficulties(marks, [s])[0] for s in sizes}
    print("√reliability | " + " | ".join(
        f"{np.sqrt(difficulty_stats.reliability(marks[:s]) or 0):.4f}" for s in sizes))
    print("mean standard error of d | " + " | ".join(
        f"{np.sqrt(prefix[s] * (1 - prefix[s]) / s).mean():.4f}" for s in sizes))
    print("Pearson with K | " + " | ".join(
        f"{difficulty_stats.pearson(difficulty_stats.prefix_difficulties(marks, [s])[0], full):.4f}"
        for s in sizes))
    if args.check:
        _check(run, args, found, marks)
    return 0


def _check(run: Path, args, found: dict, marks: np.ndarray) -> None:
    """``committee run CONFIG`` with size: auto on a copy of the run's
    members and run.json: the same committee at another size, so nothing is
    trained; it must stop where :func:`stop_at` says, with the prefix's marks."""
    for target, k in found.items():
        out = args.check / f"auto-{target}"
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        shutil.copytree(run / layout.MEMBER_DIR, out / layout.MEMBER_DIR)
        shutil.copy(run / layout.STATE_FILE, out / layout.STATE_FILE)
        sets = [*args.set, "committee.size=auto", f"committee.max_size={len(marks)}",
                f"committee.stable={{reliability: {target}, round: {args.round}, "
                f"min_size: {args.min_size}}}", f"output.dir={out}"]
        subprocess.run([sys.executable, "-m", "committee", "run", str(args.config), "--quiet",
                        *(x for kv in sets for x in ("--set", kv))], check=True)
        manifest = json.loads((out / layout.MANIFEST_FILE).read_text(encoding="utf-8"))
        got = manifest["committee"]["size"]
        same = np.array_equal(np.load(out / layout.MARKS_FILE)["marks"], marks[:k])
        trained = (out / layout.LOG_FILE).read_text(encoding="utf-8").count("): f1 ")
        print(f"check target {target}: committee run stopped at K = {got} (expected {k}); "
              f"marks equal to the first {k} members': {same}; members trained: {trained}")
        if got != k or not same or trained:
            sys.exit("check failed")


if __name__ == "__main__":
    raise SystemExit(main())
