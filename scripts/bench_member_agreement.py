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
of ``scripts/bench_recipes.py``.  A recipe name ending in
``+test-attributes`` (``paper+test-attributes``) prunes the member's
training attributes to those that occur in the test set, the pruning that
cannot change which test attributes the model weighs: attributes the test
set never shows get no weight used in tagging, but shape the others'.  Run it on an otherwise idle machine: the
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


PRUNED = "+test-attributes"


def run_pruned(member, sample, test_chars, test_words, algorithm, params, work):
    """Like :func:`committee.members.run_member`, on the training attributes
    that occur in the test set; returns (marks, train seconds)."""
    from committee import crf
    from committee.corpus import from_bmes, to_bmes
    from committee.features import attributes
    from committee.marks import word_marks
    from committee.members import crfsuite_seed

    test_x = [attributes(c, member.template) for c in test_chars]
    seen = {a for x in test_x for item in x for a in item}
    sentences = [s for s in sample if s]
    x = ([[a for a in item if a in seen] for item in attributes("".join(s), member.template)]
         for s in sentences)
    model = Path(work) / "pruned.crfsuite"
    t = crf.train_model(x, [to_bmes(s) for s in sentences], algorithm, params, model,
                        rand_seed=crfsuite_seed(member))
    tags = crf.tag_sentences(model, test_x)
    pred = [from_bmes(c, tg) for c, tg in zip(test_chars, tags)]
    return word_marks(test_words, pred), t["train_s"]


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
        pruned = name.endswith(PRUNED)
        algorithm, params = recipe(name[:-len(PRUNED)] if pruned else name)
        with tempfile.TemporaryDirectory() as work:
            t0 = time.process_time()
            if pruned:
                m, train_s = run_pruned(member, sample, test_chars, test_words, algorithm,
                                        params, work)
            else:
                res = members.run_member(member, sample, test_chars, test_words, algorithm,
                                         params, work)
                m, train_s = res.marks, res.timings["train_s"]
            cpu = time.process_time() - t0
        if ref is None:
            ref = m
        lost, won = float((ref & ~m).mean()), float((~ref & m).mean())
        print(f"| {name} | {cpu:.1f} | {train_s:.1f} | {m.mean():.4f} "
              f"| {lost:.4f} | {won:.4f} | {lost + won:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
