"""A finished run, read back for the report: its outputs, its config, and
whether the experiments asked of it can run."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from committee import corpus as corpus_mod
from committee.report import plots
from committee.pipeline import layout
from committee.pipeline import lock
from committee import segmenters as segmenters_mod
from committee import tasks as tasks_mod
from committee.errors import ConfigError, InputError
from committee.pipeline.runconfig import load_run_config
from committee.pipeline.unitfiles import UnitFiles


@dataclass(frozen=True)
class RunData:
    """What a finished run wrote, read back.

    Attributes
    ----------
    run_dir : Path
    test : Corpus
        The gold test set (``test.txt``), with POS from ``words.tsv`` when the
        corpus had them.
    d, n_correct : ndarray
        Difficulty and number of members right, per gold word.
    oov : ndarray of bool or None
    marks : ndarray of bool, shape (K, N)
    pred_ends : ndarray of bool, shape (K, C), or None
        Each member's segmentation (``predictions.npz``), when recorded
        (for entities: the characters each member put inside an entity).
    manifest : dict
    task : str
        ``segmentation``; ``ner``: the units are the gold entities
        (``test.txt`` is then ``bio``, ``words.tsv`` a row per entity);
        ``pos``: the gold words with their tags (``test.txt`` is ``pku``).
    units : list or None
        For labelled units (entities, parts of speech): each sentence's
        gold units ``(start, end, label)``.
    char_d : ndarray or None
        For entities: the per-character weights (``test.weight_c``).
    pred_labels : ndarray of int, shape (K, N), or None
        For members that label the gold units (parts of speech): each
        member's label of every gold unit, codes into ``label_names``
        (``predictions.npz``).
    label_names : tuple of str
    """

    run_dir: Path
    test: corpus_mod.Corpus
    d: np.ndarray
    n_correct: np.ndarray
    oov: np.ndarray | None
    marks: np.ndarray
    pred_ends: np.ndarray | None
    manifest: dict
    task: str = tasks_mod.DEFAULT_TASK
    units: list | None = None
    char_d: np.ndarray | None = None
    pred_labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()

    @property
    def K(self) -> int:
        return int(self.marks.shape[0])

    @property
    def task_record(self) -> tasks_mod.Task:
        """The run's task record (:data:`committee.tasks.TASKS`) of :attr:`task`, its name."""
        return tasks_mod.get(self.task)

    @property
    def labelled(self) -> bool:
        """Whether its units are labelled spans (entities, parts of speech):
        systems carry labels, matched unit by unit."""
        return self.units is not None

    @property
    def unit(self) -> str:
        """What a unit is called: ``word`` or ``entity``."""
        return self.task_record.unit

    @property
    def units_name(self) -> str:
        """Units, plural: ``words`` or ``entities``."""
        return self.task_record.units

    def collector(self):
        """The scorer of the run's gold units (:func:`committee.metrics.collector_for`):
        words, entities (docs/method.md §13) or tagged words (§14), with the
        run's difficulties and OOV flags."""
        from committee import metrics

        return metrics.collector_for(self.task_record.unit_kind, self.test, self.d, self.char_d,
                                     task=self.task_record, oov=self.oov)

    def score_signature(self, bootstrap: int = 0, seed: int | None = None):
        """The signature of scores against this run: that of ``committee
        score`` on its test.txt, difficulties and training word list (with
        ``--bootstrap N --seed S`` when ``bootstrap``)."""
        from committee import metrics

        p = layout.paths(self.run_dir)
        vocabulary = (corpus_mod.word_list_sha256(corpus_mod.read_word_list(p.train_words))
                      if p.train_words.is_file() else None)
        d, tags = self.d, self.task_record.labels_of(self.test)
        if self.char_d is not None:  # entities: the per-character weights too
            d = np.concatenate([self.d, self.char_d])
        return metrics.make_signature(self.test.words, tags=tags, difficulty=d,
                                      vocabulary_sha256=vocabulary, match=self.task_record.match,
                                      normalization=self.test.normalization,
                                      bootstrap=bootstrap, seed=seed if bootstrap else None)

    def unit_texts(self) -> list[str]:
        """Every gold unit's characters, in corpus order (words; entities)."""
        return self.task_record.texts(self.test.words,
                               self.test.words if self.units is None else self.units)


def load_run(run_dir) -> RunData:
    """Read a finished run's outputs (see :class:`RunData`); a run that is not
    final (:func:`committee.pipeline.layout.check_final`), or whose files changed since
    it wrote them (:func:`committee.pipeline.layout.verify`), is refused."""
    p = layout.paths(run_dir)
    manifest = layout.read_manifest(p.root, lock.REPORT)
    layout.verify(p.root, layout.READ_BY[lock.REPORT])  # nothing edited since the run
    task = tasks_mod.get(manifest.get("config", {}).get("task", tasks_mod.DEFAULT_TASK))
    if not task.reported:
        raise InputError(str(p.root), None, f"is a run of task {task.name}: {task.no_report}")
    fields = task.unit_kind.load_run(UnitFiles(p, manifest), task)
    return RunData(p.root, manifest=manifest, task=task.name, **fields)


def recorded_commands(run_dir) -> list[str]:
    """The ``cmd:COMMAND`` segmenters a run's manifest names (written by an
    older version, or planted): never run, only their outputs saved in
    ``report/systems/`` are read (docs/security.md)."""
    try:
        data = layout.read_manifest(run_dir, lock.REPORT)
        names = data["config"]["experiments"]["segmenters"]
    except (InputError, KeyError, TypeError):
        return []
    if not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str) and n.startswith(segmenters_mod.CMD_PREFIX)]


def check_experiments(cfg, names: Sequence[str] | None = None) -> None:
    """Refuse, before any compute, what the experiments would fail on later.

    Checks that the files named in ``experiments`` exist and that the
    segmenters are installed (only for the analyses in ``names``; default:
    those switched on).  Raises :class:`ConfigError` listing every problem,
    then :class:`committee.report.plots.PlotError` when matplotlib is missing.
    """
    e = cfg.experiments
    names = e.enabled() if names is None else tuple(names)
    problems = []
    if not names:
        return
    task = tasks_mod.get(cfg.task)
    if not task.reported:  # its runs are read by no analysis yet
        raise ConfigError("experiments", [f"task {task.name}: {task.no_report}"])
    wanted = [(f"experiments.systems[{i}]", p) for i, p in enumerate(e.systems)]
    if e.human is not None and "ranking" in names:
        wanted.append(("experiments.human", e.human))
    if e.idioms is not None and e.idioms != corpus_mod.EMBEDDED_NAME and "linguistic" in names:
        wanted.append(("experiments.idioms", e.idioms))
    for where, p in wanted:
        full = cfg.resolve(p)
        if not full.is_file():
            problems.append(f"{where}: no such file: {full}")
    if e.stability_sizes and "stability" in names:
        too_big = [k for k in e.stability_sizes if k > cfg.committee.largest]
        if too_big:
            problems.append(f"experiments.stability_sizes: {too_big} exceed committee."
                            f"{'max_size' if cfg.committee.auto else 'size'} "
                            f"({cfg.committee.largest})")
    for i, name in enumerate(e.segmenters):
        problem = segmenters_mod.tool_problem(task, name)
        if problem:
            problems.append(f"experiments.segmenters[{i}]: {name}: {problem}")
            continue
        if name.startswith(segmenters_mod.CMD_PREFIX):
            continue  # a user's command: checked when it runs (one line on failure)
        module = segmenters_mod.SEGMENTERS[name].module
        if importlib.util.find_spec(module) is None:
            problems.append(f"experiments.segmenters[{i}]: {name} is not installed; "
                            f"{segmenters_mod.install_hint(name)}")
    if problems:
        raise ConfigError("experiments", problems)
    plots.require_matplotlib()  # PlotError (exit 3): a package to install, not a setting


