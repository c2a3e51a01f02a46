"""Sufficient statistics of tagged words (parts of speech; docs/method.md §14).

:class:`TagCollector` is the collector of ``task: pos``: the units are the
gold words with their tags, ``(start, end, tag)`` on the character axis,
and a unit is correct iff the output has a word with the same span and
the same tag.  It is :class:`~committee.metrics.labelled.EntityCollector`
over those labelled spans, so the same
:class:`~committee.metrics.stats.SufficientStats` come out and every
formula, the bootstrap and the paired tests apply unchanged:

* an output that keeps the gold segmentation has as many units as the
  gold, on the same spans, so p = r = f1 = its tag accuracy;
* an output with its own segmentation is scored jointly: p, r and f1 count
  the exact (start, end, tag) matches.

The difficulties are one per gold word (``test.weight``).  A predicted
word ``j`` weighs ``d'_j``, the difficulty of the gold word that holds its
last character (§5): the gold words tile the text, so every character has
the difficulty of its gold word.  Results by attribute: by tag (on the gold
segmentation, scikit-learn's ``classification_report``), length and
difficulty.
"""

from __future__ import annotations

import numpy as np

from committee.corpus import Corpus
from committee.metrics.buckets import TAG_ATTRIBUTES as _RECORDS
from committee.metrics.labelled import EntityCollector, entity_outcomes

#: The attributes of tagged words' results, in order.
TAG_ATTRIBUTES = tuple(a.key for a in _RECORDS)

#: How an output treats each gold word (:meth:`TagCollector.error_types`);
#: ``spurious`` is always 0 when the output covers the text.
TAG_OUTCOMES = ("correct", "wrong_tag", "wrong_boundary", "missed")


class TagCollector(EntityCollector):
    """The gold side of part-of-speech scoring, prepared once.

    Parameters
    ----------
    gold : Corpus
        With POS tags (:attr:`Corpus.pos`), as :meth:`committee.tasks.PartOfSpeech.prepare`
        leaves it.
    difficulty : array of float, shape (N_gold,), optional
        d of every gold word, in corpus order.
    oov : array of bool, shape (N_gold,), optional
        Gold words out of the training vocabulary.
    buckets : sequence of str, optional
        Keys of :data:`TAG_ATTRIBUTES` to collect results by.

    Examples
    --------
    >>> g = Corpus("g", [["江泽民", "在", "北京"]], [1], pos=[["nr", "p", "ns"]])
    >>> from committee.tasks import PART_OF_SPEECH
    >>> c = TagCollector(g, difficulty=[0.5, 0.0, 1.0], task=PART_OF_SPEECH)
    >>> s = c.collect(Corpus("p", [["江泽民", "在", "北京"]], [1], pos=[["nr", "v", "ns"]]))
    >>> s.n_gold.tolist(), s.n_pred.tolist(), s.n_correct.tolist(), s.pred_d.tolist()
    ([3], [3], [2], [1.5])
    >>> c.error_types(Corpus("p", [["江泽", "民在", "北京"]], [1], pos=[["nr", "p", "n"]]))
    {'correct': 0, 'wrong_tag': 1, 'wrong_boundary': 2, 'missed': 0, 'spurious': 0}
    """

    label_key = "tag"

    def __init__(self, gold: Corpus, difficulty=None, *, task, oov=None, buckets=()):
        self.task = task
        self.gold, self.mode, self.scheme, self.scheme_used = gold, "default", None, None
        self.units = self.task.gold(gold)
        char_d = None
        if difficulty is not None:  # every character weighs its gold word's d
            d = np.asarray(difficulty, dtype=np.float64)
            n = sum(map(len, self.units))
            if d.shape != (n,):
                raise ValueError(f"difficulty has shape {d.shape}, gold has {n} words")
            lengths = [u[1] - u[0] for sent in self.units for u in sent]
            char_d = np.repeat(d, lengths)
        self._prepare(difficulty, char_d, oov, buckets)

    def error_types(self, pred: Corpus, matched=None) -> dict[str, int]:
        """How an aligned output treats each gold word: ``correct``, of
        ``wrong_tag`` (its span is an output word, with another tag),
        ``wrong_boundary`` (no output word has its span) or ``missed``
        (never, when the output covers the text), and ``spurious``
        (output words that overlap no gold word)."""
        g, p, _, _ = self.match(pred) if matched is None else matched
        return tag_outcomes(g, p)


def tag_outcomes(gold, pred) -> dict[str, int]:
    """:func:`committee.metrics.labelled.entity_outcomes` of tagged words:
    a word whose span an output word has, with another tag, is ``wrong_tag``."""
    return {("wrong_tag" if k == "wrong_type" else k): v
            for k, v in entity_outcomes(gold, pred).items()}
