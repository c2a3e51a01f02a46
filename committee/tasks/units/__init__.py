"""Kinds of unit (:class:`UnitKind`): one module and one class per kind,
named by the tasks (:attr:`committee.tasks.Task.unit_kind`).

``words`` (:mod:`committee.tasks.units.words`)
    Units that tile each sentence (segmentation).
``entities`` (:mod:`committee.tasks.units.entities`)
    Labelled spans read from entity tags (named entities).
``tags`` (:mod:`committee.tasks.units.tags`)
    The gold words with a label each (parts of speech).

A new kind is a module here with its subclass of :class:`UnitKind` and its
instance; a task names that instance.  Code outside this package asks a
kind (its attributes and methods) and never compares one
(``tests/test_unit_kinds.py``).
"""

from committee.tasks.units.base import UnitKind
from committee.tasks.units.entities import ENTITIES, Entities
from committee.tasks.units.tags import TAGS, Tags
from committee.tasks.units.words import WORDS, Words

#: The kinds of unit the tasks of this package name.
UNIT_KINDS: tuple[UnitKind, ...] = (WORDS, ENTITIES, TAGS)

__all__ = ["ENTITIES", "TAGS", "UNIT_KINDS", "WORDS", "Entities", "Tags", "UnitKind", "Words"]
