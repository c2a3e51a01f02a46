"""Corpora as tables (committee.corpus.tables): a dataset saved by
``datasets``' ``save_to_disk``, a parquet file and JSON lines read as the
same sentences as their text files, a K = 3 committee run on each of the
first two, and every malformed table refused in one line naming the file
and the row."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from matrix_runs import _corpus, call  # noqa: E402

from committee import corpus as corpus_mod
from committee.corpus.tables import TableOptions
from committee.errors import InputError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
datasets = pytest.importorskip("datasets")


def _config(d: Path, task: str, train: dict, test: dict) -> Path:
    path = d / "config.yaml"
    path.write_text(f"""
name: table-{task}
task: {task}
corpus:
  root: {d}
  train: {json.dumps(train)}
  test: {json.dumps(test)}
committee: {{size: 3, templates: [F1, F2, F3], ratios: [0.3, 0.5], seed: 7}}
crf: {{preset: legacy, params: {{max_iterations: 20}}}}
parallel: {{backend: sequential, n_jobs: 1}}
output: {{dir: {d / "run"}}}
""", encoding="utf-8")
    return path


def _entities_dataset(d: Path):
    """The matrix's entity corpus as a DatasetDict of tokens and ClassLabel
    tags, saved to ``d/saved``; the bio files it came from beside it."""
    _corpus(d, "ner")
    parts = {name: corpus_mod.read_corpus(d / f"{name}.bio", format="bio")
             for name in ("train", "test")}
    names = sorted({t for c in parts.values() for s in c.tags for t in s})
    features = datasets.Features({
        "id": datasets.Value("string"),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "ner_tags": datasets.Sequence(datasets.ClassLabel(names=names))})
    dd = datasets.DatasetDict({
        name: datasets.Dataset.from_dict(
            {"id": [str(i) for i in range(len(c.words))], "tokens": c.words,
             "ner_tags": [[names.index(t) for t in s] for s in c.tags]}, features=features)
        for name, c in parts.items()})
    dd.save_to_disk(str(d / "saved"))
    return parts


def test_a_saved_datasetdict_runs_a_committee_of_entities(tmp_path, capsys):
    parts = _entities_dataset(tmp_path)
    config = _config(tmp_path, "ner", {"path": "saved", "format": "hf-dataset"},
                     {"path": "saved", "format": "hf-dataset"})
    assert call(["run", config, "--quiet"]) == 0, capsys.readouterr().err
    m = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    # the same sentences and tags as the bio files: the same content checksum
    assert m["corpus"]["test"]["content_sha256"] == parts["test"].content_sha256
    assert m["corpus"]["train"]["content_sha256"] == parts["train"].content_sha256
    assert {k: v for k, v in m["config"]["corpus"]["test"].items() if v is not None} == {
        "path": "saved", "format": "hf-dataset", "encoding": "utf-8"}
    # read back by the report's readers (the corpus is a directory, not a file)
    assert call(["check-gold", tmp_path / "run"]) == 0
    # and exported as the ecosystem's dataset
    assert call(["export", tmp_path / "run", tmp_path / "ds"]) == 0
    ds = datasets.load_dataset(str(tmp_path / "ds"))["test"]
    assert len(ds) == sum(1 for line in (tmp_path / "run" / "words.tsv").open(encoding="utf-8")) - 1


def test_a_parquet_file_runs_a_committee_of_words(tmp_path, capsys):
    _corpus(tmp_path, "segmentation")
    for name, column in (("train", "words"), ("test", "tokens")):
        c = corpus_mod.read_corpus(tmp_path / f"{name}.txt")
        pq.write_table(pa.table({column: c.words}), tmp_path / f"{name}.parquet")
    config = _config(tmp_path, "segmentation",
                     {"path": "train.parquet", "format": "parquet", "tokens_column": "words"},
                     {"path": "test.parquet", "format": "parquet"})
    assert call(["run", config, "--quiet"]) == 0, capsys.readouterr().err
    m = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    gold = corpus_mod.read_corpus(tmp_path / "test.txt")
    assert m["corpus"]["test"]["content_sha256"] == gold.content_sha256
    assert (tmp_path / "run" / "test.txt").read_text(encoding="utf-8") == \
        (tmp_path / "test.txt").read_text(encoding="utf-8")
    # a system scored against the parquet gold as against the text one
    capsys.readouterr()
    assert call(["score", "--gold", tmp_path / "test.parquet", "--gold-format", "parquet",
                 "--json", tmp_path / "test.txt"]) == 0
    assert json.loads(capsys.readouterr().out)["systems"][0]["f1"] == 1.0


def test_jsonl_and_parquet_read_as_the_text_files(tmp_path):
    _corpus(tmp_path, "pos")
    pku = corpus_mod.read_corpus(tmp_path / "test.txt", format="pku")
    with open(tmp_path / "test.jsonl", "w", encoding="utf-8") as f:
        for ws, ps in zip(pku.words, pku.pos):
            f.write(json.dumps({"tokens": ws, "pos_tags": ps}, ensure_ascii=False) + "\n")
    got = corpus_mod.read_corpus(tmp_path / "test.jsonl", format="jsonl")
    assert (got.words, got.pos, got.tags) == (pku.words, pku.pos, None)
    assert got.content_sha256 == pku.content_sha256 and got.lines[:2] == [1, 2]
    names = sorted({t for s in pku.pos for t in s})
    ds = datasets.Dataset.from_dict(
        {"tokens": pku.words, "pos_tags": [[names.index(t) for t in s] for s in pku.pos]},
        features=datasets.Features({"tokens": datasets.Sequence(datasets.Value("string")),
                                    "pos_tags": datasets.Sequence(
                                        datasets.ClassLabel(names=names))}))
    ds.to_parquet(str(tmp_path / "test.parquet"))  # its ClassLabel in the file's metadata
    got = corpus_mod.read_corpus(tmp_path / "test.parquet", format="parquet")
    assert (got.words, got.pos) == (pku.words, pku.pos)
    ds.save_to_disk(str(tmp_path / "one"))  # one Dataset: no split to choose
    got = corpus_mod.read_corpus(tmp_path / "one", format="hf-dataset")
    assert (got.words, got.pos) == (pku.words, pku.pos)


def _parquet(path: Path, columns: dict) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize("columns, options, message", [
    ({"tokens": [["a"], ["b", "c"]], "tags": [["O"], ["O"]]}, None,
     "row 1: 1 tags for 2 tokens: one tag per token"),
    ({"tokens": [["a"], ["b"]], "ner_tags": [[0], [1]]}, None,
     "row 0: tag 0 is an integer, and no ClassLabel of the features names column ner_tags's "
     "labels: give the tags as strings"),
    ({"tokens": [["a"], ["b c"]]}, None,
     "row 1: token 0 is 'b c': a token is a non-empty string without whitespace"),
    ({"words": [["a"]]}, None,
     "has no column 'tokens' of tokens (its columns: words); set tokens_column in a config's "
     "corpus source to the one that is"),
    ({"tokens": [["a"]], "tags": [["O"]]}, TableOptions(tags="labels", key="corpus.test"),
     "has no column 'labels' of tags (its columns: tokens, tags); set "
     "corpus.test.tags_column to the one that is"),
    ({"tokens": [["a", "b"]], "ner_tags": [["B-PER", "Q"]]}, None,
     "row 0: tag 'Q' is not O or B-/I-/E-/S-/M- followed by a type"),
])
def test_a_malformed_table_is_refused_naming_the_row(columns, options, message, tmp_path):
    f = _parquet(tmp_path / "c.parquet", columns)
    with pytest.raises(InputError) as exc:
        corpus_mod.read_corpus(f, format="parquet", table=options)
    assert str(exc.value).startswith(f"{f}: {message}")


def test_a_datasetdict_without_the_split_names_the_key(tmp_path):
    d = datasets.Dataset.from_dict({"tokens": [["a"]]})
    datasets.DatasetDict({"train": d, "validation": d}).save_to_disk(str(tmp_path / "dd"))
    with pytest.raises(InputError) as exc:
        corpus_mod.read_corpus(tmp_path / "dd", format="hf-dataset",
                               table=TableOptions(part="test", key="corpus.test"))
    assert str(exc.value) == (f"{tmp_path / 'dd'}: is a DatasetDict with no split 'test' (its "
                              "splits: train, validation): set corpus.test.dataset_split to one "
                              "of them")
    got = corpus_mod.read_corpus(tmp_path / "dd", format="hf-dataset",
                                 table=TableOptions(split="validation"))
    assert got.words == [["a"]]


def test_jsonl_lines_are_named(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text('{"tokens": ["a"]}\n\n{"tokens": ["b"], "tags": [1]\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        corpus_mod.read_corpus(f, format="jsonl")
    assert str(exc.value).startswith(f"{f}:3: not valid JSON")


def test_the_table_keys_apply_to_table_formats_only(tmp_path, capsys):
    _corpus(tmp_path, "segmentation")
    config = _config(tmp_path, "segmentation", {"path": "train.txt", "tokens_column": "w"},
                     {"path": "test.txt"})
    assert call(["run", config]) == 4
    err = capsys.readouterr().err
    assert "corpus.train.tokens_column: applies to the formats hf-dataset, parquet, jsonl, not to " \
           "sighan" in err
