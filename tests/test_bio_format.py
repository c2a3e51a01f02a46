"""The ``bio`` corpus format (labelled spans, docs/corpora.md): parsing,
one-line errors, the warning on ill-formed tag sequences, sniffing against
the other formats, and ``Corpus.tags`` with its checksum."""

from __future__ import annotations

import warnings

import pytest

from committee.corpus import read_corpus, sniff_format
from committee.corpus.entities import entities
from committee.corpus.formats import BY_NAME
from committee.errors import FormatMismatchError, InputError, PlausibilityWarning

#: Two sentences in IOB2, a tab between token and tag.
GOLD = ("江\tB-PER\n泽\tI-PER\n民\tI-PER\n访\tO\n问\tO\n北\tB-LOC\n京\tI-LOC\n"
        "\n"
        "我\tO\n爱\tO\n天\tB-LOC\n安\tI-LOC\n门\tI-LOC\n")


def put(tmp_path, text, name="g.bio"):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return f


def read_quietly(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_corpus(path, format="bio", **kw)


def test_record():
    rec = BY_NAME["bio"]
    assert rec.labelled and rec.parse is not None
    assert rec.looks == "bio (a token and its entity tag a line, such as 江 B-PER)"


def test_tab_separated(tmp_path):
    c = read_quietly(put(tmp_path, GOLD))
    assert c.words == [list("江泽民访问北京"), list("我爱天安门")]
    assert c.tags == [["B-PER", "I-PER", "I-PER", "O", "O", "B-LOC", "I-LOC"],
                      ["O", "O", "B-LOC", "I-LOC", "I-LOC"]]
    assert c.lines == [1, 9]
    assert c.pos is None and c.format == "bio"
    assert entities(c) == [[(0, 3, "PER"), (5, 7, "LOC")], [(2, 5, "LOC")]]


def test_spaces_docstart_and_several_blank_lines(tmp_path):
    text = ("-DOCSTART- O\n\n\n"
            "江泽民  S-PER\n"
            "访问 O\n"
            "\n\n"
            "-DOCSTART- -X- -X- O\n"
            "北京\tB-ORG\n"
            "大学 \t E-ORG\n"
            "\n")
    c = read_quietly(put(tmp_path, text))
    assert c.words == [["江泽民", "访问"], ["北京", "大学"]]
    assert c.tags == [["S-PER", "O"], ["B-ORG", "E-ORG"]]
    assert c.lines == [4, 9]  # a sentence's line is its first token's, not its -DOCSTART-'s
    assert entities(c) == [[(0, 3, "PER")], [(0, 4, "ORG")]]


def test_crlf_and_normalization(tmp_path):
    f = tmp_path / "g.bio"
    f.write_bytes("ＩＢＭ\tS-ORG\r\n好\tO\r\n".encode("utf-8"))
    c = read_quietly(f, normalization="fullwidth")
    assert c.words == [["IBM", "好"]] and c.tags == [["S-ORG", "O"]]


@pytest.mark.parametrize("text, line, message", [
    ("我\tO\n爱\tO\tX\n北\tB-LOC\n", 2,
     "expected a token and its tag (2 columns separated by a tab or spaces), found 3"),
    ("我 O\n爱 O\n\n北京\n京 I-LOC\n", 4,
     "expected a token and its tag (2 columns separated by a tab or spaces), found 1"),
    ("我\tO\n爱\tO\n北\tPER\n京\tO\n", 3,
     "tag 'PER' is not O or B-/I-/E-/S-/M- followed by a type (such as B-PER)"),
    ("我\tO\n爱\tB\n北\tO\n", 2, "tag 'B' is not O or B-/I-/E-/S-/M- followed by a type"),
    ("我\tO\n爱\tb-per\n北\tO\n", 2, "tag 'b-per' is not O"),
    ("我\tO\n爱\tB-\n北\tO\n", 2, "tag 'B-' is not O"),
])
def test_one_line_errors(tmp_path, text, line, message):
    f = put(tmp_path, text)
    with pytest.raises(InputError) as e:
        read_corpus(f, format="bio")
    assert not isinstance(e.value, FormatMismatchError)
    assert str(e.value).startswith(f"{f}:{line}: {message}")
    assert "\n" not in str(e.value) and e.value.line == line


def test_ill_formed_sequences_warn_once_with_their_count(tmp_path):
    # IOB2 (4 B start entities, 3 I): I-PER after O (line 6), I-LOC after B-PER (line 8),
    # I-ORG at a sentence's start (line 13)
    text = ("我\tO\n爱\tB-LOC\n京\tI-LOC\n"
            "\n"
            "江\tO\n泽\tI-PER\n民\tB-PER\n北\tI-LOC\n京\tO\n大\tB-ORG\n学\tI-ORG\n"
            "\n"
            "大\tI-ORG\n好\tB-PER\n人\tI-PER\n"
            "\n"
            "上\tB-LOC\n")
    f = put(tmp_path, text)
    with pytest.warns(PlausibilityWarning) as w:
        c = read_corpus(f, format="bio")
    assert [str(x.message) for x in w] == [
        f"{f}: 3 ill-formed tag sequences under IOB2 (first at line 6: 'I-PER' after 'O'), "
        "read by the conlleval rules"]
    # the conlleval rules read them all
    assert entities(c) == [[(1, 3, "LOC")],
                           [(1, 2, "PER"), (2, 3, "PER"), (3, 4, "LOC"), (5, 7, "ORG")],
                           [(0, 1, "ORG"), (1, 3, "PER")],
                           [(0, 1, "LOC")]]
    # the strict mode drops what IOB2 does not start
    assert entities(c, mode="strict") == [[(1, 3, "LOC")], [(2, 3, "PER"), (5, 7, "ORG")],
                                          [(1, 3, "PER")], [(0, 1, "LOC")]]


def test_one_ill_formed_iobes_sequence(tmp_path):
    f = put(tmp_path, "江\tB-PER\n泽\tE-PER\n\n北\tB-LOC\n京\tO\n")
    with pytest.warns(PlausibilityWarning) as w:
        read_corpus(f, format="bio")
    assert [str(x.message) for x in w] == [
        f"{f}: 1 ill-formed tag sequence under IOBES (first at line 5: 'O' after 'B-LOC'), "
        "read by the conlleval rules"]


def test_well_formed_schemes_do_not_warn(tmp_path):
    """Read with every warning an error, each scheme gives its entities."""
    cases = {
        "江\tI-PER\n泽\tI-PER\n民\tB-PER\n\n北\tI-LOC\n":  # IOB1: B- only between two
            [[(0, 2, "PER"), (2, 3, "PER")], [(0, 1, "LOC")]],
        "江\tB-PER\n泽\tM-PER\n民\tE-PER\n好\tS-X\n": [[(0, 3, "PER"), (3, 4, "X")]],  # BMES
        "我\tO\n爱\tO\n": [[]],  # no entities
    }
    for text, spans in cases.items():
        assert entities(read_quietly(put(tmp_path, text))) == spans


# ------------------------------------------------------------------ sniffing

CHAR_TSV = "江\tB\n泽\tM\n民\tE\n\n好\tS\n"
SIGHAN = "迈向 充满 希望 的 新 世纪\n中共中央 总书记 、 国家 主席\n"
CONLLU = "# text = 我爱\n1\t我\t我\tPRON\t_\t_\t2\tnsubj\t_\t_\n2\t爱\t爱\tVERB\t_\t_\t0\troot\t_\t_\n"
ALL_O = "我 O\n爱 O\n北京 O\n\n好 O\n"


def test_sniffing_tells_bio_from_the_other_formats():
    assert sniff_format(GOLD.split("\n")) == ("bio", 1)
    assert sniff_format(ALL_O.split("\n")) == ("bio", 1)  # a file without entities is still bio
    assert sniff_format(["-DOCSTART- -X- -X- O", "", "江 B-PER", "泽 I-PER"]) == ("bio", 1)
    assert sniff_format(CHAR_TSV.split("\n"))[0] == "char-tsv"
    assert sniff_format(SIGHAN.split("\n"))[0] == "sighan"
    assert sniff_format(CONLLU.split("\n"))[0] == "conllu"
    # char-tsv's bare tags are not entity tags, and entity tags are not char-tsv's
    assert sniff_format(["江\tB", "泽\tE"])[0] == "char-tsv"
    assert sniff_format(["江\tB-PER", "泽\tE-PER"])[0] == "bio"


@pytest.mark.parametrize("other, text", [("char-tsv", CHAR_TSV), ("sighan", SIGHAN), ("conllu", CONLLU)])
def test_bio_and_other_formats_refuse_each_other(tmp_path, other, text):
    f = put(tmp_path, text, "other.txt")
    with pytest.raises(FormatMismatchError) as e:
        read_corpus(f, format="bio")
    assert (e.value.detected, e.value.given) == (other, "bio")
    g = put(tmp_path, GOLD)
    with pytest.raises(FormatMismatchError) as e:
        read_corpus(g, format=other)
    assert (e.value.detected, e.value.given) == ("bio", other)
    assert str(e.value) == (f"{g}:1: looks like bio (a token and its entity tag a line, such as 江 B-PER), "
                            f"read as {other}: its tags are entities; score them with --task ner "
                            "(in a config: task: ner and format: bio)")


def test_all_o_file_read_as_sighan_is_refused(tmp_path):
    f = put(tmp_path, ALL_O)
    with pytest.raises(FormatMismatchError, match="looks like bio"):
        read_corpus(f)


def test_one_bad_tag_is_named_by_the_parser(tmp_path):
    # as many lines of bio's shape as of sighan's: the parser reads and names the line
    f = put(tmp_path, "我 O\n爱 PER\n")
    with pytest.raises(InputError, match=r"g\.bio:2: tag 'PER' is not O") as e:
        read_corpus(f, format="bio")
    assert not isinstance(e.value, FormatMismatchError)


# ------------------------------------------------------------------ checksums


def test_content_checksum_covers_the_tags(tmp_path):
    a = read_quietly(put(tmp_path, "江\tB-PER\n泽\tI-PER\n\n好\tO\n", "a.bio"))
    b = read_quietly(put(tmp_path, "江\tB-LOC\n泽\tI-LOC\n\n好\tO\n", "b.bio"))
    same = read_quietly(put(tmp_path, "江 B-PER\n泽   I-PER\n\n\n好 O\n", "c.bio"))
    assert a.words == b.words == same.words
    assert a.content_sha256 != b.content_sha256
    assert a.content_sha256 == same.content_sha256
    assert a.sha256 != same.sha256
    sighan = read_corpus(put(tmp_path, "江 泽\n好\n", "s.txt"))
    assert sighan.content_sha256 != a.content_sha256 and sighan.tags is None
