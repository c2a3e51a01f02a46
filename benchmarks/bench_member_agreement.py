#!/usr/bin/env python3
"""One committee member under several recipes: its cost, and how far its
marks are from the same member trained with ``paper``.

The committee's difficulties are averages of its members' marks, so a
recipe can only give ``paper``'s difficulties if each of its members gets
nearly the same words right as the ``paper`` member trained on the same
sentences.  This bench trains one member (template, ratio, seed and index
given; its sentences are those of :func:`committee.learners.members.member_sample`)
once per recipe in this process, and prints per recipe:

* ``CPU s`` (``time.process_time`` around the member: attributes, append,
  training, tagging) and where the time went: ``attrs`` (building the
  attribute strings in Python), ``append`` (crfsuite taking them in),
  crfsuite's own ``featgen`` (building its features), ``optimise`` (the
  training algorithm) and ``store`` (writing the model), and ``tag``
  (tagging the test set);
* ``word acc``: the share of gold test words the member gets right;
* ``paper ✓ / recipe ✗`` and ``paper ✗ / recipe ✓``: the shares of gold
  words it gets wrong where ``paper``'s member gets them right, and the
  reverse; their sum is the share of words whose mark differs.  Their
  difference is what does not average out over a committee: a recipe whose
  members lose more words than they win makes every word look harder.

    python3 benchmarks/bench_member_agreement.py --corpus weibo --template F2 --ratio 0.2 \\
        --recipes paper paper-200 lbfgs-60 lbfgs-50 fast l2sgd-c0.1-20 pa-10 ap-10

Recipes are the presets of ``committee.learners.crf.PRESETS``, the ``RECIPES`` of
``benchmarks/bench_recipes.py`` and :data:`EXTRA`.  A recipe name may end in
a pruning of the member's training attributes:

* ``+test-attributes`` (``paper+test-attributes``) keeps those that occur in
  the test set, the pruning that cannot change which test attributes the
  model weighs: attributes the test set never shows get no weight used in
  tagging, but shape the others';
* ``+paper-attributes`` keeps those to which ``paper``'s member gives a
  non-zero weight: the support of the elastic-net solution, known only
  after paper's training, so an upper bound on what any pruning before
  training can save.

Run it on an otherwise idle machine: one member's CPU time is a few
seconds to a minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_recipes  # noqa: E402  (the recipes and corpora of the committee bench)

#: Member-level recipes besides those of bench_recipes: paper run twice as
#: long; paper's L2 term alone, run to convergence (what L-BFGS reaches
#: without the L1 term); L2-SGD at more epochs and other c2; L-BFGS at 35
#: iterations with a stronger L1 or L2 term.
EXTRA = {
    "paper-200": {"preset": "paper", "params": {"max_iterations": 200}},
    "lbfgs-l2": {"preset": "paper", "params": {"c1": 0.0}},
    "l2sgd-c0.1-30": {"preset": "fast", "params": {"max_iterations": 30}},
    "l2sgd-c0.03-20": {"preset": "fast", "params": {"c2": 0.03, "max_iterations": 20}},
    "l2sgd-c0.3-20": {"preset": "fast", "params": {"c2": 0.3, "max_iterations": 20}},
    "lbfgs-35": {"preset": "paper", "params": {"max_iterations": 35}},
    "lbfgs-35-c1-0.3": {"preset": "paper", "params": {"c1": 0.3, "max_iterations": 35}},
    "lbfgs-35-c2-0.5": {"preset": "paper", "params": {"c2": 0.5, "max_iterations": 35}},
}


def recipe(name: str) -> tuple[str, dict]:
    """``(algorithm, params)`` of recipe ``name`` after its preset is applied."""
    from committee.learners.crf import resolve_preset

    section = EXTRA.get(name) or bench_recipes.recipe_section(name)
    resolved, problems = resolve_preset(section)
    if problems:
        sys.exit(f"bench_member_agreement: {name}: {'; '.join(problems)}")
    return resolved["algorithm"], resolved["params"]


PRUNINGS = ("+test-attributes", "+paper-attributes")


def split_name(name: str) -> tuple[str, str | None]:
    """``(recipe, pruning)`` of a recipe name such as ``paper+test-attributes``."""
    for suffix in PRUNINGS:
        if name.endswith(suffix):
            return name[:-len(suffix)], suffix
    return name, None


def paper_support(model_path) -> set[str]:
    """The attributes to which the model at ``model_path`` gives a non-zero weight."""
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    try:
        return {a for (a, _), w in tagger.info().state_features.items() if w != 0}
    finally:
        tagger.close()


def run_pruned(member, sample, test_chars, test_words, algorithm, params, keep, work):
    """Like :func:`committee.learners.members.run_member`, on the training attributes
    in ``keep`` (None: those of the test set); returns (marks, timings)."""
    from committee.learners import crf
    from committee.corpus import from_bmes, to_bmes
    from committee.learners.features import attributes
    from committee.tasks.spans import marks as word_marks
    from committee.learners.members import crfsuite_seed

    t0 = time.perf_counter()
    test_x = [attributes(c, member.template) for c in test_chars]
    if keep is None:
        keep = {a for x in test_x for item in x for a in item}
    sentences = [s for s in sample if s]
    x = [[[a for a in item if a in keep] for item in attributes("".join(s), member.template)]
         for s in sentences]
    attrs_s = time.perf_counter() - t0
    model = Path(work) / "pruned.crfsuite"
    t = crf.train_model(x, [to_bmes(s) for s in sentences], algorithm, params, model,
                        rand_seed=crfsuite_seed(member))
    t0 = time.perf_counter()
    tags = crf.tag_sentences(model, test_x)
    pred = [from_bmes(c, tg) for c, tg in zip(test_chars, tags)]
    t.update(attributes_s=attrs_s, tag_s=time.perf_counter() - t0)
    return word_marks(test_words, pred), t


COLUMNS = ("attributes_s", "append_s", "featgen_s", "optimise_s", "store_s", "tag_s")


def main(argv=None) -> int:
    from committee.learners import members
    from committee.config import load_config
    from committee.learners.features import attributes
    from committee.pipeline.dataset import load_inputs

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
    print("| recipe | CPU s | attrs | append | featgen | optimise | store | tag | word acc "
          "| paper ✓ / recipe ✗ | paper ✗ / recipe ✓ | marks differ |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    names = ["paper"] + [r for r in args.recipes if r != "paper"]
    ref = support = None
    with tempfile.TemporaryDirectory() as keep_dir:
        for name in names:
            base, pruning = split_name(name)
            algorithm, params = recipe(base)
            with tempfile.TemporaryDirectory() as work:
                t0 = time.process_time()
                if pruning:
                    keep = support if pruning == "+paper-attributes" else None
                    m, t = run_pruned(member, sample, test_chars, test_words, algorithm,
                                      params, keep, work)
                else:
                    res = members.run_member(member, sample, test_chars, test_words, algorithm,
                                             params, work if ref is not None else keep_dir,
                                             keep_model=ref is None)
                    m, t = res.marks, res.timings
                cpu = time.process_time() - t0
            if ref is None:
                ref = m
                support = paper_support(Path(keep_dir) / "models" /
                                        f"member-{member.index:04d}.crfsuite")
            lost, won = float((ref & ~m).mean()), float((~ref & m).mean())
            parts = " | ".join(f"{t[k]:.1f}" if k in t else "–" for k in COLUMNS)
            print(f"| {name} | {cpu:.1f} | {parts} | {m.mean():.4f} "
                  f"| {lost:.4f} | {won:.4f} | {lost + won:.4f} |", flush=True)
    if any(split_name(n)[1] == "+paper-attributes" for n in names):
        from collections import Counter

        counts = Counter(a for s in sample if s
                         for item in attributes("".join(s), member.template) for a in item)
        weighed = sum(counts[a] for a in support)
        print(f"\n`paper`'s member weighs {len(support):,} of the {len(counts):,} attributes "
              f"of its training sentences ({len(support) / len(counts):.1%}), "
              f"{weighed / sum(counts.values()):.1%} of their occurrences.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
