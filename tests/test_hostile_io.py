"""Hostile inputs and outputs: a command never writes onto one of its inputs,
a run is checked against its recorded checksums before it is used, output is
never lost silently, and inputs are read block by block so that binary or
endless input is refused at once.

The cases of the command line are one table (``CASES``): each builds its
files in a copy of a real toy run, runs ``committee`` in process and checks
the exit code and the exact line on stderr; the streams that only a real
process has (standard output or input closed, ``/dev/full``) are a second
table run through a shell.  Properties of the block-by-block reader follow.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toyrun
from committee import cli, corpus
from committee.system import files as files_mod
from committee.system import streams as inputs_mod
from committee.scoring import irt as irt_mod
from committee.pipeline import dataset
from committee.pipeline import layout
from committee.config import load_config
from committee.corpus import decoding
from committee.errors import DecodeError, InputError, PlausibilityWarning
from committee.system.files import sha256_file

REPO = Path(__file__).resolve().parents[1]
REWRITE = "rerun the same committee run to rewrite it (saved members are not trained again)"


@pytest.fixture(scope="module")
def base_run(toy_corpus, tmp_path_factory):
    """A finished 6-member toy run with a 1PL fit of committee irt (items.tsv, irt.json)."""
    tmp = tmp_path_factory.mktemp("hostile")
    out = tmp / "run"
    cfg = toyrun.write_config(tmp / "toy.yaml", toy_corpus, out, size=6)
    dataset.run(load_config(cfg), progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)  # 6 members: few for IRT
        irt_mod.run(out, model="1pl", export=False)
    return out


@pytest.fixture
def run(base_run, tmp_path):
    """A copy of the toy run, to damage."""
    return Path(shutil.copytree(base_run, tmp_path / "run"))


# --------------------------------------------------------------------------
# setting up each case: ``setup(run, tmp) -> (argv, values for the message)``


def _gold(run: Path, tmp: Path) -> Path:
    return Path(shutil.copyfile(run / "test.txt", tmp / "g.txt"))


def _output(run: Path, tmp: Path) -> Path:
    """A system's output: the gold with the first two words of line 1 joined."""
    lines = (run / "test.txt").read_text(encoding="utf-8").split("\n")
    words = lines[0].split(" ")
    lines[0] = " ".join([words[0] + words[1]] + words[2:])
    out = tmp / "out.txt"
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def _segment(output, test) -> list[str]:
    return ["segment", "--with", "jieba", "--quiet", "-o", str(output), str(test)]


def segment_same_path(run, tmp):
    g = _gold(run, tmp)
    return _segment(g, g), {"g": g}


def segment_onto_symlink(run, tmp):
    g = _gold(run, tmp)
    (tmp / "link.txt").symlink_to(g)
    return _segment(tmp / "link.txt", g), {"g": g, "link": tmp / "link.txt"}


def segment_test_through_symlink(run, tmp):
    g = _gold(run, tmp)
    (tmp / "link.txt").symlink_to(g)
    return _segment(g, tmp / "link.txt"), {"g": g, "link": tmp / "link.txt"}


def segment_onto_hard_link(run, tmp):
    g = _gold(run, tmp)
    os.link(g, tmp / "hard.txt")
    return _segment(tmp / "hard.txt", g), {"g": g, "hard": tmp / "hard.txt"}


def report_system_is_report_md(run, tmp):
    return ["report", str(run), "--only", "bins", "--quiet", "--system",
            str(run / "report.md")], {}


def report_system_hard_link_to_table2_csv(run, tmp):
    (run / "table2.csv").write_text("model,f1\n", encoding="utf-8")
    os.link(run / "table2.csv", tmp / "sys.txt")
    return ["report", str(run), "--only", "bins", "--quiet", "--system",
            str(tmp / "sys.txt")], {}


def report_human_inside_report_dir(run, tmp):
    (run / "report").mkdir()
    (run / "report" / "human.txt").write_text("jieba 1\n", encoding="utf-8")
    return ["report", str(run), "--only", "ranking", "--quiet", "--human",
            str(run / "report" / "human.txt")], {}


def run_test_corpus_is_an_output(run, tmp):
    """A config whose test corpus is the test.txt of its own output.dir (a
    --restart would discard it before writing it again)."""
    shutil.copyfile(run / "test.txt", tmp / "train.txt")
    cfg = toyrun.write_config(tmp / "c.yaml", tmp, run, size=6)
    text = cfg.read_text(encoding="utf-8").replace("path: test.txt", f"path: {run}/test.txt")
    cfg.write_text(text, encoding="utf-8")
    return ["run", str(cfg), "--restart", "--quiet"], {}


def irt_system_is_items_tsv(run, tmp):
    return ["irt", str(run), "--model", "1pl", "--system", str(run / "items.tsv")], {}


def _edit_test_txt(run: Path) -> dict:
    """``孙 海涛`` -> ``孙海 涛``: the same number of words, other words."""
    old = sha256_file(run / "test.txt")
    text = (run / "test.txt").read_text(encoding="utf-8")
    assert "孙 海涛" in text
    (run / "test.txt").write_text(text.replace("孙 海涛", "孙海 涛", 1), encoding="utf-8")
    return {"old": old[:12], "new": sha256_file(run / "test.txt")[:12]}


def _truncate(path: Path, keep: int = 1000) -> dict:
    old = sha256_file(path)
    path.write_bytes(path.read_bytes()[:keep])
    return {"old": old[:12], "new": sha256_file(path)[:12]}


def _unrecord(run: Path, name: str) -> None:
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"][name]
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def irt_unfinished_run(run, tmp):
    (run / "manifest.json").unlink()
    return ["irt", str(run), "--model", "1pl"], {}


def report_edited_test_txt(run, tmp):
    return ["report", str(run), "--only", "bins", "--quiet"], _edit_test_txt(run)


def irt_edited_test_txt(run, tmp):
    return ["irt", str(run), "--model", "1pl", "--no-export"], _edit_test_txt(run)


def report_truncated_marks(run, tmp):
    return ["report", str(run), "--only", "bins", "--quiet"], _truncate(run / "marks.npz")


def report_truncated_predictions(run, tmp):
    return (["report", str(run), "--only", "bins", "--quiet"],
            _truncate(run / "predictions.npz"))


def irt_truncated_marks_unrecorded(run, tmp):
    _truncate(run / "marks.npz")
    _unrecord(run, "marks.npz")
    return ["irt", str(run), "--model", "1pl", "--no-export"], {}


def report_truncated_marks_unrecorded(run, tmp):
    _truncate(run / "marks.npz")
    _unrecord(run, "marks.npz")
    return ["report", str(run), "--only", "bins", "--quiet"], {}


def _score(run, tmp, *extra) -> list[str]:
    return ["score", "--gold", str(run / "test.txt"), *extra, str(_output(run, tmp))]


def score_difficulty_edited_weight(run, tmp):
    path = run / "test.weight"
    old = sha256_file(path)
    path.write_text(path.read_text(encoding="utf-8").replace("0.5", "0.6", 1), encoding="utf-8")
    return _score(run, tmp, "--difficulty", str(run)), {"old": old[:12],
                                                        "new": sha256_file(path)[:12]}


def score_truncated_weight_c(run, tmp):
    values = _truncate(run / "test.weight_c")
    return _score(run, tmp, "--difficulty", str(run / "test.weight_c")), values


def score_gold_edited(run, tmp):
    values = _edit_test_txt(run)
    return _score(run, tmp, "--difficulty", str(run)), values


def score_train_words_edited(run, tmp):
    path = run / "train-words.txt"
    old = sha256_file(path)
    path.write_text(path.read_text(encoding="utf-8") + "新词\n", encoding="utf-8")
    return (_score(run, tmp, "--train-words", str(path)),
            {"old": old[:12], "new": sha256_file(path)[:12]})


def score_irt_edited_items(run, tmp):
    path = run / "items.tsv"
    old = sha256_file(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    cells = lines[1].split("\t")
    cells[5] = "0.5"  # irt_b of the first word
    lines[1] = "\t".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    return (_score(run, tmp, "--irt", str(run)),
            {"old": old[:12], "new": sha256_file(path)[:12]})


def score_broken_manifest(run, tmp):
    (run / "manifest.json").write_text("{not json", encoding="utf-8")
    return _score(run, tmp, "--difficulty", str(run)), {}


def score_gold_dev_zero(run, tmp):
    return ["score", "--gold", "/dev/zero", str(_output(run, tmp))], {}


def score_output_dev_zero(run, tmp):
    return ["score", "--gold", str(run / "test.txt"), "/dev/zero"], {}


def score_difficulty_dev_zero(run, tmp):
    return _score(run, tmp, "--difficulty", "/dev/zero"), {}


def score_train_words_dev_zero(run, tmp):
    return _score(run, tmp, "--train-words", "/dev/zero"), {}


def _fifo(tmp: Path, head: bytes, tail: bytes) -> Path:
    """A FIFO fed ``head`` and then ``tail`` over and over, until its reader
    goes away (the writer thread ends on the broken pipe)."""
    path = tmp / "fifo"
    os.mkfifo(path)

    def feed():
        try:
            with open(path, "wb") as f:
                f.write(head)
                while True:
                    f.write(tail)
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    return path


def score_fifo_endless_line(run, tmp):
    fifo = _fifo(tmp, b"", "孙海涛".encode() * 1000)
    return ["score", "--gold", str(run / "test.txt"), str(fifo)], {"fifo": fifo}


def score_fifo_text_then_zeros(run, tmp):
    fifo = _fifo(tmp, "一 二\n".encode() * 5 + b"abc", b"\0" * 4096)
    return ["score", "--gold", str(fifo), str(_output(run, tmp))], {"fifo": fifo}


@dataclass(frozen=True)
class Case:
    setup: Callable
    code: int
    line: str  # the one line on stderr, formatted with run, tmp and the setup's values


CASES = {
    # inputs are sacred
    "segment-same-path": Case(segment_same_path, 3, (
        "{g}: the output (-o) is the input TEST: committee segment would overwrite its own "
        "input; choose another output file")),
    "segment-onto-symlink": Case(segment_onto_symlink, 3, (
        "{link}: the output (-o) is the input TEST {g} (a symbolic link): committee segment "
        "would overwrite its own input; choose another output file")),
    "segment-test-through-symlink": Case(segment_test_through_symlink, 3, (
        "{g}: the output (-o) is the input TEST {link} (a symbolic link): committee segment "
        "would overwrite its own input; choose another output file")),
    "segment-onto-hard-link": Case(segment_onto_hard_link, 3, (
        "{hard}: the output (-o) is the input TEST {g} (a hard link): committee segment would "
        "overwrite its own input; choose another output file")),
    "report-system-is-report.md": Case(report_system_is_report_md, 3, (
        "{run}/report.md: the input (--system) is an output of committee report: committee "
        "report would overwrite its own input; give another file")),
    "report-system-hard-link": Case(report_system_hard_link_to_table2_csv, 3, (
        "{tmp}/sys.txt: the input (--system) is an output of committee report "
        "{run}/table2.csv (a hard link): committee report would overwrite its own input; "
        "give another file")),
    "report-human-inside-report": Case(report_human_inside_report_dir, 3, (
        "{run}/report/human.txt: the input (--human) is inside {run}/report/, which committee "
        "report writes: it may overwrite its own input; give a file from elsewhere")),
    "run-test-corpus-is-an-output": Case(run_test_corpus_is_an_output, 3, (
        "{run}/test.txt: the input (corpus.test.path) is an output of committee run: committee "
        "run would overwrite its own input; give another file")),
    "irt-system-is-items.tsv": Case(irt_system_is_items_tsv, 3, (
        "{run}/items.tsv: the input (--system) is an output of committee irt: committee irt "
        "would overwrite its own input; give another file")),
    # runs verified before use
    "irt-unfinished-run": Case(irt_unfinished_run, 5, (
        "{run} holds a committee run that is not finished (no manifest.json: it was "
        "interrupted); rerun the same committee run to finish it")),
    "report-edited-test.txt": Case(report_edited_test_txt, 3, (
        "{run}/test.txt: changed since committee run wrote it (sha256 {new}, manifest.json "
        "records {old}); " + REWRITE)),
    "irt-edited-test.txt": Case(irt_edited_test_txt, 3, (
        "{run}/test.txt: changed since committee run wrote it (sha256 {new}, manifest.json "
        "records {old}); " + REWRITE)),
    "report-truncated-marks": Case(report_truncated_marks, 3, (
        "{run}/marks.npz: changed since committee run wrote it (sha256 {new}, manifest.json "
        "records {old}); " + REWRITE)),
    "report-truncated-predictions": Case(report_truncated_predictions, 3, (
        "{run}/predictions.npz: changed since committee run wrote it (sha256 {new}, "
        "manifest.json records {old}); " + REWRITE)),
    "irt-truncated-marks-unrecorded": Case(irt_truncated_marks_unrecorded, 3, (
        "{run}/marks.npz: not a readable .npz file (File is not a zip file): truncated or "
        "damaged? " + REWRITE)),
    "report-truncated-marks-unrecorded": Case(report_truncated_marks_unrecorded, 3, (
        "{run}/marks.npz: not a readable .npz file (File is not a zip file): truncated or "
        "damaged? " + REWRITE)),
    "score-difficulty-edited-weight": Case(score_difficulty_edited_weight, 3, (
        "{run}/test.weight: changed since committee run wrote it (sha256 {new}, manifest.json "
        "records {old}); " + REWRITE)),
    "score-truncated-weight_c": Case(score_truncated_weight_c, 3, (
        "{run}/test.weight_c: changed since committee run wrote it (sha256 {new}, "
        "manifest.json records {old}); " + REWRITE)),
    "score-gold-edited": Case(score_gold_edited, 3, (
        "{run}/test.txt: changed since committee run wrote it (sha256 {new}, manifest.json "
        "records {old}); " + REWRITE)),
    "score-train-words-edited": Case(score_train_words_edited, 3, (
        "{run}/train-words.txt: changed since committee run wrote it (sha256 {new}, "
        "manifest.json records {old}); " + REWRITE)),
    "score-irt-edited-items": Case(score_irt_edited_items, 3, (
        "{run}/items.tsv: changed since committee irt wrote it (sha256 {new}, irt.json records "
        "{old}); rerun committee irt {run}")),
    "score-broken-manifest": Case(score_broken_manifest, 3, (
        "{run}/manifest.json: not valid JSON (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)), so the files it records cannot be checked; "
        + REWRITE)),
    # bounded reads: refused in the first block, never read to the end
    "score-gold-dev-zero": Case(score_gold_dev_zero, 3,
                                "/dev/zero:1: binary data? control character U+0000 at column 1"),
    "score-output-dev-zero": Case(score_output_dev_zero, 3,
                                  "/dev/zero:1: binary data? control character U+0000 at "
                                  "column 1"),
    "score-difficulty-dev-zero": Case(score_difficulty_dev_zero, 3,
                                      "/dev/zero:1: binary data? control character U+0000 at "
                                      "column 1"),
    "score-train-words-dev-zero": Case(score_train_words_dev_zero, 3,
                                       "/dev/zero:1: binary data? control character U+0000 at "
                                       "column 1"),
    "score-fifo-endless-line": Case(score_fifo_endless_line, 3, (
        "{fifo}:1: line longer than 1,000,000 characters without a line end (an endless "
        "stream, or not a text file?); give a file with one sentence a line")),
    "score-fifo-text-then-zeros": Case(score_fifo_text_then_zeros, 3, (
        "{fifo}:6: binary data? control character U+0000 at column 4")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name, run, tmp_path, capsys):
    case = CASES[name]
    argv, values = case.setup(run, tmp_path)
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()}
    assert cli.main(argv) == case.code
    out, err = capsys.readouterr()
    expected = case.line.format(run=run, tmp=tmp_path, **values)
    assert err == f"committee: error: {expected}\n"
    assert out == ""
    # a refused command writes nothing into the run
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()} == before


def test_refused_segment_leaves_its_input_whole(run, tmp_path, capsys):
    g = _gold(run, tmp_path)
    data = g.read_bytes()
    assert cli.main(_segment(g, g)) == 3
    assert g.read_bytes() == data


def test_segment_to_another_file_still_works(run, tmp_path, capsys):
    g = _gold(run, tmp_path)
    assert cli.main(_segment(tmp_path / "seg.txt", g)) == 0
    assert corpus.read_corpus(tmp_path / "seg.txt").n_chars() == corpus.read_corpus(g).n_chars()


def test_an_untouched_run_is_used(run, tmp_path, capsys):
    """The checks refuse nothing of a run as it was written (and record irt's files)."""
    recorded = json.loads((run / "irt.json").read_text(encoding="utf-8"))["files"]
    assert recorded == {"irt-flags.tsv": sha256_file(run / "irt-flags.tsv"),
                        "items.tsv": sha256_file(run / "items.tsv")}
    for names in layout.READ_BY.values():
        layout.verify(run, names)
    assert cli.main(_score(run, tmp_path, "--difficulty", str(run), "--irt", str(run),
                           "--train-words", str(run / "train-words.txt"))) == 0


def test_the_advice_works(run, toy_corpus, tmp_path, capsys):
    """"Rerun the same committee run": after committee irt wrote its files into
    the run, the rerun accepts the directory and rewrites the edited file from
    the saved members, which the report then accepts."""
    original = (run / "test.txt").read_bytes()
    _edit_test_txt(run)
    cfg = toyrun.write_config(tmp_path / "toy.yaml", toy_corpus, run, size=6)
    assert cli.main(["irt", str(run), "--model", "1pl"]) == 3
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    assert "6 members saved, 0 to train" in capsys.readouterr().err
    assert (run / "test.txt").read_bytes() == original
    for names in layout.READ_BY.values():
        layout.verify(run, names)


def test_stdin_endless_lines_refused_at_the_size_limit(run, tmp_path, capsys, monkeypatch):
    """An endless stream of valid lines on standard input stops at MAX_INPUT_BYTES."""

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            chunk = ("孙 海涛\n".encode() * 10000)[:len(b)]
            b[:len(chunk)] = chunk
            return len(chunk)

    monkeypatch.setattr(inputs_mod, "MAX_INPUT_BYTES", 1 << 20)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    assert cli.main(["score", "--gold", str(run / "test.txt"), "-"]) == 3
    assert capsys.readouterr().err == (
        "committee: error: <stdin>: more than 1 MiB of input (an endless stream?); inputs are "
        "read whole, up to 1 MiB each: give a smaller file\n")


def test_human_judgements_refuse_binary_input():
    from committee.report.systems import read_human

    with pytest.raises(InputError) as e:
        read_human("/dev/zero", ["jieba"])
    assert str(e.value) == "/dev/zero:1: binary data? control character U+0000 at column 1"


def test_figures_are_written_atomically(tmp_path):
    """A figure whose drawing fails leaves no file, whole or partial."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from committee.report import plots

    def broken(f, **kw):
        f.write(b"\x89PNG half")
        raise RuntimeError("drawing failed")

    fig = Figure()
    fig.savefig = broken
    with pytest.raises(RuntimeError):
        plots.save(fig, tmp_path / "fig.png")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# standard streams of a real process


def _shell(command: str, tmp: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(["bash", "-c", command], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=120)


STREAM_CASES = {
    "stdout-closed": ("score --gold g.txt out.txt >&-", 6,
                      "committee: error: <stdout>: cannot write: standard output is closed, the "
                      "results would be lost; redirect it to a file (> FILE) or to /dev/null\n"),
    "segment-to-stdout-closed": ("segment --with jieba --quiet -o - g.txt >&-", 6,
                                 "committee: error: <stdout>: cannot write: standard output is "
                                 "closed, the results would be lost; redirect it to a file "
                                 "(> FILE) or to /dev/null\n"),
    "stdout-full": ("score --gold g.txt out.txt > /dev/full", 6,
                    "committee: error: <stdout>: cannot write: No space left on device; free "
                    "some space or redirect standard output elsewhere (> FILE)\n"),
    "stdout-read-only": ("score --gold g.txt out.txt 1< /dev/null", 6,
                         "committee: error: <stdout>: cannot write: Bad file descriptor; "
                         "redirect standard output elsewhere (> FILE)\n"),
    "stdin-closed": ("score --gold g.txt - <&-", 3,
                     "committee: error: <stdin>: standard input is closed; pipe the file in "
                     "(< FILE) or give its path in place of '-'\n"),
    # the reader is gone before the results are written (EPIPE): quiet, 128 + SIGPIPE
    "pipe-closed-early": ("score --gold g.txt out.txt --json | true; exit ${PIPESTATUS[0]}",
                          141, ""),
    "segment-to-file-stdout-closed": ("segment --with jieba --quiet -o seg.txt g.txt >&- "
                                      "2>/dev/null", 0, ""),
}


@pytest.mark.parametrize("name", list(STREAM_CASES))
def test_standard_streams(name, run, tmp_path):
    command, code, err = STREAM_CASES[name]
    _gold(run, tmp_path)
    _output(run, tmp_path)
    p = _shell(f"{sys.executable} -m committee {command}", tmp_path)
    assert (p.returncode, p.stderr) == (code, err)


# --------------------------------------------------------------------------
# the block-by-block reader


def _whole(data: bytes, encoding: str, controls: bool = False):
    """What reading ``data`` whole gives: ``("ok", text)``, ``("empty",)`` or
    ``("error", line, column, kind)`` of the first problem in the file."""
    bad = decoding.NUL_OR_CR if controls else decoding.BAD_CHAR
    try:
        text, end = data.decode(encoding), None
    except UnicodeDecodeError as e:
        text, end = data[:e.start].decode(encoding), e.start
    text = text[1:] if text.startswith("\ufeff") else text
    m = bad.search(text)
    if m:
        i = m.start()
        return ("error", text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i), "char")
    if end is not None:
        return ("error", data[:end].count(b"\n") + 1, end - data.rfind(b"\n", 0, end), "decode")
    return ("ok", text) if text.strip() else ("empty",)


def _streamed(path: Path, encoding: str, controls: bool = False):
    try:
        text, _ = decoding.read_text(path, str(path), encoding, controls=controls)
    except InputError as e:
        if "file is empty" in e.message:
            return ("empty",)
        kind = "decode" if isinstance(e, DecodeError) else "char"
        col = e.column if kind == "decode" else int(e.message.split("column ")[1].split()[0])
        return ("error", e.line, col, kind)
    return ("ok", text)


TEXTY = st.lists(st.sampled_from(["孙", "海涛", " ", "\n", "\r\n", "\r", "\x00", "a", "\ufeff",
                                  "\u3000"]), max_size=40)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=TEXTY, junk=st.binary(max_size=3), cut=st.integers(0, 40),
       block=st.integers(1, 9), encoding=st.sampled_from(["utf-8", "gb18030"]),
       controls=st.booleans())
def test_blocks_read_like_the_whole_file(tmp_path, monkeypatch, pieces, junk, cut, block,
                                         encoding, controls):
    """Whatever the block size, the reader gives the text of the whole file, or
    refuses its first problem at the same line and column."""
    data = "".join(pieces).encode(encoding)
    data = data[:cut] + junk + data[cut:]
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    monkeypatch.setattr(inputs_mod, "BLOCK_SIZE", block)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)
        assert _streamed(path, encoding, controls) == _whole(data, encoding, controls)


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(alphabet="孙海涛 a", max_size=14), min_size=1, max_size=8),
       crlf=st.booleans(), block=st.integers(1, 12))
def test_line_limit_is_exact(tmp_path, monkeypatch, lines, crlf, block):
    """A line (its characters before ``\\n``) of more than MAX_LINE_CHARS is
    refused, naming the first such line; one of exactly that many is read."""
    limit = 12  # at least the characters of a block, as fileio requires
    end = "\r\n" if crlf else "\n"
    path = tmp_path / "f.txt"
    path.write_bytes(end.join(lines).encode("utf-8"))
    monkeypatch.setattr(inputs_mod, "BLOCK_SIZE", block)
    monkeypatch.setattr(inputs_mod, "MAX_LINE_CHARS", limit)
    lengths = [len(s) + (crlf and i < len(lines) - 1) for i, s in enumerate(lines)]
    too_long = [i + 1 for i, n in enumerate(lengths) if n > limit]
    try:
        inputs_mod.read_text(path)
        got = None
    except InputError as e:
        assert e.message.startswith("line longer than 12 characters without a line end")
        got = e.line
    assert got == (too_long[0] if too_long else None)


def test_line_limit_default_reads_long_sentences(tmp_path):
    """The longest line allowed is read; one more character is refused."""
    n = inputs_mod.MAX_LINE_CHARS
    assert n >= inputs_mod.BLOCK_SIZE  # a line held in one block cannot pass the limit unseen
    (tmp_path / "ok.txt").write_text("好" * n + "\n", encoding="utf-8")
    assert corpus.read_corpus(tmp_path / "ok.txt").n_chars() == n
    (tmp_path / "long.txt").write_text("好" * (n + 1) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        corpus.read_corpus(tmp_path / "long.txt")
    assert str(e.value) == (f"{tmp_path / 'long.txt'}:1: line longer than 1,000,000 "
                            "characters without a line end (an endless stream, or not a text "
                            "file?); give a file with one sentence a line")


# --------------------------------------------------------------------------
# -o: the output file a user names is written where the user expects

SENTENCES = "约翰  喜欢  玛丽\n\n计算机  总是  有  问题\n"
SEGMENTED = "约翰喜欢玛丽\n\n计算机总是有问题\n"  # what cmd:cat gives (a sentence, one word)


@pytest.fixture
def sentences_file(tmp_path) -> Path:
    """test.txt: the test set a `committee segment` in these tests reads."""
    (tmp_path / "test.txt").write_text(SENTENCES, encoding="utf-8")
    return tmp_path / "test.txt"


def _cat(test: Path, output) -> list[str]:
    return ["segment", "--with", "cmd:cat", "--quiet", "-o", str(output), str(test)]


def test_o_onto_a_fifo_is_written_into_it(sentences_file, tmp_path, capsys):
    """A FIFO is opened and written in place: its reader gets every byte and
    the FIFO stays a FIFO (it is never replaced by a file)."""
    import stat

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert cli.main(_cat(sentences_file, fifo)) == 0
    reader.join(30)
    assert got == [SEGMENTED.encode("utf-8")]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert capsys.readouterr().err.startswith(f"wrote {fifo}: 3 sentences segmented by cat ")


@pytest.mark.parametrize("exists", [True, False], ids=["target", "dangling"])
def test_o_onto_a_symlink_writes_its_target(sentences_file, tmp_path, capsys, exists):
    """The link is followed: its target is replaced atomically (or made, for
    a dangling link) and the link stays a link to it."""
    target = tmp_path / "real.txt"
    if exists:
        target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    assert cli.main(_cat(sentences_file, link)) == 0
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert target.read_text(encoding="utf-8") == SEGMENTED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt", "test.txt"]


def test_o_onto_dev_full_is_an_output_error(sentences_file, capsys):
    import stat

    assert cli.main(_cat(sentences_file, "/dev/full")) == 6
    assert capsys.readouterr() == ("", "committee: error: /dev/full: cannot write: No space "
                                       "left on device; free some space or choose another "
                                       "output file\n")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_o_onto_dev_null_leaves_the_device(sentences_file, capsys):
    import stat

    assert cli.main(_cat(sentences_file, "/dev/null")) == 0
    assert capsys.readouterr().err.startswith("wrote /dev/null: 3 sentences")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("output, line", [
    ("{tmp}", "-o {tmp}: is a directory; name a file"),
    ("{tmp}/link", "-o {tmp}/link: is a directory; name a file"),
    ("{tmp}/new/", "-o {tmp}/new/: ends in '/', so it names a directory; name a file"),
], ids=["directory", "link-to-directory", "trailing-slash"])
def test_o_onto_a_directory_is_a_usage_error(sentences_file, tmp_path, capsys, output, line):
    (tmp_path / "link").symlink_to(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert cli.main(_cat(sentences_file, output.format(tmp=tmp_path))) == 2
    assert capsys.readouterr() == ("", f"committee: error: {line.format(tmp=tmp_path)} (see "
                                       "'committee segment --help')\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_open_output_refuses_a_directory_and_names_a_link_loop(tmp_path):
    """The library's refusals (the command line refuses a directory first)."""
    from committee.errors import OutputError

    with pytest.raises(OutputError) as e:
        with files_mod.open_output(tmp_path):
            pass
    assert (str(e.value), e.value.exit_code) == (
        f"{tmp_path}: cannot write: is a directory; name a file", 6)
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(OutputError) as e:
        with files_mod.open_output(tmp_path / "loop"):
            pass
    assert str(e.value) == (f"{tmp_path}/loop: cannot write: is a symbolic link loop: "
                            "following it never reaches a file; name a file")


def test_a_stream_is_never_refused_as_an_input_it_would_overwrite(tmp_path):
    """Reading and writing one device or FIFO overwrites nothing: the same
    file on both sides is refused only when it is a regular file."""
    from committee.errors import InputError

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    regular = tmp_path / "g.txt"
    regular.write_text("x\n", encoding="utf-8")
    args = ("the output (-o)", "the input TEST", "committee segment", "choose another output file")
    for stream in ("/dev/null", fifo):
        assert files_mod.same_file(stream, stream) == "the same path"  # the same file ...
        assert files_mod.refuse_overwrite(stream, args[0], stream, *args[1:]) is None  # ... passes
    with pytest.raises(InputError, match="would overwrite its own input"):
        files_mod.refuse_overwrite(regular, args[0], regular, *args[1:])


O_STREAM_CASES = {
    # the text goes to the process's standard output (a pipe here)
    "o-dev-stdout": ("segment --with cmd:cat --quiet -o /dev/stdout test.txt", 0, SEGMENTED,
                     "wrote /dev/stdout: 3 sentences segmented by cat cmd "),
    "o-dev-fd-1": ("segment --with cmd:cat --quiet -o /dev/fd/1 test.txt", 0, SEGMENTED,
                   "wrote /dev/fd/1: 3 sentences segmented by cat cmd "),
    "o-dev-stdout-closed": ("segment --with cmd:cat --quiet -o /dev/stdout test.txt >&-", 6, "",
                            "committee: error: /dev/stdout: cannot write: the file descriptor "
                            "it leads to is closed; redirect it (> FILE) or choose another "
                            "output file\n"),
    # a file behind /dev/stdout that is the input is still refused
    "o-dev-stdout-is-the-input": ("segment --with cmd:cat --quiet -o /dev/stdout test.txt "
                                  "1<>test.txt", 3, "",
                                  "committee: error: /dev/stdout: the output (-o) is the input "
                                  "TEST test.txt (a symbolic link): committee segment would "
                                  "overwrite its own input; choose another output file\n"),
}


@pytest.mark.parametrize("name", list(O_STREAM_CASES))
def test_o_onto_standard_output(name, sentences_file, tmp_path):
    command, code, out, err = O_STREAM_CASES[name]
    p = _shell(f"{sys.executable} -m committee {command}", tmp_path)
    assert (p.returncode, p.stdout) == (code, out)
    assert p.stderr.startswith(err) and p.stderr.count("\n") == 1
    assert (tmp_path / "test.txt").read_text(encoding="utf-8") == SENTENCES
