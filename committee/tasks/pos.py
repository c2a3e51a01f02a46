"""The task ``pos``: words with their part-of-speech tags as units
(docs/method.md §14).

A unit is a gold word with its tag, ``(start, end, tag)`` over the
sentence's characters, read from a corpus's POS tags
(:attr:`committee.corpus.Corpus.pos`: formats ``pku``, ``underscore``,
``conllu`` with UPOS, ``conllu-xpos`` with XPOS).  An output is matched unit
by unit: a word is correct when the output has the same span with the same
tag, so an output that keeps the gold segmentation is scored by its tag
accuracy and one with its own segmentation jointly (segmentation and
tagging).  Its gold side is :class:`committee.metrics.tagged.TagCollector`,
its difficulties one per gold word (``test.weight``).

Members (``committee run``) are word-level taggers on the gold
segmentation (:attr:`Task.item` is words): a training sentence is its gold
words with one tag each, a test sentence its gold words, and the config's
templates F1-F3 stand for the word templates W1-W3
(:data:`committee.learners.features.WORD_TEMPLATES`).  A member's units are
the gold words with its tags, so its mark for gold word i is 1 when its tag
is t_i, and what it keeps of its prediction is its tag of every gold word
(:meth:`PartOfSpeech.unit_labels`, ``predictions.npz``).  ``committee
report`` reads such runs as labelled spans, as it reads entities: its
systems are taggers, each word with its tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

from committee.corpus import Corpus, content_sha256
from committee.corpus.tagsets import PD
from committee.errors import InputError
from committee.tasks.base import WORD_ITEMS, Task
from committee.tasks.units import TAGS, UnitKind

if TYPE_CHECKING:
    import numpy as np

    from committee.tasks.spans import Spans

#: The sentence id that opens each line of the full People's Daily corpus
#: (``19980101-01-001-001/m``): not a word of the text.
PD_ID = re.compile(r"\d{8}-\d{2}-\d{3}-\d{3}")

#: What a missing tag looks like in a file (CoNLL-U writes ``_``).
NO_TAG = ("", "_")


@dataclass(frozen=True)
class PartOfSpeech(Task):
    """Words with their part-of-speech tags as units."""

    name: str = "pos"
    unit: str = "word"
    units: str = "words"
    min_median_f1: float = 0.5
    does: str = "tag the test set's words"
    learns: str = "parts of speech"
    format: str = "pku"
    tagged: bool = False
    #: the units tile each sentence, but the collector counts tagged spans
    #: and has no word boundaries: TNR and the boundary metrics are absent
    tiles: bool = False
    unit_kind: UnitKind = TAGS
    match: str = "exact-tag"
    weight_file: str = "test.weight"
    count_key: str = "n_words"
    page: str = "pos"
    models: str = "taggers"
    paper_figures: bool = False
    #: the formats whose tags are parts of speech
    tag_formats: tuple[str, ...] = ("pku", "underscore", "conllu", "conllu-xpos")
    #: members tag the gold words, with the word templates
    item: str = WORD_ITEMS
    #: taggers' tags are mapped to People's Daily's (docs/segmenters.md)
    pos_tagset: str | None = PD
    labels_field: str | None = "pos"

    def prepare(self, corpus: Corpus, fix=None) -> Corpus:
        """``corpus`` with every word tagged (an :class:`InputError` naming
        the line of the first word without a tag, or the corpus when it has
        no tags at all), without People's Daily's sentence ids
        (:data:`PD_ID` as a first word tagged ``m``), its content checksum
        that of its words and tags (an output with the gold's words and
        other tags is not the gold).

        >>> c = Corpus("pd", [["19980101-01-001-001", "迈向", "世纪"]], [1],
        ...            pos=[["m", "v", "n"]])
        >>> p = PART_OF_SPEECH.prepare(c)
        >>> p.words, p.pos
        ([['迈向', '世纪']], [['v', 'n']])
        >>> PART_OF_SPEECH.prepare(Corpus("x.conllu", [["我", "爱"]], [3], pos=[["PRON", "_"]]))
        Traceback (most recent call last):
        ...
        committee.errors.InputError: x.conllu:3: word 2 '爱' has no tag ('_'): task pos needs a tag for every word
        """
        fix = fix or (lambda key, value: f"{key}={value!r}")
        if corpus.pos is None:  # a Corpus or sentences given in memory, a word format
            raise InputError(corpus.path, None, f"has no part-of-speech tags (read as "
                             f"{corpus.format}): task pos reads word/TAG files "
                             f"({', '.join(self.tag_formats)}); score its words with "
                             f"{fix('task', 'segmentation')}")
        for ws, ps, line in zip(corpus.words, corpus.pos, corpus.lines):
            bad = next((j for j, p in enumerate(ps) if p in NO_TAG), None)
            if bad is not None:
                raise InputError(corpus.path, line, f"word {bad + 1} {ws[bad]!r} has no tag "
                                 f"({ps[bad]!r}): task pos needs a tag for every word")
        words, pos = [], []
        for ws, ps in zip(corpus.words, corpus.pos):
            cut = 1 if ws and ps[0] == "m" and PD_ID.fullmatch(ws[0]) else 0
            words.append(ws[cut:])
            pos.append(ps[cut:])
        return replace(corpus, words=words, pos=pos, content_sha256=content_sha256(words, pos))

    def tool_input(self, corpus: Corpus, fix=None) -> Corpus:
        """A test set for a tagger, which reads only its characters and does
        its own segmentation: a file without tags (``--format sighan``) is
        taken as it is; a tagged one as :meth:`prepare` makes it (People's
        Daily's sentence ids dropped).

        >>> PART_OF_SPEECH.tool_input(Corpus("t.txt", [["迈向", "世纪"]], [1])).words
        [['迈向', '世纪']]
        """
        return corpus if corpus.pos is None else self.prepare(corpus, fix)

    def output_notes(self, gold: Corpus, output: Corpus) -> list[tuple[str, str]]:
        """An output with its own segmentation is scored jointly (a note
        saying in how many sentences its words differ); tags the gold never
        uses are counted and named (a warning: they cannot be right).

        >>> g = Corpus("g", [["我", "爱", "北京"], ["好"]], [1, 2], pos=[["r", "v", "ns"], ["a"]])
        >>> o = Corpus("o.txt", [["我爱", "北京"], ["好"]], [1, 2], pos=[["v", "NS"], ["a"]])
        >>> for kind, message in PART_OF_SPEECH.output_notes(g, o):
        ...     print(kind, message)
        note o.txt: its words differ from the gold's in 1 of 2 sentences: scored jointly (a word is right when its span and its tag are)
        warning o.txt: 1 tag the gold never uses, so never right: NS (1)
        """
        out = []
        differ = sum(1 for a, b in zip(gold.words, output.words) if a != b)
        if differ:
            out.append(("note", f"{output.path}: its words differ from the gold's in {differ:,} "
                                f"of {len(gold.words):,} sentences: scored jointly (a word is "
                                "right when its span and its tag are)"))
        if output.pos is not None and gold.pos is not None:
            known = {t for s in gold.pos for t in s}
            unknown: dict[str, int] = {}
            for s in output.pos:
                for t in s:
                    if t not in known:
                        unknown[t] = unknown.get(t, 0) + 1
            if unknown:
                n = sum(unknown.values())
                named = ", ".join(f"{t} ({c:,})" for t, c in sorted(
                    unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:10])
                more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
                out.append(("warning", f"{output.path}: {n:,} tag{'s' if n > 1 else ''} the gold "
                                       f"never uses, so never right: {named}{more}"))
        return out

    def format_hint(self, detected: str, set_format, set_task, tasks=()) -> str | None:
        """A file of a format without POS tags: its words are segmentation's.

        >>> PART_OF_SPEECH.format_hint("sighan", None, lambda v: f"--task {v}")
        'its words carry no part-of-speech tags: score them with --task segmentation'
        """
        from committee.corpus.formats import BY_NAME

        record = BY_NAME.get(detected)
        if detected in self.tag_formats or record is None or record.labelled:
            return None
        return ("its words carry no part-of-speech tags: score them with "
                f"{set_task('segmentation')}")

    def gold(self, corpus: Corpus, mode: str = "default", scheme: str | None = None) -> list:
        """Each sentence's words as ``(start, end, tag)`` over its characters.

        >>> PART_OF_SPEECH.gold(Corpus("g", [["江泽民", "在", "北京"]], [1], pos=[["nr", "p", "ns"]]))
        [[(0, 3, 'nr'), (3, 4, 'p'), (4, 6, 'ns')]]
        """
        if corpus.pos is None:
            raise ValueError(f"{corpus.path}: has no part-of-speech tags")
        out = []
        for ws, ps in zip(corpus.words, corpus.pos):
            units, start = [], 0
            for w, p in zip(ws, ps):
                units.append((start, start + len(w), p))
                start += len(w)
            out.append(units)
        return out

    def train_sentences(self, corpus: Corpus, units: list) -> list:
        """The sentences a member may train on, each as ``(words, one tag per
        word)`` (tuples): every sentence with words (``corpus`` as
        :meth:`prepare` made it; ``units`` are its :meth:`gold`).

        >>> PART_OF_SPEECH.train_sentences(Corpus("g", [["我", "爱"], []], [1, 2],
        ...                                       pos=[["r", "v"], []]), None)
        [(('我', '爱'), ('r', 'v'))]
        """
        if corpus.pos is None:
            raise ValueError(f"{corpus.path}: has no part-of-speech tags")
        return [(tuple(ws), tuple(ps)) for ws, ps in zip(corpus.words, corpus.pos) if ws]

    def example(self, sentence) -> tuple[tuple[str, ...], Sequence[str]]:
        """A training sentence: already ``(words, tags)``.

        >>> PART_OF_SPEECH.example((("我", "爱"), ("r", "v")))
        (('我', '爱'), ('r', 'v'))
        """
        return sentence

    def items(self, words: Sequence[str]) -> tuple[str, ...]:
        """What a member tags of a test sentence: its gold words.

        >>> PART_OF_SPEECH.items(["计算机", "有"])
        ('计算机', '有')
        """
        return tuple(words)

    def decode(self, items: tuple[str, ...], tags: Sequence[str]) -> list[tuple[int, int, str]]:
        """A member's tags of one sentence's gold words as its units.

        >>> PART_OF_SPEECH.decode(("江泽民", "在", "北京"), ["nr", "p", "ns"])
        [(0, 3, 'nr'), (3, 4, 'p'), (4, 6, 'ns')]
        """
        if len(items) != len(tags):
            raise ValueError(f"{len(items)} words but {len(tags)} tags")
        units, start = [], 0
        for w, t in zip(items, tags):
            units.append((start, start + len(w), t))
            start += len(w)
        return units

    def mask(self, pred: Spans, n_chars: int) -> None:
        """None: a member keeps its tag of every gold word instead
        (:meth:`unit_labels`)."""
        return None

    def unit_labels(self, gold: Spans, pred: Spans) -> tuple[np.ndarray, tuple[str, ...]]:
        """A member's tag of every gold word: its units are the gold words
        in order (:meth:`decode` of the gold words), so their labels.

        >>> from committee.tasks.spans import labelled
        >>> g = labelled([3], [[(0, 2, "n"), (2, 3, "v")]], ["n", "v"])
        >>> p = labelled([3], [[(0, 2, "v"), (2, 3, "v")]], ["n", "v"])
        >>> codes, names = PART_OF_SPEECH.unit_labels(g, p)
        >>> codes.tolist(), names
        ([1, 1], ('n', 'v'))
        """
        import numpy as np

        if not (np.array_equal(gold.starts, pred.starts) and np.array_equal(gold.ends, pred.ends)):
            raise ValueError("a member's units are not the gold words: it tags the gold "
                             "segmentation")
        return pred.labels, pred.label_names

    def as_tokens(self, words: list, units: list) -> tuple[list, list]:
        """A tagger's units of the gold words as a ``pku`` file's tokens:
        the gold words, each with its predicted tag.

        >>> PART_OF_SPEECH.as_tokens([["我", "爱"]], [[(0, 1, "r"), (1, 2, "v")]])
        ([['我', '爱']], [['r', 'v']])
        """
        return [list(s) for s in words], [[u[2] for u in sentence] for sentence in units]

    def texts(self, words: list, units: list) -> list[str]:
        """Every unit's characters, in corpus order: the words.

        >>> PART_OF_SPEECH.texts([["我", "爱"]], [[(0, 1, "r"), (1, 2, "v")]])
        ['我', '爱']
        """
        return [w for s in words for w in s]

    def labels(self, *unit_lists) -> tuple[str, ...]:
        """The tags among several corpora's units, sorted."""
        return tuple(sorted({u[2] for units in unit_lists for sent in units for u in sent}))

    def spans(self, lengths: Sequence[int], units: list, label_names=None) -> Spans:
        """Tagged words of every sentence on the global character axis."""
        from committee.tasks.spans import labelled

        return labelled(lengths, units, label_names)

    def gold_problem(self, chars: str, units: list) -> str | None:
        """The gold words must spell the sentence's characters.

        >>> PART_OF_SPEECH.gold_problem("我爱", [(0, 1, "r"), (1, 2, "v")]) is None
        True
        """
        ends = [0] + [u[1] for u in units]
        if any(u[0] != e for u, e in zip(units, ends)) or ends[-1] != len(chars):
            return "gold words do not spell its characters"
        return None


PART_OF_SPEECH = PartOfSpeech()
