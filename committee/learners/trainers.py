"""Trainers: what learns a tagger from tagged characters and tags the test
set with it, for committee members (:func:`committee.learners.members.run_member`)
and the report's Table 2 models alike.

A trainer is an object with the :class:`Trainer` interface: it checks its
parameters (every problem as one line), trains a model file from training
sentences given as items (characters, or words for a task whose
:attr:`~committee.tasks.Task.item` is words) with one tag each (the task's
encoding, :mod:`committee.tasks`), tags test sentences with it, and names the fields
that identify its models in a run's recipe and manifest.  python-crfsuite
sits behind it as :data:`committee.learners.crf.CRFSUITE`.

Another trainer plugs in at one place, :data:`TRAINERS` (its name is the
value of the config key ``crf.trainer``; :data:`DEFAULT_TRAINER` when
unset).  :func:`train_and_tag` is the one train → tag path: it encodes
the task's training sentences, picks the feature template for the task's
items (:func:`committee.learners.features.template_for`: the word templates
W1-W3 for words), gives the trainer a temporary model file in
the work directory, keeps or removes it, decodes the tags into the task's
units and times the two steps.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
import os
import tempfile
import time
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

from committee.learners import crf
from committee.learners.features import template_for
from committee.errors import ConfigError
from committee.system.files import new_file_mode


@runtime_checkable
class Trainer(Protocol):
    """What the committee needs of a trainer.

    Attributes
    ----------
    name : str
        Its key in :data:`TRAINERS` (the value of ``crf.trainer``).
    model_suffix : str
        The suffix of its model files (``.crfsuite``).
    algorithms : tuple of str
        Values of ``crf.algorithm`` it knows.
    """

    name: str
    model_suffix: str
    algorithms: tuple[str, ...]

    def parameters(self, algorithm: str) -> dict[str, tuple]:
        """Every parameter of ``algorithm`` as ``name: (example, default)``:
        a value of the parameter's type, and the value a config that does
        not set it gets (None: the trainer's own)."""

    def resolve_preset(self, section) -> tuple[dict | None, list[str]]:
        """A ``crf`` config section with its ``preset`` expanded into
        ``algorithm`` and ``params``, and ``"key: message"`` problems."""

    def check_params(self, algorithm: str, params: dict) -> list[str]:
        """Every problem with ``algorithm`` and ``params``, one line each
        (``params.NAME: message`` or ``algorithm: message``); empty when
        all is well."""

    def train(self, examples: Sequence[tuple[str, Sequence[str]]], template: str,
              algorithm: str, params: dict, model_path: str | os.PathLike, *,
              rand_seed: int = 1) -> dict[str, float]:
        """Train on ``examples`` (``(items, one tag per item)``, non-empty;
        the items a string of characters, or a tuple of words for the word
        templates ``W1``-``W3``) with feature template ``template`` and write the model to
        ``model_path``; the same arguments and ``rand_seed`` give the same
        model.  Returns timings in seconds (``attributes_s``, ``append_s``,
        ``train_s``, ...), for logs."""

    def tag(self, model_path: str | os.PathLike, test_items: Sequence,
            template: str) -> list[list[str]]:
        """One tag per item of every test sentence (``test_items``: strings of
        characters, or tuples of words) by the model at ``model_path``; an
        empty sentence has none."""

    def fingerprint(self, algorithm: str, params: dict) -> dict:
        """The fields that identify its models (JSON values): they enter the
        run's recipe, so a change of any of them makes another run."""


#: The trainers ``crf.trainer`` can name: the one place a trainer plugs in.
TRAINERS: dict[str, Trainer] = {crf.CRFSUITE.name: crf.CRFSUITE}

#: The trainer of a config that names none.
DEFAULT_TRAINER = crf.CRFSUITE.name


def get(name: str = DEFAULT_TRAINER) -> Trainer:
    """The trainer registered as ``name``.

    >>> get().name
    'crfsuite'
    >>> get("crfsuit")
    Traceback (most recent call last):
    ...
    committee.errors.ConfigError: crf: trainer: unknown trainer 'crfsuit'; did you mean 'crfsuite'? valid: crfsuite
    """
    problems = check_trainer(name)
    if problems:
        raise ConfigError("crf", problems)
    return TRAINERS[name]


def check_trainer(name) -> list[str]:
    """``["trainer: message"]`` when ``name`` is not in :data:`TRAINERS`.

    >>> check_trainer("crfsuite")
    []
    """
    if isinstance(name, str) and name in TRAINERS:
        return []
    close = difflib.get_close_matches(str(name), list(TRAINERS), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return [f"trainer: unknown trainer {name!r}; {hint}valid: {', '.join(TRAINERS)}"]


def check_params(algorithm: str, params: dict, trainer: str = DEFAULT_TRAINER) -> list[str]:
    """The problems of ``algorithm`` and ``params`` by ``trainer``'s own
    rules (``trainer: ...`` when there is no such trainer).

    >>> check_params("lbfgs", {"c2": -1.0})
    ['params.c2: must be >= 0, got -1.0']
    """
    return check_trainer(trainer) or TRAINERS[trainer].check_params(algorithm, params)


@dataclass(frozen=True)
class Recipe:
    """How a model is trained: the trainer, its algorithm and parameters, and
    the seed of its randomness (see :func:`committee.learners.crf.train_model`)."""

    trainer: Trainer
    algorithm: str
    params: dict
    rand_seed: int = 1


def train_and_tag(recipe: Recipe, task, sentences: Sequence, template: str,
                  test_items: Sequence, workdir: str | os.PathLike, *,
                  prefix: str = ".model-", keep_as: str | os.PathLike | None = None
                  ) -> tuple[list, dict[str, float]]:
    """Train ``recipe`` on ``sentences`` of ``task`` and predict the units of ``test_items``.

    Parameters
    ----------
    recipe : Recipe
        The trainer, its algorithm and parameters, and its seed.
    task : committee.tasks.Task
        Encodes each training sentence (:meth:`example`) and decodes the
        predicted tags (:meth:`decode`).
    sentences : sequence
        Non-empty training sentences in the task's form (lists of words;
        ``(characters, tags)`` for entities; ``(words, tags)`` for parts of
        speech).
    template : str
        Feature template of :mod:`committee.learners.features` (``F1``-``F3``;
        the trainer gets its word analogue when the task's items are words).
    test_items : sequence
        What the members tag of every test sentence (:meth:`Task.items`):
        its characters, or its gold words.
    workdir : path
        Directory of the temporary model file (``prefix``...``model_suffix``;
        created if missing).
    keep_as : path, optional
        Keep the model there (moved atomically); otherwise it is removed.

    Returns
    -------
    (units, timings)
        The predicted units of every test sentence (words; entities), and
        seconds spent in the trainer's steps (:meth:`Trainer.train`) and in
        ``tag_s`` (tagging and decoding, test attributes included).

    Examples
    --------
    >>> import tempfile
    >>> from committee.tasks import SEGMENTATION
    >>> recipe = Recipe(get(), "lbfgs", {"max_iterations": 20})
    >>> words, t = train_and_tag(recipe, SEGMENTATION, [["我", "爱", "北京"], ["北京", "大"]],
    ...                          "F1", ["我爱北京"], tempfile.mkdtemp())
    >>> "".join(words[0]), sorted(t)  # doctest: +NORMALIZE_WHITESPACE
    ('我爱北京', ['append_s', 'attributes_s', 'featgen_s', 'optimise_s', 'store_s',
                'tag_s', 'train_s'])
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    trainer = recipe.trainer
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=trainer.model_suffix, dir=workdir)
    os.close(fd)
    try:
        examples = [task.example(s) for s in sentences]
        template = template_for(template, task.item)
        timings = dict(trainer.train(examples, template, recipe.algorithm, recipe.params, tmp,
                                     rand_seed=recipe.rand_seed))
        t0 = time.perf_counter()
        pred = [task.decode(c, tg) for c, tg in zip(test_items, trainer.tag(tmp, test_items,
                                                                              template))]
        timings["tag_s"] = time.perf_counter() - t0
        if keep_as is not None:
            Path(keep_as).parent.mkdir(exist_ok=True)
            os.chmod(tmp, new_file_mode())  # a new file's mode, as every write's
            os.replace(tmp, keep_as)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    return pred, timings
