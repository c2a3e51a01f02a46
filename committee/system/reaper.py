"""The supervisor of a user's command on Linux: a small process between
committee and the command, so that no process the command starts outlives
committee, however committee ends (its end, an error, a stop signal, or
SIGKILL, which committee itself cannot act on).

:mod:`committee.system.commands` runs this file by its path, with Python's
start-up trimmed (``python -I -S reaper.py PARENT STATUS_FD GRACE
COMMAND...``, about 25 ms), its standard streams being committee's pipes to
the command.  It uses the standard library alone, and imports nothing of
committee.  The supervisor

1. makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a
   process of the command whose parent ends, one that left the command's
   session with ``setsid`` or double-forked included, becomes its child
   instead of init's, so it can always find and stop it;
2. asks the kernel for SIGTERM when its parent, committee, ends, by SIGKILL
   too (``prctl(PR_SET_PDEATHSIG)``), and stops at once if committee has
   already ended (its parent is no longer ``PARENT``);
3. starts the command in a session and process group of its own (a Ctrl-C
   at the terminal reaches committee, not it), its standard streams passed
   through, and tells committee on the descriptor ``STATUS_FD`` one line per
   event: ``S pid`` once it runs, ``E errno`` when it cannot be started,
   ``X returncode`` when it exits (negative: the signal that killed it);
4. collects every process handed to it until none is left, then exits with
   the command's status (128 + the signal when a signal killed it);
5. on SIGTERM, SIGINT or SIGHUP (committee stopping the command, or its
   death) stops every process below it: SIGTERM, then SIGKILL after
   ``GRACE`` seconds (at once on a second signal), repeated until none is
   left, since a process may fork while it is being stopped.

Its descendants are found by their parent ids in ``/proc/*/stat``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: The signals that stop the command and every process below it.
STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Stop(Exception):
    """A stop signal arrived, or committee has ended."""


class Supervisor:
    """The state of one supervision: the command's pid once it runs, its
    returncode once it exits, and where committee hears of them."""

    def __init__(self, status_fd: int, grace: float):
        self.status_fd, self.grace = status_fd, grace
        self.pid = self.returncode = None
        self.hard = False  # a second stop signal: no grace left

    def say(self, line: str) -> None:
        """One line to committee; it may have gone away."""
        try:
            os.write(self.status_fd, line.encode("ascii") + b"\n")
        except OSError:
            pass

    def collected(self, pid: int, status: int) -> None:
        """``pid`` was collected with wait ``status``."""
        if pid == self.pid and self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(status)
            self.say(f"X {self.returncode}")

    def reap(self) -> None:
        """Collect every child that has ended, without waiting."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.collected(pid, status)

    def wait_all(self) -> None:
        """Collect children, the command and the processes handed down,
        until none is left."""
        while True:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                return
            self.collected(pid, status)

    def exit_code(self) -> int:
        code = self.returncode
        if code is None:
            return 128 + signal.SIGTERM
        return code if code >= 0 else 128 - code


def proc_stats() -> list[tuple[int, bytes, int, int]] | None:
    """``(pid, state, ppid, pgrp)`` of every process in ``/proc`` (a process
    that ends while it is read is left out); None without ``/proc``."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    out = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                text = f.read()
        except OSError:  # it ended meanwhile
            continue
        fields = text[text.rfind(b")") + 2:].split()  # after "pid (comm) ": state ppid pgrp
        if len(fields) > 2:
            out.append((int(name), fields[0], int(fields[1]), int(fields[2])))
    return out


def descendants(root: int) -> list[int]:
    """The live processes below ``root`` (a zombie has ended), by the
    parent ids of ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    live = set()
    for pid, state, ppid, _ in proc_stats() or ():  # no /proc: the group is all that is stopped
        children.setdefault(ppid, []).append(pid)
        if state not in (b"Z", b"X"):
            live.add(pid)
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            todo.append(pid)
            if pid in live:
                found.append(pid)
    return found


def _signal(pids, signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:  # ended meanwhile
            pass


def stop_all(sup: Supervisor) -> None:
    """Stop every process below the supervisor: SIGTERM, SIGKILL after the
    grace for what is left (at once once ``sup.hard``), until none is left;
    a process stuck in the kernel is given one more grace to die."""
    me = os.getpid()
    if sup.pid is not None and sup.returncode is None:  # its group, should /proc miss one
        try:
            os.killpg(sup.pid, signal.SIGTERM)
        except OSError:
            pass
    _signal(descendants(me), signal.SIGTERM)
    deadline = time.monotonic() + sup.grace
    while not sup.hard and time.monotonic() < deadline:
        sup.reap()
        if not descendants(me):
            break
        time.sleep(0.02)
    deadline = time.monotonic() + sup.grace
    while True:
        sup.reap()
        left = descendants(me)
        if not left or time.monotonic() >= deadline:
            return
        _signal(left, signal.SIGKILL)
        time.sleep(0.01)


def _watch_parent(parent: int) -> None:
    """Become a subreaper, and be sent SIGTERM when ``parent`` ends; raise
    :class:`Stop` if it has ended already."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: committee's own stop is all there is
        pass
    if os.getppid() != parent:
        raise Stop


def _quiet_streams() -> None:
    """Let go of committee's pipes: only the command holds them, so
    committee sees their end when the command's side closes."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def main(argv: list[str]) -> int:
    parent, status_fd, grace, command = int(argv[1]), int(argv[2]), float(argv[3]), argv[4:]
    os.set_inheritable(status_fd, False)
    sup = Supervisor(status_fd, grace)

    def first(signum, frame):
        for s in STOPS:
            signal.signal(s, second)
        raise Stop

    def second(signum, frame):
        sup.hard = True

    try:
        for s in STOPS:
            signal.signal(s, first)
        _watch_parent(parent)
        try:
            sup.pid = os.posix_spawnp(command[0], command, os.environ, setsid=True,
                                      setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
        except OSError as exc:
            sup.say(f"E {exc.errno or 0}")
            return 127
        sup.say(f"S {sup.pid}")
        _quiet_streams()
        sup.wait_all()
    except Stop:
        stop_all(sup)
    return sup.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
