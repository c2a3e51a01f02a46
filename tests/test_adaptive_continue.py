"""``committee score --adaptive -o FILE`` keeps every answer a system gave
after every batch, and ``--continue FILE`` (``adaptive_score(resume=)``)
serves them instead of asking the system again: an interrupted test
continued with the same seed is the uninterrupted one, byte for byte, and
asks the system only for the sentences the file lacks; a file that does
not fit the test is refused naming its line (docs/method.md §16)."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

import committee
from committee.cli import main
from committee.scoring import adaptive_draws, adaptive_run
from test_adaptive import run  # noqa: F401  (the module's fixture)

#: A cmd: segmenter that splits every sentence into characters, logs each
#: sentence it is given, and fails once it has been called as many times
#: as its budget file allows.
SCRIPT = """\
import os, sys
log, budget = sys.argv[1], sys.argv[2]
texts = sys.stdin.read().splitlines()
calls = log + ".calls"
n = len(open(calls).read().splitlines()) if os.path.exists(calls) else 0
open(calls, "a").write("call\\n")
if os.path.exists(budget) and n >= int(open(budget).read()):
    sys.exit("out of budget")
with open(log, "a", encoding="utf-8") as f:
    f.writelines(t + "\\n" for t in texts)
for t in texts:
    print(" ".join(t))
"""


@pytest.fixture()
def tool(tmp_path):
    """``(name, log, budget)``: the ``--with`` name of :data:`SCRIPT`, the
    file it logs sentences to and the file of its budget (no file: none)."""
    (tmp_path / "chars.py").write_text(SCRIPT, encoding="utf-8")
    log, budget = tmp_path / "sent.txt", tmp_path / "budget.txt"
    name = (f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'chars.py'))} "
            f"{shlex.quote(str(log))} {shlex.quote(str(budget))}")
    return name, log, budget


def _score(run, *argv):
    return main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 "--seed", "9", "--json", *map(str, argv)])


def _sent(log):
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def _without_reuse(out: str) -> dict:
    doc = json.loads(out)
    for s in doc["systems"]:
        s.pop("sentences_reused")
    return doc


def test_an_interrupted_test_continued_is_the_uninterrupted_one(run, tool, tmp_path, capsys):
    name, log, budget = tool
    # uninterrupted
    assert _score(run, "--with", name, "--max-sentences", 40, "-o", tmp_path / "full.tsv") == 0
    full_out = capsys.readouterr().out
    full_sent = _sent(log)
    log.unlink()
    (tmp_path / "sent.txt.calls").unlink()
    # interrupted after two batches: the TSV holds what they asked
    budget.write_text("2", encoding="utf-8")
    assert _score(run, "--with", name, "--max-sentences", 40, "-o", tmp_path / "part.tsv") != 0
    assert "out of budget" in capsys.readouterr().err
    paid = _sent(log)
    rows = [r.split("\t") for r in
            (tmp_path / "part.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    assert {r[1] for r in rows} == {"1", "2"}
    assert len({r[2] for r in rows}) == len(paid) == len(set(paid))
    full_rows = (tmp_path / "full.tsv").read_text(encoding="utf-8").splitlines()
    assert (tmp_path / "part.tsv").read_text(encoding="utf-8").splitlines() == \
        full_rows[:len(rows) + 1]
    # continued: the recorded sentences are not asked again
    budget.unlink()
    log.unlink()
    assert _score(run, "--with", name, "--max-sentences", 40, "--continue",
                  tmp_path / "part.tsv", "-o", tmp_path / "part.tsv") == 0
    out = capsys.readouterr().out
    assert (tmp_path / "part.tsv").read_bytes() == (tmp_path / "full.tsv").read_bytes()
    assert _without_reuse(out) == _without_reuse(full_out)
    system = json.loads(out)["systems"][0]
    assert system["sentences_reused"] == len(paid)
    assert sorted(_sent(log)) == sorted(set(full_sent) - set(paid))
    assert len(_sent(log)) + len(paid) == system["sentences_used"] == 40


def test_a_larger_budget_asks_only_for_the_new_sentences(run, tool, tmp_path, capsys):
    name, log, _ = tool
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 "--with", name, "--max-sentences", "20", "-o", str(tmp_path / "a.tsv")]) == 0
    first = set(_sent(log))
    assert len(first) == 20
    log.unlink()
    capsys.readouterr()
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 "--with", name, "--max-sentences", "35", "--continue",
                 str(tmp_path / "a.tsv")]) == 0
    text = capsys.readouterr().out.splitlines()[0]
    assert text.startswith(f"{name}: 35 sentences (") and \
        f"draws, 20 from {tmp_path / 'a.tsv'}), stopped by max-sentences" in text
    again = _sent(log)
    assert len(again) == 15 and not first & set(again)


def test_the_api_continues_an_output_file(run, tmp_path):
    gold = run / "test.txt"
    first = committee.adaptive_score(gold, run / "p20.txt", run, max_sentences=15, seed=4)
    assert first["sentences_reused"] == 0
    (tmp_path / "d.tsv").write_text(adaptive_draws.draws_tsv(
        adaptive_run.load_bank(gold, run), [first]), encoding="utf-8")
    # every recorded line garbled in the output: only the file's words can serve them
    lines = (run / "p20.txt").read_text(encoding="utf-8").splitlines()
    drawn = {d["sentence"] for d in first["drawn"]}
    garbled = ["乱 码" if i + 1 in drawn else ln for i, ln in enumerate(lines)]
    (tmp_path / "p20.txt").write_text("\n".join(garbled) + "\n", encoding="utf-8")
    again = committee.adaptive_score(gold, tmp_path / "p20.txt", run, max_sentences=15, seed=4,
                                     resume=tmp_path / "d.tsv")
    assert again["sentences_reused"] == 15
    assert again["estimates"] == first["estimates"] and again["drawn"] == first["drawn"]


@pytest.fixture()
def recorded(run, tmp_path, capsys):
    """A TSV of draws of ``p5`` (10 sentences) and its lines."""
    assert _score(run, "--max-sentences", 10, "-o", tmp_path / "d.tsv", run / "p5.txt") == 0
    capsys.readouterr()
    return tmp_path / "d.tsv", (tmp_path / "d.tsv").read_text(encoding="utf-8").splitlines()


def _tampered(path, lines, row: int, column: str, value: str) -> None:
    cells = lines[row - 1].split("\t")
    cells[adaptive_draws.DRAW_COLUMNS.index(column)] = value
    path.write_text("\n".join(lines[:row - 1] + ["\t".join(cells)] + lines[row:]) + "\n",
                    encoding="utf-8")


@pytest.mark.parametrize("column, value, message", [
    ("words", lambda w: "错" + w[1:],
     lambda path, c, gold: f"{path}:2: characters differ from {gold}:{c[3]} at character 1: "
                           f"the output has '错' where the gold has {c[-2][0]!r} (the sentence "
                           "drawn by --adaptive)"),
    ("words", lambda w: w.replace(" ", "  ", 1),
     lambda path, c, gold: f"{path}:2: an empty token in words (two spaces in a row, or one "
                           "at an end): tokens are separated by one space"),
    ("line", lambda w: "999",
     lambda path, c, gold: f"{path}:2: sentence {c[2]} at gold line 999, but it is at "
                           f"{gold}:{c[2]}: the draws are of another gold"),
    ("sentence", lambda w: "61",
     lambda path, c, gold: f"{path}:2: sentence '61' is not a sentence of {gold} (1 to 60)"),
    ("system", lambda w: "p6",
     lambda path, c, gold: f"{path}:2: draws of system 'p6', which is not being tested "
                           "('p5'): continue a test with the systems it recorded, under the "
                           "same names"),
    ("labels", lambda w: "n",
     lambda path, c, gold: f"{path}:2: has labels, but task segmentation scores words alone: "
                           "the draws are of another task"),
])
def test_a_tampered_file_is_refused_naming_its_line(run, recorded, capsys, column, value,
                                                    message):
    path, lines = recorded
    original = lines[1].split("\t")
    _tampered(path, lines, 2, column, value(original[adaptive_draws.DRAW_COLUMNS.index(column)]))
    assert _score(run, "--max-sentences", 10, "--continue", path, run / "p5.txt") == 3
    assert capsys.readouterr().err.strip() == \
        f"committee: error: {message(path, original, run / 'test.txt')}"


def test_a_file_that_is_no_tsv_of_draws_is_refused(run, recorded, capsys):
    path, lines = recorded
    path.write_text("\n".join(["system\tbatch"] + lines[1:]) + "\n", encoding="utf-8")
    assert _score(run, "--continue", path, run / "p5.txt") == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {path}:1: not a TSV of draws of committee score --adaptive -o: "
        f"its header must be the columns {', '.join(adaptive_draws.DRAW_COLUMNS)}")
    path.write_text("\n".join(lines[:2] + [lines[2] + "\textra"]) + "\n", encoding="utf-8")
    assert _score(run, "--continue", path, run / "p5.txt") == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {path}:3: has {len(adaptive_draws.DRAW_COLUMNS) + 1} columns, "
        f"the header {len(adaptive_draws.DRAW_COLUMNS)}")


def test_two_rows_of_one_sentence_must_agree(run, recorded, capsys):
    path, lines = recorded
    cells = lines[1].split("\t")
    words = cells[-2].split(" ")
    if len(words) < 2:
        pytest.skip("the first sentence drawn has one word")
    other = cells[:]
    other[-2] = "".join(words[:2]) + (" " + " ".join(words[2:]) if words[2:] else "")
    path.write_text("\n".join(lines + ["\t".join(other)]) + "\n", encoding="utf-8")
    assert _score(run, "--continue", path, run / "p5.txt") == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {path}:{len(lines) + 1}: sentence {cells[2]} of p5 differs from its "
        "row at line 2")


def test_continue_is_an_option_of_adaptive(run, recorded, capsys):
    path, _ = recorded
    assert main(["score", "--gold", str(run / "test.txt"), "--continue", str(path),
                 str(run / "p5.txt")]) == 2
    assert "--continue is an option of --adaptive" in capsys.readouterr().err


def test_an_output_file_that_cannot_be_written_is_refused_before_any_draw(run, tmp_path,
                                                                          capsys):
    assert _score(run, "-o", tmp_path, run / "p5.txt") == 2
    assert capsys.readouterr().err.startswith(f"committee: error: -o {tmp_path}: is a directory")


def test_the_tsv_of_draws_never_overwrites_an_output(run, tmp_path, capsys):
    import shutil

    shutil.copy(run / "p5.txt", tmp_path / "p5.txt")
    before = (tmp_path / "p5.txt").read_bytes()
    assert _score(run, "-o", tmp_path / "p5.txt", tmp_path / "p5.txt") == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {tmp_path / 'p5.txt'}: the TSV of draws (-o) is the OUTPUT "
        f"{tmp_path / 'p5.txt'}: committee score --adaptive would overwrite its own input; "
        "choose another file for -o")
    assert (tmp_path / "p5.txt").read_bytes() == before
