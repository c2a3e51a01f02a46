"""Dask to the end: a member whose worker dies each time it runs it, and a
scheduler that goes away mid-run, on a ``distributed.LocalCluster`` on
127.0.0.1 (committee.system.pools).

Workers are killed at chosen moments: a member task that kills its own
worker process (a test hook importable by the workers), and the scheduler's
process killed once two members are saved.  Whatever happens, the finished
members are kept, the failure is one line with exit 5, and a rerun trains
only the missing members and ends with the bytes of an uninterrupted run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from committee import cli
from committee.pipeline import dataset
from committee.config import load_config
import toyrun
from toyrun import outputs

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

REPO = Path(__file__).resolve().parents[1]
SIZE = 6
#: The member whose task kills its worker.
VICTIM = 2
#: Long enough for the scheduler to be killed while members still run.
ITERATIONS = 30


def write_config(path: Path, corpus_dir: Path, out: Path, **kw) -> Path:
    return toyrun.write_config(path, corpus_dir, out, size=SIZE, backend="dask", n_jobs=2,
                               iterations=ITERATIONS, **kw)


def saved(out: Path) -> list[int]:
    if not (out / "members").is_dir():
        return []
    return sorted(int(p.stem.split("-")[1]) for p in (out / "members").glob("member-*.json"))


@pytest.fixture(scope="module")
def reference(toy_corpus, tmp_path_factory):
    """The same run, uninterrupted, on one process."""
    tmp = tmp_path_factory.mktemp("ref")
    out = tmp / "out"
    cfg = toyrun.write_config(tmp / "c.yaml", toy_corpus, out, size=SIZE, backend="sequential",
                               iterations=ITERATIONS)
    dataset.run(load_config(cfg), progress=False)
    return out


# A task function for Dask workers: importable by name (pytest puts tests/ on
# sys.path, and the workers inherit it), so it runs inside the worker.
_REAL_TASK = dataset._member_task


def killing_task(task):
    """Member VICTIM kills the worker process that runs it, each time."""
    if task.index == VICTIM:
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL_TASK(task)


def test_member_whose_worker_dies_each_time_fails_alone(reference, toy_corpus, tmp_path,
                                                        monkeypatch, capsys):
    """Dask runs the member again on a fresh worker (allowed-failures 1: two
    deaths), then gives up with KilledWorker: that member is reported by
    index, the other five are saved, and a rerun trains only it."""
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    # one task per worker at a time: a member queued behind the victim on its
    # worker would otherwise share its deaths
    settings = {"distributed.scheduler.allowed-failures": 1,
                "distributed.scheduler.worker-saturation": 1.0}
    with dask.config.set(settings), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None) as cluster:
        address = f"parallel.scheduler={cluster.scheduler_address}"
        monkeypatch.setattr(dataset, "_member_task", killing_task)
        t0 = time.monotonic()
        code = cli.main(["run", str(cfg), "--quiet", "--set", address])
        elapsed = time.monotonic() - t0
        err = capsys.readouterr().err
        assert code == 5, err
        lines = err.splitlines()
        assert len(lines) == 1, err  # distributed's own records went to run.log
        assert lines[0].startswith(
            f"committee: error: 1 of 6 members failed (member {VICTIM}: its dask worker died "
            "each time it ran it (distributed.scheduler.allowed-failures)); 5 are saved; ")
        assert lines[0].endswith("rerun the same command to train only the missing members")
        assert saved(out) == [k for k in range(SIZE) if k != VICTIM]
        assert not (out / "manifest.json").exists()
        assert "KilledWorker" in (out / "run.log").read_text(encoding="utf-8")
        monkeypatch.undo()
        assert cli.main(["run", str(cfg), "--quiet", "--set", address]) == 0
    assert "5 members saved, 1 to train" in (out / "run.log").read_text(encoding="utf-8")
    assert outputs(out) == outputs(reference)
    assert elapsed < 60


# A cluster in its own process, so that its scheduler can be killed.
CLUSTER = textwrap.dedent("""
    import time
    from distributed import LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None)
    print(cluster.scheduler_address, flush=True)
    time.sleep(600)
""")


def test_scheduler_gone_mid_run_keeps_finished_members(reference, toy_corpus, tmp_path):
    """The scheduler's process is killed (SIGKILL) once two members are saved:
    ``committee run`` says so in one line (exit 5), every finished member is
    kept, and a rerun on a local cluster trains only the missing ones."""
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cluster = subprocess.Popen([sys.executable, "-c", CLUSTER], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        run = subprocess.Popen([sys.executable, "-m", "committee", "run", str(cfg), "--quiet",
                                "--set", f"parallel.scheduler={address}"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while len(saved(out)) < 2:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.01)
        cluster.kill()  # the scheduler's process; its workers are orphaned
        t0 = time.monotonic()
        stdout, stderr = run.communicate(timeout=120)
        elapsed = time.monotonic() - t0
    finally:
        try:
            os.killpg(cluster.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        cluster.wait()
        cluster.stdout.close()
    assert run.returncode == 5, stderr
    assert stderr == (f"committee: error: the dask scheduler at {address} went away while "
                      "the members ran; the members that finished are saved: rerun the same "
                      "command (with a scheduler) to train only the missing ones\n")
    assert elapsed < 15
    kept = saved(out)
    assert len(kept) >= 2 and not (out / "manifest.json").exists()
    # the rerun, on a local cluster, trains exactly the missing members
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    log = (out / "run.log").read_text(encoding="utf-8")
    assert f"{len(kept)} members saved, {SIZE - len(kept)} to train" in log
    assert outputs(out) == outputs(reference)
