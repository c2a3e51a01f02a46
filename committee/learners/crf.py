"""The CRF: train a python-crfsuite model and tag with it (the task decodes
the tags, :mod:`committee.tasks`).

python-crfsuite behind the :class:`committee.learners.trainers.Trainer` interface
(:data:`CRFSUITE`, :class:`CrfsuiteTrainer`): committee members
(:func:`committee.learners.members.run_member`) and the report's Table 2 models both
train and tag through :func:`committee.learners.trainers.train_and_tag`.  This
module is the one home of its defaults (python-crfsuite's own,
:func:`trainer_defaults`; the config's, :data:`PARAM_DEFAULTS`; the member
recipes, :data:`PRESETS`) and of the checks of its parameters
(:func:`check_crf_params`, the one rule set, which :mod:`committee.config`
applies when a config is loaded and :func:`train_model` before it trains).

Training and decoding
---------------------
Members are linear-chain CRFs over BMES tags trained with python-crfsuite
directly (``pycrfsuite.Trainer`` / ``pycrfsuite.Tagger``), on the attributes
of :mod:`committee.learners.features`.  A member's model lives in a temporary file
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

Training attributes differ for every member; :func:`train_examples` builds them
one sentence at a time while crfsuite takes them in (``Trainer.append``
copies them), so they never all exist as Python objects at once.

Cost of one member (docs/benchmarks.md, "Committee member cost"): an F2
member on 10% of the embedded training split (1,754 sentences, 170k
characters), L-BFGS with c2 = 1.0 and 100 iterations, takes 0.5 s for
attributes, 1.4 s for ``append``, 10.8 s to train and 0.3 s to tag the test
split, f1 89.42 (measured with offsets-first attribute names; with the
characters first, :mod:`committee.learners.features`, ``append`` takes 1.3-1.8
times less).  The same member written with sklearn-crfsuite and
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
import threading
import time
import warnings
from typing import Sequence

import pycrfsuite

from committee.errors import ConfigError
from committee.learners.features import TEMPLATES, attributes, check_template, corpus_attributes

ALGORITHMS = ("lbfgs", "l2sgd", "ap", "pa", "arow")
"""python-crfsuite training algorithms."""

#: Values of ``linesearch`` (L-BFGS).
LINESEARCH = ("MoreThuente", "Backtracking", "StrongBacktracking")
#: Integer parameters with a lower bound above 0 (all others: >= 0).
_MINIMUM = {"max_iterations": 1}

_SHUFFLING = {"l2sgd", "ap", "averaged-perceptron", "pa", "passive-aggressive", "arow"}


#: The member recipes a config names with ``crf.preset`` (docs/method.md §10):
#: the training algorithm and the parameters it fills in.
#:
#: * ``paper``: L-BFGS with a strong L1 penalty, c1 = 1.0, c2 = 0, 100
#:   iterations; the default and the reference, the recipe whose
#:   difficulties agree best with the authors' released ones
#:   (docs/method.md §10, "The reference recipe").
#: * ``fast``: L2-SGD with c2 = 0.1 and 10 epochs, about a third of
#:   ``paper``'s CPU time for close difficulties (docs/method.md §10 and
#:   docs/benchmarks.md, "Member recipes").
#: * ``elastic``: L-BFGS with elastic net, c1 = c2 = 0.1, 100 iterations;
#:   the reference before it was calibrated on the released difficulties
#:   (runs made under it are reproduced with it).
#: * ``legacy``: L-BFGS, c2 = 1.0, 100 iterations, the default before that.
PRESETS: dict[str, dict] = {
    "paper": {"algorithm": "lbfgs", "params": {"c1": 1.0, "c2": 0.0, "max_iterations": 100}},
    "fast": {"algorithm": "l2sgd",
             "params": {"c2": 0.1, "max_iterations": 10, "calibration.samples": 300,
                        "calibration.candidates": 5}},
    "elastic": {"algorithm": "lbfgs",
                "params": {"c1": 0.1, "c2": 0.1, "max_iterations": 100}},
    "legacy": {"algorithm": "lbfgs", "params": {"c2": 1.0, "max_iterations": 100}},
}

#: The preset of a ``crf`` section that names none.
DEFAULT_PRESET = "paper"

#: Values of parameters that neither ``crf.params`` nor the preset sets,
#: where the algorithm has them (the config's defaults); the others take
#: python-crfsuite's own (:func:`trainer_defaults`).
PARAM_DEFAULTS = {"c2": 1.0, "max_iterations": 100}


def resolve_preset(section) -> tuple[dict | None, list[str]]:
    """Expand a ``crf`` config section's ``preset`` into its algorithm and parameters.

    The preset (``paper`` when none is named) fills ``algorithm`` and the
    parameters the section does not set itself; ``params`` the section sets
    override the preset's.  A section that names an ``algorithm`` other than
    the default preset's, without a preset, gets no preset: python-crfsuite's
    own defaults fill the rest.  ``preset: null`` asks for none.

    Returns
    -------
    (section, problems)
        The section with ``preset``, ``algorithm`` and the merged ``params``
        (``None`` when it is not a mapping, left to the schema), and
        ``"preset: message"`` lines.

    Examples
    --------
    >>> resolve_preset({"preset": "paper", "params": {"max_iterations": 50}})[0]
    {'preset': 'paper', 'algorithm': 'lbfgs', 'params': {'c1': 1.0, 'c2': 0.0, 'max_iterations': 50}}
    >>> resolve_preset({"algorithm": "ap"})[0]
    {'preset': None, 'algorithm': 'ap', 'params': {}}
    >>> resolve_preset({"preset": "fsat"})[1]
    ["preset: unknown preset 'fsat'; did you mean 'fast'? valid: paper, fast, elastic, legacy"]
    """
    if section is None:
        section = {}
    if not isinstance(section, dict):
        return None, []
    algorithm = section.get("algorithm")
    if "preset" in section:
        name = section["preset"]
    elif algorithm is None or algorithm == PRESETS[DEFAULT_PRESET]["algorithm"]:
        name = DEFAULT_PRESET
    else:
        name = None
    rest = {k: v for k, v in section.items() if k not in ("preset", "algorithm", "params")}
    if name is None:
        params = section.get("params")
        return {"preset": None, "algorithm": algorithm or "lbfgs",
                "params": {} if params is None else params, **rest}, []
    if not isinstance(name, str) or name not in PRESETS:
        close = difflib.get_close_matches(str(name), list(PRESETS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return None, [f"preset: unknown preset {name!r}; {hint}valid: {', '.join(PRESETS)}"]
    preset = PRESETS[name]
    if algorithm is not None and algorithm != preset["algorithm"]:
        return None, [f"algorithm: preset {name!r} trains with {preset['algorithm']!r}, not "
                      f"{algorithm!r}; drop one of crf.preset and crf.algorithm"]
    params = section.get("params")
    if params is None:
        params = {}
    params = {**preset["params"], **params} if isinstance(params, dict) else params
    return {"preset": name, "algorithm": preset["algorithm"], "params": params, **rest}, []


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def trainer_defaults(algorithm: str) -> dict:
    """python-crfsuite's parameter names of ``algorithm`` and their defaults
    (whose types are the parameters' types).

    >>> trainer_defaults("lbfgs")["max_iterations"]
    2147483647
    """
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    return {name: trainer.get(name) for name in trainer.params()}


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
            if value not in LINESEARCH:
                problems.append(f"params.{name}: must be one of {', '.join(LINESEARCH)}, "
                                f"got {value!r}")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                problems.append(f"params.{name}: must be true or false, got {value!r}")
        elif isinstance(default, int):
            if not _is_int(value):
                problems.append(f"params.{name}: must be an integer, got {value!r}")
            elif value < _MINIMUM.get(name, 0):
                problems.append(f"params.{name}: must be >= {_MINIMUM.get(name, 0)}, "
                                f"got {value!r}")
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                problems.append(f"params.{name}: must be a number, got {value!r}")
            elif not math.isfinite(value):
                problems.append(f"params.{name}: must be a finite number, got {value!r}")
            elif value < 0:
                problems.append(f"params.{name}: must be >= 0, got {value!r}")
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
    # the process's own symbols first; find_library runs ldconfig, so only if needed
    for lib in (None, "find"):
        if lib == "find":
            lib = ctypes.util.find_library("c")
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


def train_model(xseqs_attrs, yseqs_tags, algorithm: str, params: dict,
                model_path: str | os.PathLike, *, rand_seed: int = 1) -> dict[str, float]:
    """Train a CRF with python-crfsuite and write it to ``model_path``.

    Parameters
    ----------
    xseqs_attrs : sequence
        Per sentence, the attribute lists of its characters
        (:func:`committee.learners.features.attributes`) or a ``pycrfsuite.ItemSequence``.
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
        ``append_s`` and ``train_s``, wall-clock seconds; and, as crfsuite
        reports them in its training log, the parts of ``train_s`` spent in
        ``featgen_s`` (crfsuite building its features from the attributes),
        ``optimise_s`` (the training algorithm, calibration included) and
        ``store_s`` (writing the model).

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
    out = {"append_s": t1 - t0, "train_s": t2 - t1}
    log = trainer.logparser  # pycrfsuite parses crfsuite's log even when not verbose
    stored = log.storing_seconds
    if stored is None and log.state == "STORING":
        stored = 0.0  # crfsuite printed "0.000", which pycrfsuite's parser passes over
    for key, seconds in (("featgen_s", log.featgen_seconds), ("optimise_s", log.training_seconds),
                         ("store_s", stored)):
        if seconds is not None:
            out[key] = seconds
    return out


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

    # the header and the first 8 bytes of each chunk: a model is tens of MB
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        header = f.read(48)
        declared = int.from_bytes(header[4:8], "little") if header[:4] == b"lCRF" else None
        what = f"{size} of {declared} bytes" if declared else f"{size} bytes, no model header"
        if declared == size and size >= 48:
            offsets = list(struct.unpack_from("<5I", header, 28))
            heads = []
            for o in offsets:
                f.seek(o)
                heads.append(f.read(8))
            magics = [h[:4] for h in heads]
            ends = [o + int.from_bytes(h[4:8], "little") for o, h in zip(offsets, heads)]
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
# the trainer: train on tagged characters, tag characters


def train_examples(examples: Sequence[tuple[str | tuple[str, ...], Sequence[str]]], template: str,
                   algorithm: str, params: dict, model_path: str | os.PathLike, *,
                   rand_seed: int = 1) -> dict[str, float]:
    """Train a CRF on ``examples`` (``(items, one tag per item)`` each, from
    :meth:`committee.tasks.Task.example`: characters as a string for the
    character templates, words as a tuple for the word templates) with
    ``template``'s attributes and write it to ``model_path``.

    The attributes are built one sentence at a time while crfsuite takes them
    in, so their Python lists never all exist at once (crfsuite keeps its own
    compact copy); their build time is still reported apart.

    Returns
    -------
    dict
        Seconds spent in ``attributes_s`` (the training attributes),
        ``append_s``, ``train_s`` and crfsuite's own parts of ``train_s``
        (:func:`train_model`).
    """
    yseqs = [tags for _, tags in examples]
    build_s = [0.0]

    def xseqs():
        for items, _ in examples:
            t = time.perf_counter()
            x = attributes(items, template)
            build_s[0] += time.perf_counter() - t
            yield x

    t = train_model(xseqs(), yseqs, algorithm, params, model_path, rand_seed=rand_seed)
    timings = {"attributes_s": build_s[0], "append_s": t["append_s"] - build_s[0]}
    timings.update((k, v) for k, v in t.items() if k != "append_s")
    return timings


def tag(model_path: str | os.PathLike, test_items: Sequence,
        template: str) -> list[list[str]]:
    """The tags of every test sentence (its characters, or its words for
    the word templates), by the Viterbi path of a trained model over
    ``template``'s attributes (cached, :func:`test_attributes`)."""
    return tag_sentences(model_path, test_attributes(test_items, template))


class CrfsuiteTrainer:
    """python-crfsuite behind the :class:`committee.learners.trainers.Trainer` interface:
    the one home of its algorithms, member recipes (:data:`PRESETS`), the
    package's parameter defaults (:data:`PARAM_DEFAULTS`), python-crfsuite's
    own (:func:`trainer_defaults`) and the checks of parameters
    (:func:`check_crf_params`).

    >>> CRFSUITE.fingerprint("lbfgs", {"c2": 1.0})
    {'algorithm': 'lbfgs', 'params': {'c2': 1.0}}
    """

    name = "crfsuite"
    model_suffix = ".crfsuite"
    algorithms = ALGORITHMS
    presets = PRESETS
    default_preset = DEFAULT_PRESET
    #: String parameters that take one of a few values (the config's schema lists them).
    choices = {"linesearch": LINESEARCH}

    def parameters(self, algorithm: str) -> dict[str, tuple]:
        """Every parameter of ``algorithm`` as ``name: (python-crfsuite's
        default, the config's default)``: the first gives the parameter's
        type (:func:`trainer_defaults`), the second is :data:`PARAM_DEFAULTS`'
        value or None (python-crfsuite's own applies).

        >>> CRFSUITE.parameters("lbfgs")["c2"], CRFSUITE.parameters("lbfgs")["c1"]
        ((1.0, 1.0), (0.0, None))
        """
        return {name: (default, PARAM_DEFAULTS.get(name))
                for name, default in trainer_defaults(algorithm).items()}

    def resolve_preset(self, section) -> tuple[dict | None, list[str]]:
        """:func:`resolve_preset`."""
        return resolve_preset(section)

    def check_params(self, algorithm: str, params: dict) -> list[str]:
        """:func:`check_crf_params`."""
        return check_crf_params(algorithm, params)

    def train(self, examples, template, algorithm, params, model_path, *, rand_seed=1):
        """:func:`train_examples`."""
        return train_examples(examples, template, algorithm, params, model_path,
                              rand_seed=rand_seed)

    def tag(self, model_path, test_items, template):
        """:func:`tag`."""
        return tag(model_path, test_items, template)

    def fingerprint(self, algorithm: str, params: dict) -> dict:
        """What identifies a model of this trainer in a run's recipe and
        manifest: its algorithm and parameters."""
        return {"algorithm": algorithm, "params": dict(params)}


#: The python-crfsuite trainer (``crf.trainer: crfsuite``, the default).
CRFSUITE = CrfsuiteTrainer()
