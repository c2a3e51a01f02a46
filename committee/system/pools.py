"""Worker pools: tasks (committee members, Table 2 models) run in parallel
on loky processes or a Dask cluster, and the records of those that fail.

Results are yielded as they arrive; callers assemble them by index, so the
order in which workers finish changes no output.  A task that raises, or
whose worker process dies (killed from outside, out of memory, a crash in C
code), becomes a :class:`MemberFailure` naming its index while the other
tasks go on; :func:`failed` turns the failures of a run into the one error
that ends it (docs/errors.md).  On Dask, a task is retried on another worker
when its worker dies, and fails once its workers died more often than
``distributed.scheduler.allowed-failures``; a scheduler that goes away ends
the run with a :class:`RunError`, the tasks yielded so far kept.

A pool never has more workers than can run (:func:`worker_count`): no more
than the tasks it has to run and, on this machine, than the usable cores.
Its workers end with it, however it ends (every task done, a failure, or a
stop signal unwinding the caller: :func:`_loky_results`, :func:`_close_dask`),
and on Linux a loky worker also ends when its parent process dies, even by
SIGKILL (:func:`_init_worker`); a worker of a local Dask cluster does so of
itself.
"""

from __future__ import annotations

import errno
import logging
import os
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from committee.system.arguments import count
from committee.errors import Note, OutputError, RunError

log = logging.getLogger("committee.run")

#: Backends of ``parallel.backend``.
BACKENDS = ("loky", "dask", "sequential")


def _first_index(args) -> int:
    return args[0].index


@dataclass(frozen=True)
class MemberFailure:
    """A member that did not finish: reported by index, the others go on.

    Attributes
    ----------
    index : int
        The member's index.
    error : str
        One line: the exception type and message, or what happened to its worker.
    detail : str
        The traceback, for ``run.log``.
    errno : int or None
        The errno of an :class:`OSError` (a full disk is not the member's fault).
    """

    index: int
    error: str
    detail: str = ""
    errno: int | None = None


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


WORKER_DIED = "its worker process died while it ran"
#: Dask runs a task whose worker died again elsewhere, up to its allowed failures.
DASK_WORKER_DIED = ("its dask worker died each time it ran it (distributed.scheduler."
                    "allowed-failures)")


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity, a container's CPU
    quota and ``LOKY_MAX_CPU_COUNT`` taken into account (joblib's count)."""
    from joblib import cpu_count

    return max(cpu_count(), 1)


def worker_count(backend: str, n_jobs: int, n_tasks: int, what: str = "tasks",
                 scheduler: str | None = None) -> int:
    """The workers a pool of ``backend`` starts for ``n_tasks`` tasks when
    ``parallel.n_jobs`` is ``n_jobs`` (-1: every usable core).

    Never more than the tasks, nor, for loky processes and a local Dask
    cluster, than the usable cores (:func:`usable_cores`): a worker more
    only costs memory and start-up time, CRF training being bound to one
    core.  An ``n_jobs`` reduced so is said once, as a :class:`Note` naming
    ``what`` the tasks are (``members``, ``Table 2 models``).  The workers of
    an external Dask scheduler are not ours: ``n_jobs`` is returned as is.
    """
    if n_tasks == 0 or backend == "sequential":
        return min(n_tasks, 1)
    if backend == "dask" and scheduler:
        return n_jobs
    cores = usable_cores()
    workers = min(cores if n_jobs == -1 else n_jobs, cores, n_tasks)
    if n_jobs != -1 and workers < n_jobs:
        what = what.removesuffix("s") if n_tasks == 1 else what
        message = (f"parallel.n_jobs: {n_jobs} reduced to {workers} ({cores} usable "
                   f"core{'s' * (cores != 1)}, {n_tasks} {what} to train)")
        log.info(message)
        warnings.warn(Note(message), stacklevel=2)
    return workers


def announced(tasks, backend: str, on_start):
    """``tasks`` (argument tuples), telling ``on_start(index)`` as each is
    taken: on one process (``sequential``) and on ``loky``, whose workers
    are handed at most one task each (:func:`results`), a task is taken as
    it starts; on Dask, whose scheduler queues tasks on its workers, nobody
    is told.

    >>> from types import SimpleNamespace as Job
    >>> heard = []
    >>> [a[0].index for a in announced([(Job(index=3),), (Job(index=5),)], "loky", heard.append)]
    [3, 5]
    >>> heard
    [3, 5]
    """
    for args in tasks:
        if backend != "dask":
            on_start(_first_index(args))
        yield args


def results(task, tasks, backend: str, n_jobs: int, *, scheduler: str | None = None,
            crash_log=None, n_tasks: int | None = None, what: str = "tasks"):
    """Run ``task(*args)`` for every ``args`` of ``tasks`` on ``backend``
    (``loky``, ``dask`` or ``sequential``) and yield, as tasks finish, what
    ``task`` returned (it must have an ``index``, the task's ``key``) or a
    :class:`MemberFailure`.

    ``task`` catches what its own work raises and returns a
    :class:`MemberFailure` for it, so an exception never travels through the
    pool; what still fails here (a dead worker, a result that cannot be
    pickled) becomes one, named by the ``index`` of the task's first
    argument.  ``scheduler`` is a Dask scheduler
    address (default: a local cluster of ``n_jobs`` processes).  ``n_tasks``
    (default: ``len(tasks)``; ``tasks`` may be an iterator that makes each
    task's arguments when it is submitted) caps ``n_jobs``
    (:func:`worker_count`, whose note calls the tasks ``what``).
    On one process and on loky, a task is taken from ``tasks`` as it
    starts (:func:`announced` hears when).

    A worker that dies (SIGKILL, the out-of-memory killer, a segfault) breaks
    a process pool, and nobody can tell which of the running members killed
    it.  With loky, at most ``n_jobs`` members are submitted at a time, so the
    ones in flight are exactly the running ones: each is reported as failed,
    and the members not yet started go on in a fresh pool.  With Dask the
    scheduler knows which task ran on the dead worker and runs it again
    elsewhere (:func:`_dask_results`).  Members already yielded are saved by
    the caller, so nothing finished is lost.
    """
    n_tasks = len(tasks) if n_tasks is None else n_tasks
    n_jobs = worker_count(backend, n_jobs, n_tasks, what, scheduler)
    if n_tasks == 0:
        return
    if backend == "sequential" or (backend == "loky" and n_jobs == 1):
        for args in tasks:
            yield task(*args)
        return
    if backend == "loky":
        yield from _loky_results(task, iter(tasks), n_jobs, crash_log)
        return
    yield from _dask_results(task, iter(tasks), n_jobs, scheduler)


#: Tasks in flight per Dask worker thread: one running, one waiting, so that
#: no worker idles while its next task travels.
DASK_AHEAD = 2


def _dask_results(task, tasks, n_jobs, scheduler=None, key=_first_index):
    """:func:`results` on a Dask cluster: ``scheduler``'s, or a local one of
    ``n_jobs`` processes on 127.0.0.1.

    Each task is one future (``client.submit``), at most :data:`DASK_AHEAD`
    per worker thread in flight.  When a worker dies, Dask runs its tasks
    again on another worker; a task whose workers die more often than
    ``distributed.scheduler.allowed-failures`` allows (default 3) fails with
    ``KilledWorker``, and becomes the :class:`MemberFailure` of that task
    alone while the others go on.  A scheduler that goes away (its process
    killed, its machine gone) cancels every future: the tasks yielded so far
    stay with the caller, and :class:`RunError` says what happened.
    Meanwhile distributed's own log records go to ``run.log``, not to the
    terminal.
    """
    try:
        import dask.distributed  # noqa: F401  (its loggers exist before they are moved)
    except ImportError:
        raise RunError("parallel.backend dask needs dask.distributed: "
                       "pip install 'committee[dask]'") from None

    with _distributed_logs_to_run_log():
        yield from _dask_futures(task, tasks, n_jobs, scheduler, key)


def _dask_client(n_jobs: int, scheduler: str | None):
    """``(client, cluster)``: a client of ``scheduler`` (cluster None), or of
    a local cluster of ``n_jobs`` processes on 127.0.0.1."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="30s"), None
        except OSError as exc:
            raise RunError(f"cannot reach the dask scheduler at {scheduler} ({one_line(exc)}); "
                           "start it, or check parallel.scheduler") from None
    cluster = LocalCluster(
        n_workers=n_jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
        # its HTTP server on a free port, not 8787 (another cluster's, Jupyter's)
        dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        # the workers' own records (a task cancelled, the scheduler gone while
        # the run stops) stay off the terminal
        silence_logs=logging.CRITICAL)
    return Client(cluster), cluster


def _dask_outcome(fut, k, address: str):
    """What the finished future ``fut`` of task ``k`` gives: its result, or
    the :class:`MemberFailure` of a worker that died or of a result that
    could not come back; a scheduler gone away (every future cancelled) is
    a :class:`RunError`."""
    from concurrent.futures import CancelledError

    from dask.distributed import KilledWorker

    try:
        return fut.result()
    except KilledWorker as exc:
        log.error("member %d: %s", k, one_line(exc))
        return MemberFailure(k, DASK_WORKER_DIED, one_line(exc))
    except CancelledError:  # the scheduler went away: every future is cancelled
        raise RunError(f"the dask scheduler at {address} went away while the members "
                       "ran; the members that finished are saved: rerun the same "
                       "command (with a scheduler) to train only the missing ones"
                       ) from None
    except Exception as exc:  # e.g. a result that cannot be pickled
        return MemberFailure(k, one_line(exc), "".join(traceback.format_exception(exc)))


def _dask_futures(task, tasks, n_jobs, scheduler, key):
    """:func:`_dask_results` once ``dask.distributed`` is imported."""
    import uuid

    from dask.distributed import as_completed

    _quiet_resource_trackers()
    client, cluster = _dask_client(n_jobs, scheduler)
    address = client.scheduler.address
    run_id = uuid.uuid4().hex[:8]  # task keys unique to this call on a shared cluster
    running: dict = {}  # future -> task index
    done = as_completed()

    def submit() -> bool:
        args = next(tasks, None)
        if args is None:
            return False
        k = key(args)
        fut = client.submit(task, *args, key=f"committee-{run_id}-{k}", pure=False)
        running[fut] = k
        done.add(fut)
        return True

    try:
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        for _ in range(DASK_AHEAD * max(threads, 1)):
            if not submit():
                break
        for fut in done:
            k = running.pop(fut)
            yield _dask_outcome(fut, k, address)
            submit()
    finally:
        _close_dask(client, cluster, running)


class _ToRunLog(logging.Handler):
    """Hands a record of another library's logger to ``committee.run``
    (whose handler writes ``run.log``)."""

    def emit(self, record):
        if log.isEnabledFor(record.levelno):
            log.handle(record)


@contextmanager
def _distributed_logs_to_run_log():
    """distributed (and tornado, under it) log to stderr through their own
    handlers; in here their records go to ``run.log`` instead, so that a
    failure reaches the terminal as the one line of docs/errors.md."""
    moved = []
    handler = _ToRunLog()
    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] not in ("distributed", "tornado"):
            continue
        logger = logging.getLogger(name)
        if logger.handlers:
            moved.append((logger, logger.handlers[:], logger.propagate))
            logger.handlers = [handler]
            logger.propagate = False
    try:
        yield
    finally:
        for logger, handlers, propagate in moved:
            logger.handlers = handlers
            logger.propagate = propagate


def _close_dask(client, cluster, running) -> None:
    """Cancel what still runs (stopped early: a failure, or Ctrl-C) and close
    the client, without waiting long for a scheduler that is gone."""
    try:
        if running and client.status == "running":
            client.cancel(list(running), force=True)
        client.close(timeout=5)
    except Exception:  # the scheduler is gone; nothing is left to cancel
        pass
    if cluster is not None:
        cluster.close()


_CRASH_LOG = None  # in a loky worker: the open run.log its crash reports go to


def _init_worker(crash_log, parent: int | None = None):
    """Loky worker initializer: the worker ends when its parent process
    ``parent`` dies (:func:`_end_with_parent`), and a crash in C code (a
    segfault) dumps the worker's Python stack into ``run.log`` instead of onto
    the user's terminal (loky keeps a faulthandler an initializer enabled)."""
    import faulthandler

    global _CRASH_LOG
    if parent is not None:
        _end_with_parent(parent)
    if crash_log is None:
        return
    try:
        _CRASH_LOG = open(crash_log, "a", encoding="utf-8")
    except OSError:
        return
    faulthandler.enable(file=_CRASH_LOG)


#: ``prctl`` option: the signal a process receives when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int) -> None:
    """On Linux, have the kernel SIGKILL this worker when the thread that
    started it ends: the parent's main thread, so when the parent dies,
    however it dies (SIGKILL included), or loky's manager thread for a
    replacement worker, which lives as long as the pool.  Without it, the
    worker of a killed parent would go on training, or wait forever on a
    pipe nobody reads.  A parent already gone ends the worker at once."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the pool's own shutdown stops the worker
        return
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)


def _quiet_resource_trackers() -> None:
    """Start the resource trackers of loky and multiprocessing, once per
    process, with their reports off.

    A tracker unlinks the named semaphores of a pool whose owner could not
    release them: a parent killed, or one that ended at once on a stop
    signal while its pool's threads still let go of theirs.  It then warns
    on the terminal ("There appear to be N leaked semlock objects"), after
    the one line that said why the command stopped; the cleanup is its job
    and nothing the user can act on.  A tracker takes its ``-W`` options
    from :data:`sys.warnoptions` when it starts.
    """
    import sys
    from multiprocessing import resource_tracker as mp_tracker

    from joblib.externals.loky.backend import resource_tracker as loky_tracker

    saved = list(sys.warnoptions)
    sys.warnoptions.append("ignore:resource_tracker:UserWarning")
    try:
        for tracker in (loky_tracker, mp_tracker):
            tracker.ensure_running()
    except Exception:  # no tracker here (not POSIX): nothing to quiet
        pass
    finally:
        sys.warnoptions[:] = saved


def _kill_pool(executor) -> None:
    """Stop a loky pool at once: its workers are killed and it shuts down.

    The workers are killed here rather than by ``shutdown(kill_workers=True)``,
    whose manager thread fails (a ``KeyError`` traceback on the terminal)
    when a task was submitted just before: it drops the pending tasks, then
    looks one of them up.  Here the pool ends as one whose workers died,
    the path a worker killed from outside takes (tests/test_faults.py)."""
    import signal

    processes = getattr(executor, "_processes", None)  # pid -> process
    if not isinstance(processes, dict):  # another loky: its own way, race and all
        executor.shutdown(wait=True, kill_workers=True)
        return
    for pid in list(processes):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:  # already gone
            pass
    executor.shutdown(wait=True)


def _loky_executor(workers: int, crash_log):
    """A fresh loky pool of ``workers`` processes (the reusable one, unless it
    broke), each started by :func:`_init_worker`."""
    from joblib.externals.loky import get_reusable_executor

    # as joblib does: BLAS/OpenMP threads share the cores among the workers
    threads = str(max(usable_cores() // workers, 1))
    env = {var: os.environ.get(var, threads) for var in (
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
    _quiet_resource_trackers()
    return get_reusable_executor(
        max_workers=workers, env=env, initializer=_init_worker,
        initargs=(None if crash_log is None else str(crash_log), os.getpid()))


def _loky_submit(executor, task, tasks, pending: list, running: dict, workers: int, key):
    """Submit tasks (``pending`` ones first) until ``workers`` run; returns the
    :class:`BrokenProcessPool` error when the pool broke since the last result
    (the task that found it is put back into ``pending``), else None."""
    from concurrent.futures.process import BrokenProcessPool

    while len(running) < workers:
        args = pending.pop() if pending else next(tasks, None)
        if args is None:
            return None
        try:
            running[executor.submit(task, *args)] = key(args)
        except BrokenProcessPool as exc:
            pending.append(args)
            return exc
    return None


#: How often a wait for members wakes up to act on signals (seconds).
WAKE_S = 0.5


def _loky_done(running: dict):
    """Wait for a task of ``running`` to finish; yield, in index order, the
    result of each that did, or its :class:`MemberFailure`.  Returns the
    :class:`BrokenProcessPool` error of a pool that broke, else None."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    broken = None
    done = set()
    while not done:
        # a timeout, so that the main thread wakes up twice a second: a stop
        # signal that the kernel gave another thread of the process (loky's
        # own) only sets a flag, which the main thread acts on when it runs
        done, _ = wait(running, timeout=WAKE_S, return_when=FIRST_COMPLETED)
    for fut in sorted(done, key=running.get):
        k = running.pop(fut)
        try:
            result = fut.result()
        except BrokenProcessPool as exc:
            broken = exc
            yield MemberFailure(k, WORKER_DIED, one_line(exc))
        except Exception as exc:  # e.g. a result that cannot be pickled
            yield MemberFailure(k, one_line(exc), "".join(traceback.format_exception(exc)))
        else:
            yield result
    return broken


def _loky_results(task, tasks, n_jobs, crash_log=None, key=_first_index):
    """:func:`results` on loky processes, at most ``n_jobs`` members in flight."""
    workers = usable_cores() if n_jobs == -1 else n_jobs
    pending: list = []  # tasks taken from ``tasks`` but not submitted
    running: dict = {}  # future -> member index
    executor = None
    stopped = True  # until every task is done
    try:
        with warnings.catch_warnings():
            # loky replaces a worker whose memory grew (the per-process
            # attribute cache does that); it says so, and nothing is lost
            warnings.filterwarnings("ignore", message="A worker stopped while some jobs")
            while True:
                if executor is None:
                    executor = _loky_executor(workers, crash_log)
                broken = _loky_submit(executor, task, tasks, pending, running, workers, key)
                if not running and broken is None:
                    stopped = False
                    return
                if running:
                    broken = (yield from _loky_done(running)) or broken
                if broken is not None:
                    # every member still in flight ran in the broken pool
                    for fut, k in sorted(running.items(), key=lambda item: item[1]):
                        yield MemberFailure(k, WORKER_DIED, one_line(broken))
                    running.clear()
                    log.error("a worker process died: %s; members not yet started go on "
                              "in a fresh pool", one_line(broken))
                    executor = None
    finally:
        # no worker outlives its pool: killed when stopped early (a failure, the
        # caller's GeneratorExit, a stop signal), let go when every task is done
        if executor is not None and stopped:
            _kill_pool(executor)
        elif executor is not None:
            executor.shutdown(wait=True)


_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def failed(failures: list[MemberFailure], out: Path, size: int, n_saved: int):
    """The error that ends a run in which members failed (the others are saved)."""
    from committee.pipeline.layout import LOG_FILE

    failures = sorted(failures, key=lambda f: f.index)
    shown = "; ".join(f"member {f.index}: {f.error}" for f in failures[:3])
    if len(failures) > 3:
        shown += f"; and {len(failures) - 3} more"
    what = (f"{len(failures)} of {count(size, 'member')} failed ({shown}); "
            f"{n_saved} {'is' if n_saved == 1 else 'are'} saved; details in {out / LOG_FILE}")
    if any(f.error in (WORKER_DIED, DASK_WORKER_DIED) for f in failures):
        what += ("; a worker dies when killed from outside, out of memory or by a crash in C "
                 "code, and every member running in the pool then fails with it")
    # a full disk also kills workers: crfsuite can crash on a model it could
    # not write whole before the check sees it
    if (any(f.errno in _DISK_ERRNOS for f in failures)
            and all(f.errno in _DISK_ERRNOS or f.error in (WORKER_DIED, DASK_WORKER_DIED)
                    for f in failures)):
        return OutputError(out, what, "free some space or fix the permissions, then rerun the "
                                      "same command: only the missing members are trained")
    return RunError(f"{what}; rerun the same command to train only the missing members")
