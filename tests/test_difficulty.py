"""Tests of committee.pipeline.difficulty: marks → d, the .weight/.weight_c files, words.tsv."""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee.corpus import Corpus
from committee.pipeline.difficulty import (
    WORDS_TSV_COLUMNS, difficulties, read_weight, read_weight_c, read_words_tsv,
    write_weight, write_weight_c, write_words_tsv,
)
from committee.errors import InputError, PlausibilityWarning, UndefinedMetricWarning
from committee.metrics import collect, compute


def gold_corpus(sentences, path="gold.txt", pos=None):
    words = [s.split() for s in sentences]
    return Corpus(path=path, words=words, lines=list(range(1, len(words) + 1)), pos=pos)


GOLD = gold_corpus(["约翰 喜欢 玛丽", "", "計算機 總是 有問題"])
D = [0.0, 2 / 3, 1.0, 0.1, 0.0, 0.3]


# ---------------------------------------------------------------------------
# difficulties
# ---------------------------------------------------------------------------

def test_difficulties_by_hand():
    # 3 members × 4 gold words; member rows
    marks = np.array([[1, 1, 0, 0],
                      [1, 0, 0, 1],
                      [1, 0, 0, 1]], dtype=bool)
    d, n = difficulties(marks)
    assert n.tolist() == [3, 1, 0, 2]
    assert d.tolist() == [0.0, 2 / 3, 1.0, 1 / 3]
    assert d.dtype == np.float64 and n.dtype == np.int64


def test_difficulties_one_division_is_order_independent():
    rng = np.random.default_rng(0)
    marks = rng.random((90, 500)) < 0.7
    d, n = difficulties(marks)
    d2, _ = difficulties(marks[rng.permutation(90)])
    assert np.array_equal(d, d2)  # bit-identical
    assert np.array_equal(d, (90 - n) / 90)
    # 0.1 steps of a 10-member committee are the literals 0.1, 0.2, ...
    d10, _ = difficulties(marks[:10])
    assert set(d10.tolist()) <= {k / 10 for k in range(11)}


def test_difficulties_accepts_01_integers_and_rejects_others():
    assert difficulties(np.array([[1, 0]]))[0].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="0/1"):
        difficulties(np.array([[2, 0]]))
    with pytest.raises(ValueError, match="at least one member"):
        difficulties(np.zeros((0, 3), dtype=bool))
    with pytest.raises(ValueError, match="matrix"):
        difficulties(np.zeros(3, dtype=bool))


# ---------------------------------------------------------------------------
# writers: exact bytes
# ---------------------------------------------------------------------------

def test_write_weight_bytes(tmp_path):
    write_weight(tmp_path / "t.weight", GOLD, D)
    assert (tmp_path / "t.weight").read_bytes() == \
        "0.0 0.6666666666666666 1.0\n\n0.1 0.0 0.3\n".encode()


def test_write_weight_c_bytes(tmp_path):
    write_weight_c(tmp_path / "t.weight_c", GOLD, D)
    assert (tmp_path / "t.weight_c").read_bytes() == (
        "0.0 0.0 0.6666666666666666 0.6666666666666666 1.0 1.0\n"
        "\n"
        "0.1 0.1 0.1 0.0 0.0 0.3 0.3 0.3\n").encode()


def test_writer_rejects_wrong_length(tmp_path):
    with pytest.raises(ValueError, match="6 words"):
        write_weight(tmp_path / "t.weight", GOLD, D[:-1])
    assert not (tmp_path / "t.weight").exists()


def nlpcc_read(path):
    """What the NLPCC 2016 eval script does with a weight file."""
    with open(path, "r", encoding="utf-8") as f:
        return [[float(x) for x in line.strip().split()] for line in f.readlines()]


def test_nlpcc_script_reads_our_files(tmp_path):
    write_weight(tmp_path / "t.weight", GOLD, D)
    write_weight_c(tmp_path / "t.weight_c", GOLD, D)
    assert nlpcc_read(tmp_path / "t.weight") == [D[:3], [], D[3:]]
    assert nlpcc_read(tmp_path / "t.weight_c")[2] == [0.1] * 3 + [0.0] * 2 + [0.3] * 3


# ---------------------------------------------------------------------------
# round trips (Hypothesis)
# ---------------------------------------------------------------------------

@st.composite
def corpus_and_difficulty(draw):
    alphabet = "我爱北京天安门的人😀𠀀，a"
    sentences = draw(st.lists(st.lists(st.text(alphabet=alphabet, min_size=1, max_size=4),
                                       max_size=5), max_size=5))
    n = sum(len(s) for s in sentences)
    exact = st.floats(0.0, 1.0, allow_nan=False)
    committee_values = st.builds(lambda k, K: k / K, st.integers(0, 90), st.just(90))
    d = draw(st.lists(st.one_of(exact, committee_values), min_size=n, max_size=n))
    g = Corpus("gold.txt", sentences, list(range(1, len(sentences) + 1)))
    return g, np.array(d, dtype=np.float64)


@settings(max_examples=120, deadline=None)
@given(corpus_and_difficulty())
def test_write_read_write_is_byte_identical(tmp_path_factory, case):
    g, d = case
    tmp = tmp_path_factory.mktemp("w")
    write_weight(tmp / "a.weight", g, d)
    back = read_weight(tmp / "a.weight", g)
    assert np.array_equal(back, d)
    write_weight(tmp / "b.weight", g, back)
    assert (tmp / "a.weight").read_bytes() == (tmp / "b.weight").read_bytes()

    write_weight_c(tmp / "a.weight_c", g, d)
    per_char = read_weight_c(tmp / "a.weight_c", g)
    lengths = [len(w) for s in g.words for w in s]
    assert np.array_equal(per_char, np.repeat(d, lengths))
    # one character's value back to its word's: the value at the word's first character
    starts = np.cumsum([0] + lengths[:-1]).astype(int)
    write_weight_c(tmp / "b.weight_c", g, per_char[starts] if len(d) else d)
    assert (tmp / "a.weight_c").read_bytes() == (tmp / "b.weight_c").read_bytes()
    # the NLPCC script reads the same numbers
    lines = nlpcc_read(tmp / "a.weight")
    assert [x for line in lines for x in line] == d.tolist()


# ---------------------------------------------------------------------------
# the d' convention agrees with the NLPCC 2016 evaluation (BMES + weight_c)
# ---------------------------------------------------------------------------

def bmes(words):
    tags = []
    for w in words:
        tags += ["S"] if len(w) == 1 else ["B"] + ["M"] * (len(w) - 2) + ["E"]
    return tags


def nlpcc_weighted(gold_words, pred_words, weight, weight_c):
    """The NLPCC 2016 balanced scores, computed the way its script does: walk the
    BMES tags; a predicted word ends at an E/S tag of the output and adds the
    weight_c value of that character to the precision denominators; a gold word
    is correct iff the tags over its characters agree."""
    c = c2 = true = true2 = guess = guess2 = 0.0
    for y, yp, w, wc in zip(map(bmes, gold_words), map(bmes, pred_words), weight, weight_c):
        start, k = 0, 0
        for j in range(len(y)):
            if yp[j] in "ES":
                guess += wc[j]
                guess2 += 1 - wc[j]
            if y[j] in "ES":
                if all(yp[t] == y[t] for t in range(start, j + 1)):
                    c += w[k]
                    c2 += 1 - w[k]
                true += w[k]
                true2 += 1 - w[k]
                k += 1
                start = j + 1
    def div(a, b):  # the script itself would raise ZeroDivisionError
        return None if b == 0 else a / b

    return {"r_reward": div(c, true), "r_punishment": div(c2, true2),
            "p_reward": div(c, guess), "p_punishment": div(c2, guess2)}


@st.composite
def gold_pred_d(draw):
    alphabet = "我爱北京天安门的人"
    gold, pred = [], []
    for _ in range(draw(st.integers(1, 5))):
        text = draw(st.text(alphabet=alphabet, min_size=1, max_size=8))
        for target in (gold, pred):
            cuts = [i for i in range(1, len(text)) if draw(st.booleans())]
            bounds = [0, *cuts, len(text)]
            target.append([text[a:b] for a, b in zip(bounds, bounds[1:])])
    n = sum(len(s) for s in gold)
    d = np.array(draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))) / 10
    return gold, pred, d


@settings(max_examples=100, deadline=None)
@given(gold_pred_d())
def test_balanced_scores_match_nlpcc_convention(tmp_path_factory, case):
    gold, pred, d = case
    if not (0 < d.sum() < len(d)):
        return  # the NLPCC script divides by zero here; we report undefined instead
    tmp = tmp_path_factory.mktemp("n")
    g = Corpus("gold.txt", gold, list(range(1, len(gold) + 1)))
    p = Corpus("out.txt", pred, list(range(1, len(pred) + 1)))
    write_weight(tmp / "t.weight", g, d)
    write_weight_c(tmp / "t.weight_c", g, d)
    ref = nlpcc_weighted(gold, pred, nlpcc_read(tmp / "t.weight"),
                         nlpcc_read(tmp / "t.weight_c"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = compute(collect(g, p, difficulty=read_weight(tmp / "t.weight", g)))
    for key, value in ref.items():
        if value is None:  # Σ d' or Σ (1 - d') is 0 over predicted words
            assert ours[key] is None, key
        else:
            assert ours[key] == pytest.approx(value, abs=1e-12), key


# ---------------------------------------------------------------------------
# readers: validation
# ---------------------------------------------------------------------------

def write_bytes(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_read_weight_wrong_line_count(tmp_path):
    path = write_bytes(tmp_path, "t.weight", b"0.0 0.5 1.0\n\n")
    with pytest.raises(InputError, match=r"t\.weight: has 2 lines, gold gold\.txt has 3"):
        read_weight(path, GOLD)


def test_read_weight_wrong_value_count(tmp_path):
    g = Corpus("gold.txt", [["我"], ["约翰", "喜欢", "玛丽", "和", "我", "们"]], [11, 12])
    path = write_bytes(tmp_path, "t.weight", b"0.5\n0.0 0.1 0.2 0.3 0.4\n")
    with pytest.raises(InputError) as e:
        read_weight(path, g)
    assert str(e.value) == f"{path}:2: has 5 values, gold gold.txt:12 has 6 words"
    assert e.value.line == 2


@pytest.mark.parametrize("value, message", [
    ("1.5", "'1.5' at column 5 is outside [0, 1]"),
    ("-0.1", "'-0.1' at column 5 is outside [0, 1]"),
    ("nan", "'nan' at column 5 is not a finite number"),
    ("NaN", "'NaN' at column 5 is not a finite number"),
    ("inf", "'inf' at column 5 is not a finite number"),
    ("abc", "'abc' at column 5 is not a number"),
    ("0,5", "'0,5' at column 5 is not a number"),
])
def test_read_weight_bad_values(tmp_path, value, message):
    path = write_bytes(tmp_path, "t.weight",
                       f"0.0 0.5 1.0\n\n0.1 {value} 0.3\n".encode())
    with pytest.raises(InputError, match=r":3: value " + message.replace("[", r"\[")
                       .replace("]", r"\]")):
        read_weight(path, GOLD)
    with pytest.raises(InputError, match=":3: "):
        read_weight_c(write_bytes(tmp_path, "t.weight_c",
                                  f"0 0 0 0 0 0\n\n0 0 0 0 0 {value} 0 0\n".encode()), GOLD)


def test_read_weight_accepts_crlf_and_bom(tmp_path):
    path = write_bytes(tmp_path, "t.weight",
                       b"\xef\xbb\xbf0.0 0.6666666666666666 1.0\r\n\r\n0.1 0.0 0.3\r\n")
    assert read_weight(path, GOLD).tolist() == D


def test_read_weight_c_wrong_count(tmp_path):
    path = write_bytes(tmp_path, "t.weight_c", b"0 0 1 1 1 1\n\n0 0 0 0 0 0 0\n")
    with pytest.raises(InputError, match=":3: has 7 values, gold gold.txt:3 has 8 characters"):
        read_weight_c(path, GOLD)


def test_read_weight_undecodable(tmp_path):
    path = write_bytes(tmp_path, "t.weight", b"0.0 0.5 1.0\n\n\xff\n")
    with pytest.raises(InputError, match=":3: is not valid UTF-8"):
        read_weight(path, GOLD)


EMOJI_GOLD = gold_corpus(["好 😀 吧", "没有", "😀😀 啊"])


def test_read_weight_c_utf16_counted_lines_accepted_with_one_warning(tmp_path):
    # line 1: 好😀吧 is 3 code points but 4 UTF-16 units; line 3: 😀😀啊 is 3 / 5
    path = write_bytes(tmp_path, "t.weight_c",
                       b"0.1 0.5 0.5 0.2\n0.0 0.0\n0.9 0.9 0.9 0.9 0.3\n")
    with pytest.warns(PlausibilityWarning) as record:
        got = read_weight_c(path, EMOJI_GOLD)
    assert len(record) == 1
    assert str(record[0].message).startswith(f"{path}: 2 lines count characters outside the "
                                             "Basic Multilingual Plane as two values (UTF-16")
    assert got.tolist() == [0.1, 0.5, 0.2, 0.0, 0.0, 0.9, 0.9, 0.3]


def test_read_weight_c_code_point_counted_lines_need_no_warning(tmp_path):
    path = write_bytes(tmp_path, "t.weight_c", b"0.1 0.5 0.2\n0.0 0.0\n0.9 0.9 0.3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_weight_c(path, EMOJI_GOLD).tolist() == [0.1, 0.5, 0.2, 0.0, 0.0,
                                                             0.9, 0.9, 0.3]


def test_read_weight_c_utf16_pair_must_agree(tmp_path):
    path = write_bytes(tmp_path, "t.weight_c", b"0.1 0.5 0.6 0.2\n0.0 0.0\n0.9 0.9 0.3\n")
    with pytest.raises(InputError, match=r":1: values 0.5 and 0.6 of the two UTF-16 units"):
        read_weight_c(path, EMOJI_GOLD)


# ---------------------------------------------------------------------------
# words.tsv
# ---------------------------------------------------------------------------

def test_words_tsv_pandas_reads_it_directly(tmp_path):
    g = gold_corpus(["约翰 喜欢 玛丽", "", "1998年 NA \"引号\""],
                    pos=[["nr", "v", "nr"], [], ["t", "nx", "n"]])
    d = [0.0, 2 / 3, 1.0, 0.1, 1.0, 0.5]
    write_words_tsv(tmp_path / "words.tsv", g, d, [3, 1, 0, 2, 0, 1],
                    oov=[False, False, True, True, False, True])
    df = pd.read_csv(tmp_path / "words.tsv", sep="\t", keep_default_na=False,
                     quoting=csv.QUOTE_NONE)
    assert tuple(df.columns) == WORDS_TSV_COLUMNS
    assert df["sentence"].tolist() == [0, 0, 0, 2, 2, 2]
    assert df["word_index"].tolist() == [0, 1, 2, 0, 1, 2]
    assert df["start"].tolist() == [0, 2, 4, 0, 5, 7]
    assert df["end"].tolist() == [2, 4, 6, 5, 7, 11]
    assert df["word"].tolist() == ["约翰", "喜欢", "玛丽", "1998年", "NA", "\"引号\""]
    assert df["difficulty"].tolist() == d
    assert df["n_correct"].tolist() == [3, 1, 0, 2, 0, 1]
    assert df["oov"].tolist() == [0, 0, 1, 1, 0, 1]
    assert df["pos"].tolist() == ["nr", "v", "nr", "t", "nx", "n"]
    assert read_words_tsv(tmp_path / "words.tsv").equals(df)


def test_words_tsv_unknowns_are_empty(tmp_path):
    g = gold_corpus(["1 2"])
    write_words_tsv(tmp_path / "words.tsv", g, [0.5, 0.25], [1, 3])
    text = (tmp_path / "words.tsv").read_text(encoding="utf-8")
    assert text.splitlines()[1] == "0\t0\t0\t1\t1\t0.5\t1\t\t"
    df = read_words_tsv(tmp_path / "words.tsv")
    assert df["word"].tolist() == ["1", "2"]  # words stay strings
    assert df["oov"].tolist() == ["", ""] and df["pos"].tolist() == ["", ""]


def test_words_tsv_rejects_wrong_lengths_and_tabs(tmp_path):
    with pytest.raises(ValueError, match="gold has 6 words"):
        write_words_tsv(tmp_path / "w.tsv", GOLD, D[:-1], [0] * 5)
    bad = Corpus("gold.txt", [["好\t的"]], [7])
    with pytest.raises(InputError, match=r"gold\.txt:7: word"):
        write_words_tsv(tmp_path / "w.tsv", bad, [0.0], [1])
