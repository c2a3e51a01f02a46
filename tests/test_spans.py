"""Error types of gold words (committee.tasks.spans.outcomes, metrics.error_types):
hand-worked cases and properties against a word-by-word oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee.corpus import Corpus
from committee.errors import InputError
from committee.metrics import collect, compute, error_types
from committee.tasks.spans import (CORRECT, CROSSED, MERGED, OUTCOMES, SPLIT, match, outcome_names,
                             outcomes, spans)


# Gold 约翰|喜欢|玛丽 (spans [0,2) [2,4) [4,6)), worked by hand:
#   约翰|喜|欢|玛丽   喜欢 has a predicted boundary at 3 inside, both ends are boundaries: split
#   约翰喜欢|玛丽     约翰 and 喜欢 lie inside the predicted [0,4): both merged
#   约|翰喜|欢玛丽    约翰: boundary 1 inside, end 2 not a boundary: crossed;
#                     喜欢: boundary 3 inside, ends 2 and 4 not boundaries: crossed;
#                     玛丽: no boundary in (4,6), start 4 not a boundary: merged
@pytest.mark.parametrize("pred, expected", [
    (["约翰", "喜欢", "玛丽"], ["correct", "correct", "correct"]),
    (["约翰", "喜", "欢", "玛丽"], ["correct", "split", "correct"]),
    (["约翰喜欢", "玛丽"], ["merged", "merged", "correct"]),
    (["约", "翰喜", "欢玛丽"], ["crossed", "crossed", "merged"]),
    (["约翰喜欢玛丽"], ["merged", "merged", "merged"]),
    (["约", "翰", "喜", "欢", "玛", "丽"], ["split", "split", "split"]),
])
def test_hand_worked(pred, expected):
    assert outcome_names([["约翰", "喜欢", "玛丽"]], [pred]) == expected


def test_sentence_ends_are_boundaries():
    # the end of sentence 0 and the start of sentence 1 bound every segmentation,
    # so the one-character last word of sentence 0 cannot be merged across it
    gold = [["我们", "走"], ["好"]]
    assert outcome_names(gold, [["我", "们走"], ["好"]]) == ["crossed", "merged", "correct"]


def test_error_types_counts_match_compute():
    g = Corpus("gold.txt", [["约翰", "喜欢", "玛丽"], ["我", "爱", "北京"]], [1, 2])
    p = Corpus("out.txt", [["约", "翰喜", "欢玛丽"], ["我爱", "北", "京"]], [1, 2])
    counts = error_types(g, p)
    assert counts == {"correct": 0, "split": 1, "merged": 3, "crossed": 2}
    assert counts["correct"] == compute(collect(g, p))["counts"]["n_correct"]


def test_error_types_refuses_misaligned_output():
    g = Corpus("gold.txt", [["约翰", "喜欢"]], [1])
    with pytest.raises(InputError, match="out.txt:1"):
        error_types(g, Corpus("out.txt", [["约翰", "喜好"]], [1]))


# --------------------------------------------------------------------------
# properties

def _segmentations(draw, text: str) -> list[str]:
    cuts = [i for i in range(1, len(text)) if draw(st.booleans())]
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def gold_and_pred(draw):
    texts = draw(st.lists(st.text("甲乙丙丁", min_size=0, max_size=9), min_size=1, max_size=4))
    gold = [_segmentations(draw, t) if t else [] for t in texts]
    pred = [_segmentations(draw, t) if t else [] for t in texts]
    return gold, pred


def _oracle(gold, pred) -> list[str]:
    """The definitions in terms of predicted words, word by word."""
    out = []
    for gs, ps in zip(gold, pred):
        pspans, pos = [], 0
        for w in ps:
            pspans.append((pos, pos + len(w)))
            pos += len(w)
        pos = 0
        for w in gs:
            s, e = pos, pos + len(w)
            pos = e
            over = [(a, b) for a, b in pspans if a < e and b > s]
            if over == [(s, e)]:
                out.append("correct")
            elif all(s <= a and b <= e for a, b in over):
                out.append("split")
            elif len(over) == 1:  # one predicted word, larger than the gold word
                out.append("merged")
            else:
                out.append("crossed")
    return out


@settings(max_examples=300, deadline=None)
@given(gold_and_pred())
def test_matches_word_by_word_oracle(gp):
    gold, pred = gp
    assert outcome_names(gold, pred) == _oracle(gold, pred)


@settings(max_examples=200, deadline=None)
@given(gold_and_pred())
def test_correct_is_match_and_counts_add_up(gp):
    gold, pred = gp
    g, p = spans(gold), spans(pred)
    codes = outcomes(g, p)
    assert np.array_equal(codes == CORRECT, match(g, p)[0])
    assert set(codes.tolist()) <= set(range(len(OUTCOMES)))
    counts = error_types(Corpus("g", gold, list(range(1, len(gold) + 1))),
                         Corpus("p", pred, list(range(1, len(pred) + 1))))
    assert sum(counts.values()) == len(codes)


@settings(max_examples=200, deadline=None)
@given(gold_and_pred())
def test_split_is_merged_seen_from_the_other_side(gp):
    # every predicted word inside a split gold word is strictly contained in
    # that gold word, i.e. merged when the roles of gold and output swap
    gold, pred = gp
    g, p = spans(gold), spans(pred)
    forward, backward = outcomes(g, p), outcomes(p, g)
    for i in np.flatnonzero(forward == SPLIT):
        inside = (p.starts >= g.starts[i]) & (p.ends <= g.ends[i])
        assert inside.sum() >= 2
        assert (backward[inside] == MERGED).all()
    # a crossed gold word is never inside one predicted word nor a union of them
    for i in np.flatnonzero(forward == CROSSED):
        over = (p.starts < g.ends[i]) & (p.ends > g.starts[i])
        assert over.sum() >= 2
        assert ((p.starts[over] < g.starts[i]) | (p.ends[over] > g.ends[i])).any()
