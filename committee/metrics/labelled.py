"""Sufficient statistics of labelled spans (named entities; docs/method.md §13).

:class:`EntityCollector` is the :class:`~committee.metrics.stats.Collector`
of ``task: ner``: the units are the gold entities ``(start, end, type)``
read from the tags (the conlleval rules, or a scheme's strict rules), a
unit is correct iff the output has an entity with the same span and type,
and the same :class:`~committee.metrics.stats.SufficientStats` come out, so
every formula of :mod:`committee.metrics.records`, the bootstrap and the
paired tests apply unchanged.  Word-only statistics (candidate words,
inner boundaries) are not collected: TNR and the boundary metrics are
absent.

On the precision side a predicted entity ``j`` weighs ``d'_j``, the
per-character weight (``test.weight_c``) of its last character: the
difficulty of the gold entity that holds that character, or, outside every
gold entity, the share of the committee's members that put an entity over
it.  Results by attribute (:class:`EntityBucketer`): by type, length and
difficulty, with the :class:`~committee.metrics.buckets.BucketStats` of
words, so per-type p, r and F1 are seqeval's ``classification_report``.
"""

from __future__ import annotations

import numpy as np

from committee.corpus import Corpus
from committee.corpus.entities import detect_scheme
from committee.metrics.align import check_aligned
from committee.metrics.buckets import (ENTITY_ATTRIBUTES as _RECORDS, UnitBuckets,
                                      bucket_stats,
                                      difficulty_bucket, length_bucket)
from committee.metrics.stats import N_BINS, SufficientStats, difficulty_bins, unit_sums
from committee.tasks.spans import Spans, inside
from committee.tasks.spans import match as match_spans

#: How an output treats each gold entity, in code order; ``spurious`` counts
#: the predicted entities that overlap no gold entity.
ENTITY_OUTCOMES = ("correct", "wrong_type", "wrong_boundary", "missed")

#: The attributes of entities' results, in order (records in
#: :data:`committee.metrics.buckets.ENTITY_ATTRIBUTES`).
ENTITY_ATTRIBUTES = tuple(a.key for a in _RECORDS)

_LENGTHS = _RECORDS[1].labels
_DIFFICULTY = _RECORDS[2].labels


class EntityCollector:
    """The gold side of entity scoring, prepared once.

    Parameters
    ----------
    gold : Corpus
        With entity tags (:attr:`Corpus.tags`).
    difficulty : array of float, shape (N_gold,), optional
        d of every gold entity, in corpus order.
    char_difficulty : array of float, shape (C,), optional
        The per-character weights (``test.weight_c``); needed with
        ``difficulty``.
    oov : array of bool, shape (N_gold,), optional
        Gold entities whose text is not a training entity.
    mode, scheme : str
        How entities are read from tags (:func:`committee.corpus.entities.entities`).
    buckets : sequence of str, optional
        Keys of :data:`ENTITY_ATTRIBUTES` to collect results by.

    Examples
    --------
    >>> g = Corpus("g", [list("江泽民在北京")], [1],
    ...            tags=[["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC"]])
    >>> p = Corpus("p", [list("江泽民在北京")], [1],
    ...            tags=[["B-PER", "I-PER", "O", "O", "B-ORG", "I-ORG"]])
    >>> from committee.tasks import NER
    >>> c = EntityCollector(g, difficulty=[0.5, 0.25], char_difficulty=[.5] * 3 + [.1] + [.25] * 2,
    ...                     task=NER)
    >>> s = c.collect(p)
    >>> s.n_gold.tolist(), s.n_pred.tolist(), s.n_correct.tolist(), s.pred_d.tolist()
    ([2], [2], [0], [0.75])
    >>> c.error_types(p)
    {'correct': 0, 'wrong_type': 1, 'wrong_boundary': 1, 'missed': 0, 'spurious': 0}
    """

    #: the attribute of their labels
    label_key = "type"

    def __init__(self, gold: Corpus, difficulty=None, char_difficulty=None, *, task, oov=None,
                 mode: str = "default", scheme: str | None = None, buckets=()):
        #: the task whose units these are (it reads them from a corpus)
        self.task = task
        if mode == "strict" and scheme is None:  # outputs are read by the gold's scheme
            scheme = detect_scheme(gold.tags)
        self.gold, self.mode, self.scheme = gold, mode, scheme
        #: the scheme of strict mode (given, or detected from the gold); None by default
        self.scheme_used = scheme if mode == "strict" else None
        self.units = self.task.gold(gold, mode, scheme)
        self._prepare(difficulty, char_difficulty, oov, buckets)

    def _prepare(self, difficulty, char_difficulty, oov, buckets) -> None:
        """The gold side of :attr:`units`: spans, counts, difficulties."""
        gold = self.gold
        self.lengths = [sum(map(len, s)) for s in gold.words]
        self.n_sentences = S = len(gold.words)
        self.spans = self.task.spans(self.lengths, self.units)
        g = self.spans
        self._n_gold = np.bincount(g.sentence, minlength=S)
        self.difficulty = self.char_difficulty = None
        if difficulty is not None:
            d = self.difficulty = np.asarray(difficulty, dtype=np.float64)
            if d.shape != (len(g.starts),):
                raise ValueError(f"difficulty has shape {d.shape}, gold has {len(g.starts)} "
                                 f"{self.task.units}")
            self.char_difficulty = np.asarray(char_difficulty, dtype=np.float64)
            if self.char_difficulty.shape != (g.n_chars,):
                raise ValueError(f"per-character weights have shape "
                                 f"{self.char_difficulty.shape}, gold has {g.n_chars} characters")
            self._gold_d = np.bincount(g.sentence, weights=d, minlength=S)
            self._bin_key = g.sentence * N_BINS + difficulty_bins(d)
            self._bin_gold = np.bincount(self._bin_key, minlength=S * N_BINS).reshape(S, N_BINS)
        self.oov = None if oov is None else np.asarray(oov, dtype=bool)
        if self.oov is not None:
            self._n_oov = np.bincount(g.sentence[self.oov], minlength=S)
        self.buckets = tuple(buckets)

    #: Characters whose entities are left out on both sides (:meth:`leaving_out`).
    excluded: np.ndarray | None = None

    def leaving_out(self, excluded: np.ndarray) -> EntityCollector:
        """This gold side without the gold entities that overlap an
        ``excluded`` character, and in :meth:`collect` without such predicted
        entities either (as :meth:`committee.metrics.Collector.leaving_out`);
        results by attribute are not collected."""
        import copy

        g = self.spans
        excluded = np.asarray(excluded, dtype=bool)
        if excluded.shape != (g.n_chars,):
            raise ValueError(f"excluded has shape {excluded.shape}, the gold has "
                             f"{g.n_chars} characters")
        keep = _outside(excluded, g)
        out = copy.copy(self)
        out.excluded, out._kept, out.buckets = excluded, keep, ()
        S = self.n_sentences
        out._n_gold = np.bincount(g.sentence[keep], minlength=S)
        if self.difficulty is not None:
            out.difficulty = self.difficulty[keep]
            out._gold_d = np.bincount(g.sentence[keep], weights=out.difficulty, minlength=S)
            out._bin_key = self._bin_key[keep]
            out._bin_gold = np.bincount(out._bin_key, minlength=S * N_BINS).reshape(S, N_BINS)
        if self.oov is not None:
            out.oov = self.oov[keep]
            out._n_oov = np.bincount(g.sentence[keep][out.oov], minlength=S)
        return out

    def units_of(self, pred: Corpus) -> list:
        """The units of an output, read as the gold's are."""
        return self.task.gold(pred, self.mode, self.scheme)

    def match(self, pred: Corpus) -> tuple[Spans, Spans, np.ndarray, np.ndarray]:
        """Gold and predicted units and which are matched (one label set)."""
        names = self.task.labels(self.units, pred_units := self.units_of(pred))
        g = self.task.spans(self.lengths, self.units, names)
        p = self.task.spans(self.lengths, pred_units, names)
        return (g, p) + match_spans(g, p)

    def collect(self, pred: Corpus, check: bool = True, matched=None) -> SufficientStats:
        """Sufficient statistics of ``pred``, checked to align with gold
        (same sentences, same characters) unless ``check=False``;
        ``matched`` spares recomputing :meth:`match` when the caller has it."""
        if check:
            check_aligned(self.gold, pred)
        S = self.n_sentences
        g, p, gold_ok, _ = self.match(pred) if matched is None else matched
        if self.excluded is not None:
            gold_ok, g = gold_ok[self._kept], _subset(g, self._kept)
            p = _subset(p, _outside(self.excluded, p))

        def per_sentence(ids, weights=None):
            return np.bincount(ids, weights=weights, minlength=S)

        # d'_j: the per-character weight of the last character of entity j
        extra = unit_sums(self, g, p, gold_ok, None if self.difficulty is None
                          else self.char_difficulty[p.ends - 1])
        if self.buckets:
            extra["buckets"] = self._bucket_stats(g, p, gold_ok)
        return SufficientStats(n_gold=self._n_gold, n_pred=per_sentence(p.sentence),
                               n_correct=per_sentence(g.sentence[gold_ok]), **extra)

    def _bucket_stats(self, g: Spans, p: Spans, gold_ok: np.ndarray) -> dict:
        """``{attr: BucketStats}``: gold entities by their attribute, predicted
        ones by theirs (a correct one falls in its gold entity's bucket)."""
        out = {}
        pred_d = None if self.difficulty is None else self.char_difficulty[p.ends - 1]
        for key in self.buckets:
            if key == self.label_key:
                labels, gb, pb = g.label_names, g.labels, p.labels
            elif key == "length":
                labels, gb, pb = _LENGTHS, length_bucket(g.ends - g.starts), length_bucket(
                    p.ends - p.starts)
            elif key == "difficulty" and self.difficulty is not None:
                labels, gb, pb = _DIFFICULTY, difficulty_bucket(self.difficulty), None
            else:
                continue
            out[key] = bucket_stats(key, labels, self.n_sentences,
                                    UnitBuckets(g.sentence, gb, self.difficulty), gold_ok,
                                    UnitBuckets(p.sentence, pb, pred_d))
        return out

    def error_types(self, pred: Corpus, matched=None) -> dict[str, int]:
        """:func:`entity_outcomes` counts of an aligned output (``matched``:
        its :meth:`match`, when the caller has it)."""
        g, p, _, _ = self.match(pred) if matched is None else matched
        return entity_outcomes(g, p)


def _outside(excluded: np.ndarray, s: Spans) -> np.ndarray:
    """Which spans of ``s`` overlap no ``excluded`` character."""
    before = np.concatenate(([0], np.cumsum(excluded)))
    return before[s.ends] == before[s.starts]


def _subset(s: Spans, keep: np.ndarray) -> Spans:
    return Spans(s.starts[keep], s.ends[keep], s.sentence[keep], s.sentence_offsets,
                 None if s.labels is None else s.labels[keep], s.label_names)


def entity_outcomes(gold: Spans, pred: Spans) -> dict[str, int]:
    """How an output treats each gold entity, and its spurious entities.

    A gold entity is ``correct`` (an entity of the output has its span and
    type), of ``wrong_type`` (one has its span, none its type), of
    ``wrong_boundary`` (an entity of the output overlaps it, none has its
    span) or ``missed`` (none overlaps it).  ``spurious`` counts the
    output's entities that overlap no gold entity.  The four gold outcomes
    add up to the gold entities; ``correct`` is ``n_correct``.

    >>> from committee.tasks.spans import labelled
    >>> names = ("LOC", "PER")
    >>> g = labelled([10], [[(0, 2, "PER"), (3, 5, "LOC"), (6, 8, "PER"), (8, 9, "LOC")]], names)
    >>> p = labelled([10], [[(0, 2, "PER"), (3, 5, "PER"), (6, 7, "PER"), (9, 10, "LOC")]], names)
    >>> entity_outcomes(g, p)
    {'correct': 1, 'wrong_type': 1, 'wrong_boundary': 1, 'missed': 1, 'spurious': 1}
    """
    counts = np.bincount(outcome_codes(gold, pred), minlength=len(ENTITY_OUTCOMES))
    out = {name: int(c) for name, c in zip(ENTITY_OUTCOMES, counts)}
    out["spurious"] = int((~_overlapping(pred, gold)).sum())
    return out


def outcome_codes(gold: Spans, pred: Spans) -> np.ndarray:
    """Each gold entity's outcome (:func:`entity_outcomes`), as a code into
    :data:`ENTITY_OUTCOMES`; both sides over one label set."""
    n = max(gold.n_chars, pred.n_chars) + 1
    exact = match_spans(gold, pred)[0]
    same_span = np.isin(gold.starts * n + gold.ends, pred.starts * n + pred.ends)
    overlaps = _overlapping(gold, pred)
    return np.where(exact, 0, np.where(same_span, 1, np.where(overlaps, 2, 3))).astype(np.uint8)


def _overlapping(a: Spans, b: Spans) -> np.ndarray:
    """For each span of ``a``: does some span of ``b`` share a character with it?"""
    covered = np.concatenate(([0], np.cumsum(inside(b, max(a.n_chars, b.n_chars)))))
    return covered[a.ends] - covered[a.starts] > 0
