"""``committee export RUN DIR``: a run's difficulty dataset as parquet and a
dataset card that ``datasets.load_dataset(DIR)`` reads back unchanged, its
values those of the run's own files (``words.tsv``, ``items.tsv``,
``marks.npz``), and its refusals one line each."""

from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from matrix_runs import call  # noqa: E402

pq = pytest.importorskip("pyarrow.parquet")
datasets = pytest.importorskip("datasets")

TASKS = ("segmentation", "ner", "pos")
DATA = "data/test-00000-of-00001.parquet"


@pytest.fixture
def runs(task_runs):
    """The session's runs of each task (tests/conftest.py, shared with the
    command matrix); an export only reads them."""
    return task_runs


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def front_matter(out: Path) -> dict:
    text = (out / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def manifest(run: Path) -> dict:
    import json

    return json.loads((run / "manifest.json").read_text(encoding="utf-8"))


def load(out: Path):
    return datasets.load_dataset(str(out))["test"]


@pytest.mark.parametrize("task", TASKS)
def test_an_export_round_trips_through_load_dataset(task, runs, tmp_path, capsys):
    r = runs[task]
    out = tmp_path / "ds"
    capsys.readouterr()  # the runs' own lines, when this test made them
    assert call(["export", r.k5, out, "--members"]) == 0
    said = capsys.readouterr().out
    words = rows(r.k5 / "words.tsv")
    assert said.startswith(f"wrote {out}/{DATA} and README.md: {len(words):,} rows, ")
    ds = load(out)
    written = pq.read_table(out / DATA)
    # the loader's table is the file's, column for column and type for type
    assert ds.data.table.schema.remove_metadata() == written.schema.remove_metadata()
    assert ds.data.table.equals(written.cast(ds.data.table.schema))
    labelled = task != "segmentation"
    names = ["sentence", "unit", "start", "end", "text", *(["label"] if labelled else []),
             "difficulty", "n_correct", "oov", "irt_b", "irt_a", "members"]
    assert ds.column_names == names
    # the values are the run's own: words.tsv row by row
    assert ds["sentence"] == [int(w["sentence"]) for w in words]
    assert ds["unit"] == [int(w["word_index"]) for w in words]
    assert ds["start"] == [int(w["start"]) for w in words]
    assert ds["end"] == [int(w["end"]) for w in words]
    assert ds["text"] == [w["word"] for w in words]
    assert ds["difficulty"] == [float(w["difficulty"]) for w in words]
    assert ds["n_correct"] == [int(w["n_correct"]) for w in words]
    assert ds["oov"] == [w["oov"] == "1" for w in words]
    items = rows(r.k5 / "items.tsv")
    assert ds["irt_b"] == [float(i["irt_b"]) for i in items]
    assert ds["irt_a"] == [float(i["irt_a"]) for i in items]
    marks = np.load(r.k5 / "marks.npz")["marks"].astype(bool)
    assert np.array_equal(np.array(ds["members"]), marks.T)
    assert np.array_equal(np.array(ds["members"]).sum(axis=1), ds["n_correct"])
    if labelled:  # entity types, tags: class labels named in the card
        gold = [w["type" if task == "ner" else "pos"] for w in words]
        feature = ds.features["label"]
        assert isinstance(feature, datasets.ClassLabel)
        assert feature.names == sorted(set(gold))
        assert [feature.int2str(k) for k in ds["label"]] == gold
    meta = front_matter(out)
    m = manifest(r.k5)
    assert meta["language"] == ["zh"] and meta["license"] == "other"
    assert meta["size_categories"] == ["n<1K" if len(words) < 1000 else "1K<n<10K"]
    assert meta["committee"]["signature"] == m["signature"]
    assert meta["committee"]["config"] == m["config"]
    assert meta["committee"]["members"] == 5
    assert meta["dataset_info"]["splits"] == [
        {"name": "test", "num_bytes": (out / DATA).stat().st_size, "num_examples": len(words)}]


def test_the_difficulties_of_a_word_by_hand(runs, tmp_path):
    """The second test word of the segmentation run (孙), from its K = 3
    committee: no IRT, no members unless asked."""
    r = runs["segmentation"]
    out = tmp_path / "ds"
    assert call(["export", r.k3, out]) == 0
    ds = load(out)
    assert ds.column_names == ["sentence", "unit", "start", "end", "text", "difficulty",
                               "n_correct", "oov"]
    row = ds[1]
    line = (r.k3 / "test.weight").read_text(encoding="utf-8").splitlines()[0].split()
    assert (row["sentence"], row["unit"], row["text"]) == (0, 1, "孙")
    assert row["difficulty"] == float(line[1]) == 1 - row["n_correct"] / 3
    first = "".join((r.k3 / "test.txt").read_text(encoding="utf-8").splitlines()[0].split())
    assert first[row["start"]:row["end"]] == "孙"  # offsets of the sentence's characters


def test_an_earlier_export_is_replaced_and_other_files_are_refused(runs, tmp_path, capsys):
    r = runs["pos"]
    out = tmp_path / "ds"
    assert call(["export", r.k3, out]) == 0
    before = (out / DATA).read_bytes()
    assert call(["export", r.k3, out, "--license", "cc-by-4.0"]) == 0  # its own files: replaced
    assert (out / DATA).read_bytes() == before
    assert front_matter(out)["license"] == "cc-by-4.0"
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    capsys.readouterr()
    assert call(["export", r.k3, out]) == 5
    assert capsys.readouterr().err == (
        f"committee: error: {out} holds files that no export wrote (notes.txt): give a new or "
        "empty directory, or --force to write the export beside them\n")
    assert call(["export", r.k3, out, "--force"]) == 0
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("case, code, message", [
    ("missing", 3, "{run}: no such run directory"),
    ("file_target", 5, "{out} exists and is not a directory: give a new or empty directory"),
    ("into_run", 5, "{out} is the run directory itself: export into another directory"),
    ("edited", 3, "{run}/words.tsv: changed since committee run wrote it"),
])
def test_refusals_are_one_line(case, code, message, runs, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(runs["ner"].k3, run)
    out = tmp_path / "ds"
    if case == "missing":
        shutil.rmtree(run)
    elif case == "file_target":
        out.write_text("x", encoding="utf-8")
    elif case == "into_run":
        out = run
    else:
        with open(run / "words.tsv", "a", encoding="utf-8") as f:
            f.write("\n")
    capsys.readouterr()
    assert call(["export", run, out]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("committee: error: " + message.format(run=run, out=out)), err
    assert not (out / DATA).exists()
