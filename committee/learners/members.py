"""The committee's members (docs/method.md §3): who they are, how each one is
trained and how it segments the test set.

Drawing members
---------------
Member ``k`` of a run with seed ``s`` uses its own generator
``numpy.random.default_rng(SeedSequence(s, spawn_key=(k,)))`` — the same
stream as ``SeedSequence(s).spawn(n)[k]`` for any ``n > k`` — and draws, in
this order:

1. ``i = rng.integers(len(templates))`` and ``j = rng.integers(len(ratios))``;
   with ``draw="random"`` the member's template and ratio are
   ``templates[i]`` and ``ratios[j]``.  With ``draw="grid"`` the two numbers
   are drawn all the same and discarded; the combination is number
   ``k % (T * R)`` in template-major order (``k = 0`` is the first template
   with every ratio in turn, then the second template, ...), so a committee
   of ``r * T * R`` members holds ``r`` replicas of every combination.
2. its training sample: ``rng.choice(n_train, size=n, replace=False)``,
   sorted, with ``n = max(1, floor(ratio * n_train + 0.5))``.

Nothing else enters, so member ``k`` is the same in committees of any size,
run by any number of workers, and :func:`member_sample` can recompute a
member's sentences from the member alone.  The streams are those of NumPy's
``Generator`` (PCG64); the run manifest records the NumPy version.

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

import math
import numbers
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from committee.pipeline import layout
from committee.learners import trainers
from committee import tasks as tasks_mod
from committee.errors import ConfigError, PlausibilityWarning, RunError, UndefinedMetricWarning
from committee.learners.features import TEMPLATES
from committee.metrics.records import metric_arrays

if TYPE_CHECKING:
    import numpy as np

# numpy (and marks, which needs it) are imported where used: config takes
# DRAWS from here, and reading a config must stay cheap (docs/benchmarks.md).

DRAWS = ("random", "grid")
"""Draw policies of :func:`draw_member`."""


# --------------------------------------------------------------------------
# drawing members


@dataclass(frozen=True)
class Member:
    """One base segmenter of the committee: what it is, not what it learnt.

    Attributes
    ----------
    index : int
        ``k``, its position in the committee (0-based).
    template : str
        Its feature template, one of ``F1``, ``F2``, ``F3``.
    ratio : float
        Share of the training sentences it is trained on.
    n_sentences : int
        Size of its training sample, ``max(1, floor(ratio * n_train + 0.5))``.
    seed : int
        The run's seed: entropy of ``SeedSequence(seed, spawn_key=(index,))``.
    n_train : int
        Number of training sentences the sample is drawn from.
    templates, ratios : tuple
        The sets it was drawn from, and ``draw`` the policy; with ``seed`` and
        ``index`` they determine everything else and let :func:`member_sample`
        replay the draw.
    draw : str
    """

    index: int
    template: str
    ratio: float
    n_sentences: int
    seed: int
    n_train: int
    templates: tuple[str, ...]
    ratios: tuple[float, ...]
    draw: str


def sample_size(ratio: float, n_train: int) -> int:
    """Sentences in a sample of ``ratio`` of ``n_train``: ``max(1, floor(ratio * n_train + 0.5))``.

    >>> sample_size(0.1, 1754), sample_size(0.2, 3), sample_size(0.001, 10)
    (175, 1, 1)
    """
    return max(1, math.floor(ratio * n_train + 0.5))


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _check_draw_args(k, n_train, templates, ratios, draw, seed) -> None:
    problems = []
    if not _is_int(k) or k < 0:
        problems.append(f"member index must be an integer >= 0, got {k!r}")
    if not _is_int(n_train) or n_train < 1:
        problems.append(f"n_train must be an integer >= 1 (training sentences), got {n_train!r}")
    if not _is_int(seed) or seed < 0:
        problems.append(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(templates, str) or len(templates) == 0:
        problems.append(f"templates must be a non-empty sequence of {', '.join(TEMPLATES)}, "
                        f"got {templates!r}")
    else:
        problems += [f"unknown feature template {t!r}; expected one of {', '.join(TEMPLATES)}"
                     for t in templates if t not in TEMPLATES]
    if isinstance(ratios, str) or len(ratios) == 0:
        problems.append(f"ratios must be a non-empty sequence of numbers in (0, 1], got {ratios!r}")
    else:
        problems += [f"sampling ratio must be a number in (0, 1], got {r!r}" for r in ratios
                     if isinstance(r, bool) or not isinstance(r, numbers.Real) or not 0 < r <= 1]
    if draw not in DRAWS:
        problems.append(f"draw must be one of {', '.join(DRAWS)}, got {draw!r}")
    if problems:
        raise ValueError("; ".join(problems))


def _member_rng(seed: int, k: int) -> np.random.Generator:
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(k),)))


def _draw(rng: np.random.Generator, k: int, templates: tuple, ratios: tuple, draw: str):
    """Step 1 of the module docstring; leaves ``rng`` where the sample starts."""
    i = int(rng.integers(len(templates)))
    j = int(rng.integers(len(ratios)))
    if draw == "grid":
        i, j = divmod(k % (len(templates) * len(ratios)), len(ratios))
    return templates[i], float(ratios[j])


def draw_member(k: int, n_train: int, templates: Sequence[str], ratios: Sequence[float],
                draw: str = "random", *, seed: int) -> Member:
    """Member ``k`` of the committee of a run with ``seed``.

    Parameters
    ----------
    k : int
        Member index (>= 0).
    n_train : int
        Number of training sentences the sample is drawn from.
    templates, ratios : sequences
        Templates to draw from (``F1``/``F2``/``F3``) and sampling ratios in (0, 1].
    draw : {"random", "grid"}
    seed : int
        The run's seed (>= 0; 0 is a seed like any other).

    Raises
    ------
    ValueError
        Listing every invalid argument.

    Examples
    --------
    >>> m = draw_member(7, 1000, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), seed=0)
    >>> m == draw_member(7, 1000, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), seed=0)
    True
    >>> g = draw_member(2, 1000, ("F1", "F2"), (0.1, 0.5), "grid", seed=0)
    >>> g.template, g.ratio, g.n_sentences
    ('F2', 0.1, 100)
    """
    _check_draw_args(k, n_train, templates, ratios, draw, seed)
    templates, ratios = tuple(templates), tuple(float(r) for r in ratios)
    template, ratio = _draw(_member_rng(seed, k), int(k), templates, ratios, draw)
    return Member(int(k), template, ratio, sample_size(ratio, int(n_train)), int(seed),
                  int(n_train), templates, ratios, draw)


def draw_committee(K: int, n_train: int, templates: Sequence[str], ratios: Sequence[float],
                   draw: str = "random", *, seed: int) -> list[Member]:
    """``[draw_member(k, ...) for k in range(K)]``: member ``k`` never depends on ``K``.

    >>> small = draw_committee(3, 500, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), seed=1)
    >>> large = draw_committee(5, 500, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), seed=1)
    >>> large[:3] == small
    True
    """
    if not _is_int(K) or K < 1:
        raise ValueError(f"committee size must be an integer >= 1, got {K!r}")
    return [draw_member(k, n_train, templates, ratios, draw, seed=seed) for k in range(K)]


def member_sample(member: Member, n_train: int, seed: int | None = None) -> np.ndarray:
    """Sorted indices of the training sentences of ``member`` (drawn without replacement).

    Parameters
    ----------
    member : Member
    n_train : int
        Number of training sentences; must be the one the member was drawn for.
    seed : int, optional
        The run's seed.  Defaults to ``member.seed``; when given it must equal
        it (a cross-check against mixing members of different runs).

    Returns
    -------
    ndarray of int64, shape (member.n_sentences,)

    Examples
    --------
    >>> m = draw_member(2, 50, ("F2",), (0.1,), seed=0)
    >>> idx = member_sample(m, 50, 0)
    >>> len(idx), bool((idx[1:] > idx[:-1]).all()), idx.tolist() == member_sample(m, 50).tolist()
    (5, True, True)
    """
    if seed is None:
        seed = member.seed
    if seed != member.seed:
        raise ValueError(f"member {member.index} was drawn with seed {member.seed}, not {seed}")
    if n_train != member.n_train:
        raise ValueError(f"member {member.index} was drawn for {member.n_train} training "
                         f"sentences, not {n_train}")
    import numpy as np

    rng = _member_rng(seed, member.index)
    _draw(rng, member.index, member.templates, member.ratios, member.draw)
    idx = rng.choice(member.n_train, size=member.n_sentences, replace=False)
    return np.sort(idx).astype(np.int64)


# --------------------------------------------------------------------------
# what a committee can be, checked before any member is drawn


def _ratio_list(ratios: Sequence[float]) -> str:
    return ", ".join(str(r) for r in ratios)


def identical_members(size: int, templates: Sequence[str], ratios: Sequence[float],
                      n_train: int | None = None) -> str | None:
    """Why a committee's members cannot differ, or None when they can.

    With one template, and ratios that each give a sample of every training
    sentence (ratio 1.0; any ratio when ``n_train`` is so small that the
    sample rounds up to all of it), every member trains on the same data with
    the same features: K > 1 members are copies of one model (with a
    shuffling algorithm, up to the order it visits the sentences), and every
    difficulty is 0 or 1.  ``n_train`` None: only ratio 1.0 counts as full.

    >>> identical_members(6, ["F2"], [1.0])[:45]
    'the 6 members would be identical: with the on'
    >>> identical_members(6, ["F2"], [0.9], n_train=5)[:45]
    'the 6 members would be identical: with the on'
    >>> identical_members(1, ["F2"], [1.0]), identical_members(6, ["F1", "F2"], [1.0])
    (None, None)
    """
    full = [r for r in ratios if (r >= 1.0 if n_train is None
                                  else sample_size(r, n_train) >= n_train)]
    if size < 2 or len(templates) != 1 or len(full) != len(ratios):
        return None
    every = "every training sentence" if n_train is None else f"all {n_train} training sentences"
    return (f"the {size} members would be identical: with the one template {templates[0]} and "
            f"ratio{'s' * (len(ratios) > 1)} {_ratio_list(ratios)}, each trains on {every}, so "
            "every difficulty would be 0 or 1; add ratios below 1 (the paper draws from 0.1, "
            "0.2, 0.3) or more templates, or set committee.size: 1")


def grid_left_out(size: int, templates: Sequence[str], ratios: Sequence[float]) -> list[str]:
    """The cells ``template × ratio`` that ``draw: grid`` gives no member when
    ``size`` is below ``len(templates) * len(ratios)``, in grid order.

    >>> grid_left_out(7, ["F1", "F2", "F3"], [0.1, 0.3, 0.5])
    ['F3 × 0.3', 'F3 × 0.5']
    >>> grid_left_out(9, ["F1", "F2", "F3"], [0.1, 0.3, 0.5])
    []
    """
    cells = [f"{t} × {r}" for t in templates for r in ratios]
    return cells[size:]


#: Bytes per member a run holds once its members are assembled, per test
#: word and per test character (each member's marks and segmentation, read
#: back and stacked), and for its records: measured on 100 to 2,000 members
#: of 2k to 100k test words (docs/method.md §3, "Bounds").
BYTES_PER_WORD, BYTES_PER_CHAR, BYTES_PER_MEMBER = 2, 2, 2048


def memory_needed(size: int, n_words: int, n_chars: int) -> int:
    """Bytes of memory a committee of ``size`` members needs for its marks
    and segmentations of ``n_words`` test words of ``n_chars`` characters.

    >>> memory_needed(90, 104_372, 172_733)
    50063220
    """
    return size * (BYTES_PER_WORD * n_words + BYTES_PER_CHAR * n_chars + BYTES_PER_MEMBER)


def physical_memory() -> int | None:
    """This machine's memory in bytes, or the container's limit when lower
    (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``); None when
    unknown."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            sizes.append(int(Path(limit).read_text().strip()))
        except (OSError, ValueError):  # absent, or "max": no limit
            pass
    sizes = [n for n in sizes if n > 0]
    return min(sizes) if sizes else None


def _size(n: int) -> str:
    """Bytes for a message: ``3.2 GB``, ``512 MB``."""
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def check_committee(size: int, templates: Sequence[str], ratios: Sequence[float], draw: str,
                    *, n_train: int, n_words: int, n_chars: int, where: str) -> None:
    """Refuse, before any member is drawn, a committee that cannot fit in
    memory or whose members would be identical (:class:`ConfigError` named
    ``where``); warn when ``draw: grid`` leaves cells of the grid out.

    The memory needed is :func:`memory_needed`; it must not exceed
    :func:`physical_memory` (a run that swaps or is killed by the kernel's
    out-of-memory killer after hours of training helps no one).
    """
    problem = identical_members(size, templates, ratios, n_train)
    if problem is not None:
        raise ConfigError(where, [f"committee.ratios: {problem}"])
    need, have = memory_needed(size, n_words, n_chars), physical_memory()
    if have is not None and need > have:
        fit = max(0, have // memory_needed(1, n_words, n_chars))
        raise ConfigError(where, [
            f"committee.size: {size} members need about {_size(need)} of memory for their marks "
            f"and segmentations of the {n_words:,} test words ({n_chars:,} characters), more "
            f"than the {_size(have)} this machine has; lower committee.size (at most {fit:,} "
            "fit) or score a smaller test set"])
    left = grid_left_out(size, templates, ratios) if draw == "grid" else []
    if left:
        cells = len(templates) * len(ratios)
        warnings.warn(PlausibilityWarning(
            f"{where}: committee.size: draw: grid with {size} members covers {size} of the "
            f"{cells} cells of templates × ratios; left out: {', '.join(left)} (raise "
            f"committee.size to {cells}, or use draw: random)"), stacklevel=2)


# --------------------------------------------------------------------------
# the C library's rand()


def crfsuite_seed(member: Member) -> int:
    """Seed of crfsuite's C ``rand()`` for ``member`` (shuffling algorithms only).

    Derived from ``SeedSequence(member.seed, spawn_key=(member.index, 0))``,
    a stream independent of the member's draw and sample.

    >>> crfsuite_seed(draw_member(0, 10, ("F1",), (0.5,), seed=0)) >= 0
    True
    """
    import numpy as np

    ss = np.random.SeedSequence(member.seed, spawn_key=(member.index, 0))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


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
    (:func:`run_member`'s arguments).

    Attributes
    ----------
    member : Member
    train_words : list
        The member's own training sentences (``member_sample``) in the
        task's form (lists of words; ``(characters, tags)`` for entities),
        so that a worker receives only what it needs.
    test_chars : sequence
        What the members tag of every test sentence
        (:meth:`committee.tasks.Task.items`: its characters, or its gold
        words for a task whose items are words).
    test_gold_words : list
        The gold units of the same sentences (words; entities; tagged words).
    algorithm : str
    params : dict
        The trainer's algorithm and parameters.
    workdir : str
        Directory of its temporary model file.
    keep_model : bool
        Keep the model (``output.keep_models``).
    trainer : str
        Name of its trainer in :data:`committee.learners.trainers.TRAINERS`.
    task : str
        Name of its task in :data:`committee.tasks.TASKS`.
    """

    member: Member
    train_words: list
    test_chars: Sequence[str]
    test_gold_words: list
    algorithm: str
    params: dict
    workdir: str
    keep_model: bool = False
    trainer: str = trainers.DEFAULT_TRAINER
    task: str = tasks_mod.DEFAULT_TASK

    @property
    def index(self) -> int:
        """The member's index (names the task in a pool)."""
        return self.member.index

    def run(self) -> MemberResult:
        """:func:`run_member` on this task."""
        return run_member(self.member, self.train_words, self.test_chars, self.test_gold_words,
                          self.algorithm, self.params, self.workdir, keep_model=self.keep_model,
                          trainer=self.trainer, task=self.task)


def _check_member_inputs(member: Member, train_words, test_chars, test_gold_words,
                         task) -> None:
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


def run_member(member: Member, train_words: list[list[str]], test_chars: Sequence[str],
               test_gold_words: list[list[str]], algorithm: str, params: dict,
               workdir: str | os.PathLike, keep_model: bool = False, *,
               trainer: str = trainers.DEFAULT_TRAINER,
               task: str = tasks_mod.DEFAULT_TASK) -> MemberResult:
    """Train ``member`` on its sentences, tag the test set, mark the gold units.

    Parameters
    ----------
    member : Member
    train_words : list of list of str
        The member's own training sentences, i.e. ``[train[i] for i in
        member_sample(member, len(train))]``; so a worker receives only what
        it needs.  Empty sentences are skipped.
    test_chars : sequence
        What the member tags of every test sentence (its characters; its
        gold words for a task whose items are words, :meth:`committee.tasks.Task.items`).
    test_gold_words : list
        The gold units of the same sentences (its words for segmentation).
    algorithm, params
        The trainer's algorithm and parameters (checked first, by the trainer).
    workdir : path
        Directory for the temporary model file (created if missing).
    keep_model : bool
        Keep the model as :func:`committee.pipeline.layout.model_path` below
        ``workdir`` (moved there atomically); otherwise it is removed.
    trainer : str
        Name of the trainer in :data:`committee.learners.trainers.TRAINERS`.
    task : str
        Name of the task in :data:`committee.tasks.TASKS`: ``train_words``
        and ``test_gold_words`` are its training sentences and gold units.

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
    k = member.index
    problems = trainers.check_params(algorithm, params, trainer)
    if problems:
        raise ConfigError("crf", problems)
    kind = tasks_mod.get(task)
    _check_member_inputs(member, train_words, test_chars, test_gold_words, kind)
    sentences = [s for s in train_words if s]
    if not sentences:
        raise RunError(f"member {k}: all {len(train_words)} training sentences are empty")
    chosen = trainers.TRAINERS[trainer]
    keep_as = layout.model_path(workdir, k, chosen.model_suffix) if keep_model else None
    pred, timings = trainers.train_and_tag(
        chosen, kind, sentences, member.template, test_chars, algorithm, params, workdir,
        rand_seed=crfsuite_seed(member), prefix=layout.model_temp_prefix(k), keep_as=keep_as)
    lengths = [len("".join(items)) for items in test_chars]  # characters, whatever the items
    g_spans, p_spans, m, _ = tasks_mod.match(kind, lengths, test_gold_words, pred)
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


#: A committee whose first members score a median f1 below this is stopped:
#: CRF segmenters trained on a tenth of any real corpus score 0.8 and more
#: (docs/results.md); below 0.5 the corpora were read wrongly, or the
#: members train on too few sentences.
MIN_MEDIAN_F1 = 0.5

#: How many members are finished before :func:`check_first_members` judges.
FIRST_MEMBERS = 3

#: Members trained on fewer sentences than this are too small to judge a
#: test set by: on People's Daily, CRFs (F2, L-BFGS, 100 iterations) score
#: a median f1 of 0.46 on 1 or 2 sentences, 0.56 on 5, 0.59 on 10, 0.66 on
#: 20 and 0.77 on 100 (docs/method.md §10).
SMALL_SAMPLE = 20


def _samples(samples: Sequence[tuple[int, float]], n_train: int) -> str:
    """The members' samples in a few words.

    >>> _samples([(2, 0.3), (1, 0.1), (1, 0.2)], 5), _samples([(2, 0.1)], 20)
    ('1 to 2 sentences (10% to 30% of 5)', '2 sentences (10% of 20)')
    """
    sizes = sorted({k for k, _ in samples})
    ratios = sorted({r for _, r in samples})
    size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    share = f"{ratios[0]:.0%}" if len(ratios) == 1 else f"{ratios[0]:.0%} to {ratios[-1]:.0%}"
    return f"{size} sentence{'s' * (sizes[-1] != 1)} ({share} of {n_train})"


def check_first_members(f1s: Sequence[float | None], size: int, train: str = "the training corpus",
                        test: str = "the test corpus",
                        samples: Sequence[tuple[int, float]] = (), n_train: int | None = None,
                        *, task=None) -> bool:
    """Stop a committee whose first members cannot segment the test set.

    Parameters
    ----------
    f1s : sequence of float or None
        f1 of the members finished so far (None: undefined).
    size : int
        Members in the committee.
    train, test : str
        How messages name the two corpora (e.g. their config keys and files).
    samples : sequence of (int, float)
        The same members' training sample sizes and ratios; with ``n_train``
        (the training sentences), samples all below :data:`SMALL_SAMPLE` are
        named as the likely cause.

    Returns
    -------
    bool
        True once judged (``min(FIRST_MEMBERS, size)`` members finished and
        their median f1 is at least :data:`MIN_MEDIAN_F1`, or the ``task``'s
        own ``min_median_f1``); False while
        too few are finished.

    Raises
    ------
    RunError
        The median f1 is below :data:`MIN_MEDIAN_F1`.

    Examples
    --------
    >>> check_first_members([0.91], 12), check_first_members([0.91, 0.9, 0.93], 12)
    (False, True)
    >>> check_first_members([0.06, 0.05, 0.07], 12, "corpus.train raw.txt (sighan, utf-8)")
    Traceback (most recent call last):
    ...
    committee.errors.RunError: the first 3 members of 12 score a median f1 of 0.060 (below 0.5): they cannot segment the test set, so every word would look hard; are the format and encoding of corpus.train raw.txt (sighan, utf-8) and the test corpus right? Fix the config and rerun with --restart
    >>> check_first_members([0.3, 0.35, 0.4], 12, "corpus.train t.txt (sighan, utf-8)",
    ...                     samples=[(2, 0.3), (1, 0.1), (1, 0.2)], n_train=5)
    Traceback (most recent call last):
    ...
    committee.errors.RunError: the first 3 members of 12 score a median f1 of 0.350 (below 0.5): they cannot segment the test set, so every word would look hard; they train on 1 to 2 sentences (10% to 30% of 5), too few to learn segmentation from (fewer than 20): give corpus.train t.txt (sighan, utf-8) more sentences (hundreds or more) or raise committee.ratios, then rerun with --restart
    """
    if len(f1s) < min(FIRST_MEMBERS, size):
        return False
    values = sorted(v if isinstance(v, (int, float)) and math.isfinite(v) else 0.0 for v in f1s)
    n = len(values)
    median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    least = MIN_MEDIAN_F1 if task is None else task.min_median_f1
    if median >= least:
        return True
    does, unit, what = (("segment the test set", "word", "segmentation") if task is None
                        else (task.does, task.unit, task.learns))
    head = (f"the first {n} members of {size} score a median f1 of {median:.3f} (below "
            f"{least}): they cannot {does}, so every {unit} would look hard; ")
    if samples and n_train is not None and max(k for k, _ in samples) < SMALL_SAMPLE:
        raise RunError(
            f"{head}they train on {_samples(samples, n_train)}, too few to learn {what} "
            f"from (fewer than {SMALL_SAMPLE}): give {train} more sentences (hundreds or more) "
            "or raise committee.ratios, then rerun with --restart")
    raise RunError(
        f"{head}are the format and encoding of {train} and {test} right? Fix the config and "
        "rerun with --restart")
