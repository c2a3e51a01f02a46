#!/usr/bin/env python3
"""What verifying a run's checksums adds to reading it (committee.pipeline.layout.verify).

    python3 benchmarks/bench_verify.py [--members 297] [--words 200000] [--repeat 5]

Builds a synthetic run directory of a large committee: ``marks.npz`` of
``--members`` x ``--words`` seeded random marks (80% right, written by
committee.system.files.write_npz as a run writes it), ``predictions.npz`` of as
many members' packed word ends, and ``test.txt``, ``words.tsv``,
``test.weight``, ``train-words.txt`` of random bytes in the sizes such a run
has; ``manifest.json`` records their SHA-256.  Prints the least wall time
over ``--repeat`` of verifying the files the report reads, of verifying
``marks.npz`` alone (what ``committee irt`` adds to reading it), and of
loading ``marks.npz`` (committee.system.files.read_npz), which every reader does
anyway.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from committee.pipeline import layout
from committee.pipeline import lock
from committee.system.files import read_npz, sha256_file, write_npz  # noqa: E402


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def build(d: Path, k: int, n: int) -> None:
    """The synthetic run directory (see the module docstring)."""
    rng = np.random.default_rng(0)
    write_npz(d / layout.MARKS_FILE, marks=rng.random((k, n)) < 0.8)
    n_chars = int(n * 1.65)  # People's Daily: 1.65 characters a word
    ends = rng.random((k, n_chars)) < 0.6
    write_npz(d / layout.PREDICTIONS_FILE, n_chars=np.int64(n_chars),
              pred_ends=np.packbits(ends, axis=1))
    sizes = {layout.TEST_FILE: n_chars * 3 + n, layout.WORDS_FILE: n * 40,
             layout.WEIGHT_FILE: n * 19, layout.TRAIN_WORDS_FILE: 600_000}
    for name, size in sizes.items():
        (d / name).write_bytes(os.urandom(size))
    files = {name: sha256_file(d / name) for name in [*sizes, layout.MARKS_FILE,
                                                       layout.PREDICTIONS_FILE]}
    (d / layout.MANIFEST_FILE).write_text(json.dumps({"files": files}), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=297)
    ap.add_argument("--words", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        build(d, args.members, args.words)
        names = layout.READ_BY[lock.REPORT]
        total = sum((d / n).stat().st_size for n in names) / 1e6
        marks_mb = (d / layout.MARKS_FILE).stat().st_size / 1e6
        rows = [
            (f"verify the report's {len(names)} files ({total:.1f} MB)",
             lambda: layout.verify(d, names)),
            (f"verify marks.npz ({marks_mb:.1f} MB)",
             lambda: layout.verify(d, [layout.MARKS_FILE])),
            ("load marks.npz (read_npz)", lambda: read_npz(d / layout.MARKS_FILE, ["marks"])),
        ]
        print(f"K = {args.members}, N = {args.words:,} words")
        for name, fn in rows:
            print(f"{name:<46} {_best(fn, args.repeat):7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
