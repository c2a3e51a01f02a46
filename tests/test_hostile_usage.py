"""A user's mistakes, tried on purpose: every one is named where it was made.

* At the command line a value a flag does not accept is a usage error (exit
  2), one line naming the flag and what it accepts.
* In Python every public function checks its arguments' types at the
  boundary: a :class:`TypeError` (or a :class:`ValueError` for a value of
  the right type out of range) naming the function and the argument.
* Degenerate results are named: a bootstrap over too few sentences warns,
  numbers in difficulty files are strict, and the hint that gold and output
  were swapped shows only when the evidence points there.
* The bootstrap is bounded by memory, keeps constant working memory, shows
  its progress when long, and gives byte-identical results to what it gave
  before it was made so (golden values below).

The tables give, for each case, the call, the exit code or exception and the
exact message.
"""

from __future__ import annotations

import hashlib
import json
import os
import tracemalloc
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import committee
from committee import metrics, scoring
from committee.system import arguments as arguments_mod
from committee.corpus import plausibility
from committee.system import pools
from committee.metrics import significance
from committee import corpus as corpus_mod
from committee.cli import main
from committee.corpus import Corpus
from committee.pipeline.difficulty import load_difficulty
from committee.pipeline.weightfiles import _parse
from committee.errors import InputError, PlausibilityWarning
from committee.system.files import sha256_file

GOLD = "约翰 喜欢 玛丽\n我 爱 北京 天安门\n计算机 总是 有 问题\n"
OUTPUT = "约翰喜欢 玛丽\n我 爱 北京 天安门\n计算机 总是 有问题\n"
WEIGHT = "0.0 0.5 1.0\n0.0 0.0 0.25 0.75\n0.5 0.0 1.0 0.0\n"


@pytest.fixture
def d(tmp_path, monkeypatch):
    """A working directory with gold.txt, out.txt and gold.weight (relative
    names keep the messages exact)."""
    (tmp_path / "gold.txt").write_text(GOLD, encoding="utf-8")
    (tmp_path / "out.txt").write_text(OUTPUT, encoding="utf-8")
    (tmp_path / "gold.weight").write_text(WEIGHT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_cli(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


SCORE = ["score", "--gold", "gold.txt"]
USAGE_SCORE = " (see 'committee score --help')"
USAGE_IRT = " (see 'committee irt --help')"

# --------------------------------------------------------------------------
# 1. command-line values: usage errors naming the flag (exit 2)

FLAG_CASES = [
    ("seed-negative", SCORE + ["--bootstrap", "10", "--seed", "-1", "out.txt"],
     "--seed: expected an integer >= 0, got '-1'" + USAGE_SCORE),
    ("seed-fraction", SCORE + ["--seed", "1.5", "out.txt"],
     "--seed: expected an integer >= 0, got '1.5'" + USAGE_SCORE),
    ("seed-full-width", SCORE + ["--seed", "１２", "out.txt"],
     "--seed: expected an integer >= 0, got '１２'" + USAGE_SCORE),
    ("seed-underscore", SCORE + ["--seed", "1_000", "out.txt"],
     "--seed: expected an integer >= 0, got '1_000'" + USAGE_SCORE),
    ("bootstrap-negative", SCORE + ["--bootstrap", "-5", "out.txt"],
     "--bootstrap: expected an integer >= 0, got '-5'" + USAGE_SCORE),
    ("bootstrap-word", SCORE + ["--bootstrap", "many", "out.txt"],
     "--bootstrap: expected an integer >= 0, got 'many'" + USAGE_SCORE),
    ("bootstrap-exponent", SCORE + ["--bootstrap", "1e3", "out.txt"],
     "--bootstrap: expected an integer >= 0, got '1e3'" + USAGE_SCORE),
    ("max-iter-zero", ["irt", "run", "--max-iter", "0"],
     "--max-iter: expected an integer >= 1, got '0'" + USAGE_IRT),
    ("min-a-negative", ["irt", "run", "--min-a", "-1"],
     "--min-a: expected a number >= 0, got '-1'" + USAGE_IRT),
    ("min-a-nan", ["irt", "run", "--min-a", "nan"],
     "--min-a: expected a number >= 0, got 'nan'" + USAGE_IRT),
    ("min-a-inf", ["irt", "run", "--min-a", "inf"],
     "--min-a: expected a number >= 0, got 'inf'" + USAGE_IRT),
    ("subset-zero", ["irt", "run", "--subset", "0"],
     "--subset: expected an integer >= 1, got '0'" + USAGE_IRT),
    ("irt-seed-negative", ["irt", "run", "--subset", "5", "--seed", "-1"],
     "--seed: expected an integer >= 0, got '-1'" + USAGE_IRT),
    ("choice-without-argument-prefix", SCORE + ["--normalize", "nfx", "out.txt"],
     "--normalize: invalid choice: 'nfx' (choose from 'none', 'nfkc', 'fullwidth')" + USAGE_SCORE),
    ("buckets-empty", SCORE + ["--buckets=", "out.txt"],
     "--buckets: '' names no attribute; give --buckets alone for every attribute, or "
     "--buckets=ATTR,... (before the OUTPUTs)" + USAGE_SCORE),
    ("buckets-commas", SCORE + ["--buckets=,,", "out.txt"],
     "--buckets: ',,' names no attribute; give --buckets alone for every attribute, or "
     "--buckets=ATTR,... (before the OUTPUTs)" + USAGE_SCORE),
    ("buckets-empty-entities", SCORE + ["--task", "ner", "--buckets=", "out.txt"],
     "--buckets: '' names no attribute; give --buckets alone for every attribute, or "
     "--buckets=ATTR,... (before the OUTPUTs)" + USAGE_SCORE),
]


@pytest.mark.parametrize("argv, message", [c[1:] for c in FLAG_CASES],
                         ids=[c[0] for c in FLAG_CASES])
def test_a_flag_value_it_does_not_accept_is_a_usage_error(d, capsys, argv, message):
    code, out, err = run_cli(argv, capsys)
    assert (code, out, err) == (2, "", f"committee: error: {message}\n")


def test_buckets_alone_means_every_attribute_whose_input_is_given(d, capsys):
    code, out, err = run_cli(SCORE + ["--difficulty", "gold.weight", "out.txt", "--buckets"],
                             capsys)
    assert code == 0, err
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("by ")] == [
        "by length", "by sentence", "by difficulty"]
    assert ("committee: note: buckets: oov left out (no vocabulary given); frequency left out "
            "(no word counts given); consistency left out (no training corpus given)\n"
            in err)


def test_flag_values_it_accepts_pass():
    assert arguments_mod.cli_int(0)("0") == 0 and arguments_mod.cli_int(0)("+7") == 7
    assert arguments_mod.cli_int(0)(str(2**70)) == 2**70  # numpy seeds any integer >= 0
    assert arguments_mod.cli_real(0)("0") == 0.0 and arguments_mod.cli_real(0)("1e-2") == 0.01


def test_a_bootstrap_that_cannot_fit_in_memory_is_refused_with_the_estimate(d, capsys,
                                                                            monkeypatch):
    monkeypatch.setattr(significance, "available_memory", lambda: 8 * 10**9)
    code, out, err = run_cli(SCORE + ["--bootstrap", "1000000000000", "out.txt"], capsys)
    assert (code, out) == (2, "")
    assert err == ("committee: error: --bootstrap: 1,000,000,000,000 resamples need about "
                   "168.0 TB of memory (21 values of 8 bytes per resample), more than half of "
                   "the 8.0 GB available: use at most 23,809,523; 1,000 to 10,000 are usual"
                   + USAGE_SCORE + "\n")
    # the largest number it names fits; one more does not
    significance.check_resamples(23_809_523)
    with pytest.raises(ValueError, match="^23,809,524 resamples need about 4.0 GB"):
        significance.check_resamples(23_809_524)


# --------------------------------------------------------------------------
# 2. the Python API: TypeError / ValueError naming function and argument

G = ["我 爱 北京"]
_S = None


def scores():
    global _S
    if _S is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _S = committee.score(G, ["我爱 北京"])
    return _S


API_CASES = [
    ("compare-none", lambda: committee.compare(None, None), TypeError,
     "compare: a must be a Scores (from committee.score), got NoneType"),
    ("compare-dict", lambda: committee.compare(scores(), {}), TypeError,
     "compare: b must be a Scores (from committee.score), got dict"),
    ("compare-n-str", lambda: committee.compare(scores(), scores(), n="10"), TypeError,
     "compare: n must be an integer >= 1, got str '10'"),
    ("compare-n-zero", lambda: committee.compare(scores(), scores(), n=0), ValueError,
     "compare: n must be an integer >= 1, got 0"),
    ("compare-level", lambda: committee.compare(scores(), scores(), level=2), ValueError,
     "compare: level must be a real number in (0, 1), got 2"),
    ("compare-metric", lambda: committee.compare(scores(), scores(), metric="fbb"), ValueError,
     "compare: metric must be one of 'p', 'r', 'f1', 'pb', 'rb', 'fb', 'p_reward', "
     "'p_punishment', 'r_reward', 'r_punishment', 'oov_rate', 'oov_recall', 'iv_recall', "
     "'er', 'tnr', 'boundary_p', 'boundary_r', 'boundary_f1', got 'fbb'"),
    ("compare-seed", lambda: committee.compare(scores(), scores(), seed=-2), ValueError,
     "compare: seed must be an integer >= 0, got -2"),
    ("run-dict", lambda: committee.run({}), TypeError,
     "run: config must be a path to a YAML config or a committee.config.Config, got dict"),
    ("run-restart", lambda: committee.run("c.yaml", restart="yes"), TypeError,
     "run: restart must be True or False, got str 'yes'"),
    ("report-none", lambda: committee.report(None), TypeError,
     "report: run_dir must be a path (the output.dir of a run), got NoneType"),
    ("report-systems-str", lambda: committee.report("runs/x", systems="out.txt"), TypeError,
     "report: systems must be a list of paths, got str 'out.txt'"),
    ("report-segmenters-item", lambda: committee.report("runs/x", segmenters=[None]), TypeError,
     "report: segmenters[0] must be a str, got NoneType"),
    ("score-gold-none", lambda: committee.score(None, G), TypeError,
     "score: gold must be a path, a Corpus or a list of sentences, got NoneType"),
    ("score-output-int", lambda: committee.score(G, 5), TypeError,
     "score: output must be a path, a Corpus or a list of sentences, got int 5"),
    ("score-train-words-none", lambda: committee.score(G, G, train_words=["a", None]), TypeError,
     "score: train_words must hold words (str), got NoneType among them"),
    ("score-train-words-int", lambda: committee.score(G, G, train_words=3), TypeError,
     "score: train_words must be a word-list file, a training Corpus or a collection of "
     "words, got int 3"),
    ("score-bootstrap-str", lambda: committee.score(G, G, bootstrap="10"), TypeError,
     "score: bootstrap must be an integer >= 0, got str '10'"),
    ("score-bootstrap-float", lambda: committee.score(G, G, bootstrap=2.5), TypeError,
     "score: bootstrap must be an integer >= 0, got float 2.5"),
    ("score-bootstrap-bool", lambda: committee.score(G, G, bootstrap=True), TypeError,
     "score: bootstrap must be an integer >= 0, got bool True"),
    ("score-bootstrap-negative", lambda: committee.score(G, G, bootstrap=-1), ValueError,
     "score: bootstrap must be an integer >= 0, got -1"),
    ("score-seed-negative", lambda: committee.score(G, G, bootstrap=5, seed=-1), ValueError,
     "score: seed must be an integer >= 0, got -1"),
    ("score-format", lambda: committee.score(G, G, format=5), TypeError,
     "score: format must be one of "
     + ", ".join(repr(f) for f in corpus_mod.FORMATS) + ", got int 5"),
    ("score-encoding", lambda: committee.score(G, G, encoding="klingon"), ValueError,
     "score: encoding must be a codec name such as 'utf-8' or 'gb18030', got 'klingon'"),
    ("score-normalization", lambda: committee.score(G, G, normalization="nfx"), ValueError,
     "score: normalization must be one of 'nfkc', 'fullwidth' or None, got 'nfx'"),
    ("score-allow-overlap", lambda: committee.score(G, G, allow_overlap="no"), TypeError,
     "score: allow_overlap must be True or False, got str 'no'"),
    ("score-unknown-keyword", lambda: committee.score(G, G, bogus=1), TypeError,
     "score: unexpected keyword argument 'bogus'; besides its named parameters it takes "
     "gold_format, gold_encoding, train_encoding, allow_overlap, spelling, buckets, task, mode, "
     "scheme"),
    ("difficulty-container", lambda: committee.score(G, G, difficulty=7), TypeError,
     "score: difficulty must be a .weight file, a run directory, one list of values per gold "
     "sentence or one value per gold word, got int 7"),
    ("difficulty-bool", lambda: committee.score(G, G, difficulty=[[True, 0.5, 0.5]]), TypeError,
     "score: difficulty must hold real numbers, got bool True (sentence 1, value 1)"),
    ("difficulty-str", lambda: committee.score(G, G, difficulty=[[0.5, "0.5", 0.5]]), TypeError,
     "score: difficulty must hold real numbers, got str '0.5' (sentence 1, value 2)"),
    ("difficulty-flat-bool", lambda: committee.score(G, G, difficulty=[0.5, 0.5, False]),
     TypeError, "score: difficulty must hold real numbers, got bool False (value 3)"),
    ("difficulty-bool-array", lambda: committee.score(G, G, difficulty=np.ones(3, bool)),
     TypeError, "score: difficulty must hold real numbers, got an array of bool"),
    ("difficulty-row-int", lambda: committee.Scorer(G + G, difficulty=[[0.1, 0.2, 0.3], 7]),
     TypeError, "Scorer: difficulty must hold one list of real numbers per sentence, got "
                "int 7 for sentence 2"),
    ("score-all-str", lambda: committee.Scorer(G).score_all("abc"), TypeError,
     "Scorer.score_all: outputs must be a list of outputs (paths, Corpora or sentence lists), "
     "got str 'abc'"),
    ("score-all-item", lambda: committee.Scorer(G).score_all([G, None]), TypeError,
     "Scorer.score_all: outputs[1] must be a path, a Corpus or a list of sentences, "
     "got NoneType"),
    ("scorer-score-name", lambda: committee.Scorer(G).score(G, name=3), TypeError,
     "Scorer.score: name must be a str, got int 3"),
    ("read-corpus-none", lambda: committee.read_corpus(None), TypeError,
     "read_corpus: path must be a path (str or os.PathLike), got NoneType"),
    ("load-difficulty-gold", lambda: committee.load_difficulty([0.5], None), TypeError,
     "load_difficulty: gold must be a Corpus, got NoneType"),
    ("load-difficulty-bool", lambda: committee.load_difficulty(
        [True], Corpus("g", [["我"]], [1])), TypeError,
     "load_difficulty: source must hold real numbers, got bool True (value 1)"),
]


@pytest.mark.parametrize("call, exception, message", [c[1:] for c in API_CASES],
                         ids=[c[0] for c in API_CASES])
def test_an_api_argument_it_cannot_use_is_named(call, exception, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)
        with pytest.raises(exception) as e:
            call()
    assert type(e.value) is exception and str(e.value) == message


def test_real_numbers_of_every_kind_are_difficulties():
    gold = Corpus("g", [["我", "爱", "北京"]], [1])
    for d in ([[0, Fraction(1, 2), 1.0]], [np.float32(0), np.int64(0), 0.5],
              np.array([0, 1, 0], dtype=np.uint8)):
        assert load_difficulty(d, gold).dtype == np.float64


def test_the_api_bootstrap_is_bounded_by_memory(monkeypatch):
    monkeypatch.setattr(significance, "available_memory", lambda: 8 * 10**9)
    with pytest.raises(ValueError) as e:
        committee.Scorer(G).score(G, bootstrap=10**12)
    assert str(e.value) == (
        "Scorer.score: bootstrap: 1,000,000,000,000 resamples need about 168.0 TB of memory "
        "(21 values of 8 bytes per resample), more than half of the 8.0 GB available: use at "
        "most 23,809,504; 1,000 to 10,000 are usual")  # less one block over 1 sentence
    with pytest.raises(ValueError, match=r"^compare: n: 1,000,000,000,000 resamples need about "
                                         r"40.0 TB of memory \(5 values"):
        committee.compare(scores(), scores(), n=10**12)


# --------------------------------------------------------------------------
# 3. degenerate results: bootstrap over too few sentences, strict numbers,
#    the swap hint only on evidence


def few(n: int) -> list[str]:
    return ["我 爱 北京"] * n


@pytest.mark.parametrize("n, message", [
    (1, "bootstrap over 1 sentence: every resample is that one sentence, so every interval "
        "has zero width; score a test set of at least 30 sentences for meaningful intervals"),
    (29, "bootstrap over 29 sentences: intervals from fewer than 30 sentences are too narrow "
         "to trust (docs/metrics.md, Bootstrap); score a test set of at least 30 sentences for "
         "meaningful intervals"),
    (30, None),
])
def test_a_bootstrap_over_few_sentences_warns(n, message):
    scorer = committee.Scorer(few(n))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = scorer.score([["我爱", "北京"]] * n, bootstrap=50, seed=1)
    said = [str(x.message) for x in w if "bootstrap over" in str(x.message)]
    assert said == ([] if message is None else [message])
    if n == 1:  # the degenerate result the warning names
        assert s.ci["f1"][0] == s.ci["f1"][1] == s.f1


def test_the_command_line_names_the_few_sentences_once(d, capsys):
    # two outputs: two intervals and two paired comparisons, one warning
    (d / "out2.txt").write_text(OUTPUT.replace("约翰喜欢", "约翰 喜欢"), encoding="utf-8")
    code, out, err = run_cli(SCORE + ["--bootstrap", "100", "out.txt", "out2.txt"], capsys)
    assert code == 0
    assert err == ("committee: warning: bootstrap over 3 sentences: intervals from fewer than "
                   "30 sentences are too narrow to trust (docs/metrics.md, Bootstrap); score a "
                   "test set of at least 30 sentences for meaningful intervals\n")


WEIGHT_CASES = [
    ("underscore", "0.5 0.3_3 1.0", "gold.weight:1: value '0.3_3' at column 5 is not a decimal "
                                    "number of ASCII digits (such as 0.25 or 1e-05)"),
    ("full-width", "０.５ 0.5 1.0", "gold.weight:1: value '０.５' at column 1 is not a decimal "
                                   "number of ASCII digits (such as 0.25 or 1e-05)"),
    ("arabic-indic", "0.5 ٠.٥ 1.0", "gold.weight:1: value '٠.٥' at column 5 is not a decimal "
                                    "number of ASCII digits (such as 0.25 or 1e-05)"),
    ("nan", "0.5 0.5 nan", "gold.weight:1: value 'nan' at column 9 is not a finite number"),
    ("inf", "inf 0.5 1", "gold.weight:1: value 'inf' at column 1 is not a finite number"),
    ("overflow", "0.5 1e999 1", "gold.weight:1: value '1e999' at column 5 is not a finite "
                                "number"),
    ("above-one", "0.5  1.5 1", "gold.weight:1: value '1.5' at column 6 is outside [0, 1]"),
    ("negative", "0.5 0.5 -0.25", "gold.weight:1: value '-0.25' at column 9 is outside [0, 1]"),
    ("word", "0.5 hard 1", "gold.weight:1: value 'hard' at column 5 is not a number"),
]


@pytest.mark.parametrize("line, message", [c[1:] for c in WEIGHT_CASES],
                         ids=[c[0] for c in WEIGHT_CASES])
def test_numbers_in_weight_files_are_strict(d, capsys, line, message):
    (d / "gold.weight").write_text(line + "\n" + WEIGHT.split("\n", 1)[1], encoding="utf-8")
    code, out, err = run_cli(SCORE + ["--difficulty", "gold.weight", "out.txt"], capsys)
    assert (code, out, err) == (3, "", f"committee: error: {message}\n")


def test_weight_c_files_are_parsed_as_strictly(d, capsys):
    (d / "gold.weight_c").write_text("0 0 0 0 0.3_3 0.3_3\n" + "0 " * 7 + "\n" + "0 " * 8 + "\n",
                                     encoding="utf-8")
    code, out, err = run_cli(SCORE + ["--difficulty", "gold.weight_c", "out.txt"], capsys)
    assert (code, err) == (3, "committee: error: gold.weight_c:1: value '0.3_3' at column 9 is "
                              "not a decimal number of ASCII digits (such as 0.25 or 1e-05)\n")


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.0, max_value=1.0))
def test_every_difficulty_the_writer_writes_is_read_back(x):
    # the writer uses repr(float): 0.1, 1e-05, 0.30000000000000004 ...
    assert _parse("t.weight", 1, f"{x!r} {x!r}") == [x, x]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789.eE+-_ ０１５٥nafi", min_size=1, max_size=8))
def test_a_number_is_accepted_only_in_plain_ascii_decimal_form(text):
    value = arguments_mod.parse_decimal(text)
    if value is not None:
        assert text.isascii() and "_" not in text and float(text) == value
        assert np.isfinite(value)


def fake_run(root: Path, test: list[list[str]]) -> Path:
    """A finished run's directory as ``committee score --difficulty`` reads it:
    test.txt, test.weight and a manifest recording test.txt's checksum."""
    run = root / "run"
    run.mkdir()
    corpus_mod.write_sighan(run / "test.txt", test)
    (run / "test.weight").write_text(
        "".join(" ".join(["0.5"] * len(s)) + "\n" for s in test), encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps(
        {"files": {"test.txt": sha256_file(run / "test.txt")}}), encoding="utf-8")
    return run


def test_another_runs_difficulties_get_no_swap_hint(d, capsys):
    fake_run(d, [["上海", "浦东"], ["开发", "区"]])
    code, out, err = run_cli(SCORE + ["--difficulty", "run", "out.txt"], capsys)
    assert (code, err) == (3, "committee: error: run/test.weight: has 2 lines, gold gold.txt "
                              "has 3 sentences: is it the difficulty file of this gold? (one "
                              "line per gold sentence); these difficulties belong to the test "
                              "set of a run (run/test.txt), whose text differs from the gold "
                              "gold.txt: give the difficulties made for this gold\n")


def test_a_gold_that_looks_like_an_output_of_the_run_gets_the_swap_hint(d, capsys):
    gold = [s.split() for s in GOLD.splitlines()]
    fake_run(d, gold)
    # the run's test set as the output, an output (same text, other words) as the gold
    code, out, err = run_cli(["score", "--gold", "out.txt", "--difficulty", "run",
                              "run/test.txt"], capsys)
    assert (code, err) == (3, "committee: error: run/test.weight:1: has 3 values, gold "
                              "out.txt:1 has 2 words; the gold out.txt is not the test set of "
                              "this run (run/test.txt): were the gold and an output given the "
                              "wrong way round?\n")


def test_looks_like_output_is_the_evidence():
    test = Corpus("test.txt", [["我", "爱"], ["北京"]], [1, 2])
    assert plausibility.looks_like_output(Corpus("o", [["我爱"], ["北", "京"]], [1, 2]), test)
    assert not plausibility.looks_like_output(Corpus("o", [["我爱"]], [1]), test)  # fewer lines
    assert not plausibility.looks_like_output(Corpus("o", [["我爱"], ["上海"]], [1, 2]), test)
    assert not plausibility.looks_like_output(test, test)


# --------------------------------------------------------------------------
# 4. messages: counts, positions from 1, what a symbolic link is


MESSAGE_CASES = [
    ("one-line", lambda d: (d / "short.txt").write_text("约翰喜欢 玛丽\n", encoding="utf-8"),
     SCORE + ["short.txt"],
     "short.txt: has 1 line, gold gold.txt has 3: the output ends after line 1, gold goes on "
     "to line 3 (a truncated output?); every output needs one line per gold line, in the same "
     "order"),
    ("one-weight-line", lambda d: (d / "gold.weight").write_text("0 0 0\n", encoding="utf-8"),
     SCORE + ["--difficulty", "gold.weight", "out.txt"],
     "gold.weight: has 1 line, gold gold.txt has 3 sentences: is it the difficulty file of "
     "this gold? (one line per gold sentence)"),
    ("one-value", lambda d: (d / "gold.weight").write_text("0\n0 0 0 0\n0 0 0 0\n",
                                                            encoding="utf-8"),
     SCORE + ["--difficulty", "gold.weight", "out.txt"],
     "gold.weight:1: has 1 value, gold gold.txt:1 has 3 words"),
    ("characters-output-first", lambda d: (d / "var.txt").write_text(
        OUTPUT.replace("玛丽", "玛莉"), encoding="utf-8"),
     SCORE + ["var.txt"],
     "var.txt:1: characters differ from gold.txt:1 at character 6: the output has '莉' where "
     "the gold has '丽'"),
    ("characters-output-ends", lambda d: (d / "cut.txt").write_text(
        OUTPUT.replace("玛丽", "玛"), encoding="utf-8"),
     SCORE + ["cut.txt"],
     "cut.txt:1: characters differ from gold.txt:1 at character 6: the output's line ends "
     "where the gold has '丽'"),
    ("symlink-loop", lambda d: (os.symlink("loop2", d / "loop1"), os.symlink("loop1", d / "loop2")),
     SCORE + ["loop1"], "loop1: is a symbolic link loop: following it never reaches a file"),
    ("symlink-loop-gold", lambda d: os.symlink("self", d / "self"),
     ["score", "--gold", "self", "out.txt"],
     "self: is a symbolic link loop: following it never reaches a file"),
    ("dangling-symlink", lambda d: os.symlink("gone.txt", d / "link.txt"),
     SCORE + ["link.txt"], "link.txt: is a symbolic link to gone.txt, which does not exist"),
    ("missing", lambda d: None, SCORE + ["nothere.txt"], "nothere.txt: no such file"),
    ("symlink-loop-segment", lambda d: os.symlink("self", d / "self"),
     ["segment", "--with", "snownlp", "--quiet", "-o", "seg.txt", "self"],
     "self: is a symbolic link loop: following it never reaches a file"),
]


def test_a_config_that_is_a_symbolic_link_loop_is_named_so(d, capsys):
    os.symlink("c.yaml", d / "c.yaml")
    code, out, err = run_cli(["run", "c.yaml"], capsys)
    assert (code, out, err) == (4, "", "committee: error: c.yaml: is a symbolic link loop: "
                                       "following it never reaches a file\n")


@pytest.mark.parametrize("prepare, argv, message", [c[1:] for c in MESSAGE_CASES],
                         ids=[c[0] for c in MESSAGE_CASES])
def test_messages_count_and_point_right(d, capsys, prepare, argv, message):
    prepare(d)
    code, out, err = run_cli(argv, capsys)
    assert (code, out, err) == (3, "", f"committee: error: {message}\n")


@pytest.mark.parametrize("n_saved, size, expected", [
    (1, 2, "1 of 2 members failed (member 2: boom); 1 is saved; details in r/run.log"),
    (0, 1, "1 of 1 member failed (member 2: boom); 0 are saved; details in r/run.log"),
    (4, 5, "1 of 5 members failed (member 2: boom); 4 are saved; details in r/run.log"),
])
def test_member_failures_count_in_good_english(n_saved, size, expected):
    failure = pools.MemberFailure(index=2, error="boom", detail="")
    err = pools.failed([failure], Path("r"), size, n_saved)
    assert str(err) == f"{expected}; rerun the same command to train only the missing members"


def test_in_memory_positions_count_from_one():
    with pytest.raises(InputError) as e:
        committee.score(G, G, difficulty=[[0.1, 0.2, 1.5]])
    assert str(e.value) == "<difficulty>:1: value 1.5 at position 3 is not a finite number in [0, 1]"


# --------------------------------------------------------------------------
# 5. the bootstrap: byte-identical results, constant working memory, progress


def merge_every(sentence, k):
    out, i = [], 0
    while i < len(sentence):
        if i % k == 0 and i + 1 < len(sentence):
            out.append(sentence[i] + sentence[i + 1])
            i += 2
        else:
            out.append(sentence[i])
            i += 1
    return out


def bootstrap_results(toy: Path) -> dict:
    """Intervals and paired comparisons on the toy corpus (40 test sentences)."""
    gold = corpus_mod.read_corpus(toy / "test.txt")
    a = [merge_every(s, 5) for s in gold.words]
    b = [merge_every(s, 3) for s in gold.words]
    d = [((7 * i) % 11) / 10 for i in range(gold.n_words())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = committee.Scorer(gold, difficulty=d, train_words=toy / "train.txt",
                                  train_format="sighan")
        res = {}
        for n, seed in ((250, 12345), (1, 0), (101, 2**40)):
            sa = scorer.score(a, bootstrap=n, seed=seed)
            sb = scorer.score(b, bootstrap=n, seed=seed)
            res[f"ci {n} {seed}"] = {k: list(v) for k, v in sa.ci.items()}
            for m in ("f1", "fb", "oov_recall"):
                res[f"paired {m} {n} {seed}"] = committee.compare(sa, sb, metric=m, n=n,
                                                                  seed=seed)
        systems = scorer.score_all([a, b], bootstrap=300, seed=5)["systems"]
    res["score_all"] = [{k: s[k] for k in ("ci", "paired") if k in s} for s in systems]
    return res


def test_bootstrap_results_are_byte_identical_to_the_golden_ones(toy_corpus):
    # recorded with the bootstrap as it was before it kept only the metrics it needs
    # in preallocated arrays; the same seed and n must give the very same floats
    res = bootstrap_results(toy_corpus)
    assert res["ci 250 12345"]["fb"] == [0.6543473168312827, 0.6624881212124599]
    assert res["ci 1 0"]["f1"] == [0.6595377716453948, 0.6595377716453948]
    assert res["paired fb 101 1099511627776"]["ci"] == (0.25131215345926566, 0.2621657132445876)
    assert res["paired fb 101 1099511627776"]["delta"] == 0.2578658041055335
    text = json.dumps(res, sort_keys=True)
    assert hashlib.sha256(text.encode()).hexdigest() == (
        "d6c900b8dacd3b226ef7ef216b7dcae137491a8a900d11a48d2f49cea06161a8")


def test_bootstrap_memory_stays_within_the_estimate():
    gold = Corpus("g", [["我", "爱", "北京"], ["你", "好"]] * 20, list(range(1, 41)))
    stats = metrics.collect(gold, gold)
    n = 40_000
    tracemalloc.start()
    try:
        significance.bootstrap(stats, n=n, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    kept = sum(v is not None for v in metrics.compute(stats).values()
               if not isinstance(v, (dict, list)))
    assert peak <= significance.resample_bytes(n, kept, 40)
    # the paired bootstrap keeps one metric of each system, not all of them
    tracemalloc.start()
    try:
        significance.paired_bootstrap(stats, stats, metric="f1", n=n, seed=1)
        paired_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert paired_peak <= significance.resample_bytes(n, 2, 40) < peak


def test_a_long_bootstrap_shows_its_progress(capsys, monkeypatch):
    stats = metrics.collect(*[Corpus("g", [["我", "爱"]] * 30, list(range(1, 31)))] * 2)
    monkeypatch.setattr(significance, "PROGRESS_DELAY", 0)
    significance.bootstrap(stats, n=500, seed=1, progress=True)
    assert "bootstrap: " in capsys.readouterr().err
    significance.bootstrap(stats, n=500, seed=1)
    assert capsys.readouterr().err == ""
