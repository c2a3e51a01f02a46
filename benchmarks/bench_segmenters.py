#!/usr/bin/env python3
"""Load time, speed and word F1 of every installed segmenter, side by side.

Each segmenter of ``committee.segmenters`` that is installed (or each
``--with NAME``, ``cmd:COMMAND`` included) is loaded in a fresh Python
process (so one's imports do not make another's load look fast), then
segments the same sentences: by default the first 600 of the embedded
People's Daily test split.  Printed as a Markdown table:

    python3 benchmarks/bench_segmenters.py --sentences 600 --repeat 3

- load s: import and model load, in a fresh process
- segment s: the best of ``--repeat`` passes over the sentences
  (``committee.segmenters.segment``, the character check included)
- chars/s: characters of the sentences / segment s
- +MB: how much the process's resident set size grew from before the
  load to the end (the model, and what its package imports)
- p, r, f1: word precision, recall and F1 against the gold segmentation

The network is refused in the child processes (proxy variables point at a
closed port), as every adapter must run with what its package ships.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from committee import corpus, metrics, segmenters  # noqa: E402


def _sentences(n: int) -> corpus.Corpus:
    test = corpus.read_embedded("test")
    return corpus.Corpus(test.path, test.words[:n], test.lines[:n])


def _rss_mb() -> float:
    """Resident set size of this process now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(name: str, n: int, repeat: int) -> dict:
    """Measure one segmenter in this process; return its row."""
    gold = _sentences(n)
    texts = ["".join(s) for s in gold.words]
    base_mb = _rss_mb()
    t0 = time.perf_counter()
    seg = segmenters.load(name)
    load_s = time.perf_counter() - t0
    best, words = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        words = segmenters.segment(seg, texts)
        best = min(best, time.perf_counter() - t0)
    scores = metrics.compute(metrics.collect(gold, corpus.Corpus(seg.name, words, gold.lines)))
    chars = sum(len(t) for t in texts)
    return {"name": seg.name, "version": seg.version, "load_s": load_s, "segment_s": best,
            "chars": chars, "chars_per_s": chars / best,
            "model_mb": _rss_mb() - base_mb,
            "p": scores["p"], "r": scores["r"], "f1": scores["f1"]}


def installed() -> list[str]:
    return [name for name, tool in segmenters.SEGMENTERS.items()
            if importlib.util.find_spec(tool.module) is not None]


def _measure(name: str, n: int, repeat: int) -> dict:
    env = dict(os.environ)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env[var] = "http://127.0.0.1:9"
    proc = subprocess.run([sys.executable, __file__, "--child", name, "--sentences", str(n),
                           "--repeat", str(repeat)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-2:])
        return {"name": name, "error": tail or f"exit status {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(rows: list[dict]) -> str:
    head = ("| segmenter | version | load s | segment s | chars/s | +MB | p | r | f1 |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
    body = []
    for r in rows:
        if "error" in r:
            body.append(f"| {r['name']} | failed: {r['error']} |  |  |  |  |  |  |  |")
            continue
        body.append(f"| {r['name']} | {r['version']} | {r['load_s']:.2f} | {r['segment_s']:.2f} "
                    f"| {r['chars_per_s']:,.0f} | {r['model_mb']:.0f} | {r['p']:.3f} "
                    f"| {r['r']:.3f} | {r['f1']:.3f} |")
    return head + "\n".join(body) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--with", dest="names", action="append", metavar="NAME",
                    help="a segmenter or cmd:COMMAND (repeatable; default: every installed one)")
    ap.add_argument("--sentences", type=int, default=600,
                    help="first N sentences of the embedded test split (default 600)")
    ap.add_argument("--repeat", type=int, default=3, help="passes; the best is kept")
    ap.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.sentences, args.repeat)))
        return 0
    names = args.names or installed()
    gold = _sentences(args.sentences)
    print(f"{len(gold.words):,} sentences ({sum(len(w) for s in gold.words for w in s):,} "
          f"characters) of the embedded People's Daily test split; best of {args.repeat}; "
          f"{os.cpu_count()} CPUs\n", flush=True)
    rows = []
    for name in names:
        rows.append(_measure(name, args.sentences, args.repeat))
        print(f"  {name}: done", file=sys.stderr, flush=True)
    print(table(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
