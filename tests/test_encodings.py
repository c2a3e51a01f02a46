"""Encodings as the field ships them (docs/corpora.md): the hint names the
encoding that gives plausible Chinese text, mojibake is warned about,
content checksums do not depend on the encoding, and only text encodings
are taken."""

from __future__ import annotations

import warnings

import pytest

from committee.corpus import content_sha256, read_corpus, read_word_list, word_list_sha256
from committee.corpus.plausibility import check_gold_output, check_train_test, train_test_overlap
from committee.corpus.encodings import rank_encodings, unusual_share
from committee.errors import DecodeError, InputError, PlausibilityWarning

# Traditional Chinese as in AS (Taiwan) and CITYU (Hong Kong); simplified as in PKU/MSR.
AS = ("中華民國 行政院 今天 召開 院會 ， 通過 多 項 法案 。\n"
      "臺灣 大學 的 學生 在 圖書館 裡 讀書 ， 準備 期末 考試 。\n"
      "這 個 問題 我們 應該 從長計議 ， 不 要 操之過急 。\n"
      "經濟部 表示 ， 今年 出口 成長率 將 達到 百分之五 。\n")
CITYU = "香港 城市 大學 嘅 學生 喺 度 溫書 ， 佢哋 話 今日 好 熱 。\n" + AS
PKU = ("迈向 充满 希望 的 新 世纪 —— 一九九八年 新年 讲话\n"
       "中共中央 总书记 、 国家 主席 江 泽民\n"
       "我 爱 北京 天安门 ， 计算机 总是 有 问题 。\n")


def put(tmp_path, data: bytes, name="c.txt"):
    f = tmp_path / name
    f.write_bytes(data)
    return f


@pytest.mark.parametrize("text, encoding, first", [
    (AS, "big5", "big5"),                                   # plain Big5: big5, cp950, big5hkscs agree
    (AS + "圖書館 裏 有 書 。\n", "cp950", "cp950"),           # ETEN extension 裏: not in strict Big5
    (AS + "第一 ‧ 第二\n", "cp950", "cp950"),                 # 0xA145: ‧ in CP950 (and SIGHAN's .utf8), • in Big5
    (CITYU, "big5hkscs", "big5hkscs"),                      # HKSCS 嘅 喺 哋: CP950 cannot decode them
    (PKU, "gb18030", "gb18030"),
])
def test_big5_family_and_gb_told_apart(text, encoding, first):
    ranked = rank_encodings(text.encode(encoding))
    assert ranked[0].encoding == first and ranked[0].plausible
    assert text.encode(encoding).decode(first) == text
    gb = [d for d in ranked if "gb18030" in d.encodings]
    if first != "gb18030":  # Big5 bytes mostly decode as GB18030, into mojibake
        assert gb and not gb[0].plausible


def test_big5_without_an_encoding_gets_a_big5_hint_first(tmp_path):
    f = put(tmp_path, AS.encode("big5"), "as_test_gold.txt")
    with pytest.raises(DecodeError) as e:
        read_corpus(f)
    assert e.value.candidates[0] == "big5"
    assert str(e.value) == (f"{f}:1: cannot decode as utf-8 at byte 1 (0xa4): try --encoding big5 "
                            "(gb18030 also decodes it, into unusual characters)")
    config = e.value.rephrase(lambda key, value: f"corpus.test.{key}: {value}")
    assert str(config).endswith("try corpus.test.encoding: big5 (gb18030 also decodes it, into unusual characters)")


def test_cityu_hkscs_hint(tmp_path):
    f = put(tmp_path, CITYU.encode("big5hkscs"))
    with pytest.raises(DecodeError, match=r"try --encoding big5hkscs \(gb18030 also decodes"):
        read_corpus(f)


def test_cp950_punctuation_gives_both_readings(tmp_path):
    # CITYU's .txt decoded as big5hkscs gives • where the official .utf8 has ‧
    f = put(tmp_path, (AS + "第一 ‧ 第二\n").encode("cp950"))
    with pytest.raises(DecodeError) as e:
        read_corpus(f)
    assert e.value.candidates == ["cp950", "big5"]  # big5 and big5hkscs give the same text
    assert read_corpus(f, encoding="cp950").words[-1] == ["第一", "‧", "第二"]
    assert read_corpus(f, encoding="big5").words[-1] == ["第一", "•", "第二"]
    assert read_corpus(f, encoding="big5hkscs").words[-1] == ["第一", "•", "第二"]


def test_following_a_gb_hint_on_big5_warns_mojibake(tmp_path):
    f = put(tmp_path, AS.encode("big5"), "as.txt")
    with pytest.warns(PlausibilityWarning) as w:
        read_corpus(f, encoding="gb18030")
    assert len(w) == 1
    msg = str(w[0].message)
    assert msg.startswith(f"{f}: decoded as gb18030, ")
    assert msg.endswith("of its non-ASCII characters are rare, private-use or not Chinese (mojibake?); "
                        "it reads as Chinese text with --encoding big5")
    assert unusual_share(AS.encode("big5").decode("gb18030")) > 0.5


def test_gb_read_as_big5_warns_too(tmp_path):
    f = put(tmp_path, (PKU * 3).encode("gb18030"))
    with pytest.warns(PlausibilityWarning, match=r"decoded as big5, .*with --encoding gb18030"):
        read_corpus(f, encoding="big5")


def test_right_encodings_do_not_warn(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for text, enc in [(AS, "big5"), (AS, "cp950"), (CITYU, "big5hkscs"), (PKU, "gb18030"), (PKU, "gbk")]:
            assert read_corpus(put(tmp_path, text.encode(enc)), encoding=enc).words[0] == text.split("\n")[0].split()


def test_mixed_file_names_the_encoding_of_the_rest(tmp_path):
    f = put(tmp_path, PKU.encode("utf-8") + PKU.encode("gb18030"))
    with pytest.raises(DecodeError) as e:
        read_corpus(f)
    assert e.value.line == 4 and e.value.candidates == ["gb18030"]
    assert "from line 4 on; the lines before decode as utf-8: does the file mix encodings?" in str(e.value)


# ------------------------------------------------------------ content checksums


def test_same_corpus_in_gb18030_and_utf8_gives_the_same_content_hash(tmp_path):
    utf8 = read_corpus(put(tmp_path, PKU.encode("utf-8"), "pku_test_gold.utf8"))
    gb = read_corpus(put(tmp_path, PKU.replace("\n", "\r\n").encode("gb18030"), "pku_test_gold.txt"),
                     encoding="gb18030")
    assert utf8.sha256 != gb.sha256
    assert utf8.content_sha256 == gb.content_sha256 == content_sha256(utf8.words)


def test_word_list_hash_does_not_depend_on_encoding(tmp_path):
    words = "计算机\n问题\n北京\n"
    a = read_word_list(put(tmp_path, words.encode("utf-8"), "w.utf8"))
    b = read_word_list(put(tmp_path, ("\n" + words[::-1].strip()[::-1] + "\n").encode("gb18030"), "w.txt"),
                       encoding="gb18030")
    assert word_list_sha256(a) == word_list_sha256(b)


def test_format_is_part_of_the_content_hash(tmp_path):
    f = put(tmp_path, "计/B 算/E 机/S\n".encode("utf-8"))
    assert read_corpus(f, format="char-slash").content_sha256 == content_sha256([["计算", "机"]])
    assert read_corpus(f, format="char-slash").content_sha256 != content_sha256([["计/B", "算/E", "机/S"]])


def test_normalisation_is_part_of_the_content_hash(tmp_path):
    f = put(tmp_path, "ＡＢ 好\n".encode("utf-8"))
    assert read_corpus(f).content_sha256 != read_corpus(f, normalization="fullwidth").content_sha256


# ------------------------------------------------------------ plausibility checks


def test_training_on_the_test_set_is_an_error(tmp_path):
    f = put(tmp_path, PKU.encode("utf-8"), "test.txt")
    train = read_corpus(f)
    test = read_corpus(put(tmp_path, PKU.encode("gb18030"), "test.gb"), encoding="gb18030")
    with pytest.raises(InputError, match=r"test\.gb: holds the same words as the training corpus .*overlap 100%"):
        check_train_test(train, test)
    with pytest.warns(PlausibilityWarning, match="overlap 100%"):
        assert check_train_test(train, test, allow_identical=True).share == 1.0


def test_large_overlap_warns_and_small_does_not(tmp_path):
    train = read_corpus(put(tmp_path, (PKU + AS).encode("utf-8"), "train.txt"))
    test = read_corpus(put(tmp_path, (PKU.split("\n")[0] + "\n香港 回歸\n澳門 回歸\n").encode("utf-8"), "t.txt"))
    o = train_test_overlap(train, test)
    assert (o.found, o.total, o.identical) == (1, 3, False)
    with pytest.warns(PlausibilityWarning, match=r"t\.txt: 1 of its 3 sentences \(33\.3%\) occurs verbatim .*overlap"):
        check_train_test(train, test)
    big = read_corpus(put(tmp_path, "".join(f"新 句子 {i}\n" for i in range(9)).encode() + PKU.split("\n")[0].encode() + b"\n", "b.txt"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_train_test(train, big).share == pytest.approx(0.1)


def test_gold_given_as_output_and_the_reverse(tmp_path):
    gold = read_corpus(put(tmp_path, "约翰 喜欢 玛丽\n".encode(), "gold.txt"))
    out = read_corpus(put(tmp_path, "约翰喜欢 玛丽\n".encode(), "out.txt"))
    copy = read_corpus(put(tmp_path, "约翰 喜欢 玛丽\n".encode("gb18030"), "out.gb"), encoding="gb18030")
    with pytest.warns(PlausibilityWarning, match=r"out\.gb: has the same words as the gold .*gold\.txt"):
        check_gold_output(gold, copy)
    with pytest.warns(PlausibilityWarning, match="were the gold and the output given the wrong way round"):
        check_gold_output(out, gold, gold_sha256s=[gold.content_sha256])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_gold_output(gold, out, gold_sha256s=[gold.content_sha256])


# ------------------------------------------------------------ only text encodings

# Codecs of Python's registry that no file reads with: str to str, bytes to bytes.
NOT_TEXT = {"rot13": "str to str", "zlib_codec": "bytes to bytes", "base64": "bytes to bytes"}
USE_CLI = "use one of utf-8, utf-8-sig, gb18030, cp936, big5, cp950, big5hkscs, utf-16"
USE_CONFIG = "use one of utf-8, utf-8-sig, gb18030, cp936, gbk, big5, cp950, big5hkscs"


@pytest.fixture
def files(tmp_path, monkeypatch):
    """gold.txt, out.txt and train.txt in the working directory (relative
    names keep the messages exact)."""
    for name in ("gold.txt", "out.txt", "train.txt"):
        (tmp_path / name).write_text(PKU, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("codec", list(NOT_TEXT))
@pytest.mark.parametrize("argv, flag", [
    (["score", "--gold", "gold.txt", "--encoding", "{}", "out.txt"], "--encoding"),
    (["score", "--gold", "gold.txt", "--gold-encoding", "{}", "out.txt"], "--gold-encoding"),
    (["score", "--gold", "gold.txt", "--train-words", "train.txt", "--train-encoding", "{}",
      "out.txt"], "--train-encoding"),
    (["segment", "--with", "jieba", "--encoding", "{}", "-o", "seg.txt", "gold.txt"],
     "--encoding"),
])
def test_a_codec_that_is_no_text_encoding_is_a_usage_error(files, capsys, codec, argv, flag):
    from committee import cli

    command = argv[0]
    before = sorted(p.name for p in files.iterdir())
    assert cli.main([a.format(codec) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"committee: error: {flag}: {codec!r} is not a text encoding "
                              f"(it encodes {NOT_TEXT[codec]}); {USE_CLI} (see 'committee "
                              f"{command} --help')\n")
    assert sorted(p.name for p in files.iterdir()) == before


@pytest.mark.parametrize("codec", list(NOT_TEXT))
def test_a_codec_that_is_no_text_encoding_is_a_config_error(files, capsys, codec):
    from committee import cli

    (files / "c.yaml").write_text(
        "name: codecs\ncorpus:\n"
        f"  train: {{path: train.txt, encoding: {codec}}}\n"
        "  test: {path: gold.txt}\n"
        "committee: {size: 2, seed: 1}\noutput: {dir: run}\n", encoding="utf-8")
    problem = (f"{codec!r} is not a text encoding (it encodes {NOT_TEXT[codec]}); "
               f"{USE_CONFIG}")
    assert cli.main(["run", "c.yaml", "--quiet"]) == 4
    assert capsys.readouterr() == ("", f"committee: error: c.yaml: corpus.train.encoding: "
                                       f"{problem}\n")
    assert cli.main(["run", "c.yaml", "--quiet", "--set", "corpus.train.encoding=utf-8",
                     "--set", f"corpus.test.encoding={codec}"]) == 4
    assert capsys.readouterr() == ("", f"committee: error: --set corpus.test.encoding={codec}: "
                                       f"{problem}\n")
    assert not (files / "run").exists()


@pytest.mark.parametrize("codec", list(NOT_TEXT))
def test_a_codec_that_is_no_text_encoding_is_refused_by_the_api(files, codec):
    import committee
    from committee import corpus

    problem = f"{codec!r} is not a text encoding (it encodes {NOT_TEXT[codec]})"
    fix = "give one such as 'utf-8' or 'gb18030'"
    for key in ("encoding", "gold_encoding", "train_encoding"):
        with pytest.raises(ValueError) as e:
            committee.score("gold.txt", "out.txt", train_words="train.txt", **{key: codec})
        assert str(e.value) == f"score: {key}: {problem}; {fix}"
    with pytest.raises(ValueError) as e:
        committee.read_corpus("gold.txt", encoding=codec)
    assert str(e.value) == f"read_corpus: encoding: {problem}; {fix}"
    documented = "documented: utf-8, utf-8-sig, gb18030, cp936, gbk, big5, cp950, big5hkscs"
    for call in (lambda: corpus.read_corpus("gold.txt", encoding=codec),
                 lambda: corpus.read_word_list("train.txt", encoding=codec),
                 lambda: corpus.write_sighan(files / "w.txt", [["好"]], encoding=codec)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == f"{problem}; {documented}"
    assert not (files / "w.txt").exists()
