"""One owner per run directory: an exclusive lock, and owner tags on temporary files.

A run directory (``output.dir``) has one writer at a time.  ``committee run``
and ``committee report`` write only while they :func:`hold` its lock; a
second process is refused at once with one line and exit 5
(:class:`~committee.errors.RunError`)::

    runs/x is in use by committee run (pid 1234, started 12:03:11); wait for it or choose another output.dir

The lock is ``fcntl.flock`` on the file ``.committee.lock`` inside the run
directory.  The kernel releases a flock when its holder's last descriptor
closes, so also when the holder is killed: a lock left by a killed process
is free again, and the next process takes it over without deleting anything
(a live holder's lock can never be taken).  The lock file also holds a JSON
record of its holder (command, pid, host, start time, and a token of the
process's start so that a recycled pid is not taken for the holder).  The
record only tells a refused user who holds the directory; whether the lock is
held is always the kernel's answer.  The holder removes the file while it
still holds the lock, just before it lets go, so a finished run directory
holds no lock file; a process that locked a file removed meanwhile notices
(the path no longer names the file it locked) and tries again.

``fcntl`` is used directly rather than the ``filelock`` package: filelock
would provide the flock call, but neither the holder's record, nor a probe
for readers that neither creates nor keeps the lock file (readers must work
on a directory they cannot write), nor the removal of the file on release
without the race that removal brings.

The holder's identity is the owner tag that also names its temporary files
(:func:`committee.system.files.owner_tag`).  Whether a run directory's files are
*final*, for readers, is :func:`committee.pipeline.layout.check_final`.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from committee.errors import InputError, OutputError, RunError
from committee.pipeline import runfiles
from committee.system.files import is_dead, owner_tag, tag_in

#: The lock file inside a run directory (removed when its holder lets go).
LOCK_FILE = ".committee.lock"
#: How long a process waits for a lock that is held but names no live holder
#: (a holder that has just locked and not yet written its record, or a reader's
#: probe), before it gives up.
SETTLE_S = 0.5

#: The command that holds a run directory while it writes the run's files.
RUN = "committee run"
#: The command that holds a run directory while it writes only the report.
REPORT = "committee report"

_HINTS = {RUN: "wait for it or choose another output.dir"}


# --------------------------------------------------------------------------
# the lock


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a run directory's lock: its record."""

    command: str
    pid: int
    host: str
    tag: str
    started: float

    def describe(self) -> str:
        """``committee run (pid 1234, started 12:03:11)``: the start as the
        time of day when it is today, else with its date."""
        if not self.pid:
            return "another process (no record of it)"
        t = time.localtime(self.started)
        fmt = "%H:%M:%S" if t[:3] == time.localtime()[:3] else "%Y-%m-%d %H:%M:%S"
        where = "" if self.host == socket.gethostname() else f" on host {self.host}"
        return f"{self.command} (pid {self.pid}{where}, started {time.strftime(fmt, t)})"

    def alive(self) -> bool:
        return tag_in(self.tag) == self.tag and not is_dead(self.tag)


@dataclass(frozen=True)
class Owner:
    """What :func:`hold` gives its caller."""

    run_dir: Path
    #: This process's record, as written into the lock file.
    holder: Holder
    #: The record of a holder that was gone when the lock was taken over, if any.
    previous: Holder | None


def _parse(data: bytes) -> Holder | None:
    try:
        rec = runfiles.parse_json(data, LOCK_FILE)
        return Holder(str(rec["command"]), int(rec["pid"]), str(rec["host"]), str(rec["tag"]),
                      float(rec["started"]))
    except (InputError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _read_record(fd: int) -> Holder | None:
    try:
        return _parse(os.pread(fd, 1 << 16, 0))
    except OSError:
        return None


def _is_me(h: Holder | None) -> bool:
    return h is not None and h.tag == owner_tag()


def in_use_error(run_dir, holder: Holder | None, command: str) -> RunError:
    """The one-line refusal for ``command`` on ``run_dir`` held by ``holder``."""
    hint = _HINTS.get(command, "wait for it to finish")
    who = (holder or Holder("another process", 0, "", "", 0.0)).describe()
    return RunError(f"{os.fspath(run_dir)} is in use by {who}; {hint}")


def holder(run_dir: str | os.PathLike) -> Holder | None:
    """The live process, other than this one, that holds ``run_dir``'s lock;
    None when nobody does.  Takes no lock and writes nothing (a shared lock
    is tried and dropped at once), so it works on read-only directories."""
    path = os.path.join(os.fspath(run_dir), LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # no lock file (or not readable: the directory is not ours to judge)
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            deadline = time.monotonic() + SETTLE_S
            rec = _read_record(fd)
            while (rec is None or not rec.alive()) and time.monotonic() < deadline:
                time.sleep(0.01)  # a holder that has just locked writes its record
                rec = _read_record(fd)
            if rec is None or not rec.alive():  # held, by whom cannot be told
                return Holder("another process", 0, "", "", 0.0)
            return None if _is_me(rec) else rec
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def check_free(run_dir: str | os.PathLike, command: str) -> None:
    """Raise the :func:`in_use_error` when another live process holds
    ``run_dir``: a writer's early check, before it spends time on its inputs."""
    h = holder(run_dir)
    if h is not None:
        raise in_use_error(run_dir, h, command)


_local = threading.local()  # the locks this thread holds: {real path: [pid, depth, Owner]}


def _acquire(run_dir: Path, command: str, create: bool) -> tuple[int, Holder | None]:
    """Lock ``run_dir`` (see :func:`hold`); return the descriptor and the
    record of a previous holder that is gone."""
    path = run_dir / LOCK_FILE
    deadline = time.monotonic() + SETTLE_S
    while True:
        try:
            if create:  # again: a holder that created the directory removes it when done
                run_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputError.from_os_error(exc, run_dir) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            rec = _read_record(fd)
            os.close(fd)
            # a live holder: refuse at once; else a holder that has not yet
            # written its record, or a reader's probe: try again shortly
            live = rec is not None and rec.alive()
            if (live and not _is_me(rec)) or time.monotonic() > deadline:
                raise in_use_error(run_dir, rec if live else None, command) from None
            time.sleep(0.01)
            continue
        except OSError as exc:
            os.close(fd)
            raise OutputError.from_os_error(exc, path) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # its holder removed the file as it let go: lock the new one
            os.close(fd)
            continue
        return fd, _read_record(fd)


def _write_record(fd: int, path: Path, command: str) -> Holder:
    me = Holder(command, os.getpid(), socket.gethostname(), owner_tag(), time.time())
    data = json.dumps({"command": me.command, "pid": me.pid, "host": me.host, "tag": me.tag,
                       "started": me.started}).encode("utf-8") + b"\n"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError as exc:
        raise OutputError.from_os_error(exc, path) from None
    return me


def _release(path: Path, fd: int) -> None:
    try:
        if os.stat(path).st_ino == os.fstat(fd).st_ino:
            os.unlink(path)  # while still locked: see _acquire
    except OSError:
        pass
    os.close(fd)


@contextmanager
def hold(run_dir: str | os.PathLike, command: str, *, create: bool = False) -> Iterator[Owner]:
    """Hold ``run_dir``'s lock for the duration of the ``with`` block.

    Parameters
    ----------
    run_dir : path
        The run directory.
    command : str
        What holds it, e.g. ``"committee run"``: shown to a refused process.
    create : bool
        Create ``run_dir`` (and its parents) if missing; a directory created
        here is removed again on exit if it then holds nothing.

    Yields
    ------
    Owner

    Raises
    ------
    RunError
        Another live process holds the lock (exit 5): ``run_dir is in use by
        COMMAND (pid N, started HH:MM:SS); HINT``.
    InputError
        ``run_dir`` does not exist and ``create`` is false.
    OutputError
        The lock file cannot be created or written.

    The lock is re-entrant within one thread: an inner ``hold`` of a
    directory this thread already holds (``committee run`` calling the
    report) yields the outer :class:`Owner`.  Child processes started with
    ``exec`` do not inherit it.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with hold(d, "committee run") as owner:
    ...     with hold(d, "committee report") as inner:
    ...         print(inner is owner, (Path(d) / LOCK_FILE).exists())
    True True
    >>> (Path(d) / LOCK_FILE).exists()
    False
    """
    run_dir = Path(run_dir)
    held = _local.__dict__.setdefault("held", {})
    key = os.path.realpath(run_dir)
    entry = held.get(key)
    if entry is not None and entry[0] == os.getpid():
        entry[1] += 1
        try:
            yield entry[2]
        finally:
            entry[1] -= 1
        return
    created = False
    if create and not run_dir.exists():
        try:
            run_dir.mkdir(parents=True)
            created = True
        except FileExistsError:  # another process was first
            pass
        except OSError as exc:
            raise OutputError.from_os_error(exc, run_dir) from None
    elif not run_dir.is_dir():
        raise InputError(str(run_dir), None, "exists and is not a directory" if run_dir.exists()
                         else "no such directory")
    try:
        fd, previous = _acquire(run_dir, command, create)
    except BaseException:
        if created:
            _remove_if_empty(run_dir)
        raise
    try:
        me = _write_record(fd, run_dir / LOCK_FILE, command)
        owner = Owner(run_dir, me, previous if previous is not None and not previous.alive()
                      else None)
        held[key] = [os.getpid(), 1, owner]
        try:
            yield owner
        finally:
            held.pop(key, None)
    finally:
        _release(run_dir / LOCK_FILE, fd)
        if created:
            _remove_if_empty(run_dir)


def _remove_if_empty(d: Path) -> None:
    try:
        d.rmdir()
    except OSError:
        pass
