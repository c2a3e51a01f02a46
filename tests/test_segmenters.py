"""committee.segmenters and ``committee segment``: adapters, the character check,
and a clear refusal when a segmenter is missing."""

from __future__ import annotations

import builtins
import importlib.util
import sys

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


#: An adapter module: its TOOL record (committee/segmenters/adapters/<name>.py).
TOY_ADAPTER = """\
from committee.segmenters.base import Segmenter, Tool

TOOL = Tool(name="{name}", order={order}, module="json", extra="{name}",
            loader=lambda: Segmenter("{name}", "1", list), about="one word a character",
            licence="MIT")
"""


def _adapters(tmp_path, monkeypatch, **modules: str) -> str:
    """A package of adapter modules (name -> source) importable as ``toyadapters``."""
    package = tmp_path / "toyadapters"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in modules.items():
        (package / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] == "toyadapters"]:
        monkeypatch.delitem(sys.modules, name)
    return "toyadapters"


def test_the_registry_finds_every_adapter_module_in_its_order(tmp_path, monkeypatch):
    from committee.segmenters import registry

    package = _adapters(tmp_path, monkeypatch, chars=TOY_ADAPTER.format(name="chars", order=5),
                        words=TOY_ADAPTER.format(name="words", order=1))
    assert [t.name for t in registry.tools_in(package)] == ["words", "chars"]
    package = _adapters(tmp_path, monkeypatch, helper="X = 1\n")
    with pytest.raises(TypeError, match="toyadapters.helper: no TOOL record"):
        registry.tools_in(package)
    package = _adapters(tmp_path, monkeypatch, helper=TOY_ADAPTER.format(name="chars", order=9))
    with pytest.raises(TypeError, match="two tools of one name"):
        registry.tools_in(package)


def test_the_table_of_docs_segmenters_md_is_the_registrys():
    from committee.segmenters.__main__ import DOC, with_table

    text = DOC.read_text(encoding="utf-8")
    assert with_table(text) == text, "run python -m committee.segmenters --write"
    assert with_table(text.replace("| MIT |", "| GPL |", 1)) == text


def test_a_segmenter_declared_once_is_everywhere(monkeypatch, tmp_path):
    """One adapter module, its Tool record found by the registry: --with, the
    config's experiments.segmenters, the help texts, install hints, load()
    and the table of docs/segmenters.md follow."""
    from committee.cli.options import segmenter_names
    from committee.config import load_config
    from committee.segmenters import registry

    package = _adapters(tmp_path, monkeypatch, chars=TOY_ADAPTER.format(name="chars", order=5))
    toy, = registry.tools_in(package)
    monkeypatch.setitem(segmenters.SEGMENTERS, "chars", toy)
    assert "| `chars` | `[chars]` | one word a character | MIT |" in registry.table()
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
