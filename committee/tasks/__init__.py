"""Tasks: what the committee rates and a scorer counts (docs/method.md §13).

A task says what a *unit* is and how a CRF learns and predicts units; each
is one module of this package holding one :class:`Task` record:

``segmentation`` (the default, :mod:`committee.tasks.segmentation`)
    Units are words: spans that tile each sentence.  A training sentence
    is its list of words, tagged ``BMES`` per character; a member's tags
    are cut back into words (:func:`committee.corpus.from_bmes`).
``ner`` (:mod:`committee.tasks.ner`)
    Units are labelled spans, the named entities of a corpus with entity
    tags (:attr:`committee.corpus.Corpus.tags`): ``(start, end, type)``
    over the sentence's characters.  A training sentence is its
    characters with one IOBES tag per character and entity type
    (``B-PER I-PER E-PER S-LOC O``: 13 labels for three types, against 4
    for BMES); a member's tags are read into entities by the conlleval
    rules (:func:`committee.corpus.entities.chunks`).
``pos`` (:mod:`committee.tasks.pos`)
    Units are the gold words with their part-of-speech tags, ``(start,
    end, tag)`` over the sentence's characters (:attr:`committee.corpus.Corpus.pos`).
    A training sentence is its gold words with one tag per word: members
    tag words (:attr:`Task.item`), with the word templates W1-W3; a
    member's tags of the gold words are its units.

Everything that follows a unit (marks, difficulties, difficulty files,
scores) takes the gold units and a prediction's units as
:class:`committee.tasks.spans.Spans` from :meth:`Task.spans`, so one pipeline
serves every task.  Code outside this package never compares a task's
name: it asks the task record (its attributes and methods below), and
what differs between kinds of unit it asks the task's unit kind
(:attr:`Task.unit_kind`, :mod:`committee.tasks.units`).
:data:`TASKS` is the one place a task plugs in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from committee.tasks.base import CHARACTERS, ITEMS, WORD_ITEMS, Task
from committee.tasks.ner import NER, Entities
from committee.tasks.pos import PART_OF_SPEECH, PartOfSpeech
from committee.tasks.segmentation import SEGMENTATION, Segmentation
from committee.tasks.units import ENTITIES, TAGS, UNIT_KINDS, WORDS, UnitKind

if TYPE_CHECKING:
    import numpy as np

    from committee.tasks.spans import Spans


#: The tasks ``task:`` and ``--task`` can name: the one place a task plugs in.
TASKS: dict[str, Task] = {t.name: t for t in (SEGMENTATION, NER, PART_OF_SPEECH)}

#: The task of a config that names none.
DEFAULT_TASK = SEGMENTATION.name

__all__ = ["CHARACTERS", "DEFAULT_TASK", "ENTITIES", "ITEMS", "NER", "PART_OF_SPEECH",
           "SEGMENTATION", "TAGS", "TASKS", "UNIT_KINDS", "WORDS", "WORD_ITEMS", "Entities",
           "PartOfSpeech", "Segmentation", "Task", "UnitKind", "get", "match"]


def get(name: str = DEFAULT_TASK) -> Task:
    """The task named ``name``.

    >>> get("ner").unit
    'entity'
    """
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join(TASKS)}") from None


def match(task: Task, lengths: Sequence[int], gold_units: list, pred_units: list
          ) -> tuple[Spans, Spans, np.ndarray, np.ndarray]:
    """Gold and predicted units as spans over one label set, and which of
    each are matched exactly (:func:`committee.tasks.spans.match`)."""
    from committee.tasks.spans import match as match_spans

    names = task.labels(gold_units, pred_units)
    g = task.spans(lengths, gold_units, names)
    p = task.spans(lengths, pred_units, names)
    gold_ok, pred_ok = match_spans(g, p)
    return g, p, gold_ok, pred_ok
