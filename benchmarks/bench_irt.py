#!/usr/bin/env python3
"""IRT fit at committee scale: time and peak memory of ``committee.metrics.itemresponse.fit``.

    nice -n 10 python3 benchmarks/bench_irt.py [--k 90 297] [--n 188000] [--seed 0]

The response matrix is simulated from a 2PL model shaped like a CWS
committee's marks: members' abilities θ ~ N(0, 1), discriminations
a ~ lognormal(0.3, 0.4), difficulties b ~ N(-3, 1.5) (most words are easy:
a large share is right for every member).  Each K is fitted in a fresh
process, so the peak resident memory printed (``ru_maxrss``) is that fit's
alone (the simulated matrix included).  Prints, per K: distinct response
patterns, EM iterations, seconds, peak MB, and the correlation of the
estimates with the true b, a and θ.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def simulate(k: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    a = rng.lognormal(0.3, 0.4, n)
    b = rng.normal(-3.0, 1.5, n)
    y = np.empty((k, n), dtype=bool)
    for s in range(0, n, 16384):  # blocks: no (K, N) float matrix
        p = 1 / (1 + np.exp(-a[s:s + 16384] * (theta[:, None] - b[s:s + 16384])))
        y[:, s:s + 16384] = rng.random(p.shape) < p
    return y, theta, a, b


def one(k: int, n: int, seed: int) -> dict:
    from committee.metrics import itemresponse

    y, theta, a, b = simulate(k, n, seed)
    t = time.perf_counter()
    f = itemresponse.fit(y)
    seconds = time.perf_counter() - t
    varied = ~(f.all_correct | f.all_wrong)
    r = lambda u, v: float(np.corrcoef(u, v)[0, 1])  # noqa: E731
    return {"k": k, "n": n, "patterns": f.settings["n_patterns"],
            "all_correct": int(f.all_correct.sum()), "converged": f.converged,
            "iterations": f.n_iter, "seconds": seconds,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "r_b": r(f.difficulty[varied], b[varied]), "r_a": r(f.discrimination[varied],
                                                                   a[varied]),
            "r_theta": r(f.ability, theta)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", type=int, nargs="+", default=[90, 297])
    ap.add_argument("--n", type=int, default=188_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.k[0], args.n, args.seed)))
        return
    print(f"{'K':>4} {'N':>8} {'patterns':>9} {'all right':>9} {'iter':>5} {'conv':>5} "
          f"{'seconds':>8} {'peak MB':>8} {'r(b)':>6} {'r(a)':>6} {'r(θ)':>6}")
    for k in args.k:
        out = subprocess.run([sys.executable, __file__, "--one", "--k", str(k), "--n",
                              str(args.n), "--seed", str(args.seed)],
                             check=True, capture_output=True, text=True).stdout
        m = json.loads(out.strip().splitlines()[-1])
        print(f"{m['k']:>4} {m['n']:>8,} {m['patterns']:>9,} {m['all_correct']:>9,} "
              f"{m['iterations']:>5} {str(m['converged']):>5} {m['seconds']:>8.1f} "
              f"{m['peak_mb']:>8.0f} {m['r_b']:>6.3f} {m['r_a']:>6.3f} {m['r_theta']:>6.3f}",
              flush=True)


if __name__ == "__main__":
    main()
