"""The record every task fills (:class:`Task`); the tasks are the other
modules of :mod:`committee.tasks`, their kinds of unit those of
:mod:`committee.tasks.units`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

    from committee.corpus import Corpus
    from committee.tasks.spans import Spans
    from committee.tasks.units import UnitKind

# numpy and spans are imported where used: config takes TASKS from here, and
# reading a config must stay cheap (docs/benchmarks.md).

#: :attr:`Task.item` of members that tag each character of a sentence
#: (segmentation, entities): the character templates F1-F3.
CHARACTERS = "characters"
#: :attr:`Task.item` of members that tag each word of the gold segmentation
#: (parts of speech): the word templates W1-W3
#: (:data:`committee.learners.features.WORD_TEMPLATES`).
WORD_ITEMS = "words"
ITEMS = (CHARACTERS, WORD_ITEMS)


@dataclass(frozen=True)
class Task:
    """What every task record says; a task is a subclass with its values
    and methods (:class:`committee.tasks.segmentation.Segmentation`)."""

    #: its name in :data:`TASKS`, ``task:`` of a config and ``--task``
    name: str
    #: what a unit is called, singular and plural ("word", "words")
    unit: str
    units: str
    #: the median f1 below which a committee's first members are stopped
    #: (:func:`committee.learners.members.check_first_members`)
    min_median_f1: float
    #: what a member does, and what it learns, in that check's message
    does: str
    learns: str
    #: the file format of its corpora and of the outputs it scores
    #: (``committee score``'s default ``--format``)
    format: str
    #: its units come from entity tags (bio corpora): its gold needs tags,
    #: ``--mode`` and ``--scheme`` apply, its tools are taggers
    #: (:func:`committee.segmenters.load_tagger`) and their outputs bio
    tagged: bool
    #: its units tile each sentence: a member's prediction is a
    #: segmentation (word ends), TNR and boundary metrics apply
    tiles: bool
    #: the kind of its units (:mod:`committee.tasks.units`): words, labelled
    #: spans or tagged words; everything that differs between kinds asks it
    unit_kind: UnitKind
    #: the ``match`` field of a score's signature
    match: str
    #: the difficulty file ``committee score --difficulty`` reads of a run
    weight_file: str
    #: the key of the number of difficulties in ``manifest.json``
    count_key: str
    #: the view of ``report.html`` (its script's ``DATA.task``)
    page: str
    #: what its trained models and tools are called in headings
    models: str
    #: the paper's PKU figures (Qian, Qiu & Huang, 2016) are of its units
    paper_figures: bool
    #: ``committee run`` trains a committee for it; a task that only scores
    #: outputs says why in :attr:`no_run` (a config naming it is refused)
    runnable: bool = True
    no_run: str = ""
    #: the formats whose tags are this task's units (``pku`` for parts of
    #: speech); another task's refusal of such a file names this one
    tag_formats: tuple[str, ...] = ()
    #: what a member tags, one label each: :data:`CHARACTERS` (the default;
    #: a training sentence is a string, the character templates apply) or
    #: :data:`WORD_ITEMS` (a training sentence is a tuple of words, the word
    #: templates apply; the test set's items are its gold words)
    item: str = CHARACTERS
    #: ``committee report`` reads its runs; a task whose runs it cannot read
    #: yet says why in :attr:`no_report` (the report is refused before any work)
    reported: bool = True
    no_report: str = ""
    #: its units' tags are parts of speech of this tagset
    #: (:data:`committee.corpus.tagsets.TAGSETS`): ``committee segment
    #: --task`` runs part-of-speech taggers
    #: (:func:`committee.segmenters.load_pos_tagger`), their tags mapped to
    #: it, and writes ``pku``; None: it does not
    pos_tagset: str | None = None
    #: the field of :class:`committee.corpus.Corpus` that holds its units'
    #: labels, one per token (``tags``: entity tags of characters; ``pos``:
    #: a part of speech per word); None: its units are the words alone
    labels_field: str | None = None

    def __post_init__(self):
        from committee.tasks.units import UnitKind

        if not isinstance(self.unit_kind, UnitKind):
            raise ValueError(f"task {self.name}: unit_kind {self.unit_kind!r} is no "
                             "committee.tasks.units.UnitKind")
        if self.item not in ITEMS:
            raise ValueError(f"task {self.name}: item {self.item!r}; valid: {', '.join(ITEMS)}")

    def as_corpus(self, path: str, words: list, lines: Sequence[int], labels=None) -> Corpus:
        """Tokens and their labels (:attr:`labels_field`) as a corpus this task
        scores: an output held in memory (a system of the report).

        >>> from committee.tasks import PART_OF_SPEECH, SEGMENTATION
        >>> PART_OF_SPEECH.as_corpus("s", [["我", "爱"]], [1], [["r", "v"]]).pos
        [['r', 'v']]
        >>> SEGMENTATION.as_corpus("s", [["我", "爱"]], [1]).pos is None
        True
        """
        from committee.corpus import Corpus

        if self.labels_field is None:
            return Corpus(path, words, list(lines))
        return Corpus(path, words, list(lines), **{self.labels_field: labels})

    def labels_of(self, corpus: Corpus) -> list | None:
        """The labels of ``corpus``'s tokens this task reads (:attr:`labels_field`), or None.

        >>> from committee.corpus import Corpus
        >>> from committee.tasks import NER
        >>> NER.labels_of(Corpus("g", [["北", "京"]], [1], tags=[["B-LOC", "I-LOC"]]))
        [['B-LOC', 'I-LOC']]
        """
        return None if self.labels_field is None else getattr(corpus, self.labels_field)

    def prepare(self, corpus: Corpus, fix=None) -> Corpus:
        """A gold or an output as read, as this task scores it (checked; the
        same corpus by default); ``fix(key, value)`` spells an option in
        messages."""
        return corpus

    def tool_input(self, corpus: Corpus, fix=None) -> Corpus:
        """A test set as ``committee segment`` gives it to a tool (only its
        characters are read): as :meth:`prepare` makes it by default."""
        return self.prepare(corpus, fix)

    def output_notes(self, gold: Corpus, output: Corpus) -> list[tuple[str, str]]:
        """What a reader of ``output``'s scores should know about it against
        ``gold`` (both as :meth:`prepare` makes them): ``(kind, message)``
        pairs, ``kind`` ``note`` (a :class:`committee.errors.Note`) or
        ``warning`` (a :class:`committee.errors.PlausibilityWarning`); none
        by default."""
        return []

    def format_hint(self, detected: str, set_format, set_task, tasks=()) -> str | None:
        """What to do with a file that looks like format ``detected``
        (another than the one given), when another task scores such files:
        the end of the refusal, after ``read as FORMAT:``; None (the
        default) keeps the reader's own (``set --format X``).
        ``set_format(value)`` and ``set_task(value)`` spell the options;
        ``tasks`` are the registered tasks (:data:`committee.tasks.TASKS`)."""
        return None

    def gold(self, corpus: Corpus, mode: str = "default", scheme: str | None = None) -> list:
        """Each sentence's units."""
        raise NotImplementedError

    def train_sentences(self, corpus: Corpus, units: list) -> list:
        """The sentences a member may train on, in the form :meth:`example` reads."""
        raise NotImplementedError

    def texts(self, words: list, units: list) -> list[str]:
        """Every unit's characters, in corpus order."""
        raise NotImplementedError

    def example(self, sentence) -> tuple[str | tuple[str, ...], Sequence[str]]:
        """A training sentence as ``(items, one tag per item)``: its
        characters as a string, or its words as a tuple of strings
        (:attr:`item`)."""
        raise NotImplementedError

    def items(self, words: Sequence[str]) -> str | tuple[str, ...]:
        """What a member tags of a test sentence given its gold ``words``:
        its characters (the default), or the words themselves for a task
        whose :attr:`item` is words.  ``"".join(items)`` is always the
        sentence's characters.

        >>> Task.items(None, ["计算机", "有"])
        '计算机有'
        """
        return "".join(words)

    def decode(self, items: str | tuple[str, ...], tags: Sequence[str]) -> list:
        """A member's tags of one sentence's items as its units."""
        raise NotImplementedError

    def labels(self, *unit_lists) -> tuple[str, ...]:
        """The label set of units."""
        raise NotImplementedError

    def spans(self, lengths: Sequence[int], units: list, label_names=()) -> Spans:
        """Units of every sentence on the global character axis."""
        raise NotImplementedError

    def mask(self, pred: Spans, n_chars: int) -> np.ndarray | None:
        """Over the test characters, what a member's prediction keeps
        (``predictions.npz``); None when it keeps labels instead
        (:meth:`unit_labels`)."""
        raise NotImplementedError

    def unit_labels(self, gold: Spans, pred: Spans) -> tuple[np.ndarray, tuple[str, ...]] | None:
        """A member's label of every gold unit, as codes into label names
        (``predictions.npz``), when its units are the gold units relabelled
        (a tagger on the gold segmentation); None (the default) otherwise."""
        return None

    def as_tokens(self, words: list, units: list) -> tuple[list, list | None]:
        """A model's predicted ``units`` of the test sentences (whose gold
        ``words`` are given) as the tokens of an output file in
        :attr:`format`, and their labels (:attr:`labels_field`); None for a
        task of words alone.  By default the units are the words.

        >>> Task.as_tokens(None, [["我爱"]], [["我", "爱"]])
        ([['我', '爱']], None)
        """
        return units, None

    def gold_problem(self, chars: str, units: list) -> str | None:
        """What is wrong with one test sentence's gold ``units`` over its
        characters ``chars``, or None."""
        raise NotImplementedError
