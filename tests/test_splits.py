"""One corpus file split into train and test by the config (``corpus.split``):
the split rules of :mod:`committee.corpus.splits` against hand-worked
values, the config's checks, and a tiny committee run end to end on a
single file."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import public_corpora
from committee import corpus as corpus_mod
from committee.pipeline import layout
from committee.config import load_config
from committee.corpus.splits import (format_ranges, held_out, parse_ranges, range_indices,
                                     seeded_indices, split_by, split_sentences, tail_indices)
from committee.errors import ConfigError, InputError
from committee.pipeline.workflow import run

REPO = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------- the rules


def test_ranges_parse_to_one_based_inclusive_pairs():
    assert parse_ranges("8001-9000") == ((8001, 9000),)
    assert parse_ranges("1-500, 9001-9500,9600") == ((1, 500), (9001, 9500), (9600, 9600))
    assert format_ranges(parse_ranges(" 1 - 500 , 9600 ")) == "1-500,9600"


@pytest.mark.parametrize("text, problem", [
    ("0-5", "numbered from 1"),
    ("10-5", "ends before it starts"),
    ("1-5,3-8", "overlaps or precedes"),
    ("6-8,1-5", "overlaps or precedes"),
    ("a-b", "is not a sentence range"),
    ("", "is not a sentence range"),
    ("1-5,", "is not a sentence range"),
])
def test_bad_ranges_are_refused(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_ranges(text)


def test_tail_is_the_built_in_rule():
    # the built-in corpus: 19,484 sentences, the last 1,948 are test
    assert tail_indices(19_484, 0.1) == range(17_536, 19_484)
    # floor(10 * 0.3) = 3, not 2 from 10 * 0.3 = 2.9999999999999996
    assert tail_indices(10, 0.3) == range(7, 10)
    assert held_out(10, 0.3) == range(7, 10)


def test_seeded_draw_by_hand():
    # the 3 of sentences 1..10 whose sha256("7:i") is smallest, in file order
    digests = sorted(range(1, 11), key=lambda i: hashlib.sha256(f"7:{i}".encode()).hexdigest())
    by_hand = sorted(i - 1 for i in digests[:3])
    assert by_hand == [2, 3, 6]
    assert seeded_indices(10, 0.3, 7) == by_hand == held_out(10, 0.3, seed=7)
    assert seeded_indices(10, 0.3, 8) != by_hand


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 400), share=st.floats(0.01, 0.99), seed=st.integers(0, 2**40))
def test_seeded_draw_takes_the_share_in_file_order(n, share, seed):
    n_test = math.floor(round(n * share, 9))
    if n_test in (0, n):
        with pytest.raises(ValueError, match="one side would be empty"):
            seeded_indices(n, share, seed)
        return
    drawn = seeded_indices(n, share, seed)
    assert len(drawn) == n_test and drawn == sorted(set(drawn))
    assert 0 <= drawn[0] and drawn[-1] < n
    assert drawn == seeded_indices(n, share, seed)  # the same draw every time


def test_ranges_outside_the_file_or_taking_all_are_refused():
    assert range_indices(10, ((2, 3), (10, 10))) == [1, 2, 9]
    with pytest.raises(ValueError, match="range 9-11 is outside the file's 10 sentences"):
        range_indices(10, ((9, 11),))
    with pytest.raises(ValueError, match="the training part would be empty"):
        range_indices(10, ((1, 10),))
    with pytest.raises(ValueError, match="not to ranges"):
        held_out(10, "1-2", seed=3)


def put(tmp_path: Path, text: str, name: str = "c.txt") -> Path:
    f = tmp_path / name
    f.write_bytes(text.encode("utf-8"))
    return f


def test_parts_are_their_own_bytes(tmp_path):
    text = "一 二\n三\n四 五\n六\n"
    c = corpus_mod.read_corpus(put(tmp_path, text))
    train, test = split_sentences(c, [1, 3])
    assert train.words == [["一", "二"], ["四", "五"]] and test.words == [["三"], ["六"]]
    assert train.lines == [1, 3] and test.lines == [2, 4]
    assert train.sha256 == hashlib.sha256("一 二\n四 五\n".encode()).hexdigest()
    assert test.sha256 == hashlib.sha256("三\n六\n".encode()).hexdigest()
    assert test.content_sha256 == corpus_mod.content_sha256([["三"], ["六"]])
    with pytest.raises(InputError, match="already a split"):
        split_sentences(train, [0])


def test_conllu_ranges_keep_pos(tmp_path):
    block = "# text = {w}\n1\t{w}\t{w}\t{p}\t_\t_\t0\troot\t_\t_\n\n"
    text = "".join(block.format(w=w, p=p) for w, p in [("甲", "X"), ("乙", "Y"), ("丙", "Z")])
    c = corpus_mod.read_corpus(put(tmp_path, text, "c.conllu"), format="conllu")
    train, test = split_by(c, "2")
    assert test.words == [["乙"]] and test.pos == [["Y"]] and train.pos == [["X"], ["Z"]]
    assert test.sha256 == hashlib.sha256(block.format(w="乙", p="Y").encode()).hexdigest()


# ----------------------------------------------------------------- the config

SENTENCES = [f"第{i} 句 话" for i in range(1, 21)]  # 20 sentences, each its own


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("one.txt").write_text("".join(s + "\n" for s in SENTENCES), encoding="utf-8")
    Path("other.txt").write_text("别 的\n", encoding="utf-8")
    return tmp_path


def write_config(where: Path, corpus: str, name: str = "c.yaml", extra: str = "") -> Path:
    path = where / name
    path.write_text(f"""name: one
corpus:
{corpus}
committee: {{size: 3, templates: [F1, F2, F3], ratios: [0.3, 0.5, 0.7], seed: 7}}
crf: {{preset: legacy, params: {{max_iterations: 3}}}}
parallel: {{backend: sequential, n_jobs: 1}}
output: {{dir: out}}
{extra}""", encoding="utf-8")
    return path


SPLIT = """  train: {path: one.txt, split: train}
  test: {path: one.txt, split: test}
  split: %s"""


@pytest.mark.parametrize("corpus, problem", [
    (SPLIT % "{test: 1.5}",
     "corpus.split.test: a share must be in (0, 1), got 1.5 (sentence ranges are a string, "
     "such as '8001-9000')"),
    (SPLIT % "{test: 0}", "corpus.split.test: a share must be in (0, 1), got 0"),
    (SPLIT % "{test: true}", "corpus.split.test: give a share in (0, 1) such as 0.2"),
    (SPLIT % "{test: '9-3'}", "corpus.split.test: range '9-3' ends before it starts"),
    (SPLIT % "{test: '1-3', seed: 4}",
     "corpus.split.seed: applies to a share (test: 0.2), not to sentence ranges (test: '1-3')"),
    (SPLIT % "{seed: 4}", "corpus.split.test: missing required key"),
    (SPLIT % "{test: 0.2, shuffle: true}", "corpus.split.shuffle: unknown key"),
    ("""  train: {builtin: peoples-daily-1998, split: train}
  test: {builtin: peoples-daily-1998, split: test}
  split: {test: 0.2}""",
     "corpus.split: applies to a file: the built-in corpus has its own split (its last 10% is "
     "test, split: test); remove corpus.split"),
    ("""  train: {path: one.txt, split: train}
  test: {path: other.txt, split: test}
  split: {test: 0.2}""",
     "corpus.test.path: must equal corpus.train.path ('one.txt'): corpus.split divides one "
     "file, got 'other.txt'"),
    ("""  train: {path: one.txt, split: train}
  test: {path: one.txt, split: test, format: pku}
  split: {test: 0.2}""", "corpus.test.format: must equal corpus.train.format ('sighan')"),
    ("""  train: {path: one.txt, split: train}
  test: {path: other.txt}
  split: {test: 0.2}""",
     "corpus.test.split: required with corpus.split: test is a part of the split file "
     "(split: test)"),
    ("""  train: {path: one.txt, split: train}
  test: {path: one.txt, split: train}
  split: {test: 0.2}""",
     "corpus.test.split: must differ from corpus.train.split ('train'): train and test would "
     "be the same sentences"),
    ("""  train: {path: one.txt, split: train}
  test: {path: one.txt, split: test}""",
     "corpus.train.split: a part of a file needs corpus.split, e.g. split: {test: 0.2}; "
     "a file of its own has no split"),
    ("""  train: {path: one.txt}
  test: {path: other.txt}
  split: {test: 0.2}""",
     "corpus.train.split: required with corpus.split: train is a part of the split file "
     "(split: train)"),
    ("""  train: {path: one.txt, split: train, encoding: utf-16}
  test: {path: one.txt, split: test, encoding: utf-16}
  split: {test: 0.2}""",
     "corpus.train.encoding: a file divided by corpus.split must be in an ASCII-compatible "
     "encoding, not 'utf-16'"),
], ids=lambda v: v.split(":")[0] if v.startswith("corpus") else "")
def test_each_split_problem_is_one_line_naming_file_and_key(workdir, corpus, problem):
    path = write_config(workdir, corpus)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert len(e.value.problems) == 1
    assert e.value.problems[0].startswith(problem)
    assert str(e.value).startswith(f"{path}: {problem}") and "\n" not in str(e.value)


@pytest.mark.parametrize("test, problem", [
    ("'15-25'", "corpus.split.test: one.txt: range 15-25 is outside the file's 20 sentences"),
    ("'1-20'", "corpus.split.test: one.txt: ranges 1-20 take every one of the file's 20 "
               "sentences: the training part would be empty"),
    ("0.01", "corpus.split.test: one.txt: a test share of 0.01 of 20 sentences is no "
             "sentence: one side would be empty"),
])
def test_a_split_the_file_cannot_take_names_config_and_key(workdir, test, problem):
    path = write_config(workdir, SPLIT % f"{{test: {test}}}")
    with pytest.raises(ConfigError) as e:
        run(str(path), progress=False)
    assert str(e.value) == f"{path}: {problem}"
    assert not (workdir / "out").exists()


def test_configs_without_a_split_do_not_mention_it(workdir):
    cfg = load_config(write_config(workdir, """  train: {path: one.txt}
  test: {path: other.txt}"""))
    assert "split" not in cfg.to_dict()["corpus"] and "split" not in cfg.recipe()["corpus"]
    assert "split" not in cfg.to_dict()["corpus"]["train"]


def test_the_built_in_corpus_recipe_has_no_split():
    # configs/default.yaml (the built-in corpus): its recipe, hence its
    # fingerprint, is what it is without corpus.split
    cfg = load_config(REPO / "configs" / "default.yaml")
    assert "split" not in cfg.recipe()["corpus"]
    assert cfg.recipe()["corpus"]["test"] == {"builtin": "peoples-daily-1998", "split": "test",
                                              "format": "pku", "normalization": None}


def test_the_split_is_in_the_recipe(workdir):
    def recipe(split):
        return load_config(write_config(workdir, SPLIT % split)).recipe()["corpus"]

    assert recipe("{test: 0.2}")["split"] == {"test": 0.2}
    assert recipe("{test: 0.2, seed: 3}")["split"] == {"test": 0.2, "seed": 3}
    assert recipe("{test: ' 15 - 20 '}")["split"] == {"test": "15-20"}
    fingerprints = {load_config(write_config(workdir, SPLIT % s)).fingerprint()
                    for s in ("{test: 0.2}", "{test: 0.25}", "{test: 0.2, seed: 3}",
                              "{test: '17-20'}")}
    assert len(fingerprints) == 4


def test_to_dict_validates_back(workdir):
    cfg = load_config(write_config(workdir, SPLIT % "{test: '1-2,19', }"))
    data = cfg.to_dict(resolved=False)
    assert data["corpus"]["split"] == {"test": "1-2,19"}
    again = write_config(workdir, "", "again.yaml")
    again.write_text(json.dumps(data), encoding="utf-8")
    assert load_config(again) == cfg


# ----------------------------------------------------------------- end to end


def test_a_committee_runs_on_one_file_split_by_the_config(workdir):
    out = run(str(write_config(workdir, SPLIT % "{test: 0.25}")), progress=False)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    # the last 5 of the 20 sentences are test, the first 15 train
    assert (out / "test.txt").read_text(encoding="utf-8") == \
        "".join(s + "\n" for s in SENTENCES[15:])
    corpus = manifest["corpus"]
    assert corpus["train"]["sentences"] == 15 and corpus["test"]["sentences"] == 5
    assert corpus["train"]["path"] == corpus["test"]["path"] == "one.txt"
    data = (workdir / "one.txt").read_bytes()
    cut = len("".join(s + "\n" for s in SENTENCES[:15]).encode())
    assert corpus["train"]["sha256"] == hashlib.sha256(data[:cut]).hexdigest()
    assert corpus["test"]["sha256"] == hashlib.sha256(data[cut:]).hexdigest()
    assert manifest["config"]["corpus"]["split"] == {"test": 0.25}
    assert "|split:test=0.25|" in manifest["signature"]

    # a changed split is another run: resuming it is refused
    with pytest.raises(Exception, match="different config or corpus"):
        run(str(write_config(workdir, SPLIT % "{test: 0.25, seed: 1}")), progress=False)


def test_a_seeded_split_is_reproducible(workdir):
    path = write_config(workdir, SPLIT % "{test: 0.25, seed: 11}")
    first = run(str(path), progress=False)
    again = run(str(path), progress=False, **{"output.dir": "again"})
    for name in layout.OUTPUT_FILES:
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    test = (first / "test.txt").read_text(encoding="utf-8").splitlines()
    assert test == [SENTENCES[i] for i in seeded_indices(20, 0.25, 11)] and len(test) == 5
    manifest = json.loads((first / "manifest.json").read_text(encoding="utf-8"))
    assert "|split:test=0.25,seed=11|" in manifest["signature"]


GSDSIMP = public_corpora.find("ud-chinese-gsdsimp", "test.conllu")


@public_corpora.needs("ud-chinese-gsdsimp", "test.conllu")
@pytest.mark.parametrize("split", ["{test: 0.2}", "{test: 0.2, seed: 5}", "{test: '101-200'}"])
def test_a_real_treebank_file_splits_into_disjoint_parts(tmp_path, monkeypatch, split):
    from committee.pipeline import dataset

    monkeypatch.chdir(tmp_path)
    path = write_config(tmp_path, f"""  root: {GSDSIMP}
  train: {{path: test.conllu, format: conllu, split: train}}
  test: {{path: test.conllu, format: conllu, split: test}}
  split: {split}""")
    inputs = dataset.load_inputs(load_config(path), str(path))  # the overlap check passes
    whole = corpus_mod.read_corpus(GSDSIMP / "test.conllu", format="conllu")
    train, test = inputs.train, inputs.test
    assert len(whole) == 500 and len(train) == 400 and len(test) == 100
    assert not set(train.lines) & set(test.lines)
    assert sorted(train.lines + test.lines) == whole.lines
    assert train.n_words() + test.n_words() == whole.n_words()


def test_split_tail_is_the_last_share_of_the_file(tmp_path):
    from committee.corpus import read_corpus
    from committee.system.files import sha256_bytes
    from committee.corpus.splits import split_sentences, split_tail

    f = tmp_path / "c.txt"
    f.write_text("一 二\n三\n四 五\n六\n", encoding="utf-8")
    corpus = read_corpus(f)
    train, test = split_tail(corpus, 0.5)
    assert (train.words, test.words, test.lines) == ([["一", "二"], ["三"]],
                                                     [["四", "五"], ["六"]], [3, 4])
    assert test.sha256 == sha256_bytes("四 五\n六\n".encode("utf-8"))
    assert (train, test) == split_sentences(corpus, [2, 3])
