"""Words as spans (docs/method.md §1): the one place where segmentations are
turned into character offsets and matched.

Every function works on a whole corpus at once.  Sentences are laid end to
end on one global character axis, so a word is a pair of global offsets
``[start, end)`` and matching is a vectorised set membership test.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np


@dataclass(frozen=True)
class Spans:
    """All words of a corpus as global character spans.

    Attributes
    ----------
    starts, ends : ndarray of int64, shape (N,)
        Global offsets of each word, in corpus order.
    sentence : ndarray of int64, shape (N,)
        Sentence index of each word.
    sentence_offsets : ndarray of int64, shape (S + 1,)
        Global offset where each sentence starts; the last entry is the
        total number of characters.
    labels : ndarray of int64, shape (N,), or None
        For labelled spans (entities, :func:`labelled`): each span's label
        as an index into ``label_names``; None for words.
    label_names : tuple of str
        The labels, sorted.
    """

    starts: np.ndarray
    ends: np.ndarray
    sentence: np.ndarray
    sentence_offsets: np.ndarray
    labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()

    @property
    def n_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def n_chars(self) -> int:
        return int(self.sentence_offsets[-1])


def spans(words: list[list[str]]) -> Spans:
    """Lay out a corpus's words as global spans.

    Examples
    --------
    >>> s = spans([["计算机", "总是"], [], ["有", "问题"]])
    >>> s.starts.tolist(), s.ends.tolist(), s.sentence.tolist()
    ([0, 3, 5, 6], [3, 5, 6, 8], [0, 0, 2, 2])
    >>> s.sentence_offsets.tolist()
    [0, 5, 5, 8]
    """
    counts = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    lengths = np.fromiter(map(len, chain.from_iterable(words)), dtype=np.int64,
                          count=int(counts.sum()))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    sentence = np.repeat(np.arange(len(words), dtype=np.int64), counts)
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    # words per sentence -> index of each sentence's first word -> its offset
    first = np.cumsum(counts) - counts
    total = int(ends[-1]) if len(ends) else 0
    padded = np.append(starts, total)
    offsets[:-1] = padded[first]
    offsets[-1] = total
    return Spans(starts, ends, sentence, offsets)


def labelled(lengths, units, label_names=None) -> Spans:
    """Labelled spans (entities) of a corpus on the global character axis.

    Parameters
    ----------
    lengths : sequence of int
        Characters of each sentence.
    units : sequence of sequences of (start, end, label)
        Each sentence's spans, offsets within the sentence (end exclusive).
    label_names : sequence of str, optional
        The label set to index into (sorted); default: the labels present.
        Give the same set to two sides that are matched.

    Examples
    --------
    >>> s = labelled([4, 0, 3], [[(0, 2, "PER")], [], [(1, 3, "LOC"), (0, 1, "PER")]])
    >>> s.starts.tolist(), s.ends.tolist(), s.sentence.tolist(), s.labels.tolist()
    ([0, 5, 4], [2, 7, 5], [0, 2, 2], [1, 0, 1])
    >>> s.label_names, s.sentence_offsets.tolist()
    (('LOC', 'PER'), [0, 4, 4, 7])
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    names = tuple(sorted({u[2] for sent in units for u in sent} if label_names is None
                         else set(label_names)))
    code = {name: i for i, name in enumerate(names)}
    flat = [(i, u) for i, sent in enumerate(units) for u in sent]
    n = len(flat)
    sentence = np.fromiter((i for i, _ in flat), dtype=np.int64, count=n)
    base = offsets[:-1][sentence]
    starts = base + np.fromiter((u[0] for _, u in flat), dtype=np.int64, count=n)
    ends = base + np.fromiter((u[1] for _, u in flat), dtype=np.int64, count=n)
    labels = np.fromiter((code[u[2]] for _, u in flat), dtype=np.int64, count=n)
    return Spans(starts, ends, sentence, offsets, labels, names)


def inside(s: Spans, n_chars: int) -> np.ndarray:
    """Over ``n_chars`` characters of the global axis, true at each one that
    some span of ``s`` covers (labelled spans may leave characters out).

    >>> inside(labelled([6], [[(1, 3, "PER"), (4, 5, "LOC")]]), 6).tolist()
    [False, True, True, False, True, False]
    """
    cover = np.zeros(n_chars + 1, dtype=np.int64)
    np.add.at(cover, s.starts, 1)
    np.add.at(cover, s.ends, -1)
    return np.cumsum(cover[:-1]) > 0


def _keys(s: Spans, n_chars: int) -> np.ndarray:
    """One integer per labelled span: equal iff start, end and label are."""
    return (s.starts * (n_chars + 1) + s.ends) * max(1, len(s.label_names)) + s.labels


def match(gold: Spans, pred: Spans) -> tuple[np.ndarray, np.ndarray]:
    """Which gold words are predicted exactly, and which predicted words are gold.

    Both segmentations must tile the same character axis (same sentences,
    same characters); checking that is the caller's job.  Then a word
    ``[s, e)`` of one side is a word of the other iff the other side has a
    boundary at ``s`` and at ``e`` and none strictly between: boundary flags
    and one cumulative sum decide it for every word at once, with no sorting.

    Returns
    -------
    gold_correct : ndarray of bool, shape (N_gold,)
    pred_correct : ndarray of bool, shape (N_pred,)

    Examples
    --------
    >>> g = spans([["约翰", "喜欢", "玛丽"]])
    >>> p = spans([["约翰", "喜", "欢", "玛丽"]])
    >>> [a.tolist() for a in match(g, p)]
    [[True, False, True], [True, False, False, True]]

    Labelled spans (:func:`labelled`, over the same label set) match when
    start, end and label are equal; they need not tile the text:

    >>> g = labelled([5], [[(0, 2, "PER"), (3, 5, "LOC")]], ["LOC", "PER"])
    >>> p = labelled([5], [[(0, 2, "PER"), (3, 5, "PER")]], ["LOC", "PER"])
    >>> [a.tolist() for a in match(g, p)]
    [[True, False], [True, False]]
    """
    if gold.labels is not None or pred.labels is not None:
        if gold.label_names != pred.label_names or gold.labels is None or pred.labels is None:
            raise ValueError("labelled spans are matched over one label set")
        n = max(gold.n_chars, pred.n_chars)
        g, p = _keys(gold, n), _keys(pred, n)
        return np.isin(g, p), np.isin(p, g)
    return _found_in(gold, pred), _found_in(pred, gold)


def _found_in(words: Spans, other: Spans) -> np.ndarray:
    """For each word of ``words``: is it exactly a word of ``other``?"""
    boundary = np.zeros(other.n_chars + 1, dtype=bool)
    boundary[other.starts] = True
    boundary[other.n_chars] = True
    inside = np.cumsum(boundary, dtype=np.int64)
    s, e = words.starts, words.ends
    # boundaries of `other` strictly inside (s, e): inside[e - 1] - inside[s]
    return boundary[s] & boundary[e] & (inside[e - 1] == inside[s])


def marks(gold_words: list[list[str]], pred_words: list[list[str]]) -> np.ndarray:
    """docs/method.md §3: ``m_i = 1`` iff gold word ``i`` is one of the predicted words.

    >>> marks([["计算机", "总是"]], [["计算", "机", "总是"]]).tolist()
    [False, True]
    """
    return match(spans(gold_words), spans(pred_words))[0]


#: Outcome codes of :func:`outcomes`, in code order (``OUTCOMES[code]`` is the name).
OUTCOMES = ("correct", "split", "merged", "crossed")
CORRECT, SPLIT, MERGED, CROSSED = range(len(OUTCOMES))


def outcomes(gold: Spans, pred: Spans) -> np.ndarray:
    """How a predicted segmentation treats each gold word (``docs/metrics.md``).

    Let ``B`` be the predicted boundaries: the offsets where a predicted word
    starts, plus the end of the text.  Gold word ``[s, e)`` is

    * ``correct`` (0): ``s`` and ``e`` in ``B``, no offset of ``B`` in ``(s, e)``
      (the word is predicted exactly);
    * ``split`` (1): ``s`` and ``e`` in ``B`` and some offset of ``B`` in ``(s, e)``
      (several predicted words, all inside the gold word, cover it);
    * ``merged`` (2): ``s`` or ``e`` not in ``B`` and no offset of ``B`` in ``(s, e)``
      (one predicted word strictly contains the gold word: it runs on into a
      neighbour);
    * ``crossed`` (3): ``s`` or ``e`` not in ``B`` and some offset of ``B`` in
      ``(s, e)`` (a predicted word overlaps the gold word and its neighbour
      without containing the gold word).

    Two yes/no questions (are both ends boundaries? is there a boundary
    inside?) give the four cases, so they are exhaustive and exclusive, and
    ``correct`` is exactly :func:`match`'s ``gold_correct``.  Both sides must
    tile the same character axis, as for :func:`match`.

    Returns
    -------
    ndarray of int8, shape (N_gold,)
        Codes into :data:`OUTCOMES`.

    Examples
    --------
    >>> g = spans([["约翰", "喜欢", "玛丽", "和", "猫"]])
    >>> p = spans([["约翰", "喜", "欢", "玛", "丽和", "猫"]])
    >>> [OUTCOMES[c] for c in outcomes(g, p)]
    ['correct', 'split', 'crossed', 'merged', 'correct']
    """
    boundary = np.zeros(pred.n_chars + 1, dtype=bool)
    boundary[pred.starts] = True
    boundary[pred.n_chars] = True
    inside = np.cumsum(boundary, dtype=np.int64)
    s, e = gold.starts, gold.ends
    # boundaries strictly inside (s, e), as in _found_in
    has_inner = inside[e - 1] != inside[s]
    aligned = boundary[s] & boundary[e]
    return np.where(aligned, np.where(has_inner, SPLIT, CORRECT),
                    np.where(has_inner, CROSSED, MERGED)).astype(np.int8)


def outcome_names(gold_words: list[list[str]], pred_words: list[list[str]]) -> list[str]:
    """:func:`outcomes` of word lists, as names (corpus order).

    >>> outcome_names([["计算机", "总是"]], [["计算", "机总", "是"]])
    ['crossed', 'crossed']
    """
    return [OUTCOMES[c] for c in outcomes(spans(gold_words), spans(pred_words))]
