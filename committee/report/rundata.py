"""A finished run, read back for the report: its outputs, its config, and
whether the experiments asked of it can run."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from committee import config as config_mod
from committee import corpus as corpus_mod
from committee.pipeline import difficulty as difficulty_mod
from committee.pipeline import marks as marks_mod
from committee.report import plots
from committee.pipeline import layout
from committee.pipeline import lock
from committee import segmenters as seg_mod
from committee import tasks as tasks_mod
from committee.errors import ConfigError, InputError
from committee.pipeline.layout import need


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
    def kind(self) -> tasks_mod.Task:
        """The run's task record (:data:`committee.tasks.TASKS`)."""
        return tasks_mod.get(self.task)

    @property
    def labelled(self) -> bool:
        """Whether its units are labelled spans (entities, parts of speech):
        systems carry labels, matched unit by unit."""
        return self.units is not None

    @property
    def unit(self) -> str:
        """What a unit is called: ``word`` or ``entity``."""
        return self.kind.unit

    @property
    def units_name(self) -> str:
        """Units, plural: ``words`` or ``entities``."""
        return self.kind.units

    def collector(self):
        """The scorer of the run's gold units (:func:`committee.metrics.collector_for`):
        words, entities (docs/method.md §13) or tagged words (§14), with the
        run's difficulties and OOV flags."""
        from committee import metrics

        return metrics.collector_for(self.kind.collector, self.test, self.d, self.char_d,
                                     oov=self.oov)

    def score_signature(self, bootstrap: int = 0, seed: int | None = None):
        """The signature of scores against this run: that of ``committee
        score`` on its test.txt, difficulties and training word list (with
        ``--bootstrap N --seed S`` when ``bootstrap``)."""
        from committee import metrics

        p = layout.paths(self.run_dir)
        vocabulary = (corpus_mod.word_list_sha256(corpus_mod.read_word_list(p.train_words))
                      if p.train_words.is_file() else None)
        d, tags = self.d, self.kind.labels_of(self.test)
        if self.char_d is not None:  # entities: the per-character weights too
            d = np.concatenate([self.d, self.char_d])
        return metrics.make_signature(self.test.words, tags=tags, difficulty=d,
                                      vocabulary_sha256=vocabulary, match=self.kind.match,
                                      normalization=self.test.normalization,
                                      bootstrap=bootstrap, seed=seed if bootstrap else None)

    def unit_texts(self) -> list[str]:
        """Every gold unit's characters, in corpus order (words; entities)."""
        return self.kind.texts(self.test.words,
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
    return {tasks_mod.WORDS: _load_word_run, tasks_mod.ENTITIES: _load_entity_run,
            tasks_mod.TAGS: _load_tag_run}[task.collector](p, manifest, task)


def _load_word_run(p, manifest: dict, task: tasks_mod.Task) -> RunData:
    """:func:`load_run` of a run of words (``task: segmentation``)."""
    test = corpus_mod.read_corpus(need(p.test), format=task.format)
    words = difficulty_mod.read_words_tsv(need(p.words))
    if len(words) != test.n_words():
        raise InputError(str(p.words), None,
                         f"has {len(words)} words, test.txt has {test.n_words()}")
    test = _with_pos(test, words["pos"].astype(str).tolist())
    oov_col = words["oov"].astype(str)
    oov = None if (oov_col == "").any() else oov_col.isin(["1", "True", "true"]).to_numpy()
    marks = marks_mod.read_marks(p, manifest, test.n_words())
    pred_ends = marks_mod.read_predictions(p.predictions, test.n_chars(), marks.shape[0])
    return RunData(p.root, test, words["difficulty"].to_numpy(dtype=np.float64),
                   words["n_correct"].to_numpy(dtype=np.int64), oov, marks, pred_ends, manifest,
                   task.name)


def _labelled_units(p, task: tasks_mod.Task, test: corpus_mod.Corpus, manifest: dict):
    """A run's gold units of ``test`` (entities; tagged words), the rows of
    its ``words.tsv`` and its marks, each file checked to cover every unit."""
    units = task.gold(test)
    n = sum(map(len, units))
    rows = difficulty_mod.read_words_tsv(need(p.words))
    if len(rows) != n:
        raise InputError(str(p.words), None, f"covers {len(rows)} {task.units}, test.txt has {n}")
    return units, rows, marks_mod.read_marks(p, manifest, n)


def _load_entity_run(p, manifest: dict, task: tasks_mod.Task) -> RunData:
    """:func:`load_run` of a run of entities (``task: ner``, docs/method.md §13)."""
    test = corpus_mod.read_corpus(need(p.test), format=task.format)
    units, rows, marks = _labelled_units(p, task, test, manifest)
    char_d = difficulty_mod.read_weight_c(need(p.weight_c), test)
    d = difficulty_mod.entity_values(p.weight_c, char_d, test, units)
    pred_ends = marks_mod.read_predictions(p.predictions, test.n_chars(), marks.shape[0])
    oov = rows["oov"].astype(str).isin(["1", "True", "true"]).to_numpy()
    return RunData(p.root, test, d, rows["n_correct"].to_numpy(dtype=np.int64), oov, marks,
                   pred_ends, manifest, task.name, units, char_d)


def _load_tag_run(p, manifest: dict, task: tasks_mod.Task) -> RunData:
    """:func:`load_run` of a run of tagged words (``task: pos``, docs/method.md
    §14): one difficulty per gold word, each member's tag of every gold word."""
    test = task.prepare(corpus_mod.read_corpus(need(p.test), format=task.format))
    units, rows, marks = _labelled_units(p, task, test, manifest)
    labels = marks_mod.read_labels(p.predictions, marks.shape[1], marks.shape[0])
    names, codes = labels if labels is not None else ((), None)
    oov_col = rows["oov"].astype(str)
    oov = None if (oov_col == "").any() else oov_col.isin(["1", "True", "true"]).to_numpy()
    return RunData(p.root, test, rows["difficulty"].to_numpy(dtype=np.float64),
                   rows["n_correct"].to_numpy(dtype=np.int64), oov, marks, None, manifest,
                   task.name, units, None, codes, names)


def _with_pos(test: corpus_mod.Corpus, pos_col: list[str]) -> corpus_mod.Corpus:
    """``test`` with the POS tags of ``words.tsv`` when it has any."""
    pos = None
    if any(pos_col):
        pos, k = [], 0
        for sentence in test.words:
            pos.append(pos_col[k:k + len(sentence)])
            k += len(sentence)
    return corpus_mod.Corpus(test.path, test.words, test.lines, pos, test.sha256,
                             test.encoding, test.normalization)


def load_run_config(run_dir, config_path=None, overrides: Iterable[str] = ()):
    """The config of a run: ``config_path`` if given, else the one its manifest
    records (with ``output.dir`` set to ``run_dir`` and, as the manifest
    records no ``parallel`` section, ``parallel.n_jobs: -1``: every usable
    core); ``overrides`` applied."""
    run_dir = Path(run_dir)
    overrides = list(overrides)
    if config_path is not None:
        cfg = config_mod.load_config(config_path, overrides=overrides + [f"output.dir={run_dir}"])
    else:
        layout.check_final(run_dir, lock.REPORT)
        manifest_path = need(layout.paths(run_dir).manifest)
        data = layout.read_manifest(run_dir, lock.REPORT)["config"]
        data["output"] = {"dir": str(run_dir)}
        _drop_untrusted(data, manifest_path)
        # the manifest leaves out how the run ran (its outputs do not depend
        # on it): the report's Table 2 models train on every usable core
        data["parallel"] = {"backend": "loky", "n_jobs": -1}
        try:
            cfg = config_mod.parse_config(data, str(manifest_path), overrides, check_paths=False)
        except ConfigError as exc:  # what --set changed is not the manifest's doing
            from committee.config.loading import blame_set

            raise blame_set(exc, data, overrides) from None
    return cfg


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
    return [n for n in names if isinstance(n, str) and n.startswith(seg_mod.CMD_PREFIX)]


def _drop_untrusted(data: dict, manifest_path: Path) -> None:
    """Leave out of a manifest's config what a file may not decide: a
    command to run (``experiments.segmenters``) and a host to send work to
    (``parallel``), each with a warning saying how to name it on the command
    line (docs/security.md)."""
    import warnings

    from committee.errors import UntrustedWarning

    e = data.get("experiments")
    names = e.get("segmenters") if isinstance(e, dict) else None
    if isinstance(names, list):
        commands = [n for n in names if isinstance(n, str) and n.startswith(seg_mod.CMD_PREFIX)]
        if commands:
            e["segmenters"] = [n for n in names if n not in commands]
            warnings.warn(f"{manifest_path}: experiments.segmenters names the command "
                          f"{commands[0]!r}{f' and {len(commands) - 1} more' * (len(commands) > 1)}"
                          ", which is never run from a file: its saved output in report/systems/ "
                          "is used if there is one; to run it, name it on the command line "
                          "(--with)", UntrustedWarning, stacklevel=3)
    parallel = data.get("parallel")
    if isinstance(parallel, dict) and parallel.get("scheduler"):
        warnings.warn(f"{manifest_path}: parallel.scheduler {parallel['scheduler']!r} is not "
                      "contacted: a file never chooses where work is sent; Table 2 models train "
                      "here (name a scheduler with --scheduler)", UntrustedWarning, stacklevel=3)


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
        problem = seg_mod.tool_problem(task, name)
        if problem:
            problems.append(f"experiments.segmenters[{i}]: {name}: {problem}")
            continue
        if name.startswith(seg_mod.CMD_PREFIX):
            continue  # a user's command: checked when it runs (one line on failure)
        module = seg_mod.SEGMENTERS[name].module
        if importlib.util.find_spec(module) is None:
            problems.append(f"experiments.segmenters[{i}]: {name} is not installed; "
                            f"{seg_mod.install_hint(name)}")
    if problems:
        raise ConfigError("experiments", problems)
    plots.require_matplotlib()  # PlotError (exit 3): a package to install, not a setting


