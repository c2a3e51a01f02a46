"""The committee's members (docs/method.md §3): how each one is trained and
how it segments the test set.  Who they are is drawn in
:mod:`committee.learners.draws`, what a committee can be is checked in
:mod:`committee.learners.checks`; both are re-exported here.

Training and decoding
---------------------
A member is trained and decodes the test set through its trainer
(:func:`committee.learners.trainers.train_and_tag`; by default linear-chain CRFs
over BMES tags with python-crfsuite, see :mod:`committee.learners.crf` for
determinism, the test-attribute cache and the cost of a member).  What a
worker needs for one member is one :class:`MemberJob`.  Shuffling
algorithms get the C library's ``srand()`` seed :func:`crfsuite_seed`,
derived from the member, so every algorithm gives byte-identical models and
marks whatever process runs the member.  The member's marks are made by
:mod:`committee.pipeline.marks`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from committee.pipeline import layout
from committee.learners import trainers
from committee import tasks as tasks_mod
from committee.errors import ConfigError, RunError, UndefinedMetricWarning
from committee.learners.checks import (  # noqa: F401  (re-exported)
    BYTES_PER_CHAR, BYTES_PER_MEMBER, BYTES_PER_WORD, FIRST_MEMBERS, MIN_MEDIAN_F1, SMALL_SAMPLE,
    check_committee, check_first_members, grid_left_out, identical_members, memory_needed,
    physical_memory)
from committee.learners.draws import (  # noqa: F401  (re-exported)
    DRAWS, Member, crfsuite_seed, draw_committee, draw_member, member_sample, sample_size)
from committee.metrics.records import metric_arrays

if TYPE_CHECKING:
    import numpy as np


# --------------------------------------------------------------------------
# one member, end to end


@dataclass(frozen=True, eq=False)
class MemberResult:
    """What one trained member did on the test set.

    Attributes
    ----------
    index : int
        The member's index.
    marks : ndarray of bool, shape (N,)
        ``m_ki`` for every gold test word, in corpus order.
    p, r, f1 : float
        Its own scores on the test set: ``c / N'``, ``c / N`` and their
        harmonic mean (NaN when undefined, with a warning).
    n_gold, n_pred, n_correct : int
        ``N``, ``N'`` and ``c``.
    n_sentences : int
        Training sentences it was given (empty ones included).
    n_train_chars : int
        Characters it was trained on.
    timings : dict
        Seconds spent in ``attributes_s`` (training attributes and tags),
        ``append_s``, ``train_s`` and ``tag_s`` (test attributes unless
        cached, tagging and cutting into words), and crfsuite's own parts of ``train_s`` (``featgen_s``,
        ``optimise_s``, ``store_s``; :func:`committee.learners.crf.train_model`).  For
        logs and benchmarks only: nothing else depends on them.
    pred_ends : ndarray of bool, shape (C,), or None
        Its segmentation of the test set: over the test characters laid end to
        end (:func:`committee.tasks.spans.spans`), true at the last character of each
        predicted word.  With the test characters it gives back the predicted
        words, so later analyses (split-half reliability) need no retraining.
        For entities (``task: ner``): true at each character inside a
        predicted entity, which the weights of spurious entities are made
        of (docs/method.md §13).  None for a task that keeps labels instead.
    pred_labels : ndarray of int, shape (N,), or None
        For a tagger of the gold units (``task: pos``,
        :meth:`committee.tasks.Task.unit_labels`): its label of every gold
        unit, as codes into ``label_names``; None otherwise.
    label_names : tuple of str
    """

    index: int
    marks: np.ndarray
    p: float
    r: float
    f1: float
    n_gold: int
    n_pred: int
    n_correct: int
    n_sentences: int
    n_train_chars: int
    timings: dict = field(default_factory=dict)
    pred_ends: np.ndarray | None = None
    pred_labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()


def _prf(c: int, n_gold: int, n_pred: int) -> tuple[float, float, float]:
    if n_pred == 0 or n_gold == 0:
        warnings.warn(f"member scores undefined: {n_gold} gold and {n_pred} predicted words",
                      UndefinedMetricWarning, stacklevel=3)
    values = metric_arrays({"n_correct": c, "n_gold": n_gold, "n_pred": n_pred}, ("p", "r", "f1"))
    return float(values["p"]), float(values["r"]), float(values["f1"])


@dataclass(frozen=True, eq=False)
class MemberJob:
    """What a worker needs to train one member and mark the test set
    (:func:`run_member`'s argument).

    Attributes
    ----------
    member : Member
    train_words : list
        The member's own training sentences, i.e. ``[train[i] for i in
        member_sample(member, len(train))]``, in the task's form (lists of
        words; ``(characters, tags)`` for entities), so that a worker
        receives only what it needs.  Empty sentences are skipped.
    test_chars : sequence
        What the members tag of every test sentence
        (:meth:`committee.tasks.Task.items`: its characters, or its gold
        words for a task whose items are words).
    test_gold_words : list
        The gold units of the same sentences (words; entities; tagged words).
    algorithm : str
    params : dict
        The trainer's algorithm and parameters (checked first, by the trainer).
    workdir : str or path
        Directory of its temporary model file (created if missing).
    keep_model : bool
        Keep the model (``output.keep_models``) as
        :func:`committee.pipeline.layout.model_path` below ``workdir``
        (moved there atomically); otherwise it is removed.
    trainer : str
        Name of its trainer in :data:`committee.learners.trainers.TRAINERS`.
    task : str
        Name of its task in :data:`committee.tasks.TASKS`: ``train_words``
        and ``test_gold_words`` are its training sentences and gold units.
    """

    member: Member
    train_words: list
    test_chars: Sequence[str]
    test_gold_words: list
    algorithm: str
    params: dict
    workdir: str | os.PathLike
    keep_model: bool = False
    trainer: str = trainers.DEFAULT_TRAINER
    task: str = tasks_mod.DEFAULT_TASK

    @property
    def index(self) -> int:
        """The member's index (names the task in a pool)."""
        return self.member.index

    def run(self) -> MemberResult:
        """:func:`run_member` on this task."""
        return run_member(self)


def _check_member_inputs(job: MemberJob, task) -> None:
    member, train_words, test_chars, test_gold_words = (job.member, job.train_words,
                                                        job.test_chars, job.test_gold_words)
    k = member.index
    if len(train_words) != member.n_sentences:
        raise ValueError(f"member {k} trains on its {member.n_sentences} sampled sentences "
                         f"(member_sample), got {len(train_words)}")
    if len(test_chars) != len(test_gold_words):
        raise ValueError(f"{len(test_chars)} test sentences but {len(test_gold_words)} "
                         f"gold sentences of {task.units}")
    for i, (items, units) in enumerate(zip(test_chars, test_gold_words)):
        problem = task.gold_problem("".join(items), units)
        if problem is not None:
            raise ValueError(f"test sentence {i}: {problem}")


def run_member(job: MemberJob) -> MemberResult:
    """Train ``job.member`` on its sentences, tag the test set, mark the gold
    units (:class:`MemberJob` says what each of ``job``'s fields is).

    Returns
    -------
    MemberResult

    Raises
    ------
    ConfigError
        Unknown trainer, invalid algorithm or parameters, before any work is done.
    ValueError
        ``train_words`` is not the member's sample size, or test characters
        and gold words disagree.
    RunError
        All the member's training sentences are empty.
    """
    member, train_words, test_chars = job.member, job.train_words, job.test_chars
    k, algorithm, params, workdir = member.index, job.algorithm, job.params, job.workdir
    problems = trainers.check_params(algorithm, params, job.trainer)
    if problems:
        raise ConfigError("crf", problems)
    kind = tasks_mod.get(job.task)
    _check_member_inputs(job, kind)
    sentences = [s for s in train_words if s]
    if not sentences:
        raise RunError(f"member {k}: all {len(train_words)} training sentences are empty")
    chosen = trainers.TRAINERS[job.trainer]
    keep_as = layout.model_path(workdir, k, chosen.model_suffix) if job.keep_model else None
    recipe = trainers.Recipe(chosen, algorithm, params, crfsuite_seed(member))
    pred, timings = trainers.train_and_tag(
        recipe, kind, sentences, member.template, test_chars, workdir,
        prefix=layout.model_temp_prefix(k), keep_as=keep_as)
    lengths = [len("".join(items)) for items in test_chars]  # characters, whatever the items
    g_spans, p_spans, m, _ = tasks_mod.match(kind, lengths, job.test_gold_words, pred)
    pred_ends = kind.mask(p_spans, sum(lengths))
    labels = kind.unit_labels(g_spans, p_spans)
    c, n_gold, n_pred = int(m.sum()), int(m.size), len(p_spans.starts)
    p, r, f1 = _prf(c, n_gold, n_pred)
    return MemberResult(index=k, marks=m, p=p, r=r, f1=f1, n_gold=n_gold, n_pred=n_pred,
                        n_correct=c, n_sentences=len(train_words),
                        n_train_chars=sum(len("".join(kind.example(s)[0])) for s in sentences),
                        timings=timings, pred_ends=pred_ends,
                        pred_labels=None if labels is None else labels[0],
                        label_names=() if labels is None else tuple(labels[1]))
