"""The owners of temporary files: a tag naming the process that writes
one (:func:`owner_tag`: its pid, start time and machine), and whether the
owner of a tagged file is gone (:func:`is_dead`), so that a process cleaning
up leftovers removes only its own files or those of a process that no
longer runs (:func:`is_removable`, :func:`clear_dir`), never a live
process's files, such as those of a worker still running after its run
was killed.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
from pathlib import Path

_TAG_RE = re.compile(r"pid(\d+)-(\d+)-([0-9a-f]{6})([0-9a-f]{6})")


def read_proc_text(path: str) -> str | None:
    """A small text file of ``/proc`` (ASCII), or None when it cannot be read."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _proc_state(pid: int) -> tuple[str, int] | None:
    """``(state, start time in clock ticks since boot)`` of ``pid`` from
    ``/proc``, or None when no such process exists (or there is no ``/proc``)."""
    text = read_proc_text(f"/proc/{pid}/stat")
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
def machine() -> tuple[str, str]:
    """Short hashes of this host's name and of its current boot."""
    boot = (read_proc_text("/proc/sys/kernel/random/boot_id") or "").strip()
    if not boot:
        try:
            import psutil

            boot = str(int(psutil.boot_time()))
        except Exception:
            boot = "unknown"
    return _hash6(socket.gethostname()), _hash6(boot)


@functools.lru_cache(maxsize=8)
def process_tag(pid: int) -> str:
    """The owner tag (:func:`owner_tag`) of the running process ``pid``."""
    host, boot = machine()
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
    return process_tag(os.getpid())


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

    >>> is_dead(f"pid{os.getpid()}-1-{''.join(machine())}")   # this pid, another start
    True
    """
    m = _TAG_RE.fullmatch(tag)
    if m is None:
        raise ValueError(f"not an owner tag: {tag!r}")
    pid, start, host, boot = int(m[1]), int(m[2]), m[3], m[4]
    my_host, my_boot = machine()
    if host != my_host:
        return False
    if boot != my_boot:
        return True
    state = _proc_state(pid)
    if state is None:
        if os.path.exists("/proc/self/stat"):  # /proc works: there is no such process
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
    Returns whether ``directory`` is gone; files of live owners stay.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "work"
    >>> (d / "sub").mkdir(parents=True)
    >>> _ = (d / "sub" / f".m-{owner_tag()}-x.crfsuite").write_text("")
    >>> clear_dir(d), d.exists()
    (True, False)
    """
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
