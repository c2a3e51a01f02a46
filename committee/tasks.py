"""Tasks: what the committee rates and a scorer counts (docs/method.md §13).

A task says what a *unit* is and how a CRF learns and predicts units:

``segmentation`` (the default)
    Units are words: spans that tile each sentence.  A training sentence
    is its list of words, tagged ``BMES`` per character; a member's tags
    are cut back into words (:func:`committee.corpus.from_bmes`).
``ner``
    Units are labelled spans, the named entities of a corpus with entity
    tags (:attr:`committee.corpus.Corpus.tags`): ``(start, end, type)``
    over the sentence's characters.  A training sentence is its
    characters with one IOBES tag per character and entity type
    (``B-PER I-PER E-PER S-LOC O``: 13 labels for three types, against 4
    for BMES); a member's tags are read into entities by the conlleval
    rules (:func:`committee.corpus.entities.chunks`).

Everything that follows a unit (marks, difficulties, difficulty files,
scores) takes the gold units and a prediction's units as
:class:`committee.spans.Spans` from :meth:`Task.spans`, so one pipeline
serves both tasks.  :data:`TASKS` is the one place a task plugs in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from committee.corpus import Corpus, from_bmes, to_bmes
from committee.corpus import entities as ent

if TYPE_CHECKING:
    import numpy as np

    from committee.spans import Spans

# numpy and spans are imported where used: config takes TASKS from here, and
# reading a config must stay cheap (docs/benchmarks.md).


@dataclass(frozen=True)
class Segmentation:
    """Words as units."""

    name: str = "segmentation"
    unit: str = "word"
    units: str = "words"
    #: the median f1 below which a committee's first members are stopped
    #: (:func:`committee.members.check_first_members`): CRF segmenters on a
    #: tenth of any real corpus score 0.8 and more (docs/results.md)
    min_median_f1: float = 0.5
    does: str = "segment the test set"
    learns: str = "segmentation"

    def gold(self, corpus: Corpus, mode: str = "default", scheme: str | None = None) -> list:
        """Each sentence's units: its words."""
        return corpus.words

    def train_sentences(self, corpus: Corpus, units: list) -> list:
        """The sentences a member may train on: those with words (``units``,
        the corpus's :meth:`gold`, are its words)."""
        return [s for s in corpus.words if s]

    def texts(self, words: list, units: list) -> list[str]:
        """Every unit's characters, in corpus order: the words.

        >>> SEGMENTATION.texts([["我", "爱"]], [["我", "爱"]])
        ['我', '爱']
        """
        return [w for s in units for w in s]

    def example(self, sentence) -> tuple[str, str]:
        """A training sentence as ``(characters, one BMES tag per character)``.

        >>> SEGMENTATION.example(["计算机", "有"])
        ('计算机有', 'BMES')
        """
        return "".join(sentence), to_bmes(sentence)

    def decode(self, chars: str, tags: Sequence[str]) -> list[str]:
        """A member's tags of one sentence as its units (words)."""
        return from_bmes(chars, tags)

    def labels(self, *unit_lists) -> tuple[str, ...]:
        """The label set of units (words have none)."""
        return ()

    def spans(self, lengths: Sequence[int], units: list, label_names=()) -> Spans:
        """Units of every sentence on the global character axis."""
        from committee.spans import spans

        return spans(units)

    def mask(self, pred: Spans, n_chars: int) -> np.ndarray:
        """Over the test characters, true at the last character of each
        predicted word: with the characters, the whole prediction."""
        import numpy as np

        out = np.zeros(n_chars, dtype=bool)
        out[pred.ends - 1] = True
        return out


@dataclass(frozen=True)
class Entities:
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

    def gold(self, corpus: Corpus, mode: str = "default", scheme: str | None = None) -> list:
        """Each sentence's entities ``(start, end, type)`` over its characters,
        read from the tags by the conlleval rules (``mode="strict"``: by the
        scheme's own, :func:`committee.corpus.entities.entities`)."""
        if corpus.tags is None:
            raise ValueError(f"{corpus.path}: has no entity tags (a bio corpus is needed)")
        return ent.entities(corpus, mode, scheme)

    def train_sentences(self, corpus: Corpus, units: list) -> list:
        """The sentences a member may train on, each as ``(characters, one IOBES
        tag per character)`` from the corpus's entities ``units``
        (:meth:`gold`): every sentence with characters, with entities or
        without (a sentence without one teaches where there is none)."""
        out = []
        for words, units in zip(corpus.words, units):
            chars = "".join(words)
            if chars:
                out.append((chars, tuple(ent.bioes(len(chars), units))))
        return out

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
        return [(s, e, t) for t, s, e in ent.chunks(list(tags))]

    def labels(self, *unit_lists) -> tuple[str, ...]:
        """The entity types among several corpora's units, sorted."""
        return tuple(sorted({u[2] for units in unit_lists for sent in units for u in sent}))

    def spans(self, lengths: Sequence[int], units: list, label_names=None) -> Spans:
        """Entities of every sentence on the global character axis."""
        from committee.spans import labelled

        return labelled(lengths, units, label_names)

    def mask(self, pred: Spans, n_chars: int) -> np.ndarray:
        """Over the test characters, true inside each predicted entity (the
        characters the prediction claims for an entity)."""
        from committee.spans import inside

        return inside(pred, n_chars)


SEGMENTATION = Segmentation()
NER = Entities()

#: The tasks ``task:`` and ``--task`` can name: the one place a task plugs in.
TASKS = {t.name: t for t in (SEGMENTATION, NER)}

#: The task of a config that names none.
DEFAULT_TASK = SEGMENTATION.name


def get(name: str = DEFAULT_TASK):
    """The task named ``name``.

    >>> get("ner").unit
    'entity'
    """
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join(TASKS)}") from None


def match(task, lengths: Sequence[int], gold_units: list, pred_units: list
          ) -> tuple[Spans, Spans, np.ndarray, np.ndarray]:
    """Gold and predicted units as spans over one label set, and which of
    each are matched exactly (:func:`committee.spans.match`)."""
    from committee.spans import match as match_spans

    names = task.labels(gold_units, pred_units)
    g = task.spans(lengths, gold_units, names)
    p = task.spans(lengths, pred_units, names)
    gold_ok, pred_ok = match_spans(g, p)
    return g, p, gold_ok, pred_ok
