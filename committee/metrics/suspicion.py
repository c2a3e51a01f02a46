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

#: Longest gold n-gram (in words) and string (in characters) a variation
#: n-gram is looked up for.
MAX_WORDS = 3
MAX_CHARS = 8

#: The features of a candidate, in the order of the model's weights.
FEATURES = (
    "agree",         # n_alt / K: members reading exactly this alternative
    "wrong",         # n_wrong / K: members reading the span otherwise than the gold
    "consensus",     # n_alt / n_wrong: how much the wrong members agree
    "train_ratio",   # log((train_alt + .5) / (train_gold + .5))
    "train_seen",    # log(1 + train_alt + train_gold)
    "test_ratio",    # log((test_alt + .5) / (test_gold + .5)), other test sentences
    "gold_unseen",   # a gold word of the span is not a training word
    "alt_unseen",    # a word of the alternative is not a training word
    "direction",     # gold words minus alternative words, clipped to [-2, 2]
)

#: The features whose weight the fit keeps at 0 or above: more members
#: agreeing on the alternative never makes it less suspicious (§15).
NONNEGATIVE = ("agree", "consensus")

#: The model's weights, intercept first, then :data:`FEATURES`: fitted on the
#: embedded corpus's K = 150 committee (``configs/peoples-daily-1998.yaml``
#: with ``committee.size: 150``) with :data:`FIT_RATE` of its test gold's
#: words injected with errors, seed 1000, a candidate counting as an error
#: when it overlaps one and proposes the reading the injection replaced
#: (``benchmarks/bench_check_gold.py RUN --fit``).
WEIGHTS = np.array([-2.3603, 0.0, 2.9177, 0.1400, 1.0455, 0.5035, 0.1306, -1.8695, -4.5761,
                    0.6870])
#: The share of candidates that were errors where :data:`WEIGHTS` were fitted
#: (the prior :func:`adjust_prior` moves from).
FITTED_RATE = 0.0958

#: Share of gold words :func:`inject_words` turns into errors for the fit.
FIT_RATE = 0.03
#: Kinds of injected word errors and their shares.
WORD_ERRORS = (("merge", 0.4), ("split", 0.4), ("shift", 0.2))


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
             vocabulary) -> np.ndarray:
    """The :data:`FEATURES` of every candidate, shape (n, len(FEATURES)).

    ``text`` is the test set's characters laid end to end; ``test`` the
    test gold's variation counts (the candidate's own occurrence is taken
    out of its gold reading's count); ``vocabulary`` the training words."""
    n = len(c)
    x = np.zeros((n, len(FEATURES)))
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
    return fill_shared(x, c, counts)


# --------------------------------------------------------------------------
# the model


def _design(x: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((x.shape[0], 1)), x])


def probabilities(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The logistic model's probability of every row of ``x``."""
    from scipy.special import expit

    return expit(_design(x) @ weights)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0,
        nonnegative=NONNEGATIVE) -> np.ndarray:
    """Logistic regression of ``y`` (0 or 1) on ``x``: the weights, intercept
    first, that maximise the likelihood less ``l2 / 2`` times their squared
    norm (a standard normal prior on each weight; scipy's L-BFGS-B), those
    of the features named in
    ``nonnegative`` kept at 0 or above.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2000, 1)); y = (x[:, 0] + rng.normal(size=2000) > 1).astype(float)
    >>> w = fit(x, y, nonnegative=())
    >>> bool(w[1] > 1.0 and w[0] < 0)
    True
    >>> float(fit(-x, y, nonnegative=(0,))[1])
    0.0
    """
    from scipy.optimize import minimize
    from scipy.special import log_expit

    a = _design(x)
    sign = 2 * np.asarray(y, dtype=np.float64) - 1
    bounds = [(None, None)] * a.shape[1]
    for name in nonnegative:
        bounds[1 + (FEATURES.index(name) if isinstance(name, str) else name)] = (0.0, None)

    def loss(w):
        z = sign * (a @ w)
        g = -(a.T @ (sign * np.exp(log_expit(-z)))) + l2 * w
        return -log_expit(z).sum() + 0.5 * l2 * (w @ w), g

    return minimize(loss, np.zeros(a.shape[1]), jac=True, method="L-BFGS-B", bounds=bounds).x


def adjust_prior(p: np.ndarray, fitted_rate: float, max_iter: int = 200,
                 tol: float = 1e-9) -> tuple[np.ndarray, float]:
    """Probabilities ``p`` of a model fitted where a share ``fitted_rate`` of
    candidates were errors, moved to the rate of errors among these
    candidates, itself estimated by EM (Saerens, Latinne & Decaestecker
    2002): ``(adjusted probabilities, estimated rate)``.

    >>> p, rate = adjust_prior(np.array([0.5, 0.5]), 0.5)
    >>> p.tolist(), rate
    ([0.5, 0.5], 0.5)
    """
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    if p.size == 0:
        return p, 0.0
    t = min(max(fitted_rate, 1e-9), 1 - 1e-9)
    rate = float(p.mean())
    q = p
    for _ in range(max_iter):
        odds = p / (1 - p) * (rate / (1 - rate)) / (t / (1 - t))
        q = odds / (1 + odds)
        new = float(min(max(q.mean(), 1e-9), 1 - 1e-9))
        if abs(new - rate) < tol:
            rate = new
            break
        rate = new
    return q, rate


# --------------------------------------------------------------------------
# injected errors


@dataclass(frozen=True)
class Injected:
    """One injected error: its kind and its span on the global axis."""

    kind: str
    start: int
    end: int


def _sites(sentence, vocabulary):
    """Where one sentence's words can take each kind of error: ``(kind, i, new words)``."""
    out = []
    for i, w in enumerate(sentence):
        if i + 1 < len(sentence):
            nxt = sentence[i + 1]
            if w + nxt in vocabulary:
                out.append(("merge", i, [w + nxt], 2))
            if len(w) > 1 and w[:-1] in vocabulary and w[-1] + nxt in vocabulary:
                out.append(("shift", i, [w[:-1], w[-1] + nxt], 2))
            if len(nxt) > 1 and w + nxt[0] in vocabulary and nxt[1:] in vocabulary:
                out.append(("shift", i, [w + nxt[0], nxt[1:]], 2))
        for p in range(1, len(w)):
            if w[:p] in vocabulary and w[p:] in vocabulary:
                out.append(("split", i, [w[:p], w[p:]], 1))
    return out


def inject_words(words: list[list[str]], rate: float, seed: int, vocabulary,
                 kinds=WORD_ERRORS) -> tuple[list[list[str]], list[Injected]]:
    """A copy of ``words`` with errors in about ``rate`` of its words, and
    the errors (each counted once, in corpus order).  Merges join two
    neighbours into a word of ``vocabulary``; splits cut a word into two
    words of ``vocabulary``; shifts move one character across a boundary,
    both new words in ``vocabulary``.  Errors never touch each other (a
    word next to an error stays as it is).  Seeded: the same arguments give
    the same errors.

    >>> vocab = {"北京", "大学", "北京大学", "我", "爱"}
    >>> new, errs = inject_words([["我", "爱", "北京", "大学"]], 1.0, 0, vocab)
    >>> len(errs), "".join(new[0])
    (1, '我爱北京大学')
    """
    rng = np.random.default_rng(seed)
    n_words = sum(map(len, words))
    target = int(round(rate * n_words))
    sites = [(s, *site) for s, sentence in enumerate(words) for site in _sites(sentence, vocabulary)]
    order = rng.permutation(len(sites))
    by_kind = {name: [sites[i] for i in order if sites[i][1] == name] for name, _ in kinds}
    shares = np.array([share for _, share in kinds], dtype=np.float64)
    names = [name for name, _ in kinds]
    blocked: set = set()
    chosen = []
    pos = {name: 0 for name in names}
    while len(chosen) < target and any(pos[n] < len(by_kind[n]) for n in names):
        live = np.array([pos[n] < len(by_kind[n]) for n in names])
        probs = shares * live
        name = names[int(rng.choice(len(names), p=probs / probs.sum()))]
        s, kind, i, new, span = by_kind[name][pos[name]]
        pos[name] += 1
        touched = {(s, j) for j in range(i - 1, i + span + 1)}
        if touched & blocked:
            continue
        blocked |= touched
        chosen.append((s, kind, i, new, span))
    chosen.sort(key=lambda t: (t[0], t[2]))
    out = [list(sentence) for sentence in words]
    offsets = np.concatenate(([0], np.cumsum([sum(map(len, x)) for x in words])))
    errors = []
    for s, kind, i, new, span in reversed(chosen):  # right to left: indices stay valid
        start = int(offsets[s]) + sum(map(len, words[s][:i]))
        end = start + sum(map(len, words[s][i:i + span]))
        out[s][i:i + span] = new
        errors.append(Injected(kind, start, end))
    errors.reverse()
    return out, errors


# --------------------------------------------------------------------------
# ranking and its measure


def rank(start: np.ndarray, end: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Indices of the candidates in ranked order (highest ``score`` first,
    ties by position), keeping of candidates that overlap the first one only.

    >>> rank(np.array([0, 1, 5]), np.array([2, 3, 6]), np.array([0.5, 0.9, 0.1])).tolist()
    [1, 2]
    """
    order = np.lexsort((end, start, -np.asarray(score)))
    taken = np.zeros(int(end.max()) + 1 if end.size else 0, dtype=bool)
    keep = []
    for i in order.tolist():
        s, e = int(start[i]), int(end[i])
        if not taken[s:e].any():
            taken[s:e] = True
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def detection(start: np.ndarray, end: np.ndarray, errors: list[Injected],
              ks=()) -> dict:
    """How a ranked list of spans finds the ``errors``: ``recall@k`` and
    ``precision@k`` for each ``k`` (a row finds every error it overlaps;
    an error found twice counts once) and the average precision.

    >>> errs = [Injected("merge", 0, 2), Injected("split", 10, 12)]
    >>> r = detection(np.array([0, 5, 11]), np.array([2, 6, 12]), errs, ks=(1, 2, 4))
    >>> r["recall@1"], r["precision@2"], r["recall@4"], round(r["ap"], 4)
    (0.5, 0.5, 1.0, 0.8333)
    """
    n = len(errors)
    es = np.array([e.start for e in errors], dtype=np.int64)
    ee = np.array([e.end for e in errors], dtype=np.int64)
    order = np.argsort(es, kind="stable")
    es, ee = es[order], ee[order]
    found = np.zeros(n, dtype=bool)
    hit_rows = np.zeros(len(start), dtype=bool)
    new_at = np.zeros(len(start), dtype=np.int64)
    for r, (s, e) in enumerate(zip(np.asarray(start).tolist(), np.asarray(end).tolist())):
        lo = np.searchsorted(ee, s, side="right")  # errors ending after s
        hi = np.searchsorted(es, e, side="left")   # errors starting before e
        hits = np.arange(lo, hi)
        hits = hits[(es[hits] < e) & (ee[hits] > s)] if hits.size else hits
        if hits.size:
            hit_rows[r] = True
            fresh = hits[~found[hits]]
            new_at[r] = fresh.size
            found[fresh] = True
    out = {"n_errors": n, "n_rows": int(len(start))}
    cum_new = np.cumsum(new_at)
    cum_hit = np.cumsum(hit_rows)
    for k in ks:
        k = int(k)
        m = min(k, len(start))
        out[f"recall@{k}"] = float(cum_new[m - 1] / n) if n and m else 0.0
        out[f"precision@{k}"] = float(cum_hit[m - 1] / k) if k and m else 0.0
    ranks = np.flatnonzero(new_at)
    out["ap"] = float(sum(new_at[r] * cum_hit[r] / (r + 1) for r in ranks) / n) if n else 0.0
    return out


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


def touches(start: np.ndarray, end: np.ndarray, errors: list[Injected]) -> np.ndarray:
    """For each span, whether it overlaps one of ``errors``.

    >>> touches(np.array([0, 3]), np.array([2, 4]), [Injected("split", 1, 3)]).tolist()
    [True, False]
    """
    cover = np.zeros(int(max([e.end for e in errors] + [int(end.max()) if end.size else 0])) + 1,
                     dtype=np.int64)
    for e in errors:
        cover[e.start:e.end] = 1
    before = np.concatenate(([0], np.cumsum(cover)))
    return (before[end] - before[start]) > 0


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


def check_words(words: list[list[str]], pred_ends: np.ndarray, train_words: list[list[str]],
                vocabulary, weights: np.ndarray | None = None,
                fitted_rate: float | None = None) -> Check:
    """Rank the spans of a gold segmentation by how likely they are
    annotation errors (docs/method.md §15)."""
    weights = WEIGHTS if weights is None else weights
    fitted_rate = FITTED_RATE if fitted_rate is None else fitted_rate
    c, train, test, text = word_inputs(words, pred_ends, train_words)
    x = features(c, text, train, test, vocabulary)
    p = probabilities(weights, x)
    order = rank(c.start, c.end, p)
    score, rate = adjust_prior(p[order], fitted_rate)
    return Check(c, x, p, order, score, rate)
