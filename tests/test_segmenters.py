"""committee.segmenters and ``committee segment``: adapters, the character check,
and a clear refusal when a segmenter is missing."""

from __future__ import annotations

import builtins
import importlib.util

import pytest

from committee import cli, corpus, segmenters
from committee.errors import InputError
from committee.segmenters import Segmenter, SegmenterUnavailable

HAVE_JIEBA = importlib.util.find_spec("jieba") is not None


def test_segment_keeps_words_and_drops_whitespace_tokens():
    seg = Segmenter("toy", "0", lambda t: [t[:2], " ", t[2:]])
    assert segmenters.segment(seg, ["约翰喜欢玛丽", ""]) == [["约翰", "喜欢玛丽"], []]


def test_a_segmenter_that_changes_characters_is_refused():
    seg = Segmenter("t2s", "0", lambda t: [t.replace("約", "约")])
    with pytest.raises(InputError, match=r"test.txt:3: t2s changed the characters at "
                                         r"character 1: its output has '约' where the text has '約'$"):
        segmenters.segment(seg, ["約翰"], "test.txt", [3])


def test_unknown_and_missing_segmenters_say_what_to_do(monkeypatch):
    with pytest.raises(SegmenterUnavailable, match="unknown segmenter; available: jieba"):
        segmenters.load("hanlp")
    real_import = builtins.__import__

    def no_thulac(name, *args, **kwargs):
        if name == "thulac" or name.startswith("thulac."):
            raise ImportError("No module named 'thulac'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_thulac)
    monkeypatch.setattr(importlib, "import_module", lambda n: no_thulac(n))
    with pytest.raises(SegmenterUnavailable, match=r"pip install 'committee\[thulac\]'"):
        segmenters.load("thulac")


def test_cli_segment_missing_segmenter_exits_3(tmp_path, monkeypatch, capsys):
    test = tmp_path / "test.txt"
    test.write_text("约翰  喜欢  玛丽\n", encoding="utf-8")

    def unavailable(name, **_):
        raise SegmenterUnavailable(f"{name}: not installed; install it with: "
                                   f"pip install 'committee[{name}]'")

    monkeypatch.setattr(segmenters, "load", unavailable)
    code = cli.main(["segment", "--with", "jieba", str(test), "-o", str(tmp_path / "out.txt")])
    assert code == 3
    assert "pip install 'committee[jieba]'" in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()


def test_cli_segment_writes_aligned_sighan(tmp_path, monkeypatch):
    test = tmp_path / "test.txt"
    test.write_text("约翰  喜欢  玛丽\n\n计算机  总是  有  问题\n", encoding="utf-8")
    monkeypatch.setattr(segmenters, "load",
                        lambda name, **_: Segmenter(name, "0", lambda t: [
                            t[i:i + 2] for i in range(0, len(t), 2)]))
    out = tmp_path / "out.txt"
    assert cli.main(["segment", "--with", "jieba", str(test), "-o", str(out), "--quiet"]) == 0
    got = corpus.read_corpus(out)
    assert got.words == [["约翰", "喜欢", "玛丽"], [], ["计算", "机总", "是有", "问题"]]


@pytest.mark.skipif(not HAVE_JIEBA, reason="jieba not installed (pip install 'committee[jieba]')")
def test_jieba_segments_people_daily_text():
    seg = segmenters.load("jieba")
    words = segmenters.segment(seg, ["迈向充满希望的新世纪"])
    assert "".join(words[0]) == "迈向充满希望的新世纪"
    assert words[0][0] == "迈向" and seg.version != "unknown"


def test_a_segmenter_declared_once_is_everywhere(monkeypatch, tmp_path):
    """One Tool record in the table: --with, the config's
    experiments.segmenters, the help texts, install hints and load() follow."""
    from committee.cli.options import segmenter_names
    from committee.config import load_config

    toy = segmenters.Tool(name="chars", module="json", extra="chars",
                          loader=lambda: segmenters.Segmenter("chars", "1", list))
    monkeypatch.setitem(segmenters.SEGMENTERS, "chars", toy)
    assert segmenters.name_problem("chars") is None
    assert segmenters.install_hint("chars") == "pip install 'committee[chars]'"
    assert segmenters.load("chars").cut("我爱北京") == ["我", "爱", "北", "京"]
    assert segmenters.tagger_problem("chars") == (
        "not an entity tagger: it segments words and tags no entities")
    assert "chars" in segmenter_names()
    path = tmp_path / "c.yaml"
    path.write_text("name: x\ncorpus: {train: {builtin: peoples-daily-1998, split: train}, "
                    "test: {builtin: peoples-daily-1998, split: test}}\n"
                    "output: {dir: out}\n"
                    "experiments: {ranking: true, segmenters: [chars]}\n", encoding="utf-8")
    assert tuple(load_config(path).experiments.segmenters) == ("chars",)
