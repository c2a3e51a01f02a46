"""Results by word attribute: per-bucket sufficient statistics and metrics.

An :class:`Attribute` puts every gold word (and, where a predicted word has
the attribute too, every predicted word) in one of its buckets.  Gold words
are bucketed by the gold word's attribute, predicted words by the predicted
word's (as ExplainaBoard does): recall and rb of a bucket are over its gold
words, precision and pb over its predicted words.  A predicted word is
correct iff its span is a gold word's span, so it has the same characters
and sentence as that gold word and falls in the same bucket for every
attribute with a predicted side: one count of correct words serves both.

:class:`Bucketer` prepares the gold side once; :meth:`Bucketer.collect`
gives, per attribute, :class:`BucketStats`: per-sentence counts of shape
``(S, B)``, which sum (with bootstrap weights or without) to per-bucket
totals, to which the formulas of :mod:`committee.metrics.records` apply
unchanged (:func:`bucket_metrics`).  Definitions: docs/metrics.md
(Results by word attribute).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields

import numpy as np

from committee.metrics.records import metric_arrays

#: The metrics of a bucket, as keys of the registry, and their names in a bucket row.
BUCKET_METRICS = {"r": "recall", "rb": "rb", "p": "precision", "f1": "f1", "pb": "pb", "fb": "fb"}


@dataclass(frozen=True)
class Attribute:
    """One word attribute and its buckets.

    ``needs`` is what it cannot be computed without (``None``,
    ``"difficulty"``, ``"vocabulary"``, ``"word counts"``: the training
    words with their counts, from a training corpus or a run's
    ``train-words.tsv``, or ``"training corpus"``: its text);
    ``predicted``: whether a predicted word has it (then precision, F, pb
    and fb are defined per bucket).
    """

    key: str
    labels: tuple[str, ...]
    needs: str | None
    predicted: bool
    meaning: str


#: Every attribute, in the order of tables, ``--json`` and the report.
ATTRIBUTES = (
    Attribute("length", ("1", "2", "3", "4+"), None, True, "word length in characters"),
    Attribute("oov", ("IV", "OOV"), "vocabulary", True,
              "in or out of the training vocabulary"),
    Attribute("frequency", ("0", "1", "2-4", "5-19", "20+"), "word counts", True,
              "how often the word occurs as a word in the training corpus"),
    Attribute("consistency", ("unseen", "[0,.5)", "[.5,.9)", "[.9,1]"), "training corpus", True,
              "share of the occurrences of the word's characters in the training text "
              "that are this word"),
    Attribute("sentence", ("1-15", "16-30", "31-50", "51-80", "81+"), None, True,
              "length of the word's sentence in characters"),
    Attribute("difficulty", ("[0,.2)", "[.2,.4)", "[.4,.6)", "[.6,.8)", "[.8,1]"),
              "difficulty", False, "the gold word's difficulty d"),
)

KEYS = tuple(a.key for a in ATTRIBUTES)
_BY_KEY = {a.key: a for a in ATTRIBUTES}

#: The attributes of entities (``task: ner``, :mod:`committee.metrics.labelled`);
#: the types are those of the gold and the outputs.
ENTITY_ATTRIBUTES = (
    Attribute("type", (), None, True, "the entity's type (per-type p, r and f1 are seqeval's "
                                      "classification report)"),
    Attribute("length", ("1", "2", "3", "4+"), None, True, "entity length in characters"),
    Attribute("difficulty", ("[0,.2)", "[.2,.4)", "[.4,.6)", "[.6,.8)", "[.8,1]"),
              "difficulty", False, "the gold entity's difficulty d"),
)
_ENTITY_BY_KEY = {a.key: a for a in ENTITY_ATTRIBUTES}

#: The attributes of tagged words (``task: pos``, :mod:`committee.metrics.tagged`);
#: the tags are those of the gold and the outputs.
TAG_ATTRIBUTES = (
    Attribute("tag", (), None, True, "the word's part-of-speech tag (on the gold segmentation, "
                                     "per-tag p, r and f1 are scikit-learn's classification "
                                     "report)"),
    Attribute("length", ("1", "2", "3", "4+"), None, True, "word length in characters"),
    Attribute("difficulty", ("[0,.2)", "[.2,.4)", "[.4,.6)", "[.6,.8)", "[.8,1]"),
              "difficulty", False, "the gold word's difficulty d"),
)

#: The attributes of each kind of unit, by its name (:attr:`committee.tasks.units.UnitKind.name`;
#: a kind gives its own: :meth:`committee.tasks.units.UnitKind.attributes`).
UNIT_ATTRIBUTES = {"words": ATTRIBUTES, "entities": ENTITY_ATTRIBUTES, "tags": TAG_ATTRIBUTES}

_FREQ_EDGES = np.array([1, 2, 5, 20])          # 0 | 1 | 2-4 | 5-19 | 20+
_SENT_EDGES = np.array([16, 31, 51, 81])       # 1-15 | 16-30 | 31-50 | 51-80 | 81+
_CONS_EDGES = np.array([0.5, 0.9])             # [0,.5) | [.5,.9) | [.9,1]


def attribute(key: str, entities: bool | str = False) -> Attribute:
    """The attribute named ``key`` of words, of ``entities`` (True), or of
    the units of a collector (``"tags"``, :data:`UNIT_ATTRIBUTES`);
    ``KeyError`` otherwise."""
    if isinstance(entities, str):
        return {a.key: a for a in UNIT_ATTRIBUTES[entities]}[key]
    return (_ENTITY_BY_KEY if entities else _BY_KEY)[key]


def length_bucket(lengths) -> np.ndarray:
    """``1``, ``2``, ``3``, ``4+``: bucket index of word lengths.

    >>> length_bucket([1, 2, 3, 4, 9]).tolist()
    [0, 1, 2, 3, 3]
    """
    return np.minimum(np.asarray(lengths, dtype=np.int64), 4) - 1


def frequency_bucket(freq) -> np.ndarray:
    """``0``, ``1``, ``2-4``, ``5-19``, ``20+``.

    >>> frequency_bucket([0, 1, 2, 4, 5, 19, 20]).tolist()
    [0, 1, 2, 2, 3, 3, 4]
    """
    return np.searchsorted(_FREQ_EDGES, np.asarray(freq), side="right")


def sentence_bucket(n_chars) -> np.ndarray:
    """``1-15``, ``16-30``, ``31-50``, ``51-80``, ``81+`` characters.

    >>> sentence_bucket([1, 15, 16, 30, 31, 50, 51, 80, 81]).tolist()
    [0, 0, 1, 1, 2, 2, 3, 3, 4]
    """
    return np.searchsorted(_SENT_EDGES, np.asarray(n_chars), side="right")


def consistency_bucket(share) -> np.ndarray:
    """``unseen`` (NaN: the string never occurs in the training text),
    ``[0,.5)``, ``[.5,.9)``, ``[.9,1]``.

    >>> consistency_bucket([np.nan, 0.0, 0.49, 0.5, 0.9, 1.0]).tolist()
    [0, 1, 1, 2, 3, 3]
    """
    s = np.asarray(share, dtype=np.float64)
    return np.where(np.isnan(s), 0, 1 + np.searchsorted(_CONS_EDGES, np.nan_to_num(s),
                                                        side="right"))


def difficulty_bucket(d) -> np.ndarray:
    """``[0,.2)`` … ``[.8,1]``: five bins of width .2 (two difficulty bins each).

    >>> difficulty_bucket([0.0, 0.19, 0.2, 0.6, 0.8, 1.0]).tolist()
    [0, 0, 1, 3, 4, 4]
    """
    return np.minimum(np.floor(np.asarray(d, dtype=np.float64) * 5 + 1e-9), 4).astype(np.int64)


def occurrences(text: str, words) -> dict[str, int]:
    """How many places of ``text`` each of ``words`` starts at (overlapping
    occurrences: ``哈哈`` occurs twice in ``哈哈哈``).  Lengths with many
    words count every substring of that length at once.

    >>> occurrences("哈哈哈，北京", ["哈哈", "北京", "京哈"])
    {'京哈': 0, '北京': 1, '哈哈': 2}
    """
    by_length: dict[int, list[str]] = {}
    for w in sorted(set(words)):
        by_length.setdefault(len(w), []).append(w)
    n, out = len(text), {}
    for k, group in sorted(by_length.items()):
        if k == 1 or len(group) > 50:
            grams = Counter(map(text.__getitem__, map(slice, range(n - k + 1), range(k, n + 1))))
            out.update((w, grams[w]) for w in group)
            continue
        for w in group:
            count, i = 0, text.find(w)
            while i >= 0:
                count, i = count + 1, text.find(w, i + 1)
            out[w] = count
    return out


@dataclass(frozen=True)
class BucketStats:
    """Per-sentence counts of one attribute, shape ``(S, B)`` each.

    ``n_gold``, ``n_correct``: gold words of the bucket and how many are
    correct; ``n_pred``: predicted words of the bucket (None without a
    predicted side); ``gold_d``, ``correct_d``, ``pred_d``: their
    difficulty sums as in :class:`~committee.metrics.stats.SufficientStats`
    (None without difficulties; ``pred_d`` also without a predicted side).
    """

    attr: str
    labels: tuple[str, ...]
    n_gold: np.ndarray
    n_correct: np.ndarray
    n_pred: np.ndarray | None = None
    gold_d: np.ndarray | None = None
    correct_d: np.ndarray | None = None
    pred_d: np.ndarray | None = None

    def arrays(self) -> dict[str, np.ndarray]:
        """The count arrays that were collected, by statistic name."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("attr", "labels") and getattr(self, f.name) is not None}


def bucket_metrics(totals: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per-bucket metrics (keys of :data:`BUCKET_METRICS`) from per-bucket
    totals of :meth:`BucketStats.arrays` (any shape ending in ``B``), with
    the formulas of the registry; NaN where undefined or not collected.

    >>> m = bucket_metrics({"n_gold": np.array([2.0, 0.0]), "n_correct": np.array([1.0, 0.0]),
    ...                     "n_pred": np.array([1.0, 1.0])})
    >>> m["r"].tolist(), m["p"].tolist()
    ([0.5, nan], [1.0, 0.0])
    """
    t = dict(totals)
    nan = np.full(np.shape(t["n_gold"]), np.nan)
    t.setdefault("n_pred", nan)
    if "gold_d" in t:
        t.setdefault("pred_d", nan)
    return metric_arrays(t, tuple(BUCKET_METRICS))


class Bucketer:
    """The gold side of the buckets of ``attrs``, computed once.

    Parameters
    ----------
    gold_words : list of list of str
    attrs : sequence of str
        Keys of :data:`ATTRIBUTES`, each with what it needs given.
    difficulty : array of float, optional
        d of every gold word (corpus order).
    vocabulary : set of str, optional
    train_words : list of list of str, optional
        The training corpus's sentences (frequency, consistency).
    counts : mapping of str to int, optional
        Without ``train_words``: the times each training word occurs as a
        word (frequency; a run's ``train-words.tsv``).
    text : str, optional
        Without ``train_words``: the training text, sentences separated by
        ``\n`` (with ``counts``, consistency; a run's ``train-text.txt``).
    """

    def __init__(self, gold_words, attrs, *, difficulty=None, vocabulary=None,
                 train_words=None, counts=None, text=None):
        self.attrs = tuple(attrs)
        self.vocabulary = vocabulary
        self.difficulty = None if difficulty is None else np.asarray(difficulty, np.float64)
        self._freq: Counter | None = None
        self._text = ""
        self._share: dict[str, float] = {}
        if train_words is not None:
            self._freq = Counter(w for s in train_words for w in s)
            self._text = "\n".join("".join(s) for s in train_words)
        elif counts is not None:
            self._freq = Counter(counts)
            self._text = text or ""
        self.n_sentences = len(gold_words)
        self._gold_sentence = np.repeat(np.arange(len(gold_words)),
                                        [len(s) for s in gold_words])
        self._gold_buckets = {a: self.word_buckets(a, gold_words) for a in self.attrs}
        if self.difficulty is not None:
            lengths = [len(w) for s in gold_words for w in s]
            self._char_d = np.repeat(self.difficulty, lengths)

    def share(self, word: str) -> float:
        """Label consistency of ``word``: its count as a training word over the
        number of places its characters occur in the training text (every
        start position, within sentences); NaN when they occur nowhere."""
        self._prepare([word])
        return self._share[word]

    def _prepare(self, words) -> None:
        """Compute the consistency of those ``words`` not yet known."""
        missing = {w for w in words if w not in self._share}
        for w, n in occurrences(self._text, missing).items():
            self._share[w] = self._freq[w] / n if n else float("nan")

    def word_buckets(self, attr: str, words) -> np.ndarray:
        """Bucket index of every word of ``words`` (sentences of words, corpus order)."""
        flat = [w for s in words for w in s]
        if attr == "length":
            return length_bucket(np.fromiter(map(len, flat), np.int64, len(flat)))
        if attr == "oov":
            return np.fromiter((w not in self.vocabulary for w in flat), np.int64, len(flat))
        if attr == "frequency":
            return frequency_bucket(np.fromiter((self._freq[w] for w in flat), np.int64,
                                                len(flat)))
        if attr == "consistency":
            self._prepare(flat)
            return consistency_bucket(np.fromiter(map(self.share, flat), np.float64, len(flat)))
        if attr == "sentence":
            n_chars = [sum(map(len, s)) for s in words]
            return np.repeat(sentence_bucket(n_chars), [len(s) for s in words])
        if attr == "difficulty":
            return difficulty_bucket(self.difficulty)
        raise KeyError(attr)

    def collect(self, pred_words, pred_ends: np.ndarray, gold_ok: np.ndarray) -> dict:
        """``{attr: BucketStats}`` of one output: its sentences of words, the
        end offset of every predicted word on the global character axis, and
        whether each gold word is correct."""
        pred_sentence = np.repeat(np.arange(len(pred_words)), [len(s) for s in pred_words])
        pred_d = None if self.difficulty is None else self._char_d[pred_ends - 1]
        out = {}
        for key in self.attrs:
            a = attribute(key)
            p = self.word_buckets(key, pred_words) if a.predicted else None
            out[key] = bucket_stats(key, a.labels, self.n_sentences,
                                    UnitBuckets(self._gold_sentence, self._gold_buckets[key],
                                                self.difficulty),
                                    gold_ok, UnitBuckets(pred_sentence, p, pred_d))
        return out


@dataclass(frozen=True)
class UnitBuckets:
    """One side's units for :func:`bucket_stats`: each unit's ``sentence``
    and ``bucket`` (``bucket`` None: no such side) and its difficulty or
    weight (``weights`` None: no difficulties)."""

    sentence: np.ndarray
    bucket: np.ndarray | None
    weights: np.ndarray | None = None


def bucket_stats(attr: str, labels, S: int, gold: UnitBuckets, gold_ok,
                 pred: UnitBuckets) -> BucketStats:
    """The :class:`BucketStats` of one attribute from each gold unit's
    sentence and bucket and whether it is correct (``gold_ok``), each
    predicted unit's sentence and bucket (``pred.bucket`` None: no predicted
    side), and the gold units' difficulties ``gold.weights`` and predicted
    units' weights ``pred.weights`` (None: no difficulties)."""
    B = len(labels)
    gold_sentence, gold_bucket, d = gold.sentence, gold.bucket, gold.weights
    pred_sentence, pred_bucket, pred_d = pred.sentence, pred.bucket, pred.weights

    def table(sentence, bucket, weights=None):
        return np.bincount(sentence * B + bucket, weights=weights,
                           minlength=S * B).reshape(S, B)

    arrays = {"n_gold": table(gold_sentence, gold_bucket),
              "n_correct": table(gold_sentence[gold_ok], gold_bucket[gold_ok])}
    if pred_bucket is not None:
        arrays["n_pred"] = table(pred_sentence, pred_bucket)
    if d is not None:
        arrays["gold_d"] = table(gold_sentence, gold_bucket, d)
        arrays["correct_d"] = table(gold_sentence[gold_ok], gold_bucket[gold_ok], d[gold_ok])
        if pred_bucket is not None:
            arrays["pred_d"] = table(pred_sentence, pred_bucket, pred_d)
    return BucketStats(attr, tuple(labels), **arrays)


def bucket_rows(buckets: dict, intervals: dict | None = None) -> list[dict]:
    """One row per attribute and bucket: ``attr``, ``bucket``, ``gold_words``,
    ``pred_words``, ``correct`` and the metrics of :data:`BUCKET_METRICS`
    (NaN when undefined), plus ``<metric>_low`` and ``<metric>_high`` from
    ``intervals`` (``{attr: {key: (low array, high array)}}``)."""
    rows = []
    for key, bs in buckets.items():
        t = {name: v.sum(axis=0).astype(np.float64) for name, v in bs.arrays().items()}
        m = bucket_metrics(t)
        for b, label in enumerate(bs.labels):
            row = {"attr": key, "bucket": label, "gold_words": int(t["n_gold"][b]),
                   "pred_words": int(t["n_pred"][b]) if "n_pred" in t else None,
                   "correct": int(t["n_correct"][b])}
            row.update({name: float(m[k][b]) for k, name in BUCKET_METRICS.items()})
            for k, name in BUCKET_METRICS.items():
                if intervals is not None:
                    lo, hi = intervals[key][k]
                    row[f"{name}_low"], row[f"{name}_high"] = float(lo[b]), float(hi[b])
            rows.append(row)
    return rows
