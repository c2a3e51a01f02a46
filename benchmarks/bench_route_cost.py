#!/usr/bin/env python3
"""What a cheaper recipe of a default config saves, and how far its
difficulties and its Table 2 ranking move (docs/benchmarks.md, "A cheaper
recipe for the POS and entity configs").

For ``configs/default-pos.yaml`` or ``configs/default-ner.yaml`` at a
committee size K, the bench runs, one after the other in this process
(``parallel.backend: sequential``), the config with the recipe it had
before the feature cut-off (:data:`TODAY`) and a candidate: that recipe with
``crf.params`` set (a feature
cut-off ``feature.minfreq``, fewer L-BFGS iterations, another c1, another
``--preset``) and the Table 2 taggers trained with the members' recipe
(``experiments.table2_preset: committee``) or ``--table2-preset``'s.  Each
recipe is a committee (:func:`committee.pipeline.workflow.run`), then its
Table 2 taggers (:func:`committee.pipeline.workflow.report` with the
analysis ``table2``) on ``--table2-fractions`` of the training sentences,
and with ``--whole-report`` the rest of the config's report (its other
analyses, the taggers read back).  A candidate whose members are today's
(only its taggers differ) takes today's committee as it is: a copy of its
run, its CPU-seconds today's.  It prints:

* the CPU-seconds (user + system of this process and of the processes it
  reaped) of each committee, of its Table 2 taggers and of the rest of the
  report, and their ratios;
* Pearson and Spearman correlations of the per-unit difficulties of the two
  committees, the mean absolute difference and each mean difficulty;
* each recipe's Table 2 taggers with f1 and fb under that recipe's
  difficulties, and whether the ranking by fb (and by f1) is the same.

Runs go to ``--work`` (a fresh directory per invocation unless named).  Each
step's CPU-seconds are recorded there as soon as it ends (``NAME-cost.json``):
invoked again with the same ``--work``, a step already measured with the same
config is read back rather than run again, so an interrupted invocation goes
on where it stopped and a second candidate is set beside the same "today".
The report's modules are imported before the first member trains.

    nice -n 19 python3 benchmarks/bench_route_cost.py --task pos --k 6 --minfreq 2
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = {"pos": "configs/default-pos.yaml", "ner": "configs/default-ner.yaml"}

#: "Today": the recipe of each config's members and Table 2 taggers before
#: the feature cut-off (``configs/default-pos.yaml`` has taken
#: ``feature.minfreq: 2`` since), so that the same command measures the same
#: two recipes whatever the config holds now.
#: (The second of each pair: ``experiments.table2_preset``, None for its default.)
TODAY = {"pos": ({"preset": "paper"}, None), "ner": ({"preset": "elastic"}, "elastic")}


def cpu_seconds() -> float:
    """User + system seconds of this process and of its reaped children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def recipe_config(task: str, k: int, out: Path, params: dict, fractions: list[float],
                  table2_committee: bool, preset: str | None = None,
                  table2_preset: str | None = None) -> dict:
    """The task's default config at size ``k``, run sequentially into ``out``,
    with today's recipe (:data:`TODAY`; its preset replaced by ``preset``
    when given), ``params`` set on it, and its Table 2
    on ``fractions`` (with the members' recipe when ``table2_committee``,
    else ``table2_preset``'s when given)."""
    import yaml

    cfg = yaml.safe_load((ROOT / CONFIGS[task]).read_text(encoding="utf-8"))
    cfg["committee"]["size"] = k
    cfg["parallel"] = {"backend": "sequential", "n_jobs": 1}
    cfg["output"] = {"dir": str(out.resolve())}
    crf, today_table2 = TODAY[task]
    table2_preset = table2_preset or today_table2
    if preset is not None:
        crf = {"preset": preset}
    cfg["crf"] = {**crf, "params": params} if params else dict(crf)
    cfg["experiments"] = {**cfg.get("experiments", {}), "table2": True,
                          "table2_fractions": fractions}
    cfg["experiments"].pop("table2_preset", None)
    if table2_committee or table2_preset:
        cfg["experiments"]["table2_preset"] = "committee" if table2_committee else table2_preset
    return cfg


def _members(cfg: dict) -> dict:
    """What decides a config's committee: everything but its output and analyses."""
    return {k: v for k, v in cfg.items() if k not in ("output", "experiments")}


def measure(name: str, cfg: dict, work: Path, whole_report: bool = False,
            same_as: dict | None = None, committee_only: bool = False) -> dict:
    """Run the committee of ``cfg``, then its Table 2 taggers, then (with
    ``whole_report``) the rest of its report; CPU-seconds of each, the
    per-unit difficulties and the taggers' scores.  ``same_as``: today's
    measured cost, whose committee this one takes (a copy of its run
    without the report) when the two configs' members are the same.
    ``committee_only``: the committee alone (its taggers and report are
    neither trained nor compared)."""
    import shutil

    import yaml
    from committee.pipeline import workflow

    cost_file = work / f"{name}-cost.json"
    cost = json.loads(cost_file.read_text(encoding="utf-8")) if cost_file.is_file() else {}
    if cost.get("config") != cfg:
        cost = {"config": cfg}
    out = Path(cfg["output"]["dir"])
    if "committee_cpu_s" not in cost and same_as is not None and \
            _members(same_as["config"]) == _members(cfg):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(same_as["config"]["output"]["dir"], out,
                        ignore=shutil.ignore_patterns("report", "report.*", "models"))
        cost.update(committee_cpu_s=same_as["committee_cpu_s"],
                    committee_wall_s=same_as["committee_wall_s"], committee_from="today")
        cost_file.write_text(json.dumps(cost, indent=2) + "\n", encoding="utf-8")
    if "committee_cpu_s" not in cost:
        path = work / f"{name}.yaml"
        path.write_text(yaml.safe_dump(cfg, allow_unicode=True), encoding="utf-8")
        print(f"[{name}] committee, K = {cfg['committee']['size']}, crf {cfg['crf']} ...",
              file=sys.stderr, flush=True)
        c0, t0 = cpu_seconds(), time.perf_counter()
        out = workflow.run(str(path), progress=False, analyses=[])
        cost.update(committee_cpu_s=cpu_seconds() - c0, committee_wall_s=time.perf_counter() - t0,
                    measured=time.strftime("%Y-%m-%d %H:%M"))
        cost_file.write_text(json.dumps(cost, indent=2) + "\n", encoding="utf-8")
    print(f"[{name}] committee: {cost['committee_cpu_s']:.0f} CPU-s", file=sys.stderr, flush=True)
    if committee_only:
        return _results(out, cost)
    if "table2_cpu_s" not in cost:
        c1, t1 = cpu_seconds(), time.perf_counter()
        workflow.report(out, analyses=["table2"], progress=False)
        cost.update(table2_cpu_s=cpu_seconds() - c1, table2_wall_s=time.perf_counter() - t1)
        cost_file.write_text(json.dumps(cost, indent=2) + "\n", encoding="utf-8")
    print(f"[{name}] Table 2 taggers: {cost['table2_cpu_s']:.0f} CPU-s", file=sys.stderr,
          flush=True)
    if whole_report and "report_cpu_s" not in cost:
        c2, t2 = cpu_seconds(), time.perf_counter()
        workflow.report(out, progress=False)  # every analysis; the taggers read back
        cost.update(report_cpu_s=cpu_seconds() - c2, report_wall_s=time.perf_counter() - t2)
        cost_file.write_text(json.dumps(cost, indent=2) + "\n", encoding="utf-8")
    if "report_cpu_s" in cost:
        print(f"[{name}] rest of the report: {cost['report_cpu_s']:.0f} CPU-s",
              file=sys.stderr, flush=True)
    return _results(out, cost)


def _results(out: Path, cost: dict) -> dict:
    """The measured ``cost`` with the run's difficulties and Table 2 scores."""
    import pandas as pd
    from committee.pipeline import layout

    marks = np.load(out / layout.MARKS_FILE)["marks"]
    manifest = json.loads((out / layout.MANIFEST_FILE).read_text(encoding="utf-8"))
    scores = {}
    if (out / layout.TABLE2_FILE).is_file() and "table2_cpu_s" in cost:
        scores = {r.model: {"f1": 100 * r.f1, "fb": 100 * r.fb}
                  for r in pd.read_csv(out / layout.TABLE2_FILE).itertuples()}
    return {**cost, "d": 1.0 - marks.mean(axis=0),
            "member_f1": [m["f1"] for m in manifest["committee"]["members"]],
            "table2": scores}


def _ranking(scores: dict, key: str) -> list[str]:
    return sorted(scores, key=lambda m: -scores[m][key])


def compare(today: dict, candidate: dict) -> dict:
    """The figures of the two recipes side by side."""
    from scipy import stats

    a, b = today["d"], candidate["d"]
    out = {"units": int(a.size), "pearson": float(stats.pearsonr(a, b)[0]),
           "spearman": float(stats.spearmanr(a, b)[0]),
           "mean_abs_dd": float(np.abs(a - b).mean()),
           "mean_d": [float(a.mean()), float(b.mean())]}
    parts = [p for p in ("committee", "table2", "report") if f"{p}_cpu_s" in candidate]
    for part in parts:  # a part today did not measure: nan
        t = today.get(f"{part}_cpu_s", float("nan"))
        out[f"{part}_cpu_s"] = [t, candidate[f"{part}_cpu_s"]]
        out[f"{part}_ratio"] = candidate[f"{part}_cpu_s"] / t
    out["parts"] = parts
    for key in ("fb", "f1"):
        out[f"ranking_{key}"] = [_ranking(today["table2"], key),
                                 _ranking(candidate["table2"], key)]
        out[f"same_ranking_{key}"] = (out[f"ranking_{key}"][0] == out[f"ranking_{key}"][1]
                                      if today["table2"] else None)
    return out


def print_figures(args, params: dict, today: dict, candidate: dict, c: dict) -> None:
    taggers = (f"crf.preset {args.table2_preset}" if args.table2_preset
               else "the members' recipe")
    print(f"\n## {args.task}, K = {args.k}, {c['units']:,} test units; candidate: "
          f"crf.preset {args.preset or 'as today'}, crf.params {params}, Table 2 taggers "
          f"with {taggers}\n")
    print("| | today | candidate | candidate / today |")
    print("|---|---:|---:|---:|")
    labels = {"committee": f"committee (K = {args.k}), CPU-s",
              "table2": f"Table 2 taggers {args.table2_fractions}, CPU-s",
              "report": "the rest of the report, CPU-s"}
    for part in c["parts"]:
        t, n = c[f"{part}_cpu_s"]
        print(f"| {labels[part]} | {t:,.0f} | {n:,.0f} | {c[f'{part}_ratio']:.3f} |")
    t = sum(c[f"{part}_cpu_s"][0] for part in c["parts"])
    n = sum(c[f"{part}_cpu_s"][1] for part in c["parts"])
    print(f"| in all, CPU-s | {t:,.0f} | {n:,.0f} | {n / t:.3f} |")
    print(f"| members' f1, min–max | {min(today['member_f1']):.4f}–{max(today['member_f1']):.4f} "
          f"| {min(candidate['member_f1']):.4f}–{max(candidate['member_f1']):.4f} | |")
    print(f"| mean difficulty | {c['mean_d'][0]:.4f} | {c['mean_d'][1]:.4f} | |")
    print(f"\ndifficulties, candidate against today: Pearson {c['pearson']:.4f}, Spearman "
          f"{c['spearman']:.4f}, mean |Δd| {c['mean_abs_dd']:.4f}\n")
    print("| Table 2 tagger | f1 today | fb today | f1 candidate | fb candidate |")
    print("|---|---:|---:|---:|---:|")
    none = {"f1": np.nan, "fb": np.nan}
    for m in dict.fromkeys([*today["table2"], *candidate["table2"]]):
        s, n = today["table2"].get(m, none), candidate["table2"].get(m, none)
        print(f"| {m} | {s['f1']:.2f} | {s['fb']:.2f} | {n['f1']:.2f} | {n['fb']:.2f} |")
    for key in ("fb", "f1"):
        same = {True: "same", False: "changed", None: "today's taggers not measured"}[
            c[f"same_ranking_{key}"]]
        print(f"\nranking by {key}: today {' > '.join(c[f'ranking_{key}'][0])}; candidate "
              f"{' > '.join(c[f'ranking_{key}'][1])} ({same})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", choices=sorted(CONFIGS), default="pos")
    ap.add_argument("--k", type=int, default=6, help="committee size (the configs' own: 30)")
    ap.add_argument("--minfreq", type=float, help="candidate's crf.params feature.minfreq")
    ap.add_argument("--max-iterations", type=int, help="candidate's crf.params max_iterations")
    ap.add_argument("--c1", type=float, help="candidate's crf.params c1")
    ap.add_argument("--preset", help="candidate's crf.preset (default: today's; 'fast' is "
                                     "L2-SGD, 10 epochs)")
    ap.add_argument("--table2-fractions", type=float, nargs="+", default=[0.1, 0.2],
                    help="shares of the training sentences of the Table 2 taggers (the "
                         "configs': 0.2 0.5 0.8 1.0)")
    ap.add_argument("--table2-preset", help="crf.preset of the candidate's Table 2 taggers "
                                            "(default: the members' recipe)")
    ap.add_argument("--today-committee-only", action="store_true",
                    help="today's committee alone: its taggers and report are not trained "
                         "(their cost is not compared; the candidate's is measured)")
    ap.add_argument("--whole-report", action="store_true",
                    help="measure the rest of each config's report too (its other analyses)")
    ap.add_argument("--work", type=Path, help="where the runs go (default: a fresh temporary "
                                              "directory)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    params = {key: value for key, value in (("feature.minfreq", args.minfreq),
                                            ("max_iterations", args.max_iterations),
                                            ("c1", args.c1)) if value is not None}
    import committee.report.build  # noqa: F401  (loaded now, not after an hour of training)
    import committee.report.systems  # noqa: F401
    import pandas  # noqa: F401
    import scipy.stats  # noqa: F401

    work = args.work or Path(tempfile.mkdtemp(prefix="bench-route-cost-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    name = "candidate-" + "-".join([args.preset] * bool(args.preset)
                                   + [f"{k}{v:g}" for k, v in params.items()]
                                   + [f"table2{args.table2_preset}"] * bool(args.table2_preset))
    today = measure("today", recipe_config(args.task, args.k, work / "today", {},
                                           args.table2_fractions, False), work,
                    args.whole_report, committee_only=args.today_committee_only)
    candidate = measure(name, recipe_config(args.task, args.k, work / name, params,
                                            args.table2_fractions, not args.table2_preset,
                                            args.preset, args.table2_preset), work,
                        args.whole_report, today)
    c = compare(today, candidate)
    print_figures(args, params, today, candidate, c)
    print(f"\n(runs in {work}; measured in {time.perf_counter() - started:,.0f} s wall-clock)")
    if args.json:
        args.json.write_text(json.dumps({"task": args.task, "k": args.k, "params": params,
                                         "table2_preset": args.table2_preset,
                                         "table2_fractions": args.table2_fractions, **c},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
