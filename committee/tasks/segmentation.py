"""The task ``segmentation`` (the default): words as units.

A training sentence is its list of words, tagged ``BMES`` per character; a
member's tags are cut back into words (:func:`committee.corpus.from_bmes`).
Its corpora and outputs are SIGHAN files (or any word format), its gold
side is :class:`committee.metrics.Collector`, its difficulties one per word
(``test.weight``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from committee.corpus import Corpus, from_bmes, to_bmes
from committee.tasks.base import Task
from committee.tasks.units import WORDS, UnitKind

if TYPE_CHECKING:
    import numpy as np

    from committee.tasks.spans import Spans


@dataclass(frozen=True)
class Segmentation(Task):
    """Words as units."""

    name: str = "segmentation"
    unit: str = "word"
    units: str = "words"
    #: CRF segmenters on a tenth of any real corpus score 0.8 and more
    #: (docs/results.md)
    min_median_f1: float = 0.5
    does: str = "segment the test set"
    learns: str = "segmentation"
    format: str = "sighan"
    tagged: bool = False
    tiles: bool = True
    unit_kind: UnitKind = WORDS
    match: str = "exact-span"
    weight_file: str = "test.weight"
    count_key: str = "n_words"
    page: str = "segmentation"
    models: str = "segmenters"
    paper_figures: bool = True

    def format_hint(self, detected: str, set_format, set_task, tasks=()) -> str | None:
        """A file whose tags another task scores (``pku``: parts of speech):
        its words with the format, its tags with that task (entity tags are
        named by the refusal itself).

        >>> from committee.tasks import TASKS
        >>> SEGMENTATION.format_hint("pku", lambda v: f"--format {v}", lambda v: f"--task {v}",
        ...                          TASKS.values())
        'set --format pku to score its words, or --task pos to score its tags'
        """
        from committee.corpus.formats import BY_NAME

        # a treebank (conllu, UPOS) is as often a segmentation gold: its
        # refusal stays the reader's; formats of tagged text (pku) name both
        if detected not in BY_NAME or not BY_NAME[detected].pos.startswith("yes"):
            return None
        others = [t.name for t in tasks
                  if t is not self and detected in t.tag_formats and not t.tagged]
        if not others:
            return None
        return (f"set {set_format(detected)} to score its words, or {set_task(others[0])} to "
                "score its tags")

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
        from committee.tasks.spans import spans

        return spans(units)

    def mask(self, pred: Spans, n_chars: int) -> np.ndarray:
        """Over the test characters, true at the last character of each
        predicted word: with the characters, the whole prediction."""
        import numpy as np

        out = np.zeros(n_chars, dtype=bool)
        out[pred.ends - 1] = True
        return out

    def gold_problem(self, chars: str, units: list) -> str | None:
        """The gold words must spell the sentence's characters.

        >>> SEGMENTATION.gold_problem("我爱", ["我", "爱"]) is None
        True
        """
        return None if "".join(units) == chars else "gold words do not spell its characters"


SEGMENTATION = Segmentation()
