"""Stop signals, orphaned workers and bounded parallelism (committee.cli,
committee.system.pools).

SIGINT, SIGTERM and SIGHUP sent to the parent process alone (what ``kill``,
``timeout``, ``docker stop`` and systemd do; not the process group) stop a
run at every phase on both backends: the exit code is 128 + the signal, one
line says so, no process of the run survives (its process tree is walked:
its session, since every run here starts a new one), and a rerun resumes,
ending with the bytes of an uninterrupted run without retraining a member
that had finished.  A parent killed by SIGKILL takes its workers with it.
``parallel.n_jobs`` never starts more workers than there are tasks or
usable cores, and says so once.

Runs are paused at a phase by ``tests/stophooks.py`` and signalled there.
The full matrix (signal x phase x backend) is in the slow suite; the
default suite has SIGTERM and SIGKILL on loky while members train.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee import cli
from committee.cli import score as score_mod
from committee.system import pools
from committee.pipeline import dataset as dataset_mod
from committee.system import process
from committee.config import load_config
from committee.errors import Note
import toyrun
from toyrun import outputs

psutil = pytest.importorskip("psutil")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SIZE = 3
TABLE2 = "  table2: true\n  table2_fractions: [0.5, 1.0]\n  table2_max_iterations: 5\n"

#: What a stopped command says, by hand.
STOP_LINES = {
    signal.SIGTERM: "committee: terminated (SIGTERM); finished work is kept\n",
    signal.SIGHUP: "committee: hung up (SIGHUP); finished work is kept\n",
    signal.SIGINT: "committee: interrupted (SIGINT); finished work is kept\n",
}
EXIT_CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGINT: 130}

needs_two_cores = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="two workers need two usable cores")


# --------------------------------------------------------------------------
# helpers


def saved(out: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (out / "members").glob("member-*.json"))


def rerun(cfg: Path) -> int:
    """Resume a run in this process (its outputs do not depend on the backend)."""
    return cli.main(["run", str(cfg), "--quiet", "--set", "parallel.backend=sequential",
                     "--set", "parallel.n_jobs=1"])


def last_run(log: str) -> str:
    """What the last run of ``run.log`` found: ``N members saved, M to train``."""
    line = [x for x in log.splitlines() if " members saved, " in x][-1]
    return line.split(", ", 1)[1].split(";")[0]


def stamps(paths) -> dict:
    """Bytes and modification time of each file: equal only if never rewritten."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths if p.is_file()}


def write_config(tmp: Path, corpus: Path, backend: str, table2: bool = False,
                 n_jobs: int = 2) -> Path:
    return toyrun.write_config(tmp / f"{backend}{'-t2' * table2}.yaml", corpus, tmp / "out",
                               size=SIZE, n_jobs=n_jobs, backend=backend,
                               experiments=TABLE2 if table2 else "")


@pytest.fixture(scope="module")
def reference(toy_corpus, tmp_path_factory):
    """The difficulty dataset of an uninterrupted run, on one process, with
    and without the Table 2 experiment (the manifest records the config)."""
    refs = {}
    for table2 in (False, True):
        tmp = tmp_path_factory.mktemp(f"ref{int(table2)}")
        cfg = write_config(tmp, toy_corpus, "sequential", table2, n_jobs=1)
        refs[table2] = outputs(dataset_mod.run(load_config(cfg), progress=False))
    return refs


def _terminal_signals() -> None:
    """In a child, before it runs: the stop signals as a terminal leaves them
    (a test run started by ``nohup`` or in a script's background would
    otherwise hand SIGHUP or SIGINT down ignored, and the child, as it
    should, would keep them ignored)."""
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


class Run:
    """``committee ARGS`` in a new session, paused at ``phase`` (stophooks)."""

    def __init__(self, tmp: Path, args: list[str], phase: str, env: dict | None = None):
        self.marks = tmp / "marks"
        self.marks.mkdir(exist_ok=True)
        self.err_path = tmp / "stderr.txt"
        environ = dict(os.environ, **(env or {}))
        environ.update(PYTHONPATH=os.pathsep.join([str(TESTS), str(REPO)]),
                       COMMITTEE_TEST_PAUSE=phase, COMMITTEE_TEST_MARKS=str(self.marks))
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "import stophooks; stophooks.main()", *args],
                env=environ, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                preexec_fn=_terminal_signals)

    def wait_until(self, ready, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                pytest.fail(f"the run ended ({self.proc.returncode}) before the signal: "
                            f"{self.stderr()}")
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail("the run never reached the phase")
            time.sleep(0.02)

    def workers(self) -> list:
        """The run's processes but the parent: loky or Dask workers, resource trackers."""
        return [p for p in session(self.proc.pid) if p.pid != self.proc.pid]

    def signal(self, signum: int) -> int:
        """Send ``signum`` to the parent alone; return its exit code."""
        os.kill(self.proc.pid, signum)
        return self.proc.wait(timeout=60)

    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8")

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc) -> None:
        self.kill()  # a failed test leaves nothing running either

    def kill(self) -> None:
        for p in session(self.proc.pid):
            try:
                p.kill()
            except psutil.Error:
                pass
        self.proc.wait()


def session(sid: int) -> list:
    """The live processes of session ``sid`` (a run and everything it started)."""
    found = []
    for p in psutil.process_iter():
        try:
            if os.getsid(p.pid) == sid and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (psutil.Error, OSError):
            pass
    return found


def _loky_workers(run: Run) -> list:
    return [p for p in run.workers() if "popen_loky" in " ".join(p.cmdline())]


def _dask_workers(run: Run) -> list:
    return [p for p in run.workers() if "spawn_main" in " ".join(p.cmdline())]


def assert_nothing_survives(run: Run, within: float = 10) -> None:
    """No process of the run is left ``within`` seconds after its parent ended
    (a resource tracker ends once the last holder of its pipe is gone)."""
    deadline = time.monotonic() + within
    while (left := session(run.proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    names = []
    for p in left:
        try:
            names.append(" ".join(p.cmdline())[:120])
        except psutil.Error:
            pass
    run.kill()
    assert not left, f"{len(left)} process(es) of the run survived: {names}"


#: When a run has reached each phase (its pause has begun).
def _ready(phase: str, run: Run, out: Path):
    marks = run.marks
    return {
        "corpora": lambda: (marks / "corpora").exists(),
        "members": lambda: (out / "members").is_dir() and saved(out)
        and any(marks.glob("member-*")),
        "outputs": lambda: (marks / "outputs").exists(),
        "table2": lambda: any(marks.glob("table2-*"))
        and any((out / "report" / "table2").glob("*.json")),
    }[phase]


def stop_and_resume(tmp: Path, corpus: Path, reference, signum: int, phase: str,
                    backend: str) -> None:
    """Signal a run paused at ``phase``, then check everything this module promises."""
    table2 = phase == "table2"
    cfg = write_config(tmp, corpus, backend, table2)
    out = tmp / "out"
    with Run(tmp, ["run", str(cfg), "--quiet"], phase) as run:
        run.wait_until(_ready(phase, run, out))
        kept = stamps((out / "members").glob("member-*.json")) if saved(out) else {}
        models = stamps((out / "report" / "table2").glob("*")) if table2 else {}
        code = run.signal(signum)
        assert (code, run.stderr()) == (EXIT_CODES[signum], STOP_LINES[signum])
        assert_nothing_survives(run)
    # the rerun resumes: the members saved before the signal are neither
    # retrained nor rewritten, and the outputs are those of an uninterrupted run
    assert rerun(cfg) == 0
    log = (out / "run.log").read_text(encoding="utf-8")
    assert last_run(log) == f"{len(kept)} members saved, {SIZE - len(kept)} to train"
    assert stamps((out / "members").glob("member-*.json")).items() >= kept.items()
    assert outputs(out) == reference[table2]
    assert not list(out.rglob(".*.tmp")) and not (out / ".tmp").exists()
    if table2:  # the finished Table 2 model is reused, the other one trained
        assert "table2: training 1 F2 model(s)" in log.rsplit("run toy:", 1)[1]
        assert (out / "report.md").exists()
        now = stamps((out / "report" / "table2").glob("*"))
        assert {k: now[k] for k in models} == models


# --------------------------------------------------------------------------
# the default suite: SIGTERM and SIGKILL to a loky run's parent while members train


@needs_two_cores
def test_sigterm_to_the_parent_alone_stops_its_loky_workers(reference, toy_corpus, tmp_path):
    stop_and_resume(tmp_path, toy_corpus, reference, signal.SIGTERM, "members", "loky")


@needs_two_cores
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG)")
def test_loky_workers_end_with_a_parent_killed_by_sigkill(reference, toy_corpus, tmp_path):
    """Nothing of the parent runs after SIGKILL: its workers end by the
    kernel's parent-death signal, the resource trackers when their pipe closes."""
    cfg = write_config(tmp_path, toy_corpus, "loky")
    out = tmp_path / "out"
    with Run(tmp_path, ["run", str(cfg), "--quiet"], "members") as run:
        run.wait_until(_ready("members", run, out))
        assert len(_loky_workers(run)) == 2
        assert run.signal(signal.SIGKILL) == -signal.SIGKILL
        assert_nothing_survives(run, within=5)
        # nobody says anything: loky's resource tracker cleans up quietly
        assert run.stderr() == ""
    n = len(saved(out))
    assert rerun(cfg) == 0
    assert last_run((out / "run.log").read_text("utf-8")) == (
        f"{n} members saved, {SIZE - n} to train")
    assert outputs(out) == reference[False]


# --------------------------------------------------------------------------
# the slow suite: signal x phase x backend


@pytest.mark.slow
@needs_two_cores
@pytest.mark.parametrize("backend", ["loky", "dask"])
@pytest.mark.parametrize("phase", ["corpora", "members", "outputs", "table2"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["TERM", "HUP", "INT"])
def test_stop_signal_matrix(reference, toy_corpus, tmp_path, signum, phase, backend):
    if backend == "dask":
        pytest.importorskip("distributed")
    stop_and_resume(tmp_path, toy_corpus, reference, signum, phase, backend)


@pytest.mark.slow
@needs_two_cores
def test_dask_workers_end_with_a_parent_killed_by_sigkill(reference, toy_corpus, tmp_path):
    """distributed's own mechanism: a worker process exits when the pipe
    from its parent closes."""
    pytest.importorskip("distributed")
    cfg = write_config(tmp_path, toy_corpus, "dask")
    out = tmp_path / "out"
    with Run(tmp_path, ["run", str(cfg), "--quiet"], "members") as run:
        run.wait_until(_ready("members", run, out))
        assert len(_dask_workers(run)) == 2
        assert run.signal(signal.SIGKILL) == -signal.SIGKILL
        assert_nothing_survives(run)
    n = len(saved(out))
    assert rerun(cfg) == 0
    assert last_run((out / "run.log").read_text("utf-8")) == (
        f"{n} members saved, {SIZE - n} to train")
    assert outputs(out) == reference[False]


# --------------------------------------------------------------------------
# n_jobs: never more workers than tasks or usable cores


@pytest.mark.parametrize("backend, n_jobs, n_tasks, cores, what, expected, note", [
    ("loky", 100000, 3, 2, "members", 2,
     "parallel.n_jobs: 100000 reduced to 2 (2 usable cores, 3 members to train)"),
    ("loky", 16, 3, 8, "members", 3,
     "parallel.n_jobs: 16 reduced to 3 (8 usable cores, 3 members to train)"),
    ("loky", 4, 1, 8, "members", 1,
     "parallel.n_jobs: 4 reduced to 1 (8 usable cores, 1 member to train)"),
    ("dask", 3000, 90, 1, "members", 1,
     "parallel.n_jobs: 3000 reduced to 1 (1 usable core, 90 members to train)"),
    ("loky", 8, 4, 2, "Table 2 models", 2,
     "parallel.n_jobs: 8 reduced to 2 (2 usable cores, 4 Table 2 models to train)"),
    ("loky", 2, 3, 2, "members", 2, None),
    ("loky", -1, 3, 8, "members", 3, None),  # all cores, as asked: nothing to say
    ("loky", -1, 30, 8, "members", 8, None),
    ("dask", 2, 2, 4, "members", 2, None),
    ("sequential", 1, 3, 8, "members", 1, None),
    ("loky", 5, 0, 2, "members", 0, None),  # nothing to run (a finished run resumed)
])
def test_n_jobs_is_capped_and_said_once(monkeypatch, backend, n_jobs, n_tasks, cores, what,
                                        expected, note):
    monkeypatch.setattr(pools, "usable_cores", lambda: cores)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert pools.worker_count(backend, n_jobs, n_tasks, what) == expected
    assert [(w.category, str(w.message)) for w in caught] == ([(Note, note)] if note else [])


def test_the_workers_of_an_external_scheduler_are_not_ours(monkeypatch):
    monkeypatch.setattr(pools, "usable_cores", lambda: 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pools.worker_count("dask", 100, 3, "members", "tcp://10.0.0.1:8786") == 100


@settings(max_examples=300, deadline=None)
@given(backend=st.sampled_from(["loky", "dask", "sequential"]),
       n_jobs=st.one_of(st.just(-1), st.integers(1, 10**6)), n_tasks=st.integers(0, 500),
       cores=st.integers(1, 256))
def test_worker_count_properties(backend, n_jobs, n_tasks, cores):
    """Never more than the tasks nor the cores, at least one while there is
    work, and a note exactly when an explicit n_jobs was reduced."""
    real = pools.usable_cores
    pools.usable_cores = lambda: cores
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            n = pools.worker_count(backend, n_jobs, n_tasks, "members")
    finally:
        pools.usable_cores = real
    assert 0 <= n <= min(n_tasks, cores)
    assert n >= 1 or n_tasks == 0
    if backend == "sequential":
        assert n == min(n_tasks, 1)
    else:
        assert n == min(n_tasks, cores, cores if n_jobs == -1 else n_jobs)
    noted = backend != "sequential" and n_jobs != -1 and 0 < n < n_jobs
    assert len(caught) == int(noted)


def test_usable_cores_follow_affinity_and_loky_max_cpu_count(monkeypatch):
    if hasattr(os, "sched_getaffinity"):
        assert 1 <= pools.usable_cores() <= len(os.sched_getaffinity(0))
    monkeypatch.setenv("LOKY_MAX_CPU_COUNT", "1")
    assert pools.usable_cores() == 1


@needs_two_cores
@pytest.mark.parametrize("backend", [
    "loky", pytest.param("dask", marks=pytest.mark.slow)])
def test_n_jobs_64_starts_two_workers_on_two_cores(toy_corpus, tmp_path, backend):
    """K = 3, n_jobs 64 and two usable cores (LOKY_MAX_CPU_COUNT=2): the note,
    before any worker starts, then exactly two workers, counted while the
    members train."""
    if backend == "dask":
        pytest.importorskip("distributed")
    cfg = write_config(tmp_path, toy_corpus, backend, n_jobs=64)
    out = tmp_path / "out"
    note = "committee: note: parallel.n_jobs: 64 reduced to 2 (2 usable cores, 3 members to train)\n"
    with Run(tmp_path, ["run", str(cfg), "--quiet"], "members",
             {"LOKY_MAX_CPU_COUNT": "2"}) as run:
        run.wait_until(_ready("members", run, out))
        assert run.stderr() == note
        workers = (_loky_workers if backend == "loky" else _dask_workers)(run)
        assert len(workers) == 2, [p.cmdline() for p in workers]
        assert run.signal(signal.SIGTERM) == 143
        assert run.stderr() == note + STOP_LINES[signal.SIGTERM]
        assert_nothing_survives(run)
    assert "parallel.n_jobs: 64 reduced to 2" in (out / "run.log").read_text("utf-8")


def test_table2_models_are_capped_too(toy_corpus, tmp_path, monkeypatch, capsys):
    """committee report: n_jobs 8 for two Table 2 models on two cores."""
    cfg = write_config(tmp_path, toy_corpus, "sequential", n_jobs=1)
    out = tmp_path / "out"
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    monkeypatch.setattr(pools, "usable_cores", lambda: 2)
    capsys.readouterr()
    assert cli.main(["report", str(out), "--only", "table2", "--quiet",
                     "--set", "parallel.backend=loky", "--set", "parallel.n_jobs=8",
                     "--set", "experiments.table2_fractions=[0.5,1.0]",
                     "--set", "experiments.table2_max_iterations=5"]) == 0
    assert capsys.readouterr().err == ("committee: note: parallel.n_jobs: 8 reduced to 2 "
                                       "(2 usable cores, 2 Table 2 models to train)\n")
    log = (out / "run.log").read_text("utf-8")
    assert "table2: training 2 F2 model(s)" in log and "n_jobs 2\n" in log


# --------------------------------------------------------------------------
# the handler


@pytest.fixture
def handlers():
    """The process's handlers of the stop signals, restored afterwards."""
    saved_ = {s: signal.getsignal(s) for s in EXIT_CODES}
    yield
    for s, h in saved_.items():
        signal.signal(s, h)


def test_first_signal_unwinds_a_second_one_ends_at_once(monkeypatch, capsys, handlers):
    ended = []
    monkeypatch.setattr(process, "exit_now", ended.append)
    handler = process.StopHandler()
    with pytest.raises(KeyboardInterrupt) as info:
        handler(signal.SIGTERM, None)
    assert info.value.signum == signal.SIGTERM
    assert ended == [] and capsys.readouterr().err == ""
    handler(signal.SIGINT, None)  # while the first one's workers are being stopped
    assert ended == [143]
    assert capsys.readouterr().err == STOP_LINES[signal.SIGTERM]


def test_nohup_keeps_sighup_ignored(handlers):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job of a script
    process.handle_stop_signals()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert isinstance(signal.getsignal(signal.SIGINT), process.StopHandler)
    assert isinstance(signal.getsignal(signal.SIGTERM), process.StopHandler)


def test_ctrl_c_in_the_api_is_exit_130_and_one_line(monkeypatch, capsys):
    """cli.main called with arguments installs no handler; a KeyboardInterrupt
    still ends it with the line of SIGINT (and returns instead of exiting)."""
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(score_mod, "cmd_score", interrupted)
    assert cli.main(["score", "--gold", "g.txt", "o.txt"]) == 130
    assert capsys.readouterr().err == STOP_LINES[signal.SIGINT]


# --------------------------------------------------------------------------
# the pool's own shutdown, without the parent-death signal's help


@needs_two_cores
def test_an_interrupted_api_run_leaves_no_worker(toy_corpus, tmp_path, monkeypatch, handlers):
    """Ctrl-C in a notebook running ``committee.run``: SIGINT arrives while a
    member is saved and another one trains; KeyboardInterrupt reaches the
    caller only after the pool's workers were killed, although this process
    lives on (so no parent-death signal stops them)."""
    import threading

    import stophooks

    # Python's own handler, as in a notebook: a test run started in the
    # background of a shell script inherits SIGINT ignored, and would wait
    # on the paused members for ever
    signal.signal(signal.SIGINT, signal.default_int_handler)

    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("COMMITTEE_TEST_MARKS", str(marks))
    monkeypatch.setattr(dataset_mod, "_member_task", stophooks.member_task)
    cfg = load_config(write_config(tmp_path, toy_corpus, "loky"))
    out = tmp_path / "out"

    def interrupt():
        deadline = time.monotonic() + 120
        while not ((out / "members").is_dir() and saved(out) and any(marks.glob("member-*"))):
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    me = psutil.Process()
    watcher = threading.Thread(target=interrupt, daemon=True)
    watcher.start()
    with pytest.raises(KeyboardInterrupt):
        dataset_mod.run(cfg, progress=False)
    watcher.join()
    left = [c for c in me.children(recursive=True) if "popen_loky" in " ".join(c.cmdline())]
    assert left == []
    assert len(saved(out)) == 1 and not (out / "manifest.json").exists()


# --------------------------------------------------------------------------
# every command: the same line and exit code


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs /proc/PID/wchan")
@pytest.mark.parametrize("command, signum", [
    ("score", signal.SIGTERM), ("score", signal.SIGHUP), ("score", signal.SIGINT),
    ("segment", signal.SIGTERM)], ids=["score-TERM", "score-HUP", "score-INT", "segment-TERM"])
def test_commands_reading_standard_input_stop_alike(toy_corpus, tmp_path, command, signum):
    """``committee score ... -`` and ``committee segment -`` waiting on their
    standard input, signalled (the process alone)."""
    gold = str(toy_corpus / "test.txt")
    args = {"score": ["score", "--gold", gold, "-"],
            "segment": ["segment", "--with", "snownlp", "-", "-o", str(tmp_path / "o.txt")]}
    proc = subprocess.Popen([sys.executable, "-m", "committee", *args[command]],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_terminal_signals)
    try:
        deadline = time.monotonic() + 60
        while "pipe" not in Path(f"/proc/{proc.pid}/wchan").read_text():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(proc.pid, signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err, out) == (EXIT_CODES[signum], STOP_LINES[signum], "")
