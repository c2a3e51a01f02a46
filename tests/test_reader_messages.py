"""Messages of the corpus readers and of `--set` that name what is wrong
and a way on that the command has (docs/errors.md, "3: input"): each
asserted whole, through the command that shows it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from committee.cli import main

sys.path.insert(0, str(Path(__file__).parent))

CONLLU_SPACED = "1 北京 北京 PROPN _ _ 0 root _ _\n2 好 好 ADJ _ _ 1 amod _ _\n\n"
CONLLU_BAD_ID = ("abc\t北京\t_\tPROPN\t_\t_\t0\troot\t_\t_\n"
                 "2\t好\t_\tADJ\t_\t_\t1\tamod\t_\t_\n\n")


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("task", ["segmentation", "pos"])
def test_conllu_with_spaces_for_tabs_is_named_conllu_not_sighan(tmp_path, capsys, task):
    f = tmp_path / "spaces.conllu"
    f.write_text(CONLLU_SPACED, encoding="utf-8")
    code, out, err = _run(["score", "--task", task, "--gold", f, "--format", "conllu", f], capsys)
    assert (code, out) == (3, "")
    assert err == (f"committee: error: {f}:1: looks like CoNLL-U with its columns separated by "
                   "spaces (10 columns, no tab), read as conllu: CoNLL-U separates its 10 "
                   "columns by tabs: replace the spaces between columns with tabs\n")


def test_underscore_tokens_without_tags_are_named_underscore_not_sighan(tmp_path, capsys):
    f = tmp_path / "u.txt"
    f.write_text("上海_ 浦东_\n北京_ 大学_\n", encoding="utf-8")
    code, out, err = _run(["score", "--task", "pos", "--gold", f, "--format", "underscore", f],
                          capsys)
    assert (code, out) == (3, "")
    assert err == (f"committee: error: {f}:1: looks like underscore tokens with empty tags (such "
                   "as '上海_'), read as underscore: every token is word_TAG: give each word "
                   "its tag after the last '_'\n")


def test_a_sighan_file_read_as_conllu_is_still_named_sighan(tmp_path, capsys):
    f = tmp_path / "plain.txt"
    f.write_text("北京 大学 好\n你好 世界\n", encoding="utf-8")
    code, _, err = _run(["score", "--gold", f, "--format", "conllu", f], capsys)
    assert code == 3
    assert err == (f"committee: error: {f}:1: looks like sighan (several words a line, "
                   "separated by spaces), read as conllu: set --gold-format sighan\n")


def test_a_conllu_id_that_is_no_number_is_refused_with_its_line(tmp_path, capsys):
    f = tmp_path / "id.conllu"
    f.write_text(CONLLU_BAD_ID, encoding="utf-8")
    code, out, err = _run(["score", "--gold", f, "--format", "conllu", f], capsys)
    assert (code, out) == (3, "")
    assert err == (f"committee: error: {f}:1: ID 'abc' is not a number (column 1 of CoNLL-U is "
                   "a word's index from 1, a range such as 3-4 or an empty node such as 5.1): "
                   "number each sentence's word lines 1, 2, 3, ...\n")
    # ranges and empty nodes stay accepted
    f.write_text("1-2\t北京好\t_\t_\t_\t_\t_\t_\t_\t_\n" + CONLLU_BAD_ID.replace("abc", "1")
                 + "", encoding="utf-8")
    assert _run(["score", "--gold", f, "--format", "conllu", f], capsys)[0] == 0


def _cmd_tagger(tmp_path) -> str:
    script = tmp_path / "tagger.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    print(' '.join(c + '/n' for c in line.strip()), flush=True)\n",
                      encoding="utf-8")
    return f"cmd:{sys.executable} {script}"


def test_segment_pos_tags_an_untagged_test_set_given_its_format(tmp_path, capsys):
    test = tmp_path / "plain.txt"
    test.write_text("北京 大学 好\n你好 世界\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    tagger = _cmd_tagger(tmp_path)
    code, _, err = _run(["segment", "--task", "pos", "--with", tagger, test, "-o", out], capsys)
    # the advice names segment's own option ...
    assert code == 3
    assert err == (f"committee: error: {test}:1: looks like sighan (several words a line, "
                   "separated by spaces), read as pku: set --format sighan\n")
    # ... and following it works: the tagger reads only the characters
    code, _, err = _run(["segment", "--task", "pos", "--with", tagger, "--format", "sighan",
                         "--quiet", test, "-o", out], capsys)
    assert code == 0, err
    assert out.read_text(encoding="utf-8") == "北/n  京/n  大/n  学/n  好/n\n你/n  好/n  世/n  界/n\n"
    assert "score" not in err and "--task segmentation" not in err


@pytest.fixture
def pos_run(task_runs):
    """The session's runs of pos (tests/conftest.py); a test works on a copy."""
    return task_runs["pos"]


def test_report_of_a_pos_run_says_what_system_reads(pos_run, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(pos_run.k3, run)
    plain = tmp_path / "plain.txt"
    plain.write_text("北京 大学 好\n", encoding="utf-8")
    code, out, err = _run(["report", run, "--only", "ranking", "--system", plain], capsys)
    assert (code, out) == (3, "")
    assert err == (f"committee: error: {plain}:1: looks like sighan (several words a line, "
                   "separated by spaces), read as pku: --system of a run of pos reads UTF-8 pku "
                   "(word/POS tokens) files; give this output in that format\n")
    gb = tmp_path / "gb.txt"
    gb.write_bytes(pos_run.outputs["retag"].read_text(encoding="utf-8").encode("gb18030"))
    code, _, err = _run(["report", run, "--only", "ranking", "--system", gb], capsys)
    assert code == 3 and "--encoding" not in err and "--format" not in err
    assert err.startswith(f"committee: error: {gb}:1: cannot decode as utf-8 at byte 1 ")
    assert err.endswith(": --system of a run of pos reads UTF-8 pku (word/POS tokens) files; "
                        "give this output in UTF-8 (it decodes as gb18030)\n")


@pytest.mark.parametrize("setting, line", [
    ("experiments.table2_fractions=[0.5,2]",
     "--set experiments.table2_fractions=[0.5,2]: [1]: must be <= 1, got 2"),
    ("task=ner", "--set task=ner: corpus.train.format: task ner needs entity tags: set format: "
                 "bio (a token and its tag a line), got pku"),
    ("committee.size=0", "--set committee.size=0: must be >= 1, got 0"),
])
def test_report_set_errors_name_the_set_not_the_manifest(pos_run, capsys, setting, line):
    code, out, err = _run(["report", pos_run.k3, "--set", setting], capsys)
    assert (code, out, err) == (4, "", f"committee: error: {line}\n")
    assert "manifest.json" not in err
