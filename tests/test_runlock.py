"""One owner per run directory (committee.pipeline.lock): the lock, its refusal, the
takeover of a dead holder's lock, owner tags on temporary files
(committee.system.files), final runs for readers (committee.pipeline.layout), and the CLI: two concurrent ``committee run`` on one output.dir, ``committee report``
and ``committee score --difficulty`` on a run in progress."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from committee.system import files as files_mod
from committee.pipeline import layout
from committee.pipeline import lock as lock_mod
from committee.errors import InputError, RunError

from toyrun import outputs, write_config

IN_USE = re.compile(r"^(?P<dir>\S+) is in use by committee run \(pid (?P<pid>\d+), "
                    r"started \d\d:\d\d:\d\d\); wait for it or choose another output\.dir$")

# A process that takes the lock of argv[1] as argv[2], says so, and sleeps.
HOLDER = textwrap.dedent("""
    import sys, time
    from committee.pipeline import lock as runlock
    with runlock.hold(sys.argv[1], sys.argv[2], create=True):
        print("locked", flush=True)
        time.sleep(600)
""")


def start_holder(run_dir: Path, command: str = "committee run") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(run_dir), command],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()
    proc.stdout.close()


def dead_tag() -> str:
    """The tag of a process that ran and is gone."""
    out = subprocess.run([sys.executable, "-c", "from committee.system import files; "
                          "print(files.owner_tag())"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert files_mod.tag_in(out) == out
    return out


class _CountingTime:
    """The ``time`` module as the lock sees it, its pauses recorded in ``waits``."""

    def __init__(self, waits: list[float]):
        self.waits = waits

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        time.sleep(seconds)

    def __getattr__(self, name):
        return getattr(time, name)


@pytest.fixture()
def sleeper():
    """A live process that is not a committee process."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    proc.kill()
    proc.wait()


# --------------------------------------------------------------------------
# the lock


def test_live_holder_is_refused_at_once_with_one_line(tmp_path):
    run_dir = tmp_path / "x"
    proc = start_holder(run_dir)
    waits = []
    try:
        with pytest.MonkeyPatch.context() as mp:  # the lock's pauses, counted
            mp.setattr(lock_mod, "time", _CountingTime(waits))
            with pytest.raises(RunError) as info:
                with lock_mod.hold(run_dir, "committee run"):
                    pass
    finally:
        stop(proc)
    message = str(info.value)
    m = IN_USE.match(message)
    assert m, message
    assert m["dir"] == str(run_dir) and int(m["pid"]) == proc.pid
    assert info.value.exit_code == 5 and "\n" not in message
    assert waits == []  # at once: no pause for the holder to settle
    # once the holder is gone, the lock is free again
    with lock_mod.hold(run_dir, "committee run") as owner:
        assert owner.holder.pid == os.getpid()


def test_report_is_refused_with_its_own_hint(tmp_path):
    proc = start_holder(tmp_path, "committee report")
    try:
        with pytest.raises(RunError, match=r"is in use by committee report \(pid \d+, started "
                                           r"[\d:]+\); wait for it to finish$"):
            with lock_mod.hold(tmp_path, "committee report"):
                pass
    finally:
        stop(proc)


def test_dead_holders_lock_is_taken_over(tmp_path):
    proc = start_holder(tmp_path)
    proc.kill()  # SIGKILL: the lock file and its record stay behind
    proc.wait()
    proc.stdout.close()
    record = json.loads((tmp_path / lock_mod.LOCK_FILE).read_text())
    assert record["pid"] == proc.pid and record["command"] == "committee run"
    with lock_mod.hold(tmp_path, "committee run") as owner:
        assert owner.previous is not None and owner.previous.pid == proc.pid
        assert json.loads((tmp_path / lock_mod.LOCK_FILE).read_text())["pid"] == os.getpid()
    assert not (tmp_path / lock_mod.LOCK_FILE).exists()


def test_recycled_pid_is_not_the_holder(tmp_path, sleeper):
    """A stale record naming a pid that now belongs to another (live) process:
    the lock is free, readers see no holder, and the record is replaced."""
    host, boot = files_mod.machine()
    stale = {"command": "committee run", "pid": sleeper.pid, "host": os.uname().nodename,
             "tag": f"pid{sleeper.pid}-1-{host}{boot}", "started": time.time() - 3600}
    (tmp_path / lock_mod.LOCK_FILE).write_text(json.dumps(stale))
    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "manifest.json").write_text("{}")
    assert files_mod.is_dead(stale["tag"])
    assert lock_mod.holder(tmp_path) is None
    layout.check_final(tmp_path)
    with lock_mod.hold(tmp_path, "committee run") as owner:
        assert owner.previous.pid == sleeper.pid


def test_holder_without_a_record_is_still_a_holder(tmp_path):
    """The kernel's lock decides, not the record: a lock held by a process
    that wrote no record refuses all the same, after a short wait."""
    code = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / lock_mod.LOCK_FILE)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    waits = []
    try:
        with pytest.MonkeyPatch.context() as mp:  # the lock's pauses, counted
            mp.setattr(lock_mod, "time", _CountingTime(waits))
            with pytest.raises(RunError) as info:
                with lock_mod.hold(tmp_path, "committee run"):
                    pass
        # it waited SETTLE_S for a record, in short pauses, then gave up
        assert waits and set(waits) == {0.01}
        assert len(waits) <= round(lock_mod.SETTLE_S / 0.01) + 1  # each pause takes >= 0.01 s
        assert lock_mod.holder(tmp_path).pid == 0
    finally:
        stop(proc)
    assert str(info.value) == (f"{tmp_path} is in use by another process (no record of it); "
                               "wait for it or choose another output.dir")


def test_hold_is_reentrant_and_leaves_nothing(tmp_path):
    run_dir = tmp_path / "new" / "x"
    with lock_mod.hold(run_dir, "committee run", create=True) as outer:
        with lock_mod.hold(run_dir, "committee report") as inner:
            assert inner is outer
        assert (run_dir / lock_mod.LOCK_FILE).exists()  # the outer hold still has it
        assert lock_mod.holder(run_dir) is None  # this process is not "another" holder
    assert not run_dir.exists()  # created here, and nothing else was written


def test_hold_on_a_missing_directory_without_create(tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        with lock_mod.hold(tmp_path / "nope", "committee report"):
            pass
    assert not (tmp_path / "nope").exists()


def test_holder_takes_no_lock_on_a_read_only_lock_file(tmp_path):
    proc = start_holder(tmp_path)
    try:
        h = lock_mod.holder(tmp_path)
        assert h is not None and h.pid == proc.pid and h.command == "committee run"
    finally:
        stop(proc)
    assert lock_mod.holder(tmp_path) is None


# --------------------------------------------------------------------------
# owner tags and leftovers


def test_tags_name_live_and_dead_owners(sleeper):
    assert not files_mod.is_dead(files_mod.owner_tag())
    assert files_mod.is_dead(dead_tag())
    host, boot = files_mod.machine()
    live = files_mod.process_tag(sleeper.pid)
    assert not files_mod.is_dead(live)
    assert files_mod.is_dead(live.replace(boot, "0" * 6 if boot != "0" * 6 else "1" * 6))
    other_host = live.replace(host, "0" * 6 if host != "0" * 6 else "1" * 6)
    assert not files_mod.is_dead(other_host)  # another machine cannot be checked
    with pytest.raises(ValueError):
        files_mod.is_dead("pid12")


def _leftovers(out: Path, tag: str) -> list[Path]:
    files = [out / f".test.weight.{tag}.ab12cd.tmp",
             out / layout.MEMBER_DIR / f".member-0002.json.{tag}.ef34gh.tmp",
             out / layout.TMP_DIR / f".member-0001-{tag}-ij56kl.crfsuite"]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"partial")
    return files


def test_resume_keeps_a_live_owners_files_and_removes_the_deads(tmp_path, sleeper):
    out = tmp_path / "run"
    out.mkdir()
    (out / layout.STATE_FILE).write_text(json.dumps({"name": "t", "fingerprint": "f"}))
    live = _leftovers(out, files_mod.process_tag(sleeper.pid))
    dead = _leftovers(out, dead_tag())
    with lock_mod.hold(out, "committee run"):
        layout.claim_output_dir(out, "f", "t", restart=False)
    assert all(f.exists() for f in live)
    assert not any(f.exists() for f in dead)
    # the end of a run clears its work directory the same way
    assert not files_mod.clear_dir(out / layout.TMP_DIR)
    sleeper.kill()
    sleeper.wait()
    assert files_mod.clear_dir(out / layout.TMP_DIR)
    assert not (out / layout.TMP_DIR).exists()


def test_temporary_files_carry_their_owner(tmp_path, monkeypatch):
    seen = []
    real = os.replace

    def spy(src, dst, *a, **k):
        seen.append(os.path.basename(src))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", spy)
    files_mod.atomic_write_text(tmp_path / "a.txt", "x")
    assert files_mod.tag_in(seen[0]) == files_mod.owner_tag()


def test_check_final(tmp_path):
    layout.check_final(tmp_path)  # not a run directory: nothing to say
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(RunError, match=r"holds a committee run that is not finished \(no "
                                       r"manifest\.json: it was interrupted\)"):
        layout.check_final(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    layout.check_final(tmp_path)
    proc = start_holder(tmp_path, "committee report")
    try:
        layout.check_final(tmp_path)  # a report does not change the run's files
    finally:
        stop(proc)
    proc = start_holder(tmp_path)
    try:
        with pytest.raises(RunError, match=r"is in use by committee run .*wait for it to finish$"):
            layout.check_final(tmp_path)
    finally:
        stop(proc)


# --------------------------------------------------------------------------
# the command line


def committee(*args, **kw) -> subprocess.Popen:
    """``committee ARGS`` in a new process."""
    return subprocess.Popen([sys.executable, "-m", "committee", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def wait_for(predicate, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def lone_run(toy_corpus, tmp_path_factory):
    """The toy run, uninterrupted and alone."""
    d = tmp_path_factory.mktemp("lone")
    cfg = write_config(d / "c.yaml", toy_corpus, d / "run", size=4, iterations=20)
    proc = committee("run", cfg, "--quiet")
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    return d / "run"


def timed(*args) -> tuple[float, int, str, str]:
    """Run ``committee ARGS``: its wall time, exit code, stdout and stderr."""
    t0 = time.monotonic()
    proc = committee(*args)
    out, err = proc.communicate()
    return time.monotonic() - t0, proc.returncode, out, err


def test_second_concurrent_run_is_refused_and_the_first_completes(toy_corpus, tmp_path,
                                                                  lone_run):
    """The first run is paused (SIGSTOP) once it holds output.dir, so that the
    second run, the report and the scorer all meet a run in progress."""
    import signal

    run_dir = tmp_path / "run"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, run_dir, size=4, iterations=20)
    first = committee("run", cfg, "--quiet")
    try:
        wait_for(lambda: getattr(lock_mod.holder(run_dir), "pid", None) == first.pid, first)
        first.send_signal(signal.SIGSTOP)
        # the refusal comes before the pipeline (and so any corpus) is imported or
        # read: python -X importtime lists every module the second run imported
        second = subprocess.run([sys.executable, "-X", "importtime", "-m", "committee", "run",
                                 str(cfg), "--quiet"], capture_output=True, text=True)
        second_code, out = second.returncode, second.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in second.stderr.splitlines()
                    if line.startswith("import time:")}
        err = "".join(line + "\n" for line in second.stderr.splitlines()
                      if not line.startswith("import time:"))
        _, report_code, r_out, r_err = timed("report", run_dir, "--quiet")
    finally:
        first.send_signal(signal.SIGCONT)
    f_out, f_err = first.communicate()

    assert second_code == 5 and out == "", err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("committee: error: "), err
    m = IN_USE.match(lines[0][len("committee: error: "):])
    assert m and m["dir"] == str(run_dir) and int(m["pid"]) == first.pid, lines
    assert "committee.config" in imported and "committee.pipeline.lock" in imported, imported
    # the report package's __init__ comes with the analyses' registry (the
    # config's experiments section); none of the report's machinery does
    assert not {"committee.pipeline.dataset", "committee.report.build",
                "committee.report.sections", "committee.report.systems"} & imported
    assert report_code == 5 and r_out == "", r_err
    assert re.fullmatch(rf"committee: error: {re.escape(str(run_dir))} is in use by "
                        rf"committee run \(pid {first.pid}, started [\d:]+\); wait for it to "
                        r"finish\n", r_err), r_err
    assert first.returncode == 0, f_err
    assert outputs(run_dir) == outputs(lone_run)
    assert not (run_dir / "report.md").exists()
    assert not (run_dir / lock_mod.LOCK_FILE).exists() and not (run_dir / ".tmp").exists()


def test_report_on_an_interrupted_run_refuses(tmp_path):
    (tmp_path / "run.json").write_text("{}")
    _, code, out, err = timed("report", tmp_path, "--quiet")
    assert code == 5 and out == ""
    assert err == (f"committee: error: {tmp_path} holds a committee run that is not finished "
                   "(no manifest.json: it was interrupted); rerun the same committee run to "
                   "finish it\n")


def test_readers_refuse_a_run_being_rewritten(toy_corpus, tmp_path, lone_run):
    """A finished run that a committee run writes again (a rerun) is not final
    while it runs; while a report writes into it, it is."""
    import shutil

    run_dir = tmp_path / "run"
    shutil.copytree(lone_run, run_dir)
    score = ("score", "--gold", run_dir / "test.txt", "--difficulty", run_dir / "test.weight",
             run_dir / "test.txt")
    proc = start_holder(run_dir, "committee run")
    try:
        _, code, out, err = timed(*score)
        _, r_code, r_out, r_err = timed("report", run_dir, "--quiet", "--skip", "table2")
    finally:
        stop(proc)
    assert code == 5 and out == "", err
    assert re.fullmatch(rf"committee: error: {re.escape(str(run_dir))} is in use by committee "
                        rf"run \(pid {proc.pid}, started [\d:]+\); wait for it to finish\n",
                        err), err
    assert r_code == 5 and r_out == "" and "is in use by committee run" in r_err, r_err
    assert not (run_dir / "report.md").exists()
    proc = start_holder(run_dir, "committee report")
    try:
        _, code, out, err = timed(*score)
    finally:
        stop(proc)
    # scored (the output is test.txt itself, so only the gold-as-output hint is printed)
    assert code == 0 and "fb" in out, err
    assert err.count("\n") == 1 and "was the gold given in place of the output?" in err, err


def test_score_on_a_new_run_in_progress_names_the_holder(tmp_path):
    """Before a run has written its test.weight, ``committee score
    --difficulty`` (a run directory, or the file inside it) names the run
    in progress rather than a missing file."""
    run_dir = tmp_path / "run"
    gold = tmp_path / "gold.txt"
    gold.write_text("我 爱 北京\n", encoding="utf-8")
    proc = start_holder(run_dir, "committee run")
    try:
        (run_dir / "run.json").write_text("{}")
        results = [timed("score", "--gold", gold, "--difficulty", d, gold)
                   for d in (run_dir, run_dir / "test.weight")]
    finally:
        stop(proc)
    for _, code, out, err in results:
        assert code == 5 and out == "", err
        assert re.fullmatch(rf"committee: error: {re.escape(str(run_dir))} is in use by "
                            rf"committee run \(pid {proc.pid}, started [\d:]+\); wait for it "
                            r"to finish\n", err), err


def test_table2_temporary_models_carry_their_owner(tmp_path, monkeypatch):
    from committee.learners import trainers
    from committee.report import systems

    seen = {}

    def fake(recipe, task, sentences, template, test_chars, workdir, *, prefix, keep_as=None):
        seen["prefix"] = prefix
        return [[]], {"attributes_s": 0.0, "append_s": 0.0, "train_s": 0.0, "tag_s": 0.0}

    monkeypatch.setattr(trainers, "train_and_tag", fake)
    systems._train_one(systems.Table2Job(0, "F2 100%", "F2", [["我"]], ["我"], "crfsuite",
                                         "lbfgs", {}, str(tmp_path), 1))
    assert files_mod.tag_in(seen["prefix"]) == files_mod.owner_tag()
    assert seen["prefix"].startswith(".table2-")


def test_run_killed_before_its_first_run_json_is_new(tmp_path):
    """A directory holding only the temporary run.json of a killed run is a
    new run, not foreign files."""
    out = tmp_path / "run"
    out.mkdir()
    leftover = out / f".run.json.{dead_tag()}.ab12cd.tmp"
    leftover.write_text("{")
    assert layout.check_output_dir(out, "f", restart=False) is False
    with lock_mod.hold(out, "committee run"):
        layout.claim_output_dir(out, "f", "t", restart=False)
    assert not leftover.exists() and json.loads((out / "run.json").read_text())["fingerprint"] == "f"
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not part of a committee run"):
        layout.check_output_dir(out, "f", restart=False)
