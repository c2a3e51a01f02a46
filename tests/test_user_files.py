"""Real users' files through the commands: one format and one encoding per
file, signatures over content, plausibility checks, standard streams, one
convention for usage errors, Ctrl-C.  Each test reproduces a mistake and
pins the message that now answers it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from committee import config as config_mod
from committee import corpus as corpus_mod
from committee import scoring
from committee.pipeline import dataset
from committee.cli import main
from committee.errors import DecodeError, PlausibilityWarning
from toyrun import embedded

REPO = Path(__file__).resolve().parents[1]
COMMITTEE = [sys.executable, "-m", "committee"]


def _merge_fifth(sentence):
    """An output: every 5th word merged with the next (a known error rate)."""
    out, i = [], 0
    while i < len(sentence):
        if i % 5 == 0 and i + 1 < len(sentence):
            out.append(sentence[i] + sentence[i + 1])
            i += 2
        else:
            out.append(sentence[i])
            i += 1
    return out


def _conllu(sentences) -> str:
    return "".join("".join(f"{i}\t{w}\t{w}\tX\t_\t_\t0\tdep\t_\t_\n" for i, w in enumerate(s, 1))
                   + "\n" for s in sentences)


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    """People's Daily: 600 training sentences, a gold of 60 and an output,
    in UTF-8, GB18030 and CoNLL-U."""
    d = tmp_path_factory.mktemp("files")
    full = embedded()
    train, gold = full.words[:600], full.words[3000:3060]
    corpus_mod.write_sighan(d / "train.txt", train)
    corpus_mod.write_sighan(d / "gold.txt", gold)
    corpus_mod.write_sighan(d / "out.txt", [_merge_fifth(s) for s in gold])
    for name in ("gold", "train"):
        text = (d / f"{name}.txt").read_text(encoding="utf-8")
        (d / f"{name}.gb").write_bytes(text.encode("gb18030"))
    words = "".join(w + "\n" for w in sorted(corpus_mod.training_words(
        corpus_mod.read_corpus(d / "train.txt"))))
    (d / "words.txt").write_text(words, encoding="utf-8")
    (d / "words.gb").write_bytes(words.encode("gb18030"))
    (d / "train.conllu").write_text(_conllu(train), encoding="utf-8")
    (d / "gold.conllu").write_text(_conllu(gold), encoding="utf-8")
    # unsegmented text: one "word" a sentence
    (d / "raw.txt").write_text("".join("".join(s) + "\n" for s in train), encoding="utf-8")
    return d


def _score(argv, capsys, cwd):
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(["score", *argv])
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out, err


def _config(d: Path, name: str, train: str, test: str = "gold.txt", size: int = 4,
            extra: str = "") -> Path:
    path = d / f"{name}.yaml"
    path.write_text(f"""
name: {name}
corpus:
  root: {d}
  train: {{path: {train}}}
  test: {{path: {test}}}
{extra}committee: {{size: {size}, templates: [F1], ratios: [0.2], seed: 7}}
crf: {{algorithm: lbfgs, params: {{c2: 1.0, max_iterations: 5}}}}
output: {{dir: {d / ('out-' + name)}}}
""", encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# a wrong format stops a run before any member trains, with the fix in the
# caller's terms


def test_a_conllu_training_file_read_as_sighan_stops_the_run(d, capsys):
    code = main(["run", str(_config(d, "conllu", "train.conllu")), "--quiet"])
    err = capsys.readouterr().err
    assert code == 3
    assert err == (f"committee: error: {d}/train.conllu:1: looks like CoNLL-U (10 tab-separated "
                   "columns), read as sighan: set corpus.train.format: conllu\n")
    assert not (d / "out-conllu").exists()


@pytest.mark.parametrize("argv, fix", [
    (["--train", "train.conllu", "out.txt"], "train.conllu:1: looks like CoNLL-U (10 tab-separated "
                                             "columns), read as sighan: set --train-format conllu"),
    (["--gold", "gold.conllu", "out.txt"], "gold.conllu:1: looks like CoNLL-U (10 tab-separated "
                                           "columns), read as sighan: set --gold-format conllu"),
    (["--gold", "gold.txt", "gold.conllu"], "gold.conllu:1: looks like CoNLL-U (10 tab-separated "
                                            "columns), read as sighan: set --format conllu"),
])
def test_score_names_the_flag_of_the_file_in_the_wrong_format(d, capsys, argv, fix):
    if "--gold" not in argv:
        argv = ["--gold", "gold.txt", *argv]
    code, out, err = _score(argv, capsys, d)
    assert (code, out, err) == (3, "", f"committee: error: {fix}\n")


def test_a_conllu_gold_scores_against_sighan_output(d, capsys):
    code, conllu, _ = _score(["--json", "--gold", "gold.conllu", "--gold-format", "conllu",
                              "out.txt"], capsys, d)
    assert code == 0
    code, sighan, _ = _score(["--json", "--gold", "gold.txt", "out.txt"], capsys, d)
    assert json.loads(conllu) == json.loads(sighan)  # same words: same scores, same signature


def test_unsegmented_training_text_stops_after_the_first_members(d, capsys):
    code = main(["run", str(_config(d, "raw", "raw.txt")), "--quiet"])
    err = capsys.readouterr().err
    assert code == 5
    assert err.startswith("committee: error: the first 3 members of 4 score a median f1 of 0.0")
    assert err.endswith("(below 0.5): they cannot segment the test set, so every word would look "
                        "hard; are the format and encoding of corpus.train raw.txt (sighan, utf-8) "
                        "and corpus.test gold.txt (sighan, utf-8) right? Fix the config and rerun "
                        "with --restart\n")
    assert len(list((d / "out-raw" / "members").iterdir())) == 3  # the 4th never trained


# --------------------------------------------------------------------------
# one encoding per file; signatures over content


def test_a_gb18030_gold_scores_like_the_utf8_one(d, capsys):
    code, utf8, _ = _score(["--json", "--gold", "gold.txt", "--train-words", "words.txt",
                            "out.txt"], capsys, d)
    assert code == 0
    code, gb, _ = _score(["--json", "--gold", "gold.gb", "--gold-encoding", "gb18030",
                          "--train-words", "words.gb", "--train-encoding", "gb18030", "out.txt"],
                         capsys, d)
    assert code == 0
    assert json.loads(gb) == json.loads(utf8)
    sig = json.loads(gb)["signature"]
    assert f"gold:sha256={corpus_mod.content_sha256(corpus_mod.read_corpus(d / 'gold.txt').words)[:12]}" in sig
    # the same words, whatever the file: the oov: field is the words' checksum
    words = (d / "words.txt").read_text(encoding="utf-8").split()
    assert f"oov:words={corpus_mod.word_list_sha256(words)[:12]}" in sig


def test_the_encoding_hint_names_the_gold_flag(d, capsys):
    code, out, err = _score(["--gold", "gold.gb", "--encoding", "gb18030", "out.txt"], capsys, d)
    assert (code, err) == (3, "committee: error: gold.gb:1: cannot decode as utf-8 at byte 1 "
                              "(0xcc): try --gold-encoding gb18030\n")


def test_the_python_api_reads_each_file_in_its_encoding(d):
    a = scoring.score(d / "gold.gb", d / "out.txt", gold_encoding="gb18030",
                      train_words=d / "train.gb", train_format="sighan", train_encoding="gb18030")
    b = scoring.score(d / "gold.txt", d / "out.txt", train_words=d / "train.txt",
                      train_format="sighan")
    assert a.to_dict() == b.to_dict()
    with pytest.raises(DecodeError, match=r"try gold_encoding='gb18030'$"):
        scoring.score(d / "gold.gb", d / "out.txt")


def test_a_run_signs_its_corpora_by_content(d):
    utf8 = config_mod.load_config(_config(d, "u", "train.txt"))
    gb = config_mod.load_config(_config(d, "g", "train.gb", "gold.gb").as_posix(), [
        "corpus.train.encoding=gb18030", "corpus.test.encoding=gb18030", "name=u",
        f"output.dir={d / 'out-u'}"])
    a, b = dataset.load_inputs(utf8), dataset.load_inputs(gb)
    assert a.train.sha256 != b.train.sha256  # other bytes
    assert dataset.difficulty_signature(utf8, a) == dataset.difficulty_signature(gb, b)
    assert dataset.run_fingerprint(utf8, a) == dataset.run_fingerprint(gb, b)


# --------------------------------------------------------------------------
# training on the test set; gold and output the wrong way round


def test_training_on_the_test_set_is_refused(d, capsys):
    code = main(["run", str(_config(d, "same", "gold.txt")), "--quiet"])
    err = capsys.readouterr().err
    assert code == 3
    assert err == (f"committee: error: {d}/gold.txt: holds the same words as the training corpus "
                   f"{d}/gold.txt (train/test overlap 100%): a committee trained on its test set "
                   "finds every word easy; give another test set, or accept it with "
                   "corpus.allow_overlap: true\n")
    code, out, err = _score(["--gold", "gold.txt", "--train", "gold.txt", "out.txt"], capsys, d)
    assert (code, err) == (3, "committee: error: gold.txt: holds the same words as the training "
                              "corpus gold.txt (train/test overlap 100%): a committee trained on "
                              "its test set finds every word easy; give another test set, or "
                              "accept it with --allow-overlap\n")
    code, out, err = _score(["--gold", "gold.txt", "--train", "gold.txt", "--allow-overlap",
                             "out.txt"], capsys, d)
    assert code == 0 and err.startswith("committee: warning: gold.txt: holds the same words")


def test_a_large_overlap_warns(d, capsys):
    lines = (d / "train.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    gold = (d / "gold.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (d / "mix.txt").write_text("".join(lines[:30] + gold[:30]), encoding="utf-8")
    path = _config(d, "mix", "train.txt", "mix.txt")
    with pytest.warns(PlausibilityWarning, match=r"mix\.txt: 30 of its 60 sentences \(50\.0%\) "
                                                 r"occur verbatim in the training corpus .*"
                                                 r"\(train/test overlap above 20%\)"):
        dataset.load_inputs(config_mod.load_config(path))


def test_the_gold_given_as_output_warns(d, capsys):
    code, out, err = _score(["--gold", "gold.txt", "gold.txt"], capsys, d)
    assert code == 0
    assert err == ("committee: warning: gold.txt: has the same words as the gold gold.txt (every "
                   "score would be 1): was the gold given in place of the output?\n")


def test_gold_and_output_the_wrong_way_round(tmp_path, capsys):
    # a run's test set (its test.txt) given as the output, an output as the gold
    from toyrun import make_toy_corpus, write_config

    make_toy_corpus(tmp_path)
    out = tmp_path / "run"
    assert main(["run", str(write_config(tmp_path / "c.yaml", tmp_path, out)), "--quiet"]) == 0
    test = corpus_mod.read_corpus(out / "test.txt")
    corpus_mod.write_sighan(tmp_path / "sys.txt", [_merge_fifth(s) for s in test.words])
    capsys.readouterr()
    code = main(["score", "--gold", str(tmp_path / "sys.txt"), "--difficulty",
                 str(out / "test.weight"), str(out / "test.txt")])
    err = capsys.readouterr().err
    assert code == 3
    assert err.endswith(f"; the gold {tmp_path}/sys.txt is not the test set of this run "
                        f"({out}/test.txt): were the gold and an output given the wrong way "
                        "round?\n")
    # a gold whose words fit the difficulties: the output is the run's gold
    scorer = scoring.Scorer(tmp_path / "sys.txt")
    scorer.known_golds = {test.content_sha256}
    with pytest.warns(PlausibilityWarning, match=r"has the words of the gold of this test set, "
                                                 r"and the gold .*sys\.txt does not: were the gold "
                                                 r"and the output given the wrong way round\?"):
        scorer.read(out / "test.txt")


# --------------------------------------------------------------------------
# standard streams


def test_standard_input_is_an_output(d):
    p = subprocess.run([*COMMITTEE, "score", "--gold", "gold.txt", "--json", "-"], cwd=d,
                       input=(d / "out.txt").read_bytes(), capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    from_file = scoring.score(d / "gold.txt", d / "out.txt")
    result = json.loads(p.stdout)
    assert result["systems"][0]["name"] == "stdin"
    assert result["systems"][0]["f1"] == from_file.f1
    p = subprocess.run([*COMMITTEE, "score", "--gold", "gold.txt", "-", "-"], cwd=d,
                       capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stderr) == (2, "committee: error: standard input ('-') can be given "
                                           "as one OUTPUT only (see 'committee score --help')\n")


@pytest.mark.skipif(not __import__("importlib.util").util.find_spec("jieba"),
                    reason="jieba is not installed")
def test_segment_pipes_into_score(d):
    seg = subprocess.Popen([*COMMITTEE, "segment", "--with", "jieba", "gold.txt", "-o", "-",
                            "--quiet"], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p = subprocess.run([*COMMITTEE, "score", "--gold", "gold.txt", "--metrics", "p,r,f1", "-"],
                       cwd=d, stdin=seg.stdout, capture_output=True, text=True, timeout=300)
    seg.stdout.close()
    assert seg.wait(timeout=60) == 0
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].split() == ["system", "p", "r", "f1", "#f1"]


# --------------------------------------------------------------------------
# one convention for usage errors


def test_metrics_chooses_the_columns(d, capsys):
    code, out, _ = _score(["--gold", "gold.txt", "--metrics", "f1,fb,oov_r", "out.txt"], capsys, d)
    assert code == 0 and out.splitlines()[0].split() == ["system", "f1", "fb", "oov_r", "#f1", "#fb"]
    code, out, err = _score(["--gold", "gold.txt", "--metrics", "f1,f2", "out.txt"], capsys, d)
    assert (code, out) == (2, "")
    assert err.startswith("committee: error: --metrics: unknown metric f2; choose from p, r, f1,")


@pytest.mark.parametrize("argv, message", [
    (["--skip", "tabel2"], "--skip: unknown analysis tabel2 (did you mean table2?); choose from "
                           "table2, stability, linguistic, ranking, bins, split_half, word_weights, "
                           "irt, cost, buckets, entities, tags, confusion"),
    (["--with", "cmd: "], "--with cmd: : no command after cmd:; choose from jieba, thulac, "
                          "snownlp, pkuseg, lac, jiojio, rjieba or cmd:COMMAND"),
    (["--with", "hanlp"], "--with hanlp: unknown segmenter; choose from jieba, thulac, snownlp, "
                          "pkuseg, lac, jiojio, rjieba or cmd:COMMAND"),
])
def test_report_usage_errors_exit_2(tmp_path, capsys, argv, message):
    code = main(["report", str(tmp_path), *argv])
    assert (code, capsys.readouterr().err) == (2, f"committee: error: {message} "
                                                  "(see 'committee report --help')\n")


def test_a_bad_set_value_is_named_as_the_set(d, capsys):
    code = main(["run", str(_config(d, "set", "train.txt")), "--set", "committee.size=0"])
    assert (code, capsys.readouterr().err) == (
        4, "committee: error: --set committee.size=0: must be >= 1, got 0\n")


# --------------------------------------------------------------------------
# resume summary and Ctrl-C


def test_the_resume_summary_is_on_the_terminal(tmp_path, capsys):
    from toyrun import make_toy_corpus, write_config

    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "c.yaml", tmp_path, tmp_path / "run", size=3)
    assert main(["run", str(cfg), "--quiet"]) == 0
    (tmp_path / "run" / "members" / "member-0001.json").unlink()
    capsys.readouterr()
    assert main(["run", str(cfg), "--quiet"]) == 0
    assert capsys.readouterr().err == (f"committee: resuming {tmp_path / 'run'}: 2 members "
                                       "saved, 1 to train\n")


def test_ctrl_c_during_table2_with_one_worker(tmp_path):
    """SIGINT while a Table 2 model trains in the main process (one worker):
    exit 130 at once, the run's files kept."""
    from toyrun import write_config

    full = embedded()
    corpus_mod.write_sighan(tmp_path / "train.txt", full.words[:3000])
    corpus_mod.write_sighan(tmp_path / "test.txt", full.words[5000:5040])
    cfg = write_config(tmp_path / "c.yaml", tmp_path, tmp_path / "run", size=1)
    # no convergence test: the model trains for its 10,000 iterations
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(
        "max_iterations: 5", "max_iterations: 5, delta: 0.0, epsilon: 0.0"), encoding="utf-8")
    assert main(["run", str(cfg), "--quiet"]) == 0
    before = sorted(p.name for p in (tmp_path / "run").iterdir())
    p = subprocess.Popen([*COMMITTEE, "report", str(tmp_path / "run"), "--only", "table2",
                          "--set", "experiments.table2_fractions=[1.0]",
                          "--set", "experiments.table2_max_iterations=10000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in p.stderr:  # wait until the model is being trained (a note on stderr)
            if "Table 2 model(s) on 1 worker(s)" in line:
                break
        time.sleep(2)  # past reading the corpora, inside crfsuite
        assert p.poll() is None, "the model trained too fast to be interrupted"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        code = p.wait(timeout=30)
        elapsed = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
    rest = p.stderr.read()
    p.stderr.close()
    p.stdout.close()
    assert code == 130
    assert "committee: interrupted (SIGINT); finished work is kept" in rest
    # at once, not after the model's 10,000 iterations (minutes): about 0.1 s on an
    # idle machine, 20 s leaves room for a loaded one
    assert elapsed < 20, f"took {elapsed:.1f} s to stop"
    assert set(before) <= {q.name for q in (tmp_path / "run").iterdir()}
