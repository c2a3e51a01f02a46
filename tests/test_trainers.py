"""The trainer interface (committee.learners.trainers): python-crfsuite behind it, the
one home of its defaults and parameter checks, and another trainer plugged
in at one place (``TRAINERS``) training and tagging a committee."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from committee.learners import crf
from committee.learners import members
from committee.pipeline import dataset
from committee.learners import trainers
from committee.corpus import from_bmes, to_bmes
from committee.config import load_config
from committee.errors import ConfigError
import toyrun
from test_members import _spans


class MaxMatch:
    """A toy trainer: its model is the training vocabulary, one word a line;
    it tags by forward maximum matching (the longest known word first,
    otherwise one character), words of at most ``params.max_len``."""

    name = "maxmatch"
    model_suffix = ".words"
    algorithms = ("forward",)

    def __init__(self):
        self.trained = 0

    def parameters(self, algorithm):
        return {"max_len": (9, None)}

    def resolve_preset(self, section):
        return {"preset": None, "algorithm": "forward", "params": {}, **section}, []

    def check_params(self, algorithm, params):
        problems = []
        if algorithm not in self.algorithms:
            problems.append(f"algorithm: unknown algorithm {algorithm!r}; expected forward")
        for name, value in params.items():
            if name != "max_len":
                problems.append(f"params.{name}: unknown parameter")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                problems.append(f"params.max_len: must be an integer >= 1, got {value!r}")
        return problems

    def train(self, examples, template, algorithm, params, model_path, *, rand_seed=1):
        self.trained += 1
        words = sorted({w for chars, tags in examples for w in from_bmes(chars, tags)})
        Path(model_path).write_text(json.dumps({"max_len": params.get("max_len", 9),
                                                "words": words}, ensure_ascii=False),
                                    encoding="utf-8")
        return {"train_s": 0.0}

    def tag(self, model_path, test_chars, template):
        model = json.loads(Path(model_path).read_text(encoding="utf-8"))
        vocab, longest = set(model["words"]), model["max_len"]
        out = []
        for chars in test_chars:
            words, i = [], 0
            while i < len(chars):
                n = min(longest, len(chars) - i)
                while n > 1 and chars[i:i + n] not in vocab:
                    n -= 1
                words.append(chars[i:i + n])
                i += n
            out.append(list(to_bmes(words)))
        return out

    def fingerprint(self, algorithm, params):
        return {"trainer": self.name, "algorithm": algorithm, "params": dict(params)}


@pytest.fixture
def maxmatch(monkeypatch):
    toy = MaxMatch()
    monkeypatch.setitem(trainers.TRAINERS, toy.name, toy)  # the one place
    return toy


TRAIN = [["北京", "大学"], ["大学生", "活"], ["我", "爱", "北京"]]
TEST = [["北京", "大学", "生活"], ["我", "爱", "北京", "大学"]]
TEST_CHARS = ["".join(s) for s in TEST]


def _member(k=0):
    return members.draw_member(k, len(TRAIN), ("F1",), (1.0,), seed=0)


def test_crfsuite_is_a_trainer():
    assert isinstance(crf.CRFSUITE, trainers.Trainer) and isinstance(MaxMatch(), trainers.Trainer)
    assert not isinstance(object(), trainers.Trainer)
    assert trainers.get() is crf.CRFSUITE and trainers.DEFAULT_TRAINER == "crfsuite"
    assert crf.CRFSUITE.fingerprint("ap", {"max_iterations": 3}) == {
        "algorithm": "ap", "params": {"max_iterations": 3}}


def test_the_trainer_is_the_one_home_of_defaults_and_checks():
    t = trainers.get("crfsuite")
    assert t.parameters("lbfgs")["max_iterations"] == (2147483647, 100)
    assert t.parameters("lbfgs")["c2"] == (1.0, 1.0)
    assert t.parameters("ap")["max_iterations"] == (100, 100)
    assert t.parameters("lbfgs")["linesearch"] == ("MoreThuente", None)
    assert t.presets["paper"]["params"] == {"c1": 1.0, "c2": 0.0, "max_iterations": 100}
    assert t.presets["elastic"]["params"] == {"c1": 0.1, "c2": 0.1, "max_iterations": 100}
    assert t.resolve_preset({"preset": "fast"})[0]["algorithm"] == "l2sgd"
    # the messages are those of the one rule set, word for word
    assert trainers.check_params("lbfgs", {"max_iteration": 5, "c2": "1"}) == [
        "params.max_iteration: unknown parameter of algorithm 'lbfgs'; did you mean "
        "'max_iterations'? (valid: " + ", ".join(t.parameters("lbfgs")) + ")",
        "params.c2: must be a number, got '1'"]
    assert trainers.check_params("lbfgs", {"epsilon": -1.0}) == [
        "params.epsilon: must be >= 0, got -1.0"]
    assert trainers.check_params("lbfgs", {}, "crfsuit") == [
        "trainer: unknown trainer 'crfsuit'; did you mean 'crfsuite'? valid: crfsuite"]


def test_an_unknown_trainer_is_refused_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match=r"trainer: unknown trainer 'nope'; valid: crfsuite"):
        members.run_member(members.MemberJob(_member(), TRAIN, TEST_CHARS, TEST, "lbfgs", {},
                                             tmp_path, trainer="nope"))
    assert not tmp_path.joinpath("models").exists() and list(tmp_path.iterdir()) == []


def test_a_plugged_in_trainer_trains_and_tags_a_member(maxmatch, tmp_path):
    task = members.MemberJob(_member(), TRAIN, TEST_CHARS, TEST, "forward", {},
                              str(tmp_path), keep_model=True, trainer="maxmatch")
    assert task.index == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.trainer = "crfsuite"
    res = task.run()
    # forward maximum matching by hand: 北京|大学生|活 and 我|爱|北京|大学
    assert res.marks.tolist() == [True, False, False, True, True, True, True]
    assert (res.n_gold, res.n_pred, res.n_correct) == (7, 7, 5)
    assert res.p == res.r == pytest.approx(5 / 7)
    kept = tmp_path / "models" / "member-0000.words"
    assert json.loads(kept.read_text(encoding="utf-8"))["words"] == [
        "北京", "大学", "大学生", "我", "活", "爱"]
    assert [p.name for p in tmp_path.iterdir()] == ["models"]  # no temporary model left


def test_a_plugged_in_trainer_checks_its_own_params_first(maxmatch, tmp_path):
    with pytest.raises(ConfigError) as err:
        members.run_member(members.MemberJob(_member(), TRAIN, TEST_CHARS, TEST, "forward",
                                             {"max_len": 0, "c2": 1.0}, tmp_path,
                                             trainer="maxmatch"))
    assert err.value.problems == ["params.max_len: must be an integer >= 1, got 0",
                                  "params.c2: unknown parameter"]
    assert maxmatch.trained == 0
    # its params reach it: words of at most 2 characters
    res = members.run_member(members.MemberJob(_member(), TRAIN, TEST_CHARS, TEST, "forward",
                                               {"max_len": 2}, tmp_path, trainer="maxmatch"))
    assert res.marks.tolist() == [True, True, False, True, True, True, True]


def test_a_committee_run_through_a_plugged_in_trainer(maxmatch, toy_corpus, tmp_path):
    out = tmp_path / "out"
    cfg = load_config(toyrun.write_config(tmp_path / "c.yaml", toy_corpus, out,
                                          backend="sequential", crf="{trainer: maxmatch}"))
    assert (cfg.crf.trainer, cfg.crf.algorithm, cfg.crf.trainer_params()) == (
        "maxmatch", "forward", {})
    dataset.run(cfg, progress=False)
    assert maxmatch.trained == 3
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["crf"] == {"trainer": "maxmatch", "preset": None,
                                         "algorithm": "forward", "params": {}}
    assert "|trainer:maxmatch|crf:forward()|" in manifest["signature"]
    marks = np.load(out / "marks.npz")["marks"]
    assert marks.shape[0] == 3
    # each member's marks are forward maximum matching with its own vocabulary
    train = [s for s in toyrun.corpus_mod.read_corpus(toy_corpus / "train.txt").words if s]
    test = toyrun.corpus_mod.read_corpus(toy_corpus / "test.txt").words
    for k, m in enumerate(members.draw_committee(3, len(train), ("F1", "F2", "F3"),
                                                 (0.1, 0.2, 0.3), seed=7)):
        sample = [train[i] for i in members.member_sample(m, len(train))]
        model = tmp_path / f"m{k}.words"
        maxmatch.train([("".join(s), to_bmes(s)) for s in sample], m.template, "forward", {},
                       model)
        chars = ["".join(s) for s in test]
        pred = [from_bmes(c, t) for c, t in zip(chars, maxmatch.tag(model, chars, m.template))]
        gold_spans = [_spans(s) for s in test]
        expected = [span in set(_spans(p)) for g, p in zip(gold_spans, pred) for span in g]
        assert marks[k].tolist() == expected



def test_crf_trainer_picks_the_trainer_that_validates_the_section(maxmatch, toy_corpus, tmp_path):
    path = toyrun.write_config(tmp_path / "c.yaml", toy_corpus, tmp_path / "out",
                               crf="{trainer: maxmatch, params: {max_len: 4}}")
    cfg = load_config(path)
    assert cfg.crf.trainer_params() == {"max_len": 4}
    # its own schema (types), its own rules (values), its own algorithms
    with pytest.raises(ConfigError) as err:
        load_config(path, ["crf.params.max_len=x", "crf.params.max_lens=3"])
    assert err.value.problems == [
        "--set crf.params.max_lens=3: unknown key (did you mean 'crf.params.max_len'?)",
        "--set crf.params.max_len=x: expected an integer, got 'x' (a string)"]
    with pytest.raises(ConfigError) as err:
        load_config(path, ["crf.params.max_len=0"])
    assert err.value.problems == ["--set crf.params.max_len=0: must be an integer >= 1, got 0"]
    with pytest.raises(ConfigError) as err:
        load_config(path, ["crf.algorithm=lbfgs"])
    assert err.value.problems == [
        "--set crf.algorithm=lbfgs: unknown value 'lbfgs'; expected one of: forward"]
    # the recipe names another trainer than the default
    recipe = cfg.recipe()["crf"]
    assert recipe == {"trainer": "maxmatch", "algorithm": "forward", "params": {"max_len": 4}}


def test_an_unknown_crf_trainer_is_one_config_problem(toy_corpus, tmp_path):
    path = toyrun.write_config(tmp_path / "c.yaml", toy_corpus, tmp_path / "out",
                               crf="{trainer: nonesuch}")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert err.value.problems == ["crf.trainer: unknown trainer 'nonesuch'; valid: crfsuite"]
    path = toyrun.write_config(tmp_path / "c.yaml", toy_corpus, tmp_path / "out")
    with pytest.raises(ConfigError) as err:
        load_config(path, ["crf.trainer=crfsuit"])
    assert err.value.problems == [
        "--set crf.trainer=crfsuit: unknown trainer 'crfsuit'; did you mean 'crfsuite'? "
        "valid: crfsuite"]


def test_table2_models_train_through_crf_trainer(maxmatch, toy_corpus, tmp_path):
    from committee.report import build_report

    out = tmp_path / "out"
    cfg = load_config(toyrun.write_config(
        tmp_path / "c.yaml", toy_corpus, out, backend="sequential", crf="{trainer: maxmatch}",
        experiments="  table2: true\n  table2_fractions: [0.5, 1.0]\n"
                    "  table2_preset: committee\n"))
    dataset.run(cfg, progress=False)
    assert maxmatch.trained == 3
    build_report(out, cfg, analyses=("table2",), progress=False,
                     load_inputs=dataset.load_inputs)
    assert maxmatch.trained == 5
    record = json.loads((out / "report" / "table2" / "F2-100.json").read_text(encoding="utf-8"))
    assert (record["algorithm"], record["params"]) == ("forward", {})
    # the paper preset is python-crfsuite's: this trainer has none
    with pytest.raises(ConfigError) as err:
        load_config(toyrun.write_config(tmp_path / "d.yaml", toy_corpus, out,
                                        crf="{trainer: maxmatch}",
                                        experiments="  table2: true\n"))
    assert err.value.problems == [
        "experiments.table2_preset: trainer 'maxmatch' has no preset 'paper'; valid: committee"]


def test_a_failed_table2_model_is_named_as_one(maxmatch, toy_corpus, tmp_path, monkeypatch):
    from committee.errors import RunError
    from committee.report import build_report, systems

    out = tmp_path / "out"
    cfg = load_config(toyrun.write_config(
        tmp_path / "c.yaml", toy_corpus, out, backend="sequential", crf="{trainer: maxmatch}",
        experiments="  table2_fractions: [0.5]\n  table2_preset: committee\n"))
    dataset.run(cfg, progress=False)

    def boom(*args, **kwargs):
        raise RuntimeError("no vocabulary")

    monkeypatch.setattr(maxmatch, "train", boom)
    job = systems.Table2Job(0, "F2 50%", "F2", [["北京"]], ["北京"], "maxmatch", "forward", {},
                            str(tmp_path / "w"), 1)
    failure = systems._train_one(job)
    assert isinstance(failure, systems.Table2Failure)
    assert (failure.index, failure.name, failure.error) == (0, "F2 50%",
                                                            "RuntimeError: no vocabulary")
    with pytest.raises(RunError, match=r"^Table 2 model F2 50% failed: RuntimeError: "
                                       r"no vocabulary$"):
        build_report(out, cfg, analyses=("table2",), progress=False,
                     load_inputs=dataset.load_inputs)
