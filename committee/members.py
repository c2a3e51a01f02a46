"""The committee's members (METHOD.md §3): who they are, how each one is
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
Members are linear-chain CRFs over BMES tags trained with python-crfsuite
directly (``pycrfsuite.Trainer`` / ``pycrfsuite.Tagger``), on the attributes
of :mod:`committee.features`.  A member's model lives in a temporary file
inside the run's work directory and is removed once the test set is tagged,
unless it is asked to be kept.

Determinism (measured with python-crfsuite 0.9.12, two separate processes
training the same data, model files compared byte by byte):

* ``lbfgs`` is deterministic: the same data and parameters give the same
  model bytes in any process and on any repetition within a process.
* ``ap``, ``pa``, ``arow`` and ``l2sgd`` shuffle the training instances
  every epoch with the C library's process-global ``rand()``.  Without
  care, the first model trained in a fresh process is reproducible but the
  second differs (the ``rand()`` state has moved on), so a member's result
  would depend on which worker ran it and what it ran before.
  :func:`train_model` therefore calls the C library's ``srand()`` with a
  seed derived from the member right before training (through ``ctypes``;
  crfsuite resolves ``rand`` from the same libc) and holds a lock while
  doing so, so threads in one process cannot interleave.  With that, every
  algorithm gives byte-identical models and marks whatever process runs the
  member.  Where libc's ``srand`` cannot be found (not the case on Linux or
  macOS), the shuffling algorithms are reproducible only one model per
  fresh process, and a warning says so.
* Tagging (Viterbi) is deterministic.

Test-set attributes
-------------------
Every member with the same template tags the same test set with the same
attributes.  :func:`test_attributes` builds them once per process and
template as ``pycrfsuite.ItemSequence`` objects and keeps the last three
in an LRU cache keyed by the template and the tuple of test sentences (the
simplest key that is always right; hashing 2,000 strings costs microseconds).
An ``ItemSequence`` holds the attributes in C++: for F2 on the 170k
characters of the embedded test split about 30 MB of resident memory,
against about 150 MB for the same attributes as Python lists, and tagging
from it skips the conversion.  A worker that runs many members so pays the
cost (about 0.5 s) once per template.

Training attributes differ for every member; :func:`run_member` builds them
one sentence at a time while crfsuite takes them in (``Trainer.append``
copies them), so they never all exist as Python objects at once.

Cost of one member (docs/benchmarks.md, "Committee member cost"): an F2
member on 10% of the embedded training split (1,754 sentences, 170k
characters), L-BFGS with c2 = 1.0 and 100 iterations, takes 0.5 s for
attributes, 1.4 s for ``append``, 10.8 s to train and 0.3 s to tag the test
split, f1 89.42.  The same member written with sklearn-crfsuite and
``{attribute: 1.0}`` feature dicts gives identical tags in about the same
time (training dominates and is the same C code) but twice the peak memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import difflib
import functools
import math
import numbers
import os
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pycrfsuite

from committee import runlock
from committee.corpus import from_bmes, to_bmes
from committee.errors import ConfigError, RunError, UndefinedMetricWarning
from committee.features import TEMPLATES, attributes, check_template, corpus_attributes
from committee.spans import marks as span_marks
from committee.spans import spans

DRAWS = ("random", "grid")
"""Draw policies of :func:`draw_member`."""

ALGORITHMS = ("lbfgs", "l2sgd", "ap", "pa", "arow")
"""python-crfsuite training algorithms."""

_SHUFFLING = {"l2sgd", "ap", "averaged-perceptron", "pa", "passive-aggressive", "arow"}
_LINESEARCH = ("MoreThuente", "Backtracking", "StrongBacktracking")


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


def _sample_size(ratio: float, n_train: int) -> int:
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
    return Member(int(k), template, ratio, _sample_size(ratio, int(n_train)), int(seed),
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
    rng = _member_rng(seed, member.index)
    _draw(rng, member.index, member.templates, member.ratios, member.draw)
    idx = rng.choice(member.n_train, size=member.n_sentences, replace=False)
    return np.sort(idx).astype(np.int64)


# --------------------------------------------------------------------------
# CRF parameters


def check_crf_params(algorithm: str, params: dict) -> list[str]:
    """Every problem with a python-crfsuite algorithm and parameter dict.

    Names are checked against ``pycrfsuite.Trainer(algorithm).params()``;
    values against the type of python-crfsuite's default (crfsuite itself
    would silently read ``c2: "abc"`` as 0 and ``max_iterations: 2.5`` as 2).

    Returns
    -------
    list of str
        ``"params.NAME: message"`` lines; empty when all is well.

    Examples
    --------
    >>> check_crf_params("lbfgs", {"c2": 1.0, "max_iterations": 50})
    []
    >>> for p in check_crf_params("lbfgs", {"max_iteration": 50, "c2": "1"}): print(p)
    ... # doctest: +ELLIPSIS
    params.max_iteration: unknown parameter of algorithm 'lbfgs'; did you mean 'max_iterations'? (valid: ...)
    params.c2: must be a number, got '1'
    """
    try:
        trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    except (ValueError, TypeError, AttributeError):
        return [f"algorithm: unknown training algorithm {algorithm!r}; "
                f"expected one of {', '.join(ALGORITHMS)}"]
    if not isinstance(params, dict):
        return [f"params: must be a mapping of parameter names to values, got {params!r}"]
    valid = trainer.params()
    problems = []
    for name, value in params.items():
        if name not in valid:
            close = difflib.get_close_matches(str(name), valid, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            problems.append(f"params.{name}: unknown parameter of algorithm {algorithm!r}; "
                            f"{hint}(valid: {', '.join(valid)})")
            continue
        default = trainer.get(name)
        if name == "linesearch":
            if value not in _LINESEARCH:
                problems.append(f"params.{name}: must be one of {', '.join(_LINESEARCH)}, "
                                f"got {value!r}")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                problems.append(f"params.{name}: must be true or false, got {value!r}")
        elif isinstance(default, int):
            if not _is_int(value):
                problems.append(f"params.{name}: must be an integer, got {value!r}")
            elif value < 0:
                problems.append(f"params.{name}: must be >= 0, got {value!r}")
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                problems.append(f"params.{name}: must be a number, got {value!r}")
            elif not (math.isfinite(value) and value >= 0):
                problems.append(f"params.{name}: must be a finite number >= 0, got {value!r}")
        elif not isinstance(value, str):
            problems.append(f"params.{name}: must be a string, got {value!r}")
    return problems


def _trainer(algorithm: str, params: dict) -> pycrfsuite.Trainer:
    problems = check_crf_params(algorithm, params)
    if problems:
        raise ConfigError("crf", problems)
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    try:
        trainer.set_params(params)
    except ValueError as exc:  # not expected after the check; keep the message clear
        raise ConfigError("crf", [f"params: python-crfsuite rejected them: {exc}"]) from None
    return trainer


# --------------------------------------------------------------------------
# training and tagging


def _find_srand():
    for lib in (None, ctypes.util.find_library("c")):
        try:
            srand = ctypes.CDLL(lib).srand
        except (OSError, AttributeError, TypeError):
            continue
        srand.argtypes = [ctypes.c_uint]
        srand.restype = None
        return srand
    return None


_SRAND = _find_srand()
_RAND_LOCK = threading.Lock()


def crfsuite_seed(member: Member) -> int:
    """Seed of crfsuite's C ``rand()`` for ``member`` (shuffling algorithms only).

    Derived from ``SeedSequence(member.seed, spawn_key=(member.index, 0))``,
    a stream independent of the member's draw and sample.

    >>> crfsuite_seed(draw_member(0, 10, ("F1",), (0.5,), seed=0)) >= 0
    True
    """
    ss = np.random.SeedSequence(member.seed, spawn_key=(member.index, 0))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def train_model(xseqs_attrs, yseqs_tags, algorithm: str, params: dict,
                model_path: str | os.PathLike, *, rand_seed: int = 1) -> dict[str, float]:
    """Train a CRF with python-crfsuite and write it to ``model_path``.

    Parameters
    ----------
    xseqs_attrs : sequence
        Per sentence, the attribute lists of its characters
        (:func:`committee.features.attributes`) or a ``pycrfsuite.ItemSequence``.
    yseqs_tags : sequence
        Per sentence, its BMES tags (a string such as ``"BES"`` or a list).
    algorithm : str
        ``lbfgs``, ``l2sgd``, ``ap``, ``pa`` or ``arow``.
    params : dict
        ``pycrfsuite`` parameters, e.g. ``{"c2": 1.0, "max_iterations": 100}``.
    model_path : path
    rand_seed : int
        Seed given to the C library's ``srand()`` just before training, so that
        the algorithms that shuffle (all but ``lbfgs``) are reproducible.  The
        default 1 is libc's own initial seed.

    Returns
    -------
    dict
        ``append_s`` and ``train_s``, wall-clock seconds.

    Raises
    ------
    ConfigError
        Unknown algorithm, unknown parameter or ill-typed value (all listed).
    ValueError
        A sentence whose attributes and tags differ in length, or no
        non-empty sentence.  Empty sentences are skipped.
    """
    trainer = _trainer(algorithm, params)
    t0 = time.perf_counter()
    n = 0
    for i, (x, y) in enumerate(zip(xseqs_attrs, yseqs_tags, strict=True)):
        if len(x) != len(y):
            raise ValueError(f"training sentence {i}: {len(x)} characters but {len(y)} tags")
        if len(y) == 0:
            continue
        trainer.append(x if isinstance(x, pycrfsuite.ItemSequence) else pycrfsuite.ItemSequence(x),
                       list(y))
        n += 1
    if n == 0:
        raise ValueError("no non-empty training sentence to train on")
    t1 = time.perf_counter()
    shuffles = trainer.__class__._ALGORITHM_ALIASES.get(algorithm, algorithm) in _SHUFFLING
    if shuffles and _SRAND is None:
        warnings.warn(f"cannot seed the C library's rand(): {algorithm!r} models are "
                      "reproducible only for the first model trained in a process",
                      RuntimeWarning, stacklevel=2)
    with _RAND_LOCK:
        if shuffles and _SRAND is not None:
            _SRAND(int(rand_seed) & 0xFFFFFFFF)
        trainer.train(str(model_path))
    check_model_file(model_path)
    t2 = time.perf_counter()
    return {"append_s": t1 - t0, "train_s": t2 - t1}


def check_model_file(path: str | os.PathLike) -> None:
    """Raise :class:`OSError` unless ``path`` is a whole crfsuite model.

    crfsuite does not check its writes: on a full disk it leaves a truncated
    model, or one whose later parts moved up over a lost buffer, which the
    tagger then rejects or, worse, reads past its end (a segfault) or uses
    with wrong weights.  A model starts with ``lCRF``, its own size in bytes
    (uint32, little-endian) and the offsets of its five chunks (``FEAT``,
    two ``CQDB``, ``LFRF``, ``AFRF``), each of which starts with its magic
    and its size, the chunks laid end to end up to the end of the file
    (measured on python-crfsuite 0.9.12 models).  Anything else is an
    incomplete model.  The error is ``ENOSPC`` when the disk holding it is
    full, ``EIO`` otherwise.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "m.crfsuite"
    >>> _ = f.write_bytes(b"lCRF" + (100).to_bytes(4, "little") + bytes(20))
    >>> check_model_file(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    OSError: [Errno ...] crfsuite wrote an incomplete model (28 of 100 bytes): ...
    """
    import errno
    import shutil

    import struct

    with open(path, "rb") as f:
        data = f.read()
    size = len(data)
    declared = int.from_bytes(data[4:8], "little") if data[:4] == b"lCRF" else None
    what = f"{size} of {declared} bytes" if declared else f"{size} bytes, no model header"
    if declared == size and size >= 48:
        offsets = list(struct.unpack_from("<5I", data, 28))
        magics = [data[o:o + 4] for o in offsets]
        ends = [o + int.from_bytes(data[o + 4:o + 8], "little") for o in offsets]
        if (magics == [b"FEAT", b"CQDB", b"CQDB", b"LFRF", b"AFRF"]
                and all(e <= n < e + 4 for e, n in zip(ends, offsets[1:] + [size]))):
            return
        what = f"{size} bytes, its chunks do not match their offsets"
    missing = (declared or 0) - size
    try:
        free = shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free
        full = free <= max(missing, 0) or free < (1 << 20)
    except OSError:
        full = False
    raise OSError(errno.ENOSPC if full else errno.EIO,
                  f"crfsuite wrote an incomplete model ({what}): "
                  + ("the disk is full" if full else "is the disk full or failing?"))


def tag_sentences(model_path: str | os.PathLike, attrs_list) -> list[list[str]]:
    """BMES tags of every sentence, by the Viterbi path of a trained model.

    ``attrs_list`` holds per sentence the attribute lists of its characters
    or a ``pycrfsuite.ItemSequence``; an empty sentence gets no tags.
    """
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    try:
        return [tagger.tag(x) if len(x) else [] for x in attrs_list]
    finally:
        tagger.close()


@functools.lru_cache(maxsize=len(TEMPLATES))
def _cached_test_attributes(template: str, test_chars: tuple[str, ...]):
    return tuple(pycrfsuite.ItemSequence(a) for a in corpus_attributes(test_chars, template))


def test_attributes(test_chars: Sequence[str], template: str) -> tuple:
    """Attributes of the test sentences as ``pycrfsuite.ItemSequence`` objects.

    Cached per process (LRU, one entry per template) on the template and the
    tuple of sentences, so the members of one worker build them once per
    template.  Treat the result as read-only.

    >>> seqs = test_attributes(["我爱北京", ""], "F1")
    >>> [len(s) for s in seqs], test_attributes(["我爱北京", ""], "F1") is seqs
    ([4, 0], True)
    """
    check_template(template)
    return _cached_test_attributes(template, tuple(test_chars))


test_attributes.__test__ = False  # not a pytest test, despite its name
test_attributes.cache_clear = _cached_test_attributes.cache_clear


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
        Seconds spent in ``attributes_s`` (training and test attributes),
        ``append_s``, ``train_s`` and ``tag_s`` (tagging and cutting into
        words).  For logs and benchmarks only: nothing else depends on them.
    pred_ends : ndarray of bool, shape (C,), or None
        Its segmentation of the test set: over the test characters laid end to
        end (:func:`committee.spans.spans`), true at the last character of each
        predicted word.  With the test characters it gives back the predicted
        words, so later analyses (split-half reliability) need no retraining.
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


def _prf(c: int, n_gold: int, n_pred: int) -> tuple[float, float, float]:
    if n_pred == 0 or n_gold == 0:
        warnings.warn(f"member scores undefined: {n_gold} gold and {n_pred} predicted words",
                      UndefinedMetricWarning, stacklevel=3)
    p = c / n_pred if n_pred else math.nan
    r = c / n_gold if n_gold else math.nan
    f1 = 0.0 if p == 0 and r == 0 else 2 * p * r / (p + r)
    return p, r, f1


def run_member(member: Member, train_words: list[list[str]], test_chars: Sequence[str],
               test_gold_words: list[list[str]], algorithm: str, params: dict,
               workdir: str | os.PathLike, keep_model: bool = False) -> MemberResult:
    """Train ``member`` on its sentences, segment the test set, mark the gold words.

    Parameters
    ----------
    member : Member
    train_words : list of list of str
        The member's own training sentences, i.e. ``[train[i] for i in
        member_sample(member, len(train))]``; so a worker receives only what
        it needs.  Empty sentences are skipped.
    test_chars : sequence of str
        Characters of every test sentence.
    test_gold_words : list of list of str
        The gold segmentation of the same sentences.
    algorithm, params
        python-crfsuite training algorithm and parameters (checked first).
    workdir : path
        Directory for the temporary model file (created if missing).
    keep_model : bool
        Keep the model as ``workdir/models/member-{k:04d}.crfsuite``
        (moved there atomically); otherwise it is removed.

    Returns
    -------
    MemberResult

    Raises
    ------
    ConfigError
        Invalid algorithm or parameters, before any work is done.
    ValueError
        ``train_words`` is not the member's sample size, or test characters
        and gold words disagree.
    RunError
        All the member's training sentences are empty.
    """
    k = member.index
    problems = check_crf_params(algorithm, params)
    if problems:
        raise ConfigError("crf", problems)
    if len(train_words) != member.n_sentences:
        raise ValueError(f"member {k} trains on its {member.n_sentences} sampled sentences "
                         f"(member_sample), got {len(train_words)}")
    if len(test_chars) != len(test_gold_words):
        raise ValueError(f"{len(test_chars)} test sentences but {len(test_gold_words)} "
                         "gold segmentations")
    for i, (chars, words) in enumerate(zip(test_chars, test_gold_words)):
        if "".join(words) != chars:
            raise ValueError(f"test sentence {i}: gold words do not spell its characters")

    t0 = time.perf_counter()
    sentences = [s for s in train_words if s]
    if not sentences:
        raise RunError(f"member {k}: all {len(train_words)} training sentences are empty")
    train_chars = ["".join(s) for s in sentences]
    yseqs = [to_bmes(s) for s in sentences]
    test_seqs = test_attributes(test_chars, member.template)
    timings = {"attributes_s": time.perf_counter() - t0}

    # Training attributes are built one sentence at a time while crfsuite takes
    # them in, so their Python lists never all exist at once (crfsuite keeps
    # its own compact copy); their build time is still reported apart.
    build_s = [0.0]

    def xseqs():
        for chars in train_chars:
            t = time.perf_counter()
            x = attributes(chars, member.template)
            build_s[0] += time.perf_counter() - t
            yield x

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    # named after its owner: a resumed run removes it only once this process is gone
    fd, tmp = tempfile.mkstemp(prefix=f".member-{k:04d}-{runlock.owner_tag()}-",
                               suffix=".crfsuite", dir=workdir)
    os.close(fd)
    try:
        t = train_model(xseqs(), yseqs, algorithm, params, tmp, rand_seed=crfsuite_seed(member))
        timings["attributes_s"] += build_s[0]
        timings["append_s"] = t["append_s"] - build_s[0]
        timings["train_s"] = t["train_s"]
        del yseqs
        t0 = time.perf_counter()
        tags = tag_sentences(tmp, test_seqs)
        pred = [from_bmes(c, t) for c, t in zip(test_chars, tags)]
        timings["tag_s"] = time.perf_counter() - t0
        if keep_model:
            models = workdir / "models"
            models.mkdir(exist_ok=True)
            os.chmod(tmp, 0o644)
            os.replace(tmp, models / f"member-{k:04d}.crfsuite")
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass

    m = span_marks(test_gold_words, pred)
    pred_ends = np.zeros(sum(map(len, test_chars)), dtype=bool)
    pred_ends[spans(pred).ends - 1] = True
    c, n_gold, n_pred = int(m.sum()), int(m.size), sum(len(s) for s in pred)
    p, r, f1 = _prf(c, n_gold, n_pred)
    return MemberResult(index=k, marks=m, p=p, r=r, f1=f1, n_gold=n_gold, n_pred=n_pred,
                        n_correct=c, n_sentences=len(train_words),
                        n_train_chars=sum(map(len, train_chars)), timings=timings,
                        pred_ends=pred_ends)
