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

Temporary files carry the identity of the process that writes them,
:func:`owner_tag`.  A process cleaning up leftovers removes only files whose
owner is itself or no longer runs (:func:`is_removable`), never a live
process's files, such as those of a worker still running after its run was
killed.

A run is *final* (:func:`check_final`) when ``manifest.json`` is present and
no ``committee run`` holds the directory: a run writes ``manifest.json`` last
and a discarded run loses it first.  Nothing is added to the published files
to mark them final, so they stay byte-identical to those of earlier versions.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from committee.errors import InputError, OutputError, RunError

#: The lock file inside a run directory (removed when its holder lets go).
LOCK_FILE = ".committee.lock"
#: How long a process waits for a lock that is held but names no live holder
#: (a holder that has just locked and not yet written its record, or a reader's
#: probe), before it gives up.
SETTLE_S = 0.5

_HINTS = {"committee run": "wait for it or choose another output.dir"}
_TAG_RE = re.compile(r"pid(\d+)-(\d+)-([0-9a-f]{6})([0-9a-f]{6})")


# --------------------------------------------------------------------------
# process identity


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _proc_state(pid: int) -> tuple[str, int] | None:
    """``(state, start time in clock ticks since boot)`` of ``pid`` from
    ``/proc``, or None when no such process exists (or there is no ``/proc``)."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    fields = text[text.rfind(")") + 2:].split()  # the name may hold spaces and ')'
    return fields[0], int(fields[19])


def _start_token(pid: int) -> int:
    """A number that differs between two processes that had the same pid:
    their start time (clock ticks since boot on Linux, ms since the epoch
    elsewhere), 0 when it cannot be known."""
    state = _proc_state(pid)
    if state is not None:
        return state[1]
    try:
        import psutil

        return int(psutil.Process(pid).create_time() * 1000)
    except Exception:  # no psutil, no such process, access denied
        return 0


def _hash6(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:6]


@functools.lru_cache(maxsize=1)
def _machine() -> tuple[str, str]:
    """Short hashes of this host's name and of its current boot."""
    boot = (_read("/proc/sys/kernel/random/boot_id") or "").strip()
    if not boot:
        try:
            import psutil

            boot = str(int(psutil.boot_time()))
        except Exception:
            boot = "unknown"
    return _hash6(socket.gethostname()), _hash6(boot)


@functools.lru_cache(maxsize=8)
def _tag(pid: int) -> str:
    host, boot = _machine()
    return f"pid{pid}-{_start_token(pid)}-{host}{boot}"


def owner_tag() -> str:
    """The identity of this process, to embed in the names of its temporary files.

    ``pid{pid}-{start}-{host}{boot}``: the pid, the process's start token, and
    short hashes of the host name and of the boot, so that a file is never
    taken for a live process's after the pid was recycled or the machine
    rebooted.

    >>> t = owner_tag()
    >>> t.startswith(f"pid{os.getpid()}-") and tag_in(f".x.{t}.abc.tmp") == t
    True
    >>> is_dead(t)
    False
    """
    return _tag(os.getpid())


def tag_in(name: str) -> str | None:
    """The owner tag in the file name ``name``, or None.

    >>> tag_in(".member-0001-pid42-77-abcdef012345-x1y2.crfsuite")
    'pid42-77-abcdef012345'
    >>> tag_in(".test.weight.k2j3_x.tmp") is None
    True
    """
    m = _TAG_RE.search(name)
    return m.group(0) if m else None


def is_dead(tag: str) -> bool:
    """Whether the process that ``tag`` (:func:`owner_tag`) names no longer runs.

    A process of another host cannot be checked, so it counts as alive; one
    of an earlier boot of this host is dead; otherwise the process is dead
    when its pid is gone, is a zombie, or now belongs to a process that
    started at another time (a recycled pid).

    >>> is_dead(f"pid{os.getpid()}-1-{''.join(_machine())}")   # this pid, another start
    True
    """
    m = _TAG_RE.fullmatch(tag)
    if m is None:
        raise ValueError(f"not an owner tag: {tag!r}")
    pid, start, host, boot = int(m[1]), int(m[2]), m[3], m[4]
    my_host, my_boot = _machine()
    if host != my_host:
        return False
    if boot != my_boot:
        return True
    state = _proc_state(pid)
    if state is None:
        if Path("/proc/self/stat").exists():  # /proc works: there is no such process
            return True
        now = _start_token(pid)
        return now == 0 or (start != 0 and now != start)
    return state[0] in ("Z", "X") or (start != 0 and state[1] != start)


def is_removable(name: str) -> bool:
    """Whether a leftover temporary file named ``name`` may be removed: its
    owner is this process or no longer runs.  A name without a tag comes from
    a version that did not tag its files; it is removable, as it was then
    (the caller holds the run directory's lock, so its writer is gone).

    >>> is_removable(f".test.weight.{owner_tag()}.abc.tmp")
    True
    """
    tag = tag_in(name)
    return tag is None or tag == owner_tag() or is_dead(tag)


def clear_dir(directory: str | os.PathLike) -> bool:
    """Remove every removable file (:func:`is_removable`) below ``directory``,
    then the subdirectories left empty and ``directory`` itself if empty.
    Returns whether ``directory`` is gone; files of live owners stay."""
    directory = Path(directory)
    if not directory.is_dir():
        return not directory.exists()
    for root, dirs, files in os.walk(directory, topdown=False):
        for name in files:
            if is_removable(name):
                try:
                    os.unlink(os.path.join(root, name))
                except FileNotFoundError:  # its owner removed it meanwhile
                    pass
        try:
            os.rmdir(root)
        except OSError:  # not empty: a live owner's file is in it
            pass
    return not directory.exists()


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
        return _TAG_RE.fullmatch(self.tag) is not None and not is_dead(self.tag)


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
        rec = json.loads(data.decode("utf-8"))
        return Holder(str(rec["command"]), int(rec["pid"]), str(rec["host"]), str(rec["tag"]),
                      float(rec["started"]))
    except (ValueError, KeyError, TypeError, AttributeError):
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


def check_final(run_dir: str | os.PathLike, command: str = "committee score") -> None:
    """Raise :class:`RunError` unless ``run_dir``'s files are final, for a reader.

    Only a directory holding ``run.json`` or a lock file (a committee run's
    output directory) is checked.  It is final when ``manifest.json`` is
    present (a run writes it last) and no ``committee run`` holds it;
    ``committee report`` writes only its own files, so a run it holds stays
    final.

    >>> check_final("no/such/dir")   # not a run directory: nothing to check
    """
    from committee.rundir import MANIFEST_FILE, STATE_FILE

    d = Path(run_dir)
    if not ((d / STATE_FILE).exists() or (d / LOCK_FILE).exists()):
        return
    h = holder(d)
    if h is not None and h.command != "committee report":
        raise in_use_error(d, h, command)
    if not (d / MANIFEST_FILE).is_file():
        raise RunError(f"{d} holds a committee run that is not finished (no {MANIFEST_FILE}: "
                       "it was interrupted); rerun the same committee run to finish it")


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
