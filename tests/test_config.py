"""Tests for committee.config: every config is written into tmp_path and the
working directory is moved there, so relative corpus paths resolve inside it."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path

import pydantic
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import committee.config as config_module
from committee.config import (
    Config,
    CorpusSource,
    load_config,
    parse_config,
    source_description,
)
from committee.errors import ConfigError

TRAIN = "training/pku_training.utf8"
TEST = "gold/pku_test_gold.utf8"


def base() -> dict:
    """A complete valid config, as plain data."""
    return {
        "name": "peoples-daily-1998",
        "corpus": {
            "root": None,
            "train": {"path": TRAIN, "format": "sighan", "encoding": "utf-8", "normalization": None},
            "test": {"path": TEST, "format": "sighan"},
            "train_words": None,
        },
        "committee": {
            "size": 90,
            "templates": ["F1", "F2", "F3"],
            "ratios": [0.1, 0.2, 0.3],
            "draw": "random",
            "seed": 2016,
        },
        "crf": {"algorithm": "lbfgs", "params": {"c2": 1.0, "max_iterations": 100}},
        "parallel": {"backend": "loky", "n_jobs": 2, "scheduler": None},
        "output": {"dir": "runs/peoples-daily-1998", "keep_models": False},
    }


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "training").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / TRAIN).write_text("共同  創造  美好  的  新  世紀\n", encoding="utf-8")
    (tmp_path / TEST).write_text("計算機  總是  有  問題\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(directory: Path, data, name: str = "run.yaml") -> Path:
    path = directory / name
    text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path, overrides=(), check_paths=True) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(path, overrides, check_paths=check_paths)
    assert info.value.path == str(path)
    return info.value.problems


def with_change(dotted: str, value, data=None) -> dict:
    data = data or base()
    *parents, last = dotted.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    return data


def without(dotted: str) -> dict:
    data = base()
    *parents, last = dotted.split(".")
    node = data
    for key in parents:
        node = node[key]
    del node[last]
    return data


# --------------------------------------------------------------------------
# valid configs


def test_minimal_config_gets_every_default(workdir):
    path = write(workdir, {
        "name": "pku",
        "corpus": {"train": {"path": TRAIN}, "test": {"path": TEST}},
        "output": {"dir": "runs/pku"},
    })
    config = load_config(path)
    assert config.name == "pku"
    assert config.corpus.root is None and config.corpus.train_words is None
    train = config.corpus.train
    assert (train.path, train.format, train.encoding, train.normalization) == (TRAIN, "sighan", "utf-8", None)
    assert config.committee.size == 90
    assert config.committee.templates == ("F1", "F2", "F3")
    assert config.committee.ratios == (0.1, 0.2, 0.3)
    assert config.committee.draw == "random" and config.committee.seed == 2016
    # the paper preset, the reference recipe (docs/method.md §10)
    assert (config.crf.preset, config.crf.algorithm) == ("paper", "lbfgs")
    assert config.crf.trainer_params() == {"c1": 1.0, "c2": 0.0, "max_iterations": 100}
    assert (config.parallel.backend, config.parallel.n_jobs, config.parallel.scheduler) == ("loky", 1, None)
    assert config.output.dir == "runs/pku" and config.output.keep_models is False


def test_full_config_loads_and_is_frozen(workdir):
    config = load_config(write(workdir, base()))
    assert config.parallel.n_jobs == 2
    with pytest.raises(pydantic.ValidationError):
        config.name = "other"
    with pytest.raises(pydantic.ValidationError):
        config.committee.size = 3
    assert hash(config) == hash(load_config(write(workdir, base())))


def test_params_given_are_set_on_top_of_the_defaults(workdir):
    config = load_config(write(workdir, with_change("crf.params", {"c1": 0.5, "feature.minfreq": 2})))
    # the params replace the file's; the paper preset fills what they leave out
    assert config.crf.trainer_params() == {"c1": 0.5, "c2": 0.0, "max_iterations": 100, "feature.minfreq": 2.0}
    config = load_config(write(workdir, with_change("crf.params", {"max_iterations": None})))
    assert config.crf.trainer_params() == {"c1": 1.0, "c2": 0.0}


def test_trainer_params_are_accepted_by_pycrfsuite(workdir):
    import pycrfsuite

    data = with_change("crf.params", {"c1": 0.1, "linesearch": "Backtracking", "feature.possible_states": True})
    config = load_config(write(workdir, data))
    trainer = pycrfsuite.Trainer(algorithm=config.crf.algorithm, verbose=False)
    trainer.set_params(config.crf.trainer_params())
    assert trainer.get("c1") == 0.1 and trainer.get("linesearch") == "Backtracking"
    assert trainer.get("max_iterations") == 100


@pytest.mark.parametrize("algorithm", ["l2sgd", "ap", "pa", "arow"])
def test_other_algorithms_get_only_their_own_defaults(workdir, algorithm):
    config = load_config(write(workdir, with_change("crf", {"algorithm": algorithm})))
    expected = {"max_iterations": 100} | ({"c2": 1.0} if algorithm == "l2sgd" else {})
    assert config.crf.trainer_params() == expected


def test_builtin_sources_are_pku_and_not_looked_for(workdir):
    data = base()
    data["corpus"]["train"] = {"builtin": "peoples-daily-1998", "split": "train", "normalization": "nfkc"}
    data["corpus"]["test"] = {"builtin": "peoples-daily-1998", "split": "test", "normalization": "nfkc"}
    config = load_config(write(workdir, data))
    assert config.corpus.test.format == "pku" and config.corpus.test.encoding is None
    assert config.corpus.test.is_builtin
    assert config.to_dict()["corpus"]["test"] == {
        "builtin": "peoples-daily-1998", "split": "test", "format": "pku", "normalization": "nfkc",
    }
    with pytest.raises(ValueError, match="has no path"):
        config.resolve(config.corpus.test)


def test_seed_zero_is_a_seed(workdir):
    assert load_config(write(workdir, with_change("committee.seed", 0))).committee.seed == 0


def test_ratio_one_and_all_cores_are_valid(workdir):
    data = with_change("committee.ratios", [1, 0.5])
    data["parallel"]["n_jobs"] = -1
    config = load_config(write(workdir, data))
    assert config.committee.ratios == (1.0, 0.5) and config.parallel.n_jobs == -1


def test_root_resolves_relative_paths(workdir):
    (workdir / "data").mkdir()
    (workdir / TRAIN).rename(workdir / "data" / "train.txt")
    (workdir / "data" / "words.txt").write_text("共同\n", encoding="utf-8")
    data = base()
    data["corpus"].update(root="data", train={"path": "train.txt"}, test={"path": str(workdir / TEST)},
                          train_words="words.txt")
    config = load_config(write(workdir, data))
    assert config.resolve(config.corpus.train) == workdir / "data" / "train.txt"
    assert config.resolve(config.corpus.test) == workdir / TEST  # absolute stays as is
    resolved = config.to_dict()
    assert resolved["corpus"]["train"]["path"] == "train.txt"
    assert resolved["corpus"]["train"]["resolved_path"] == str(workdir / "data" / "train.txt")
    assert resolved["corpus"]["resolved_train_words"] == str(workdir / "data" / "words.txt")


def test_resolution_is_fixed_when_the_config_is_validated(workdir, monkeypatch):
    config = load_config(write(workdir, base()))
    monkeypatch.chdir(workdir / "gold")
    assert config.resolve(config.corpus.train) == workdir / TRAIN


def test_to_dict_is_json_and_round_trips(workdir):
    config = load_config(write(workdir, base()))
    json.dumps(config.to_dict())
    plain = config.to_dict(resolved=False)
    assert "resolved_path" not in plain["corpus"]["train"]
    assert Config.model_validate(plain) == config
    assert parse_config(plain, check_paths=True) == config


def test_source_description():
    assert source_description(CorpusSource(path="a.txt", encoding="gbk")) == "a.txt (sighan, gbk)"
    text = source_description(CorpusSource(builtin="peoples-daily-1998", split="train"))
    assert text == "built-in peoples-daily-1998, train split (pku)"


@pytest.mark.parametrize("module", ["corpussection", "overrides"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(f"committee.config.{module}"))
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------
# one problem at a time: the exact dotted path and message

CASES = [
    (with_change("experiment", {"table2": True}),
     "experiment: unknown key (did you mean 'experiments'?)"),
    (with_change("results", {"a": 1}),
     "results: unknown key; expected one of: name, task, corpus, committee, crf, parallel, "
     "output, experiments"),
    (with_change("experiments", {"tabel2": True}),
     "experiments.tabel2: unknown key (did you mean 'experiments.table2'?)"),
    (with_change("experiments", {"table2": "yes"}),
     "experiments.table2: expected true or false, got 'yes' (a string)"),
    (with_change("experiments", {"table2_fractions": [0.2, 1.5]}),
     "experiments.table2_fractions[1]: must be <= 1, got 1.5"),
    (with_change("experiments", {"table2_fractions": [0.5, 0.5]}),
     "experiments.table2_fractions[1]: duplicate 0.5"),
    (with_change("experiments", {"table2_template": "F4"}),
     "experiments.table2_template: unknown value 'F4' (did you mean 'F3'?); expected one of: F1, F2, F3"),
    (with_change("experiments", {"table2_max_iterations": 0}),
     "experiments.table2_max_iterations: must be >= 1, got 0"),
    (with_change("experiments", {"word_weight_sentences": [-1]}),
     "experiments.word_weight_sentences[0]: must be >= 0, got -1"),
    (with_change("comittee", {"size": 3}), "comittee: unknown key (did you mean 'committee'?)"),
    (with_change("committee.sise", 3), "committee.sise: unknown key (did you mean 'committee.size'?)"),
    (with_change("corpus.train.fromat", "pku"),
     "corpus.train.fromat: unknown key (did you mean 'corpus.train.format'?)"),
    (with_change("committee.size", "ten"), "committee.size: expected an integer or auto, got 'ten' (a string)"),
    (with_change("committee.size", 2.5), "committee.size: expected an integer or auto, got 2.5"),
    (with_change("committee.size", True), "committee.size: expected an integer or auto, got true"),
    (with_change("output.keep_models", "maybe"),
     "output.keep_models: expected true or false, got 'maybe' (a string)"),
    (with_change("committee.ratios", "0.1"), "committee.ratios: expected a list, got '0.1' (a string)"),
    (with_change("committee", [1]), "committee: expected a mapping, got [1] (a list)"),
    (with_change("committee.size", 0), "committee.size: must be >= 1, got 0"),
    (with_change("committee.ratios", [0.1, 1.5]), "committee.ratios[1]: must be <= 1, got 1.5"),
    (with_change("committee.ratios", [0, 0.2]), "committee.ratios[0]: must be > 0, got 0"),
    (with_change("committee.ratios", [0.1, 0.1]), "committee.ratios[1]: duplicate 0.1"),
    (with_change("committee.ratios", []), "committee.ratios: must not be empty"),
    (with_change("committee.seed", -1), "committee.seed: must be >= 0, got -1"),
    (with_change("committee.templates", ["F1", "F2", "F1"]), "committee.templates[2]: duplicate 'F1'"),
    (with_change("committee.templates", ["F1", "F4"]),
     "committee.templates[1]: unknown value 'F4' (did you mean 'F3'?); expected one of: F1, F2, F3"),
    (with_change("committee.templates", ["F1", "template2"]),
     "committee.templates[1]: unknown value 'template2'; expected one of: F1, F2, F3"),
    (with_change("committee.draw", "grdi"),
     "committee.draw: unknown value 'grdi' (did you mean 'grid'?); expected one of: random, grid"),
    (with_change("corpus.train.format", "sighn"),
     "corpus.train.format: unknown value 'sighn' (did you mean 'sighan'?); "
     "expected one of: sighan, pku, char-slash, char-tsv, conllu, conllu-xpos, underscore, bio, "
     "hf-dataset, parquet, jsonl"),
    (with_change("corpus.train.encoding", "utf-9"), "corpus.train.encoding: unknown encoding 'utf-9'"),
    (with_change("corpus.test", {"path": TEST, "builtin": "peoples-daily-1998", "split": "test"}),
     "corpus.test: give either 'path' or 'builtin', not both"),
    (with_change("corpus.test", {"format": "sighan"}),
     "corpus.test: give 'path' (a corpus file) or 'builtin' (a built-in corpus)"),
    (with_change("corpus.test", {"builtin": "peoples-daily-1998"}),
     "corpus.test.split: required with 'builtin' (one of: train, test)"),
    (with_change("corpus.test", {"builtin": "peoples-daily-1998", "split": "test", "format": "sighan"}),
     "corpus.test.format: built-in corpora are in 'pku' format, got 'sighan'"),
    (with_change("corpus.test", {"builtin": "peoples-daily-1998", "split": "test", "encoding": "gbk"}),
     "corpus.test.encoding: does not apply to a built-in corpus"),
    (with_change("corpus.test", {"builtin": "pd-1998", "split": "test"}),
     "corpus.test.builtin: unknown value 'pd-1998' (did you mean 'peoples-daily-1998'?); "
     "expected one of: peoples-daily-1998"),
    (with_change("corpus.test", {"path": TEST, "split": "test"}),
     "corpus.test.split: a part of a file needs corpus.split, e.g. split: {test: 0.2}; "
     "a file of its own has no split"),
    (with_change("corpus.test", TEST),
     f"corpus.test: expected a mapping, got '{TEST}' (a string); "
     "e.g. {path: FILE, format: sighan} or {builtin: peoples-daily-1998, split: train}"),
    (with_change("corpus.train.normalization", "nfc"),
     "corpus.train.normalization: unknown value 'nfc' (did you mean 'nfkc'?); expected one of: nfkc, fullwidth"),
    (with_change("corpus.train.normalization", "nfkc"),
     "corpus.test.normalization: must equal train.normalization ('nfkc'), got null: "
     "one normalization applies to every file scored together"),
    (with_change("crf.params.c3", 1.0), "crf.params.c3: unknown key (did you mean 'crf.params.c2'?)"),
    (with_change("crf.params.feature_minfreq", 1),
     "crf.params.feature_minfreq: unknown key (did you mean 'crf.params.feature.minfreq'?)"),
    (with_change("crf.algorithm", "ap"),
     "crf.params.c2: unknown key; expected one of: feature.minfreq, feature.possible_states, "
     "feature.possible_transitions, max_iterations, epsilon"),
    (with_change("crf.algorithm", "sgd"),
     "crf.algorithm: unknown value 'sgd' (did you mean 'l2sgd'?); expected one of: lbfgs, l2sgd, ap, pa, arow"),
    (with_change("crf.params.c1", -0.5), "crf.params.c1: must be >= 0, got -0.5"),
    (with_change("crf.params.c2", -1), "crf.params.c2: must be >= 0, got -1"),
    (with_change("crf.params.max_iterations", 0), "crf.params.max_iterations: must be >= 1, got 0"),
    # every float parameter follows the one rule set of committee.learners.crf, not only c1 and c2
    (with_change("crf.params.epsilon", -1.0), "crf.params.epsilon: must be >= 0, got -1.0"),
    (with_change("crf.params.delta", -0.5), "crf.params.delta: must be >= 0, got -0.5"),
    (with_change("crf.params.max_iterations", "100"),
     "crf.params.max_iterations: expected an integer, got '100' (a string: it is in quotes); "
     "write 100 without quotes"),
    (with_change("crf.params.c2", "1e-3"),
     "crf.params.c2: expected a number, got '1e-3' (a string: YAML reads exponents without "
     "a '.' as text; write e.g. 1.0e-3)"),
    (with_change("crf.params.linesearch", "Newton"),
     "crf.params.linesearch: unknown value 'Newton'; expected one of: MoreThuente, Backtracking, StrongBacktracking"),
    (with_change("parallel.n_jobs", 0), "parallel.n_jobs: must be >= 1, or -1 for all cores, got 0"),
    (with_change("parallel.backend", "ray"),
     "parallel.backend: unknown value 'ray'; expected one of: loky, dask, sequential"),
    (with_change("parallel.scheduler", "tcp://127.0.0.1:8786"),
     "parallel.scheduler: applies only to backend 'dask' (backend is 'loky')"),
    (with_change("parallel.backend", "sequential"),
     "parallel.n_jobs: backend 'sequential' runs one job at a time; must be 1, got 2"),
    (with_change("name", "my run"),
     "name: must match [A-Za-z0-9._-]+ (letters, digits, '.', '_', '-'), got 'my run'"),
    (with_change("name", ".."), "name: must not be '..'"),
    (without("name"), "name: missing required key"),
    (without("corpus.test"), "corpus.test: missing required key"),
    (without("output.dir"), "output.dir: missing required key"),
    (with_change("output.dir", ""), "output.dir: must not be empty"),
]


@pytest.mark.parametrize("data, problem", CASES, ids=[c[1].split(":")[0] for c in CASES])
def test_each_problem_is_named_by_its_dotted_path(workdir, data, problem):
    assert problems_of(write(workdir, data)) == [problem]


def test_dask_scheduler_is_named_on_the_command_line_not_in_the_file(workdir):
    """A file never chooses the host that receives the work (docs/security.md):
    the same address given as an override (``--set``, ``--scheduler``) is accepted."""
    data = with_change("parallel", {"backend": "dask", "scheduler": "tcp://127.0.0.1:8786"})
    assert problems_of(write(workdir, data)) == [
        "parallel.scheduler: 'tcp://127.0.0.1:8786': a config file never chooses the host that "
        "receives the work (docs/security.md); name it on the command line: --scheduler "
        "tcp://127.0.0.1:8786"]
    named = load_config(write(workdir, with_change("parallel", {"backend": "dask"})),
                        ["parallel.scheduler=tcp://127.0.0.1:8786"])
    assert named.parallel.scheduler == "tcp://127.0.0.1:8786"


def test_yaml_syntax_error_names_line_and_column(workdir):
    path = write(workdir, "name: x\ncorpus:\n  train: {path: a}\n  test: b: c\n")
    assert problems_of(path) == ["line 4, column 10: mapping values are not allowed here"]


def test_python_object_tags_are_refused_and_nothing_runs(workdir):
    marker = workdir / "executed"
    path = write(workdir, f'name: peoples\ncorpus: !!python/object/apply:os.system ["echo hi > {marker}"]\n')
    assert problems_of(path) == [
        "line 2: YAML tag '!!python/object/apply:os.system' is not allowed: configs are plain data"
    ]
    assert not marker.exists()
    override = f'name=!!python/object/apply:os.system ["echo hi > {marker}"]'
    (problem,) = problems_of(write(workdir, base()), [override])
    assert problem.startswith(f"--set {override}: cannot parse the value: ")
    assert "YAML tag '!!python/object/apply:os.system' is not allowed" in problem
    assert not marker.exists()


def test_duplicate_yaml_keys_are_reported(workdir):
    text = yaml.safe_dump(base()) + "name: again\n"
    (problem,) = problems_of(write(workdir, text))
    assert problem.startswith("name: duplicate key (lines ")


@pytest.mark.parametrize("text, what", [
    ("- name: x\n- corpus: y\n", "[{'name': 'x'}, {'corpus': 'y'}] (a list)"),
    ("just text\n", "'just text' (a string)"),
    ("", "an empty file"),
])
def test_top_level_must_be_a_mapping(workdir, text, what):
    assert problems_of(write(workdir, text)) == [f"expected a mapping of sections at the top level, got {what}"]


def test_missing_and_unreadable_config_file(workdir):
    assert problems_of(workdir / "absent.yaml") == ["no such file"]
    (workdir / "latin1.yaml").write_bytes("name: caf\xe9\n".encode("latin-1"))
    assert problems_of(workdir / "latin1.yaml") == ["cannot read: not UTF-8 (byte 0xe9 at offset 9)"]


def test_missing_corpus_files_are_named_with_absolute_paths(workdir):
    data = with_change("corpus.train.path", "training/missing.utf8")
    data["corpus"]["train_words"] = "words.txt"
    path = write(workdir, data)
    assert problems_of(path) == [
        f"corpus.train.path: no such file: {workdir / 'training/missing.utf8'}",
        f"corpus.train_words: no such file: {workdir / 'words.txt'}",
    ]
    assert load_config(path, check_paths=False).corpus.train.path == "training/missing.utf8"


def test_missing_root_is_reported_once(workdir):
    path = write(workdir, with_change("corpus.root", "elsewhere"))
    assert problems_of(path) == [f"corpus.root: no such directory: {workdir / 'elsewhere'}"]


def test_a_directory_is_not_a_corpus_file(workdir):
    path = write(workdir, with_change("corpus.test.path", "gold"))
    assert problems_of(path) == [f"corpus.test.path: not a file: {workdir / 'gold'}"]


def test_every_problem_is_reported_in_one_error(workdir):
    data = base()
    data["experimnts"] = {}
    data["committee"].update(size=0, ratios=[0.1, 1.5])
    data["crf"]["params"]["c3"] = 1
    data["corpus"]["test"]["path"] = "gold/absent.utf8"
    path = write(workdir, data)
    with pytest.raises(ConfigError) as info:
        load_config(path, ["parallel.n_jobz=3"])
    problems = info.value.problems
    expected = [
        "--set parallel.n_jobz=3: unknown key (did you mean 'parallel.n_jobs'?)",
        "committee.size: must be >= 1, got 0",
        "committee.ratios[1]: must be <= 1, got 1.5",
        "crf.params.c3: unknown key (did you mean 'crf.params.c2'?)",
        "experimnts: unknown key (did you mean 'experiments'?)",
        f"corpus.test.path: no such file: {workdir / 'gold/absent.utf8'}",
    ]
    assert sorted(problems) == sorted(expected)
    assert str(info.value).startswith(f"{path}: 6 problems\n  ")


def test_parse_config_does_not_modify_its_input(workdir):
    data = base()
    before = json.dumps(data, sort_keys=True)
    parse_config(data, overrides=["committee.size=5", "crf.params.c1=0.5"])
    assert json.dumps(data, sort_keys=True) == before


# --------------------------------------------------------------------------
# overrides


def test_override_values_are_parsed_as_yaml(workdir):
    (workdir / "x.txt").write_text("新  世紀\n", encoding="utf-8")
    config = load_config(write(workdir, base()), [
        "committee.size=5",
        "corpus.train.path=x.txt",
        "committee.ratios=[0.1,0.5]",
        "output.keep_models=true",
        "parallel.scheduler=null",
        "name=run-2",
    ])
    assert config.committee.size == 5
    assert config.corpus.train.path == "x.txt"
    assert config.committee.ratios == (0.1, 0.5)
    assert config.output.keep_models is True
    assert config.name == "run-2"


def test_override_types_are_validated(workdir):
    problems = problems_of(write(workdir, base()), ["committee.size=abc"])
    assert problems == ["--set committee.size=abc: expected an integer or auto, got 'abc' (a string)"]


def test_unknown_override_keys_are_refused(workdir):
    path = write(workdir, base())
    assert problems_of(path, ["committee.sise=5"]) == [
        "--set committee.sise=5: unknown key (did you mean 'committee.size'?)"
    ]
    assert problems_of(path, ["experiments.table=true"]) == [
        "--set experiments.table=true: unknown key (did you mean 'experiments.table2'?)"
    ]
    assert problems_of(path, ["committee.size.x=1"]) == [
        "--set committee.size.x=1: unknown key ('committee.size' takes a value, not sub-keys)"
    ]
    assert problems_of(path, ["committee.size"]) == [
        "--set committee.size: expected KEY=VALUE, e.g. committee.size=5"
    ]


def test_crf_params_overrides_follow_the_algorithm(workdir):
    path = write(workdir, base())
    config = load_config(path, ["crf.params.c1=0.25", "crf.params.feature.minfreq=2"])
    assert config.crf.trainer_params() == {"c1": 0.25, "c2": 1.0, "max_iterations": 100, "feature.minfreq": 2.0}
    assert problems_of(path, ["crf.params.c3=1"]) == ["--set crf.params.c3=1: unknown key (did you mean 'crf.params.c2'?)"]
    # switching algorithm first changes which names exist
    (problem,) = problems_of(path, ["crf.algorithm=ap", "crf.params.c2=1"])
    assert problem.startswith("--set crf.params.c2=1: unknown key; expected one of: feature.minfreq")
    config = load_config(path, ["crf={algorithm: ap}", "crf.params.epsilon=0.01"])
    assert config.crf.trainer_params() == {"max_iterations": 100, "epsilon": 0.01}


def test_override_can_fill_a_section_the_file_leaves_out(workdir):
    data = base()
    del data["crf"], data["committee"]
    config = load_config(write(workdir, data), ["crf.params.c1=0.5", "committee.seed=0"])
    assert config.crf.trainer_params() == {"c1": 0.5, "c2": 0.0, "max_iterations": 100}
    assert config.committee.seed == 0 and config.committee.size == 90


def test_override_replaces_a_whole_source(workdir):
    config = load_config(write(workdir, base()), ["corpus.test={builtin: peoples-daily-1998, split: test}"])
    assert config.corpus.test.builtin == "peoples-daily-1998"


# --------------------------------------------------------------------------
# fingerprint


@pytest.mark.parametrize("override", [
    "parallel.n_jobs=1",
    "parallel.n_jobs=-1",
    "parallel={backend: dask, scheduler: tcp://127.0.0.1:8786}",
    "parallel={backend: sequential, n_jobs: 1}",
    "output.dir=runs/elsewhere",
    "output.keep_models=true",
])
def test_fingerprint_ignores_how_and_where_a_run_executes(workdir, override):
    path = write(workdir, base())
    assert load_config(path, [override]).fingerprint() == load_config(path).fingerprint()


def test_fingerprint_ignores_where_the_corpus_lives(workdir):
    config = load_config(write(workdir, base()))
    moved = workdir / "moved"
    moved.mkdir()
    for name in (TRAIN, TEST):
        (moved / Path(name).parent).mkdir(exist_ok=True)
        (moved / name).write_bytes((workdir / name).read_bytes())
    assert load_config(write(workdir, base()), ["corpus.root=moved"]).fingerprint() == config.fingerprint()


@pytest.mark.parametrize("override", [
    "committee.seed=2017",
    "committee.size=89",
    "committee.ratios=[0.1,0.2]",
    "committee.templates=[F1,F2]",
    "committee.draw=grid",
    "crf.params.c2=0.5",
    "crf.params.c1=0.3",
    "crf.algorithm=l2sgd",
    "crf.preset=legacy",
    "corpus.train.normalization=nfkc",
    "corpus.train.format=pku",
    "name=other",
])
def test_fingerprint_changes_with_the_recipe(workdir, override):
    path = write(workdir, base())
    overrides = [override]
    if "normalization" in override:
        overrides.append("corpus.test.normalization=nfkc")
    changed = load_config(path, overrides).fingerprint()
    assert changed != load_config(path).fingerprint()
    assert len(changed) == 64 and int(changed, 16) >= 0


def test_fingerprint_ignores_int_versus_float_spelling(workdir):
    path = write(workdir, base())
    assert load_config(path, ["crf.params.c2=1"]).fingerprint() == load_config(path).fingerprint()


# --------------------------------------------------------------------------
# properties

ratios = st.lists(
    st.floats(min_value=0, max_value=1, exclude_min=True, allow_nan=False), min_size=1, max_size=5, unique=True
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, config_module.MAX_SIZE), seed=st.integers(0, 2**64), ratios=ratios)
def test_random_valid_recipes_load(workdir, size, seed, ratios):
    path = workdir / "run.yaml"
    if not path.exists():
        write(workdir, base())
    overrides = [f"committee.size={size}", f"committee.seed={seed}", f"committee.ratios={yaml.safe_dump(ratios, default_flow_style=True).strip()}"]
    config = load_config(path, overrides)
    assert (config.committee.size, config.committee.seed) == (size, seed)
    assert config.committee.ratios == tuple(ratios)


@settings(max_examples=30, deadline=None)
@given(size=st.integers(max_value=0), seed=st.integers(max_value=-1))
def test_random_invalid_sizes_and_seeds_are_named(size, seed):
    data = base()
    data["committee"].update(size=size, seed=seed)
    with pytest.raises(ConfigError) as info:
        parse_config(data, check_paths=False)
    assert info.value.problems == [f"committee.size: must be >= 1, got {size}", f"committee.seed: must be >= 0, got {seed}"]


@settings(max_examples=30, deadline=None)
@given(size=st.integers(min_value=config_module.MAX_SIZE + 1))
def test_sizes_above_the_maximum_are_refused(size):
    data = base()
    data["committee"]["size"] = size
    with pytest.raises(ConfigError) as info:
        parse_config(data, check_paths=False)
    assert info.value.problems == [
        f"committee.size: must be <= 10000, got {size} (difficulties settle long before: the "
        "paper's committee has 90 members, and every member trains a CRF)"]


# --------------------------------------------------------------------------
# experiments


def test_experiments_are_off_by_default_and_switch_on_one_by_one(workdir):
    path = write(workdir, base())
    config = load_config(path)
    assert config.experiments.enabled() == ()
    assert config.experiments.table2_fractions == (0.2, 0.5, 0.8, 1.0)
    assert config.experiments.table2_template == "F2"
    config = load_config(path, ["experiments.table2=true", "experiments.bins=true",
                                "experiments.table2_fractions=[0.5, 1.0]"])
    assert config.experiments.enabled() == ("table2", "bins")
    assert config.experiments.table2_fractions == (0.5, 1.0)


def test_experiments_do_not_change_the_fingerprint(workdir):
    path = write(workdir, base())
    assert (load_config(path).fingerprint()
            == load_config(path, ["experiments.table2=true", "experiments.seed=3"]).fingerprint())


def test_crf_value_problems_are_listed_with_other_problems(workdir):
    """A bad CRF value is reported even when another section fails too."""
    data = with_change("crf.params.epsilon", -1.0, with_change("committee.size", 0))
    with pytest.raises(ConfigError) as info:
        load_config(write(workdir, data))
    assert "crf.params.epsilon: must be >= 0, got -1.0" in info.value.problems
    assert any(p.startswith("committee.size:") for p in info.value.problems)


def test_config_rules_are_those_of_the_crf():
    """What config load accepts, crf accepts: one rule set."""
    from committee.learners import crf

    assert crf.check_crf_params("lbfgs", {"epsilon": -1.0}) == [
        "params.epsilon: must be >= 0, got -1.0"]
    assert crf.check_crf_params("lbfgs", {"max_iterations": 0}) == [
        "params.max_iterations: must be >= 1, got 0"]


# --------------------------------------------------------------------------
# crf.preset (docs/method.md §10)


def test_presets_fill_algorithm_and_params(workdir):
    from committee.learners.crf import PRESETS

    for name, preset in PRESETS.items():
        config = load_config(write(workdir, with_change("crf", {"preset": name})))
        assert (config.crf.preset, config.crf.algorithm) == (name, preset["algorithm"])
        assert config.crf.trainer_params() == preset["params"]
    # explicit params override the preset's, the rest stays
    config = load_config(write(workdir, with_change("crf", {"preset": "legacy",
                                                            "params": {"max_iterations": 7}})))
    assert config.crf.trainer_params() == {"c2": 1.0, "max_iterations": 7}
    config = load_config(write(workdir, with_change("crf", {"preset": "paper"})),
                         ["crf.params.c2=0.5"])
    assert config.crf.trainer_params() == {"c1": 1.0, "c2": 0.5, "max_iterations": 100}


def test_a_preset_and_its_settings_written_out_are_the_same_run(workdir):
    from committee.learners.crf import PRESETS

    for name, preset in PRESETS.items():
        named = load_config(write(workdir, with_change("crf", {"preset": name})))
        spelled = load_config(write(workdir, with_change("crf", {"preset": None, **preset})))
        assert spelled.crf.preset is None
        assert named.fingerprint() == spelled.fingerprint()
    fingerprints = {load_config(write(workdir, with_change("crf", {"preset": n}))).fingerprint()
                    for n in PRESETS}
    assert len(fingerprints) == len(PRESETS)


def test_without_a_preset_an_other_algorithm_keeps_its_own_defaults(workdir):
    config = load_config(write(workdir, with_change("crf", {"algorithm": "pa"})))
    assert config.crf.preset is None and config.crf.trainer_params() == {"max_iterations": 100}
    config = load_config(write(workdir, with_change("crf", {"preset": None})))
    assert (config.crf.algorithm, config.crf.trainer_params()) == (
        "lbfgs", {"c2": 1.0, "max_iterations": 100})


@pytest.mark.parametrize("crf_section, overrides, message", [
    ({"preset": "fsat"}, [],
     "crf.preset: unknown preset 'fsat'; did you mean 'fast'? valid: paper, fast, elastic, legacy"),
    ({"preset": 3}, [], "crf.preset: unknown preset 3; valid: paper, fast, elastic, legacy"),
    ({"preset": "legacy", "algorithm": "pa"}, [],
     "crf.algorithm: preset 'legacy' trains with 'lbfgs', not 'pa'; drop one of crf.preset "
     "and crf.algorithm"),
    ({"preset": "paper"}, ["crf.preset=quick"],
     "--set crf.preset=quick: unknown preset 'quick'; valid: paper, fast, elastic, legacy"),
    ({"preset": "paper", "params": {"c1": -1}}, [], "crf.params.c1: must be >= 0, got -1"),
])
def test_bad_presets_are_named(workdir, crf_section, overrides, message):
    problems = problems_of(write(workdir, with_change("crf", crf_section)), overrides)
    assert any(p.endswith(message) for p in problems), problems


def test_table2_models_take_their_own_preset(workdir):
    # a committee of any recipe gets Table 2 models trained with paper (docs/method.md §10)
    config = load_config(write(workdir, with_change("crf", {"preset": "fast"})))
    assert config.table2_crf() == ("lbfgs", {"c1": 1.0, "c2": 0.0, "max_iterations": 100})
    config = load_config(write(workdir, with_change("crf", {"preset": "elastic"})))
    assert config.table2_crf() == ("lbfgs", {"c1": 1.0, "c2": 0.0, "max_iterations": 100})
    config = load_config(write(workdir, with_change("crf", {"preset": "fast"})),
                         ["experiments.table2_preset=committee"])
    assert config.table2_crf() == (config.crf.algorithm, config.crf.trainer_params())
    config = load_config(write(workdir, base()), ["experiments.table2_preset=legacy",
                                                   "experiments.table2_max_iterations=300"])
    assert config.table2_crf() == ("lbfgs", {"c2": 1.0, "max_iterations": 300})
    assert problems_of(write(workdir, base()), ["experiments.table2_preset=quick"]) == [
        "--set experiments.table2_preset=quick: unknown value 'quick'; expected one of: "
        "paper, fast, elastic, legacy, committee"]


def test_crf_trainer_at_its_default_changes_no_fingerprint():
    """``crf.trainer: crfsuite`` (the default) written or not: the same recipe,
    fingerprints, config dict (the manifest's) and the fingerprints configs
    had before ``crf.trainer`` existed."""
    path = Path(__file__).resolve().parents[1] / "configs" / "default.yaml"
    plain = load_config(path, check_paths=False)
    named = load_config(path, ["crf.trainer=crfsuite"], check_paths=False)
    assert named.crf.trainer == plain.crf.trainer == "crfsuite"
    assert named.recipe() == plain.recipe()
    assert "trainer" not in plain.recipe()["crf"]
    assert named.to_dict(resolved=False) == plain.to_dict(resolved=False)
    assert "trainer" not in plain.to_dict(resolved=False)["crf"]
    # the values of configs/default.yaml before the key existed
    assert plain.fingerprint() == named.fingerprint() == (
        "d96d90dbfbc5ba57bfdd8bc1dcb2acf437c454a2836957883abb96dc78ae465c")
    assert plain.fingerprint(members=True) == named.fingerprint(members=True) == (
        "b5250f062052859acf8b73889a0bf56a58e1367fcb73db2964144738d0379958")
