"""The systems the report scores: the Table 2 models (trained once, then
read back), segmenters run by the report, output files of other segmenters,
and the committee's members (from ``predictions.npz``)."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from committee import __version__
from committee import corpus as corpus_mod
from committee import metrics, scoring
from committee.system import pools
from committee.pipeline import layout
from committee.pipeline import runfiles
from committee.learners import trainers
from committee.learners import members as members_mod
from committee import segmenters as segmenters_mod
from committee import tasks as tasks_mod
from committee.errors import InputError, RunError
from committee.system.files import atomic_write_text, clear_dir, owner_tag
from committee.system.streams import read_text
from committee.report.analyses import table2
from committee.report.rundata import RunData

log = logging.getLogger("committee.run")


@dataclass
class System:
    """One scored segmentation of the test set."""

    name: str
    kind: str  # "table2", "system" (segmenter or output file) or "member"
    words: list[list[str]]
    stats: metrics.SufficientStats | None = None
    scores: scoring.Scores | None = None
    info: dict = field(default_factory=dict)
    #: the labels of its tokens (:attr:`committee.tasks.Task.labels_field`):
    #: entity tags of the characters (task: ner), a part of speech per word (pos)
    tags: list[list[str]] | None = None


def read_human(path, names: Sequence[str]) -> dict[str, float]:
    """Human judgements: one ``system<TAB or spaces>score`` per line, ``#`` comments.

    Every named system must be one of ``names``.
    """
    out: dict[str, float] = {}
    # read block by block: binary or endless input is refused at once
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.rsplit(None, 1)
        if len(parts) != 2:
            raise InputError(str(path), lineno, "expected 'system score'")
        name, value = parts
        try:
            score = float(value)
        except ValueError:
            raise InputError(str(path), lineno, f"score {value!r} is not a number") from None
        if not math.isfinite(score):
            raise InputError(str(path), lineno, f"score {value!r} is not finite")
        if name not in names:
            raise InputError(str(path), lineno, f"unknown system {name!r}; the report's "
                                                f"systems are: {', '.join(names)}")
        if name in out:
            raise InputError(str(path), lineno, f"system {name!r} is scored twice")
        out[name] = score
    return out


def _table2_key(data: RunData, cfg, fraction: float, n_train: int, train_sha: str) -> str:
    e = cfg.experiments
    algorithm, params = cfg.table2_crf()
    key = {"train": train_sha, "test": data.test.sha256, "template": e.table2_template,
           "fraction": fraction, "n_train": n_train, "seed": e.seed,
           "algorithm": algorithm, "params": params}
    if cfg.crf.trainer != trainers.DEFAULT_TRAINER:  # the default's models keep their keys
        key["trainer"] = cfg.crf.trainer
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def _table2_name(template: str, fraction: float) -> str:
    return f"{template} {100 * fraction:g}%"


def _renamed_legacy(out_dir: Path, template: str, fraction: float) -> None:
    """Give the files of a Table 2 model that a report of an earlier version
    kept under :func:`~committee.report.analyses.table2.legacy_stem` their
    current names, so that the model is read back rather than trained again
    and its output is where the report says."""
    for suffix, current in ((table2.RECORD_SUFFIX, table2.record_file(template, fraction)),
                            (table2.OUTPUT_SUFFIX, table2.output_file(template, fraction))):
        old = out_dir / table2.MODELS_DIR / f"{table2.legacy_stem(template, fraction)}{suffix}"
        if old.is_file() and not old.is_symlink() and not (out_dir / current).exists():
            os.replace(old, out_dir / current)


@dataclass(frozen=True)
class Table2Job:
    """One Table 2 model to train, as a worker receives it.

    Attributes
    ----------
    index : int
        Its place among the models trained together (names it in the pool).
    name : str
        The model's name in the report (``F2 20%``).
    template : str
        Feature template of :mod:`committee.learners.features`.
    sentences : list
        Its training sentences, in the task's form.
    test_chars : sequence of str
        Characters of every test sentence.
    trainer : str
        Name of its trainer in :data:`committee.learners.trainers.TRAINERS` (``crf.trainer``).
    algorithm : str
    params : dict
        The trainer's algorithm and parameters (:meth:`Config.table2_crf`).
    workdir : str
        Directory of its temporary model file.
    rand_seed : int
        Seed of the trainer's randomness.
    task : str
        Name of the task in :data:`committee.tasks.TASKS`.
    """

    index: int
    name: str
    template: str
    sentences: list
    test_chars: Sequence[str]
    trainer: str
    algorithm: str
    params: dict
    workdir: str
    rand_seed: int
    task: str = tasks_mod.DEFAULT_TASK


@dataclass(frozen=True)
class _Table2Result:
    index: int
    pred: list
    timings: dict


@dataclass(frozen=True)
class Table2Failure:
    """A Table 2 model that did not finish (its job raised, or its worker died).

    Attributes
    ----------
    index : int
        The job's index.
    name : str
        The model's name in the report, for the message.
    error : str
        One line: the exception type and message, or what happened to its worker.
    detail : str
        The traceback, for ``run.log``.
    """

    index: int
    name: str
    error: str
    detail: str = ""

    def as_error(self) -> RunError:
        """The one-line error that ends the report."""
        return RunError(f"Table 2 model {self.name} failed: {self.error}")


def _train_one(job: Table2Job):
    """Runs in a worker: train Table 2 model ``job`` with its trainer and tag
    the test set (its words; its entities for ``task: ner``).  Returns its
    result, or a :class:`Table2Failure` when it raised: an exception never
    travels through the pool."""
    from committee import tasks

    t0 = time.perf_counter()
    try:
        recipe = trainers.Recipe(trainers.get(job.trainer), job.algorithm, job.params,
                                 job.rand_seed)
        pred, t = trainers.train_and_tag(
            recipe, tasks.get(job.task), job.sentences, job.template, job.test_chars,
            job.workdir, prefix=f".table2-{owner_tag()}-")
    except Exception as exc:  # named by the model; the caller ends the report
        return Table2Failure(job.index, job.name, pools.one_line(exc),
                             traceback.format_exc())
    return _Table2Result(job.index, pred, {
        "build_append_s": t.get("attributes_s", 0.0) + t.get("append_s", 0.0),
        "train_s": t["train_s"], "tag_s": t["tag_s"], "total_s": time.perf_counter() - t0})


def table2_systems(cfg, data: RunData, out_dir: Path, train: bool, inputs=None,
                   progress: bool = False, load_inputs=None) -> tuple[list[System], list[str]]:
    """The Table 2 models: read back those already made, train the others
    (only with ``train``).  Returns the systems and notes for the report.

    ``inputs`` are the run's corpora when already read; otherwise
    ``load_inputs(cfg)`` reads them when a model must be trained.
    """
    e = cfg.experiments
    notes: list[str] = []
    tdir = out_dir / table2.MODELS_DIR
    train_sha = data.manifest.get("corpus", {}).get("train", {}).get("sha256", "")
    # sizes of the samples need the number of non-empty training sentences
    train_sentences = inputs.train_sentences if inputs is not None else None
    for fraction in e.table2_fractions:
        _renamed_legacy(out_dir, e.table2_template, fraction)
    records = _table2_records(e, out_dir)
    n_train = None
    if train_sentences is not None:
        n_train = len(train_sentences)
    elif records:
        n_train = _recorded_n_train(next(iter(records.values())))
    todo = []
    systems: list[System] = []
    for fraction in e.table2_fractions:
        rec = records.get(fraction)
        key = None if n_train is None else _table2_key(data, cfg, fraction, n_train, train_sha)
        out_path = out_dir / table2.output_file(e.table2_template, fraction)
        if rec is not None and key is not None and rec.get("key") == key and out_path.is_file():
            pred = _read_output(data, out_path)
            systems.append(System(_table2_name(e.table2_template, fraction), "table2",
                                  pred.words, info=rec, tags=data.task_record.labels_of(pred)))
        else:
            todo.append(fraction)
    if todo and not train:
        notes.append("Table 2 models not trained for fractions "
                     f"{', '.join(f'{f:g}' for f in todo)}: run `committee report` without "
                     "`--skip table2` (or `committee run` with `experiments.table2: true`).")
        todo = []
    if todo:
        if train_sentences is None:
            if load_inputs is None:
                raise RunError("training Table 2 models needs the run's training corpus")
            inputs = load_inputs(cfg)
            if inputs.train.sha256 != train_sha or inputs.test.sha256 != data.manifest.get(
                    "corpus", {}).get("test", {}).get("sha256"):
                raise RunError(f"the config's corpora are not those of the run in "
                               f"{data.run_dir} (checksums differ); pass the run's config "
                               "with --config, or --set corpus.root=...")
            train_sentences = inputs.train_sentences
            n_train = len(train_sentences)
        systems += _train_table2(cfg, data, train_sentences, todo, tdir, train_sha, progress)
    order = {f: i for i, f in enumerate(e.table2_fractions)}
    systems.sort(key=lambda s: order.get(s.info.get("fraction"), 99))
    return systems, notes


def _table2_records(e, out_dir: Path) -> dict:
    """The records of the Table 2 models already made, by fraction (a
    record that cannot be read is left out: its model is trained again)."""
    records = {}
    for fraction in e.table2_fractions:
        rec_path = out_dir / table2.record_file(e.table2_template, fraction)
        if rec_path.is_file():
            try:
                records[fraction] = runfiles.read_json(rec_path, "table2", dict)
            except InputError:
                pass  # trained again and written anew
    return records


@dataclass(frozen=True)
class _Training:
    """What every Table 2 model of one report is trained with: the number of
    training sentences, the training corpus's checksum, the CRF algorithm
    and its parameters."""

    n_train: int
    train_sha: str
    algorithm: str
    params: dict


def _train_table2(cfg, data: RunData, train_sentences, fractions, tdir: Path, train_sha: str,
                  progress: bool) -> list[System]:
    from tqdm import tqdm

    from committee.learners.features import training_cost
    from committee.system.process import CostBar

    e = cfg.experiments
    n_train = len(train_sentences)
    algorithm, params = cfg.table2_crf()
    test_chars = [data.task_record.items(s) for s in data.test.words]  # characters, or gold words
    workdir = str(tdir / ".tmp")
    n_jobs = pools.worker_count("sequential" if cfg.parallel.backend == "sequential" else
                                "loky", cfg.parallel.n_jobs, len(fractions), "Table 2 models")
    tasks = _samples(train_sentences, fractions, e.seed, largest_first=n_jobs > 1)
    log.info("table2: training %d %s model(s) (%s %s) on %s of %d sentences, "
             "n_jobs %d", len(tasks), e.table2_template, algorithm,
             json.dumps(params, sort_keys=True), ", ".join(f"{f:g}" for f, _ in tasks), n_train, n_jobs)
    jobs = [(Table2Job(i, _table2_name(e.table2_template, fraction), e.table2_template, sents,
                       test_chars, cfg.crf.trainer, algorithm, params, workdir, e.seed + 1,
                       data.task),) for i, (fraction, sents) in enumerate(tasks)]
    started = time.monotonic()
    if progress:
        tqdm.write(f"committee: training {len(tasks)} Table 2 model(s) on {n_jobs} worker(s); "
                   "they are kept and reused (--skip table2 leaves them out)", file=sys.stderr)
    bar = CostBar({i: training_cost(len(sents), e.table2_template)
                   for i, (_, sents) in enumerate(tasks)},
                  desc="table2", unit="model", disable=not progress)
    backend = "loky" if n_jobs > 1 else "sequential"
    results = pools.results(_train_one, pools.announced(jobs, backend, bar.started), backend,
                            n_jobs, n_tasks=len(jobs))
    systems = []
    try:
        for result in results:
            fraction, sents = tasks[result.index]
            if isinstance(result, pools.MemberFailure):  # the pool's: its worker died
                result = Table2Failure(result.index, jobs[result.index][0].name, result.error,
                                       result.detail)
            if isinstance(result, Table2Failure):
                log.error("table2: %s failed: %s\n%s", result.name, result.error,
                          result.detail.rstrip())
                raise result.as_error()
            systems.append(_save_table2(cfg, data, tdir, fraction, sents,
                                        _Training(n_train, train_sha, algorithm, params),
                                        result))
            bar.done(result.index)
    finally:
        results.close()  # stops the workers (killed if the loop ended early: a failure, a signal)
        bar.close()
    log.info("table2: %d model(s) in %.0f s", len(tasks), time.monotonic() - started)
    clear_dir(workdir)  # a live worker's temporary model stays (a killed report's worker)
    return systems


def _samples(train_sentences, fractions, seed: int, largest_first: bool) -> list[tuple]:
    """``(fraction, sentences)`` of each Table 2 model: nested random samples
    of the training sentences.  On several workers the largest come first,
    so that the workers end together; on one the smallest, so that the
    progress bar's time left comes early (the order changes no model)."""
    n_train = len(train_sentences)
    order = np.random.default_rng(seed).permutation(n_train)
    return [(fraction, [train_sentences[i] for i in
                        np.sort(order[:members_mod.sample_size(fraction, n_train)])])
            for fraction in sorted(fractions, reverse=largest_first)]


def _save_table2(cfg, data: RunData, tdir: Path, fraction, sents, training: _Training,
                 result) -> System:
    """Write a trained Table 2 model's segmentation and record; return its system."""
    e = cfg.experiments
    words, tags = data.task_record.as_tokens(data.test.words, result.pred)
    report_dir = tdir.parent
    _write_output(data, report_dir / table2.output_file(e.table2_template, fraction), words, tags)
    rec = {"key": _table2_key(data, cfg, fraction, training.n_train, training.train_sha),
           "template": e.table2_template, "fraction": fraction, "n_train": training.n_train,
           "n_sentences": len(sents),
           "n_chars": sum(len(data.task_record.example(s)[0]) for s in sents),
           "algorithm": training.algorithm, "params": training.params, "seed": e.seed,
           "timings": {k: round(v, 1) for k, v in result.timings.items()},
           "version": __version__}
    atomic_write_text(report_dir / table2.record_file(e.table2_template, fraction),
                      json.dumps(rec, indent=2) + "\n")
    log.info("table2: %s (%d sentences) trained in %.0f s, tagged in %.1f s",
             _table2_name(e.table2_template, fraction), len(sents),
             result.timings["train_s"], result.timings["tag_s"])
    return System(_table2_name(e.table2_template, fraction), "table2", words, info=rec,
                  tags=tags)


def _format(data: RunData) -> str:
    """The format of the systems' files of a run: sighan, bio for entities,
    pku for parts of speech."""
    return data.task_record.format


def _read_output(data: RunData, path) -> corpus_mod.Corpus:
    """A system's file of the run's format, as its task scores it (a regular
    file only: a FIFO planted in ``report/systems/`` is never opened)."""
    runfiles.check_regular(path, "remove it; the report writes this file itself")
    fmt = _format(data)  # committee report has no --format or --encoding: say what it reads
    reads = (f"--system of a run of {data.task_record.name} reads UTF-8 "
             f"{corpus_mod.LOOKS[fmt]} files")
    return data.task_record.prepare(corpus_mod.reading.read_fixed(path, fmt, reads))


def _write_output(data: RunData, path: Path, words, tags) -> None:
    """Write a system's tokens (and their labels) in the run's format."""
    corpus_mod.write_output(path, _format(data), words, tags)


def other_systems(cfg, data: RunData, out_dir: Path, files: Sequence[str] = (),
                  segmenters: Sequence[str] = (), progress: bool = False,
                  timeout: float | None = None, timeout_name: str = "timeout") -> list[System]:
    """Segmenters run by the report (their output kept in ``report/systems/``;
    ``timeout``: :func:`committee.segmenters.command`) and output files of
    other segmenters."""
    systems, taken = [], set()
    for asked in segmenters:
        systems.append(_run_tool(data, out_dir, asked, taken, progress, timeout, timeout_name))
    for p in files:
        pred = _read_output(data, p)
        metrics.check_aligned(data.test, pred)
        name = scoring.system_name(os.fspath(p), taken)
        systems.append(System(name, "system", pred.words, info={"path": os.fspath(p)},
                              tags=data.task_record.labels_of(pred)))
    return systems


def _recorded_n_train(record: dict) -> int | None:
    """The training sentences a Table 2 record counts; None when it holds no
    such count (a record edited by hand: its models are trained again)."""
    n = record.get("n_train")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def saved_outputs(data: RunData, out_dir: Path, commands: Sequence[str],
                  taken: set) -> tuple[list[System], list[str]]:
    """The outputs that ``commands`` (``cmd:COMMAND`` names a run's manifest
    records) left in ``report/systems/`` on this test set, read as data: a
    command named by a file is never run (docs/security.md).  Returns the
    systems found and a note for each command without a saved output."""
    found, notes = [], []
    saved = {}
    for info_path in sorted((out_dir / "systems").glob("*.json")):
        try:
            info = runfiles.read_json(info_path, "system", dict)
        except InputError:
            continue
        if info.get("test") == data.test.sha256:
            saved.setdefault(info.get("segmenter"), (info_path, info))
    for asked in commands:
        if asked not in saved:
            notes.append(f"Not run: {asked}, named in the run's manifest; a command is run only "
                         "when named on the command line (--with), and no saved output of it "
                         "was found.")
            continue
        info_path, info = saved[asked]
        path = info_path.with_suffix(".bio" if data.task_record.tagged else ".txt")
        pred = _read_output(data, path)
        metrics.check_aligned(data.test, pred)
        name = scoring.system_name(info_path.stem, taken)
        found.append(System(name, "system", pred.words, info=info,
                            tags=data.task_record.labels_of(pred)))
        notes.append(f"{name}: the saved output of {asked} (report/systems/{path.name}), "
                     "not run again.")
    return found, notes


def _run_tool(data: RunData, out_dir: Path, asked: str, taken: set, progress: bool,
              timeout: float | None = None, timeout_name: str = "timeout") -> System:
    """A segmenter (an entity tagger for ``task: ner``, a part-of-speech
    tagger for ``task: pos``) run on the test set, its output kept in
    ``report/systems/`` and read back while the test set and the tool's
    version are the same."""
    labelled = data.task_record.labels_field is not None
    seg = segmenters_mod.tool_loader(data.task_record)(asked, timeout=timeout, timeout_name=timeout_name)
    name = scoring.system_name(seg.name, taken)  # a cmd:COMMAND goes by its program's name
    path = out_dir / "systems" / f"{name}.{'bio' if data.task_record.tagged else 'txt'}"
    info_path = out_dir / "systems" / f"{name}.json"
    if path.is_file() and info_path.is_file():
        try:
            info = runfiles.read_json(info_path, "system", dict)
        except InputError:
            info = {}  # run again and written anew
        if info.get("test") == data.test.sha256 and info.get("version") == seg.version:
            pred = _read_output(data, path)
            return System(name, "system", pred.words, info=info,
                          tags=data.task_record.labels_of(pred))
    t0 = time.perf_counter()
    texts = ["".join(s) for s in data.test.words]
    where = str(layout.paths(data.run_dir).test)
    words, tags = segmenters_mod.apply(data.task_record, seg, texts, where, data.test.lines,
                                progress=progress)
    _write_output(data, path, words, tags)
    info = {"segmenter": asked, "version": seg.version, "test": data.test.sha256,
            "seconds": round(time.perf_counter() - t0, 1), "note": seg.note}
    atomic_write_text(info_path, json.dumps(info, indent=2) + "\n")
    log.info("%s the test set with %s %s in %.1f s", "tagged" if labelled else "segmented",
             name, seg.version, info["seconds"])
    return System(name, "system", words, info=info, tags=tags)


def score(systems: Sequence[System], scorer: metrics.Collector, test,
          signature: metrics.Signature, task: tasks_mod.Task | None = None) -> None:
    """Score each system against ``test`` (its :class:`~committee.scoring.Scores`
    in ``scores``, its statistics in ``stats``); undefined metrics are None
    without a warning (the report shows them as ``–``).  ``task`` says where
    a system's labels go (:meth:`committee.tasks.Task.as_corpus`; default:
    segmentation's words)."""
    task = task or tasks_mod.get(tasks_mod.DEFAULT_TASK)
    for s in systems:
        s.stats = scorer.collect(task.as_corpus(s.name, s.words, test.lines, s.tags))
        s.scores = scoring.Scores.from_stats(s.stats, signature, undefined="ignore",
                                             name=s.name)
