"""Entity tags and schemes (committee/corpus/entities.py, docs/corpora.md).

Golden values worked by hand for each function, then property tests
against seqeval, the independent oracle (a test-only dependency that the
module ports and never imports): the default mode against
``get_entities``, the strict mode against ``Entities`` with the scheme's
class, and precision, recall and F1 over a corpus against seqeval's
scores in both modes.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee.corpus import Corpus
from committee.corpus.entities import (MODES, SCHEMES, bioes, breaks, char_entities, chunks,
                                       detect_scheme, entities, ill_formed, is_tag, split_tag,
                                       strict_chunks)

seqeval = pytest.importorskip("seqeval", reason="seqeval (the test extra) is the oracle of entity scoring")
from seqeval import metrics as sm  # noqa: E402
from seqeval.metrics.sequence_labeling import get_entities  # noqa: E402
from seqeval.scheme import IOB1, IOB2, IOBES, Entities  # noqa: E402

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)

TYPES = ("PER", "LOC")
ALL_TAGS = ["O"] + [f"{p}-{t}" for t in TYPES for p in "BIES"]
IOB_TAGS = ["O"] + [f"{p}-{t}" for t in TYPES for p in "BI"]
ORACLE_SCHEMES = {"IOB1": IOB1, "IOB2": IOB2, "IOBES": IOBES}
SCHEME_TAGS = {"IOB1": IOB_TAGS, "IOB2": IOB_TAGS, "IOBES": ALL_TAGS}


def tag_lists(tags, max_size=12):
    return st.lists(st.sampled_from(tags), max_size=max_size)


# ------------------------------------------------------------------ by hand


def test_constants():
    assert SCHEMES == ("IOB1", "IOB2", "IOBES", "BMES")
    assert MODES == ("default", "strict")


@pytest.mark.parametrize("tag, want", [
    ("B-PER", ("B", "PER")), ("I-LOC", ("I", "LOC")), ("E-ORG", ("E", "ORG")),
    ("S-X", ("S", "X")), ("M-GPE", ("M", "GPE")), ("O", ("O", "")),
    ("B-PER-NAM", ("B", "PER-NAM")), ("I-人名", ("I", "人名")),
])
def test_split_tag(tag, want):
    assert is_tag(tag)
    assert split_tag(tag) == want


@pytest.mark.parametrize("tag", ["PER", "B", "O-PER", "b-per", "B-", "X-PER", "B_PER", "o", "",
                                 "B- PER", "B--PER", "B-PER-"])
def test_not_tags(tag):
    assert not is_tag(tag)
    with pytest.raises(ValueError, match=r"is not O or B-/I-/E-/S-/M- followed by a type"):
        split_tag(tag)


@pytest.mark.parametrize("tags, want", [
    ([], []),
    (["O", "O"], []),
    (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 2), ("LOC", 3, 4)]),
    # IOB1: I starts, B splits two adjacent entities of one type
    (["I-PER", "I-PER", "B-PER", "O", "I-LOC"], [("PER", 0, 2), ("PER", 2, 3), ("LOC", 4, 5)]),
    # IOB2 with a stray I: conlleval reads it as an entity
    (["O", "I-PER", "I-PER"], [("PER", 1, 3)]),
    # a change of type ends and starts
    (["B-PER", "I-LOC", "I-LOC"], [("PER", 0, 1), ("LOC", 1, 3)]),
    # IOBES
    (["S-PER", "B-LOC", "I-LOC", "E-LOC", "O"], [("PER", 0, 1), ("LOC", 1, 4)]),
    (["E-PER", "E-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["B-PER", "B-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["S-PER", "I-PER"], [("PER", 0, 1), ("PER", 1, 2)]),
    (["B-PER", "I-PER"], [("PER", 0, 2)]),  # open at the sentence's end: still an entity
    # BMES: M is I
    (["B-ORG", "M-ORG", "M-ORG", "E-ORG"], [("ORG", 0, 4)]),
    (["M-PER", "B-PER", "E-PER"], [("PER", 0, 1), ("PER", 1, 3)]),
])
def test_chunks_by_hand(tags, want):
    assert chunks(tags) == want


def test_chunks_m_differs_from_seqeval_on_purpose():
    # seqeval knows no M-: "M-PER B-PER" loses the first chunk there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert get_entities(["M-PER", "B-PER", "E-PER"]) == [("PER", 1, 2)]
    assert chunks(["M-PER", "B-PER", "E-PER"]) == [("PER", 0, 1), ("PER", 1, 3)]


@pytest.mark.parametrize("tags, scheme, want", [
    (["B-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG"], "IOB2", [("PER", 0, 2), ("LOC", 4, 5)]),
    (["O", "I-PER", "I-PER"], "IOB2", []),
    (["B-PER", "I-LOC"], "IOB2", [("PER", 0, 1)]),
    (["I-PER", "I-PER", "B-PER", "O", "I-LOC"], "IOB1", [("PER", 0, 2), ("PER", 2, 3), ("LOC", 4, 5)]),
    (["B-PER", "I-PER", "O"], "IOBES", []),
    (["B-PER", "I-PER", "S-LOC", "B-ORG", "E-ORG"], "IOBES", [("LOC", 2, 3), ("ORG", 3, 5)]),
    (["O", "I-PER", "E-PER", "S-PER"], "IOBES", [("PER", 3, 4)]),
    (["B-PER", "M-PER", "E-PER", "S-LOC"], "BMES", [("PER", 0, 3), ("LOC", 3, 4)]),
    ([], "IOB2", []),
])
def test_strict_chunks_by_hand(tags, scheme, want):
    assert strict_chunks(tags, scheme) == want


def test_strict_chunks_refuses_other_schemes_tags():
    with pytest.raises(ValueError, match=r"tag 'E-PER' is not a tag of IOB2"):
        strict_chunks(["B-PER", "E-PER"], "IOB2")
    with pytest.raises(ValueError, match=r"unknown scheme 'BIO'"):
        strict_chunks(["B-PER"], "BIO")


@pytest.mark.parametrize("sequences, want", [
    ([["B-PER", "I-PER", "O"], ["B-LOC"]], "IOB2"),
    ([["O"], []], "IOB2"),
    ([], "IOB2"),
    ([["I-PER", "I-PER", "B-PER"], ["O", "I-LOC"]], "IOB1"),
    ([["I-PER", "B-PER", "I-LOC"]], "IOB1"),  # two I start entities, B only splits
    ([["B-PER", "I-LOC"]], "IOB2"),  # one B and one I start entities: a tie is IOB2
    # an IOB2 tagger's output with one stray I: still IOB2
    ([["B-PER", "I-PER"], ["B-LOC"], ["O", "I-LOC"]], "IOB2"),
    ([["B-PER", "E-PER"]], "IOBES"),
    ([["S-PER"], ["I-LOC"]], "IOBES"),
    ([["S-PER"], ["M-LOC"]], "BMES"),
])
def test_detect_scheme(sequences, want):
    assert detect_scheme(sequences) == want


@pytest.mark.parametrize("tags, scheme, want", [
    (["B-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC", "I-PER"], "IOB2", [3, 6]),
    (["I-PER"], "IOB2", [0]),
    (["B-PER", "S-LOC"], "IOB2", [1]),
    (["I-PER", "B-PER", "O", "B-LOC", "I-LOC", "B-PER"], "IOB1", [3, 5]),
    (["I-PER", "I-LOC", "B-LOC"], "IOB1", []),
    (["B-PER", "E-PER", "S-LOC", "O"], "IOBES", []),
    (["B-PER", "O"], "IOBES", [1]),
    (["B-PER", "S-PER"], "IOBES", [1]),
    (["O", "I-PER", "E-PER"], "IOBES", [1]),
    (["O", "E-PER"], "IOBES", [1]),
    (["B-PER", "I-PER"], "IOBES", [1]),
    (["B-PER", "I-LOC", "E-LOC"], "IOBES", [1]),
    (["B-PER", "M-PER", "E-PER", "M-LOC"], "BMES", [3]),
])
def test_ill_formed(tags, scheme, want):
    assert ill_formed(tags, scheme) == want


def test_breaks_say_how():
    assert breaks(["O", "I-PER", "B-LOC", "I-LOC"], "IOB2") == [(1, "'I-PER' after 'O'")]
    assert breaks(["I-PER"], "IOB2") == [(0, "'I-PER' at the start of the sentence")]
    assert breaks(["O", "B-PER"], "IOBES") == [(1, "'B-PER' ends the sentence")]
    assert breaks(["S-PER"], "IOB1") == [(0, "'S-PER' is not a tag of IOB1")]


def test_bioes_by_hand():
    assert bioes(0, []) == []
    assert bioes(3, []) == ["O", "O", "O"]
    assert bioes(7, [(5, 7, "LOC"), (0, 1, "PER"), (1, 4, "ORG")]) == [
        "S-PER", "B-ORG", "I-ORG", "E-ORG", "O", "B-LOC", "E-LOC"]


@pytest.mark.parametrize("n, spans, match", [
    (3, [(0, 2, "PER"), (1, 3, "LOC")], r"span \(1, 3, 'LOC'\) overlaps \(0, 2, 'PER'\)"),
    (3, [(0, 2, "PER"), (0, 2, "LOC")], r"overlaps"),
    (3, [(2, 4, "PER")], r"span \(2, 4, 'PER'\) is empty or outside the 3 tokens"),
    (3, [(-1, 1, "PER")], r"outside"),
    (3, [(1, 1, "PER")], r"empty"),
    (3, [(0, 1, "")], r"type '' makes no tag"),
])
def test_bioes_refuses(n, spans, match):
    with pytest.raises(ValueError, match=match):
        bioes(n, spans)


def test_char_entities_by_hand():
    words = ["江泽民", "访问", "了", "北京", "大学"]
    assert char_entities(words, ["S-PER", "O", "O", "B-ORG", "E-ORG"]) == [(0, 3, "PER"), (6, 10, "ORG")]
    assert char_entities(list("去北京"), ["O", "I-LOC", "I-LOC"]) == [(1, 3, "LOC")]
    assert char_entities(list("去北京"), ["O", "I-LOC", "I-LOC"], mode="strict", scheme="IOB2") == []
    assert char_entities(list("去北京"), ["O", "I-LOC", "I-LOC"], mode="strict") == [(1, 3, "LOC")]  # IOB1
    with pytest.raises(ValueError, match="2 tokens but 1 tags"):
        char_entities(["a", "b"], ["O"])
    with pytest.raises(ValueError, match="unknown mode 'lenient'"):
        char_entities(["a"], ["O"], mode="lenient")


def test_entities_of_a_corpus():
    c = Corpus("g.bio", [["江", "泽", "民", "好"], ["北京", "大学"], []], [1, 6, 9],
               tags=[["B-PER", "I-PER", "I-PER", "O"], ["O", "I-ORG"], []])
    assert entities(c) == [[(0, 3, "PER")], [(2, 4, "ORG")], []]
    # detected over the corpus: IOB2 (one B starts an entity, one I does), so I-ORG is none
    assert entities(c, mode="strict") == [[(0, 3, "PER")], [], []]
    # seqeval's IOB1: B-PER after O starts nothing, and the I-PER after it starts the entity
    assert entities(c, mode="strict", scheme="IOB1") == [[(1, 3, "PER")], [(2, 4, "ORG")], []]
    with pytest.raises(ValueError, match="no entity tags"):
        entities(Corpus("s.txt", [["a"]], [1]))


# ------------------------------------------------------------ properties


@st.composite
def spans_of(draw, max_n=15):
    """A length and non-overlapping spans within it, in random order."""
    n = draw(st.integers(0, max_n))
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=10))))
    spans = [(a, b, draw(st.sampled_from(TYPES))) for a, b in zip(cuts, cuts[1:]) if draw(st.booleans())]
    return n, draw(st.permutations(spans))


@SETTINGS
@given(spans_of())
def test_bioes_round_trip(case):
    n, spans = case
    tags = bioes(n, spans)
    want = [(t, a, b) for a, b, t in sorted(spans)]
    assert len(tags) == n
    assert chunks(tags) == want
    assert strict_chunks(tags, "IOBES") == want
    assert ill_formed(tags, "IOBES") == []
    assert detect_scheme([tags]) == ("IOBES" if spans else "IOB2")


def _oracle_default(tags):
    return sorted((t, a, b + 1) for t, a, b in get_entities(list(tags)))


def _oracle_strict(tags, scheme):
    return sorted((e.tag, e.start, e.end) for e in Entities([list(tags)], ORACLE_SCHEMES[scheme]).entities[0])


@SETTINGS
@given(tag_lists(ALL_TAGS))
def test_chunks_equal_seqeval_default(tags):
    assert sorted(chunks(tags)) == _oracle_default(tags)


@SETTINGS
@given(tag_lists(ALL_TAGS))
def test_chunks_read_m_as_i(tags):
    bmes = [f"M-{t[2:]}" if t.startswith("I-") else t for t in tags]
    assert chunks(bmes) == chunks(tags)
    assert strict_chunks(bmes, "BMES") == strict_chunks(tags, "IOBES")


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOBES"])
@SETTINGS
@given(data=st.data())
def test_strict_chunks_equal_seqeval_strict(scheme, data):
    tags = data.draw(tag_lists(SCHEME_TAGS[scheme]))
    assert sorted(strict_chunks(tags, scheme)) == _oracle_strict(tags, scheme)


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOBES"])
@SETTINGS
@given(data=st.data())
def test_well_formed_sequences_read_alike_in_both_modes(scheme, data):
    """Where a sequence breaks nothing of its scheme, the strict mode and the
    conlleval rules find the same entities; where the modes differ, the
    sequence is ill-formed."""
    tags = data.draw(tag_lists(SCHEME_TAGS[scheme]))
    if not ill_formed(tags, scheme):
        assert strict_chunks(tags, scheme) == chunks(tags)
    if strict_chunks(tags, scheme) != chunks(tags):
        assert ill_formed(tags, scheme)


@st.composite
def gold_pred(draw, tags):
    lengths = draw(st.lists(st.integers(0, 8), min_size=1, max_size=6))
    gold = [draw(st.lists(st.sampled_from(tags), min_size=k, max_size=k)) for k in lengths]
    pred = [draw(st.lists(st.sampled_from(tags), min_size=k, max_size=k)) for k in lengths]
    return gold, pred


def _prf(gold_chunks, pred_chunks):
    """Micro precision, recall and F1 over sets of (sentence, type, start, end)."""
    gold = {(k, *c) for k, cs in enumerate(gold_chunks) for c in cs}
    pred = {(k, *c) for k, cs in enumerate(pred_chunks) for c in cs}
    tp = len(gold & pred)
    p, r = tp / len(pred), tp / len(gold)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _seqeval_prf(gold, pred, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (sm.precision_score(gold, pred, **kw), sm.recall_score(gold, pred, **kw),
                sm.f1_score(gold, pred, **kw))


@SETTINGS
@given(gold_pred(ALL_TAGS))
def test_scores_equal_seqeval_default(case):
    gold, pred = case
    g, p = [chunks(s) for s in gold], [chunks(s) for s in pred]
    if not any(g) or not any(p):
        return  # seqeval's scores are undefined there
    assert _prf(g, p) == pytest.approx(_seqeval_prf(gold, pred), abs=1e-9)


@pytest.mark.parametrize("scheme", ["IOB1", "IOB2", "IOBES"])
@SETTINGS
@given(data=st.data())
def test_scores_equal_seqeval_strict(scheme, data):
    gold, pred = data.draw(gold_pred(SCHEME_TAGS[scheme]))
    g, p = [strict_chunks(s, scheme) for s in gold], [strict_chunks(s, scheme) for s in pred]
    if not any(g) or not any(p):
        return
    want = _seqeval_prf(gold, pred, mode="strict", scheme=ORACLE_SCHEMES[scheme])
    assert _prf(g, p) == pytest.approx(want, abs=1e-9)


@SETTINGS
@given(gold_pred(ALL_TAGS))
def test_corpus_entities_are_the_chunks_in_characters(case):
    gold, _ = case
    words = [[c * (1 + i % 2) for i, c in enumerate("abcdefgh"[:len(s)])] for s in gold]
    corpus = Corpus("g.bio", words, list(range(1, len(gold) + 1)), tags=gold)
    got = entities(corpus)
    for ws, ts, es in zip(words, gold, got):
        text = "".join(ws)
        assert [text[a:b] for a, b, _ in es] == ["".join(ws[a:b]) for _, a, b in chunks(ts)]
        assert [t for _, _, t in es] == [t for t, _, _ in chunks(ts)]
