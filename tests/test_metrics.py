"""Tests of committee.metrics: hand-worked golden values, properties, error paths."""

from __future__ import annotations

import hashlib
import math
import struct
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from committee import __version__
from committee.corpus import Corpus, word_list_sha256
from committee.errors import InputError, UndefinedMetricWarning
from committee.metrics import (
    METRICS, Signature, check_aligned, collect, compute, difficulty_bins, make_signature,
    oov_flags,
)
from committee.metrics.significance import bootstrap, paired_bootstrap
from reference import reference_scores

#: Bootstraps over a handful of sentences are the point of these tests; the
#: warning that they are too few is tested in tests/test_hostile_usage.py.
pytestmark = pytest.mark.filterwarnings(
    "ignore:bootstrap over:committee.errors.PlausibilityWarning")


def corpus(sentences, path="out.txt"):
    """Corpus from space-separated sentences (one line each)."""
    words = [s.split() for s in sentences]
    return Corpus(path=path, words=words, lines=list(range(1, len(words) + 1)))


def score(gold, pred, difficulty=None, train_words=None):
    g = corpus(gold, "gold.txt")
    p = corpus(pred, "out.txt")
    return compute(collect(g, p, difficulty=difficulty, train_words=train_words))


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------
# Shao, Hardmeier & Nivre (IJCNLP 2017), Table 1: 约翰喜欢玛丽 "John likes Mary"
# The systems below are not copied from the printed table (not at hand); they
# are an under-segmenting pair and a character-by-character output, scored by
# hand from the docs/method.md §6 definitions.
#
# The sentence has n = 6 characters, so TW = n(n+1)/2 = 21 candidate words.
# Gold T1 = 约翰 喜欢 玛丽 (N = 3, spans [0,2) [2,4) [4,6)), so the non-gold
# candidates number ΣTW − N = 21 − 3 = 18.  Alternative gold
# T2 = 约翰 喜 欢 玛丽 (N = 4, ΣTW − N = 17).  Systems:
#   S1 = 约翰喜欢 玛丽        spans [0,4) [4,6)                  N' = 2
#   S2 = 约翰 喜欢玛丽        spans [0,2) [2,6)                  N' = 2
#   S3 = 约 翰 喜 欢 玛 丽    six one-character spans            N' = 6
# Against T1:
#   S1: c = 1 (玛丽)  P = 1/2  R = 1/3  F = 2·(1/6)/(5/6) = 2/5
#       TNR = 1 − (2 − 1)/18 = 17/18
#   S2: c = 1 (约翰)  same P, R, F, TNR as S1
#   S3: c = 0         P = 0  R = 0  F = H(0, 0) = 0
#       TNR = 1 − (6 − 0)/18 = 2/3
# Against T2:
#   S1: c = 1 (玛丽)  P = 1/2  R = 1/4  F = 2·(1/8)/(3/4) = 1/3
#       TNR = 1 − 1/17 = 16/17
#   S2: c = 1 (约翰)  same as S1
#   S3: c = 2 (喜, 欢) P = 2/6 = 1/3  R = 2/4 = 1/2  F = 2·(1/6)/(5/6) = 2/5
#       TNR = 1 − (6 − 2)/17 = 13/17
# T2 scored against T1: c = 2 (约翰, 玛丽), N' = 4: P = 1/2, R = 2/3,
#   F = 2·(1/3)/(7/6) = 4/7, TNR = 1 − 2/18 = 8/9.
# ---------------------------------------------------------------------------

T1, T2 = "约翰 喜欢 玛丽", "约翰 喜 欢 玛丽"
S1, S2, S3 = "约翰喜欢 玛丽", "约翰 喜欢玛丽", "约 翰 喜 欢 玛 丽"


@pytest.mark.parametrize("gold, system, c, p, r, f, tnr", [
    (T1, S1, 1, F(1, 2), F(1, 3), F(2, 5), F(17, 18)),
    (T1, S2, 1, F(1, 2), F(1, 3), F(2, 5), F(17, 18)),
    (T1, S3, 0, F(0), F(0), F(0), F(2, 3)),
    (T2, S1, 1, F(1, 2), F(1, 4), F(1, 3), F(16, 17)),
    (T2, S2, 1, F(1, 2), F(1, 4), F(1, 3), F(16, 17)),
    (T2, S3, 2, F(1, 3), F(1, 2), F(2, 5), F(13, 17)),
    (T1, T2, 2, F(1, 2), F(2, 3), F(4, 7), F(8, 9)),
])
def test_shao_table1(gold, system, c, p, r, f, tnr):
    m = score([gold], [system])
    assert m["counts"]["n_correct"] == c
    assert m["p"] == pytest.approx(float(p), abs=1e-15)
    assert m["r"] == pytest.approx(float(r), abs=1e-15)
    assert m["f1"] == pytest.approx(float(f), abs=1e-15)
    assert m["tnr"] == pytest.approx(float(tnr), abs=1e-15)


def test_shao_table1_boundaries():
    # T1 inner boundaries (gaps after character 2 and 4): {2, 4}
    # S1 predicts {4}: boundary P = 1/1, R = 1/2
    # S3 predicts {1, 2, 3, 4, 5}: P = 2/5, R = 2/2
    m1, m3 = score([T1], [S1]), score([T1], [S3])
    assert (m1["boundary_p"], m1["boundary_r"]) == (1.0, 0.5)
    assert (m3["boundary_p"], m3["boundary_r"]) == (0.4, 1.0)
    assert m3["boundary_f1"] == pytest.approx(2 * 0.4 / 1.4)


# ---------------------------------------------------------------------------
# 計算機 總是 有問題 ("the computer always has problems"): n = 8 characters,
# TW = 36, gold N = 3 words, ΣTW − N = 33.
#   system 計算機 總是 有 問題: correct = 計算機, 總是 → c = 2, N' = 4,
#     e = N' − c = 2, P = 1/2, R = 2/3, ER = 2/3, TNR = 1 − 2/33 = 31/33.
#   system 計算 機 總是 有 問題: correct = 總是 only → c = 1, N' = 5, e = 4,
#     P = 1/5, R = 1/3, ER = 4/3 (can exceed 1), TNR = 1 − 4/33 = 29/33.
# ---------------------------------------------------------------------------

def test_computer_example_c2_e2():
    m = score(["計算機 總是 有問題"], ["計算機 總是 有 問題"])
    assert m["counts"] == {"n_gold": 3, "n_pred": 4, "n_correct": 2}
    assert m["counts"]["n_pred"] - m["counts"]["n_correct"] == 2  # e = 2
    assert m["p"] == 0.5
    assert m["r"] == pytest.approx(2 / 3, abs=1e-15)
    assert m["er"] == pytest.approx(2 / 3, abs=1e-15)
    assert m["tnr"] == pytest.approx(31 / 33, abs=1e-15)


def test_computer_example_oversplit():
    m = score(["計算機 總是 有問題"], ["計算 機 總是 有 問題"])
    assert m["counts"] == {"n_gold": 3, "n_pred": 5, "n_correct": 1}
    assert m["er"] == pytest.approx(4 / 3, abs=1e-15)
    assert m["tnr"] == pytest.approx(29 / 33, abs=1e-15)


# ---------------------------------------------------------------------------
# Balanced scores by hand, three sentences, non-uniform difficulties.
#
# sentence 1  gold 约翰 喜欢 玛丽      d = 0.0 0.5 1.0
#             pred 约翰 喜 欢 玛丽     m = 1   0   1
#             d' (gold word of the last character): 约翰→0.0 喜→0.5 欢→0.5 玛丽→1.0
# sentence 2  gold 計算機 總是 有問題  d = 0.2 0.0 0.8
#             pred 計算機 總是 有 問題 m = 1   1   0
#             d': 0.2 0.0 0.8 (有 lies in 有問題) 0.8
# sentence 3  gold 我 爱 北京          d = 0.0 0.1 0.6
#             pred 我爱 北京           m = 0   0   1
#             d': 我爱→0.1 (爱) 北京→0.6
#
# N = 9, N' = 10, c = 5
# Σ d_i          = 1.5 + 1.0 + 0.7 = 3.2      Σ (1 − d_i)     = 9 − 3.2 = 5.8
# Σ d_i m_i      = 1.0 + 0.2 + 0.6 = 1.8      Σ (1 − d_i) m_i = 5 − 1.8 = 3.2
# Σ d'_j         = 2.0 + 1.8 + 0.7 = 4.5      Σ (1 − d'_j)    = 10 − 4.5 = 5.5
# r_reward = 1.8/3.2 = 9/16      r_punishment = 3.2/5.8 = 16/29
# p_reward = 1.8/4.5 = 2/5       p_punishment = 3.2/5.5 = 32/55
# rb = H(9/16, 16/29) = (18/29)/(517/464) = 288/517
# pb = H(2/5, 32/55) = (128/275)/(54/55) = 64/135
# fb = H(64/135, 288/517) = 2·(18432/69795)/(71968/69795) = 1152/2249
# ---------------------------------------------------------------------------

HAND_GOLD = ["约翰 喜欢 玛丽", "計算機 總是 有問題", "我 爱 北京"]
HAND_PRED = ["约翰 喜 欢 玛丽", "計算機 總是 有 問題", "我爱 北京"]
HAND_D = [0.0, 0.5, 1.0, 0.2, 0.0, 0.8, 0.0, 0.1, 0.6]
HAND_TRAIN = {"约翰", "喜欢", "我", "爱", "總是"}


def test_balanced_by_hand():
    m = score(HAND_GOLD, HAND_PRED, difficulty=HAND_D)
    expected = {
        "p_reward": F(2, 5), "p_punishment": F(32, 55),
        "r_reward": F(9, 16), "r_punishment": F(16, 29),
        "pb": F(64, 135), "rb": F(288, 517), "fb": F(1152, 2249),
        "p": F(1, 2), "r": F(5, 9),
    }
    for key, value in expected.items():
        assert m[key] == pytest.approx(float(value), abs=1e-12), key


def test_sufficient_statistics_by_hand():
    s = collect(corpus(HAND_GOLD, "gold.txt"), corpus(HAND_PRED), difficulty=HAND_D)
    assert s.n_gold.tolist() == [3, 3, 3]
    assert s.n_pred.tolist() == [4, 4, 2]
    assert s.n_correct.tolist() == [2, 2, 1]
    np.testing.assert_allclose(s.gold_d, [1.5, 1.0, 0.7], atol=1e-15)
    np.testing.assert_allclose(s.correct_d, [1.0, 0.2, 0.6], atol=1e-15)
    np.testing.assert_allclose(s.pred_d, [2.0, 1.8, 0.7], atol=1e-15)
    assert s.total_words.tolist() == [21, 36, 10]
    # inner boundaries: s1 gold {2,4} pred {2,3,4}; s2 gold {3,5} pred {3,5,6};
    # s3 gold {1,2} pred {2}
    assert s.boundary_gold.tolist() == [2, 2, 2]
    assert s.boundary_pred.tolist() == [3, 3, 1]
    assert s.boundary_correct.tolist() == [2, 2, 1]


def test_companion_metrics_by_hand():
    # OOV tokens (not in HAND_TRAIN): 玛丽 (right), 計算機 (right), 有問題 (wrong),
    # 北京 (right) → OOV rate 4/9, OOV recall 3/4.  IV: 约翰 ✓ 喜欢 ✗ 總是 ✓ 我 ✗ 爱 ✗
    # → IV recall 2/5.  ER = (10 − 5)/9.  TNR = 1 − 5/(67 − 9) = 53/58.
    # Boundaries: gold 6, predicted 7, both 5.
    m = score(HAND_GOLD, HAND_PRED, difficulty=HAND_D, train_words=HAND_TRAIN)
    assert m["oov_rate"] == pytest.approx(4 / 9, abs=1e-15)
    assert m["oov_recall"] == 0.75
    assert m["iv_recall"] == 0.4
    assert m["er"] == pytest.approx(5 / 9, abs=1e-15)
    assert m["tnr"] == pytest.approx(53 / 58, abs=1e-15)
    assert m["boundary_p"] == pytest.approx(5 / 7, abs=1e-15)
    assert m["boundary_r"] == pytest.approx(5 / 6, abs=1e-15)


def test_recall_by_bin_by_hand():
    # bin 0 [0, .1): 约翰 ✓ 總是 ✓ 我 ✗ → 2/3;  bin 1: 爱 ✗ → 0;  bin 2: 計算機 ✓ → 1;
    # bin 5: 喜欢 ✗ → 0;  bin 6: 北京 ✓ → 1;  bin 8: 有問題 ✗ → 0;
    # bin 9 [.9, 1.0] holds d = 1.0: 玛丽 ✓ → 1;  bins 3, 4, 7 are empty.
    m = score(HAND_GOLD, HAND_PRED, difficulty=HAND_D)
    got = m["recall_by_bin"]
    assert got[0] == pytest.approx(2 / 3)
    assert got[1:] == [0.0, 1.0, None, None, 0.0, 1.0, None, 0.0, 1.0]


def test_bin_edges():
    d = np.array([0.0, 0.1, 0.2, 0.3, 0.1 * 3, 0.4, 0.6, 0.7, 7 / 10, 0.8, 0.9, 1.0,
                  0.0999, 0.2999, 3 / 10, 9 / 10, 0.95,
                  1 - 0.9, 1 - 0.8])  # 0.09999999999999998, 0.19999999999999996
    assert difficulty_bins(d).tolist() == [0, 1, 2, 3, 3, 4, 6, 7, 7, 8, 9, 9,
                                           0, 2, 3, 9, 9, 1, 2]
    # multiples of 1/K made by one division land in the bin of their value
    for K in (3, 7, 10, 20, 90):
        k = np.arange(K + 1)
        expected = [min(int(F(int(i), K) * 10), 9) for i in k]
        assert difficulty_bins(k / K).tolist() == expected


def test_anchor_only_easy_words_right():
    # METHOD §5: d ∈ {0, 1}; the output gets exactly the d = 0 words right.
    gold = ["约翰 喜欢 玛丽", "我 爱 北京"]
    pred = ["约翰 喜 欢 玛丽", "我 爱北 京"]      # right: 约翰 玛丽 我
    d = [0.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    m = score(gold, pred, difficulty=d)
    assert m["r_punishment"] == 1.0
    assert m["r_reward"] == 0.0
    assert m["rb"] == 0.0  # H(0, 1) = 0


def test_perfect_output_is_one():
    m = score(HAND_GOLD, HAND_GOLD, difficulty=HAND_D, train_words=HAND_TRAIN)
    for key in METRICS:
        if key == "er":
            assert m[key] == 0.0
        elif key == "oov_rate":
            assert m[key] == pytest.approx(4 / 9)
        else:
            assert m[key] == 1.0, key


# ---------------------------------------------------------------------------
# Undefined metrics: None with a warning that says why; H(0, 0) = 0
# ---------------------------------------------------------------------------

def test_all_easy_makes_reward_undefined():
    with pytest.warns(UndefinedMetricWarning) as record:
        m = score(["约翰 喜欢 玛丽"], ["约翰 喜欢 玛丽"], difficulty=[0.0, 0.0, 0.0])
    assert m["r_reward"] is None and m["p_reward"] is None
    assert m["pb"] is None and m["rb"] is None and m["fb"] is None
    assert m["r_punishment"] == 1.0 and m["p"] == 1.0
    messages = " ".join(str(w.message) for w in record)
    assert "Σ d over gold words is 0" in messages
    assert "Σ d' over predicted words is 0" in messages


def test_all_hard_makes_punishment_undefined():
    with pytest.warns(UndefinedMetricWarning, match="difficulty 1"):
        m = score(["约翰 喜欢"], ["约翰 喜 欢"], difficulty=[1.0, 1.0])
    assert m["r_punishment"] is None and m["p_punishment"] is None
    assert m["r_reward"] == 0.5 and m["p_reward"] == pytest.approx(1 / 3)


def test_no_words_predicted_is_undefined_not_zero():
    g = Corpus("gold.txt", [[]], [1])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        m = compute(collect(g, Corpus("out.txt", [[]], [1])))
    assert any("N' = 0" in str(w.message) for w in record)
    assert all(issubclass(w.category, UndefinedMetricWarning) for w in record)
    assert m["p"] is None and m["r"] is None and m["f1"] is None


def test_nothing_right_gives_zero_f1():
    m = score(["约翰 喜欢 玛丽"], ["约 翰 喜 欢 玛 丽"])
    assert m["p"] == 0.0 and m["r"] == 0.0 and m["f1"] == 0.0   # H(0, 0) = 0


def test_missing_inputs_are_absent_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = score(HAND_GOLD, HAND_PRED)
    assert m["pb"] is None and m["oov_recall"] is None and m["recall_by_bin"] is None


def test_no_oov_words_warns():
    with pytest.warns(UndefinedMetricWarning, match="no gold word is out of vocabulary"):
        m = score(["约翰 喜欢"], ["约翰 喜欢"], train_words={"约翰", "喜欢"})
    assert m["oov_recall"] is None and m["oov_rate"] == 0.0 and m["iv_recall"] == 1.0


def test_single_character_sentences_make_tnr_undefined():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        m = score(["我", "你"], ["我", "你"])
    assert any(str(w.message).startswith("tnr undefined") for w in record)
    assert m["tnr"] is None and m["boundary_r"] is None


# ---------------------------------------------------------------------------
# Alignment errors
# ---------------------------------------------------------------------------

def test_different_line_counts():
    with pytest.raises(InputError, match=r"out\.txt: has 2 lines, gold gold\.txt has 3"):
        check_aligned(corpus(["我", "你", "他"], "gold.txt"), corpus(["我", "你"]))


def test_differing_characters_name_file_line_offset():
    gold = corpus(["约翰 喜欢 玛丽", "我 爱 北京 天安门 ， 好"], "gold.txt")
    pred = corpus(["约翰 喜欢 玛丽", "我 爱 北京 天安门 , 好"])
    with pytest.raises(InputError) as e:
        check_aligned(gold, pred)
    assert str(e.value) == ("out.txt:2: characters differ from gold.txt:2 at character 8: "
                            "the output has ',' where the gold has '，'; the files differ only "
                            "by full-width forms: score every file with --normalize fullwidth")
    assert e.value.line == 2


def test_shorter_line_shows_end_of_line():
    with pytest.raises(InputError, match="at character 4: the output's line ends where the "
                                         "gold has '丽'$"):
        check_aligned(corpus(["约翰 玛丽"], "gold.txt"), corpus(["约翰 玛"]))


def test_collect_checks_alignment():
    with pytest.raises(InputError):
        collect(corpus(["约翰 玛丽"], "gold.txt"), corpus(["约翰 玛莉"]))


def test_collect_rejects_wrong_difficulty_length():
    with pytest.raises(ValueError, match="gold has 2 words"):
        collect(corpus(["约翰 玛丽"], "gold.txt"), corpus(["约翰 玛丽"]), difficulty=[0.5])


# ---------------------------------------------------------------------------
# Signature
# ---------------------------------------------------------------------------

def test_signature_fields():
    sig = Signature(None, difficulty="0123456789abcdef" * 4,
                    vocabulary=word_list_sha256(["我", "你"]))
    fields = sig.format().split("|")
    assert fields[0] == "committee-score"
    assert fields[1:4] == ["match:exact-span", "norm:none", "difficulty:sha256=0123456789ab"]
    assert fields[4].startswith("oov:words=") and len(fields[4]) == len("oov:words=") + 12
    assert fields[-1] == f"version:{__version__}"
    assert str(sig) == sig.format()
    assert sig.format(short=False).split("|")[3] == "difficulty:sha256=" + "0123456789abcdef" * 4
    assert Signature(None).format() == (f"committee-score|match:exact-span|norm:none|"
                                        f"difficulty:none|oov:none|version:{__version__}")
    boot = Signature(None, bootstrap=1000, seed=7)
    assert "bootstrap:1000,seed=7" in boot.format()
    assert boot != Signature(None) and boot.base() == Signature(None)


def test_make_signature_hashes_values_not_containers():
    """The difficulty field is the checksum of the values (little-endian
    float64), whatever holds them; other values or other words sign apart."""
    gold = [["我", "爱"], ["北京"]]
    a = make_signature(gold, difficulty=[0.5, 0.25, 1.0])
    assert a == make_signature(gold, difficulty=np.array([0.5, 0.25, 1.0], dtype=">f8"))
    assert a.difficulty == hashlib.sha256(struct.pack("<3d", 0.5, 0.25, 1.0)).hexdigest()
    assert a != make_signature(gold, difficulty=[0.5, 0.25, 0.75])
    assert a != make_signature([["我爱"], ["北京"]], difficulty=[0.5, 0.25])
    assert a.gold == hashlib.sha256("我 爱\n北京\n".encode()).hexdigest()
    assert make_signature(gold).difficulty is None


# ---------------------------------------------------------------------------
# Property tests (Hypothesis)
# ---------------------------------------------------------------------------

ALPHABET = "我爱北京天安门的人们😀，"


def cut(text, gaps):
    words, start = [], 0
    for i, split in enumerate(gaps, start=1):
        if split:
            words.append(text[start:i])
            start = i
    if text:
        words.append(text[start:])
    return words


@st.composite
def scored_pairs(draw, min_sentences=1, max_sentences=6):
    n_sent = draw(st.integers(min_sentences, max_sentences))
    gold, pred = [], []
    for _ in range(n_sent):
        text = draw(st.text(alphabet=ALPHABET, max_size=9))
        gaps = max(len(text) - 1, 0)
        gold.append(cut(text, draw(st.lists(st.booleans(), min_size=gaps, max_size=gaps))))
        pred.append(cut(text, draw(st.lists(st.booleans(), min_size=gaps, max_size=gaps))))
    n = sum(len(s) for s in gold)
    K = draw(st.integers(1, 12))
    d = np.array(draw(st.lists(st.integers(0, K), min_size=n, max_size=n)), dtype=np.int64) / K
    vocab = draw(st.sets(st.sampled_from(sorted({w for s in gold for w in s}) or ["我"])))
    return gold, pred, d, vocab


def as_corpora(gold, pred):
    return (Corpus("gold.txt", gold, list(range(1, len(gold) + 1))),
            Corpus("out.txt", pred, list(range(1, len(pred) + 1))))


@settings(max_examples=150, deadline=None)
@given(scored_pairs())
def test_vectorised_equals_reference(case):
    gold, pred, d, vocab = case
    g, p = as_corpora(gold, pred)
    fast = quiet(lambda: compute(collect(g, p, difficulty=d, train_words=vocab)))
    ref = reference_scores(gold, pred, d, vocab)
    assert fast["counts"] == ref["counts"]
    for key in (*METRICS, "recall_by_bin"):
        a, b = fast[key], ref[key]
        if isinstance(a, list):
            assert [x is None for x in a] == [x is None for x in b]
            np.testing.assert_allclose([x for x in a if x is not None],
                                       [x for x in b if x is not None], atol=1e-12)
        else:
            assert (a is None) == (b is None), key
            if a is not None:
                assert a == pytest.approx(b, abs=1e-12), key


@settings(max_examples=100, deadline=None)
@given(scored_pairs())
def test_scores_in_unit_interval(case):
    gold, pred, d, vocab = case
    g, p = as_corpora(gold, pred)
    m = quiet(lambda: compute(collect(g, p, difficulty=d, train_words=vocab)))
    for key in METRICS:
        v = m[key]
        if v is None:
            continue
        assert not math.isnan(v)
        if key == "er":
            assert v >= 0
        else:
            assert 0.0 <= v <= 1.0, (key, v)
    for v in m["recall_by_bin"]:
        assert v is None or 0.0 <= v <= 1.0


@settings(max_examples=100, deadline=None)
@given(scored_pairs())
def test_perfect_output_property(case):
    gold, _, d, vocab = case
    n = len(d)
    if n < 2:
        return
    # make the difficulties non-degenerate: at least one d < 1 and one d > 0
    d = d.copy()
    d[0], d[-1] = 0.0, 1.0
    g, p = as_corpora(gold, [list(s) for s in gold])
    m = quiet(lambda: compute(collect(g, p, difficulty=d, train_words=vocab)))
    for key in ("p", "r", "f1", "pb", "rb", "fb", "p_reward", "p_punishment",
                "r_reward", "r_punishment", "oov_recall", "iv_recall", "tnr",
                "boundary_p", "boundary_r", "boundary_f1"):
        assert m[key] in (1.0, None), key
    for key in ("p", "r", "f1", "pb", "rb", "fb"):
        assert m[key] == 1.0, key
    assert m["er"] == 0.0
    assert all(v in (1.0, None) for v in m["recall_by_bin"])


@settings(max_examples=100, deadline=None)
@given(scored_pairs(), st.integers(1, 99))
def test_uniform_difficulty_gives_standard_scores(case, c):
    gold, pred, d, _ = case
    g, p = as_corpora(gold, pred)
    uniform = np.full(len(d), c / 100)
    m = quiet(lambda: compute(collect(g, p, difficulty=uniform)))
    for balanced, standard in (("pb", "p"), ("rb", "r"), ("fb", "f1"),
                               ("p_reward", "p"), ("r_punishment", "r")):
        if m[standard] is None:
            assert m[balanced] is None
        else:
            assert m[balanced] == pytest.approx(m[standard], abs=1e-12)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(scored_pairs(min_sentences=2, max_sentences=8), st.integers(0, 2**32 - 1))
def test_bootstrap_contains_point_and_is_deterministic(case, seed):
    gold, pred, d, vocab = case
    g, p = as_corpora(gold, pred)
    stats = collect(g, p, difficulty=d, train_words=vocab)
    point = quiet(compute, stats)
    ci = quiet(bootstrap, stats, n=200, seed=seed)
    assert ci == quiet(bootstrap, stats, n=200, seed=seed)
    assert set(ci) == set(METRICS)
    for key in ("p", "r", "f1", "pb", "rb", "fb", "boundary_f1"):
        lo, hi = ci[key]
        if point[key] is None:
            assert (lo, hi) == (None, None)
        else:
            assert lo - 1e-12 <= point[key] <= hi + 1e-12, (key, lo, point[key], hi)


@settings(max_examples=30, deadline=None)
@given(scored_pairs(min_sentences=1, max_sentences=8), st.integers(0, 1000))
def test_paired_bootstrap_with_itself_ties(case, seed):
    gold, pred, d, _ = case
    g, p = as_corpora(gold, pred)
    stats = collect(g, p, difficulty=d)
    for metric in ("f1", "fb"):
        res = quiet(paired_bootstrap, stats, stats, metric=metric, n=100, seed=seed)
        assert res["share_a_better"] == 0.0 and res["share_b_better"] == 0.0
        if quiet(compute, stats)[metric] is not None and res["ties"] < 1.0:
            # only resamples where the metric is undefined may fall outside ties
            assert res["ties"] + res["share_a_better"] + res["share_b_better"] <= 1.0
        if res["delta"] is not None:
            assert res["delta"] == 0.0


def test_paired_bootstrap_prefers_better_system():
    gold = ["约翰 喜欢 玛丽", "計算機 總是 有問題", "我 爱 北京"] * 10
    good = ["约翰 喜欢 玛丽", "計算機 總是 有 問題", "我 爱 北京"] * 10
    bad = ["约翰喜欢 玛丽", "計算 機 總是 有 問題", "我爱 北京"] * 10
    g, a, b = corpus(gold, "gold.txt"), corpus(good), corpus(bad)
    d = np.tile(HAND_D, 10)
    sa, sb = collect(g, a, difficulty=d), collect(g, b, difficulty=d)
    res = paired_bootstrap(sa, sb, metric="fb", n=300, seed=3)
    assert res["share_a_better"] > 0.95
    assert res["delta"] == pytest.approx(compute(sa)["fb"] - compute(sb)["fb"])
    lo, hi = res["ci"]
    assert 0 < lo <= res["delta"] <= hi
    # the same resamples are used for both systems: swapping swaps the shares
    swapped = paired_bootstrap(sb, sa, metric="fb", n=300, seed=3)
    assert swapped["share_b_better"] == res["share_a_better"]


def test_paired_bootstrap_rejects_different_gold():
    s1 = collect(corpus(["我 爱"], "gold.txt"), corpus(["我 爱"]))
    s2 = collect(corpus(["我 爱", "你"], "gold.txt"), corpus(["我 爱", "你"]))
    with pytest.raises(ValueError, match="same gold"):
        paired_bootstrap(s1, s2, metric="f1")


def test_oov_flags_can_be_precomputed():
    g, p = corpus(HAND_GOLD, "gold.txt"), corpus(HAND_PRED)
    flags = oov_flags(g, HAND_TRAIN)
    assert flags.sum() == 4
    a = compute(collect(g, p, oov=flags))
    b = compute(collect(g, p, train_words=HAND_TRAIN))
    assert a == b


def test_one_place_chooses_a_collector(tmp_path):
    """metrics.collector_for: words get a Collector, entities an EntityCollector;
    an unknown kind and per-character difficulties for words are refused."""
    from committee import corpus, metrics, tasks
    from committee.metrics.labelled import EntityCollector

    gold = corpus.Corpus("<gold>", [["我", "爱"]], [1])
    seg, pos = tasks.SEGMENTATION, tasks.PART_OF_SPEECH
    assert type(metrics.collector_for(tasks.WORDS, gold, task=seg)) is metrics.Collector
    with pytest.raises(ValueError, match="no collector for units of kind 'words': a kind is a "):
        metrics.collector_for("words", gold, task=seg)
    with pytest.raises(ValueError, match="per-character difficulties are for labelled spans"):
        metrics.collector_for(tasks.WORDS, gold, None, [0.5, 0.5], task=seg)
    with pytest.raises(ValueError, match="labelled spans, not tags"):
        metrics.collector_for(tasks.TAGS, gold, None, [0.5, 0.5], task=pos)
    (tmp_path / "g.bio").write_text("我 O\n在 O\n北 B-LOC\n京 I-LOC\n", encoding="utf-8")
    tagged = corpus.read_corpus(tmp_path / "g.bio", format="bio")
    assert type(metrics.collector_for(tasks.ENTITIES, tagged, task=tasks.NER)) is EntityCollector
