"""Feature templates F1/F2/F3 (docs/method.md §2), checked against lists written by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from committee.learners.features import (PAD, TEMPLATES, attributes, check_template,
                                corpus_attributes, n_attributes)

SENTENCE = "我爱北京天"

# Written out by hand, position by position, padding included.
F1 = [
    ["<P>=C-1", "我=C0", "爱=C1", "<P>我=C-1:0", "我爱=C0:1"],
    ["我=C-1", "爱=C0", "北=C1", "我爱=C-1:0", "爱北=C0:1"],
    ["爱=C-1", "北=C0", "京=C1", "爱北=C-1:0", "北京=C0:1"],
    ["北=C-1", "京=C0", "天=C1", "北京=C-1:0", "京天=C0:1"],
    ["京=C-1", "天=C0", "<P>=C1", "京天=C-1:0", "天<P>=C0:1"],
]

F2 = [
    ["<P>=C-2", "<P>=C-1", "我=C0", "爱=C1", "北=C2",
     "<P><P>=C-2:-1", "<P>我=C-1:0", "我爱=C0:1", "爱北=C1:2"],
    ["<P>=C-2", "我=C-1", "爱=C0", "北=C1", "京=C2",
     "<P>我=C-2:-1", "我爱=C-1:0", "爱北=C0:1", "北京=C1:2"],
    ["我=C-2", "爱=C-1", "北=C0", "京=C1", "天=C2",
     "我爱=C-2:-1", "爱北=C-1:0", "北京=C0:1", "京天=C1:2"],
    ["爱=C-2", "北=C-1", "京=C0", "天=C1", "<P>=C2",
     "爱北=C-2:-1", "北京=C-1:0", "京天=C0:1", "天<P>=C1:2"],
    ["北=C-2", "京=C-1", "天=C0", "<P>=C1", "<P>=C2",
     "北京=C-2:-1", "京天=C-1:0", "天<P>=C0:1", "<P><P>=C1:2"],
]

F3 = [
    ["<P>=C-2", "<P>=C-1", "我=C0", "爱=C1", "北=C2",
     "<P><P>=C-2:-1", "<P>我=C-1:0", "我爱=C0:1", "爱北=C1:2",
     "<P><P>我=C-2:0", "<P>我爱=C-1:1", "我爱北=C0:2"],
    ["<P>=C-2", "我=C-1", "爱=C0", "北=C1", "京=C2",
     "<P>我=C-2:-1", "我爱=C-1:0", "爱北=C0:1", "北京=C1:2",
     "<P>我爱=C-2:0", "我爱北=C-1:1", "爱北京=C0:2"],
    ["我=C-2", "爱=C-1", "北=C0", "京=C1", "天=C2",
     "我爱=C-2:-1", "爱北=C-1:0", "北京=C0:1", "京天=C1:2",
     "我爱北=C-2:0", "爱北京=C-1:1", "北京天=C0:2"],
    ["爱=C-2", "北=C-1", "京=C0", "天=C1", "<P>=C2",
     "爱北=C-2:-1", "北京=C-1:0", "京天=C0:1", "天<P>=C1:2",
     "爱北京=C-2:0", "北京天=C-1:1", "京天<P>=C0:2"],
    ["北=C-2", "京=C-1", "天=C0", "<P>=C1", "<P>=C2",
     "北京=C-2:-1", "京天=C-1:0", "天<P>=C0:1", "<P><P>=C1:2",
     "北京天=C-2:0", "京天<P>=C-1:1", "天<P><P>=C0:2"],
]


@pytest.mark.parametrize("template, expected", [("F1", F1), ("F2", F2), ("F3", F3)])
def test_hand_written_attributes(template, expected):
    assert attributes(SENTENCE, template) == expected


def test_single_character_is_all_padding_around():
    assert attributes("好", "F1") == [["<P>=C-1", "好=C0", "<P>=C1", "<P>好=C-1:0", "好<P>=C0:1"]]
    assert attributes("好", "F3") == [[
        "<P>=C-2", "<P>=C-1", "好=C0", "<P>=C1", "<P>=C2",
        "<P><P>=C-2:-1", "<P>好=C-1:0", "好<P>=C0:1", "<P><P>=C1:2",
        "<P><P>好=C-2:0", "<P>好<P>=C-1:1", "好<P><P>=C0:2"]]


def test_offset_is_part_of_the_name():
    # the same character seen at different offsets gives different attributes
    a = attributes("中中中", "F2")[1]
    assert {"中=C-1", "中=C0", "中=C1"} <= set(a)
    assert len(set(a)) == len(a)


@pytest.mark.parametrize("template", TEMPLATES)
def test_empty_sentence(template):
    assert attributes("", template) == []


def test_unknown_template():
    with pytest.raises(ValueError, match="unknown feature template 'F4'"):
        attributes("我", "F4")
    with pytest.raises(ValueError, match="F1, F2, F3"):
        corpus_attributes(["我"], "f2")
    with pytest.raises(ValueError):
        check_template("")


def test_corpus_attributes_is_per_sentence():
    sents = ["我爱北京天", "", "好"]
    assert corpus_attributes(sents, "F2") == [attributes(s, "F2") for s in sents]


def test_pad_constant():
    assert PAD == "<P>"
    assert [n_attributes(t) for t in TEMPLATES] == [5, 9, 12]


HAN = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40), max_size=12)


@given(HAN)
def test_properties(chars):
    f1, f2, f3 = (attributes(chars, t) for t in TEMPLATES)
    assert len(f1) == len(f2) == len(f3) == len(chars)
    for i, c in enumerate(chars):
        # F1 is contained in F2, which is the first part of F3
        assert set(f1[i]) <= set(f2[i])
        assert f3[i][:9] == f2[i]
        assert f2[i][2] == f"{c}=C0"
        # the window seen from position i is the one seen from i - 1, shifted
        if i:
            assert f2[i][1] == f"{chars[i - 1]}=C-1"
            assert f2[i - 1][7].rsplit("=", 1)[0] == f2[i][6].rsplit("=", 1)[0]
