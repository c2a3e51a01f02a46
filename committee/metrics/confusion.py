"""Confusion matrices of labelled units (docs/metrics.md, Confusion matrices).

**Entities** (:func:`entity_confusion`): gold type × predicted type.  Gold
and predicted entities are paired by overlap, as the ``partial`` scheme of
:mod:`committee.metrics.schemes` pairs them (type ignored, the same span
first, else the first overlap of at least ``min_overlap`` percent of the
gold entity); a pair adds one to the cell of its two types, a gold entity
left alone to its type's ``missed`` column, a predicted entity left alone
to the ``spurious`` row under its type.  So row t (over every column) sums
to the gold entities of type t, column t (over every row) to the predicted
entities of type t, the ``missed`` column to the partial scheme's MIS and
the ``spurious`` row to its SPU.

**Tags** (:func:`tag_confusion`): gold tag × predicted tag over the gold
words that the output segments alike (a predicted word has the gold word's
span).  The cells sum to those words, and the diagonal to the words tagged
right (the scorer's ``n_correct``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from committee.metrics.schemes import format_rows, pair
from committee.tasks.spans import Spans

#: The extra row (entities only): predicted entities paired with no gold one.
SPURIOUS = "spurious"
#: The extra column (entities only): gold entities paired with no predicted one.
MISSED = "missed"


@dataclass(frozen=True)
class Confusion:
    """A confusion matrix: ``cells[i, j]`` counts the units of gold label
    ``rows[i]`` given predicted label ``columns[j]``.

    Attributes
    ----------
    rows, columns : tuple of str
        The labels (for entities, ``spurious`` last among the rows and
        ``missed`` last among the columns).
    cells : ndarray of int64, shape (len(rows), len(columns))
    kind : str
        ``entities`` or ``tags``.
    """

    rows: tuple
    columns: tuple
    cells: np.ndarray
    kind: str

    def to_dict(self) -> dict:
        """What ``committee score --confusion --json`` gives each system
        under ``"confusion"``."""
        return {"kind": self.kind, "rows": list(self.rows), "columns": list(self.columns),
                "cells": self.cells.tolist()}

    def shown(self) -> tuple[list[int], list[int]]:
        """The rows and columns shown: each label whose row or column holds
        a unit (the same labels down and across), and for entities the
        ``spurious`` row and the ``missed`` column."""
        k = len(self.rows) - (self.kind == "entities")
        used = (self.cells.sum(axis=1)[:k] + self.cells.sum(axis=0)[:k]) > 0
        labels = np.flatnonzero(used).tolist()
        return (labels + [k], labels + [k]) if self.kind == "entities" else (labels, labels)

    def text(self, markdown: bool = False) -> str:
        """The matrix as a table, gold labels down and predicted labels
        across, rows and columns without a unit left out."""
        rows, cols = self.shown()
        head = [f"gold \\ {'predicted' if self.kind == 'entities' else 'output'}",
                *(self.columns[j] for j in cols)]
        body = [[self.rows[i], *(str(self.cells[i, j]) for j in cols)] for i in rows]
        what = ("entities paired by overlap" if self.kind == "entities"
                else "words the output segments as the gold does")
        return format_rows(head, body, markdown) + f"\n{int(self.cells.sum())} {what}"

    def csv(self) -> str:
        """The whole matrix as CSV: a header of predicted labels, one line per
        gold label."""
        lines = [",".join(["gold", *map(_quote, self.columns)])]
        lines += [",".join([_quote(r), *map(str, row)]) for r, row in zip(self.rows,
                                                                        self.cells.tolist())]
        return "\n".join(lines) + "\n"


def _quote(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s


def entity_confusion(gold: Spans, pred: Spans, min_overlap: float = 1.0) -> Confusion:
    """Gold type × predicted type of entities paired by overlap, with a
    ``spurious`` row and a ``missed`` column (the module's docstring).

    >>> from committee.tasks.spans import labelled
    >>> names = ["LOC", "PER"]
    >>> g = labelled([12], [[(0, 3, "PER"), (4, 6, "LOC"), (8, 9, "LOC")]], names)
    >>> p = labelled([12], [[(0, 2, "PER"), (4, 6, "PER"), (10, 12, "LOC")]], names)
    >>> c = entity_confusion(g, p)
    >>> c.rows, c.columns, c.cells.tolist()
    (('LOC', 'PER', 'spurious'), ('LOC', 'PER', 'missed'), [[0, 1, 1], [0, 1, 0], [1, 0, 0]])
    """
    from committee.metrics.schemes import check_min_overlap

    _, partner, _ = pair(gold, pred, "partial", check_min_overlap(min_overlap))
    names = tuple(gold.label_names)
    k = len(names)
    cells = np.zeros((k + 1, k + 1), dtype=np.int64)
    paired = partner >= 0
    g_labels, p_labels = _codes(gold), _codes(pred)
    np.add.at(cells, (g_labels[partner[paired]], p_labels[paired]), 1)
    np.add.at(cells, (np.full(int((~paired).sum()), k), p_labels[~paired]), 1)
    alone = np.ones(len(gold.starts), dtype=bool)
    alone[partner[paired]] = False
    np.add.at(cells, (g_labels[alone], np.full(int(alone.sum()), k)), 1)
    return Confusion(names + (SPURIOUS,), names + (MISSED,), cells, "entities")


def tag_confusion(gold: Spans, pred: Spans) -> Confusion:
    """Gold tag × predicted tag over the gold words that a predicted word
    has the span of.

    >>> from committee.tasks.spans import labelled
    >>> names = ["n", "p", "v"]
    >>> g = labelled([6], [[(0, 2, "n"), (2, 3, "p"), (3, 5, "v"), (5, 6, "n")]], names)
    >>> p = labelled([6], [[(0, 2, "n"), (2, 3, "v"), (3, 4, "v"), (4, 6, "n")]], names)
    >>> tag_confusion(g, p).cells.tolist()
    [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    """
    if gold.label_names != pred.label_names:
        raise ValueError("tagged words are compared over one tag set")
    n = max(gold.n_chars, pred.n_chars) + 1
    g_key, p_key = gold.starts * n + gold.ends, pred.starts * n + pred.ends
    order = np.argsort(p_key, kind="stable")
    at = np.clip(np.searchsorted(p_key[order], g_key), 0, max(len(p_key) - 1, 0))
    same = (p_key[order][at] == g_key) if len(p_key) else np.zeros(len(g_key), dtype=bool)
    k = len(gold.label_names)
    cells = np.zeros((k, k), dtype=np.int64)
    np.add.at(cells, (_codes(gold)[same], _codes(pred)[order[at[same]]]), 1)
    names = tuple(gold.label_names)
    return Confusion(names, names, cells, "tags")


def _codes(s: Spans) -> np.ndarray:
    return np.zeros(len(s.starts), dtype=np.int64) if s.labels is None else s.labels


def of_output(scorer, output, *, min_overlap: float = 1.0) -> Confusion:
    """The confusion matrix of an output against the gold of ``scorer`` (a
    :class:`committee.Scorer` of ``task="ner"`` or ``"pos"``): of entities,
    :func:`entity_confusion`; of tagged words, :func:`tag_confusion`
    (``min_overlap`` is for entities): ``committee.confusion``."""
    from committee import tasks
    from committee.metrics.schemes import labelled_units

    g, p, _, _ = labelled_units(scorer, output, api="confusion")
    if tasks.get(scorer.task).tagged:
        return entity_confusion(g, p, min_overlap)
    return tag_confusion(g, p)
