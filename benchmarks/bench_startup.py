"""Start-up cost of the command line: ``committee run --help``, the imports a
``committee run`` makes before it first looks at ``output.dir``, and a
``committee run`` refused because another process holds ``output.dir``.

Usage (from the repository root)::

    git archive REF | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    python3 benchmarks/bench_startup.py [--before /tmp/before] [--repeat 7]

Each figure is the wall time of a fresh ``python`` process (median and best
of ``--repeat``), run with the source tree as its working directory so that
``import committee`` picks that tree.  With ``--before`` the same figures
are printed side by side for an older tree (the refused run only where that
tree has ``committee.pipeline.lock``).  The top imports by cumulative time come
from ``python -X importtime``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What ``committee run`` imports before its first look at ``output.dir``.
RUN_IMPORTS = "import committee.cli, committee.config, committee.pipeline.workflow"

HOLDER = textwrap.dedent("""
    import sys, time
    from committee.pipeline import lock as runlock
    with runlock.hold(sys.argv[1], "committee run", create=True):
        print("locked", flush=True)
        time.sleep(600)
""")

CONFIG = """name: bench
corpus:
  train: {{builtin: peoples-daily-1998, split: train}}
  test: {{builtin: peoples-daily-1998, split: test}}
output: {{dir: {out}}}
"""


def wall(cmd: list[str], cwd: Path, repeat: int, expect: int = 0) -> tuple[float, float]:
    """Median and best wall time of ``cmd`` in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != expect:
            raise SystemExit(f"{' '.join(cmd)} in {cwd}: exit {proc.returncode}, expected "
                             f"{expect}\n{proc.stderr}")
    return statistics.median(times), min(times)


def refused_run(tree: Path, repeat: int) -> tuple[float, float] | None:
    """A ``committee run`` on an ``output.dir`` that another process holds."""
    if not (tree / "committee" / "runlock.py").exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run"
        cfg = Path(d) / "c.yaml"
        cfg.write_text(CONFIG.format(out=out), encoding="utf-8")
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], cwd=tree,
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "locked"
            return wall([sys.executable, "-m", "committee", "run", str(cfg), "--quiet"], tree,
                        repeat, expect=5)
        finally:
            holder.kill()
            holder.wait()
            holder.stdout.close()


#: Imports worth watching: the heavy libraries and the command line's own modules.
WATCHED = ("numpy", "pandas", "matplotlib", "pydantic", "yaml", "pycrfsuite", "committee.cli",
           "committee.config", "committee.pipeline.workflow")


def import_costs(tree: Path) -> str:
    """Cumulative import time of each of :data:`WATCHED` that
    :data:`RUN_IMPORTS` loads, from ``python -X importtime`` (one run)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", RUN_IMPORTS], cwd=tree,
                          capture_output=True, text=True, check=True)
    cost = {}
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            _, cumulative, name = line[len("import time:"):].split("|")
            cost.setdefault(name.strip(), int(cumulative))
    return ", ".join(f"{name} {cost[name] / 1000:.0f} ms" if name in cost
                     else f"{name} -" for name in WATCHED)


def figures(tree: Path, repeat: int) -> dict:
    py = sys.executable
    return {
        "python -c pass": wall([py, "-c", "pass"], tree, repeat),
        "committee run --help": wall([py, "-m", "committee", "run", "--help"], tree, repeat),
        "imports before output.dir": wall([py, "-c", RUN_IMPORTS], tree, repeat),
        "refused committee run": refused_run(tree, repeat),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="an older source tree to compare with")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    results = {name: figures(tree, args.repeat) for name, tree in trees.items()}
    print(f"wall time of a fresh process, median / best of {args.repeat} (seconds); "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    head = f"{'':28}" + "".join(f"{name:>18}" for name in trees)
    print(head)
    for what in results["after"]:
        cells = []
        for name in trees:
            v = results[name][what]
            cells.append(f"{'-':>18}" if v is None else f"{v[0]:>10.3f} / {v[1]:.3f}")
        print(f"{what:28}" + "".join(cells))
    for name, tree in trees.items():
        print(f"\n{name}: `{RUN_IMPORTS}` loads (cumulative; - = not loaded):")
        print("  " + import_costs(tree))
    return 0


if __name__ == "__main__":
    sys.exit(main())
