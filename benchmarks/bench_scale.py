#!/usr/bin/env python3
"""Peak memory at the scale of the largest public test set: SIGHAN 2005 AS
(122,610 gold words) with a K = 90 committee.

    python3 benchmarks/bench_scale.py [--words 122610] [--members 90] [--dir DIR]

1. Setup (not measured): the test set is the last sentences of the embedded
   People's Daily 1998-01 corpus, as many as reach ``--words`` gold words; the
   training set is every sentence before them.  Both are written as SIGHAN
   files.
2. ``outputs`` (a fresh process): reads the config's corpora like
   ``committee run``, makes 90 synthetic members (seeded random marks with 90%
   of the words right, and a random segmentation of the test characters),
   saves each with ``marks.save_member``, loads them all back with
   ``marks.load_member`` (what a resumed run does) and calls
   ``pipeline.write_outputs``.  Reports the process's peak resident memory
   (``ru_maxrss``) after the imports, after reading the corpora, after the
   members and after writing the outputs (``VmHWM``: the high-water mark
   of this process alone).
3. ``score`` (a fresh process): ``committee score --json --bootstrap 1000`` of
   three outputs against that test set, with the run's ``test.weight`` and
   ``train-words.txt``; reports its peak resident memory.

Training the members themselves is not part of this: a member's worker
holds one member's attributes at a time (see docs/benchmarks.md, "Committee
member cost").
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

AS_TEST_WORDS = 122_610  # SIGHAN 2005 AS test gold


def _rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    ``VmHWM`` of ``/proc/self/status`` where there is one: unlike
    ``ru_maxrss``, which Linux carries over from the parent across fork and
    exec, it belongs to this process image alone.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def setup(d: Path, words: int) -> dict:
    from committee import corpus as corpus_mod

    full = corpus_mod.read_embedded()
    n, total = 0, 0
    for sentence in reversed(full.words):
        n += 1
        total += len(sentence)
        if total >= words:
            break
    test, train = full.words[-n:], full.words[:-n]
    d.mkdir(parents=True, exist_ok=True)
    corpus_mod.write_sighan(d / "test.txt", test)
    corpus_mod.write_sighan(d / "train.txt", train)
    # three outputs: gold itself, every word cut into characters, and pairs merged
    corpus_mod.write_sighan(d / "perfect.txt", test)
    corpus_mod.write_sighan(d / "chars.txt", [[c for w in s for c in w] for s in test])
    corpus_mod.write_sighan(d / "pairs.txt", [["".join(s[i:i + 2]) for i in range(0, len(s), 2)]
                                              for s in test])
    return {"test_sentences": n, "test_words": total,
            "test_chars": sum(len(w) for s in test for w in s),
            "train_sentences": len(train), "train_words": sum(map(len, train))}


def measure_outputs(d: Path, members: int) -> dict:
    """Runs in a fresh process: the output-writing side of a K-member run."""
    import numpy as np

    from committee.learners import members as members_mod
    from committee.pipeline import marks as marks_mod
    from committee.pipeline import dataset
    from committee.config import parse_config

    marks_rss = {"imports": _rss_mb()}
    cfg = parse_config({
        "name": "scale", "corpus": {"train": {"path": str(d / "train.txt")},
                                    "test": {"path": str(d / "test.txt")}},
        "committee": {"size": members, "seed": 2016},
        "output": {"dir": str(d / "run")}})
    inputs = dataset.load_inputs(cfg)
    marks_rss["corpora read"] = _rss_mb()
    out = d / "run"
    out.mkdir(exist_ok=True)
    n_gold = inputs.test.n_words()
    n_chars = inputs.test.n_chars()
    committee = members_mod.draw_committee(members, len(inputs.train_sentences),
                                           cfg.committee.templates, cfg.committee.ratios,
                                           seed=cfg.committee.seed)
    t0 = time.perf_counter()
    for m in committee:
        rng = np.random.default_rng([2016, m.index])
        marks = rng.random(n_gold) < 0.9
        ends = rng.random(n_chars) < 0.6
        ends[-1] = True
        result = members_mod.MemberResult(
            index=m.index, marks=marks, p=0.9, r=float(marks.mean()), f1=0.9, n_gold=n_gold,
            n_pred=int(ends.sum()), n_correct=int(marks.sum()), n_sentences=m.n_sentences,
            n_train_chars=0, pred_ends=ends)
        marks_mod.save_member(out, result, m)
    records = {m.index: marks_mod.load_member(out, m, n_gold) for m in committee}
    t_members = time.perf_counter() - t0
    marks_rss["members saved and loaded"] = _rss_mb()
    t0 = time.perf_counter()
    dataset.write_outputs(cfg, inputs, out, committee, records,
                           dataset.run_fingerprint(cfg, inputs))
    t_outputs = time.perf_counter() - t0
    marks_rss["outputs written"] = _rss_mb()
    sizes = {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.is_file()}
    return {"peak_rss_mb": marks_rss, "members_s": round(t_members, 2),
            "write_outputs_s": round(t_outputs, 2), "file_bytes": sizes,
            "member_file_bytes": (out / "members" / "member-0000.json").stat().st_size}


def measure_score(d: Path) -> dict:
    """Runs in a fresh process: committee score with bootstrap."""
    import contextlib
    import io

    from committee import cli

    before = _rss_mb()
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli.main(["score", "--json", "--bootstrap", "1000",
                         "--gold", str(d / "run" / "test.txt"),
                         "--difficulty", str(d / "run" / "test.weight"),
                         "--train-words", str(d / "run" / "train-words.txt"),
                         str(d / "perfect.txt"), str(d / "chars.txt"), str(d / "pairs.txt")])
    seconds = time.perf_counter() - t0
    result = json.loads(out.getvalue())
    return {"exit": code, "imports_mb": round(before, 1), "peak_rss_mb": round(_rss_mb(), 1),
            "seconds": round(seconds, 2),
            "f1": [round(s["f1"], 4) for s in result["systems"]],
            "fb": [None if s["fb"] is None else round(s["fb"], 4) for s in result["systems"]]}


def run_child(what: str, d: Path, members: int) -> dict:
    p = subprocess.run([sys.executable, __file__, "--child", what, "--dir", str(d),
                        "--members", str(members)], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=AS_TEST_WORDS)
    ap.add_argument("--members", type=int, default=90)
    ap.add_argument("--dir", type=Path, default=None,
                    help="work directory (default: a temporary one)")
    ap.add_argument("--child", choices=["outputs", "score"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        fn = measure_outputs if args.child == "outputs" else measure_score
        res = fn(args.dir, args.members) if args.child == "outputs" else fn(args.dir)
        print(json.dumps(res))
        return 0
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        d = args.dir or Path(tmp)
        info = setup(d, args.words)
        outputs = run_child("outputs", d, args.members)
        score = run_child("score", d, args.members)
    report = {"setup": info, "members": args.members, "outputs": outputs, "score": score}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
