"""A task is one module of committee/tasks/ and one entry of TASKS: nothing
else compares a task's name, and a toy task registered in a test trains a
committee (`committee run`) and is scored (`committee score --task`) end to
end through the same code as segmentation and ner."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from committee import tasks
from committee.cli import main
from committee.corpus import Corpus

PACKAGE = Path(__file__).resolve().parents[1] / "committee"


def _names(node: ast.AST) -> list[str]:
    """The string constants of a comparison's operand (a tuple, list or set
    of them too)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _names(elt)]
    return []


def task_name_comparisons(source: str, names) -> list[int]:
    """The lines of ``source`` that compare something with a task's name
    (``x == "ner"``, ``x in ("segmentation", ...)``, ``"ner" not in x``).

    >>> task_name_comparisons('a = t == "ner"\\nb = t in ("x", "segmentation")\\nc = "ner"',
    ...                       {"ner", "segmentation"})
    [1, 2]
    """
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(n in names for op in operands for n in _names(op)):
                lines.append(node.lineno)
    return lines


def test_nothing_outside_the_tasks_package_compares_a_task_name():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent == PACKAGE / "tasks":
            continue
        for line in task_name_comparisons(path.read_text(encoding="utf-8"), set(tasks.TASKS)):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert found == [], "ask the task record (committee.tasks.Task) instead: " + ", ".join(found)


def test_every_task_fills_the_task_record():
    for name, task in tasks.TASKS.items():
        assert isinstance(task, tasks.Task) and task.name == name
        assert task.unit_kind in tasks.UNIT_KINDS
        assert tasks.get(name) is task


def test_the_choices_of_task_come_from_the_registry():
    from committee.cli import build_parser

    from committee.config.schema import Choices, Config

    action = next(a for a in build_parser()._subparsers._group_actions[0].choices["score"]._actions
                  if "--task" in a.option_strings)
    assert action.choices is tasks.TASKS
    choices = [m for m in Config.model_fields["task"].metadata if isinstance(m, Choices)]
    assert choices[0].values() == tuple(tasks.TASKS)


# -- a toy task: words, tagged B (first character) and I (the others) --------


@dataclass(frozen=True)
class Chunks(tasks.Segmentation):
    """Words as units, learned from two tags (``BI``) instead of four."""

    name: str = "toy"
    unit: str = "chunk"
    units: str = "chunks"
    min_median_f1: float = 0.0
    does: str = "chunk the test set"
    learns: str = "chunks"
    models: str = "chunkers"
    paper_figures: bool = False

    def example(self, sentence) -> tuple[str, str]:
        """``(characters, B at each word's first character, I elsewhere)``."""
        return "".join(sentence), "".join("B" + "I" * (len(w) - 1) for w in sentence)

    def decode(self, chars: str, tags) -> list[str]:
        """Words: each starts at a B (or at the sentence's start)."""
        words = []
        for c, t in zip(chars, tags):
            if t == "B" or not words:
                words.append(c)
            else:
                words[-1] += c
        return words


TOY = Chunks()


@pytest.fixture
def toy_task(monkeypatch):
    """TOY in the registry: the one place a task plugs in (the config reads
    the registry when it validates ``task:``)."""
    monkeypatch.setitem(tasks.TASKS, TOY.name, TOY)
    return TOY


def test_a_toy_task_trains_a_committee_and_is_scored(toy_task, tmp_path, capsys):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from toyrun import make_toy_corpus, write_config

    from committee import corpus as corpus_mod

    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "toy.yaml", tmp_path, tmp_path / "run", size=3,
                       backend="sequential")
    cfg.write_text("task: toy\n" + cfg.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["run", str(cfg), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "test chunks" in out and "|task:toy|" in out
    run = tmp_path / "run"
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["task"] == "toy" and manifest["difficulty"]["n_words"] > 0
    member = json.loads((run / "members" / "member-0000.json").read_text(encoding="utf-8"))
    assert 0 < member["f1"] <= 1  # BI tags learned and decoded back into words
    assert TOY.decode(*TOY.example(["计算机", "有"])) == ["计算机", "有"]
    # the report: the analyses of word units read its run (the toy's units are words)
    assert main(["report", str(run), "--quiet", "--only", "stability,split_half,word_weights"]) == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "Analyses: stability, split_half, word_weights" in report, report[:400]
    assert (run / "report.html").is_file()
    capsys.readouterr()

    test = corpus_mod.read_corpus(tmp_path / "test.txt")
    corpus_mod.write_sighan(tmp_path / "chars.txt", [[c for w in s for c in w] for s in test.words])
    argv = ["score", "--task", "toy", "--gold", str(run / "test.txt"), "--difficulty",
            str(run / "test.weight"), "--json", str(tmp_path / "chars.txt")]
    assert main(argv) == 0
    toy = json.loads(capsys.readouterr().out)
    argv[2] = "segmentation"  # the same words: the same scores, refused as another task's run
    assert main(argv) != 0
    assert "of task toy" in capsys.readouterr().err
    seg = json.loads(_score_elsewhere(tmp_path, run, capsys))
    assert toy["systems"][0]["fb"] == seg["systems"][0]["fb"]
    assert toy["signature"] == seg["signature"]


def _score_elsewhere(tmp_path: Path, run: Path, capsys) -> str:
    """``committee score`` (segmentation) of chars.txt on copies of the run's
    gold and weights outside the run directory."""
    import shutil

    other = tmp_path / "copies"
    other.mkdir()
    for name in ("test.txt", "test.weight"):
        shutil.copy(run / name, other / name)
    assert main(["score", "--gold", str(other / "test.txt"), "--difficulty",
                 str(other / "test.weight"), "--json", str(tmp_path / "chars.txt")]) == 0
    return capsys.readouterr().out


def test_a_toy_task_is_scored_through_the_scorer_api(toy_task):
    from committee.scoring import Scorer

    gold = Corpus("g", [["约翰", "喜欢", "玛丽"]], [1])
    s = Scorer(gold, task="toy").score([["约翰", "喜欢玛丽"]])
    assert (s.p, s.r) == (0.5, 1 / 3)
