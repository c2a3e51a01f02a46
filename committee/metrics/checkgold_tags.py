"""Suspicious gold tags (docs/method.md §15): the candidates, features and
injected errors of :mod:`committee.metrics.checkgold` for a run whose units
are the gold words with a label each (parts of speech).

Such a run keeps every member's label of every gold word
(``predictions.npz``: ``label_names`` and ``pred_labels``), so a gold word's
candidates are the other labels members give it: ``n_alt`` members give
label ``t``, ``n_wrong`` give any label but the gold's.  The variation
counts are those of Dickinson & Meurers' first use of them, on parts of
speech: how often the training corpus (and the rest of the test gold) tags
the same word with each label.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from committee.metrics.checkgold import (Candidates, Check, Injected, adjust_prior,
                                         fill_shared, probabilities, rank, touches)

#: Weights of :data:`committee.metrics.checkgold.FEATURES` (intercept first)
#: for labelled words: fitted on the embedded corpus's default
#: part-of-speech committee (``configs/default-pos.yaml``, K = 30) with
#: :data:`~committee.metrics.checkgold.FIT_RATE` of its test words given
#: another tag, seed 1000 (``benchmarks/bench_check_gold.py RUN --fit``).
WEIGHTS = np.array([-6.6571, 2.2171, 3.5929, 0.0, 0.0733, -0.0919, 0.6193, 1.8594, -2.9970, 0.0])
#: The share of candidates that were errors where :data:`WEIGHTS` were fitted.
FITTED_RATE = 0.0982


class TagVariation:
    """How a corpus tags each word: ``counts[word][tag]``.

    >>> v = TagVariation([["研究", "问题"], ["研究"]], [["v", "n"], ["vn"]])
    >>> v.count("研究", "v"), v.count("研究", "vn"), v.count("研究", "n")
    (1, 1, 0)
    """

    def __init__(self, words, tags):
        self.counts: dict = defaultdict(Counter)
        for ws, ts in zip(words, tags):
            for w, t in zip(ws, ts):
                self.counts[w][t] += 1

    def count(self, word: str, tag: str) -> int:
        return self.counts.get(word, {}).get(tag, 0)

    def other(self, word: str, tag: str) -> str | None:
        """The tag most often given to ``word`` besides ``tag``."""
        c = {k: v for k, v in self.counts.get(word, {}).items() if k != tag}
        return max(sorted(c), key=lambda k: c[k]) if c else None


def tag_candidates(gold_codes: np.ndarray, codes: np.ndarray, starts: np.ndarray,
                   ends: np.ndarray) -> Candidates:
    """Every other label some member gives a gold word: ``extra`` holds
    ``unit`` (the word's index) and ``tag`` (the label's code).

    >>> c = tag_candidates(np.array([0, 1]), np.array([[0, 2], [1, 2], [1, 1]]),
    ...                    np.array([0, 2]), np.array([2, 3]))
    >>> c.extra["unit"].tolist(), c.extra["tag"].tolist(), c.n_alt.tolist(), c.n_wrong.tolist()
    ([0, 1], [1, 2], [2, 2], [2, 2])
    """
    k = codes.shape[0]
    wrong = (codes != gold_codes[None, :]).sum(0)
    units, tags, n_alt = [], [], []
    for i in np.flatnonzero(wrong).tolist():
        for t, n in sorted(Counter(codes[:, i].tolist()).items()):
            if t != int(gold_codes[i]):
                units.append(i)
                tags.append(t)
                n_alt.append(n)
    units = np.array(units, dtype=np.int64)
    c = Candidates(starts[units], ends[units], [()] * len(units), [()] * len(units),
                   np.array(n_alt, dtype=np.int64), wrong[units].astype(np.int64), k)
    c.extra.update(unit=units, tag=np.array(tags, dtype=np.int64))
    return c


def features(c: Candidates, words: list[str], gold_tags: list[str], names, train: TagVariation,
             test: TagVariation) -> np.ndarray:
    """The :data:`committee.metrics.checkgold.FEATURES` of tag candidates:
    the members' counts, and the training (test) counts of the word with
    the proposed and the gold tag (``gold_unseen``/``alt_unseen``: the
    training corpus never gives the word that tag; ``direction`` 0)."""
    n = len(c)
    x = np.zeros((n, 9))
    counts = np.zeros((n, 4))
    gold, proposed = [], []
    for j in range(n):
        i, t = int(c.extra["unit"][j]), names[int(c.extra["tag"][j])]
        w, g = words[i], gold_tags[i]
        counts[j] = (train.count(w, t), train.count(w, g), test.count(w, t),
                     max(test.count(w, g) - 1, 0))
        gold.append(f"{w}/{g}")
        proposed.append(f"{w}/{t}")
    x[:, 6] = counts[:, 1] == 0
    x[:, 7] = counts[:, 0] == 0
    c.extra.update(gold=gold, proposed=proposed)
    return fill_shared(x, c, counts)


def tag_inputs(words, tags, codes: np.ndarray, names, train_words, train_tags):
    """The candidates of a gold's tagged words and their features: ``words``
    and ``tags`` are each sentence's gold words and tags, ``codes`` the
    members' labels ``(K, N)`` as codes into ``names``."""
    flat_words = [w for s in words for w in s]
    flat_tags = [t for s in tags for t in s]
    index = {n: i for i, n in enumerate(names)}
    gold_codes = np.array([index.get(t, -1) for t in flat_tags], dtype=np.int64)
    lengths = np.array([len(w) for w in flat_words], dtype=np.int64)
    ends = np.cumsum(lengths)
    c = tag_candidates(gold_codes, codes, ends - lengths, ends)
    train = TagVariation(train_words, train_tags)
    test = TagVariation(words, tags)
    return c, features(c, flat_words, flat_tags, names, train, test)


def check_tags(words, tags, codes, names, train_words, train_tags, weights=None,
               fitted_rate: float | None = None) -> Check:
    """Rank a gold's tagged words by how likely their tags are annotation
    errors (docs/method.md §15)."""
    weights = WEIGHTS if weights is None else weights
    fitted_rate = FITTED_RATE if fitted_rate is None else fitted_rate
    c, x = tag_inputs(words, tags, codes, names, train_words, train_tags)
    p = probabilities(weights, x)
    order = rank(c.start, c.end, p)
    score, rate = adjust_prior(p[order], fitted_rate)
    return Check(c, x, p, order, score, rate)


def inject_tags(words, tags, rate: float, seed: int, train: TagVariation, names
                ) -> tuple[list, list[Injected], list]:
    """A copy of each sentence's ``tags`` with about ``rate`` of the words
    given another tag: one the training corpus gives the same word
    (``train``) when it gives one, else any other of ``names``.  Returns the
    new tags, the errors (each word's span, global axis, once) and each
    changed word's index (corpus order).

    >>> new, errs, where = inject_tags([["研究"]], [["v"]], 1.0, 0,
    ...                                TagVariation([["研究"]], [["vn"]]), ["v", "vn"])
    >>> new, [(e.start, e.end) for e in errs], where
    ([['vn']], [(0, 2)], [0])
    """
    rng = np.random.default_rng(seed)
    flat = [(s, j) for s, ws in enumerate(words) for j in range(len(ws))]
    target = int(round(rate * len(flat)))
    chosen = sorted(rng.choice(len(flat), size=min(target, len(flat)), replace=False).tolist())
    out = [list(t) for t in tags]
    offsets = np.concatenate(([0], np.cumsum([sum(map(len, ws)) for ws in words])))
    errors, where = [], []
    for i in chosen:
        s, j = flat[i]
        w, g = words[s][j], tags[s][j]
        seen = [t for t in sorted(train.counts.get(w, {})) if t != g]
        pool = seen or [t for t in names if t != g]
        if not pool:
            continue
        out[s][j] = pool[int(rng.integers(len(pool)))]
        start = int(offsets[s]) + sum(map(len, words[s][:j]))
        errors.append(Injected("tag", start, start + len(w)))
        where.append(i)
    return out, errors, where


def restores(c: Candidates, original_tags, names, errors) -> np.ndarray:
    """Which candidates overlap an injected error and propose the tag it replaced."""
    flat = [t for s in original_tags for t in s]
    hit = touches(c.start, c.end, errors)
    return np.array([bool(hit[j]) and names[int(c.extra["tag"][j])] == flat[int(c.extra["unit"][j])]
                     for j in range(len(c))], dtype=bool)
