"""The life of a ``committee`` process around its command: standard output
guarded (a failed write is an error naming ``<stdout>``, exit 6; a reader
gone away is exit 141), and the stop signals (SIGINT, SIGTERM, SIGHUP)
turned into one line and the exit code 128 + the signal, the worker
processes stopped on the way (docs/errors.md).  Used by :mod:`committee.cli`.

And the progress bar of a long step on standard error, counted in the
expected cost of its items rather than their number (:class:`CostBar`).
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import sys
import threading
import time


def exit_now(code: int) -> None:
    """Flush the standard streams and end the process without tearing down
    the interpreter: what is left to free is memory, and the named semaphores
    of the worker pools, which multiprocessing's exit finalizers release as at
    a normal exit (otherwise loky's resource tracker reports them as leaked
    on the terminal)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        try:
            util._run_finalizers(0)
        except Exception:  # a finalizer that fails cannot stop the exit
            pass
    os._exit(code)


class GuardedStdout:
    """Standard output for a command: a write that fails (a full disk, a
    closed descriptor) is an :class:`~committee.errors.OutputError` naming
    ``<stdout>`` (exit 6), not an unexplained ``OSError``; a reader that went
    away (``| head``) stays a :class:`BrokenPipeError` (exit 141)."""

    def __init__(self, stream):
        self._stream = stream

    def _guard(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            from committee.errors import OutputError
            from committee.system.streams import STDOUT

            hint = ("free some space or redirect standard output elsewhere (> FILE)"
                    if exc.errno in (errno.ENOSPC, errno.EDQUOT)
                    else "redirect standard output elsewhere (> FILE)")
            raise OutputError(STDOUT, exc.strerror or str(exc), hint) from None

    def write(self, text):
        return self._guard(self._stream.write, text)

    def flush(self):
        return self._guard(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def writes_stdout(args) -> bool:
    """Whether the command's results go to standard output (all but
    ``committee segment -o FILE``, whose summary goes to stderr)."""
    return getattr(args, "output", "-") == "-"


def run_command(args) -> int:
    """Run the command with standard output guarded (:class:`GuardedStdout`) and
    flushed before its exit code counts: output lost is an error."""
    if writes_stdout(args) and sys.stdout is None:  # started with stdout closed (>&-)
        from committee.errors import OutputError
        from committee.system.streams import STDOUT

        raise OutputError(STDOUT, "standard output is closed, the results would be lost",
                          "redirect it to a file (> FILE) or to /dev/null")
    real = sys.stdout
    if real is not None:
        sys.stdout = GuardedStdout(real)
    try:
        code = args.func(args)
        if real is not None:
            sys.stdout.flush()
        return code
    finally:
        sys.stdout = real


def stdout_closed() -> int:
    """The reader of our standard output went away (``| head``): stop quietly."""
    try:  # keep Python from complaining again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 141


#: The signals that stop a command, and the word its line uses for each.
STOP_SIGNALS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated",
                signal.SIGHUP: "hung up"}


class Stop(KeyboardInterrupt):
    """A stop signal, raised in the main thread where the signal arrived: the
    command unwinds as on Ctrl-C, so every ``finally`` on the way stops its
    worker processes (:mod:`committee.system.pools`) before the process ends."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def stop_line(signum: int) -> str:
    """What a command stopped by ``signum`` says on stderr."""
    return (f"committee: {STOP_SIGNALS[signum]} ({signal.Signals(signum).name}); "
            "finished work is kept")


def say_stopped(signum: int) -> int:
    """Print :func:`stop_line`; return the exit code, 128 + the signal."""
    try:
        print(stop_line(signum), file=sys.stderr, flush=True)
    except (OSError, ValueError):  # the terminal is gone (SIGHUP)
        pass
    return 128 + signum


class StopHandler:
    """The handler of :data:`STOP_SIGNALS`: the first raises :class:`Stop`;
    a second one, while the first one's workers are being stopped, ends the
    process at once (its workers end with it: ``parallel._init_worker``)."""

    def __init__(self):
        self.first = None

    def __call__(self, signum, frame):
        if self.first is None:
            self.first = signum
            raise Stop(signum)
        exit_now(say_stopped(self.first))


def handle_stop_signals() -> None:
    """Install :class:`StopHandler`.  SIGINT is honoured even when the process
    started with it ignored (a background job of a shell script); SIGTERM and
    SIGHUP stay ignored when they were (``nohup`` ignores SIGHUP)."""
    handler = StopHandler()
    for signum in STOP_SIGNALS:
        if signum == signal.SIGINT or signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)


#: A :class:`CostBar`'s line: the share of the cost done, the items done of
#: those expected, the time spent and the time left.
COST_BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]"
#: The share of its cost an item in flight may count before it is done.
IN_FLIGHT_CAP = 0.95
#: How often (seconds) a :class:`CostBar` moves by the work of the items in flight.
TICK_S = 1.0


class CostBar:
    """A :mod:`tqdm` bar over items of unequal cost (committee members,
    Table 2 models), its total the sum of their costs
    (:func:`committee.learners.features.training_cost`): each item done
    moves it by its cost, so the share done and tqdm's time left (the cost
    left at the average rate since the bar started, ``smoothing=0``) follow
    the work, not the count of items.  The count shows beside the bar.

    Items told :meth:`started` (when each begins: the tasks given to
    :func:`committee.system.pools.results` through
    :func:`committee.system.pools.announced`) count while they
    run: once an item has been timed from start to end, every item in
    flight counts the cost one worker does in the time since it started
    (:meth:`rate`), up to :data:`IN_FLIGHT_CAP` of its own, and the bar
    moves by it every :attr:`tick_s` seconds.  On several workers the share
    done, and the time left, then count the work of all of them, not only
    of the items ended.

    Parameters
    ----------
    costs : dict
        Each item's cost, by key, in the order the items are expected.
    desc, unit : str
        The bar's label, and what one item is (``member``).
    disable : bool
        Show nothing (``--quiet``).
    done : iterable
        Keys of the items done before the bar starts (a resumed run): in
        its total and start, never in its rate.
    expected : int, optional
        The bar counts to the first ``expected`` items (and those done);
        default every item.  :meth:`expect` changes it.
    file : optional
        Where the bar is written (default standard error).
    """

    #: The clock items are timed by (seconds), and how often (seconds) the
    #: bar moves by the items in flight (0: only when :meth:`tick` is called).
    clock = staticmethod(time.monotonic)
    tick_s = TICK_S

    def __init__(self, costs: dict, *, desc: str, unit: str, disable: bool, done=(),
                 expected: int | None = None, file=None):
        from tqdm import tqdm

        self._clock, self._tick_s = self.clock, self.tick_s
        self._running: dict = {}  # key -> when it started (items in flight)
        self._timed: list[tuple[int, float]] = []  # (cost, seconds) of items timed
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.costs = dict(costs)
        self._order = list(self.costs)
        self._done = set(done)
        self._unit, self._note = unit, ""
        self._expected = len(self._order) if expected is None else expected
        self.bar = tqdm(total=self._total(), initial=sum(self.costs[k] for k in self._done),
                        desc=desc, disable=disable, dynamic_ncols=True, smoothing=0,
                        bar_format=COST_BAR_FORMAT, file=file)
        self._show()

    def _keys(self) -> set:
        return set(self._order[:self._expected]) | self._done

    def _total(self) -> int:
        return sum(self.costs[k] for k in self._keys())

    @property
    def cost_done(self) -> int:
        """The cost of the items done (a disabled bar counts nothing itself)."""
        return sum(self.costs[k] for k in self._done)

    @property
    def total(self) -> int:
        """The cost the bar counts to: the items expected and those done."""
        return self._total()

    def expect(self, n_items: int) -> None:
        """Count to the first ``n_items`` items (and every item done)."""
        self._expected = n_items
        self.bar.total = self._total()
        self._show()

    def started(self, key) -> None:
        """Item ``key`` starts now: until it is done it counts its share of
        the work at :meth:`rate`."""
        with self._lock:
            self._running[key] = self._clock()
        if self._ticker is None and self._tick_s > 0 and not self.bar.disable:
            self._ticker = threading.Thread(target=self._tick_until_closed,
                                            name="committee-progress", daemon=True)
            self._ticker.start()

    def rate(self) -> float | None:
        """The cost one worker does per second, over the items timed from
        start to end (None before the first)."""
        seconds = sum(s for _, s in self._timed)
        return sum(c for c, _ in self._timed) / seconds if seconds > 0 else None

    def in_flight(self, now: float | None = None) -> int:
        """The cost the items in flight have done by ``now`` (default: the
        clock's time) at :meth:`rate`, each at most :data:`IN_FLIGHT_CAP`
        of its own cost; 0 before an item was timed."""
        rate = self.rate()
        if rate is None:
            return 0
        now = self._clock() if now is None else now
        return int(sum(min(rate * max(now - t, 0.0), IN_FLIGHT_CAP * self.costs[k])
                       for k, t in self._running.items()))

    def tick(self, now: float | None = None) -> None:
        """Move the bar by the work of the items in flight (never back)."""
        with self._lock:
            self._move(now)

    def _move(self, now: float | None) -> None:
        ahead = self.cost_done + self.in_flight(now) - self.bar.n
        if ahead > 0:
            self.bar.update(ahead)

    def _tick_until_closed(self) -> None:
        while not self._stop.wait(self._tick_s):
            self.tick()

    def stopped(self, key) -> None:
        """Item ``key`` ended without being done (it failed): it no longer counts."""
        with self._lock:
            self._running.pop(key, None)

    def done(self, key) -> None:
        """Item ``key`` is done: the bar moves to its cost (what it counted
        while in flight included)."""
        with self._lock:
            now = self._clock()
            start = self._running.pop(key, None)
            if start is not None:
                self._timed.append((self.costs[key], now - start))
            self._done.add(key)
            self._move(now)
            self._show()

    def note(self, text: str) -> None:
        """Show ``text`` after the count of items."""
        self._note = text
        self._show()

    def _show(self) -> None:
        count = f"{len(self._done)}/{len(self._keys())} {self._unit}s"
        self.bar.set_postfix_str(count + (f", {self._note}" if self._note else ""))

    def close(self) -> None:
        """Stop moving by the items in flight, and close the bar."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        self.bar.close()
