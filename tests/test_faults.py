"""Fault injection for ``committee run`` (issue 5): SIGKILL at random moments,
members that raise, worker processes killed from outside, full disks and
read-only directories.  Whatever happens, finished members are kept, the
failure is named, and a rerun ends with the very bytes of an uninterrupted
run.

The toy run is the one of ``tests/test_pipeline.py``: 300 training and 40
test sentences of People's Daily, six members.
"""

from __future__ import annotations

import errno
import os
import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from committee import cli
from committee import corpus as corpus_mod
from committee.learners import crf
from committee.learners import members as members_mod
from committee.pipeline import dataset
from committee.config import load_config
from committee.errors import PlausibilityWarning
import toyrun
from toyrun import outputs

REPO = Path(__file__).resolve().parents[1]
SIZE = 6


def write_config(path: Path, corpus_dir: Path, out: Path, **kw) -> Path:
    return toyrun.write_config(path, corpus_dir, out, size=SIZE, **kw)


def saved(out: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in (out / "members").glob("member-*.json"))


def leftovers(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob(".*.tmp"))


def cli_run(cfg: Path, *extra) -> int:
    return cli.main(["run", str(cfg), "--quiet", *extra])


@pytest.fixture(scope="module")
def reference(toy_corpus, tmp_path_factory):
    """Uninterrupted runs: {max_iterations: output directory}."""
    tmp = tmp_path_factory.mktemp("ref")
    refs = {}
    for iterations in (5, 30):
        out = tmp / f"it{iterations}"
        cfg = load_config(write_config(tmp / f"it{iterations}.yaml", toy_corpus, out,
                                       iterations=iterations, backend="sequential"))
        dataset.run(cfg, progress=False)
        refs[iterations] = out
    return refs


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("committee: error: ") and "Traceback" not in err
    return lines[0]


# --------------------------------------------------------------------------
# a member that raises


def _crash(indices, exc):
    real = members_mod.run_member

    def run_member(member, *args, **kwargs):
        if member.index in indices:
            raise exc
        return real(member, *args, **kwargs)

    return run_member


def test_member_exception_is_reported_and_rerun_trains_only_it(reference, toy_corpus, tmp_path,
                                                               monkeypatch, capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    monkeypatch.setattr(members_mod, "run_member", _crash({1, 4}, ZeroDivisionError("injected")))
    assert cli_run(cfg) == 5
    line = one_error_line(capsys.readouterr().err)
    assert ("2 of 6 members failed (member 1: ZeroDivisionError: injected; "
            "member 4: ZeroDivisionError: injected); 4 are saved") in line
    assert "rerun the same command to train only the missing members" in line
    assert saved(out) == [0, 2, 3, 5]
    assert not (out / "manifest.json").exists()
    log = (out / "run.log").read_text(encoding="utf-8")
    assert "member 1 failed: ZeroDivisionError: injected" in log and "Traceback" in log
    monkeypatch.undo()
    assert cli_run(cfg) == 0
    assert "4 members saved, 2 to train" in (out / "run.log").read_text(encoding="utf-8")
    assert outputs(out) == outputs(reference[5])


# A task function for loky workers: importable by name (pytest puts tests/ on
# sys.path, and loky workers inherit it), so it runs inside the worker.
_REAL_TASK = dataset._member_task


def crashing_task(task):
    if task.index == 2:
        real = members_mod.run_member
        members_mod.run_member = _crash({2}, RuntimeError("boom in a worker"))
        try:
            return _REAL_TASK(task)
        finally:
            members_mod.run_member = real
    return _REAL_TASK(task)


def test_member_exception_in_a_loky_worker(reference, toy_corpus, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out, n_jobs=2)
    monkeypatch.setattr(dataset, "_member_task", crashing_task)
    assert cli_run(cfg) == 5
    line = one_error_line(capsys.readouterr().err)
    assert "1 of 6 members failed (member 2: RuntimeError: boom in a worker); 5 are saved" in line
    assert saved(out) == [0, 1, 3, 4, 5]
    monkeypatch.undo()
    assert cli_run(cfg) == 0
    assert "5 members saved, 1 to train" in (out / "run.log").read_text(encoding="utf-8")
    assert outputs(out) == outputs(reference[5])


def test_member_failing_on_a_full_disk_is_an_output_error(toy_corpus, tmp_path, monkeypatch,
                                                          capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    full = OSError(errno.ENOSPC, "No space left on device", str(out / ".tmp" / "m.crfsuite"))
    monkeypatch.setattr(members_mod, "run_member", _crash(set(range(SIZE)), full))
    assert cli_run(cfg) == 6
    line = one_error_line(capsys.readouterr().err)
    assert "6 of 6 members failed (member 0: OSError: [Errno 28] No space left on device" in line
    assert "free some space or fix the permissions, then rerun the same command" in line


# --------------------------------------------------------------------------
# a worker process killed from outside


def _loky_workers(proc):
    import psutil

    workers = []
    for c in proc.children(recursive=True):
        try:
            if "popen_loky" in " ".join(c.cmdline()):
                workers.append(c)
        except psutil.Error:  # a child that exited meanwhile (a zombie, or gone)
            pass
    return workers


def test_worker_killed_from_outside(reference, toy_corpus, tmp_path):
    """SIGKILL one loky worker while two members run: exactly the members in
    flight fail, by index; the members not yet started finish in a fresh pool."""
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out, n_jobs=2, iterations=30)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "committee", "run", str(cfg), "--quiet"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        victim = None
        while time.monotonic() < deadline and proc.poll() is None:
            workers = _loky_workers(parent)
            if len(workers) == 2 and (out / "members").is_dir() and saved(out):
                victim = workers[0]
                break
            time.sleep(0.01)
        assert victim is not None, "the run ended before a worker could be killed"
        victim.kill()
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 5, stderr
    line = one_error_line(stderr)
    failed = sorted(int(k) for k in re.findall(r"member (\d+): its worker process died", line))
    assert 1 <= len(failed) <= 2, line
    assert f"{len(failed)} of 6 members failed" in line
    assert "a worker dies when killed from outside, out of memory or by a crash in C code" in line
    # every member either finished and was saved, or was named
    assert sorted(saved(out) + failed) == list(range(SIZE))
    assert leftovers(out) == [] or all(p.startswith(".tmp") for p in leftovers(out))
    # the rerun trains exactly the failed members
    assert cli_run(cfg) == 0
    log = (out / "run.log").read_text(encoding="utf-8")
    assert f"{SIZE - len(failed)} members saved, {len(failed)} to train" in log
    assert outputs(out) == outputs(reference[30])


# --------------------------------------------------------------------------
# full disks and read-only directories while the run writes


def _failing_replace(monkeypatch, match: str, err: int, text: str):
    real = os.replace

    def replace_(src, dst, *args, **kwargs):
        if re.search(match, str(dst)):
            raise OSError(err, text, str(src))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace_)


def test_disk_full_while_writing_outputs(reference, toy_corpus, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    _failing_replace(monkeypatch, r"test\.weight$", errno.ENOSPC, "No space left on device")
    assert cli_run(cfg) == 6
    line = one_error_line(capsys.readouterr().err)
    assert line == (f"committee: error: {out / 'test.weight'}: cannot write: No space left on "
                    "device; free some space or choose another output directory")
    assert saved(out) == list(range(SIZE)) and not (out / "manifest.json").exists()
    assert leftovers(out) == []
    monkeypatch.undo()
    assert cli_run(cfg) == 0
    assert "6 members saved, 0 to train" in (out / "run.log").read_text(encoding="utf-8")
    assert outputs(out) == outputs(reference[5])


def test_read_only_while_saving_a_member(reference, toy_corpus, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    _failing_replace(monkeypatch, r"member-0003\.json$", errno.EROFS, "Read-only file system")
    assert cli_run(cfg) == 6
    line = one_error_line(capsys.readouterr().err)
    assert line == (f"committee: error: {out / 'members' / 'member-0003.json'}: cannot write: "
                    "Read-only file system; make the directory writable or choose another "
                    "output directory")
    assert 3 not in saved(out) and leftovers(out) == []
    monkeypatch.undo()
    assert cli_run(cfg) == 0
    assert outputs(out) == outputs(reference[5])


# --------------------------------------------------------------------------
# a member far below the others


def test_weak_member_warns(toy_corpus, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out)
    real = members_mod.run_member

    def weak(member, *args, **kwargs):
        result = real(member, *args, **kwargs)
        return replace(result, f1=0.25) if member.index == 4 else result

    monkeypatch.setattr(members_mod, "run_member", weak)
    assert cli_run(cfg) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("committee: warning: member 4 (f1 0.250) of 6 "
                                                   "scores more than 0.1 f1 below the committee "
                                                   "median")
    assert "check committee.ratios and crf.params" in err


def test_weak_member_rule():
    committee = [members_mod.draw_member(k, 100, ("F1",), (0.1,), seed=0) for k in range(5)]
    records = {k: {"f1": f} for k, f in enumerate([0.90, 0.91, 0.85, 0.79, float("nan")])}
    with pytest.warns(PlausibilityWarning) as record:
        dataset._warn_weak_members(committee, records)
    (w,) = record
    # median of the defined values 0.88; 0.79 is 0.09 below (kept), nan is undefined
    assert str(w.message).startswith("member 4 (f1 undefined) of 5 scores more than 0.1 f1 "
                                     "below the committee median 0.875")
    # two members: nothing to compare with
    dataset._warn_weak_members(committee[:2], {0: {"f1": 0.9}, 1: {"f1": 0.1}})


# --------------------------------------------------------------------------
# SIGKILL at random moments, then resume: byte-identical outputs


def _start(cfg: Path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-m", "committee", "run", str(cfg), "--quiet"],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _kill(cfg: Path, out: Path, delay: float, after_members: int = 0) -> bool:
    """Start ``committee run``; once ``after_members`` members are saved, wait
    ``delay`` s more and SIGKILL its process group (workers included).
    Returns whether it was still running (False: it had already finished)."""
    proc = _start(cfg)
    try:
        while after_members and proc.poll() is None:
            if (out / "members").is_dir() and len(saved(out)) >= after_members:
                break
            time.sleep(0.005)
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume(reference, toy_corpus, tmp_path):
    """12 trials, seeded, half of them killed twice.  A kill comes either at a
    random time within an uninterrupted run's duration, or a random time
    after a random number of members were saved (so that the members'
    phase, a third of a toy run, is hit however fast the machine is).  The
    resumed run's files equal the uninterrupted run's byte for byte, and
    nothing temporary is left."""
    rng = random.Random(20160807)
    durations = []
    for i in range(2):  # how long an uninterrupted run takes here, now
        t0 = time.monotonic()
        proc = _start(write_config(tmp_path / f"timing{i}.yaml", toy_corpus,
                                   tmp_path / f"timing{i}", n_jobs=2, iterations=30))
        assert proc.wait(timeout=300) == 0
        durations.append(time.monotonic() - t0)
    full = min(durations)
    report = []
    for trial in range(12):
        out = tmp_path / f"trial{trial}"
        cfg = write_config(tmp_path / f"trial{trial}.yaml", toy_corpus, out, n_jobs=2,
                           iterations=30)
        kills = []
        for j in range(1 + trial % 2):
            if (trial + j) % 2 == 0:
                after, delay = 0, rng.uniform(0.0, full)
            else:
                after, delay = rng.randint(1, SIZE - 1), rng.uniform(0.0, 0.4)
            killed = _kill(cfg, out, delay, after)
            kills.append((after, round(delay, 2), killed,
                          len(saved(out)) if (out / "members").is_dir() else None,
                          (out / "manifest.json").exists()))
        proc = _start(cfg)
        assert proc.wait(timeout=300) == 0, f"trial {trial}: resume failed after {kills}"
        assert outputs(out) == outputs(reference[30]), f"trial {trial}: {kills}"
        assert leftovers(out) == [] and not (out / ".tmp").exists(), f"trial {trial}"
        report.append(kills)
    print(f"full run {full:.2f} s; per trial (after members, delay s, killed, members saved, "
          f"manifest written): {report}")
    kills = [k for trial in report for k in trial if k[2]]
    assert len(kills) >= 10, report
    # the kills hit the interesting moments: before any member was saved,
    # and with some but not all members saved
    assert any(k[3] in (None, 0) for k in kills), report
    assert any(k[3] is not None and 0 < k[3] < SIZE for k in kills), report


# --------------------------------------------------------------------------
# crfsuite does not check its writes: an incomplete model must not be used


def test_incomplete_crfsuite_models_are_refused(tmp_path):
    """On a full disk crfsuite leaves a truncated model, or one whose later
    part moved up over a lost buffer (seen on a full tmpfs: the tagger then
    segfaults).  ``check_model_file`` refuses both before the tagger runs."""
    from committee.learners import features

    sentences = [["约翰", "喜欢", "玛丽"], ["我", "爱", "北京", "天安门"]] * 5
    model = tmp_path / "m.crfsuite"
    crf.train_model([features.attributes("".join(s), "F2") for s in sentences],
                            [corpus_mod.to_bmes(s) for s in sentences], "lbfgs",
                            {"max_iterations": 3}, model)
    data = model.read_bytes()
    crf.check_model_file(model)  # a whole model passes
    truncated = tmp_path / "truncated.crfsuite"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError, match=r"incomplete model \(\d+ of \d+ bytes\)"):
        crf.check_model_file(truncated)
    shifted = tmp_path / "shifted.crfsuite"  # same size as declared, a buffer lost inside
    cut = len(data) // 3
    shifted.write_bytes(data[:cut] + data[cut + 64:] + bytes(64))
    with pytest.raises(OSError, match="its chunks do not match their offsets"):
        crf.check_model_file(shifted)
    empty = tmp_path / "empty.crfsuite"
    empty.write_bytes(b"")
    with pytest.raises(OSError, match="no model header"):
        crf.check_model_file(empty)
