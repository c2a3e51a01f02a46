"""The task ``ner``: named entities as units (docs/method.md §13).

Units are labelled spans ``(start, end, type)`` over a sentence's
characters, read from the entity tags of bio corpora
(:attr:`committee.corpus.Corpus.tags`).  A training sentence is its
characters with one IOBES tag per character and entity type; a member's
tags are read into entities by the conlleval rules
(:func:`committee.corpus.entities.chunks`).  Its gold side is
:class:`committee.metrics.labelled.EntityCollector`, its difficulties one
per gold entity plus one per character (``test.weight_c``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from committee.corpus import Corpus
from committee.corpus import entities as entities_mod
from committee.tasks.base import Task
from committee.tasks.units import ENTITIES, UnitKind

if TYPE_CHECKING:
    import numpy as np

    from committee.tasks.spans import Spans


@dataclass(frozen=True)
class Entities(Task):
    """Labelled spans (named entities) as units."""

    name: str = "ner"
    unit: str = "entity"
    units: str = "entities"
    #: entity taggers learn from fewer examples (a tenth of the embedded
    #: corpus holds about 5,000 entities) and score lower; below 0.1 the
    #: corpora's tags were misread (docs/method.md §13)
    min_median_f1: float = 0.1
    does: str = "tag the test set's entities"
    learns: str = "entities"
    format: str = "bio"
    tagged: bool = True
    tiles: bool = False
    unit_kind: UnitKind = ENTITIES
    match: str = "exact-entity"
    weight_file: str = "test.weight_c"
    count_key: str = "n_entities"
    page: str = "ner"
    labels_field: str | None = "tags"
    models: str = "taggers"
    paper_figures: bool = False
    tag_formats: tuple[str, ...] = ("bio",)

    def gold(self, corpus: Corpus, mode: str = "default", scheme: str | None = None) -> list:
        """Each sentence's entities ``(start, end, type)`` over its characters,
        read from the tags by the conlleval rules (``mode="strict"``: by the
        scheme's own, :func:`committee.corpus.entities.entities`)."""
        if corpus.tags is None:
            raise ValueError(f"{corpus.path}: has no entity tags (a bio corpus is needed)")
        return entities_mod.entities(corpus, mode, scheme)

    def train_sentences(self, corpus: Corpus, units: list) -> list:
        """The sentences a member may train on, each as ``(characters, one IOBES
        tag per character)`` from the corpus's entities ``units``
        (:meth:`gold`): every sentence with characters, with entities or
        without (a sentence without one teaches where there is none)."""
        out = []
        for words, units in zip(corpus.words, units):
            chars = "".join(words)
            if chars:
                out.append((chars, tuple(entities_mod.bioes(len(chars), units))))
        return out

    def as_tokens(self, words: list, units: list) -> tuple[list, list]:
        """Predicted entities as a ``bio`` file's tokens: each sentence's
        characters with IOBES tags.

        >>> NER.as_tokens([["江泽民", "好"]], [[(0, 3, "PER")]])
        ([['江', '泽', '民', '好']], [['B-PER', 'I-PER', 'E-PER', 'O']])
        """
        texts = ["".join(s) for s in words]
        return [list(t) for t in texts], [entities_mod.bioes(len(t), u) for t, u in zip(texts, units)]

    def texts(self, words: list, units: list) -> list[str]:
        """Every entity's characters, in corpus order, from the sentences'
        tokens ``words``.

        >>> NER.texts([["江", "泽民", "好"]], [[(0, 3, "PER")]])
        ['江泽民']
        """
        return ["".join(ws)[u[0]:u[1]] for ws, us in zip(words, units) for u in us]

    def example(self, sentence) -> tuple[str, Sequence[str]]:
        """A training sentence: already ``(characters, tags)``.

        >>> NER.example(("江泽民", ("B-PER", "I-PER", "E-PER")))
        ('江泽民', ('B-PER', 'I-PER', 'E-PER'))
        """
        return sentence

    def decode(self, chars: str, tags: Sequence[str]) -> list[tuple[int, int, str]]:
        """A member's tags of one sentence as its entities (conlleval rules).

        >>> NER.decode("江泽民在北京", ["B-PER", "I-PER", "E-PER", "O", "B-LOC", "E-LOC"])
        [(0, 3, 'PER'), (4, 6, 'LOC')]
        """
        return [(s, e, t) for t, s, e in entities_mod.chunks(list(tags))]

    def labels(self, *unit_lists) -> tuple[str, ...]:
        """The entity types among several corpora's units, sorted."""
        return tuple(sorted({u[2] for units in unit_lists for sent in units for u in sent}))

    def spans(self, lengths: Sequence[int], units: list, label_names=None) -> Spans:
        """Entities of every sentence on the global character axis."""
        from committee.tasks.spans import labelled

        return labelled(lengths, units, label_names)

    def mask(self, pred: Spans, n_chars: int) -> np.ndarray:
        """Over the test characters, true inside each predicted entity (the
        characters the prediction claims for an entity)."""
        from committee.tasks.spans import inside

        return inside(pred, n_chars)

    def gold_problem(self, chars: str, units: list) -> str | None:
        """Every gold entity must lie inside the sentence's characters.

        >>> NER.gold_problem("江泽民", [(0, 4, "PER")])
        'a gold entity lies outside its characters'
        """
        if any(not 0 <= u[0] < u[1] <= len(chars) for u in units):
            return "a gold entity lies outside its characters"
        return None


NER = Entities()
