"""The adapters of committee.segmenters over PyPI packages: each loads and
segments offline with the model inside its package, gives back every
character, and prints nothing on standard output.  An adapter whose package
is not installed skips, saying how to install it."""

from __future__ import annotations

import functools
import importlib.util
import socket

import pytest

from committee import corpus, segmenters

SENTENCES = ["迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）",
             "中共中央总书记、国家主席江泽民", "", "１２月３１日，ＡＢＣ公司发布了2.5版。"]

#: name -> the words every adapter agrees on for SENTENCES[1]
AGREED = ["中共中央", "总书记", "、"]


#: each model loaded once (the offline test, which comes first, loads it)
_load = functools.lru_cache(maxsize=None)(segmenters.load)


def _installed(name):
    module = segmenters.SEGMENTERS[name].module
    reason = f"{name} not installed ({segmenters.install_hint(name)})"
    marks = [pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=reason)]
    if name == "jiojio":  # ~20-40 s to load its model
        marks.append(pytest.mark.slow)
    return pytest.param(name, marks=marks, id=name)


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a network connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access while offline: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")


@pytest.mark.parametrize("name", [_installed(n) for n in
                                  ("pkuseg", "lac", "rjieba", "jiojio", "thulac", "jieba")])
def test_an_adapter_segments_offline_and_keeps_every_character(name, offline, capfd):
    seg = _load(name)
    words = segmenters.segment(seg, SENTENCES)
    assert ["".join(w) for w in words] == SENTENCES
    assert words[1][:3] == AGREED and words[2] == []
    assert seg.name == name and seg.version not in ("", "unknown")
    assert capfd.readouterr().out == ""


@pytest.mark.parametrize("name", [_installed(n) for n in ("pkuseg", "lac", "rjieba")])
def test_an_adapter_segments_people_daily_well(name):
    """On 60 sentences of the embedded test split, word F1 at least 0.75."""
    from committee import metrics

    test = corpus.read_embedded()
    gold = corpus.Corpus("gold", test.words[-60:], list(range(1, 61)))
    pred = segmenters.segment(_load(name), ["".join(s) for s in gold.words])
    f1 = metrics.compute(metrics.collect(gold, corpus.Corpus(name, pred, gold.lines)))["f1"]
    assert f1 >= 0.75


def test_pkuseg_is_offered_with_its_two_step_install():
    assert segmenters.name_problem("pkuseg") is None
    assert segmenters.install_hint("pkuseg") == (
        "pip install 'committee[pkuseg]' && pip install --no-build-isolation pkuseg==0.0.25")
    assert segmenters.install_hint("lac") == "pip install 'committee[lac]'"
