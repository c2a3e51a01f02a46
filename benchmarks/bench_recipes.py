#!/usr/bin/env python3
"""Member recipes measured side by side: cost, and agreement with ``paper``.

For each corpus and each recipe (a ``crf`` section: algorithm and
parameters), the same committee (same K, templates, ratios, samples) is run
by ``committee run`` in a child process, and the bench prints:

* ``cpu_s``: CPU seconds (user + system) of the run and its workers
  (``getrusage(RUSAGE_CHILDREN)`` around the child, which includes the
  worker processes it reaped), and ``cpu/paper``, its ratio to the
  ``paper`` recipe measured in the same invocation;
* ``wall_s`` and ``peak_mb`` (the largest resident set of any of its
  processes);
* ``pearson`` and ``mean|Δd|``: its difficulties against ``paper``'s,
  word by word;
* ``mean_d`` and the members' median f1;
* for every system (the Table 2 models, trained once per corpus with
  ``paper``'s Table 2 settings, and every installed third-party segmenter),
  its fb under ``paper``'s difficulties and under the recipe's, the largest
  fb difference among the third-party segmenters, and whether the fb
  ranking of all systems changes.

Runs are kept under ``--work`` (one directory per corpus, recipe and K) with
the measured cost beside them (``bench-cost.json``), so a later invocation
prints them again without rerunning; ``--fresh`` reruns them.  The ``paper``
recipe is always part of the table (its cost is the reference).

    python3 benchmarks/bench_recipes.py --corpus embedded weibo --k 90 \
        --recipes paper fast elastic [--work bench-recipes] [--json out.json]

``weibo`` needs the NLPCC 2016 Weibo corpus in ``data/nlpcc2016-weibo``
(data/README.md), the corpora folder beside the repository, or
``--weibo-root``.  The recipes are :data:`RECIPES` and the presets of
``committee.learners.crf.PRESETS`` (``paper``, the reference; ``fast``; ``elastic``,
the reference before its recalibration; ``legacy``).  The figures recorded
in docs/benchmarks.md before that recalibration name ``elastic`` ``paper``;
their ``lbfgs-*`` and ``minfreq-2`` rows are ``elastic`` with one change.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Candidate member recipes besides the package's presets
#: (``committee.learners.crf.PRESETS``: paper, fast, elastic, legacy), a ``crf`` config section each.
RECIPES: dict[str, dict] = {
    "lbfgs-60": {"algorithm": "lbfgs", "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 60}},
    "lbfgs-50": {"algorithm": "lbfgs", "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 50}},
    "lbfgs-50-m20": {"algorithm": "lbfgs",
                     "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 50, "num_memories": 20}},
    "lbfgs-30": {"algorithm": "lbfgs", "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 30}},
    "lbfgs-delta": {"algorithm": "lbfgs",
                    "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 100, "delta": 1e-3,
                               "period": 5}},
    "minfreq-2": {"algorithm": "lbfgs",
                  "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 100, "feature.minfreq": 2}},
    "ap-5": {"algorithm": "ap", "params": {"max_iterations": 5}},
    "ap-10": {"algorithm": "ap", "params": {"max_iterations": 10}},
    "l2sgd-5": {"algorithm": "l2sgd", "params": {"c2": 1.0, "max_iterations": 5}},
    "l2sgd-10": {"algorithm": "l2sgd", "params": {"c2": 1.0, "max_iterations": 10}},
    "l2sgd-c0.1-10": {"algorithm": "l2sgd", "params": {"c2": 0.1, "max_iterations": 10}},
    "l2sgd-c0.1-15": {"algorithm": "l2sgd", "params": {"c2": 0.1, "max_iterations": 15}},
    "pa-3": {"algorithm": "pa", "params": {"max_iterations": 3}},
    "pa-5": {"algorithm": "pa", "params": {"max_iterations": 5}},
    "pa-10": {"algorithm": "pa", "params": {"max_iterations": 10}},
    "arow-5": {"algorithm": "arow", "params": {"max_iterations": 5}},
    "ap-5-minfreq-2": {"algorithm": "ap", "params": {"max_iterations": 5, "feature.minfreq": 2}},
    "l2sgd-c0.1-20": {"algorithm": "l2sgd", "params": {"c2": 0.1, "max_iterations": 20}},
    # the reference on another draw of the committee (committee.seed + 1): how far
    # two committees of the same recipe differ, the floor under every other row
    "paper-reseeded": {"preset": "paper", "seed_offset": 1},
    "elastic-reseeded": {"preset": "elastic", "seed_offset": 1},
}

CORPORA = {
    "embedded": {"config": "configs/peoples-daily-1998.yaml", "root": None},
    "weibo": {"config": "configs/nlpcc2016-weibo.yaml",
              # data/ (data/README.md), else the corpora folder beside the repository
              "root": next((d for d in (ROOT / "data" / "nlpcc2016-weibo",
                                        ROOT.parent / "shared" / "corpora" / "nlpcc2016-weibo")
                            if (d / "train.dat").is_file()),
                           ROOT / "data" / "nlpcc2016-weibo")},
}



def recipe_section(name: str) -> dict:
    """The ``crf`` config section of recipe ``name``: a preset of the package
    when it has one, otherwise :data:`RECIPES`."""
    from committee.learners.crf import PRESETS

    if name in PRESETS:
        return {"preset": name}
    return {k: v for k, v in RECIPES[name].items() if k != "seed_offset"}


def corpus_config(corpus: str, recipe: str, k: int, out: Path, root: Path | None) -> dict:
    """The corpus's config with the recipe's ``crf`` section, K and output directory."""
    import yaml

    cfg = yaml.safe_load((ROOT / CORPORA[corpus]["config"]).read_text(encoding="utf-8"))
    cfg["committee"]["size"] = k
    cfg["crf"] = recipe_section(recipe)
    cfg["committee"]["seed"] += RECIPES.get(recipe, {}).get("seed_offset", 0)
    cfg["output"] = {"dir": str(out.resolve())}
    if root is not None:
        cfg["corpus"]["root"] = str(root)
    cfg.pop("experiments", None)
    return cfg


def run_recipe(corpus: str, recipe: str, k: int, work: Path, root: Path | None,
               fresh: bool) -> tuple[Path, dict]:
    """Run (or find) the committee of ``recipe``; its directory and cost."""
    import yaml

    out = work / f"{corpus}-{recipe}-k{k}"
    cost_file = out / "bench-cost.json"
    if cost_file.is_file() and (out / "manifest.json").is_file() and not fresh:
        return out, json.loads(cost_file.read_text())
    cfg = corpus_config(corpus, recipe, k, out, root)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, encoding="utf-8") as f:
        yaml.safe_dump(cfg, f, allow_unicode=True)
        path = f.name
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    args = [sys.executable, "-m", "committee", "run", path, "--quiet"]
    if fresh:
        args.append("--restart")
    proc = subprocess.run(args, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.unlink(path)
    if proc.returncode != 0:
        sys.exit(f"bench_recipes: {corpus}/{recipe} failed (exit {proc.returncode})")
    cost = {"cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "wall_s": wall, "peak_mb": after.ru_maxrss / 1024, "crf": cfg["crf"], "k": k,
            "measured": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count()}
    cost_file.write_text(json.dumps(cost, indent=2) + "\n")
    return out, cost


def run_difficulty(out: Path) -> tuple[np.ndarray, float]:
    """Per gold word difficulty (share of members that miss it) and the members' median f1."""
    marks = np.load(out / "marks.npz")["marks"]
    manifest = json.loads((out / "manifest.json").read_text())
    f1s = [m["f1"] for m in manifest["committee"]["members"]]
    return 1.0 - marks.mean(axis=0), float(np.median(f1s))


def systems(paper_dir: Path) -> dict[str, list[list[str]]]:
    """Outputs of the Table 2 models and of every installed segmenter, made by
    ``committee report PAPER_DIR --only table2 --with NAME`` (the Table 2
    settings of the package's defaults; models are trained once and kept in
    the run's ``report/`` for the full report to reuse)."""
    import importlib.util

    from committee import corpus as corpus_mod
    from committee.config import ExperimentsConfig
    from committee.report.analyses import table2
    from committee.segmenters import SEGMENTERS

    names = [n for n, tool in SEGMENTERS.items()
             if importlib.util.find_spec(tool.module) is not None]
    # the package's Table 2 defaults, whatever an older manifest recorded; two workers
    args = [sys.executable, "-m", "committee", "report", str(paper_dir), "--only", "table2",
            "--quiet", "--set", "experiments.table2_preset=paper",
            "--set", "experiments.table2_max_iterations=null", "--set", "parallel.n_jobs=2"]
    args += [a for n in names for a in ("--with", n)]
    made = [paper_dir / "report" / table2.output_file("F2", f)
            for f in ExperimentsConfig().table2_fractions]
    made += [paper_dir / "report" / "systems" / f"{n}.txt" for n in names]
    t0 = time.perf_counter()
    if all(f.is_file() for f in made):
        pass  # made by an earlier invocation (the report trains each model once)
    elif subprocess.run(args, cwd=ROOT).returncode != 0:
        sys.exit(f"bench_recipes: committee report {paper_dir} failed")
    print(f"  systems of {paper_dir.name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    outs = {}
    for f in sorted((paper_dir / "report" / "table2").glob("F2-*.txt")):
        outs[f"F2 {int(f.stem[3:]) / 10:g}%"] = corpus_mod.read_corpus(f).words
    for n in names:
        outs[n] = corpus_mod.read_corpus(paper_dir / "report" / "systems" / f"{n}.txt").words
    return outs


def fb_table(gold, outputs: dict, d: np.ndarray) -> dict[str, float]:
    import committee

    scorer = committee.Scorer(gold, d)
    return {name: 100 * scorer.score(out).fb for name, out in outputs.items()}


def ranking(fb: dict[str, float]) -> list[str]:
    return sorted(fb, key=lambda n: -fb[n])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", choices=sorted(CORPORA), default=["embedded"])
    ap.add_argument("--k", type=int, default=90)
    ap.add_argument("--recipes", nargs="+", default=["paper", "fast", "elastic"])
    ap.add_argument("--work", type=Path, default=ROOT / "bench-recipes")
    ap.add_argument("--weibo-root", type=Path, default=CORPORA["weibo"]["root"])
    ap.add_argument("--no-systems", action="store_true", help="skip the systems' fb")
    ap.add_argument("--fresh", action="store_true", help="rerun committees already measured")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    args = ap.parse_args(argv)
    recipes = ["paper"] + [r for r in args.recipes if r != "paper"]
    report = {}
    for corpus in args.corpus:
        root = args.weibo_root if corpus == "weibo" else None
        if root is not None and not (root / "train.dat").is_file():
            print(f"bench_recipes: skipping weibo: no {root / 'train.dat'}", file=sys.stderr)
            continue
        rows = {}
        for recipe in recipes:
            print(f"[{corpus}] {recipe}, K = {args.k} ...", file=sys.stderr, flush=True)
            out, cost = run_recipe(corpus, recipe, args.k, args.work, root, args.fresh)
            d, f1 = run_difficulty(out)
            rows[recipe] = {"dir": out, "cost": cost, "d": d, "median_f1": f1}
        outputs, gold = {}, None
        if not args.no_systems:
            from committee import corpus as corpus_mod
            gold = corpus_mod.read_corpus(rows["paper"]["dir"] / "test.txt")
            outputs = systems(rows["paper"]["dir"])
        report[corpus] = _print_corpus(corpus, args.k, rows, gold, outputs)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0


def _print_corpus(corpus, k, rows, gold, outputs) -> dict:
    from committee.segmenters import SEGMENTERS

    paper = rows["paper"]
    fbs = {name: fb_table(gold, outputs, row["d"]) if outputs else {}
           for name, row in rows.items()}
    fb_paper = fbs["paper"]
    third = [n for n in outputs if n in SEGMENTERS]
    print(f"\n## {corpus}, K = {k}, {len(paper['d']):,} test words\n")
    print("| recipe | CPU s | CPU / paper | wall s | peak MB | median f1 | mean d | Pearson "
          "| mean abs Δd | max Δfb (segmenters) | ranking |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    out = {}
    for name, row in rows.items():
        c = row["cost"]
        r = float(np.corrcoef(paper["d"], row["d"])[0, 1])
        dd = float(np.abs(paper["d"] - row["d"]).mean())
        fb = fbs[name]
        dfb = max((abs(fb[n] - fb_paper[n]) for n in third), default=float("nan"))
        same = ranking(fb) == ranking(fb_paper) if outputs else None
        print(f"| {name} | {c['cpu_s']:.0f} | {c['cpu_s'] / paper['cost']['cpu_s']:.3f} "
              f"| {c['wall_s']:.0f} | {c['peak_mb']:.0f} | {row['median_f1']:.4f} "
              f"| {row['d'].mean():.4f} | {r:.4f} | {dd:.4f} | {dfb:.2f} "
              f"| {'same' if same else 'changed' if same is not None else '-'} |")
        out[name] = {"cost": c, "median_f1": row["median_f1"], "mean_d": float(row["d"].mean()),
                     "pearson": r, "mean_abs_dd": dd, "fb": fb, "max_dfb_segmenters": dfb,
                     "same_ranking": same}
    if outputs:
        names = list(rows)
        print("\nfb (%) of every system under each recipe's difficulties "
              "(rank in brackets):\n")
        print("| system | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for s in outputs:
            cells = []
            for n in names:
                fb = out[n]["fb"]
                cells.append(f"{fb[s]:.2f} ({ranking(fb).index(s) + 1})")
            print(f"| {s} | " + " | ".join(cells) + " |")
    sys.stdout.flush()
    return out


if __name__ == "__main__":
    raise SystemExit(main())
