"""committee.metrics.difficulty_stats: every number worked out by hand on toy data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee import metrics
from committee.metrics import difficulty_stats
from committee.corpus import Corpus
from committee.errors import UndefinedMetricWarning

# Four members, five gold words.  Column sums of the prefixes, by hand:
#   word:        0  1  2  3  4
#   member 0:    1  1  0  1  0
#   member 1:    1  0  0  1  0
#   member 2:    1  1  1  0  0
#   member 3:    1  0  1  0  1
MARKS = np.array([[1, 1, 0, 1, 0],
                  [1, 0, 0, 1, 0],
                  [1, 1, 1, 0, 0],
                  [1, 0, 1, 0, 1]], dtype=bool)


def test_prefix_difficulties_by_hand():
    d = difficulty_stats.prefix_difficulties(MARKS, [1, 2, 3, 4])
    expected = [
        [0, 0, 1, 0, 1],               # member 0 alone
        [0, 1 / 2, 1, 0, 1],           # members 0-1: word 1 right once of 2
        [0, 1 / 3, 2 / 3, 1 / 3, 1],   # members 0-2
        [0, 1 / 2, 1 / 2, 1 / 2, 3 / 4],
    ]
    np.testing.assert_allclose(d, expected)


def test_prefix_of_the_whole_committee_is_the_run_difficulty():
    from committee.pipeline.difficulty import difficulties

    d_full, _ = difficulties(MARKS)
    np.testing.assert_array_equal(difficulty_stats.prefix_difficulties(MARKS, [4])[0], d_full)


def test_stability_summary_by_hand():
    s = difficulty_stats.stability(MARKS, [2, 4])
    # |d_2 - d_4| = [0, 0, 1/2, 1/2, 1/4]
    np.testing.assert_allclose(s["mean_abs_diff"], [1.25 / 5, 0.0])
    np.testing.assert_allclose(s["max_abs_diff"], [0.5, 0.0])
    np.testing.assert_allclose(s["mean_d"], [2.5 / 5, 2.25 / 5])
    assert s["pearson"][1] == pytest.approx(1.0)
    assert s["size"].tolist() == [2, 4]


def test_sizes_outside_the_committee_are_refused():
    with pytest.raises(ValueError, match="1..4"):
        difficulty_stats.prefix_difficulties(MARKS, [5])
    with pytest.raises(ValueError):
        difficulty_stats.default_sizes(0)


@pytest.mark.parametrize("K, expected", [
    (1, [1]), (12, list(range(1, 13))), (13, [2, 4, 6, 8, 10, 12, 13]),
    (90, [9, 18, 27, 36, 45, 54, 63, 72, 81, 90]), (100, list(range(10, 101, 10))),
])
def test_default_sizes(K, expected):
    assert difficulty_stats.default_sizes(K) == expected


def test_sample_words_spreads_over_the_bins_and_is_seeded():
    d = np.array([0.0] * 50 + [0.5] * 3 + [1.0] * 2)
    idx = difficulty_stats.sample_words(d, 3, seed=5)
    assert sorted(d[idx].tolist()) == [0.0, 0.5, 1.0]  # one of each bin first
    assert idx.tolist() == difficulty_stats.sample_words(d, 3, seed=5).tolist()
    assert len(difficulty_stats.sample_words(d, 100, seed=5)) == d.size


def test_bin_counts_follow_the_metrics_bins():
    # 0.1 belongs to [0.1, 0.2), 0.3 (= 0.1 * 3 in floats) to [0.3, 0.4), 1.0 to the last bin
    d = [0.0, 0.1, 0.1 * 3, 0.95, 1.0]
    assert difficulty_stats.bin_counts(d).tolist() == [1, 1, 0, 1, 0, 0, 0, 0, 0, 2]


def test_bin_shares_of_word_groups_by_hand():
    d = np.array([0.0, 0.0, 0.25, 1.0, 1.0, 1.0])
    idioms = np.array([False, False, False, True, True, False])
    two = np.array([True, True, True, False, False, True])
    out = difficulty_stats.bin_shares(d, {"idioms": idioms, "2-char": two})
    assert out["idioms"]["n"].tolist() == [0] * 9 + [2]
    assert out["idioms"]["share"].tolist() == [0.0] * 9 + [1.0]
    assert out["2-char"]["n"].tolist() == [2, 0, 1, 0, 0, 0, 0, 0, 0, 1]
    np.testing.assert_allclose(out["2-char"]["share"], np.array([2, 0, 1, 0, 0, 0, 0, 0, 0, 1]) / 4)


def test_accuracy_by_bin_matches_the_scorer():
    gold = Corpus("g", [["约翰", "喜欢", "玛丽"], ["计算机", "总是", "有", "问题"]], [1, 2])
    pred = Corpus("p", [["约翰", "喜", "欢", "玛丽"], ["计算机", "总是", "有问题"]], [1, 2])
    d = np.array([0.0, 0.5, 1.0, 0.0, 0.2, 0.9, 0.9])
    correct = np.array([True, False, True, True, True, False, False])
    a = difficulty_stats.accuracy_by_bin(d, correct)
    assert a["n"].tolist() == [2, 0, 1, 0, 0, 1, 0, 0, 0, 3]
    assert a["n_correct"].tolist() == [2, 0, 1, 0, 0, 0, 0, 0, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = metrics.compute(metrics.collect(gold, pred, difficulty=d))["recall_by_bin"]
    got = [None if np.isnan(x) else x for x in a["recall"]]
    assert got == expected == [1.0, None, 1.0, None, None, 0.0, None, None, None, 1 / 3]


# --------------------------------------------------------------------------
# Pearson


def test_pearson_on_known_vectors():
    assert difficulty_stats.pearson([1, 2, 3], [1, 2, 3]) == 1.0
    assert difficulty_stats.pearson([1, 2, 3], [6, 4, 2]) == -1.0
    # x = [1,2,3,4], y = [2,1,4,3]: deviations (-1.5,-.5,.5,1.5) and (-.5,-1.5,1.5,.5),
    # sum of products 0.75+0.75+0.75+0.75 = 3, sums of squares 5 and 5 -> r = 0.6
    assert difficulty_stats.pearson([1, 2, 3, 4], [2, 1, 4, 3]) == pytest.approx(0.6)
    # missing values drop the pair
    assert difficulty_stats.pearson([1, None, 3, 4, 2], [2, 9, 4, 3, 1]) == pytest.approx(0.6)


def test_pearson_undefined_warns_and_returns_none():
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert difficulty_stats.pearson([1, 1, 1], [1, 2, 3]) is None
    with pytest.warns(UndefinedMetricWarning, match="need 2"):
        assert difficulty_stats.pearson([1], [2]) is None
    with pytest.raises(ValueError, match="length"):
        difficulty_stats.pearson([1, 2], [1, 2, 3])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=3, max_size=20))
def test_pearson_agrees_with_numpy(pairs):
    x, y = map(np.array, zip(*pairs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = difficulty_stats.pearson(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert r is None
    elif r is not None and np.std(x) > 1e-6 and np.std(y) > 1e-6:
        assert r == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-6)


def test_correlations_with_human_judgement():
    out = difficulty_stats.correlations({"f1": [0.9, 0.8, 0.7], "fb": [0.6, 0.4, 0.5]}, [3, 1, 2])
    assert out["f1"] == pytest.approx(0.5)
    assert out["fb"] == pytest.approx(1.0)


# --------------------------------------------------------------------------
# split-half


def test_split_half_masks_are_halves_and_seeded():
    m = difficulty_stats.split_half_masks(7, repeats=20, seed=3)
    assert m.shape == (20, 7) and (m.sum(axis=1) == 3).all()
    assert np.array_equal(m, difficulty_stats.split_half_masks(7, repeats=20, seed=3))
    assert not np.array_equal(m, difficulty_stats.split_half_masks(7, repeats=20, seed=4))
    with pytest.raises(ValueError):
        difficulty_stats.split_half_masks(1, 1, 0)


def test_split_half_scores_by_hand():
    # two sentences; sentence 0 is hard, sentence 1 easy
    gold = Corpus("g", [["约翰", "喜欢"], ["玛丽"]], [1, 2])
    d = np.array([1.0, 0.5, 0.0])
    perfect = metrics.collect(gold, gold, difficulty=d)
    half_wrong = metrics.collect(gold, Corpus("p", [["约翰", "喜", "欢"], ["玛丽"]], [1, 2]),
                                 difficulty=d)
    masks = np.array([[True, False]])  # half A = sentence 0, half B = sentence 1
    a, b = difficulty_stats.split_half_scores([perfect, half_wrong], masks, metric="r")
    assert a.tolist() == [[1.0, 0.5]] and b.tolist() == [[1.0, 1.0]]
    # half A of half_wrong: r_reward = 1/1.5, r_punishment = 0/0.5 = 0 -> rb = 0
    a, _ = difficulty_stats.split_half_scores([half_wrong], masks, metric="rb")
    assert a.tolist() == [[0.0]]
    # each half's totals are the sums over its sentences: the full corpus is both halves
    everything = np.ones((1, 2), dtype=bool)
    full, none = difficulty_stats.split_half_scores([half_wrong], everything, metric="fb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert full[0, 0] == pytest.approx(metrics.compute(half_wrong)["fb"])
    assert np.isnan(none[0, 0])


def test_split_half_pearson_per_split():
    a = np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4]])
    b = np.array([[0.2, 0.1, 0.4, 0.3], [0.5, 0.5, 0.5, 0.5]])
    r = difficulty_stats.split_half_pearson(a, b)
    assert r[0] == pytest.approx(0.6) and np.isnan(r[1])


# --------------------------------------------------------------------------
# word weights


def test_hardest_sentences_by_hand():
    #            s0: 2 words, mean 0.5   s1: 3 words, mean 0.9   s2: 3 words, mean 0.93
    d = np.array([0.5, 0.5, 0.9, 0.9, 0.9, 1.0, 1.0, 0.8])
    s = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    assert difficulty_stats.hardest_sentences(d, s, n=3, min_words=2, max_words=3).tolist() == [2, 1, 0]
    # a tie goes to the earlier sentence; too short sentences do not compete
    d2 = np.array([0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 1.0])
    assert difficulty_stats.hardest_sentences(d2, s, n=2, min_words=3, max_words=3).tolist() == [2, 1]
    assert difficulty_stats.hardest_sentences(d2, s, n=5, min_words=4).tolist() == []
