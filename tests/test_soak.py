"""Soak: the same ``committee run`` started from several processes at once,
killed and restarted at random (seeded) moments over many rounds, ends with
exactly one complete run, byte-identical to an uninterrupted one, and no
temporary file left.

Each round starts three processes on one output.dir a few tenths of a second
apart.  Each is killed at its own seeded moment (a quarter of them are left
alone), with SIGKILL to its whole process group (the run and its loky
workers) or to the run's process alone, whose workers then end by the
parent-death signal (Linux; elsewhere they run on as orphans beside the
processes that follow); the first two killed in a round
are restarted at once.  Every process must end in one of three ways: it
finished (exit 0), it was refused because another process holds output.dir
(exit 5 and exactly the one-line refusal), or it was killed.  Anything else
(a run that fails because another removed its files, a traceback) fails the
test.  Marked slow: one to three minutes on two busy cores.
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

from committee.system import owners
from committee.system.files import sha256_bytes

from toyrun import write_config

pytestmark = pytest.mark.slow

SEED = 20160807
ROUNDS = 8
PER_ROUND = 3
#: Killed processes restarted per round.
RESTARTS = 2
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
            if os.getsid(int(entry)) in sessions and owners._proc_state(int(entry))[0] != "Z":
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

    def launch(procs: list) -> None:
        p = start(cfg)
        sessions.add(p.pid)
        # a seeded moment to kill it (a quarter run undisturbed), and how
        procs.append((p, None if rng.random() < 0.25 else
                      time.monotonic() + rng.uniform(0.2, 1.2 * lone_s), rng.random() < 0.5))

    for _ in range(ROUNDS):
        procs: list = []
        for _ in range(PER_ROUND):
            launch(procs)
            time.sleep(rng.uniform(0.0, 0.3))
        restarts = RESTARTS
        while any(p.poll() is None for p, _, _ in procs):
            for k, (p, kill_at, group) in enumerate(procs):
                if kill_at is None or p.poll() is not None or time.monotonic() < kill_at:
                    continue
                try:
                    if group:
                        os.killpg(p.pid, signal.SIGKILL)
                    else:  # its workers end with it (Linux), or run on orphaned
                        os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                procs[k] = (p, None, group)
                if restarts:
                    restarts -= 1
                    launch(procs)
            time.sleep(0.02)
        for p, _, _ in procs:
            _, err = p.communicate()
            if p.returncode == -signal.SIGKILL:
                outcomes["killed"] += 1
            elif p.returncode == 5 and REFUSED.fullmatch(err):
                outcomes["refused"] += 1
            else:
                assert p.returncode == 0, f"exit {p.returncode}: {err}"
                outcomes["finished"] += 1

    # orphaned workers (where no parent-death signal ends them) finish their
    # member and go, or wait idle for tasks (loky's idle timeout is minutes):
    # those are killed, and a file one of them left is then a dead owner's,
    # for the last run to remove
    deadline = time.monotonic() + 20
    while alive_in(sessions) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in alive_in(sessions):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    last = start(cfg)
    _, err = last.communicate(timeout=600)
    assert last.returncode == 0, err

    print(f"lone run {lone_s:.1f} s; {ROUNDS} rounds of {PER_ROUND} processes and up to "
          f"{RESTARTS} restarts: {outcomes}")
    assert outcomes["killed"] and outcomes["refused"]  # the soak exercised both
    # exactly one complete run: every file the manifest lists, as it lists it
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    for name, sha in manifest["files"].items():
        assert sha256_bytes((out / name).read_bytes()) == sha, name
    assert files(out) == files(ref_dir)
    left = [str(p.relative_to(out)) for p in out.rglob("*")
            if p.name.startswith(".") or p.name.endswith((".tmp", ".crfsuite"))]
    assert left == [], left
