#!/usr/bin/env python3
"""``Trainer.append`` with the two spellings of attribute names, side by side.

crfsuite files attribute names in a search tree ordered by ``strcmp`` and
looks up every attribute occurrence while it takes training data in.  This
bench hands the same member-sized slices to python-crfsuite twice per
template, once with the package's names (characters first, ``中=C-1``) and
once with the offsets first (``C-1=中``), and prints the CPU seconds of
``Trainer.append`` for each (``ItemSequence`` objects are built beforehand
and not timed), their ratio, and whether a short L-BFGS training on both
gives the same tags on the test set (a renaming must not change the model).

    python3 benchmarks/bench_attribute_names.py --corpus weibo --ratio 0.3 --repeat 2

Each row is the best of ``--repeat`` measurements; the two spellings are
measured alternately in one process.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def offsets_first(name: str) -> str:
    """``中=C-1`` spelled the other way round, ``C-1=中``."""
    chars, offsets = name.rsplit("=", 1)
    return f"{offsets}={chars}"


def append_seconds(seqs, tags) -> float:
    import pycrfsuite

    trainer = pycrfsuite.Trainer(algorithm="lbfgs", verbose=False)
    t0 = time.process_time()
    for x, y in zip(seqs, tags):
        trainer.append(x, y)
    return time.process_time() - t0


def same_tags(x, x_renamed, tags, test, test_renamed) -> bool:
    from committee.learners.crf import tag_sentences, train_model

    with tempfile.TemporaryDirectory() as work:
        a, b = Path(work) / "a.crfsuite", Path(work) / "b.crfsuite"
        params = {"c1": 0.1, "c2": 0.1, "max_iterations": 5}
        train_model(x, tags, "lbfgs", params, a)
        train_model(x_renamed, tags, "lbfgs", params, b)
        return tag_sentences(a, test) == tag_sentences(b, test_renamed)


def main(argv=None) -> int:
    import bench_recipes
    import pycrfsuite

    from committee.config import load_config
    from committee.corpus import to_bmes
    from committee.learners.features import TEMPLATES, attributes
    from committee.pipeline.dataset import load_inputs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(bench_recipes.CORPORA), default="weibo")
    ap.add_argument("--weibo-root", type=Path, default=bench_recipes.CORPORA["weibo"]["root"])
    ap.add_argument("--ratio", type=float, default=0.3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    overrides = [f"corpus.root={args.weibo_root}"] if args.corpus == "weibo" else []
    cfg = load_config(ROOT / bench_recipes.CORPORA[args.corpus]["config"], overrides)
    inputs = load_inputs(cfg)
    train = inputs.train_sentences
    sample = random.Random(args.seed).sample(train, round(args.ratio * len(train)))
    tags = [list(to_bmes(s)) for s in sample]
    test = ["".join(s) for s in inputs.test.words]
    n_chars = sum(len(t) for t in tags)
    print(f"## {args.corpus}: {len(sample):,} training sentences ({args.ratio:g}), "
          f"{n_chars:,} characters; best of {args.repeat}\n")
    print("| template | attribute occurrences | append s, characters first | "
          "append s, offsets first | ratio | same tags |")
    print("|---|---:|---:|---:|---:|---|")
    for template in TEMPLATES:
        x = [attributes("".join(s), template) for s in sample]
        x_renamed = [[[offsets_first(a) for a in item] for item in s] for s in x]
        seqs = [pycrfsuite.ItemSequence(s) for s in x]
        seqs_renamed = [pycrfsuite.ItemSequence(s) for s in x_renamed]
        best = {"first": float("inf"), "offsets": float("inf")}
        for _ in range(args.repeat):
            best["first"] = min(best["first"], append_seconds(seqs, tags))
            best["offsets"] = min(best["offsets"], append_seconds(seqs_renamed, tags))
        n = sum(len(item) for s in x for item in s)
        test_x = [attributes(t, template) for t in test]
        test_renamed = [[[offsets_first(a) for a in item] for item in s] for s in test_x]
        k = max(1, len(sample) // 20)  # the tag check trains on a twentieth of the slice
        same = same_tags(x[:k], x_renamed[:k], tags[:k], test_x, test_renamed)
        print(f"| {template} | {n:,} | {best['first']:.2f} | {best['offsets']:.2f} "
              f"| {best['offsets'] / best['first']:.2f} | {'yes' if same else 'NO'} |",
              flush=True)
        del x, x_renamed, seqs, seqs_renamed
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
