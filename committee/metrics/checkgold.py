"""Suspicious gold: which gold units are likely annotation errors
(docs/method.md §15).

Everything here works on whole corpora laid end to end on one character
axis (:mod:`committee.tasks.spans`).  A *candidate* is a span of the gold
``[start, end)`` with the gold's reading of it and one alternative reading
(word ends inside the span, or an entity's extent and type).  Candidates
come from two sources:

* the committee: every region where a member's reading differs from the
  gold's (:func:`member_regions`), counted over the members: how many read
  exactly this alternative (``n_alt``) and how many read the span in any
  other way than the gold (``n_wrong``).  Members never saw the test set,
  so their votes are out of sample.  Consensus against the gold
  (``n_alt`` close to ``n_wrong``) points at the gold; wrong members
  scattered over many readings point at a hard unit.
* variation n-grams (Dickinson & Meurers 2003): a string of one to
  :data:`MAX_WORDS` gold words that the training corpus (or the rest of the
  test gold) reads another way (:class:`Variation`).

Each candidate gets the features of :data:`FEATURES`; a logistic model
(:data:`WEIGHTS`) turns them into the probability that the candidate is an
annotation error.  The weights were fitted once, on errors injected into
the embedded corpus's test gold (:func:`inject_words`;
``benchmarks/bench_check_gold.py --fit`` prints them again), and they are the
same for every run: a run's own gold cannot be trusted to fit them, as its
real errors would be counted as correct readings.  :func:`rank` orders the
candidates and keeps, of overlapping ones, the most suspicious; the
probabilities of the kept ones are then moved to the run's own rate of
errors, estimated by EM (:func:`adjust_prior`, Saerens, Latinne &
Decaestecker 2002), so that their sum is the list's expected number of
errors.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from committee.metrics.checkgold_injected import (  # noqa: F401  (re-exported)
    FIT_RATE, WORD_ERRORS, Injected, detection, inject_words, touches)
from committee.metrics.checkgold_model import (  # noqa: F401  (re-exported)
    FEATURES, NONNEGATIVE, WORD_FEATURES, adjust_prior, fit, probabilities, rank)

#: Longest gold n-gram (in words) and string (in characters) a variation
#: n-gram is looked up for.
MAX_WORDS = 3
MAX_CHARS = 8

#: The weight of ``surname``, set and not fitted: injected errors never
#: follow or break the convention that a name's surname is a word of its
#: own, so they cannot say what it weighs.  -8 takes away about what a
#: string read only the proposed way a hundred times in the training data,
#: by every member, adds (docs/method.md §15).
SURNAME_WEIGHT = -8.0
#: The model's weights, intercept first, then :data:`WORD_FEATURES`: all but
#: ``surname``'s fitted on the embedded corpus's K = 12 committee
#: (``configs/default.yaml``) with :data:`FIT_RATE` of its test gold's words
#: injected with errors, seed 1000, a candidate counting as an error when
#: it overlaps one and proposes the reading the injection replaced
#: (``benchmarks/bench_check_gold.py RUN --fit``); ``surname``'s is
#: :data:`SURNAME_WEIGHT`.
WEIGHTS = np.array([-1.8682, 0.0, 3.2346, 0.1136, 1.4620, 0.1579, 0.2549, -1.6799, -5.1440,
                    1.0250, 0.8604, SURNAME_WEIGHT])
#: The share of candidates that were errors where :data:`WEIGHTS` were fitted
#: (the prior :func:`adjust_prior` moves from).
FITTED_RATE = 0.1251


# --------------------------------------------------------------------------
# word boundaries on the global axis


def ends_of(words: list[list[str]]) -> np.ndarray:
    """One boolean per character: true at the last character of each word.

    >>> ends_of([["我", "爱", "北京"], ["好"]]).astype(int).tolist()
    [1, 1, 0, 1, 1]
    """
    lengths = [len(w) for s in words for w in s]
    out = np.zeros(sum(lengths), dtype=bool)
    out[np.cumsum(lengths, dtype=np.int64) - 1] = True
    return out


def reading(ends: np.ndarray, start: int, end: int) -> tuple[int, ...]:
    """The lengths of the words ``ends`` cuts ``[start, end)`` into.

    >>> reading(np.array([1, 0, 1, 1], dtype=bool), 0, 4)
    (1, 2, 1)
    """
    cuts = np.flatnonzero(ends[start:end]) + 1
    return tuple(np.diff(np.concatenate(([0], cuts))).tolist())


def cut(text: str, lengths) -> list[str]:
    """``text`` cut into words of ``lengths``.

    >>> cut("北京大学", (2, 2))
    ['北京', '大学']
    """
    out, k = [], 0
    for n in lengths:
        out.append(text[k:k + n])
        k += n
    return out


# --------------------------------------------------------------------------
# the committee's readings


def member_regions(gold_ends: np.ndarray, member_ends: np.ndarray) -> list[tuple[int, int, bytes]]:
    """The regions where one member's segmentation differs from the gold's:
    ``(start, end, its ends over the region)``.  A region runs between two
    characters both segmentations end a word at, so it is the smallest
    span both read as a whole.

    >>> g = np.array([1, 0, 1, 1, 1], dtype=bool)   # 北京 | 大 | 学
    >>> m = np.array([1, 0, 1, 0, 1], dtype=bool)   # 北京 | 大学
    >>> [(s, e, list(r)) for s, e, r in member_regions(g, m)]
    [(3, 5, [0, 1])]
    """
    common = np.flatnonzero(gold_ends & member_ends)
    diff = np.flatnonzero(gold_ends != member_ends)
    if diff.size == 0:
        return []
    region = np.unique(np.searchsorted(common, diff))
    ends = common[region] + 1
    starts = np.where(region > 0, common[np.maximum(region - 1, 0)] + 1, 0)
    return [(int(s), int(e), member_ends[s:e].tobytes())
            for s, e in zip(starts.tolist(), ends.tolist())]


@dataclass
class Candidates:
    """Candidates on the global character axis (one entry per candidate)."""

    start: np.ndarray
    end: np.ndarray
    gold: list          # the gold's reading: word lengths
    alt: list           # the alternative: word lengths
    n_alt: np.ndarray   # members reading exactly the alternative
    n_wrong: np.ndarray  # members reading the span otherwise than the gold
    k: int              # members
    extra: dict = field(default_factory=dict)  # further per-candidate arrays

    def __len__(self) -> int:
        return int(self.start.size)


def member_readings(gold_ends: np.ndarray, pred_ends: np.ndarray) -> Counter:
    """How many members give each ``(start, end, ends)`` of :func:`member_regions`."""
    counts: Counter = Counter()
    for member in pred_ends:
        counts.update(member_regions(gold_ends, member))
    return counts


def word_candidates(gold_ends: np.ndarray, pred_ends: np.ndarray, counts: Counter,
                    more=()) -> Candidates:
    """Every alternative reading some member gives a region of the gold
    (``counts`` of :func:`member_readings`), with the counts of
    :class:`Candidates`; ``more`` adds ``(start, end, lengths)``
    alternatives from elsewhere (variation n-grams) that no member gives."""
    keys = sorted(counts, key=lambda t: (t[0], t[1], t[2]))
    seen = {(s, e, reading(np.frombuffer(r, dtype=bool), 0, e - s)): counts[(s, e, r)]
            for s, e, r in keys}
    for s, e, lengths in more:
        seen.setdefault((int(s), int(e), tuple(lengths)), 0)
    items = sorted(seen.items())
    start = np.array([k[0] for k, _ in items], dtype=np.int64)
    end = np.array([k[1] for k, _ in items], dtype=np.int64)
    n_wrong = np.zeros(start.size, dtype=np.int64)
    for member in pred_ends:
        wrong = np.concatenate(([0], np.cumsum(member != gold_ends, dtype=np.int64)))
        n_wrong += (wrong[end] - wrong[start]) > 0
    return Candidates(start, end, [reading(gold_ends, s, e) for s, e in zip(start, end)],
                      [k[2] for k, _ in items], np.array([c for _, c in items], dtype=np.int64),
                      n_wrong, int(len(pred_ends)))


# --------------------------------------------------------------------------
# variation n-grams


class Variation:
    """How a corpus reads strings of one to :data:`MAX_WORDS` words: for each
    string (of ``strings`` only, when given), the count of each reading
    (word lengths) among its occurrences that start and end at word
    boundaries.

    >>> v = Variation([["北京", "大学"], ["北京大学", "好"]], {"北京大学"})
    >>> sorted(v.counts["北京大学"].items())
    [((2, 2), 1), ((4,), 1)]
    """

    def __init__(self, words: list[list[str]], strings=None):
        counts: dict = defaultdict(Counter)
        for sentence in words:
            n = len(sentence)
            for i in range(n):
                text, lengths = "", ()
                for j in range(i, min(i + MAX_WORDS, n)):
                    text += sentence[j]
                    lengths += (len(sentence[j]),)
                    if len(text) > MAX_CHARS:
                        break
                    if strings is None or text in strings:
                        counts[text][lengths] += 1
        self.counts = counts

    def count(self, text: str, lengths) -> int:
        return self.counts.get(text, {}).get(tuple(lengths), 0)


def gold_ngrams(words: list[list[str]]):
    """Every span of one to :data:`MAX_WORDS` gold words of two to
    :data:`MAX_CHARS` characters: ``(global start, global end, string, lengths)``.

    >>> [t[2:] for t in gold_ngrams([["北京", "大学"]])]
    [('北京', (2,)), ('北京大学', (2, 2)), ('大学', (2,))]
    """
    offset = 0
    for sentence in words:
        starts = np.concatenate(([0], np.cumsum([len(w) for w in sentence]))) + offset
        for i in range(len(sentence)):
            for j in range(i + 1, min(i + MAX_WORDS, len(sentence)) + 1):
                s, e = int(starts[i]), int(starts[j])
                if e - s > MAX_CHARS:
                    break
                if e - s >= 2:
                    yield s, e, "".join(sentence[i:j]), tuple(len(w) for w in sentence[i:j])
        offset = int(starts[-1])


def variation_candidates(words: list[list[str]], train: Variation, test: Variation):
    """The gold n-grams (:func:`gold_ngrams`) that the training corpus or the
    rest of the test gold reads another way: ``(start, end, lengths)`` of
    the most frequent other reading."""
    out = []
    for s, e, text, gold in gold_ngrams(words):
        other = Counter(train.counts.get(text, {}))
        other.update(test.counts.get(text, {}))
        other.pop(gold, None)
        if other:
            lengths = max(sorted(other), key=lambda r: other[r])
            out.append((s, e, lengths))
    return out


# --------------------------------------------------------------------------
# features


def fill_shared(x: np.ndarray, c: Candidates, counts: np.ndarray) -> np.ndarray:
    """Columns 0–5 of :data:`FEATURES` in ``x``, the same for every kind of
    unit: the members' ``agree``, ``wrong``, ``consensus`` of ``c``, and the
    variation ratios from ``counts`` (one row per candidate: training
    occurrences read as proposed and as in the gold, then the same in the
    other test sentences), which ``c.extra`` keeps for the reasons.

    >>> c = Candidates(np.array([0]), np.array([2]), [(1, 1)], [(2,)], np.array([3]),
    ...                np.array([4]), 4)
    >>> fill_shared(np.zeros((1, 9)), c, np.array([[1.5, 0.5, 0.0, 0.0]]))[0, :6].round(3).tolist()
    [0.75, 1.0, 0.75, 0.693, 1.099, 0.0]
    """
    k = max(c.k, 1)
    x[:, 0] = c.n_alt / k
    x[:, 1] = c.n_wrong / k
    x[:, 2] = c.n_alt / np.maximum(c.n_wrong, 1)
    x[:, 3] = np.log((counts[:, 0] + 0.5) / (counts[:, 1] + 0.5))
    x[:, 4] = np.log1p(counts[:, 0] + counts[:, 1])
    x[:, 5] = np.log((counts[:, 2] + 0.5) / (counts[:, 3] + 0.5))
    c.extra.update(train_alt=counts[:, 0], train_gold=counts[:, 1], test_alt=counts[:, 2],
                   test_gold=counts[:, 3])
    return x


def features(c: Candidates, text: str, train: Variation, test: Variation,
             vocabulary, context=None) -> np.ndarray:
    """The :data:`WORD_FEATURES` of every candidate, shape (n, len(WORD_FEATURES)).

    ``text`` is the test set's characters laid end to end; ``test`` the
    test gold's variation counts (the candidate's own occurrence is taken
    out of its gold reading's count); ``vocabulary`` the training words;
    ``context``: ``(Context, sentence starts)`` of
    :mod:`committee.metrics.checkgold_context`, for the last two features
    (0 without it)."""
    n = len(c)
    x = np.zeros((n, len(WORD_FEATURES)))
    counts = np.zeros((n, 4))
    for i in range(n):
        s, e = int(c.start[i]), int(c.end[i])
        piece = text[s:e]
        gold, alt = c.gold[i], c.alt[i]
        counts[i] = (train.count(piece, alt), train.count(piece, gold),
                     test.count(piece, alt), max(test.count(piece, gold) - 1, 0))
        x[i, 6] = any(w not in vocabulary for w in cut(piece, gold))
        x[i, 7] = any(w not in vocabulary for w in cut(piece, alt))
        x[i, 8] = max(-2, min(2, len(gold) - len(alt)))
    fill_shared(x, c, counts)
    x[:, 3] *= x[:, 0]
    x[:, 4] *= x[:, 0]
    if context is not None:
        fill_context(x, c, text, *context)
    return x


def fill_context(x: np.ndarray, c: Candidates, text: str, ctx, sentence_start) -> np.ndarray:
    """Columns 9 and 10 of :data:`WORD_FEATURES` in ``x``: ``context_ratio``
    and ``surname`` (docs/method.md §15); the context counts go to
    ``c.extra``."""
    from committee.metrics import checkgold_context

    counts = checkgold_context.context_counts(c, text, sentence_start, ctx)
    x[:, 9] = np.log((counts[:, 1] + 0.5) / (counts[:, 0] + 0.5))
    x[:, 10] = [joins_surname(text[int(s):int(e)], g, a, ctx.is_surname)
                for s, e, g, a in zip(c.start, c.end, c.gold, c.alt)]
    c.extra.update(context_gold=counts[:, 0], context_alt=counts[:, 1])
    return x


def joins_surname(piece: str, gold, alt, is_surname) -> bool:
    """Whether the ``gold`` reading of ``piece`` has a one-character word
    that ``is_surname`` and is followed by another word which ``alt`` joins
    it to: a surname and a given name, which PKU writes apart.

    >>> joins_surname("江南", (1, 1), (2,), {"江"}.__contains__)
    True
    >>> joins_surname("不同", (1, 1), (2,), {"江"}.__contains__)
    False
    """
    alt_ends = set(np.cumsum(alt).tolist())
    k = 0
    for n in gold[:-1]:
        k += n
        if n == 1 and is_surname(piece[k - 1]) and k not in alt_ends:
            return True
    return False


# --------------------------------------------------------------------------
# a candidate against injected errors


def restores(c: Candidates, original_ends: np.ndarray, errors: list[Injected]) -> np.ndarray:
    """For each candidate, whether it overlaps one of ``errors`` and
    proposes the reading the injection replaced (``original_ends``: the
    segmentation before it): what the model is fitted to find.

    >>> c = Candidates(np.array([0, 0]), np.array([2, 2]), [(1, 1), (1, 1)], [(2,), (1, 1)],
    ...                np.array([3, 1]), np.array([3, 3]), 3)
    >>> restores(c, np.array([0, 1], dtype=bool), [Injected("split", 0, 2)]).tolist()
    [True, False]
    """
    hit = touches(c.start, c.end, errors)
    return np.array([bool(hit[i]) and reading(original_ends, int(c.start[i]), int(c.end[i]))
                     == tuple(c.alt[i]) for i in range(len(c))], dtype=bool)


# --------------------------------------------------------------------------
# the whole check of a segmentation


@dataclass
class Check:
    """What :func:`check_words` found: every candidate with its features
    and probability, the ranked list (``order``: indices of the kept
    candidates, most suspicious first) with its probabilities moved to the
    gold's own rate of errors (``score``, in ranked order) and that rate."""

    candidates: Candidates
    x: np.ndarray
    p: np.ndarray
    order: np.ndarray
    score: np.ndarray
    rate: float

    @property
    def features(self) -> tuple[str, ...]:
        """The names of the columns of :attr:`x`."""
        return WORD_FEATURES if self.x.shape[1] == len(WORD_FEATURES) else FEATURES

    @property
    def expected(self) -> float:
        """The expected number of annotation errors among the ranked rows."""
        return float(self.score.sum())

    @property
    def expected_at_fitted_rate(self) -> float:
        """The same were errors as common among the candidates as where the
        weights were fitted: Σ p over the ranked rows, an upper end to
        :attr:`expected`, which the EM estimate can pull towards 0 when a
        gold's errors are few (docs/method.md §15)."""
        return float(self.p[self.order].sum())


def word_inputs(words: list[list[str]], pred_ends: np.ndarray, train_words: list[list[str]],
                extra_strings=()) -> tuple[Candidates, Variation, Variation, str]:
    """The candidates of a gold segmentation ``words`` (members' readings,
    ``pred_ends`` of shape (K, C), and variation n-grams against
    ``train_words`` and the gold itself), with the two variation counts and
    the test characters; ``extra_strings`` are indexed too."""
    gold = ends_of(words)
    text = "".join("".join(s) for s in words)
    counts = member_readings(gold, pred_ends)
    strings = {text[s:e] for s, e, _ in counts} | {t[2] for t in gold_ngrams(words)}
    train = Variation(train_words, strings | set(extra_strings))
    test = Variation(words)
    more = variation_candidates(words, train, test)
    return word_candidates(gold, pred_ends, counts, more), train, test, text


def sentence_starts(words: list[list[str]]) -> np.ndarray:
    """One boolean per character and one past the end: true at each
    sentence's first character (and at the end).

    >>> sentence_starts([["我", "爱"], ["好"]]).astype(int).tolist()
    [1, 0, 1, 1]
    """
    lengths = [sum(map(len, s)) for s in words]
    out = np.zeros(sum(lengths) + 1, dtype=bool)
    out[np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))] = True
    return out


def word_features(words: list[list[str]], pred_ends: np.ndarray, train_words: list[list[str]],
                  vocabulary, train_pos=None) -> tuple[Candidates, np.ndarray]:
    """The candidates of a gold segmentation (:func:`word_inputs`) and their
    :data:`WORD_FEATURES`; ``train_pos``: the training corpus's tags, when
    it has any (the ``surname`` feature)."""
    from committee.metrics import checkgold_context

    c, train, test, text = word_inputs(words, pred_ends, train_words)
    starts = sentence_starts(words)
    ctx = checkgold_context.Context(train_words,
                                    checkgold_context.candidate_windows(c, text, starts),
                                    train_pos)
    return c, features(c, text, train, test, vocabulary, (ctx, starts))


def check_words(words: list[list[str]], pred_ends: np.ndarray, train_words: list[list[str]],
                vocabulary, weights: np.ndarray | None = None,
                fitted_rate: float | None = None, train_pos=None) -> Check:
    """Rank the spans of a gold segmentation by how likely they are
    annotation errors (docs/method.md §15)."""
    weights = WEIGHTS if weights is None else weights
    fitted_rate = FITTED_RATE if fitted_rate is None else fitted_rate
    c, x = word_features(words, pred_ends, train_words, vocabulary, train_pos)
    p = probabilities(weights, x)
    order = rank(c.start, c.end, p)
    score, rate = adjust_prior(p[order], fitted_rate)
    return Check(c, x, p, order, score, rate)
