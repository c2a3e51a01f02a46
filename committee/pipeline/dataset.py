"""``committee run``: from a validated config to the difficulty dataset.

Steps (docs/method.md §3, §4, §8):

1. read the training and test corpora named by the config;
2. claim ``output.dir`` (:func:`committee.pipeline.layout.claim_output_dir`: a fresh
   directory, or one holding a run of the very same config and corpora,
   which is resumed), holding its lock until the end
   (:mod:`committee.pipeline.lock`: another process writing it is refused);
3. draw the K members (each depends only on the seed and its index), train
   and decode the missing ones in parallel (:mod:`committee.system.pools`: loky,
   or a Dask cluster), saving each finished member
   atomically as soon as it arrives (:func:`committee.pipeline.marks.save_member`),
   so an interrupted run loses at most the members in flight;
4. stack the members' marks in member order into ``marks.npz`` and write
   ``test.txt``, ``test.weight``, ``test.weight_c``, ``words.tsv`` and
   ``manifest.json``.

The report's analyses are not run here: :func:`committee.pipeline.workflow.run` runs
them after this module's :func:`run`.

When things go wrong (``docs/errors.md``): a member that raises, or whose
worker process dies (killed from outside, out of memory, a crash in C code),
is reported by index while the other members go on and are saved; the run
then ends with :class:`~committee.errors.RunError` (exit 5) before writing
any output, and rerunning the same command trains only the missing members.
With loky at most ``n_jobs`` members are in flight, so a dead worker fails
exactly the members that were running (which one killed it cannot be told)
and the rest go on in a fresh pool; with Dask, a member fails when its
workers died more often than Dask allows, and a scheduler that goes away
ends the run with one line, the finished members saved.  A full disk or a read-only directory is
an :class:`~committee.errors.OutputError` (exit 6).  A killed run leaves only
whole files (every write is atomic); its temporary files are removed when it
resumes, unless their owner still runs (:func:`committee.system.files.is_removable`).

Every output file is a function of the config and the corpora only: members
are assembled in member order and nothing time- or worker-dependent enters
them, so the files are byte-identical whatever the number of workers or the
backend.  Timings go to ``run.log``.
"""

from __future__ import annotations

import logging
import math
import os
import statistics
import sys
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import __version__
from committee.metrics import difficulty_stats
from committee.pipeline import difficulty as difficulty_mod
from committee.learners import features as features_mod
from committee.pipeline import marks as marks_mod
from committee.learners import members as members_mod
from committee.system import pools
from committee.pipeline import layout
from committee.pipeline import lock as lock_mod
from committee import tasks as tasks_mod
from committee.errors import CommitteeError, PlausibilityWarning
from committee.system.files import atomic_write_text, clear_dir, sha256_bytes, write_npz
from committee.system.process import CostBar
from committee.pipeline.layout import OUTPUT_FILES, PREDICTIONS_FILE
from committee.pipeline.unitfiles import UnitFiles
from committee.pipeline import runfiles, runmanifest
# the corpora and the signature have modules of their own; their names stay here too
from committee.pipeline.runinputs import (RunInputs, load_corpora, load_inputs, load_recorded,
                                          load_source)
from committee.pipeline.runmanifest import difficulty_signature

#: What this module offers: :func:`run` and the parts of a run others use.
__all__ = ["RunInputs", "WEAK_MEMBER_GAP", "auto_bar_total", "check_committee",
           "difficulty_signature", "load_corpora", "load_inputs", "load_recorded",
           "load_source", "run", "run_fingerprint", "write_outputs"]

log = logging.getLogger("committee.run")

def check_committee(cfg, inputs: RunInputs, where: str = "<config>") -> None:
    """The committee of ``cfg`` against its corpora, before anything is
    drawn or written (:func:`committee.learners.members.check_committee`): members
    that would be identical and a committee that cannot fit in memory are
    refused (a :class:`~committee.errors.ConfigError` of ``where``, the
    config's file), a grid that leaves cells out is warned about."""
    c = cfg.committee
    test = inputs.test
    members_mod.check_committee(
        c.largest, c.templates, c.ratios, c.draw, n_train=len(inputs.train_sentences),
        n_words=inputs.n_units(), n_chars=sum(len(w) for s in test.words for w in s),
        where=where)


def run_fingerprint(cfg, inputs: RunInputs, members: bool = False) -> str:
    """What decides a run's outputs: the config's recipe and the corpora's
    content (their words, whatever their file's encoding).  ``members``:
    what decides its members, whatever the committee's size (a run of
    another size in the same directory keeps them)."""
    parts = [cfg.fingerprint(members=members), inputs.train.content_sha256,
             inputs.test.content_sha256, inputs.vocabulary_source["sha256"], __version__]
    return sha256_bytes("\n".join(parts).encode())


# --------------------------------------------------------------------------
# members in workers

def _member_task(task: members_mod.MemberJob):
    """Runs in a worker: train one member on its sample and decode the test set.

    Returns the :class:`~committee.learners.members.MemberResult`, with the worker's
    peak resident memory so far (``peak_rss_mb``) added to its timings, or a
    :class:`~committee.system.pools.MemberFailure` when the member raised: an exception never travels
    through the pool, so one failing member cannot stop the others.
    """
    try:
        result = task.run()
    except Exception as exc:  # reported by index; the other members go on
        return pools.MemberFailure(task.index, pools.one_line(exc), traceback.format_exc(),
                             exc.errno if isinstance(exc, OSError) else None)
    result.timings["peak_rss_mb"] = pools.peak_rss_mb()
    return result


def _member_tasks(cfg, inputs: RunInputs, todo, workdir: Path):
    """One :class:`~committee.learners.members.MemberJob` per member of ``todo``
    (each as the argument tuple of :func:`_member_task`), made as the pool
    takes it: a member's sample exists only while it is submitted."""
    n_train = len(inputs.train_sentences)
    task = tasks_mod.get(inputs.task)
    test_items = [task.items(s) for s in inputs.test.words]  # characters, or gold words
    for m in todo:
        idx = members_mod.member_sample(m, n_train, cfg.committee.seed)
        yield (members_mod.MemberJob(
            m, [inputs.train_sentences[i] for i in idx], test_items, inputs.units,
            cfg.crf.algorithm, cfg.crf.trainer_params(), str(workdir),
            cfg.output.keep_models, cfg.crf.trainer, inputs.task),)



# --------------------------------------------------------------------------
# the run

def run(cfg, restart: bool = False, progress: bool = True, inputs: RunInputs | None = None,
        where: str = "<config>") -> Path:
    """Run (or resume) the committee of ``cfg``; return the output directory.

    ``inputs`` are its corpora when already read (:func:`load_inputs`);
    ``where`` names the config in messages (its file).
    ``output.dir`` has one owner: another process writing it is refused
    (:mod:`committee.pipeline.lock`), and a refused run writes nothing.
    """
    out = Path(cfg.output.dir)
    lock_mod.check_free(out, lock_mod.RUN)  # before the corpora are read
    if inputs is None:
        inputs = load_inputs(cfg)
    check_committee(cfg, inputs, where)
    fingerprint = run_fingerprint(cfg, inputs)
    members = run_fingerprint(cfg, inputs, members=True)
    # refused: not even a lock is written
    layout.check_output_dir(out, fingerprint, restart, members)
    with lock_mod.hold(out, lock_mod.RUN, create=True):
        layout.claim_output_dir(out, fingerprint, cfg.name, restart, members)
        handler = layout.open_log(out)
        try:
            return _run(cfg, inputs, out, fingerprint, progress)
        except Exception as exc:  # readers say it stopped on this, not that it was interrupted
            layout.record_stop(out, _stop_message(exc))
            raise
        finally:
            layout.close_log(handler)


def _stop_message(exc: Exception) -> str:
    """One line for ``run.json`` saying what stopped a run and what to do."""
    if isinstance(exc, CommitteeError):
        return " ".join(str(exc).split())
    return f"{pools.one_line(exc)}; rerun the same committee run to finish it"


def _run(cfg, inputs: RunInputs, out: Path, fingerprint: str, progress: bool) -> Path:
    c = cfg.committee
    n_train = len(inputs.train_sentences)
    drawn = members_mod.draw_committee(c.largest, n_train, c.templates, c.ratios,
                                       draw=c.draw, seed=c.seed)
    records = _saved_members(out, drawn, inputs.n_units())
    to_train = "" if c.auto else f", {c.size - len(records)} to train"
    log.info("run %s: K=%s, %d members saved%s; backend %s, n_jobs %s", cfg.name,
             f"auto (at most {c.max_size})" if c.auto else c.size, len(records), to_train,
             cfg.parallel.backend, cfg.parallel.n_jobs)
    if records:
        print(f"committee: resuming {out}: {len(records)} member{'s' * (len(records) != 1)} "
              f"saved{to_train}", file=sys.stderr, flush=True)
    judged = _check_first(cfg, records, n_train)
    workdir = layout.paths(out).tmp
    workdir.mkdir(exist_ok=True)
    started = time.monotonic()
    first = min(c.stable.min_size, c.max_size) if c.auto else c.size
    if c.auto:
        first = auto_bar_total(first, len(records), c.stable.round, len(drawn))
    bar = member_bar(drawn, records, first, cfg.name, progress)
    try:
        training = Training(cfg, inputs, out, drawn, records, workdir, bar)
        if c.auto:
            size, stability, failures = _grow(training, judged)
        else:
            size, stability = c.size, None
            failures = _train_members(training, _todo(drawn, records), judged)
    finally:
        bar.close()
    log.info("members trained in %.1f s", time.monotonic() - started)
    if cfg.output.keep_models:
        _keep_models(workdir, out)
    clear_dir(workdir)  # a live worker's temporary model stays (a killed run's worker)
    committee = drawn[:size]
    if failures:
        raise pools.failed(failures, out, size, len(records))
    if stability is not None:
        _say_stability(cfg, stability)
    _warn_weak_members(committee, records)
    write_outputs(cfg, inputs, out, committee, records, fingerprint, stability)
    log.info("wrote %s", ", ".join(OUTPUT_FILES))
    return out


@dataclass(frozen=True)
class Training:
    """A run's members in training: its config, corpora and directory
    ``out``, the members ``drawn`` (a committee of the largest size, in
    member order), the ``records`` of those saved so far (by index; filled
    as members arrive), the ``workdir`` of the members' temporary files and
    the progress ``bar`` (:func:`member_bar`)."""

    cfg: object
    inputs: RunInputs
    out: Path
    drawn: list
    records: dict
    workdir: Path
    bar: object


def _todo(committee, records: dict) -> list:
    """The members of ``committee`` not saved yet, largest first (members
    cost about ratio x attributes per character), so that the last to
    finish are small ones and workers end together.  Results are assembled
    by index, so the order changes no output."""
    return sorted((m for m in committee if m.index not in records),
                  key=lambda m: (-m.ratio * features_mod.n_attributes(m.template), m.index))


def _grow(training: Training, judged: bool) -> tuple[int, dict, list]:
    """``size: auto``: train the members of ``drawn`` in order, round by
    round, until the split-half reliability of the difficulties of the
    first k reaches the target (:func:`committee.metrics.difficulty_stats.reliability`) or
    k is ``max_size``.  Returns k, the stability record of the manifest and
    the members that failed.  The first k members are those of a run of
    ``size: k``: which round trained them changes nothing."""
    cfg, inputs, drawn, records, bar = (training.cfg, training.inputs, training.drawn,
                                        training.records, training.bar)
    c = cfg.committee
    target, k, by_size = c.stable.reliability, min(c.stable.min_size, len(drawn)), {}
    while True:
        failures = _train_members(training, _todo(drawn[:k], records), judged)
        if failures:
            return k, {}, failures
        # the first members judged once enough have finished, whichever round they came in
        judged = judged or _check_first(cfg, records, len(inputs.train_sentences))
        value = difficulty_stats.reliability(marks_mod.stack(drawn[:k], records))
        by_size[str(k)] = value
        needed = difficulty_stats.members_needed(k, value, target)
        reached = value is not None and value >= target
        log.info("K=%d: split-half reliability %s (target %s; about %s members needed)", k,
                 value, target, needed if needed is not None else "?")
        bar.note(f"reliability {'?' if value is None else f'{value:.4f}'} (target {target})")
        if reached or k >= len(drawn):
            bar.expect(k)  # every member expected is done
            break
        k = min(len(drawn), k + c.stable.round)
        bar.expect(auto_bar_total(max(k, needed or len(drawn)), len(records), c.stable.round,
                                  len(drawn)))
    return k, {"measure": "split-half reliability (Spearman-Brown; even and odd members)",
               "target": target, "reached": reached, "size": k, "value": value,
               "max_size": c.max_size, "by_size": by_size}, []


def member_bar(drawn, records: dict, expected: int, desc: str, progress: bool,
               file=None) -> CostBar:
    """The progress bar of the members of ``drawn`` in training, counted in
    their expected cost (:func:`committee.learners.features.training_cost`
    of each member's sample and template) up to the first ``expected``
    members; the members ``records`` holds (saved by an earlier run) start
    it done.  Its time left is the cost left at the rate measured since it
    started."""
    costs = {m.index: features_mod.training_cost(m.n_sentences, m.template) for m in drawn}
    return CostBar(costs, desc=desc, unit="member", disable=not progress,
                   done=[i for i in records if i in costs], expected=expected, file=file)


def auto_bar_total(expected: int, saved: int, step: int, largest: int) -> int:
    """The members the progress bar of a ``size: auto`` run counts to, when
    it expects ``expected`` members (a round's size, or the estimate of the
    members needed) and ``saved`` are done (the bar starts at ``saved``): a
    resumed run's saved members count as done, and while they reach
    ``expected`` the bar counts to a later round's size instead, ``step``
    members apart; at most the ``largest`` committee.

    >>> auto_bar_total(4, 0, 10, 20)      # a new run: its first round
    4
    >>> auto_bar_total(4, 12, 10, 20)     # 12 saved: the round of 14 trains the next ones
    14
    >>> auto_bar_total(20, 12, 10, 20)    # 20 members estimated: 12 of 20 done
    20
    >>> auto_bar_total(4, 20, 10, 20)     # every member saved
    20
    """
    while expected <= saved and expected < largest:
        expected += step
    return max(min(expected, largest), saved)


def _say_stability(cfg, stability: dict) -> None:
    """One line on where a ``size: auto`` run stopped; a warning when it
    stopped at ``max_size`` short of its target."""
    k, value, target = stability["size"], stability["value"], stability["target"]
    shown = "undefined" if value is None else f"{value:.4f}"
    if stability["reached"]:
        message = f"stable at K = {k}: split-half reliability {shown} >= {target}"
        log.info(message)
        print(f"committee: {message}", file=sys.stderr, flush=True)
        return
    message = (f"committee.size: auto stopped at committee.max_size = {k} with split-half "
               f"reliability {shown}, short of committee.stable.reliability {target}: raise "
               "committee.max_size, or accept a lower target")
    log.warning(message)
    warnings.warn(PlausibilityWarning(message), stacklevel=3)


def _saved_members(out: Path, committee, n_gold: int) -> dict[int, dict]:
    """The records of the members a previous run of ``out`` saved, by index."""
    records: dict[int, dict] = {}
    for m in committee:
        rec = marks_mod.load_member(out, m, n_gold)
        if rec is not None:
            records[m.index] = rec
    return records


def _train_members(training: Training, todo, judged: bool) -> list[pools.MemberFailure]:
    """Train the members of ``todo`` in the pool, saving each as it arrives
    (into ``training.records`` too) and, until ``judged``, judging the first
    ones (:func:`_check_first`); returns the members that failed."""
    if not todo:
        return []
    cfg, inputs, out, committee, records, workdir, bar = (
        training.cfg, training.inputs, training.out, training.drawn, training.records,
        training.workdir, training.bar)
    n_train, n_gold = len(inputs.train_sentences), inputs.n_units()
    by_index = {m.index: m for m in committee}
    failures: list[pools.MemberFailure] = []
    tasks = pools.announced(_member_tasks(cfg, inputs, todo, workdir), cfg.parallel.backend,
                            bar.started)
    pool = pools.results(_member_task, tasks, cfg.parallel.backend, cfg.parallel.n_jobs,
                            scheduler=cfg.parallel.scheduler, crash_log=layout.paths(out).log,
                            n_tasks=len(todo), what="members")
    try:
        for result in pool:
            if isinstance(result, pools.MemberFailure):
                bar.stopped(result.index)
                failures.append(result)
                log.error("member %d failed: %s\n%s", result.index, result.error,
                          result.detail.rstrip())
                continue
            m = by_index[result.index]
            marks_mod.save_member(out, result, m)
            records[m.index] = marks_mod.load_member(out, m, n_gold)
            t = getattr(result, "timings", {}) or {}
            log.info("member %d (%s, ratio %s, %d sentences): f1 %.4f; %s",
                     m.index, m.template, m.ratio, result.n_sentences, result.f1,
                     ", ".join(f"{k} {v:.1f}" for k, v in sorted(t.items())))
            bar.done(m.index)
            judged = judged or _check_first(cfg, records, n_train)
    finally:
        pool.close()  # stops the workers (killed if the loop ended early: a failure, a signal)
    return failures


def _keep_models(workdir: Path, out: Path) -> None:
    """Move the models the members kept in ``workdir`` into the run's models directory."""
    kept = workdir / layout.MODELS_DIR
    if kept.exists():
        (out / layout.MODELS_DIR).mkdir(exist_ok=True)
        for f in kept.iterdir():
            os.replace(f, out / layout.MODELS_DIR / f.name)


def _check_first(cfg, records: dict, n_train: int) -> bool:
    """:func:`committee.learners.members.check_first_members` on the members saved so far."""
    from committee.config import source_description

    return members_mod.check_first_members(
        [r.get("f1") for r in records.values()], cfg.committee.largest,
        f"corpus.train {source_description(cfg.corpus.train)}",
        f"corpus.test {source_description(cfg.corpus.test)}",
        samples=[(r.get("n_sentences", 0), r.get("ratio", 0.0)) for r in records.values()],
        n_train=n_train, task=tasks_mod.get(cfg.task))


#: A member whose f1 is more than this below the committee's median draws a warning.
WEAK_MEMBER_GAP = 0.1

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


def write_outputs(cfg, inputs: RunInputs, out: Path, committee, records, fingerprint,
                  stability: dict | None = None) -> None:
    """The difficulty dataset, from the saved members (in member order)."""
    p = layout.paths(out)
    marks = marks_mod.stack(committee, records)
    d, n_correct = difficulty_mod.difficulties(marks)
    test = inputs.test
    atomic_write_text(p.train_words, "".join(w + "\n" for w in sorted(inputs.vocabulary)))
    task = tasks_mod.get(inputs.task)
    atomic_write_text(p.train_counts, runfiles.format_word_counts(Counter(
        task.texts(inputs.train.words, task.gold(inputs.train)))))
    atomic_write_text(p.train_text, runfiles.format_train_text(inputs.train.words))
    texts = task.texts(test.words, inputs.units)
    oov = np.fromiter((t not in inputs.vocabulary for t in texts), dtype=bool,
                      count=marks.shape[1])
    tasks_mod.get(inputs.task).unit_kind.write_files(UnitFiles(p), test, inputs.units, committee,
                                                     records, d, n_correct, oov)
    write_npz(p.marks, marks=marks)
    files = [name for name in OUTPUT_FILES if name != layout.MANIFEST_FILE]
    if marks_mod.write_predictions(p.predictions, committee, records):
        files.append(PREDICTIONS_FILE)
    layout.write_manifest(out, runmanifest.manifest(cfg, inputs, committee, records,
                                                     fingerprint, d, oov, stability), files)
