"""Each analysis of the report on a hand-built run: five words, four members."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from committee import corpus as corpus_mod
from committee import metrics
from committee import config
from committee.config import parse_config
from committee.report import ANALYSES, REGISTRY, Context, RunData, System
from committee.report.analyses import by_name
from committee.report.systems import score

pytest.importorskip("matplotlib")

WORDS = [["我", "爱", "北京"], ["你", "好"]]
#: m_ki by hand: rows are members, columns the five words
MARKS = np.array([[1, 1, 1, 1, 1],
                  [1, 1, 0, 1, 1],
                  [1, 0, 0, 1, 0],
                  [1, 1, 0, 0, 0]], dtype=bool)
#: d = share of members wrong: 0/4, 1/4, 3/4, 1/4, 2/4
D = np.array([0.0, 0.25, 0.75, 0.25, 0.5])


@pytest.fixture
def ctx(tmp_path):
    corpus_mod.write_sighan(tmp_path / "test.txt", WORDS)
    test = corpus_mod.read_corpus(tmp_path / "test.txt")
    n_correct = MARKS.sum(axis=0)
    data = RunData(tmp_path, test, D, n_correct, None, MARKS, None, {"name": "hand"})
    cfg = parse_config({
        "name": "hand",
        "corpus": {"train": {"builtin": "peoples-daily-1998", "split": "train"},
                   "test": {"builtin": "peoples-daily-1998", "split": "test"}},
        "committee": {"size": 4},
        "output": {"dir": str(tmp_path)},
        "experiments": {"word_weight_sentences": [0], "stability_sizes": [1, 2, 4]},
    }, check_paths=False)
    (tmp_path / "report").mkdir()
    return Context(cfg, data, tmp_path / "report")


def test_every_analysis_is_registered_once():
    assert {a.name for a in REGISTRY} == set(config.ANALYSES)
    assert ANALYSES is config.ANALYSES  # one tuple, one name


def test_word_weights(ctx):
    text = by_name("word_weights").function(ctx)
    assert "我<sub>0.00</sub> 爱<sub>0.25</sub> 北京<sub>0.75</sub>" in text
    assert "mean d = 0.33" in text
    table = pd.read_csv(ctx.out_dir / "fig7-word-weights.csv")
    assert table["word"].tolist() == ["我", "爱", "北京"]
    assert table["d"].tolist() == [0.0, 0.25, 0.75]
    assert ctx.figures == ["fig7-word-weights.png"]


def test_word_weights_refuses_a_sentence_that_does_not_exist(ctx):
    from committee.errors import ConfigError

    ctx.cfg = ctx.cfg.model_copy(update={"experiments": ctx.cfg.experiments.model_copy(
        update={"word_weight_sentences": (2,)})})
    with pytest.raises(ConfigError, match="word_weight_sentences: \\[2\\] do not exist"):
        by_name("word_weights").function(ctx)


def test_bins_with_a_perfect_system(ctx):
    gold = System("gold", "system", WORDS)
    score([gold], metrics.Collector(ctx.data.test, difficulty=D), ctx.data.test,
          metrics.make_signature(ctx.data.test.words, difficulty=D))
    ctx.others = [gold]
    text = by_name("bins").function(ctx)
    assert text.startswith("## Fig. 4")
    table = pd.read_csv(ctx.out_dir / "fig4-recall-by-bin.csv")
    # bins of 0, .25, .75, .25, .5
    assert table["gold_words"].tolist() == [1, 0, 2, 0, 0, 1, 0, 1, 0, 0]
    assert (table["gold"].dropna() == 1.0).all() and table["gold"].notna().sum() == 4


def test_bins_and_ranking_need_a_system(ctx):
    assert by_name("bins").function(ctx) is None
    assert by_name("ranking").function(ctx) is None
    assert ctx.figures == []


def test_stability_full_committee_agrees_with_itself(ctx):
    text = by_name("stability").function(ctx)
    table = pd.read_csv(ctx.out_dir / "fig1-committee-size.csv")
    assert table["size"].tolist() == [1, 2, 4]
    last = table.iloc[-1]
    assert last["mean_abs_diff"] == 0.0 and last["pearson"] == pytest.approx(1.0)
    # the first member alone gets every word right: |0 - d| averages to mean(D)
    assert table.iloc[0]["mean_abs_diff"] == pytest.approx(D.mean())
    assert "Fig. 1" in text


def test_table2_without_models(ctx):
    assert by_name("table2").function(ctx) == "## Table 2\n\nNo Table 2 model.\n"


def _with_idioms(ctx, tmp_path, words):
    (tmp_path / "idioms.txt").write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
    ctx.cfg = ctx.cfg.model_copy(update={"experiments": ctx.cfg.experiments.model_copy(
        update={"idioms": str(tmp_path / "idioms.txt")})})


def test_linguistic_says_a_corpus_has_no_idioms(ctx, tmp_path):
    """An idiom list none of whose words is in the test set: no idioms row
    (no `0 | nan | –`), no idioms column, and the section says so."""
    _with_idioms(ctx, tmp_path, ["一举两得"])
    text = by_name("linguistic").function(ctx)
    assert "no idioms in this corpus" in text
    assert "nan" not in text and "| idioms |" not in text
    table = pd.read_csv(ctx.out_dir / "fig2-linguistic.csv")
    assert not any(c.startswith("idioms") for c in table.columns)
    # the one 2-character word is 北京 (d = 0.75)
    assert "| 2-character words | 1 | 0.750 |" in text


def test_linguistic_counts_the_idioms_there_are(ctx, tmp_path):
    _with_idioms(ctx, tmp_path, ["北京", "一举两得"])
    text = by_name("linguistic").function(ctx)
    assert "| idioms | 1 | 0.750 | 100.0 |" in text and "no idioms" not in text


def test_buckets_by_hand(ctx):
    # gold 我 爱 北京 | 你 好 (d 0, .25, .75, .25, .5); the output merges 我爱
    out = System("merge", "system", [["我爱", "北京"], ["你", "好"]])
    ctx.others = [out]
    text = by_name("buckets").function(ctx)
    assert text.startswith("## Results by word attribute")
    length = pd.read_csv(ctx.out_dir / "buckets-length.csv", keep_default_na=False,
                         na_values=[""])
    # gold: 1-character 我 爱 你 好 (你 好 right), 2-character 北京 (right)
    assert length["bucket"].tolist() == ["1", "2", "3", "4+"]
    assert length["gold_words"].tolist() == [4, 1, 0, 0]
    assert length["merge recall"].tolist()[:2] == [0.5, 1.0]
    assert length["merge recall low"].notna().sum() >= 2  # intervals from 200 resamples
    difficulty = pd.read_csv(ctx.out_dir / "buckets-difficulty.csv")
    # [0,.2): 我 ✗; [.2,.4): 爱 ✗, 你 ✓; [.4,.6): 好 ✓; [.6,.8): 北京 ✓
    assert difficulty["gold_words"].tolist() == [1, 2, 1, 1, 0]
    assert difficulty["merge recall"].tolist()[:4] == [0.0, 0.5, 1.0, 1.0]
    # no training vocabulary in this run: no oov buckets
    assert not (ctx.out_dir / "buckets-oov.csv").exists()
    assert ctx.figures == ["buckets-length.png", "buckets-sentence.png",
                           "buckets-difficulty.png"]
