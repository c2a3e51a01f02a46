"""How many of ``committee check-gold``'s first rows are real annotation
errors, by a hand-judged sample of the same run's rows (docs/benchmarks.md,
"Suspicious gold", "Against a hand-judged sample").

The run's list is ranked afresh (:func:`committee.scoring.checkgold.check_gold`,
nothing written), and its first k rows (k = 20, 50, 100 by default) are
looked up in the sample (:mod:`committee.metrics.checkgold_judged`): a row is
judged when the sample has its sentence, start, end, gold and proposed
reading.  Printed for each k: the rows judged gold-wrong, gold-right and
unclear, the rows not judged, and the precision (gold-wrong among the rows
judged gold-wrong or gold-right).  ``--pending N`` lists the rows of the
first N that the sample does not judge yet, with their evidence, for
judging.

Usage: python benchmarks/bench_check_gold_adjudicated.py [RUN] [--judged FILE] [--ks 20 50 100]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from committee.metrics import checkgold_judged as J
from committee.scoring import checkgold

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "check-gold" / "peoples-daily-adjudicated.tsv"


def report(rows, judged, ks) -> str:
    """The table of :func:`committee.metrics.checkgold_judged.precision_at`."""
    lines = ["| first k rows | gold-wrong | gold-right | unclear | not judged | precision |",
             "|---|---|---|---|---|---|"]
    for a in J.precision_at(rows, judged, ks):
        p = "–" if a.precision is None else f"{a.precision:.2f}"
        lines.append(f"| {a.k} | {a.gold_wrong} | {a.gold_right} | {a.unclear} | "
                     f"{a.unjudged} | {p} |")
    return "\n".join(lines)


def pending(rows, judged, n) -> str:
    """The rows of the first ``n`` the sample does not judge, tab-separated."""
    out = []
    for i, r in enumerate(rows[:n], 1):
        if J.key(r) not in judged:
            out.append("\t".join(str(x) for x in (i, r["sentence"], r["start"], r["end"],
                                                  r["gold"], r["proposed"],
                                                  f"{r['evidence']:.4f}", r["reasons"],
                                                  r["context"])))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", nargs="?", default=str(ROOT / "runs" / "default"), metavar="RUN")
    ap.add_argument("--judged", default=str(SAMPLE), metavar="FILE")
    ap.add_argument("--ks", type=int, nargs="+", default=[20, 50, 100])
    ap.add_argument("--pending", type=int, metavar="N", help="list the unjudged rows of the "
                    "first N and stop")
    args = ap.parse_args(argv)
    judged = J.read_judged(args.judged)
    rows = checkgold.check_gold(args.run, write_files=False).rows
    if args.pending:
        print(pending(rows, judged, args.pending))
        return 0
    print(f"{args.run}: {len(rows):,} rows; {len(judged)} judged rows in {args.judged}\n")
    print(report(rows, judged, args.ks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
