"""The training corpus's word boundaries around a candidate of suspicious
gold (docs/method.md §15): how it segments the same characters with one
character of context on either side, and which of its single-character
words are surnames.

A proposed reading that merges across a boundary the training data makes
between the same characters in the same context (千余名人 read with 名人,
where the corpus writes 余 名 人员) is weaker evidence against the gold than
the string's counts alone say: the variation n-grams count the string
wherever it starts and ends at word boundaries, this counts it where its
neighbours are the same, word boundaries or not (Dickinson & Meurers
2003's variation nuclei with their context).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

#: A word tagged ``nr`` (a person's name) in at least this share of its
#: training occurrences, of one character, is a surname here.
SURNAME_SHARE = 0.5


def internal(lengths) -> tuple[int, ...]:
    """The positions inside a span after which a reading of word
    ``lengths`` ends a word.

    >>> internal((1, 2, 1)), internal((3,))
    ((0, 2), ())
    """
    out, k = [], 0
    for n in tuple(lengths)[:-1]:
        k += n
        out.append(k - 1)
    return tuple(out)


class Context:
    """The training corpus's characters laid end to end (sentences apart)
    with its word ends, indexed for the windows of ``windows`` only: for
    each window string, the count of each pattern of word ends over it
    (:meth:`readings`).  ``pos``: the corpus's tags, when it has any (the
    surnames of :meth:`is_surname`).

    >>> ctx = Context([["千", "余", "名", "人员"], ["名人"]], {"余名人"})
    >>> ctx.readings("余名人", 1, 2, (1, 1), (2,))
    (1, 0)
    """

    def __init__(self, words: list[list[str]], windows, pos=None):
        text = "\n".join("".join(s) for s in words)
        ends = np.zeros(len(text) + 1, dtype=bool)
        k = 0
        for sentence in words:
            for w in sentence:
                k += len(w)
                ends[k - 1] = True
            ends[k] = True  # the sentence's separator
            k += 1
        by_length: dict = defaultdict(set)
        for w in windows:
            by_length[len(w)].add(w)
        counts: dict = defaultdict(Counter)
        for n, wanted in by_length.items():
            for i in range(len(text) - n + 1):
                piece = text[i:i + n]
                if piece in wanted:
                    counts[piece][ends[i:i + n].tobytes()] += 1
        self.counts = counts
        self.surnames = _surnames(words, pos) if pos is not None else set()

    def readings(self, window: str, offset: int, n: int, gold, alt) -> tuple[int, int]:
        """Training occurrences of ``window`` whose ``n`` characters from
        ``offset`` hold word ends inside exactly where the ``gold`` reading
        has them, and exactly where ``alt`` has them."""
        g, a = internal(gold), internal(alt)
        n_gold = n_alt = 0
        for pattern, count in self.counts.get(window, {}).items():
            inner = tuple(j for j in range(n - 1) if pattern[offset + j])
            n_gold += count * (inner == g)
            n_alt += count * (inner == a)
        return n_gold, n_alt

    def is_surname(self, word: str) -> bool:
        return word in self.surnames


def _surnames(words, pos) -> set[str]:
    """Single characters the corpus tags ``nr`` in at least
    :data:`SURNAME_SHARE` of their occurrences as words.

    >>> sorted(_surnames([["江", "泽民"], ["江", "水"], ["南", "方"]],
    ...                  [["nr", "nr"], ["n", "n"], ["f", "n"]]))
    ['江']
    """
    seen, named = Counter(), Counter()
    for sentence, tags in zip(words, pos):
        for w, t in zip(sentence, tags):
            if len(w) == 1:
                seen[w] += 1
                named[w] += t == "nr"
    return {w for w, n in seen.items() if named[w] >= SURNAME_SHARE * n}


def windows(text: str, sentence_start: np.ndarray, start: int, end: int) -> list[tuple[str, int]]:
    """The span ``[start, end)`` of ``text`` with one character more on the
    left, and one more on the right, within its sentence
    (``sentence_start``: true at each sentence's first character, with one
    entry past the end): ``(window, offset of the span in it)``.

    >>> windows("我爱北京", np.array([1, 0, 0, 0, 1], dtype=bool), 1, 3)
    [('我爱北', 1), ('爱北京', 0)]
    """
    out = []
    if not sentence_start[start]:
        out.append((text[start - 1:end], 1))
    if end < len(text) and not sentence_start[end]:
        out.append((text[start:end + 1], 0))
    return out


def context_counts(c, text: str, sentence_start: np.ndarray, ctx: Context) -> np.ndarray:
    """For every candidate of ``c`` (:class:`committee.metrics.checkgold.Candidates`),
    the training occurrences of its span with a neighbour read as in the
    gold and as proposed, summed over both neighbours: shape (n, 2)."""
    out = np.zeros((len(c), 2))
    for i in range(len(c)):
        s, e = int(c.start[i]), int(c.end[i])
        for window, offset in windows(text, sentence_start, s, e):
            out[i] += ctx.readings(window, offset, e - s, c.gold[i], c.alt[i])
    return out


def candidate_windows(c, text: str, sentence_start: np.ndarray) -> set[str]:
    """Every window (:func:`windows`) of the candidates of ``c``."""
    return {w for i in range(len(c))
            for w, _ in windows(text, sentence_start, int(c.start[i]), int(c.end[i]))}
