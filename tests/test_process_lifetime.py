"""No process of a ``cmd:`` command outlives committee: not one in the
command's process group, nor one that left it with ``setsid``, whether
committee ends normally, fails, is stopped by a signal or killed by SIGKILL
(Linux: the supervisor, :mod:`committee.system.reaper`).  And a command
that closes its output but keeps running is not waited for.

Each test's processes are ``sleep`` with a duration of its own (``sleep
3104.1``), found by their command line in ``/proc``; whatever a failing test
leaves is killed by its pid."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from committee import cli, segmenters
from committee.errors import Note
from committee.system import commands, reaper

pytestmark = pytest.mark.skipif(
    not commands.SUPERVISE, reason="the supervisor needs Linux (prctl, /proc)")

# Starts a daemon in a session of its own (setsid: it leaves the command's
# process group), its pid written to $1 once it runs, sleeping $2 seconds;
# then, by $3: "cat" segments as cat does; "fail" reads its input and exits
# 1; "hang" segments, then sleeps $2.9 seconds in the command's own group.
COMMAND = """\
setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep "$2"' sh "$1" "$2" \
    </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.01; done
case "$3" in
    cat) exec cat ;;
    fail) cat >/dev/null; echo 'model missing' >&2; exit 1 ;;
    hang) cat; exec sleep "${2}9" ;;
esac
"""

SENTENCES = "约翰  喜欢  玛丽\n\n计算机  总是  有  问题\n"


def sleeping(seconds: str) -> list[int]:
    """The pids of the live ``sleep SECONDS`` processes."""
    wanted = b"sleep\0" + seconds.encode("ascii") + b"\0"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        if cmdline.endswith(wanted) and state[state.rfind(b")") + 2:][:1] not in b"ZX":
            found.append(int(name))
    return found


#: How long a stopped command's processes may take to be gone: their
#: ``sleep`` would last an hour, so any bound of seconds tells a stopped one
#: from a forgotten one; 10 s leaves room for a loaded machine.
GONE_S = 10


def gone_within(seconds: str, limit: float = GONE_S) -> float:
    """Wait until no ``sleep SECONDS`` is left; how long it took (fails
    after ``limit`` seconds)."""
    started = time.monotonic()
    while sleeping(seconds):
        assert time.monotonic() - started < limit, f"sleep {seconds} still running"
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def leftovers():
    """The sleep durations a test uses; any such process left is killed."""
    used: list[str] = []
    yield used
    for seconds in used:
        for pid in sleeping(seconds):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def files(tmp_path):
    script = tmp_path / "daemon.sh"
    script.write_text(COMMAND)
    test = tmp_path / "test.txt"
    test.write_text(SENTENCES, encoding="utf-8")
    return tmp_path


def segment_args(d: Path, seconds: str, mode: str) -> list[str]:
    command = f"cmd:sh {shlex.quote(str(d / 'daemon.sh'))} {shlex.quote(str(d / 'pid'))} " \
              f"{seconds} {mode}"
    return ["segment", "--with", command, str(d / "test.txt"), "-o", str(d / "out.txt"),
            "--quiet"]


def start_committee(args: list[str]) -> subprocess.Popen:
    """``committee ARGS`` in a process group of its own, the stop signals
    as a terminal leaves them."""
    def terminal_signals():
        for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)

    return subprocess.Popen([sys.executable, "-m", "committee", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=terminal_signals)


def daemon_started(d: Path, timeout: float = 30) -> int:
    """The daemon's pid once it runs."""
    deadline = time.monotonic() + timeout
    while not (d / "pid").exists():
        assert time.monotonic() < deadline, "the command's daemon never started"
        time.sleep(0.02)
    return int((d / "pid").read_text())


def test_a_setsid_child_holding_the_output_ends_with_the_run(tmp_path, capsys, leftovers):
    """The issue's case: a daemon holding the command's standard output."""
    leftovers.append("3104.2")
    test = tmp_path / "test.txt"
    test.write_text(SENTENCES, encoding="utf-8")
    code = cli.main(["segment", "--with", 'cmd:sh -c "setsid sleep 3104.2 & cat"', str(test),
                     "-o", str(tmp_path / "out.txt"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == (
        "约翰喜欢玛丽\n\n计算机总是有问题\n")
    assert sleeping("3104.2") == []


@pytest.mark.parametrize("mode, code, line", [
    ("cat", 0, None),
    ("fail", 3, "committee: error: cmd:sh {script} {pid} 3104.3 fail: exited with status 1; "
                "its stderr ends: model missing")], ids=["success", "error"])
def test_a_setsid_daemon_ends_when_committee_ends(files, leftovers, mode, code, line):
    leftovers.append("3104.3")
    proc = start_committee(segment_args(files, "3104.3", mode))
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    daemon_started(files)  # it ran, and has not outlived committee
    assert proc.returncode == code, err
    if line is not None:
        assert err == line.format(script=files / "daemon.sh", pid=files / "pid") + "\n"
    assert sleeping("3104.3") == []


@pytest.mark.parametrize("signum, group, code, word", [
    (signal.SIGTERM, False, 143, "terminated (SIGTERM)"),
    (signal.SIGINT, True, 130, "interrupted (SIGINT)")], ids=["TERM", "INT-to-the-group"])
def test_a_stopped_committee_leaves_no_daemon(files, leftovers, signum, group, code, word):
    """SIGTERM to committee alone, or SIGINT to its process group (Ctrl-C at
    a terminal), while the command runs: the command's group (its ``sleep
    3104.49``) and its daemon (``sleep 3104.4``) end with committee."""
    leftovers.extend(["3104.4", "3104.49"])
    proc = start_committee(segment_args(files, "3104.4", "hang"))
    try:
        daemon_started(files)
        while not sleeping("3104.49"):
            assert proc.poll() is None
            time.sleep(0.02)
        (os.killpg if group else os.kill)(proc.pid, signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err) == (code, f"committee: {word}; finished work is kept\n")
    assert sleeping("3104.4") == [] and sleeping("3104.49") == []


def test_a_committee_killed_by_sigkill_leaves_nothing(files, leftovers):
    """SIGKILL to committee: the kernel tells the supervisor, which stops
    the command's group and its daemon within a grace."""
    leftovers.extend(["3104.5", "3104.59"])
    proc = start_committee(segment_args(files, "3104.5", "hang"))
    try:
        daemon_started(files)
        while not sleeping("3104.59"):
            assert proc.poll() is None
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        gone_within("3104.5", commands.GRACE + GONE_S)
        gone_within("3104.59", commands.GRACE + GONE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_a_command_that_closes_its_output_and_stays_is_not_waited_for(leftovers):
    """It closes its standard output after its last line and keeps running:
    a grace, then it is stopped, its output used, and a note says so."""
    leftovers.append("3104.6")
    command = "sh -c 'cat; exec >&-; sleep 3104.6'"
    started = time.monotonic()
    with pytest.warns(Note) as notes:
        words = segmenters.segment(segmenters.command(command), ["约翰", "", "玛丽"])
    took = time.monotonic() - started
    assert words == [["约翰"], [], ["玛丽"]]
    assert [str(n.message) for n in notes] == [
        f"cmd:{command}: closed its standard output but was still running 2 s later; "
        f"stopped it and used its output"]
    # the grace, then stopped: not the hour of its sleep (GONE_S: room for a loaded machine)
    assert commands.GRACE <= took < commands.GRACE + GONE_S
    assert sleeping("3104.6") == []


def test_a_killed_supervisor_still_leaves_no_command(leftovers):
    """Should the supervisor itself be killed, committee kills the command's
    process group when it stops the command."""
    leftovers.append("3104.7")
    job = commands.Job(["sh", "-c", "sleep 3104.7 & wait"])
    try:
        job.started()
        while not sleeping("3104.7"):
            time.sleep(0.02)
        os.kill(job.proc.pid, signal.SIGKILL)
    finally:
        job.stop()
    assert job.proc.returncode == -signal.SIGKILL
    gone_within("3104.7")


def test_a_supervisor_whose_parent_is_gone_starts_nothing(leftovers):
    """The supervisor learns of its parent's death from the kernel only once
    it has asked; a parent gone before then is seen by its pid: the command
    is not started."""
    leftovers.append("3104.8")
    read, write = os.pipe()
    try:
        done = subprocess.run([sys.executable, "-I", "-S", reaper.__file__, "1", str(write),
                               "0.5", "sleep", "3104.8"], pass_fds=(write,), timeout=30,
                              capture_output=True)
        os.close(write)
        write = None
        with os.fdopen(read, "rb") as f:
            said = f.read()
    finally:
        if write is not None:
            os.close(write)
    assert (done.returncode, said, done.stderr) == (128 + signal.SIGTERM, b"", b"")
    assert sleeping("3104.8") == []


def test_the_supervisor_reports_status_and_signal(leftovers):
    """The command's exit status and the signal that killed it reach
    committee unchanged; a command that cannot start raises its errno."""
    assert commands.run(["sh", "-c", "exit 7"], b"", limit=10).returncode == 7
    assert commands.run(["sh", "-c", "kill -9 $$"], b"", limit=10).returncode == -9
    with pytest.raises(FileNotFoundError):
        commands.run(["no-such-command-3104"], b"", limit=10)


def test_without_the_supervisor_the_group_is_stopped(monkeypatch, leftovers):
    """Elsewhere than on Linux the command leads a process group of its own
    and that group is what is stopped."""
    leftovers.append("3104.9")
    monkeypatch.setattr(commands, "SUPERVISE", False)
    assert commands.run(["tr", "a-z", "A-Z"], b"abc\n", limit=100) == commands.Outcome(
        "done", 0, b"ABC\n", b"")
    outcome = commands.run(["sh", "-c", "sleep 3104.9 & wait"], b"", limit=100, timeout=0.3)
    assert (outcome.why, outcome.returncode) == ("timeout", -signal.SIGTERM)
    assert sleeping("3104.9") == []
