"""The public Python API: committee.score, Scorer, Scores, compare, load_difficulty.

Golden values are worked out by hand in the comments; the command-line
equivalence tests run ``committee score --json`` on the same files.
"""

from __future__ import annotations

import hashlib
import json
import struct
import shutil
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import committee
from committee import scoring
from committee.cli import main
from committee.corpus import Corpus, format_sighan
from committee.pipeline.difficulty import load_difficulty, write_weight_c
from committee.errors import UndefinedMetricWarning
from committee.metrics import METRICS
from reference import reference_scores

#: Bootstraps over a handful of sentences are the point of these tests; the
#: warning that they are too few is tested in tests/test_hostile_usage.py.
pytestmark = pytest.mark.filterwarnings(
    "ignore:bootstrap over:committee.errors.PlausibilityWarning")

DATA = Path(__file__).resolve().parent / "data" / "score"
GOLD = [["我", "爱", "北京"]]
OUT = [["我爱", "北京"]]
D = [[0.1, 0.2, 0.9]]


def test_one_call_gives_the_hand_computed_balanced_f():
    # gold 我/爱/北京 with d = .1/.2/.9; output 我爱/北京: only 北京 (d = .9) is right.
    # recall side:    reward .9/1.2 = 3/4, punishment .1/1.8 = 1/18, rb = H = 3/29
    # precision side: d' of 我爱 = d(爱) = .2, of 北京 = .9, so Σd' = 1.1, Σ(1-d') = .9;
    #                 reward .9/1.1 = 9/11, punishment .1/.9 = 1/9, pb = H = 9/46
    # fb = H(9/46, 3/29) = 18/133
    s = committee.score([["我", "爱", "北京"]], [["我爱", "北京"]], difficulty=[[0.1, 0.2, 0.9]])
    assert s.fb == pytest.approx(float(Fraction(18, 133)), abs=1e-12)
    assert s.rb == pytest.approx(3 / 29, abs=1e-12)
    assert s.pb == pytest.approx(9 / 46, abs=1e-12)
    assert (s.p, s.r) == (0.5, 1 / 3)
    assert s.counts == {"n_gold": 3, "n_pred": 2, "n_correct": 1}
    assert s.oov_rate is None  # no vocabulary given: absent, not undefined
    assert s.signature.format().startswith("committee-score|gold:sha256=")
    assert "|difficulty:sha256=" in str(s.signature)


def test_equals_the_command_line_on_the_same_files(tmp_path, capsys):
    (tmp_path / "gold.txt").write_text(format_sighan(GOLD), encoding="utf-8")
    (tmp_path / "out.txt").write_text(format_sighan(OUT), encoding="utf-8")
    (tmp_path / "gold.weight").write_text("0.1 0.2 0.9\n", encoding="utf-8")
    assert main(["score", "--json", "--gold", str(tmp_path / "gold.txt"), "--difficulty",
                 str(tmp_path / "gold.weight"), str(tmp_path / "out.txt")]) == 0
    cli = json.loads(capsys.readouterr().out)
    memory = committee.score(GOLD, OUT, difficulty=D)
    for k in METRICS:
        a, b = getattr(memory, k), cli["systems"][0][k]
        assert (a is None and b is None) or abs(a - b) <= 1e-12, k
    files = committee.score(tmp_path / "gold.txt", tmp_path / "out.txt",
                            difficulty=tmp_path / "gold.weight")
    assert files.signature.format() == cli["signature"]  # same files, same signature
    # in memory: the same words and the same difficulty values, the same signature
    assert memory.signature == files.signature


def test_scorer_reproduces_the_golden_command_output():
    gold_json = json.loads((DATA / "score-bootstrap.json").read_text(encoding="utf-8"))
    scorer = committee.Scorer(DATA / "gold.txt", difficulty=DATA / "gold.weight",
                              train_words=DATA / "train.txt", train_format="sighan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = scorer.score_all([DATA / "out-a.txt", DATA / "out-b.txt"], bootstrap=200,
                                  seed=7)
    result = json.loads(json.dumps(result, ensure_ascii=False))
    for row in result["systems"]:
        row["path"] = Path(row["path"]).name
        assert sum(row.pop("error_types").values()) == 17  # one class per gold word
    # the oov: field is now the checksum of the vocabulary's words (test_score_golden.py)
    words = sorted(set((DATA / "train.txt").read_text(encoding="utf-8").split()))
    oov = hashlib.sha256("".join(w + "\n" for w in words).encode("utf-8")).hexdigest()[:12]
    gold_json["signature"] = gold_json["signature"].replace("oov:words=e6195d6b52ad",
                                                            f"oov:words={oov}")
    # and the difficulty: field the checksum of the values (test_score_golden.py)
    values = [float(v) for v in (DATA / "gold.weight").read_text(encoding="utf-8").split()]
    digest = hashlib.sha256(struct.pack(f"<{len(values)}d", *values)).hexdigest()[:12]
    gold_json["signature"] = gold_json["signature"].replace("difficulty:sha256=4626a5690361",
                                                            f"difficulty:sha256={digest}")
    assert result == gold_json


# --------------------------------------------------------------------------
# every form of every input gives the same scores


def _same(a, b):
    assert {k: getattr(a, k) for k in METRICS} == {k: getattr(b, k) for k in METRICS}
    assert a.recall_by_bin == b.recall_by_bin and a.counts == b.counts


def test_segmentations_from_files_corpora_words_and_strings():
    lines = (DATA / "gold.txt").read_text(encoding="utf-8").splitlines()
    out_lines = (DATA / "out-a.txt").read_text(encoding="utf-8").splitlines()
    words = [s.split() for s in lines]
    reference = committee.score(DATA / "gold.txt", DATA / "out-a.txt")
    for gold in (str(DATA / "gold.txt"), lines, words, [tuple(s) for s in words],
                 committee.read_corpus(DATA / "gold.txt")):
        for out in (DATA / "out-a.txt", out_lines, [s.split() for s in out_lines]):
            s = committee.score(gold, out)
            _same(s, reference)
            assert s.signature == reference.signature


def test_difficulty_from_every_source_is_the_same(tmp_path):
    gold = committee.read_corpus(DATA / "gold.txt")
    per_sentence = [[float(x) for x in line.split()]
                    for line in (DATA / "gold.weight").read_text().splitlines()]
    flat = [x for row in per_sentence for x in row]
    write_weight_c(tmp_path / "gold.weight_c", gold, flat)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copy(DATA / "gold.weight", run_dir / "test.weight")
    for source in (per_sentence, flat, np.array(flat), tuple(flat), DATA / "gold.weight",
                   str(DATA / "gold.weight"), tmp_path / "gold.weight_c", run_dir):
        d = load_difficulty(source, gold)
        assert d.dtype == np.float64 and d.tolist() == flat, source


def test_difficulty_as_a_2d_array_is_per_sentence():
    gold = Corpus("g", [["我", "爱"], ["北京", "好"]], [1, 2])
    assert load_difficulty(np.array([[0.1, 0.2], [0.3, 0.4]]), gold).tolist() == [0.1, 0.2,
                                                                                  0.3, 0.4]


def test_run_directory_signature_is_its_weight_file(tmp_path):
    shutil.copy(DATA / "gold.weight", tmp_path / "test.weight")
    via_dir = committee.score(DATA / "gold.txt", DATA / "out-a.txt", difficulty=tmp_path)
    via_file = committee.score(DATA / "gold.txt", DATA / "out-a.txt",
                               difficulty=DATA / "gold.weight")
    _same(via_dir, via_file)
    assert via_dir.signature == via_file.signature


def test_vocabulary_from_every_source(tmp_path):
    words = (DATA / "train-words.txt").read_text(encoding="utf-8").split()
    by_file = committee.score(DATA / "gold.txt", DATA / "out-a.txt",
                              train_words=DATA / "train-words.txt")
    by_words = committee.score(DATA / "gold.txt", DATA / "out-a.txt", train_words=words)
    _same(by_file, by_words)
    # hand count: 6 of the 17 gold tokens (玛丽 有 问题 天安门 确实 在理) are not in the list
    assert by_file.oov_rate == 6 / 17
    train = committee.read_corpus(DATA / "train.txt")
    by_corpus = committee.score(DATA / "gold.txt", DATA / "out-a.txt", train_words=train)
    by_corpus_file = committee.score(DATA / "gold.txt", DATA / "out-a.txt",
                                     train_words=DATA / "train.txt", train_format="sighan")
    _same(by_corpus, by_corpus_file)
    assert by_corpus.signature == by_corpus_file.signature
    assert by_corpus.oov_rate != by_file.oov_rate  # another vocabulary


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.data())
def test_in_memory_scores_equal_the_reference_implementation(data):
    chars = st.sampled_from("我爱北京天安门")
    sentences = data.draw(st.lists(st.lists(st.text(chars, min_size=1, max_size=3), min_size=1,
                                            max_size=5), min_size=1, max_size=4))
    gold = sentences

    def resegment(sentence):
        text = "".join(sentence)
        cuts = data.draw(st.sets(st.integers(1, max(1, len(text) - 1)))) if len(text) > 1 else set()
        bounds = [0, *sorted(cuts), len(text)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:]) if a < b]

    pred = [resegment(s) for s in gold]
    per_sentence = [[data.draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])) for _ in s] for s in gold]
    vocab = data.draw(st.sets(st.sampled_from(["我", "爱", "北京", "天安门", "我爱"])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = committee.score(gold, [" ".join(s) for s in pred], difficulty=per_sentence,
                              train_words=vocab)
    ref = reference_scores(gold, pred, [x for row in per_sentence for x in row], vocab)
    for k in METRICS:
        a, b = getattr(got, k), ref[k]
        assert (a is None) == (b is None), k
        assert a is None or abs(a - b) <= 1e-12, k


# --------------------------------------------------------------------------
# bad input: typed errors naming where


@pytest.mark.parametrize("output, message", [
    ([["我爱", "北"]], r"<output>:1: characters differ from <gold>:1 at character 4: the "
                      r"output's line ends where the gold has '京'$"),
    ([["我爱", "北京"], ["你好"]], r"<output>: has 2 lines, gold <gold> has 1"),
    ([["我", ""]], r"<output>:1: word '' is empty or contains whitespace"),
    ([["我爱 北京"]], r"<output>:1: word '我爱 北京' is empty or contains whitespace"),
    ([42], r"<output>:1: expected a list of words or a string of words"),
])
def test_misaligned_or_malformed_output_raises_input_error(output, message):
    with pytest.raises(committee.InputError, match=message):
        committee.score(GOLD, output, difficulty=D)


@pytest.mark.parametrize("difficulty, message", [
    ([[0.1, 0.2]], r"<difficulty>:1: has 2 values, gold <gold>:1 has 3 words"),
    ([[0.1, 0.2, 0.9], [0.5]], r"<difficulty>: has 2 sentences, gold <gold> has 1"),
    ([0.1, 0.2], r"<difficulty>: has 2 values, gold <gold> has 3 words"),
    ([[0.1, 0.2, 1.5]], r"<difficulty>:1: value 1.5 at position 3 is not a finite number"),
    ([[0.1, float("nan"), 0.5]], r"<difficulty>:1: value nan at position 2 "),
    ([[0.1, 0.2, 0.9], 0.5], r"<difficulty>: has 2 sentences"),
])
def test_difficulties_that_do_not_fit_raise_input_error(difficulty, message):
    with pytest.raises(committee.InputError, match=message):
        committee.score(GOLD, OUT, difficulty=difficulty)


def test_weight_c_with_two_values_in_one_gold_word_is_refused(tmp_path):
    (tmp_path / "g.weight_c").write_text("0.1 0.2 0.9 0.8\n", encoding="utf-8")
    with pytest.raises(committee.InputError,
                       match=r"g\.weight_c:1: characters of one gold word \(<gold>:1, word 3\)"):
        committee.score(GOLD, OUT, difficulty=tmp_path / "g.weight_c")


def test_missing_files_and_empty_run_directories_name_the_file(tmp_path):
    with pytest.raises(committee.InputError, match="nope.txt"):
        committee.score(tmp_path / "nope.txt", OUT)
    with pytest.raises(committee.InputError, match=r"test\.weight"):
        committee.score(GOLD, OUT, difficulty=tmp_path)


# --------------------------------------------------------------------------
# Scores, Scorer, compare


def test_scores_as_dict_frame_and_text():
    s = committee.score(DATA / "gold.txt", DATA / "out-a.txt", difficulty=DATA / "gold.weight")
    golden = json.loads((DATA / "score.json").read_text(encoding="utf-8"))["systems"][0]
    d = s.to_dict()
    assert list(d) == ["name", "path", *METRICS, "recall_by_bin", "counts", "error_types",
                       "signature"]
    # hand: 有问题 merges two gold words; 的确 merges 的, 实在 and 理 cross 确实 and 在理
    assert s.error_types == {"correct": 12, "split": 0, "merged": 3, "crossed": 2}
    assert d["name"] == "out-a" and d["f1"] == golden["f1"] and d["fb"] == golden["fb"]
    frame = s.to_frame()
    assert frame.index.tolist() == ["out-a"] and frame.columns.tolist() == list(METRICS)
    assert frame.loc["out-a", "fb"] == s.fb
    text = str(s)
    # hand: 12 of 16 predicted words are right (p = 75%), 12 of 17 gold words (r = 70.59%)
    assert "standard    p 75.00  r 70.59  f1 72.73" in text
    assert "oov         rate –  recall –  iv_recall –" in text  # no vocabulary
    assert text.endswith(s.signature.format())


def test_bootstrap_intervals_and_frame_columns():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        s = committee.score(DATA / "gold.txt", DATA / "out-a.txt",
                            difficulty=DATA / "gold.weight", bootstrap=200, seed=7)
    golden = json.loads((DATA / "score-bootstrap.json").read_text(encoding="utf-8"))
    assert list(s.ci["fb"]) == golden["systems"][0]["ci"]["fb"]
    assert "|bootstrap:200,seed=7|" in s.signature.format()
    assert (s.signature.bootstrap, s.signature.seed) == (200, 7)
    assert {"fb_low", "fb_high"} <= set(s.to_frame().columns)
    assert "95% ci" in str(s)
    with pytest.raises(ValueError, match="bootstrap"):
        committee.score(GOLD, OUT, bootstrap=-1)


def test_compare_is_the_paired_bootstrap_of_the_command():
    scorer = committee.Scorer(DATA / "gold.txt", difficulty=DATA / "gold.weight",
                              train_words=DATA / "train.txt", train_format="sighan")
    a, b = scorer.score(DATA / "out-a.txt"), scorer.score(DATA / "out-b.txt")
    golden = json.loads((DATA / "score-bootstrap.json").read_text(encoding="utf-8"))
    paired = golden["systems"][0]["paired"]  # out-b ranks first by fb: compared against out-a
    for metric in ("f1", "fb"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            got = committee.compare(b, a, metric=metric, n=200, seed=7)
        want = paired[metric]
        assert got["share_a_better"] == want["share_a_better"]
        assert got["delta"] == want["delta"] and list(got["ci"]) == want["ci"]
    assert committee.compare(a, a, metric="f1", n=50)["ties"] == 1.0


def test_compare_refuses_scores_of_other_inputs():
    a = committee.score(GOLD, OUT, difficulty=D)
    b = committee.score(GOLD, OUT, difficulty=[[0.5, 0.5, 0.5]])
    with pytest.raises(ValueError, match="signatures differ"):
        committee.compare(a, b)


def test_scorer_scores_many_outputs_in_memory():
    scorer = committee.Scorer(["我 爱 北京", "约翰 喜欢 玛丽"])
    with pytest.warns(committee.PlausibilityWarning, match="<output>: has the same words as the "
                                                          "gold <gold>"):
        result = scorer.score_all([["我 爱 北京", "约翰 喜欢 玛丽"], ["我爱 北京", "约翰 喜欢 玛丽"]])
    assert [s["name"] for s in result["systems"]] == ["output-1", "output-2"]
    assert [s["rank_f1"] for s in result["systems"]] == [1, 2]
    assert result["systems"][1]["f1"] == pytest.approx(8 / 11)  # p = 4/5, r = 4/6


def test_a_vocabulary_of_another_corpus_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # iv_recall: no IV word
        with pytest.warns(committee.PlausibilityWarning,
                          match=r"<gold>: 100.0% of the gold words are not in the training"):
            committee.score(GOLD, OUT, train_words={"你好"})


# --------------------------------------------------------------------------
# the package


def test_import_committee_is_cheap_and_exports_the_api():
    code = ("import sys, committee; print('numpy' in sys.modules, 'pandas' in sys.modules); "
            "print(all(getattr(committee, n) is not None for n in committee.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False", "True"]
    assert committee.score is scoring.score and committee.InputError.exit_code == 3
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        committee.nothing  # noqa: B018


def test_run_passes_config_and_overrides(monkeypatch, tmp_path):
    """committee.run(config, **overrides) reads the config with the overrides
    and runs it (a real config; the committee and the report stubbed out)."""
    from toyrun import make_toy_corpus, write_config

    from committee import config as config_mod
    from committee import report as report_mod
    from committee.pipeline import dataset

    path = write_config(tmp_path / "a.yaml", make_toy_corpus(tmp_path), tmp_path / "out")
    real_load, seen = config_mod.load_config, {}

    def load(path, overrides=()):
        seen.update(path=path, sets=list(overrides))
        return real_load(path, overrides)

    monkeypatch.setattr(config_mod, "load_config", load)
    monkeypatch.setattr(dataset, "load_inputs", lambda cfg, where: None)
    monkeypatch.setattr(dataset, "check_committee",
                        lambda cfg, inputs, where: seen.update(checked=where))
    monkeypatch.setattr(dataset, "run_fingerprint", lambda cfg, inputs, members=False: "f")
    monkeypatch.setattr(dataset, "run", lambda cfg, restart, progress, inputs, where:
                        seen.update(cfg=cfg, restart=restart) or tmp_path / "out")
    monkeypatch.setattr(report_mod, "build_report", lambda out, cfg, **kw: seen.update(report=out))
    assert committee.run(path, committee__size=4, **{"crf.params.c2": 0.5}) == tmp_path / "out"
    assert (seen["path"], seen["sets"], seen["checked"]) == (
        path, ["committee.size=4", "crf.params.c2=0.5"], str(path))
    assert (seen["cfg"].committee.size, seen["cfg"].crf.params.c2, seen["restart"]) == (
        4, 0.5, False)
    assert "report" not in seen  # no analysis switched on in the config: no report


def test_report_is_the_package_and_the_function(monkeypatch):
    """committee.report is the report package, and calling it writes a run's report."""
    from committee.pipeline import workflow

    monkeypatch.setattr(workflow, "report", lambda run_dir, **kw: ("REPORT", run_dir, kw))
    import committee.report as report_pkg

    assert committee.report is report_pkg and hasattr(committee.report, "build_report")
    assert committee.report("runs/x", analyses=["ranking"]) == (
        "REPORT", "runs/x", {"analyses": ["ranking"]})


def test_a_scorer_takes_its_options_as_one_record():
    """The record and the keywords build the same scorer; keywords win; an
    unknown keyword names the ones it takes; the constructor has at most 8
    parameters."""
    import inspect

    from committee.scoring import ScorerOptions

    gold, out = ["我 爱 北京", "约翰 喜欢 玛丽"], ["我爱 北京", "约翰 喜欢 玛丽"]
    d = [[0.1, 0.2, 0.9], [0.5, 0.5, 0.0]]
    by_record = committee.Scorer(gold, d, None, ScorerOptions(normalization="nfkc"))
    by_keyword = committee.Scorer(gold, d, normalization="nfkc")
    assert by_record.options == by_keyword.options
    assert by_record.score(out).to_dict() == by_keyword.score(out).to_dict()
    both = committee.Scorer(gold, d, None, ScorerOptions(normalization="nfkc"), normalization=None)
    assert both.options.normalization is None
    with pytest.raises(TypeError, match="unexpected keyword argument 'formt'; it takes format,"):
        committee.Scorer(gold, formt="bio")
    with pytest.raises(TypeError, match="options must be a ScorerOptions, got dict"):
        committee.Scorer(gold, None, None, {"format": "bio"})
    assert len(inspect.signature(committee.Scorer).parameters) <= 8


def test_scored_systems_is_typed_and_reports_three_ways(capsys):
    """score_all returns a ScoredSystems: the dict of --json, a text, a
    JSON and a Markdown reporter; `committee score --markdown` prints the last."""
    import json

    from committee import cli
    from committee.scoring import ScoredSystems

    scorer = committee.Scorer(DATA / "gold.txt", difficulty=DATA / "gold.weight")
    result = scorer.score_all([DATA / "out-a.txt", DATA / "out-b.txt"])
    assert isinstance(result, ScoredSystems)
    assert dict(result) == result.to_dict() == json.loads(result.json())
    assert [s["name"] for s in result["systems"]] == ["out-a", "out-b"]
    md = result.markdown().splitlines()
    assert md[0].startswith("| system | p | r | f1 | pb | rb | fb |")
    assert md[1].startswith("|---|---:|")
    a = result["systems"][0]
    assert md[2].startswith(f"| out-a | {100 * a['p']:.2f} | {100 * a['r']:.2f} |")
    assert md[-1] == result.signature
    argv = ["score", "--gold", str(DATA / "gold.txt"), str(DATA / "out-a.txt"),
            str(DATA / "out-b.txt"),
            "--difficulty", str(DATA / "gold.weight")]
    assert cli.main([*argv, "--markdown"]) == 0
    assert capsys.readouterr().out == result.markdown() + "\n"
    assert cli.main([*argv, "--json"]) == 0
    assert capsys.readouterr().out == result.json() + "\n"
    assert cli.main([*argv, "--json", "--markdown"]) == 2  # one shape at a time
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize("call", ["score", "Scorer"])
def test_a_warning_of_the_api_names_the_callers_line(call):
    """A warning raised deep in the library (here: the output is the gold
    itself) points at the line of the user's code that called committee."""
    gold = Corpus("gold.txt", [["我们", "是"], ["好", "人"]], [1, 2])
    out = Corpus("out.txt", [["我们", "是"], ["好", "人"]], [1, 2])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if call == "score":
            committee.score(gold, out)
        else:
            scoring.Scorer(gold).score(out)
    same = [w for w in seen if "has the same words as the gold" in str(w.message)]
    assert len(same) == 1
    assert same[0].filename == __file__
