"""How often the bootstrap's 95% interval holds the true recall, by test-set size.

The justification of ``committee.metrics.significance.MIN_SENTENCES`` (docs/metrics.md,
Bootstrap).  Each replicate draws a test set of S sentences from a known
population: a sentence has 1 + Poisson(25) gold words and its own accuracy
p ~ Beta(9, 1) (mean 0.9, so the true corpus recall is 0.9); each word is
correct with probability p.  ``committee.metrics.significance.bootstrap`` then gives
the 95% percentile interval of recall from B resamples, and the script counts
the replicates whose interval holds 0.9.  A calibrated interval holds it in
95% of them.

    python benchmarks/bootstrap_coverage.py [--reps 1000] [--resamples 500]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from committee.metrics import SufficientStats
from committee.metrics.significance import bootstrap

SIZES = (1, 2, 3, 5, 10, 20, 30, 50, 100)
TRUE_RECALL = 0.9


def sample(rng: np.random.Generator, S: int) -> SufficientStats:
    """The sufficient statistics of one synthetic test set of ``S`` sentences
    (precision equals recall: the output has as many words as the gold)."""
    n = rng.poisson(25, S) + 1
    c = rng.binomial(n, rng.beta(9, 1, S))
    zeros = np.zeros(S, dtype=np.int64)
    return SufficientStats(n_gold=n, n_pred=n, n_correct=c, total_words=n * (n + 1) // 2,
                           boundary_gold=n - 1, boundary_pred=n - 1, boundary_correct=zeros)


def coverage(S: int, reps: int, resamples: int, seed: int) -> tuple[float, float]:
    """Share of replicates whose interval holds the true recall, and the mean width."""
    rng = np.random.default_rng(seed)
    hits, widths = 0, []
    for r in range(reps):
        lo, hi = bootstrap(sample(rng, S), n=resamples, seed=r)["r"]
        hits += lo <= TRUE_RECALL <= hi
        widths.append(hi - lo)
    return hits / reps, float(np.mean(widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| sentences | coverage of the 95% interval | mean width (recall) |")
    print("|---:|---:|---:|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the too-few-sentences warning, on purpose
        for S in SIZES:
            cov, width = coverage(S, args.reps, args.resamples, args.seed)
            print(f"| {S} | {100 * cov:.1f}% | {width:.4f} |")


if __name__ == "__main__":
    main()
