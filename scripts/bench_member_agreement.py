#!/usr/bin/env python3
"""One committee member under several recipes: its cost, and how far its
marks are from the same member trained with ``paper``.

The committee's difficulties are averages of its members' marks, so a
recipe can only give ``paper``'s difficulties if each of its members gets
nearly the same words right as the ``paper`` member trained on the same
sentences.  This bench trains one member (template, ratio, seed and index
given; its sentences are those of :func:`committee.members.member_sample`)
once per recipe in this process, and prints per recipe:

* ``CPU s`` (``time.process_time`` around the member: attributes, append,
  training, tagging) and crfsuite's ``train s``;
* ``word acc``: the share of gold test words the member gets right;
* ``paper ✓ / recipe ✗`` and ``paper ✗ / recipe ✓``: the shares of gold
  words it gets wrong where ``paper``'s member gets them right, and the
  reverse; their sum is the share of words whose mark differs.

    python3 scripts/bench_member_agreement.py --corpus weibo --template F2 --ratio 0.2 \\
        --recipes paper paper-200 lbfgs-60 lbfgs-50 fast l2sgd-c0.1-20 pa-10 ap-10

Recipes are the presets of ``committee.crf.PRESETS`` and the ``RECIPES``
of ``scripts/bench_recipes.py``.  Run it on an otherwise idle machine: the
CPU seconds of one member are a few seconds each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_recipes  # noqa: E402  (the recipes and corpora of the committee bench)

#: Member-level recipes besides those of bench_recipes: paper run twice as long.
EXTRA = {"paper-200": {"preset": "paper", "params": {"max_iterations": 200}}}


def recipe(name: str) -> tuple[str, dict]:
    """``(algorithm, params)`` of recipe ``name`` after its preset is applied."""
    from committee.crf import resolve_preset

    section = EXTRA.get(name) or bench_recipes.recipe_section(name)
    resolved, problems = resolve_preset(section)
    if problems:
        sys.exit(f"bench_member_agreement: {name}: {'; '.join(problems)}")
    return resolved["algorithm"], resolved["params"]


def main(argv=None) -> int:
    from committee import members
    from committee.config import load_config
    from committee.pipeline import load_inputs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(bench_recipes.CORPORA), default="weibo")
    ap.add_argument("--weibo-root", type=Path, default=bench_recipes.CORPORA["weibo"]["root"])
    ap.add_argument("--template", default="F2")
    ap.add_argument("--ratio", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=2016)
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--recipes", nargs="+", default=["paper", "fast"])
    args = ap.parse_args(argv)

    overrides = [f"corpus.root={args.weibo_root}"] if args.corpus == "weibo" else []
    cfg = load_config(ROOT / bench_recipes.CORPORA[args.corpus]["config"], overrides)
    inputs = load_inputs(cfg)
    n_train = len(inputs.train_sentences)
    member = members.draw_member(args.index, n_train, (args.template,), (args.ratio,),
                                 seed=args.seed)
    sample = [inputs.train_sentences[i] for i in members.member_sample(member, n_train)]
    test_words = inputs.test.words
    test_chars = ["".join(s) for s in test_words]
    print(f"## {args.corpus}: member {args.index} ({args.template}, {args.ratio:g} of "
          f"{n_train:,} training sentences, seed {args.seed}), "
          f"{inputs.test.n_words():,} test words\n")
    print("| recipe | CPU s | train s | word acc | paper ✓ / recipe ✗ | paper ✗ / recipe ✓ "
          "| marks differ |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    names = ["paper"] + [r for r in args.recipes if r != "paper"]
    ref = None
    for name in names:
        algorithm, params = recipe(name)
        with tempfile.TemporaryDirectory() as work:
            t0 = time.process_time()
            res = members.run_member(member, sample, test_chars, test_words, algorithm, params,
                                     work)
            cpu = time.process_time() - t0
        m = res.marks
        if ref is None:
            ref = m
        lost, won = float((ref & ~m).mean()), float((~ref & m).mean())
        print(f"| {name} | {cpu:.1f} | {res.timings['train_s']:.1f} | {m.mean():.4f} "
              f"| {lost:.4f} | {won:.4f} | {lost + won:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
