"""``committee run``: from a validated config to the difficulty dataset.

Steps (METHOD.md §3, §4, §8):

1. read the training and test corpora named by the config;
2. claim ``output.dir`` (a fresh directory, or one holding a run of the very
   same config and corpora, which is resumed), holding its lock until the end
   (:mod:`committee.runlock`: another process writing it is refused);
3. draw the K members (each depends only on the seed and its index), train
   and decode the missing ones in parallel (joblib: loky, or Dask through
   joblib's dask backend), saving each finished member atomically as soon as
   it arrives, so an interrupted run loses at most the members in flight;
4. stack the members' marks in member order into ``marks.npz`` and write
   ``test.txt``, ``test.weight``, ``test.weight_c``, ``words.tsv`` and
   ``manifest.json``.

When things go wrong (``docs/errors.md``): a member that raises, or whose
worker process dies (killed from outside, out of memory, a crash in C code),
is reported by index while the other members go on and are saved; the run
then ends with :class:`~committee.errors.RunError` (exit 5) before writing
any output, and rerunning the same command trains only the missing members.
With loky at most ``n_jobs`` members are in flight, so a dead worker fails
exactly the members that were running (which one killed it cannot be told)
and the rest go on in a fresh pool.  A full disk or a read-only directory is
an :class:`~committee.errors.OutputError` (exit 6).  A killed run leaves only
whole files (every write is atomic); its temporary files are removed when it
resumes.

Every output file is a function of the config and the corpora only: members
are assembled in member order and nothing time- or worker-dependent enters
them, so the files are byte-identical whatever the number of workers or the
backend.  Timings go to ``run.log``.
"""

from __future__ import annotations

import base64
import errno
import json
import logging
import math
import os
import platform
import re
import shutil
import statistics
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import __version__
from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import features as features_mod
from committee import members as members_mod
from committee import runlock
from committee.errors import InputError, OutputError, PlausibilityWarning, RunError
from committee.fileio import atomic_write_text, sha256_bytes, write_npz

log = logging.getLogger("committee.run")

STATE_FILE = "run.json"
MEMBER_DIR = "members"
TMP_DIR = ".tmp"
OUTPUT_FILES = ("test.txt", "test.weight", "test.weight_c", "words.tsv", "marks.npz",
                "train-words.txt", "manifest.json")
#: Written when every member recorded its segmentation (``MemberResult.pred_ends``).
PREDICTIONS_FILE = "predictions.npz"
#: What ``committee report`` (committee.report) adds to a run directory.
REPORT_ENTRIES = {"report.md", "table2.csv", "report"}
OWN_ENTRIES = (set(OUTPUT_FILES) | {STATE_FILE, MEMBER_DIR, TMP_DIR, "run.log", "models",
                                    PREDICTIONS_FILE} | REPORT_ENTRIES)


@dataclass(frozen=True)
class RunInputs:
    """The corpora of a run, read once."""

    train: corpus_mod.Corpus
    test: corpus_mod.Corpus
    train_sentences: list[list[str]]
    vocabulary: set[str]
    vocabulary_source: dict


def load_source(source, cfg, key: str = "corpus.train") -> corpus_mod.Corpus:
    """Read one corpus source of the config (a file, or the built-in corpus);
    ``key`` names it in messages (``corpus.train`` or ``corpus.test``)."""
    if getattr(source, "builtin", None):
        return corpus_mod.read_embedded(source.split, normalization=source.normalization)
    try:
        return corpus_mod.read_corpus(cfg.resolve(source), format=source.format,
                                      encoding=source.encoding,
                                      normalization=source.normalization)
    except InputError as exc:  # a config sets the encoding, not a command-line flag
        message = re.sub(r"--encoding (\S+)", rf"{key}.encoding: \1", exc.message)
        message = message.replace("try --encoding with", f"set {key}.encoding to")
        raise InputError(exc.path, exc.line, message) from None


def load_inputs(cfg) -> RunInputs:
    train = load_source(cfg.corpus.train, cfg, "corpus.train")
    test = load_source(cfg.corpus.test, cfg, "corpus.test")
    train_sentences = [s for s in train.words if s]
    if not train_sentences:
        raise InputError(train.path, None, "the training corpus has no words")
    if test.n_words() == 0:
        raise InputError(test.path, None, "the test corpus has no words")
    if cfg.corpus.train_words:
        path = cfg.resolve(cfg.corpus.train_words)
        vocabulary = corpus_mod.read_word_list(path)
        norm = cfg.corpus.train.normalization
        if norm:
            vocabulary = {corpus_mod.normalize(w, norm) for w in vocabulary}
        from committee.fileio import sha256_file
        vsource = {"word_list": str(cfg.corpus.train_words), "sha256": sha256_file(path)}
    else:
        vocabulary = corpus_mod.training_words(train)
        vsource = {"training_corpus": True, "sha256": train.sha256}
    return RunInputs(train, test, train_sentences, vocabulary, vsource)


def run_fingerprint(cfg, inputs: RunInputs) -> str:
    """What decides a run's outputs: the config's recipe and the corpora's bytes."""
    parts = [cfg.fingerprint(), inputs.train.sha256, inputs.test.sha256,
             inputs.vocabulary_source["sha256"], __version__]
    return sha256_bytes("\n".join(parts).encode())


# --------------------------------------------------------------------------
# the output directory

def check_output_dir(out: Path, fingerprint: str, restart: bool) -> bool:
    """Refuse an ``out`` that cannot become ours (reading only); return
    whether it holds a run of another config to discard (``restart``)."""
    if out.exists() and not out.is_dir():
        raise RunError(f"output.dir {out} exists and is not a directory")
    state_path = out / STATE_FILE
    entries = [p for p in out.iterdir() if p.name != runlock.LOCK_FILE] if out.is_dir() else []
    if entries:
        foreign = sorted(p.name for p in entries
                         if p.name not in OWN_ENTRIES and not _is_leftover(p.name))
        if not state_path.exists() or foreign:
            shown = ", ".join(foreign[:3]) or "(no run.json)"
            raise RunError(f"output.dir {out} holds files that are not part of a committee "
                           f"run ({shown}); choose an empty or new output.dir")
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunError(f"{state_path}: unreadable run state ({exc}); "
                           "use --restart to start over") from None
        if state.get("fingerprint") != fingerprint:
            if not restart:
                raise RunError(
                    f"output.dir {out} holds a run of a different config or corpus "
                    f"(run {state.get('name')!r}, fingerprint {str(state.get('fingerprint'))[:12]}, "
                    f"now {fingerprint[:12]}); pass --restart to discard it, "
                    "or choose another output.dir")
            return True
    return False


def claim_output_dir(out: Path, fingerprint: str, name: str, restart: bool) -> None:
    """Make ``out`` ours: new, or a run of the same fingerprint (resumed).

    A directory holding a run of another config is refused unless
    ``restart``; one holding anything else is always refused.  The caller
    holds ``out``'s lock (:func:`committee.runlock.hold`).
    """
    if check_output_dir(out, fingerprint, restart):
        discard_run(out)
    state_path = out / STATE_FILE
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError.from_os_error(exc, out) from None
    _remove_leftovers(out)
    if not state_path.exists():
        try:
            atomic_write_text(state_path, json.dumps(
                {"name": name, "fingerprint": fingerprint, "version": __version__}, indent=2)
                + "\n")
        except OutputError:
            if created:  # leave nothing behind when not even run.json can be written
                shutil.rmtree(out, ignore_errors=True)
            raise
    # leftovers of a killed run: temporary models, unless their worker still runs
    runlock.clear_dir(out / TMP_DIR)


def _is_leftover(name: str) -> bool:
    """A temporary file of an atomic write (``.NAME.XXXX.tmp``) that a killed
    run left behind, for one of the run's own files."""
    return name.endswith(".tmp") and any(name.startswith(f".{own}.") for own in OWN_ENTRIES)


def _remove_leftovers(out: Path) -> None:
    """Delete what atomic writes interrupted by a kill left behind (never a
    finished file: those are renamed into place whole; never the file of a
    process that still runs: :func:`committee.runlock.is_removable`)."""
    for d in (out, out / MEMBER_DIR):
        if not d.is_dir():
            continue
        for p in d.iterdir():
            if (p.name.startswith(".") and p.name.endswith(".tmp") and p.is_file()
                    and runlock.is_removable(p.name)):
                p.unlink()


def discard_run(out: Path) -> None:
    """Remove a previous run's files (only the ones a run writes).
    ``manifest.json`` goes first: a run without it is not final."""
    for name in sorted(OWN_ENTRIES, key=lambda n: n != "manifest.json"):
        p = out / name
        if name == TMP_DIR:  # a live worker's temporary model stays
            runlock.clear_dir(p)
        elif p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


# --------------------------------------------------------------------------
# members on disk

def member_path(out: Path, k: int) -> Path:
    return out / MEMBER_DIR / f"member-{k:04d}.json"


def save_member(out: Path, result, member) -> None:
    """One finished member, atomically: its recipe, own scores and packed marks."""
    marks = np.asarray(result.marks, dtype=bool)
    record = {
        "index": member.index,
        "template": member.template,
        "ratio": member.ratio,
        "n_sentences": int(result.n_sentences),
        "n_gold": int(marks.size),
        "p": result.p, "r": result.r, "f1": result.f1,
        "marks": base64.b64encode(np.packbits(marks).tobytes()).decode("ascii"),
    }
    ends = getattr(result, "pred_ends", None)
    if ends is not None:  # its segmentation of the test set, for later analyses
        ends = np.asarray(ends, dtype=bool)
        record["n_chars"] = int(ends.size)
        record["pred_ends"] = base64.b64encode(np.packbits(ends).tobytes()).decode("ascii")
    atomic_write_text(member_path(out, member.index), json.dumps(record) + "\n")


def load_member(out: Path, member, n_gold: int) -> dict | None:
    """A saved member, or None when it is missing or does not belong to this run."""
    path = member_path(out, member.index)
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        packed = np.frombuffer(base64.b64decode(record["marks"]), dtype=np.uint8)
        marks = np.unpackbits(packed, count=n_gold).astype(bool)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("member %d: unreadable saved result (%s); training it again",
                    member.index, exc)
        return None
    if (record.get("template"), record.get("ratio"), record.get("n_gold")) != (
            member.template, member.ratio, n_gold):
        log.warning("member %d: saved result does not match this run; training it again",
                    member.index)
        return None
    record["marks"] = marks
    packed_ends = record.pop("pred_ends", None)
    record["pred_ends"] = None  # members saved before segmentations were recorded
    if packed_ends is not None and "n_chars" in record:
        try:
            packed = np.frombuffer(base64.b64decode(packed_ends), dtype=np.uint8)
            record["pred_ends"] = np.unpackbits(packed, count=int(record["n_chars"])).astype(bool)
        except (ValueError, TypeError):
            log.warning("member %d: unreadable saved segmentation; predictions.npz "
                        "will not be written", member.index)
    return record


# --------------------------------------------------------------------------
# parallel execution

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


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _member_task(member, sample, test_chars, test_words, algorithm, params, workdir,
                 keep_model):
    """Runs in a worker: train one member on its sample and decode the test set.

    Returns the :class:`~committee.members.MemberResult`, with the worker's
    peak resident memory so far (``peak_rss_mb``) added to its timings, or a
    :class:`MemberFailure` when the member raised: an exception never travels
    through the pool, so one failing member cannot stop the others.
    """
    try:
        result = members_mod.run_member(member, sample, test_chars, test_words, algorithm,
                                        params, workdir, keep_model=keep_model)
    except Exception as exc:  # reported by index; the other members go on
        return MemberFailure(member.index, _one_line(exc), traceback.format_exc(),
                             exc.errno if isinstance(exc, OSError) else None)
    result.timings["peak_rss_mb"] = _peak_rss_mb()
    return result


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


_WORKER_DIED = "its worker process died while it ran"


def _results(tasks, parallel_cfg, crash_log=None):
    """Yield, as members finish, a :class:`~committee.members.MemberResult` or a
    :class:`MemberFailure` for every task, on the configured backend.

    A worker that dies (SIGKILL, the out-of-memory killer, a segfault) breaks
    a process pool, and nobody can tell which of the running members killed
    it.  With loky, at most ``n_jobs`` members are submitted at a time, so the
    ones in flight are exactly the running ones: each is reported as failed,
    and the members not yet started go on in a fresh pool.  Members already
    yielded are saved by the caller, so nothing finished is lost.
    """
    backend, n_jobs = parallel_cfg.backend, parallel_cfg.n_jobs
    if backend == "sequential" or (backend == "loky" and n_jobs == 1):
        for args in tasks:
            yield _member_task(*args)
        return
    if backend == "loky":
        yield from _loky_results(iter(tasks), n_jobs, crash_log)
        return
    # dask: joblib's dask backend on a distributed.Client
    from joblib import Parallel, delayed, parallel_config

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RunError("parallel.backend dask needs dask.distributed: "
                       "pip install 'committee[dask]'") from None
    cluster = None
    if parallel_cfg.scheduler:
        client = Client(parallel_cfg.scheduler, timeout="30s")
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
                        handed.append(args[0].index)
                        yield delayed(_member_task)(*args)

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
                    log.error("the dask cluster lost members %s: %s", lost, _one_line(exc))
                    for k in sorted(lost):
                        yield MemberFailure(k, f"lost by the dask cluster: {_one_line(exc)}")
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


def _loky_results(tasks, n_jobs, crash_log=None):
    """:func:`_results` on loky processes, at most ``n_jobs`` members in flight."""
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
                        running[executor.submit(_member_task, *args)] = args[0].index
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
                            yield MemberFailure(k, _WORKER_DIED, _one_line(exc))
                        except Exception as exc:  # e.g. a result that cannot be pickled
                            yield MemberFailure(k, _one_line(exc), "".join(
                                traceback.format_exception(exc)))
                        else:
                            yield result
                if broken is not None:
                    # every member still in flight ran in the broken pool
                    for fut, k in sorted(running.items(), key=lambda item: item[1]):
                        yield MemberFailure(k, _WORKER_DIED, _one_line(broken))
                    running.clear()
                    log.error("a worker process died: %s; members not yet started go on "
                              "in a fresh pool", _one_line(broken))
                    executor = None
    finally:
        if running and executor is not None:  # stopped early: the caller failed, or Ctrl-C
            executor.shutdown(wait=False, kill_workers=True)


# --------------------------------------------------------------------------
# the run

def difficulty_signature(cfg, inputs: RunInputs) -> str:
    """A citable string naming everything the difficulties depend on."""
    c = cfg.committee
    params = ",".join(f"{k}={v}" for k, v in sorted(cfg.crf.trainer_params().items()))
    return "|".join([
        "committee-difficulty",
        f"test:sha256={inputs.test.sha256[:12]}",
        f"train:sha256={inputs.train.sha256[:12]}",
        f"K:{c.size}",
        f"templates:{','.join(c.templates)}",
        f"ratios:{','.join(str(r) for r in c.ratios)}",
        f"draw:{c.draw}",
        f"seed:{c.seed}",
        f"crf:{cfg.crf.algorithm}({params})",
        f"norm:{cfg.corpus.train.normalization or 'none'}",
        f"version:{__version__}",
    ])


def _versions() -> dict:
    import importlib.metadata as md

    out = {"committee": __version__, "python": platform.python_version()}
    for dist in ("numpy", "python-crfsuite", "joblib", "pandas", "pyyaml"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = None
    return out


class _RunLogHandler(logging.FileHandler):
    """``run.log``: a record that cannot be written (a full disk) is dropped
    quietly; the error that matters reaches the user through the run itself."""

    def handleError(self, record):
        pass


def _setup_log(out: Path) -> logging.Handler:
    try:
        handler = _RunLogHandler(out / "run.log", encoding="utf-8")
    except OSError as exc:
        raise OutputError.from_os_error(exc, out / "run.log") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return handler


def run(cfg, restart: bool = False, progress: bool = True) -> Path:
    """Run (or resume) the committee of ``cfg``; return the output directory.

    ``output.dir`` has one owner: another process writing it is refused
    (:mod:`committee.runlock`) before the corpora are read."""
    out = Path(cfg.output.dir)
    runlock.check_free(out, "committee run")
    inputs = load_inputs(cfg)
    experiments = getattr(cfg, "experiments", None)
    report_mod = None
    if experiments is not None and experiments.enabled():
        from committee import report as report_mod

        report_mod.check_experiments(cfg)  # missing files or segmenters: before any training
    fingerprint = run_fingerprint(cfg, inputs)
    check_output_dir(out, fingerprint, restart)  # a refused run writes nothing, not even a lock
    with runlock.hold(out, "committee run", create=True):
        claim_output_dir(out, fingerprint, cfg.name, restart)
        handler = _setup_log(out)
        try:
            out = _run(cfg, inputs, out, fingerprint, progress)
            if report_mod is not None:
                report_mod.build_report(out, cfg, inputs=inputs, progress=progress)
            return out
        finally:
            log.removeHandler(handler)
            handler.close()


def _run(cfg, inputs: RunInputs, out: Path, fingerprint: str, progress: bool) -> Path:
    from tqdm import tqdm

    c = cfg.committee
    test_words = inputs.test.words
    test_chars = ["".join(s) for s in test_words]
    n_gold = inputs.test.n_words()
    n_train = len(inputs.train_sentences)
    committee = members_mod.draw_committee(c.size, n_train, c.templates, c.ratios,
                                           draw=c.draw, seed=c.seed)
    records: dict[int, dict] = {}
    for m in committee:
        rec = load_member(out, m, n_gold)
        if rec is not None:
            records[m.index] = rec
    # Largest first (members cost about ratio x attributes per character), so
    # that the last members to finish are small ones and workers end together.
    # Results are assembled by index, so the order changes no output.
    todo = sorted((m for m in committee if m.index not in records),
                  key=lambda m: (-m.ratio * features_mod.n_attributes(m.template), m.index))
    log.info("run %s: K=%d, %d members saved, %d to train; backend %s, n_jobs %s",
             cfg.name, c.size, len(records), len(todo), cfg.parallel.backend,
             cfg.parallel.n_jobs)
    workdir = out / TMP_DIR
    workdir.mkdir(exist_ok=True)
    keep = cfg.output.keep_models

    def tasks():
        for m in todo:
            idx = members_mod.member_sample(m, n_train, c.seed)
            sample = [inputs.train_sentences[i] for i in idx]
            yield (m, sample, test_chars, test_words, cfg.crf.algorithm,
                   cfg.crf.trainer_params(), str(workdir), keep)

    by_index = {m.index: m for m in committee}
    bar = tqdm(total=c.size, initial=len(records), unit="member", desc=cfg.name,
               disable=not progress, dynamic_ncols=True)
    started = time.monotonic()
    failures: list[MemberFailure] = []
    try:
        for result in _results(tasks(), cfg.parallel, crash_log=out / "run.log"):
            if isinstance(result, MemberFailure):
                failures.append(result)
                log.error("member %d failed: %s\n%s", result.index, result.error,
                          result.detail.rstrip())
                continue
            m = by_index[result.index]
            save_member(out, result, m)
            records[m.index] = load_member(out, m, n_gold)
            t = getattr(result, "timings", {}) or {}
            log.info("member %d (%s, ratio %s, %d sentences): f1 %.4f; %s",
                     m.index, m.template, m.ratio, result.n_sentences, result.f1,
                     ", ".join(f"{k} {v:.1f}" for k, v in sorted(t.items())))
            bar.update(1)
    finally:
        bar.close()
    log.info("members trained in %.1f s", time.monotonic() - started)
    if keep:
        kept = workdir / "models"
        if kept.exists():
            (out / "models").mkdir(exist_ok=True)
            for f in kept.iterdir():
                os.replace(f, out / "models" / f.name)
    runlock.clear_dir(workdir)
    if failures:
        raise _failed(failures, out, c.size, len(records))
    _warn_weak_members(committee, records)
    write_outputs(cfg, inputs, out, committee, records, fingerprint)
    log.info("wrote %s", ", ".join(OUTPUT_FILES))
    return out


#: A member whose f1 is more than this below the committee's median draws a warning.
WEAK_MEMBER_GAP = 0.1

_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def _failed(failures: list[MemberFailure], out: Path, size: int, n_saved: int):
    """The error that ends a run in which members failed (the others are saved)."""
    failures = sorted(failures, key=lambda f: f.index)
    shown = "; ".join(f"member {f.index}: {f.error}" for f in failures[:3])
    if len(failures) > 3:
        shown += f"; and {len(failures) - 3} more"
    what = (f"{len(failures)} of {size} members failed ({shown}); {n_saved} are saved; "
            f"details in {out / 'run.log'}")
    if any(f.error == _WORKER_DIED for f in failures):
        what += ("; a worker dies when killed from outside, out of memory or by a crash in C "
                 "code, and every member running in the pool then fails with it")
    # a full disk also kills workers: crfsuite can crash on a model it could
    # not write whole before the check sees it
    if (any(f.errno in _DISK_ERRNOS for f in failures)
            and all(f.errno in _DISK_ERRNOS or f.error == _WORKER_DIED for f in failures)):
        return OutputError(out, what, "free some space or fix the permissions, then rerun the "
                                      "same command: only the missing members are trained")
    return RunError(f"{what}; rerun the same command to train only the missing members")


def _warn_weak_members(committee, records, gap: float = WEAK_MEMBER_GAP) -> None:
    """Warn about members whose f1 is more than ``gap`` below the committee median.

    Such a member (an undefined f1 counts as one) is most likely broken: a
    sample that is far too small, a bad CRF parameter; it makes every word
    look harder.  Needs three members or more.
    """
    if len(committee) < 3:
        return
    f1 = {m.index: records[m.index].get("f1") for m in committee}
    ok = [v for v in f1.values() if isinstance(v, (int, float)) and math.isfinite(v)]
    if not ok:
        return
    median = statistics.median(ok)
    weak = [(k, v) for k, v in f1.items()
            if not (isinstance(v, (int, float)) and math.isfinite(v)) or v < median - gap]
    if not weak:
        return
    shown = ", ".join(f"{k} (f1 {v:.3f})" if isinstance(v, (int, float)) and math.isfinite(v)
                      else f"{k} (f1 undefined)" for k, v in weak[:5]) + (f" and {len(weak) - 5} more" if len(weak) > 5 else "")
    message = (f"member{'s' if len(weak) > 1 else ''} {shown} of {len(committee)} "
               f"score{'' if len(weak) > 1 else 's'} more than "
               f"{gap} f1 below the committee median {median:.3f}: check committee.ratios and "
               "crf.params (a weak member makes every word look harder)")
    log.warning(message)
    warnings.warn(PlausibilityWarning(message), stacklevel=3)


def write_outputs(cfg, inputs: RunInputs, out: Path, committee, records, fingerprint) -> None:
    """The difficulty dataset, from the saved members (in member order)."""
    marks = np.stack([records[m.index]["marks"] for m in committee])
    d, n_correct = difficulty_mod.difficulties(marks)
    test = inputs.test
    oov = np.fromiter((w not in inputs.vocabulary for s in test.words for w in s),
                      dtype=bool, count=marks.shape[1])
    corpus_mod.write_sighan(out / "test.txt", test.words)
    atomic_write_text(out / "train-words.txt", "".join(w + "\n" for w in sorted(inputs.vocabulary)))
    difficulty_mod.write_weight(out / "test.weight", test, d)
    difficulty_mod.write_weight_c(out / "test.weight_c", test, d)
    difficulty_mod.write_words_tsv(out / "words.tsv", test, d, n_correct, oov=oov)
    write_npz(out / "marks.npz", marks=marks)
    ends = [records[m.index].get("pred_ends") for m in committee]
    if all(e is not None for e in ends):
        # every member's segmentation of the test set (packed bits, member order)
        write_npz(out / PREDICTIONS_FILE, n_chars=np.int64(ends[0].size),
                  pred_ends=np.stack([np.packbits(e) for e in ends]))
    elif (out / PREDICTIONS_FILE).exists():
        (out / PREDICTIONS_FILE).unlink()
    signature = difficulty_signature(cfg, inputs)
    hist = np.bincount(np.minimum((d * 10 + 1e-9).astype(int), 9), minlength=10)
    config = cfg.to_dict(resolved=False)
    # how and where it ran does not change what it made: keep the outputs
    # byte-identical across backends, worker counts and output directories
    config.pop("parallel", None)
    config.pop("output", None)
    manifest = {
        "name": cfg.name,
        "signature": signature,
        "fingerprint": fingerprint,
        "config": config,
        "seeds": {"seed": cfg.committee.seed,
                  "member_rng": "numpy.random.default_rng(SeedSequence(seed, spawn_key=(k,)))"},
        "corpus": {
            "train": _corpus_summary(inputs.train, len(inputs.train_sentences)),
            "test": _corpus_summary(test, len(test.words)),
            "vocabulary": inputs.vocabulary_source | {"words": len(inputs.vocabulary)},
            "test_oov_rate": float(oov.mean()),
        },
        "committee": {"size": len(committee), "members": [
            {k: records[m.index][k] for k in ("index", "template", "ratio", "n_sentences",
                                              "p", "r", "f1")}
            for m in committee]},
        "difficulty": {"n_words": int(d.size), "mean": float(d.mean()),
                       "histogram": hist.tolist(),
                       "bins": "[0,0.1), [0.1,0.2), ..., [0.9,1.0]"},
        "files": {name: None for name in OUTPUT_FILES if name != "manifest.json"},
        "versions": _versions(),
    }
    if (out / PREDICTIONS_FILE).exists():
        manifest["files"][PREDICTIONS_FILE] = None
    for name in manifest["files"]:
        manifest["files"][name] = sha256_bytes((out / name).read_bytes())
    atomic_write_text(out / "manifest.json",
                      json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def _corpus_summary(c: corpus_mod.Corpus, n_sentences: int) -> dict:
    return {"path": c.path if not c.path.startswith("/") else os.path.basename(c.path),
            "sha256": c.sha256, "sentences": n_sentences, "words": c.n_words(),
            "characters": sum(len(w) for s in c.words for w in s)}
