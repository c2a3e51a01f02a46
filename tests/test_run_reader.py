"""A run directory is read one careful way (committee.pipeline.runfiles):
regular files only, sizes bounded before reading, strict JSON checked by
schemas, array headers checked before inflating, and the corpora a
manifest names read again only when they are the ones the run used.  Each
fault is one line naming the file (exit 3), never a hang, a traceback or
a silent fix; and no module but the reader parses a run's records."""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from committee.cli import main
from committee.pipeline import layout, runfiles
from committee.system.files import sha256_file

from toyrun import make_toy_corpus, write_config

PACKAGE = Path(__file__).resolve().parents[1] / "committee"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A finished K = 3 segmentation run of the toy corpus (copied per test)."""
    d = tmp_path_factory.mktemp("toy")
    make_toy_corpus(d)
    assert main(["run", str(write_config(d / "c.yaml", d, d / "run")), "--quiet"]) == 0
    return d


@pytest.fixture
def run(toy, tmp_path):
    """A copy of the toy run and its corpus: (corpus dir, run dir)."""
    d = tmp_path / "toy"
    shutil.copytree(toy, d, symlinks=True)
    manifest = d / "run" / layout.MANIFEST_FILE
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["config"]["corpus"]["root"] = str(d)
    manifest.write_text(json.dumps(data), encoding="utf-8")
    return d, d / "run"


def one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("committee: error: ") and "Traceback" not in err[0]
    return err[0].removeprefix("committee: error: ")


def edit_manifest(run_dir: Path, change) -> None:
    path = run_dir / layout.MANIFEST_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data = change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


REWRITE = layout.REWRITE


# --------------------------------------------------------------------------
# manifest.json that parses but is wrong


@pytest.mark.parametrize("command", [["check-gold"], ["irt"], ["report", "--only", "table2"]])
@pytest.mark.parametrize("content, message", [
    ("[]", "holds a JSON array, not an object"),
    ('{"config": "x"}', "config: must be a JSON object, not a string"),
    ('{"config": []}', "config: must be a JSON object, not an array"),
    ('{"config": {"task": "xyz"}}', "config.task: 'xyz' is not a task of committee"),
    ('{"config": {}, "files": "abc"}', "files: must be a JSON object, not a string"),
    ('{"config": {}, "x": NaN}', "not valid JSON (NaN is not a JSON number)"),
])
def test_a_manifest_that_parses_but_is_wrong_is_one_line(run, capsys, command, content,
                                                          message):
    _, run_dir = run
    (run_dir / layout.MANIFEST_FILE).write_text(content, encoding="utf-8")
    assert main(command[:1] + [str(run_dir)] + command[1:]) == 3
    err = one_error(capsys)
    assert err.startswith(f"{run_dir / layout.MANIFEST_FILE}: ")
    assert message in err


def test_a_files_record_that_is_a_string_does_not_turn_verification_off(run, capsys):
    _, run_dir = run
    edit_manifest(run_dir, lambda m: m | {"files": "off"})
    assert main(["irt", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{run_dir / layout.MANIFEST_FILE}: files: must be a JSON object, not a string, so the "
        f"files it records cannot be checked; {REWRITE}")


def test_an_unknown_task_names_the_known_ones(run, capsys):
    _, run_dir = run
    edit_manifest(run_dir, lambda m: m | {"config": m["config"] | {"task": "xyz"}})
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{run_dir / layout.MANIFEST_FILE}: config.task: 'xyz' is not a task of committee "
        "0.1.0 (segmentation, ner, pos): a run of another version? read it with the version "
        "that wrote it")


# --------------------------------------------------------------------------
# bounded reads


def test_a_huge_sparse_manifest_is_refused_unread(run, capsys):
    _, run_dir = run
    path = run_dir / layout.MANIFEST_FILE
    with open(path, "r+b") as f:
        f.truncate(600 << 20)  # sparse: no disk, no memory
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{path}: holds 600 MiB, more than a file of its kind can plausibly hold (16 MiB): not "
        f"read, so the files it records cannot be checked; {REWRITE}")


def test_a_huge_member_record_is_trained_again_not_read(run, caplog):
    from committee.pipeline import marks as marks_mod

    _, run_dir = run
    path = layout.member_path(run_dir, 0)
    with open(path, "r+b") as f:
        f.truncate(600 << 20)
    member = type("M", (), {"index": 0, "template": "F1", "ratio": 0.3})()
    assert marks_mod.load_member(run_dir, member, 2052) is None
    assert "holds 600 MiB, more than a file of its kind can plausibly hold (64 MiB)" in caplog.text


def _npz_with(path: Path, name: str, header_shape, dtype, payload: bytes) -> None:
    """An .npz whose array ``name`` has the header of ``header_shape`` and
    ``dtype`` followed by ``payload`` (compressed)."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": np.dtype(dtype).str,
                                               "fortran_order": False,
                                               "shape": tuple(header_shape)})
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name + ".npy", buf.getvalue() + payload)


def _resign(run_dir: Path, name: str) -> None:
    """Record ``name``'s new checksum in the manifest (a forged run)."""
    sha = sha256_file(run_dir / name)
    edit_manifest(run_dir, lambda m: m | {"files": m["files"] | {name: sha}})


def test_marks_that_would_inflate_far_past_their_header_are_not_inflated(run, capsys):
    _, run_dir = run
    n = 2052
    _npz_with(run_dir / "marks.npz", "marks", (3, n), "|b1", bytes(3 * n) + bytes(64 << 20))
    _resign(run_dir, "marks.npz")
    assert (run_dir / "marks.npz").stat().st_size < 1 << 20  # 64 MiB of zeros, deflated
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{run_dir / 'marks.npz'}: array 'marks' would inflate to 64 MiB, its header says "
        f"6.01 KiB: not inflated; {REWRITE}")


def test_marks_whose_header_claims_gigabytes_are_refused_from_the_header(run, capsys):
    _, run_dir = run
    _npz_with(run_dir / "marks.npz", "marks", (3, 2_000_000_000), "|b1", b"")
    _resign(run_dir, "marks.npz")
    assert main(["report", str(run_dir), "--only", "table2"]) == 3
    assert one_error(capsys) == (
        f"{run_dir / 'marks.npz'}: array 'marks' has shape (3, 2000000000), expected (3, 2052); "
        f"{REWRITE}")


def test_predictions_of_another_shape_are_one_line(run, capsys):
    _, run_dir = run
    from committee.system.files import write_npz

    write_npz(run_dir / "predictions.npz", n_chars=np.int64(3442),
              pred_ends=np.zeros((2, 431), dtype=np.uint8))
    _resign(run_dir, "predictions.npz")
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{run_dir / 'predictions.npz'}: array 'pred_ends' has shape (2, 431), expected "
        f"(3, 431); {REWRITE}")


def test_label_codes_out_of_range_are_one_line(tmp_path):
    from committee.errors import InputError
    from committee.pipeline import marks as marks_mod
    from committee.system.files import write_npz

    path = tmp_path / "predictions.npz"
    write_npz(path, label_names=np.array(["n", "v"]),
              pred_labels=np.array([[0, 1, 5]], dtype=np.int16))
    with pytest.raises(InputError) as e:
        marks_mod.read_labels(path, 3, 1)
    assert str(e.value) == (f"{path}: holds label codes from 0 to 5, but 2 label names; "
                            f"{REWRITE}")


def test_a_truncated_npz_is_one_line(run, capsys):
    _, run_dir = run
    path = run_dir / "predictions.npz"
    path.write_bytes(path.read_bytes()[:200])
    _resign(run_dir, "predictions.npz")
    assert main(["check-gold", str(run_dir)]) == 3
    err = one_error(capsys)
    assert err.startswith(f"{path}: not a readable .npz file (") and err.endswith(
        f"truncated or damaged? {REWRITE}")


def test_an_output_far_larger_than_its_gold_is_refused_unread(run, capsys):
    _, run_dir = run
    out = run_dir.parent / "huge.txt"
    with open(out, "wb") as f:
        f.truncate(800 << 20)
    assert main(["score", "--gold", str(run_dir / "test.txt"), str(out)]) == 3
    assert one_error(capsys) == (
        f"{out}: holds 800 MiB, more than any output of the gold's 3,442 characters can "
        "(1.21 MiB): not read; is it the output of this test set?")


# --------------------------------------------------------------------------
# only regular files; never a hang


def _fifo(path: Path) -> Path:
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


def _no_hang(target, *args):
    """Run ``target(*args)`` in a thread; fail if it is still running after 30 s."""
    result = {}

    def call():
        try:
            result["rc"] = target(*args)
        except BaseException as exc:  # raised again in the caller's thread
            result["exc"] = exc

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "hangs on a FIFO"
    if "exc" in result:
        raise result["exc"]
    return result["rc"]


def test_a_fifo_as_training_corpus_is_refused_unopened(run, capsys):
    d, run_dir = run
    edit_manifest(run_dir, lambda m: m | {"config": m["config"] | {"corpus": m["config"][
        "corpus"] | {"train": m["config"]["corpus"]["train"] | {"path": "fifo"}}}})
    _fifo(d / "fifo")
    assert _no_hang(main, ["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{d / 'fifo'}: is a FIFO (named pipe), not a regular file (not opened); give the "
        "original with --train PATH, or rerun committee run on this corpus")


@pytest.mark.parametrize("name", ["marks.npz", "manifest.json", "words.tsv"])
def test_a_run_file_that_is_a_fifo_or_a_link_to_a_device_is_named_as_such(run, capsys, name):
    _, run_dir = run
    _fifo(run_dir / name)
    assert _no_hang(main, ["irt", str(run_dir)]) == 3
    assert one_error(capsys).startswith(
        f"{run_dir / name}: is a FIFO (named pipe), not a regular file (not opened)")
    (run_dir / name).unlink()
    (run_dir / name).symlink_to("/dev/zero")
    assert _no_hang(main, ["irt", str(run_dir)]) == 3
    assert one_error(capsys).startswith(
        f"{run_dir / name}: is a character device, not a regular file (not opened)")


def test_a_saved_system_output_that_is_a_fifo_is_never_opened(run):
    from committee.errors import InputError
    from committee.report import rundata
    from committee.report.systems import _read_output

    _, run_dir = run
    data = rundata.load_run(run_dir)
    fifo = _fifo(run_dir.parent / "saved.txt")
    with pytest.raises(InputError) as e:
        _no_hang(_read_output, data, fifo)
    assert str(e.value) == (f"{fifo}: is a FIFO (named pipe), not a regular file (not opened); "
                            "remove it; the report writes this file itself")


def test_check_gold_on_a_plain_file_says_it_is_no_directory(run, capsys):
    _, run_dir = run
    assert main(["check-gold", str(run_dir / "test.txt")]) == 3
    assert one_error(capsys) == (f"{run_dir / 'test.txt'}: is a file, not a directory: give the "
                                 "output.dir of a finished `committee run`")


# --------------------------------------------------------------------------
# the corpora a manifest names: the ones the run used, or refused


def test_an_edited_training_corpus_is_refused_with_both_checksums(run, capsys):
    d, run_dir = run
    recorded = json.loads((run_dir / layout.MANIFEST_FILE).read_text())["corpus"]["train"]
    original = d / "original.txt"
    shutil.copy(d / "train.txt", original)
    with open(d / "train.txt", "a", encoding="utf-8") as f:
        f.write("多 一 行\n")
    actual = sha256_file(d / "train.txt")
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys) == (
        f"{d / 'train.txt'}: is not the training corpus the run used (sha256 {actual[:12]}, "
        f"{run_dir / layout.MANIFEST_FILE} records {recorded['sha256'][:12]}): edited since the "
        "run? give the original with --train PATH, or rerun committee run on this corpus")
    assert not (run_dir / layout.CHECK_GOLD_FILE).exists()
    # the way on it names works
    assert main(["check-gold", str(run_dir), "--train", str(original)]) == 0
    assert (run_dir / layout.CHECK_GOLD_FILE).is_file()


def test_a_manifest_naming_another_file_as_training_corpus_is_refused(run, capsys):
    d, run_dir = run
    (d / "other.txt").write_text("别的 语料\n", encoding="utf-8")
    edit_manifest(run_dir, lambda m: m | {"config": m["config"] | {"corpus": m["config"][
        "corpus"] | {"train": m["config"]["corpus"]["train"] | {"path": "other.txt"}}}})
    assert main(["check-gold", str(run_dir)]) == 3
    assert one_error(capsys).startswith(f"{d / 'other.txt'}: is not the training corpus the "
                                        "run used (sha256 ")


def test_the_report_refuses_an_edited_training_corpus_before_training(run, capsys):
    d, run_dir = run
    with open(d / "train.txt", "a", encoding="utf-8") as f:
        f.write("多 一 行\n")
    assert main(["report", str(run_dir), "--only", "table2", "--quiet"]) == 3
    err = one_error(capsys)
    assert err.startswith(f"{d / 'train.txt'}: is not the training corpus the run used")
    assert err.endswith("restore the original, or name it with --set corpus.train.path=PATH (a "
                        "path below corpus.root), or rerun committee run on this corpus")
    assert not (run_dir / "table2.csv").exists()


# --------------------------------------------------------------------------
# the reader itself


def test_read_json_refuses_infinity_and_checks_the_top_level(tmp_path):
    from committee.errors import InputError

    f = tmp_path / "r.json"
    f.write_text('{"a": Infinity}')
    with pytest.raises(InputError, match="Infinity is not a JSON number"):
        runfiles.read_json(f, "record")
    f.write_text('[1]')
    with pytest.raises(InputError, match="holds a JSON array, not an object"):
        runfiles.read_json(f, "record", dict)
    f.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match=r"is not valid UTF-8 \(byte 0xff at offset 7\)"):
        runfiles.read_json(f, "record")


def test_read_npz_refuses_pickled_objects_from_the_header(tmp_path):
    from committee.errors import InputError

    f = tmp_path / "o.npz"
    _npz_with(f, "marks", (1,), "|O", b"")
    with pytest.raises(InputError, match="array 'marks' holds object values"):
        runfiles.read_npz(f, {"marks": runfiles.Array("b", (1,))})


#: Calls that parse a file's content; only the reader may make them on a run's files.
PARSERS = {("json", "load"), ("json", "loads"), ("np", "load"), ("numpy", "load"),
           ("pd", "read_csv"), ("pandas", "read_csv"), ("zipfile", "ZipFile"),
           ("pd", "read_table"), ("np", "loadtxt")}
#: Modules allowed to make them, and why.
ALLOWED = {
    "pipeline/runfiles.py": "the reader",
    "system/records.py": "the reader's strict JSON parse of a small file, shared with the "
                         "corpus formats that keep JSON records",
    "system/files.py": "writes .npz files (ZipFile in write mode); reads none",
    "report/html.py": "json.loads(json.dumps(...)) turns numbers of numpy into JSON's, in memory",
}


def parser_calls(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in PARSERS:
            out.append((node.lineno, f"{node.func.value.id}.{node.func.attr}"))
    return out


def test_no_module_but_the_reader_parses_a_file():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED:
            continue
        for line, call in parser_calls(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"committee/{rel}:{line}: {call}")
    assert found == [], "read run files through committee.pipeline.runfiles:\n" + "\n".join(found)


def test_the_parser_walk_can_fail():
    tree = ast.parse("import json\ndef f(p):\n    return json.loads(open(p).read())\n")
    assert parser_calls(tree) == [(3, "json.loads")]


@pytest.mark.parametrize("garbage", ["[1, 2]", "{not json", '"a string"'])
def test_a_garbled_saved_system_record_is_run_again_and_rewritten(run, capsys, garbage):
    _, run_dir = run
    args = ["report", str(run_dir), "--only", "ranking", "--with", "cmd:cat", "--quiet"]
    assert main(args) == 0
    info = run_dir / "report" / "systems" / "cat.json"
    info.write_text(garbage, encoding="utf-8")
    capsys.readouterr()
    assert main(args) == 0
    assert "error" not in capsys.readouterr().err
    assert json.loads(info.read_text(encoding="utf-8"))["segmenter"] == "cmd:cat"
