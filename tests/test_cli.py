"""`committee score` through the command line: JSON shape, ranks, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from committee.cli import main

REPO = Path(__file__).resolve().parents[1]
JSON_KEYS = {"name", "p", "r", "f1", "pb", "rb", "fb", "p_reward", "p_punishment", "r_reward",
             "r_punishment", "oov_rate", "oov_recall", "iv_recall", "er", "tnr", "boundary_p",
             "boundary_r", "boundary_f1"}


@pytest.fixture
def files(tmp_path):
    """Gold of two sentences; 'easy' gets the easy words right, 'hard' the hard one."""
    (tmp_path / "gold.txt").write_text("计算机 总是 有 问题\n约翰 喜欢 玛丽\n", encoding="utf-8")
    # difficulties: 计算机 is hard (0.9), everything else easy (0.1)
    (tmp_path / "gold.weight").write_text("0.9 0.1 0.1 0.1\n0.1 0.1 0.1\n", encoding="utf-8")
    # 'easy' misses only the hard word 计算机: 6 of 7 words right, 8 predicted
    (tmp_path / "easy.txt").write_text("计算 机 总是 有 问题\n约翰 喜欢 玛丽\n", encoding="utf-8")
    # 'hard' gets 计算机 but splits 约翰 and 玛丽: 5 of 7 right, the hard one among them
    (tmp_path / "hard.txt").write_text("计算机 总是 有 问题\n约 翰 喜欢 玛 丽\n", encoding="utf-8")
    (tmp_path / "words.txt").write_text("计算机\n总是\n有\n问题\n喜欢\n", encoding="utf-8")
    return tmp_path


def test_json_has_every_metric_and_the_signature(files, capsys):
    code = main(["score", "--json", "--gold", str(files / "gold.txt"), "--difficulty",
                 str(files / "gold.weight"), "--train-words", str(files / "words.txt"),
                 str(files / "easy.txt"), str(files / "hard.txt")])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["signature"].startswith("committee-score|")
    assert "difficulty:sha256=" in result["signature"]
    easy, hard = result["systems"]
    assert JSON_KEYS <= set(easy)
    # hand counts: easy has 6 correct of 7 gold and 8 predicted words
    assert (easy["r"], easy["p"]) == (6 / 7, 6 / 8)
    # hard: 5 correct of 7 gold, 9 predicted
    assert (hard["r"], hard["p"]) == (5 / 7, 5 / 9)
    # OOV: 约翰 and 玛丽 are not in the word list (2 of 7 tokens); easy gets both
    assert easy["oov_rate"] == 2 / 7 and easy["oov_recall"] == 1.0
    assert hard["oov_recall"] == 0.0
    for s in (easy, hard):
        assert all(s[k] is None or 0 <= s[k] <= 1 for k in JSON_KEYS - {"name", "er"})


def test_ranks_by_f1_and_fb_can_disagree(files, capsys):
    """easy wins on f1 (0.80 vs 0.625); hard wins on fb (0.676 vs 0.467) because
    it gets the hard word.  By hand, d = 0.9 for 计算机 and 0.1 elsewhere:
    easy: r_reward 0.6/1.5, r_pun 5.4/5.5, p_reward 0.6/2.4, p_pun 5.4/5.6;
    hard: r_reward 1.3/1.5, r_pun 3.7/5.5, p_reward 1.3/1.7, p_pun 3.7/7.3."""
    main(["score", "--json", "--gold", str(files / "gold.txt"), "--difficulty",
          str(files / "gold.weight"), str(files / "easy.txt"), str(files / "hard.txt")])
    easy, hard = json.loads(capsys.readouterr().out)["systems"]
    assert (easy["rank_f1"], hard["rank_f1"]) == (1, 2)
    assert easy["r_reward"] == pytest.approx(0.6 / 1.5)
    assert easy["p_punishment"] == pytest.approx(5.4 / 5.6)
    assert hard["r_punishment"] == pytest.approx(3.7 / 5.5)
    assert hard["p_reward"] == pytest.approx(1.3 / 1.7)
    h = lambda a, b: 2 * a * b / (a + b)  # noqa: E731
    assert hard["fb"] == pytest.approx(h(h(1.3 / 1.7, 3.7 / 7.3), h(1.3 / 1.5, 3.7 / 5.5)))
    assert easy["fb"] == pytest.approx(h(h(0.6 / 2.4, 5.4 / 5.6), h(0.6 / 1.5, 5.4 / 5.5)))
    assert (easy["rank_fb"], hard["rank_fb"]) == (2, 1)
    main(["score", "--gold", str(files / "gold.txt"), "--difficulty",
          str(files / "gold.weight"), str(files / "easy.txt"), str(files / "hard.txt")])
    assert "f1 and fb rank these differently: easy, hard" in capsys.readouterr().out


def test_bootstrap_intervals_and_paired_test(files, capsys):
    main(["score", "--json", "--bootstrap", "200", "--gold", str(files / "gold.txt"),
          "--difficulty", str(files / "gold.weight"), str(files / "easy.txt"),
          str(files / "hard.txt")])
    easy, hard = json.loads(capsys.readouterr().out)["systems"]
    lo, hi = hard["ci"]["fb"]
    assert lo <= hard["fb"] <= hi
    assert easy["paired"]["fb"]["against"] == "hard"
    assert 0 <= easy["paired"]["fb"]["share_a_better"] <= 1


@pytest.mark.parametrize("make, needle, code", [
    (lambda d: ["--gold", str(d / "missing.txt"), str(d / "easy.txt")], "missing.txt: no such file", 3),
    (lambda d: ["--gold", str(d / "gold.txt"), str(d / "short.txt")], "has 1 line,", 3),
    (lambda d: ["--gold", str(d / "gold.txt"), "--difficulty", str(d / "bad.weight"),
                str(d / "easy.txt")], "bad.weight:1", 3),
])
def test_errors_are_one_line_with_exit_code(files, capsys, make, needle, code):
    (files / "short.txt").write_text("计算机 总是 有 问题\n", encoding="utf-8")
    (files / "bad.weight").write_text("0.9 0.1 0.1\n0.1 0.1 0.1\n", encoding="utf-8")
    assert main(["score", *make(files)]) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("committee: error: ") and needle in err[0]


def test_python_dash_m_and_no_traceback(files):
    r = subprocess.run([sys.executable, "-m", "committee", "score", "--gold",
                        str(files / "gold.txt"), str(files / "nope.txt")],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 3 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"committee: error: {files / 'nope.txt'}: no such file"


def test_each_warning_text_is_printed_once_per_command(capsys):
    from committee.cli.entry import warning_printer
    from committee.errors import Note, PlausibilityWarning

    show = warning_printer()
    for _ in range(2):
        show(PlausibilityWarning("out.txt: looks odd"), PlausibilityWarning, "f.py", 1)
    show(Note("parallel.n_jobs: 8 reduced to 2"), Note, "f.py", 1)
    show(PlausibilityWarning("out2.txt: looks odd"), PlausibilityWarning, "f.py", 1)
    assert capsys.readouterr().err == ("committee: warning: out.txt: looks odd\n"
                                       "committee: note: parallel.n_jobs: 8 reduced to 2\n"
                                       "committee: warning: out2.txt: looks odd\n")
    warning_printer()(PlausibilityWarning("out.txt: looks odd"), PlausibilityWarning, "f.py", 1)
    assert capsys.readouterr().err == "committee: warning: out.txt: looks odd\n"  # a new command


# --------------------------------------------------------------------------
# --metrics: the table's columns and ranks, and the JSON

SCORE_DATA = REPO / "tests" / "data" / "score"
SIGNATURE = ("committee-score|gold:sha256=3b6a2fb7f00b|match:exact-span|norm:none|"
             "difficulty:sha256=862da34ff3d1|oov:none|version:0.1.0")


def _score_data(capsys, monkeypatch, *argv: str) -> str:
    """``committee score`` of out-a and out-b against the golden data's gold."""
    monkeypatch.chdir(SCORE_DATA)
    assert main(["score", "out-a.txt", "out-b.txt", "--gold", "gold.txt", "--difficulty",
                 "gold.weight", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("metrics, table", [
    ("f1", ["system      f1  #f1",
            "out-a    72.73    1",
            "out-b    62.50    2"]),
    ("fb,p", ["system      fb       p  #fb",
              "out-a    57.47   75.00    2",
              "out-b    62.09   66.67    1"]),
    ("p,r", ["system       p       r",
             "out-a    75.00   70.59",
             "out-b    66.67   58.82"]),
    ("fb,f1", ["system      fb      f1  #f1  #fb",
               "out-a    57.47   72.73    1    2",
               "out-b    62.09   62.50    2    1",
               "",
               "f1 and fb rank these differently: out-a, out-b"]),
])
def test_rank_columns_follow_the_chosen_metrics(capsys, monkeypatch, metrics, table):
    out = _score_data(capsys, monkeypatch, "--metrics", metrics)
    assert out == "\n".join([*table, "", SIGNATURE]) + "\n"


def test_intervals_and_paired_tests_follow_the_chosen_metrics(capsys, monkeypatch):
    out = _score_data(capsys, monkeypatch, "--metrics", "f1", "--bootstrap", "200", "--seed", "7")
    assert out.splitlines()[3:10] == [
        "", "95% bootstrap intervals:",
        "  out-a   f1 [43.24, 100.00]",
        "  out-b   f1 [22.22, 92.31]",
        "", "paired bootstrap (share of resamples in which the first system is better):",
        "  f1: out-b > out-a: 0.420"]


def test_json_holds_only_the_chosen_metrics(capsys, monkeypatch):
    result = json.loads(_score_data(capsys, monkeypatch, "--metrics", "fb,er", "--json"))
    assert result == {"signature": SIGNATURE, "systems": [
        {"name": "out-a", "path": "out-a.txt", "fb": 0.5746531859863625,
         "er": 0.23529411764705882, "rank_fb": 2},
        {"name": "out-b", "path": "out-b.txt", "fb": 0.6208955223880597,
         "er": 0.29411764705882354, "rank_fb": 1}]}


def test_json_of_chosen_metrics_keeps_their_intervals_and_paired_test(capsys, monkeypatch):
    full = json.loads(_score_data(capsys, monkeypatch, "--bootstrap", "200", "--seed", "7",
                                  "--json"))
    chosen = json.loads(_score_data(capsys, monkeypatch, "--metrics", "f1,r", "--bootstrap",
                                    "200", "--seed", "7", "--json"))
    a, b = full["systems"]
    assert chosen == {"signature": full["signature"], "systems": [
        {"name": "out-a", "path": "out-a.txt", "f1": a["f1"], "r": a["r"],
         "ci": {"f1": a["ci"]["f1"], "r": a["ci"]["r"]}, "rank_f1": 1,
         "paired": {"f1": a["paired"]["f1"]}},
        {"name": "out-b", "path": "out-b.txt", "f1": b["f1"], "r": b["r"],
         "ci": {"f1": b["ci"]["f1"], "r": b["ci"]["r"]}, "rank_f1": 2}]}


def test_system_names_drop_every_known_extension(tmp_path, capsys):
    gold = (SCORE_DATA / "gold.txt").read_text(encoding="utf-8")
    names = ["jieba.txt", "tagger.bio", "pku.utf8.seg", "msr.gb", "out.conllu", "model.v2",
             "jieba.TXT"]
    for name in names:
        (tmp_path / name).write_text(gold, encoding="utf-8")
    assert main(["score", "--gold", str(SCORE_DATA / "gold.txt"), "--json",
                 *(str(tmp_path / n) for n in names)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in result["systems"]] == ["jieba", "tagger", "pku", "msr", "out",
                                                      "model.v2", "jieba-2"]


# --------------------------------------------------------------------------
# help texts and the README's synopsis

def _help(command: str, capsys, monkeypatch) -> dict[str, str]:
    """``committee COMMAND --help``: each option's help text, by its flag
    (one line each, on a wide terminal)."""
    monkeypatch.setenv("COLUMNS", "400")
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    texts = {}
    for line in capsys.readouterr().out.splitlines():
        if line.startswith("  -"):
            flags, _, text = line.strip().partition("  ")
            texts[flags.split(", ")[-1].split()[0]] = text.strip()
    return texts


def test_each_file_option_says_what_it_reads(capsys, monkeypatch):
    from committee.corpus import FORMATS

    texts = _help("score", capsys, monkeypatch)
    encodings = "utf-8, gb18030, big5, cp950, big5hkscs, ... (default: utf-8)"
    assert {k: texts[k] for k in ("--gold-format", "--train-format", "--format")} == {
        "--gold-format": f"format of GOLD: {', '.join(FORMATS)} (default: that of --format)",
        "--train-format": f"format of the --train CORPUS: {', '.join(FORMATS)} (default: that "
                          "of --format)",
        "--format": f"format of the OUTPUTs: {', '.join(FORMATS)} (default: sighan; bio with "
                    "--task ner, pku with --task pos)"}
    assert {k: texts[k] for k in ("--gold-encoding", "--train-encoding", "--encoding")} == {
        "--gold-encoding": f"encoding of GOLD: {encodings}",
        "--train-encoding": f"encoding of the --train CORPUS or --train-words file: {encodings}",
        "--encoding": f"encoding of the OUTPUTs: {encodings}"}


def test_help_of_with_names_every_segmenter(capsys, monkeypatch):
    from committee.segmenters import SEGMENTERS

    *names, last = SEGMENTERS
    assert _help("segment", capsys, monkeypatch)["--with"].startswith(
        f"{', '.join(names)} or {last} (each an optional extra")
    for command in ("run", "report"):
        assert _help(command, capsys, monkeypatch)["--with"].startswith(
            f"segment the test set with NAME ({', '.join(SEGMENTERS)}, or 'cmd:COMMAND'")


def test_readme_synopsis_of_segment_names_every_segmenter():
    from committee.segmenters import SEGMENTERS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    synopsis = re.findall(r"^committee segment --with (\S+\|\S+)", readme, re.MULTILINE)
    assert [names.split("|") for names in synopsis] == [[*SEGMENTERS, "cmd:COMMAND"]]


def test_a_subcommand_declared_in_its_module_is_everywhere(monkeypatch, capsys):
    """A module with ``add(sub)`` and its ``cmd_*``, named in
    ``entry.COMMANDS``: the top --help lists it, its own --help shows its
    options, main runs it, and its check's refusal is one line, exit code 2."""
    import types

    from committee.cli import entry
    from committee.cli.options import UsageError, quiet_option
    from committee.errors import InputError

    def cmd_hello(args):
        if args.name == "nowhere":
            raise InputError(args.name, None, "no such place")
        print(f"hello {args.name}")
        return 0

    def check(args):
        if args.name == "nobody":
            raise UsageError("NAME: nobody is no one")

    def add(sub):
        h = sub.add_parser("hello", help="say hello to NAME", description="Say hello to NAME.")
        h.add_argument("name", metavar="NAME")
        quiet_option(h)
        h.set_defaults(func=cmd_hello, check=check)

    monkeypatch.setattr(entry, "COMMANDS", entry.COMMANDS + (types.SimpleNamespace(add=add),))
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert re.search(r"^\s+hello\s+say hello to NAME$", capsys.readouterr().out, re.M)
    with pytest.raises(SystemExit):
        main(["hello", "--help"])
    assert "Say hello to NAME." in capsys.readouterr().out
    assert main(["hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"
    assert main(["hello", "nobody"]) == 2
    assert capsys.readouterr().err == ("committee: error: NAME: nobody is no one "
                                       "(see 'committee hello --help')\n")
    assert main(["hello", "nowhere"]) == 3
    assert capsys.readouterr().err == "committee: error: nowhere: no such place\n"
