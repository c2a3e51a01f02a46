"""The bad-input matrix (issue 5): every way a user can hand ``committee``
something it cannot use, through ``committee score``, ``committee run`` and
the library readers.

Each CLI case must end with a non-zero exit code, exactly one line on stderr
(``committee: error: ...``) that names the file and line, or the config key,
and says what is wrong or what to do, no traceback, nothing on stdout and
nothing written.  Most cases call :func:`committee.cli.main` in-process; a few
run the real ``committee`` process.  Root ignores file permissions, so
unreadable files, read-only directories and full disks are simulated with
``monkeypatch``.
"""

from __future__ import annotations

import builtins
import errno
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from committee import cli
from committee.pipeline import difficulty as difficulty_mod
from committee.system import streams as inputs_mod
from committee.corpus import Corpus, read_corpus, read_word_list
from committee.errors import InputError
from toyrun import snapshot

REPO = Path(__file__).resolve().parents[1]

GOLD = "约翰 喜欢 玛丽\n我 爱 北京 天安门\n计算机 总是 有 问题\n"
OUTPUT = "约翰喜欢 玛丽\n我 爱 北京 天安门\n计算机 总是 有问题\n"
WEIGHT = "0.0 0.5 1.0\n0.0 0.0 0.25 0.75\n0.5 0.0 1.0 0.0\n"
TRAIN = "约翰 喜欢 北京\n我 爱 计算机\n问题 总是 有\n" * 4

CONFIG = """\
name: bad
corpus:
  train: {{path: {train}}}
  test: {{path: {test}}}
committee: {{size: 2, seed: 1}}
crf: {{params: {{max_iterations: 2}}}}
output: {{dir: {out}}}
"""


# --------------------------------------------------------------------------
# helpers


def put(path: Path, data) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def score_files(d: Path, output=OUTPUT, weight=None, gold=GOLD, name="out.txt"):
    """Gold, one output and (optionally) a difficulty file; argv of ``committee score``."""
    put(d / "gold.txt", gold)
    out = put(d / name, output) if output is not None else d / name
    argv = ["score", "--gold", str(d / "gold.txt")]
    if weight is not None:
        put(d / "gold.weight", weight)
        argv += ["--difficulty", str(d / "gold.weight")]
    return argv + [str(out)]


def run_files(d: Path, text: str | None = None, **subst) -> list[str]:
    """Corpora and a config for ``committee run``; ``text`` replaces the config."""
    put(d / "train.txt", subst.pop("train_text", TRAIN))
    put(d / "test.txt", subst.pop("test_text", GOLD))
    values = {"train": d / "train.txt", "test": d / "test.txt", "out": d / "run"} | subst
    put(d / "c.yaml", text if text is not None else CONFIG.format(**values))
    return ["run", str(d / "c.yaml"), "--quiet"]


def raising_open(target: str, exc: OSError):
    """``open`` that raises ``exc`` for paths ending in ``target``."""
    real = builtins.open

    def fake(file, *args, **kwargs):
        if str(file).endswith(target):
            raise exc
        return real(file, *args, **kwargs)

    return fake


# --------------------------------------------------------------------------
# the matrix: (id, build(tmp_path, monkeypatch) -> argv, exit code, pattern)


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable
    code: int
    pattern: str  # regex the single stderr line must contain (re.search)


def _score(**kw):
    return lambda d, mp: score_files(d, **kw)


def _unreadable_output(d, mp):
    argv = score_files(d)
    mp.setattr(inputs_mod, "open", raising_open("out.txt", PermissionError(13, "Permission denied")),
               raising=False)
    return argv


def _unreadable_weight(d, mp):
    argv = score_files(d, weight=WEIGHT)
    mp.setattr(inputs_mod, "open", raising_open("gold.weight", PermissionError(13, "Permission denied")),
               raising=False)
    return argv


def _missing_gold(d, mp):
    argv = score_files(d)
    (d / "gold.txt").unlink()
    return argv


def _output_is_directory(d, mp):
    argv = score_files(d, output=None)
    (d / "out.txt").mkdir()
    return argv


def _long_line(d, mp):
    n = 200_000
    gold = "好 " * n + "\n"
    output = "好 " * (n - 1) + "妤\n"
    return score_files(d, gold=gold, output=output)


def _train_words(text):
    def build(d, mp):
        argv = score_files(d)
        put(d / "words.txt", text)
        return argv[:1] + ["--train-words", str(d / "words.txt")] + argv[1:]
    return build


def _format(fmt, gold, output):
    def build(d, mp):
        argv = score_files(d, gold=gold, output=output)
        return argv[:1] + ["--format", fmt, "--gold-format", fmt] + argv[1:]
    return build


def _ner(gold, output):
    """``committee score --task ner`` of a bio gold and output."""
    def build(d, mp):
        put(d / "gold.bio", gold)
        put(d / "out.bio", output)
        return ["score", "--task", "ner", "--gold", str(d / "gold.bio"), str(d / "out.bio")]
    return build


GOLD_BIO = "约 B-PER\n翰 I-PER\n在 O\n北 B-LOC\n京 I-LOC\n"


def _run(text=None, **subst):
    return lambda d, mp: run_files(d, text, **subst)


def _run_config_edit(old, new):
    def build(d, mp):
        argv = run_files(d)
        cfg = d / "c.yaml"
        text = cfg.read_text(encoding="utf-8")
        assert old in text
        cfg.write_text(text.replace(old, new), encoding="utf-8")
        return argv
    return build


def _run_yaml_python_tag(d, mp):
    argv = run_files(d)
    cfg = d / "c.yaml"
    marker = d / "pwned"
    cfg.write_text(cfg.read_text(encoding="utf-8") + f"extra: !!python/object/apply:os.system ['touch {marker}']\n",
                   encoding="utf-8")
    return argv


def _run_foreign_dir(d, mp):
    argv = run_files(d)
    (d / "run").mkdir()
    put(d / "run" / "thesis.tex", "keep me")
    return argv


def _run_other_run(d, mp):
    argv = run_files(d)
    (d / "run").mkdir()
    put(d / "run" / "run.json", '{"name": "other", "fingerprint": "0123456789abcdef"}\n')
    return argv


def _run_garbled_state(d, mp):
    argv = run_files(d)
    (d / "run").mkdir()
    put(d / "run" / "run.json", b"\x00\xff not json")
    return argv


def _run_out_is_file(d, mp):
    argv = run_files(d)
    put(d / "run", "a file")
    return argv


def _run_read_only(d, mp):
    argv = run_files(d)
    real = os.mkdir

    def mkdir(path, *args, **kwargs):
        if str(path).startswith(str(d / "run")):
            raise PermissionError(errno.EROFS, "Read-only file system", str(path))
        return real(path, *args, **kwargs)

    mp.setattr(os, "mkdir", mkdir)
    return argv


def _run_disk_full(d, mp):
    argv = run_files(d)
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if str(dst).startswith(str(d / "run")):
            raise OSError(errno.ENOSPC, "No space left on device", str(src))
        return real(src, dst, *args, **kwargs)

    mp.setattr(os, "replace", replace)
    return argv


CASES = [
    # ---- committee score: files that are not there or cannot be read
    Case("score-missing-output", _score(output=None), 3, r"out\.txt: no such file"),
    Case("score-missing-gold", _missing_gold, 3, r"gold\.txt: no such file"),
    Case("score-empty-output", _score(output=""), 3, r"out\.txt: file is empty \(0 bytes\)"),
    Case("score-blank-output", _score(output="\n \n\u3000\n"), 3, r"out\.txt: file is empty \(no non-blank line\)"),
    Case("score-output-is-directory", _output_is_directory, 3, r"out\.txt: is a directory"),
    Case("score-unreadable-output", _unreadable_output, 3, r"out\.txt: permission denied"),
    # ---- encodings and binary data
    Case("score-gb18030-as-utf8", _score(output=OUTPUT.encode("gb18030")), 3,
         r"out\.txt:1: cannot decode as utf-8 at byte \d+ \(0x[0-9a-f]+\): try --encoding gb18030"),
    Case("score-mixed-encodings", _score(output=OUTPUT.split("\n")[0].encode() + b"\n"
                                         + "\n".join(OUTPUT.split("\n")[1:]).encode("gb18030")),
         3, r"out\.txt:2: cannot decode as utf-8 .*try --encoding"),
    Case("score-utf16", _score(output=OUTPUT.encode("utf-16")), 3, r"out\.txt:1: .*try --encoding utf-16"),
    Case("score-random-bytes", _score(output=bytes(range(128, 256)) * 3), 3,
         r"out\.txt:1: cannot decode as utf-8 .*try --encoding"),
    Case("score-nul-bytes", _score(output="约翰喜欢 玛丽\n我 爱\x00 北京 天安门\n计算机 总是 有问题\n"), 3,
         r"out\.txt:2: binary data\? control character U\+0000 at column 4"),
    Case("score-old-mac-line-ends", _score(output=OUTPUT.replace("\n", "\r")), 3,
         r"out\.txt:1: carriage return inside a line .*old Mac"),
    Case("score-very-long-line", _long_line, 3,
         r"out\.txt:1: characters differ from .*gold\.txt:1 at character 200000: the output has "
         r"'妤' where the gold has '好'$"),
    # ---- alignment: line counts and characters
    Case("score-extra-blank-line", _score(output=OUTPUT + "\n"), 3,
         r"out\.txt: has 4 lines, gold .*gold\.txt has 3: line 4 is extra \(a blank line at the end\?\); "
         r"every output needs one line per gold line"),
    Case("score-truncated-output", _score(output="\n".join(OUTPUT.split("\n")[:2]) + "\n"), 3,
         r"out\.txt: has 2 lines, gold .* has 3: the output ends after line 2, gold goes on to line 3 \(a truncated output\?\)"),
    Case("score-two-lines-joined", _score(output="约翰喜欢 玛丽 我 爱 北京 天安门\n计算机 总是 有问题\n"), 3,
         r"out\.txt: has 2 lines, gold .* has 3: .*out\.txt:1 vs .*gold\.txt:1 joins two gold lines"),
    Case("score-variant-character", _score(output=OUTPUT.replace("约", "約")), 3,
         r"out\.txt:1: characters differ from .*gold\.txt:1 at character 1: the output has '約' "
         r"where the gold has '约'$"),
    Case("score-fullwidth-vs-halfwidth", _score(gold="ABC 喜欢 ，\n我 爱\n", output="ＡＢＣ 喜欢 ,\n我 爱\n"), 3,
         r"out\.txt:1: .*the output has 'Ａ' where the gold has 'A'; the files differ only by full-width forms: "
         r"score every file with --normalize fullwidth"),
    Case("score-nfkc-only", _score(gold="第1 名\n我 爱\n", output="第① 名\n我 爱\n"), 3,
         r"out\.txt:1: .*the output has '①' where the gold has '1'; .*differ only by Unicode compatibility forms \(NFKC\): "
         r"score every file with --normalize nfkc"),
    # ---- difficulty files
    Case("weight-wrong-count", _score(weight="0.0 0.5\n0.0 0.0 0.25 0.75\n0.5 0.0 1.0 0.0\n"), 3,
         r"gold\.weight:1: has 2 values, gold .*gold\.txt:1 has 3 words"),
    Case("weight-per-character", _score(weight="0 0 0 0 0 0\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n"), 3,
         r"gold\.weight:1: has 6 values, .* has 3 words \(one value per character: a \.weight_c file\?"),
    Case("weight-wrong-line-count", _score(weight="0.0 0.5 1.0\n"), 3,
         r"gold\.weight: has 1 line, gold .*gold\.txt has 3 sentences"),
    Case("weight-out-of-range", _score(weight=WEIGHT.replace("0.75", "1.5")), 3,
         r"gold\.weight:2: value '1\.5' at column 14 is outside \[0, 1\]"),
    Case("weight-negative", _score(weight=WEIGHT.replace("0.25", "-0.25")), 3,
         r"gold\.weight:2: value '-0\.25' at column 9 is outside \[0, 1\]"),
    Case("weight-nan", _score(weight=WEIGHT.replace("0.5 0.0 1.0", "0.5 nan 1.0")), 3,
         r"gold\.weight:3: value 'nan' at column 5 is not a finite number"),
    Case("weight-text", _score(weight=WEIGHT.replace("0.5 0.0 1.0", "0.5 hard 1.0")), 3,
         r"gold\.weight:3: value 'hard' at column 5 is not a number"),
    Case("weight-empty", _score(weight=""), 3, r"gold\.weight: file is empty, gold .* has 3 sentences"),
    Case("weight-random-bytes", _score(weight=bytes(range(128, 256))), 3,
         r"gold\.weight:1: is not valid UTF-8"),
    Case("weight-unreadable", _unreadable_weight, 3, r"gold\.weight: permission denied"),
    # ---- word lists and other formats
    Case("train-words-a-corpus", _train_words("约翰 喜欢\n喜欢 玛丽\n约翰\n"), 3,
         r"words\.txt:1: looks like sighan \(several words a line, separated by spaces\), read as word-list: "
         r"give it as a corpus, not as the word list"),
    Case("train-words-binary", _train_words(b"\x00\x01\x02"), 3, r"words\.txt:1: binary data\?"),
    Case("pku-token-without-pos", _format("pku", "约翰/nr 喜欢/v\n", "约翰/nr 喜欢\n"), 3,
         r"out\.txt:1: token '喜欢' has no '/' \(expected word/POS\)"),
    Case("pku-unclosed-bracket", _format("pku", "[中央/n 人民/n]nt\n", "[中央/n 人民/n\n"), 3,
         r"out\.txt:1: token '\[中央/n': '\[' is never closed"),
    Case("char-slash-bad-sequence", _format("char-slash", "我/S 爱/S\n", "我/B 爱/S\n"), 3,
         r"out\.txt:1: invalid tag sequence at token 2"),
    Case("char-tsv-columns", _format("char-tsv", "我\tS\n爱\tS\n", "我\tS\n爱 S\n"), 3,
         r"out\.txt:2: expected 2 tab-separated columns"),
    Case("conllu-columns", _format("conllu", "1\t我\t_\tPRON\t_\t_\t0\troot\t_\t_\n",
                                   "1\t我\t_\tPRON\n"), 3,
         r"out\.txt:1: expected 10 tab-separated columns \(CoNLL-U\), found 4"),
    # ---- entities (bio)
    Case("bio-whitespace-token", _ner(GOLD_BIO, GOLD_BIO.replace("在 O", "\u3000 O")), 3,
         r"out\.bio:3: the token is whitespace \(U\+3000 IDEOGRAPHIC SPACE\), which reads as a "
         r"column separator; a token is visible text: replace it \(with _, say\) in the gold and "
         r"in every output alike$"),
    Case("bio-whitespace-token-tab", _ner(GOLD_BIO.replace("在 O", "\u3000\tO"), GOLD_BIO), 3,
         r"gold\.bio:3: the token is whitespace \(U\+3000 IDEOGRAPHIC SPACE\), which reads as a "
         r"column separator; .* in every output alike$"),
    Case("bio-only-docstart", _ner(GOLD_BIO, "-DOCSTART- -X- O O\n\n-DOCSTART- O\n"), 3,
         r"out\.bio: holds only -DOCSTART- lines \(2\), no sentence: a bio file has a token and "
         r"its tag a line after them$"),
    Case("bio-strict-scheme-unlike-the-tags",
         lambda d, mp: _ner(GOLD_BIO, GOLD_BIO)(d, mp)[:3] + ["--mode", "strict", "--scheme",
                                                              "IOBES"]
         + _ner(GOLD_BIO, GOLD_BIO)(d, mp)[3:], 3,
         r"gold\.bio: no entity is well formed in IOBES \(the default reading finds 2\): the "
         r"strict mode would score none; its tags look like IOB2 \(--scheme IOB2\)$"),
    Case("bio-train-is-gold", lambda d, mp: _ner(GOLD_BIO, GOLD_BIO)(d, mp)[:3]
         + ["--train", str(d / "gold.bio")] + _ner(GOLD_BIO, GOLD_BIO)(d, mp)[3:], 3,
         r"gold\.bio: holds the same words as the training corpus .*gold\.bio \(train/test "
         r"overlap 100%\): a committee trained on its test set finds every word easy; give "
         r"another test set, or accept it with --allow-overlap$"),
    # ---- command-line usage (exit 2)
    Case("score-unknown-encoding", lambda d, mp: score_files(d)[:1] + ["--encoding", "klingon"] + score_files(d)[1:],
         2, r"--encoding: unknown encoding 'klingon'"),
    Case("score-no-gold", lambda d, mp: ["score", str(put(d / "out.txt", OUTPUT))], 2,
         r"required: --gold \(see 'committee score --help'\)"),
    Case("score-negative-bootstrap", lambda d, mp: score_files(d)[:1] + ["--bootstrap", "-5"] + score_files(d)[1:],
         2, r"--bootstrap: expected an integer >= 0, got '-5' \(see 'committee score --help'\)$"),
    # ---- committee run: configs (exit 4)
    Case("config-missing", lambda d, mp: ["run", str(d / "nope.yaml")], 4,
         r"nope\.yaml: no such file"),
    Case("config-empty", _run(text=""), 4, r"c\.yaml: expected a mapping of sections at the top level, got an empty file"),
    Case("config-unknown-key", _run_config_edit("size: 2", "sise: 2"), 4,
         r"c\.yaml: committee\.sise: unknown key \(did you mean 'committee\.size'\?\)"),
    Case("config-wrong-type", _run_config_edit("size: 2", "size: two"), 4,
         r"c\.yaml: committee\.size: expected an integer or auto, got 'two' \(a string\)"),
    Case("config-size-zero", _run_config_edit("size: 2", "size: 0"), 4,
         r"c\.yaml: committee\.size: must be >= 1, got 0"),
    Case("config-ratio-1.5", _run_config_edit("seed: 1", "seed: 1, ratios: [0.1, 1.5]"), 4,
         r"c\.yaml: committee\.ratios\[1\]: must be <= 1, got 1\.5"),
    Case("config-negative-seed", _run_config_edit("seed: 1", "seed: -3"), 4,
         r"c\.yaml: committee\.seed: must be >= 0, got -3"),
    Case("config-yaml-syntax", _run_config_edit("committee: {size: 2, seed: 1}", "committee: {size: 2, seed: 1"), 4,
         r"c\.yaml: line \d+, column \d+: "),
    Case("config-yaml-python-tag", _run_yaml_python_tag, 4,
         r"c\.yaml: line 8: YAML tag '!!python/object/apply:os\.system' is not allowed"),
    Case("config-not-utf8", _run(text="name: 名\n".encode("gb18030")), 4, r"c\.yaml: cannot read: not UTF-8"),
    Case("config-unknown-crf-param", _run_config_edit("max_iterations: 2", "max_iteration: 2"), 4,
         r"c\.yaml: crf\.params\.max_iteration: unknown key \(did you mean 'crf\.params\.max_iterations'\?\)"),
    Case("config-missing-corpus", _run(train="/nonexistent/train.txt"), 4,
         r"c\.yaml: corpus\.train\.path: no such file: /nonexistent/train\.txt"),
    Case("config-bad-override", lambda d, mp: run_files(d) + ["--set", "committee.szie=3"], 4,
         r"^committee: error: --set committee\.szie=3: unknown key \(did you mean 'committee\.size'\?\)$"),
    # ---- committee run: corpora (exit 3)
    Case("run-train-undecodable", _run(train_text=TRAIN.encode("big5", errors="replace")), 3,
         r"train\.txt:1: cannot decode as utf-8 .*try corpus\.train\.encoding: big5 "
         r"\(gb18030 also decodes it, into unusual characters\)"),
    Case("run-test-nul", _run(test_text="约翰 喜欢\x00 玛丽\n"), 3, r"test\.txt:1: binary data\?"),
    # ---- committee run: the output directory (exit 5, 6)
    Case("run-foreign-output-dir", _run_foreign_dir, 5,
         r"output\.dir .*run holds files that are not part of a committee run \(thesis\.tex\); "
         r"choose an empty or new output\.dir"),
    Case("run-output-dir-of-another-run", _run_other_run, 5,
         r"holds a run of a different config or corpus .*pass --restart to discard it"),
    Case("run-garbled-run-state", _run_garbled_state, 5, r"run\.json: unreadable run state .*--restart"),
    Case("run-output-dir-is-a-file", _run_out_is_file, 5, r"output\.dir .*run exists and is not a directory"),
    Case("run-read-only-output", _run_read_only, 6,
         r"run: cannot write: Read-only file system; make the directory writable or choose another"),
    Case("run-disk-full", _run_disk_full, 6,
         r"run\.json: cannot write: No space left on device; free some space"),
]


def test_matrix_is_large_enough():
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case, tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    argv = case.build(work, monkeypatch)
    before = snapshot(work)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    monkeypatch.undo()
    assert code == case.code, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("committee: error: "), err
    assert "Traceback" not in err
    import re
    assert re.search(case.pattern, lines[0]), f"{case.pattern!r} not in {lines[0]!r}"
    assert out == ""
    assert snapshot(work) == before, "nothing may be written"
    assert not (work / "pwned").exists()


# --------------------------------------------------------------------------
# the library readers raise InputError naming file and line


READER_CASES = [
    ("sighan-binary", lambda p: read_corpus(put(p, "一 二\n三\x07\n")), r"c\.txt:2: binary data\?"),
    ("pku-empty-pos", lambda p: read_corpus(put(p, "一/m 二/\n"), format="pku"), r"c\.txt:1: token '二/' has an empty POS"),
    ("pku-stray-bracket", lambda p: read_corpus(put(p, "一/m\n二/m]nt\n"), format="pku"),
     r"c\.txt:2: token '二/m\]nt': '\]' closes no compound"),
    ("char-tsv-bad-tag", lambda p: read_corpus(put(p, "我\tS\n爱\tX\n"), format="char-tsv"),
     r"c\.txt:2: second column: unknown tag 'X'"),
    ("conllu-no-words", lambda p: read_corpus(put(p, "# only a comment\n"), format="conllu"),
     r"c\.txt:1: sentence has no word lines"),
    ("word-list-gbk", lambda p: read_word_list(put(p, "词语\n".encode("gbk"))), r"c\.txt:1: cannot decode as utf-8"),
    ("weight-c-count", lambda p: difficulty_mod.read_weight_c(
        put(p, "0.5 0.5\n"), Corpus("gold.txt", [["约翰", "喜欢"]], [1])),
     r"c\.txt:1: has 2 values, gold gold\.txt:1 has 4 characters"),
    ("nfkc-makes-whitespace", lambda p: read_corpus(put(p, "好 a\u00a8\n"), normalization="nfkc"),
     r"c\.txt:1: word 'a¨' becomes 'a ̈' under nfkc normalization, which is not a word"),
]


@pytest.mark.parametrize("build,pattern", [c[1:] for c in READER_CASES], ids=[c[0] for c in READER_CASES])
def test_reader_errors_name_file_and_line(tmp_path, build, pattern):
    import re
    with pytest.raises(InputError) as info:
        build(tmp_path / "c.txt")
    assert re.search(pattern, str(info.value)), str(info.value)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------
# unexpected exceptions: one line, exit 1, --debug shows the traceback


def test_internal_error_is_one_line(tmp_path, monkeypatch, capsys):
    argv = score_files(tmp_path)
    from committee import metrics

    def broken(stats, where=None, **options):
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr(metrics, "compute", broken)
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert err == ("committee: internal error: RuntimeError: a bug over two lines "
                   "(run with --debug for the traceback)\n")
    assert out == ""
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["--debug"] + argv)


def test_os_error_while_writing_is_exit_6(tmp_path, monkeypatch, capsys):
    """An OSError no reader or writer turned into a typed error still gives one line."""
    argv = score_files(tmp_path)
    from committee import scoring

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/file")

    monkeypatch.setattr(scoring.Scorer, "score_all", full)
    assert cli.main(argv) == 6
    err = capsys.readouterr().err
    assert err == ("committee: error: /somewhere/file: No space left on device "
                   "(cannot write output: check free space and permissions)\n")


# --------------------------------------------------------------------------
# plausibility warnings: one line each, the run still succeeds


def test_oov_rate_above_half_warns(tmp_path, capsys):
    argv = score_files(tmp_path)
    put(tmp_path / "words.txt", "约翰\n")
    assert cli.main(argv[:1] + ["--train-words", str(tmp_path / "words.txt")] + argv[1:]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("committee: warning: ")
    assert "gold.txt: 90.9% of the gold words are not in the training vocabulary" in err
    assert "words.txt (OOV rate above 50%)" in err


def test_oov_rate_below_half_is_quiet(tmp_path, capsys):
    argv = score_files(tmp_path)
    put(tmp_path / "words.txt", "约翰\n喜欢\n我\n爱\n北京\n总是\n有\n")
    assert cli.main(argv[:1] + ["--train-words", str(tmp_path / "words.txt")] + argv[1:]) == 0
    assert capsys.readouterr().err == ""


def _fake_run_dir(d: Path, gold_text=GOLD, weight=WEIGHT):
    """A directory as committee run leaves it: test.txt, test.weight, manifest.json."""
    import json

    from committee.system.files import sha256_bytes

    d.mkdir()
    put(d / "test.txt", gold_text)
    put(d / "test.weight", weight)
    manifest = {"files": {"test.txt": sha256_bytes(gold_text.encode()),
                          "test.weight": sha256_bytes(weight.encode())},
                "corpus": {"test": {"sha256": "f" * 64}}}
    put(d / "manifest.json", json.dumps(manifest))
    return d


def test_difficulty_of_the_same_test_set_is_quiet(tmp_path, capsys):
    run = _fake_run_dir(tmp_path / "run")
    # the same words in another file, another layout (U+3000, CRLF): still the run's test set
    put(tmp_path / "gold.txt", GOLD.replace(" ", "\u3000").replace("\n", "\r\n"))
    put(tmp_path / "out.txt", OUTPUT)
    code = cli.main(["score", "--gold", str(tmp_path / "gold.txt"), "--difficulty",
                     str(run / "test.weight"), str(tmp_path / "out.txt")])
    assert code == 0
    assert capsys.readouterr().err == ""


def test_difficulty_of_another_test_set_warns(tmp_path, capsys):
    run = _fake_run_dir(tmp_path / "run")
    other = GOLD.replace("玛丽", "马丽")  # same shape, other words
    put(tmp_path / "gold.txt", other)
    put(tmp_path / "out.txt", OUTPUT.replace("玛丽", "马丽"))
    code = cli.main(["score", "--gold", str(tmp_path / "gold.txt"), "--difficulty",
                     str(run / "test.weight"), str(tmp_path / "out.txt")])
    assert code == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("committee: warning: ")
    assert "test.weight: made by committee run for another test set" in err
    assert f"score against {run / 'test.txt'}" in err


def test_edited_difficulty_file_is_refused(tmp_path, capsys):
    """An edited difficulty file is refused (committee.pipeline.layout.verify), not warned about."""
    from committee.system.files import sha256_bytes

    run = _fake_run_dir(tmp_path / "run")
    edited = WEIGHT.replace("0.25", "0.3")
    put(run / "test.weight", edited)
    put(tmp_path / "out.txt", OUTPUT)
    code = cli.main(["score", "--gold", str(run / "test.txt"), "--difficulty",
                     str(run / "test.weight"), str(tmp_path / "out.txt")])
    assert code == 3
    assert capsys.readouterr().err == (
        f"committee: error: {run / 'test.weight'}: changed since committee run wrote it (sha256 "
        f"{sha256_bytes(edited.encode())[:12]}, manifest.json records "
        f"{sha256_bytes(WEIGHT.encode())[:12]}); rerun the same committee run to rewrite it "
        "(saved members are not trained again)\n")


def test_unreadable_manifest_is_refused(tmp_path, capsys):
    run = _fake_run_dir(tmp_path / "run")
    put(run / "manifest.json", "{not json")
    put(tmp_path / "out.txt", OUTPUT)
    code = cli.main(["score", "--gold", str(run / "test.txt"), "--difficulty",
                     str(run / "test.weight"), str(tmp_path / "out.txt")])
    assert code == 3
    assert capsys.readouterr().err == (
        f"committee: error: {run / 'manifest.json'}: not valid JSON (Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)), so the files it records cannot "
        "be checked; rerun the same committee run to rewrite it (saved members are not trained "
        "again)\n")


# --------------------------------------------------------------------------
# the real process: exit code and stderr as a user sees them


def _committee(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "committee", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_process_random_bytes(tmp_path):
    argv = score_files(tmp_path, output=bytes(range(256)))
    p = _committee(*argv)
    assert p.returncode == 3
    assert p.stdout == ""
    assert p.stderr.startswith("committee: error: ") and p.stderr.count("\n") == 1
    # the first problem of the file: bytes(range(256)) starts with NUL (0x80 follows on line 2)
    assert "out.txt:1: binary data? control character U+0000 at column 1\n" in p.stderr


def test_process_yaml_python_tag_runs_nothing(tmp_path):
    argv = _run_yaml_python_tag(tmp_path, None)
    p = _committee(*argv)
    assert p.returncode == 4
    assert p.stderr.count("\n") == 1 and "is not allowed: configs are plain data" in p.stderr
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "run").exists()


def test_process_usage_error_is_one_line(tmp_path):
    p = _committee("score")
    assert p.returncode == 2
    assert p.stderr == ("committee: error: the following arguments are required: OUTPUT, --gold "
                        "(see 'committee score --help')\n")


def test_process_pipe_closed_early(tmp_path):
    """``committee score ... | head -1``: no BrokenPipeError traceback."""
    argv = score_files(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run(f"{sys.executable} -m committee {' '.join(argv)} --json | head -c 1",
                       shell=True, env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout == "{"
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr


def test_very_long_valid_lines_are_scored(tmp_path, capsys):
    """One sentence of 300,000 words (600,000 characters): within the limit on line
    length (committee.system.streams.MAX_LINE_CHARS, tests/test_hostile_io.py)."""
    gold = "计算 机 " * 150_000 + "\n"
    output = "计算机 " * 150_000 + "\n"
    argv = score_files(tmp_path, gold=gold, output=output)
    assert cli.main(argv + ["--json"]) == 0
    import json
    system = json.loads(capsys.readouterr().out)["systems"][0]
    assert system["counts"] == {"n_gold": 300_000, "n_pred": 150_000, "n_correct": 0}
