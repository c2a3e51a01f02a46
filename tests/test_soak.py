"""Soak: the same ``committee run`` started from several processes at once,
killed and restarted at random (seeded) moments over many rounds, ends with
exactly one complete run, byte-identical to an uninterrupted one, and no
temporary file left.

Each round starts three processes on one output.dir a few tenths of a second
apart, waits a random time, then kills every process still running: with
SIGKILL to its whole process group (the run and its loky workers), or to the
run's process alone, which leaves its workers running on as orphans while
the next round starts.  Every process must end in one of three ways: it
finished (exit 0), it was refused because another process holds output.dir
(exit 5 and exactly the one-line refusal), or it was killed.  Anything else
(a run that fails because another removed its files, a traceback) fails the
test.  Marked slow: about two minutes on two cores.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from committee import runlock
from committee.fileio import sha256_bytes

from toyrun import write_config

pytestmark = pytest.mark.slow

SEED = 20160807
ROUNDS = 10
PER_ROUND = 3
REFUSED = re.compile(r"committee: error: \S+ is in use by committee run \(pid \d+, started "
                     r"[\d:]+\); wait for it or choose another output\.dir\n")


def start(cfg: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "committee", "run", str(cfg), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def files(d: Path) -> dict[str, bytes]:
    """Every file below ``d`` but the log, by relative path."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and p.name != "run.log"}


def alive_in(sessions: set[int]) -> list[int]:
    """Processes (not zombies) of the given sessions that still run."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getsid(int(entry)) in sessions and runlock._proc_state(int(entry))[0] != "Z":
                found.append(int(entry))
        except (OSError, TypeError):  # gone meanwhile
            pass
    return found


def test_soak_concurrent_runs_killed_and_restarted(toy_corpus, tmp_path):
    rng = random.Random(SEED)
    ref_dir, out = tmp_path / "ref", tmp_path / "run"
    settings = dict(size=6, n_jobs=2, iterations=30)
    ref_cfg = write_config(tmp_path / "ref.yaml", toy_corpus, ref_dir, **settings)
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out, **settings)
    t0 = time.monotonic()
    ref = start(ref_cfg)
    _, err = ref.communicate()
    lone_s = time.monotonic() - t0
    assert ref.returncode == 0, err

    sessions: set[int] = set()
    outcomes = {"finished": 0, "refused": 0, "killed": 0}
    for _ in range(ROUNDS):
        procs = []
        for _ in range(PER_ROUND):
            procs.append(start(cfg))
            sessions.add(procs[-1].pid)
            time.sleep(rng.uniform(0.0, 0.3))
        time.sleep(rng.uniform(0.3, 0.7 * lone_s))
        for p in procs:
            group = rng.random() < 0.5
            if p.poll() is None:
                try:
                    if group:
                        os.killpg(p.pid, signal.SIGKILL)
                    else:  # its workers run on, orphaned, into the next round
                        os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for p in procs:
            _, err = p.communicate(timeout=300)
            if p.returncode == -signal.SIGKILL:
                outcomes["killed"] += 1
            elif p.returncode == 5 and REFUSED.fullmatch(err):
                outcomes["refused"] += 1
            else:
                assert p.returncode == 0, f"exit {p.returncode}: {err}"
                outcomes["finished"] += 1

    # the last orphaned workers finish their member and go
    deadline = time.monotonic() + 300
    while alive_in(sessions):
        assert time.monotonic() < deadline, f"still running: {alive_in(sessions)}"
        time.sleep(0.1)
    last = start(cfg)
    _, err = last.communicate(timeout=600)
    assert last.returncode == 0, err
    sessions.add(last.pid)
    while alive_in(sessions):
        assert time.monotonic() < deadline
        time.sleep(0.1)

    print(f"lone run {lone_s:.1f} s; {ROUNDS} rounds x {PER_ROUND} processes: {outcomes}")
    assert outcomes["killed"] and outcomes["refused"]  # the soak exercised both
    # exactly one complete run: every file the manifest lists, as it lists it
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    for name, sha in manifest["files"].items():
        assert sha256_bytes((out / name).read_bytes()) == sha, name
    assert files(out) == files(ref_dir)
    left = [str(p.relative_to(out)) for p in out.rglob("*")
            if p.name.startswith(".") or p.name.endswith((".tmp", ".crfsuite"))]
    assert left == [], left
