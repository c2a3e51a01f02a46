"""Drawing the committee's members (docs/method.md §3): who they are.

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

Member ``k``'s seed of the C library's ``srand()`` (shuffling algorithms)
is :func:`crfsuite_seed`, from a stream of its own.
:mod:`committee.learners.members` re-exports every name here.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from committee.learners.features import TEMPLATES

if TYPE_CHECKING:
    import numpy as np

# numpy is imported where used: config takes DRAWS from here (through
# committee.learners.members), and reading a config must stay cheap
# (docs/benchmarks.md).

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
