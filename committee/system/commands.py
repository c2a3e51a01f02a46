"""A user's command run on bytes of input, supervised: in a session and
process group of its own, fed and read at once, its output bounded, its time
limited, and every process it started stopped however the run ends, even
when committee is killed by SIGKILL.

On Linux, :func:`run` starts the command under a supervisor of its own,
:mod:`committee.system.reaper` (one more Python process, about 25 ms to
start): a child subreaper that learns of committee's death from the kernel
(``prctl``), so that a process the command started, one that left its
process group with ``setsid`` or double-forked included, is stopped
whether committee ends, fails, is stopped by a signal or killed.  The
supervisor's lines on a pipe of its own say when the command started (or
why it could not) and when it exited, with its status.  Elsewhere the
command is started alone, leading a new process group (the stop then
reaches that group only).  Either way it runs in a session of its own, so a
Ctrl-C at the terminal reaches committee, not it.

:func:`run` exchanges data with it through :mod:`selectors`, so that
neither side waits on the other: its standard input is written while its
standard output is read into memory and the last :data:`STDERR_KEPT` bytes
of its standard error are kept.  It stops early when the output passes
``limit`` bytes or the time passes ``timeout`` seconds.  Once the command
has exited it waits only :data:`GRACE` seconds for a child it left behind
to let go of its output; once the command has closed its standard output,
only :data:`GRACE` seconds for it to exit (``"lingered"``: its output is
complete, but it would keep committee waiting).  In every case, an
exception or a stop signal (the command line turns SIGTERM and SIGHUP into
:class:`KeyboardInterrupt`) included, a ``finally`` stops the command and
all below it: SIGTERM, then SIGKILL after :data:`GRACE` seconds for what
is left (:meth:`Job.stop`).

Its other functions are about such a command as a tool: the name and version
it goes by (:func:`command_name`, :func:`fingerprint`), the most output it
may write (:func:`output_limit`) and the words of the messages about it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import selectors
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ["GRACE", "STDERR_KEPT", "Outcome", "run", "Job", "stop_group", "command_name", "fingerprint",
           "output_limit", "stderr_tail", "count_problem", "plural"]

#: Bytes of a command's standard error kept: its tail, for the messages.
STDERR_KEPT = 64 << 10
#: Seconds a command's process group has between SIGTERM and SIGKILL; and
#: seconds a child left behind by a command that exited may hold its
#: standard output open.
GRACE = 2.0
#: Seconds between redraws of a progress bar while the command is silent
#: on a terminal (elsewhere every 30 s, to keep a log short).
PROGRESS_EVERY = 1.0
#: Bytes written to or read from a pipe at a time.
_CHUNK = 64 << 10


@dataclass(frozen=True)
class Outcome:
    """How a command's run ended: ``why`` is ``"done"`` (it exited and its
    output was read), ``"timeout"`` or ``"overflow"`` (stopped early);
    ``returncode`` is its exit status (negative: the signal that killed
    it); ``out`` its standard output; ``err`` the end of its standard
    error."""

    why: str
    returncode: int
    out: bytes
    err: bytes


def progress_every() -> float:
    """Seconds between redraws of a progress bar: :data:`PROGRESS_EVERY` on
    a terminal, 30 elsewhere."""
    try:
        return PROGRESS_EVERY if sys.stderr.isatty() else 30.0
    except (AttributeError, ValueError):  # no stderr, or closed
        return 30.0


def run(argv: Sequence[str], data: bytes, *, limit: int, timeout: float | None = None,
        env: dict | None = None, bar=None) -> Outcome:
    """Run ``argv`` on ``data`` (its standard input), supervised (see the
    module).  ``limit``: the most bytes of output read; ``timeout``:
    seconds it may run (None: no limit); ``bar``: a :mod:`tqdm` bar that
    counts its output lines, redrawn while it is silent.

    Raises :class:`OSError` (:class:`FileNotFoundError`) when it cannot
    start.

    >>> run(["tr", "a-z", "A-Z"], b"abc\\n", limit=100)
    Outcome(why='done', returncode=0, out=b'ABC\\n', err=b'')
    >>> run(["sleep", "30"], b"", limit=100, timeout=0.2).why
    'timeout'
    >>> run(["yes"], b"", limit=100).why
    'overflow'
    """
    out, err = bytearray(), bytearray()
    job = Job(argv, env)
    try:  # nothing between the start and this try: a stop signal can come at any point
        job.started()
        deadline = None if timeout is None else time.monotonic() + timeout
        why = _exchange(job, data, out, err, limit, deadline, bar)
    finally:
        job.stop()
    return Outcome(why, job.returncode, bytes(out), bytes(err))


#: Whether commands run under the supervisor :mod:`committee.system.reaper`:
#: on Linux (``prctl``), with ``/proc`` mounted.
SUPERVISE = (sys.platform.startswith("linux") and hasattr(os, "posix_spawnp")
             and os.path.exists("/proc/self/stat"))


class Job:
    """A command started for :func:`run`, its three standard streams pipes
    (``proc.stdin``, ``proc.stdout``, ``proc.stderr``).  With
    :data:`SUPERVISE`, ``proc`` is its supervisor, whose lines come on the
    pipe ``status``; else ``proc`` is the command and ``status`` is None."""

    def __init__(self, argv: Sequence[str], env: dict | None = None, grace: float = GRACE):
        self.grace = grace
        self.status = None
        self._returncode = None  # the command's, as its supervisor said
        self._ran = self._error = None
        self._said = b""
        self.ended = False  # the command has exited (or its supervisor has)
        pipes = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     env=env, start_new_session=True)
        if not (SUPERVISE and sys.executable):
            self.proc = subprocess.Popen(list(argv), **pipes)
            return
        from committee.system import reaper

        read, write = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", reaper.__file__, str(os.getpid()), str(write),
                 repr(grace), *argv], pass_fds=(write,), **pipes)
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        self.status = read

    @property
    def returncode(self) -> int | None:
        """The command's exit status (negative: the signal that killed it)."""
        if self.status is None or self._returncode is None:
            return self.proc.returncode
        return self._returncode

    def hear(self) -> bool:
        """Read what the supervisor said (one read, which may wait); False
        at the end of its pipe: it has exited."""
        chunk = os.read(self.status, 4096)
        if not chunk:
            self.ended = True
            return False
        *lines, self._said = (self._said + chunk).split(b"\n")
        for line in lines:
            kind, _, value = line.decode("ascii", "replace").partition(" ")
            if kind == "S":
                self._ran = int(value)
            elif kind == "E":
                self._error = int(value)
            elif kind == "X":
                self._returncode, self.ended = int(value), True
        return True

    def started(self) -> None:
        """Wait until the command runs; raise :class:`OSError` (its errno)
        when it could not be started."""
        while self.status is not None and self._ran is None and self._error is None:
            if not self.hear():
                raise OSError(f"its supervisor ({Path(self.proc.args[3]).name}) ended "
                              f"before starting it")
        if self._error is not None:
            raise OSError(self._error, os.strerror(self._error))

    def exited(self) -> bool:
        """Whether the command has exited."""
        return self.ended if self.status is not None else _exited(self.proc)

    def stop(self) -> None:
        """Stop the command and every process below it, collect its status
        and close the pipes.  Supervised: SIGTERM to the supervisor, which
        stops them all (a second SIGTERM, sent when a stop signal interrupts
        the wait, leaves them no grace); SIGKILL to it only if it has not
        exited after twice the grace and a second more.  Should the
        supervisor have been killed before the command exited, the
        command's process group is killed from here."""
        if self.status is None:
            stop_group(self.proc, self.grace)
            return
        try:
            try:
                _send(self.proc, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=2 * self.grace + 1)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            except BaseException:
                _send(self.proc, signal.SIGTERM)
                raise
            os.set_blocking(self.status, False)
            with contextlib.suppress(BlockingIOError):
                while self.hear():  # its last word: the command's status
                    pass
            if self._ran is not None and self._returncode is None:  # it was killed itself
                _signal_group(self._ran, signal.SIGKILL)  # what is left of the command's group
        finally:
            _close(self.proc)
            os.close(self.status)


def _send(proc: subprocess.Popen, signum: int) -> None:
    """Signal ``proc`` unless it has been collected (its pid may be another's)."""
    with contextlib.suppress(OSError):
        proc.send_signal(signum)


def _close(proc: subprocess.Popen) -> None:
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the command has exited, its status left uncollected: until
    it is collected its process id stays taken, so its process group (of
    the same id) can be signalled without reaching a stranger."""
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, proc.pid,
                             os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # collected already
            return True
    return proc.poll() is not None


def group_alive(pgid: int) -> bool:
    """Whether process group ``pgid`` holds a live process.  A zombie has
    ended (it waits for its parent, or an init that may never reap it, to
    collect its status), so on Linux the group's members are read from
    ``/proc``; elsewhere any member, zombies too, counts."""
    from committee.system import reaper

    stats = reaper.proc_stats()
    if not stats:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # a member that is not ours to signal is still alive
            return True
        return True
    return any(group == pgid and state not in (b"Z", b"X") for _, state, _, group in stats)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def stop_group(proc: subprocess.Popen, grace: float = GRACE) -> None:
    """Stop the process group ``proc`` leads (``start_new_session``), the
    command and every process it started: SIGTERM, then SIGKILL for what is
    left after ``grace`` seconds (at once when a stop signal interrupts the
    wait), and wait up to ``grace`` seconds more for it to be gone.  Collect
    the command's status and close its pipes."""
    pgid = proc.pid
    _signal_group(pgid, signal.SIGTERM)
    try:
        if not _gone(proc, pgid, time.monotonic() + grace):
            _signal_group(pgid, signal.SIGKILL)
            _gone(proc, pgid, time.monotonic() + grace)  # a process in the kernel dies late
            proc.wait()
    except BaseException:  # no grace left for what ignores SIGTERM
        _signal_group(pgid, signal.SIGKILL)
        raise
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _gone(proc: subprocess.Popen, pgid: int, deadline: float) -> bool:
    """Wait until the command has exited (its status collected) and its
    group ``pgid`` holds no live process, or until ``deadline``; whether it
    is gone."""
    while proc.poll() is None or group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _close_stdin(proc: subprocess.Popen, sel: selectors.BaseSelector) -> None:
    """No more input: the command reads to its end, or has exited."""
    if not proc.stdin.closed:
        with contextlib.suppress(KeyError):
            sel.unregister(proc.stdin)
        with contextlib.suppress(OSError):
            proc.stdin.close()


def _feed(proc: subprocess.Popen, sel: selectors.BaseSelector, view: memoryview,
          sent: int) -> int:
    """Write what the pipe takes of ``view[sent:]``; the new ``sent``."""
    try:
        sent += os.write(proc.stdin.fileno(), view[sent:sent + _CHUNK])
    except BlockingIOError:
        return sent
    except BrokenPipeError:  # it stopped reading: its output tells the rest
        sent = len(view)
    if sent >= len(view):
        _close_stdin(proc, sel)
    return sent


def _exchange(job: Job, data: bytes, out: bytearray, err: bytearray,
              limit: int, deadline: float | None, bar) -> str:
    """Feed ``data`` to the command while reading its output into ``out``
    and ``err`` (the last :data:`STDERR_KEPT` bytes), until it has exited
    and closed both, or :data:`GRACE` seconds after it exited; ``"done"``,
    else why it stopped early (``"timeout"``, ``"overflow"``, or
    ``"lingered"``: :data:`GRACE` seconds after it closed its standard
    output, it had not exited)."""
    proc, sel = job.proc, selectors.DefaultSelector()
    view, sent, reading = memoryview(data), 0, {proc.stdout, proc.stderr}
    every, shown, ended, closed = progress_every(), time.monotonic(), None, None
    try:
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        for pipe in (proc.stdout, proc.stderr, job.status):
            if pipe is not None:
                sel.register(pipe, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if ended is None and job.exited():
                ended = now
                _close_stdin(proc, sel)  # it reads no more
            if ended is not None and (not reading or now - ended >= GRACE):
                return "done"  # a child left behind holds its output: not waited for
            if ended is None and closed is not None and now - closed >= GRACE:
                return "lingered"
            if deadline is not None and now >= deadline:
                return "timeout"
            if bar is not None and now - shown >= every:
                bar.refresh()  # the elapsed time moves on while the command is silent
                shown = now
            wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - now))
            if not sel.get_map():  # it closed its output and has not exited yet
                time.sleep(wait)
                continue
            for key, _ in sel.select(wait):
                if key.fileobj is proc.stdin:
                    sent = _feed(proc, sel, view, sent)
                elif key.fileobj is job.status:
                    if not job.hear():
                        sel.unregister(job.status)
                elif _read(key.fileobj, proc, out, err, bar):
                    reading.discard(key.fileobj)
                    sel.unregister(key.fileobj)
                    if key.fileobj is proc.stdout:
                        closed = now
                elif len(out) > limit:
                    return "overflow"
    finally:
        sel.close()


def _read(pipe, proc: subprocess.Popen, out: bytearray, err: bytearray, bar) -> bool:
    """Read a chunk of the command's output (``out``, counted on ``bar``) or
    standard error (``err``, its tail kept); whether the pipe has ended."""
    chunk = os.read(pipe.fileno(), _CHUNK)
    if not chunk:
        return True
    if pipe is proc.stdout:
        out += chunk
        if bar is not None:  # never past its total: extra lines are the count check's
            lines = chunk.count(b"\n")
            if bar.total is not None:
                lines = min(lines, max(0, bar.total - bar.n))
            bar.update(lines)
    else:
        err += chunk
        del err[:-STDERR_KEPT]
    return False


#: Interpreters whose script (or ``-m`` module), not the interpreter, names a command.
INTERPRETERS = ("python", "python3", "pypy", "pypy3", "node", "perl", "ruby", "bash", "sh",
                 "java", "Rscript", "julia")


def command_name(argv: Sequence[str]) -> str:
    """The name a command's segmentation goes by in tables and file names:
    its program, or the script or module an interpreter runs.

    >>> command_name(["/opt/bin/stanford-seg", "--utf8"])
    'stanford-seg'
    >>> command_name(["python3.11", "-u", "tools/my_bert.py", "--model", "m/"])
    'my_bert'
    >>> command_name(["python", "-m", "pkg.segment"])
    'pkg.segment'
    """
    name = Path(argv[0]).name
    if name.rstrip("0123456789.") in INTERPRETERS or name in INTERPRETERS:
        rest = list(argv[1:])
        while rest:
            arg = rest.pop(0)
            if arg == "-m" and rest:
                name = rest[0]
                break
            if not arg.startswith("-"):
                name = Path(arg).stem
                break
    return "".join(c if c.isalnum() or c in "._-+" else "_" for c in name) or "cmd"


#: A file a command names is hashed for its version up to this size; a
#: larger one (a model of gigabytes) goes by its size and modification time.
FINGERPRINT_MAX_BYTES = 64 << 20


def fingerprint(argv: Sequence[str]) -> str:
    """Version of a command: a hash of its words and of the files they name,
    so that an edited script is a new version.

    A named regular file of up to :data:`FINGERPRINT_MAX_BYTES` is hashed
    by its bytes, read in chunks of 1 MiB; a larger one (a model) by its
    size and modification time (``st_mtime_ns``) alone, so that a model of
    gigabytes is never read: writing or replacing it changes its time, and
    so the version.  A directory is not looked into.
    """
    h = hashlib.sha256("\0".join(argv).encode("utf-8"))
    for arg in argv:
        with contextlib.suppress(OSError):
            st = os.stat(arg)
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > FINGERPRINT_MAX_BYTES:
                h.update(f"\0size {st.st_size} mtime_ns {st.st_mtime_ns}".encode("ascii"))
                continue
            with open(arg, "rb") as f:  # at most the cap, should the file grow meanwhile
                left = FINGERPRINT_MAX_BYTES
                while left > 0 and (chunk := f.read(min(1 << 20, left))):
                    h.update(chunk)
                    left -= len(chunk)
    return h.hexdigest()[:12]


def stderr_tail(err: bytes, lines: int = 3, chars: int = 300) -> str:
    """The last lines of a command's standard error, on one line."""
    tail = [s.strip() for s in err.decode("utf-8", "replace").splitlines() if s.strip()][-lines:]
    text = " | ".join(tail)
    if len(text) > chars:
        text = "…" + text[-chars:]
    return f"; its stderr ends: {text}" if text else "; its stderr is empty"


#: A command may write this many bytes per byte of its input, plus
#: :data:`OUTPUT_MARGIN` (:func:`output_limit`).  A segmentation adds at
#: most a separator after each character (twice the bytes of ASCII text);
#: an entity tagger's ``TOKEN/TAG`` items more (``a/B-PER `` is 8 bytes for
#: the 1 of ``a``), hence :data:`TAGGED_PER_BYTE`.
OUTPUT_PER_BYTE = 4
TAGGED_PER_BYTE = 16
OUTPUT_MARGIN = 1 << 20
def output_limit(n_input: int, tagged: bool = False) -> int:
    """The most bytes a command may write for ``n_input`` bytes of input:
    :data:`OUTPUT_PER_BYTE` (an entity tagger, ``tagged``:
    :data:`TAGGED_PER_BYTE`) times as many, plus :data:`OUTPUT_MARGIN`.
    Beyond it the command is taken for one writing without end and stopped.

    >>> output_limit(1000), output_limit(1000, tagged=True)
    (1052576, 1064576)
    """
    return (TAGGED_PER_BYTE if tagged else OUTPUT_PER_BYTE) * n_input + OUTPUT_MARGIN


def plural(n: int, noun: str) -> str:
    """``n`` (with thousands separators) and ``noun``, plural unless ``n`` is 1.

    >>> plural(1, "line"), plural(1200, "sentence")
    ('1 line', '1,200 sentences')
    """
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def count_problem(sent: Sequence[str], lines: Sequence[str]) -> str:
    """How a command's output ``lines`` fail to match its input ``sent``
    line for line: the first input line whose characters differ, else where
    the output stops or what follows it.  No line past the input is named.

    >>> count_problem(["ab", "cd", "ef"], ["a b", "c d"])
    'its output ends after line 2 of 3'
    >>> count_problem(["ab", "cd", "ef"], ["a b", "e f"])
    'line 2 of its input is the first whose characters differ'
    >>> count_problem(["ab"], ["a b", "x"])
    'its output spells the 1 line of its input, then has 1 more line'
    >>> count_problem(["ab", "cd"], [])
    'its output is empty'
    """
    first = next((i for i, (s, line) in enumerate(zip(sent, lines))
                  if "".join(line.split()) != s), None)
    if first is not None:
        return f"line {first + 1:,} of its input is the first whose characters differ"
    if not lines:
        return "its output is empty"
    if len(lines) < len(sent):
        return f"its output ends after line {len(lines):,} of {len(sent):,}"
    more = plural(len(lines) - len(sent), "more line")
    return f"its output spells the {plural(len(sent), 'line')} of its input, then has {more}"
