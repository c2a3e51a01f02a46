#!/usr/bin/env python3
"""1PL and 2PL fits on real committees' marks: convergence, EM iterations, time.

    nice -n 10 python3 benchmarks/bench_irt_committees.py RUN_DIR... [--prefixes 5 12]

For each finished ``committee run`` directory, fits ``committee.metrics.itemresponse.fit``
to its ``marks.npz`` (K members x N test words) with the 1PL and the 2PL
model (500 EM iterations at most, tolerance 1e-3, as ``committee irt``),
and prints one Markdown row per fit: K, distinct response patterns, model,
converged, EM iterations, largest change at the end, seconds, the largest
member θ, and the model ``committee irt --model auto`` ends with.  With
``--prefixes LO HI``, the fits are of the committee's first K' members for
every K' from LO to HI (a prefix of the member list is itself a committee)
instead of the whole committee.  Fits below ``irt.MIN_K`` members, which
``committee irt`` refuses, are measured too.  docs/irt.md ("Small
committees") records the output.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from committee.metrics import itemresponse

#: ``committee irt`` refuses fewer members (this script fits them all the same).
REFUSED_BELOW = itemresponse.MIN_K


def fits(marks: np.ndarray, max_iter: int) -> list[dict]:
    """The 1PL and the 2PL fit of ``marks``, timed."""
    rows = []
    for model in ("1pl", "2pl"):
        start = time.perf_counter()
        f = itemresponse.fit(marks, model=model, max_iter=max_iter)
        rows.append({"model": model, "converged": f.converged, "iterations": f.n_iter,
                     "change": f.max_change, "seconds": time.perf_counter() - start,
                     "patterns": f.settings["n_patterns"], "max_theta": float(f.ability.max())})
    return rows


def auto(k: int, rows: list[dict]) -> str:
    """What ``--model auto`` ends with (``irtrun.fit_model``)."""
    if k < REFUSED_BELOW:
        return "refused"
    by = {r["model"]: r for r in rows}
    chosen = itemresponse.choose_model(k)
    if chosen == "2pl" and not by["2pl"]["converged"]:
        chosen = "1pl (2PL did not converge)"
    return chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    ap.add_argument("--prefixes", type=int, nargs=2, metavar=("LO", "HI"))
    ap.add_argument("--max-iter", type=int, default=500)
    args = ap.parse_args()
    itemresponse.MIN_K = 1  # measure below the refusal too
    warnings.simplefilter("ignore")
    print("| run | K | patterns | model | converged | EM iterations | last change | seconds "
          "| max member θ | auto |")
    print("|:---|---:|---:|:---|:---|---:|---:|---:|---:|:---|")
    for run in args.runs:
        with np.load(run / "marks.npz") as f:
            marks = f["marks"]
        sizes = (range(args.prefixes[0], args.prefixes[1] + 1) if args.prefixes
                 else [marks.shape[0]])
        for k in sizes:
            rows = fits(marks[:k], args.max_iter)
            for r in rows:
                print(f"| {run.name} | {k} | {r['patterns']:,} | {r['model'].upper()} "
                      f"| {'yes' if r['converged'] else 'no'} | {r['iterations']} "
                      f"| {r['change']:.2g} | {r['seconds']:.1f} | {r['max_theta']:.2f} "
                      f"| {auto(k, rows) if r['model'] == '1pl' else ''} |", flush=True)


if __name__ == "__main__":
    main()
