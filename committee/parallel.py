"""Worker pools: tasks (committee members, Table 2 models) run in parallel
on loky processes or a Dask cluster, and the records of those that fail.

Results are yielded as they arrive; callers assemble them by index, so the
order in which workers finish changes no output.  A task that raises, or
whose worker process dies (killed from outside, out of memory, a crash in C
code), becomes a :class:`MemberFailure` naming its index while the other
tasks go on; :func:`failed` turns the failures of a run into the one error
that ends it (docs/errors.md).
"""

from __future__ import annotations

import errno
import logging
import os
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from committee.errors import OutputError, RunError

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


def results(task, tasks, backend: str, n_jobs: int, *, scheduler: str | None = None,
            crash_log=None, key=_first_index):
    """Run ``task(*args)`` for every ``args`` of ``tasks`` on ``backend``
    (``loky``, ``dask`` or ``sequential``) and yield, as tasks finish, what
    ``task`` returned (it must have an ``index``, the task's ``key``) or a
    :class:`MemberFailure`.

    ``task`` catches what its own work raises and returns a
    :class:`MemberFailure` for it, so an exception never travels through the
    pool; what still fails here (a dead worker, a result that cannot be
    pickled) becomes one.  ``key(args)`` names a task (default: the
    ``index`` of its first argument).  ``scheduler`` is a Dask scheduler
    address (default: a local cluster of ``n_jobs`` processes).

    A worker that dies (SIGKILL, the out-of-memory killer, a segfault) breaks
    a process pool, and nobody can tell which of the running members killed
    it.  With loky, at most ``n_jobs`` members are submitted at a time, so the
    ones in flight are exactly the running ones: each is reported as failed,
    and the members not yet started go on in a fresh pool.  Members already
    yielded are saved by the caller, so nothing finished is lost.
    """
    if backend == "sequential" or (backend == "loky" and n_jobs == 1):
        for args in tasks:
            yield task(*args)
        return
    if backend == "loky":
        yield from _loky_results(task, iter(tasks), n_jobs, crash_log, key)
        return
    # dask: joblib's dask backend on a distributed.Client
    from joblib import Parallel, delayed, parallel_config

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RunError("parallel.backend dask needs dask.distributed: "
                       "pip install 'committee[dask]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="30s")
    else:
        workers = os.cpu_count() if n_jobs == -1 else n_jobs
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    tasks = iter(tasks)
    try:
        with parallel_config(backend="dask"):
            while True:
                # Dask retries a task whose worker died on another worker; an
                # error that still reaches us (e.g. KilledWorker) fails the
                # members handed out and not returned (joblib hands out a few
                # ahead, so some may not have started), and the rest go on.
                handed, done = [], set()

                def calls():
                    for args in tasks:
                        handed.append(key(args))
                        yield delayed(task)(*args)

                try:
                    for result in Parallel(n_jobs=-1, return_as="generator_unordered",
                                           pre_dispatch="n_jobs")(calls()):
                        done.add(result.index)
                        yield result
                    return
                except Exception as exc:
                    lost = [k for k in handed if k not in done]
                    if not lost:
                        raise
                    log.error("the dask cluster lost members %s: %s", lost, one_line(exc))
                    for k in sorted(lost):
                        yield MemberFailure(k, f"lost by the dask cluster: {one_line(exc)}")
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


_CRASH_LOG = None  # in a loky worker: the open run.log its crash reports go to


def _init_worker(crash_log):
    """Loky worker initializer: a crash in C code (a segfault) dumps the
    worker's Python stack into ``run.log`` instead of onto the user's terminal
    (loky keeps a faulthandler an initializer enabled)."""
    import faulthandler

    global _CRASH_LOG
    if crash_log is None:
        return
    try:
        _CRASH_LOG = open(crash_log, "a", encoding="utf-8")
    except OSError:
        return
    faulthandler.enable(file=_CRASH_LOG)


def _loky_results(task, tasks, n_jobs, crash_log=None, key=_first_index):
    """:func:`results` on loky processes, at most ``n_jobs`` members in flight."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    from joblib import cpu_count
    from joblib.externals.loky import get_reusable_executor

    workers = cpu_count() if n_jobs == -1 else n_jobs
    # as joblib does: BLAS/OpenMP threads share the cores among the workers
    threads = str(max(cpu_count() // workers, 1))
    env = {var: os.environ.get(var, threads) for var in (
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
    pending: list = []  # tasks taken from ``tasks`` but not submitted
    running: dict = {}  # future -> member index
    executor = None
    try:
        with warnings.catch_warnings():
            # loky replaces a worker whose memory grew (the per-process
            # attribute cache does that); it says so, and nothing is lost
            warnings.filterwarnings("ignore", message="A worker stopped while some jobs")
            while True:
                if executor is None:  # a fresh pool (the reusable one, unless it broke)
                    executor = get_reusable_executor(
                        max_workers=workers, env=env, initializer=_init_worker,
                        initargs=(None if crash_log is None else str(crash_log),))
                broken = None
                while len(running) < workers:
                    args = pending.pop() if pending else next(tasks, None)
                    if args is None:
                        break
                    try:
                        running[executor.submit(task, *args)] = key(args)
                    except BrokenProcessPool as exc:  # broke since the last result
                        pending.append(args)
                        broken = exc
                        break
                if not running and broken is None:
                    return
                if running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=running.get):
                        k = running.pop(fut)
                        try:
                            result = fut.result()
                        except BrokenProcessPool as exc:
                            broken = exc
                            yield MemberFailure(k, WORKER_DIED, one_line(exc))
                        except Exception as exc:  # e.g. a result that cannot be pickled
                            yield MemberFailure(k, one_line(exc), "".join(
                                traceback.format_exception(exc)))
                        else:
                            yield result
                if broken is not None:
                    # every member still in flight ran in the broken pool
                    for fut, k in sorted(running.items(), key=lambda item: item[1]):
                        yield MemberFailure(k, WORKER_DIED, one_line(broken))
                    running.clear()
                    log.error("a worker process died: %s; members not yet started go on "
                              "in a fresh pool", one_line(broken))
                    executor = None
    finally:
        if running and executor is not None:  # stopped early: the caller failed, or Ctrl-C
            executor.shutdown(wait=False, kill_workers=True)



_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def failed(failures: list[MemberFailure], out: Path, size: int, n_saved: int):
    """The error that ends a run in which members failed (the others are saved)."""
    failures = sorted(failures, key=lambda f: f.index)
    shown = "; ".join(f"member {f.index}: {f.error}" for f in failures[:3])
    if len(failures) > 3:
        shown += f"; and {len(failures) - 3} more"
    what = (f"{len(failures)} of {size} members failed ({shown}); {n_saved} are saved; "
            f"details in {out / 'run.log'}")
    if any(f.error == WORKER_DIED for f in failures):
        what += ("; a worker dies when killed from outside, out of memory or by a crash in C "
                 "code, and every member running in the pool then fails with it")
    # a full disk also kills workers: crfsuite can crash on a model it could
    # not write whole before the check sees it
    if (any(f.errno in _DISK_ERRNOS for f in failures)
            and all(f.errno in _DISK_ERRNOS or f.error == WORKER_DIED for f in failures)):
        return OutputError(out, what, "free some space or fix the permissions, then rerun the "
                                      "same command: only the missing members are trained")
    return RunError(f"{what}; rerun the same command to train only the missing members")
