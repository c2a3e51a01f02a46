"""A unit kind is one class (committee/tasks/units/): nothing outside its
package compares a unit kind or dispatches on one through a dict, and a
toy kind plugged into a toy task is scored through what it declares."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from committee import metrics
from committee.corpus import Corpus
from committee.tasks.units import UNIT_KINDS, UnitKind, Words

PACKAGE = Path(__file__).resolve().parents[1] / "committee"
KINDS_PACKAGE = PACKAGE / "tasks" / "units"

#: How code names a unit kind: the kinds' names, and a task's attribute.
KIND_NAMES = {"WORDS", "ENTITIES", "TAGS"}
KIND_ATTRIBUTE = "unit_kind"

#: Branches on a unit kind outside the kinds' classes: file -> count.  The
#: check fails when a file has one (a new branch): move it into the kinds.
NOT_YET_MOVED: dict[str, int] = {}


def _names_kind(node: ast.AST) -> bool:
    """``tasks_mod.WORDS``, ``WORDS``, ``task.unit_kind``, ``x.unit_kind``."""
    if isinstance(node, ast.Name):
        return node.id in KIND_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in KIND_NAMES or node.attr == KIND_ATTRIBUTE
    return False


def _mentions_kind(node: ast.AST) -> bool:
    return any(_names_kind(n) for n in ast.walk(node))


def kind_branches(source: str) -> list[int]:
    """Lines of ``source`` that compare a unit kind (``==``, ``!=``, ``is``,
    ``in`` on either side) or key a dict literal or subscript a dict
    literal by one."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_mentions_kind(s) for s in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and _names_kind(k)
                                                for k in node.keys):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict)
              and _mentions_kind(node.slice)):
            lines.append(node.lineno)
    return sorted(set(lines))


def branches_outside_kinds() -> Counter:
    found = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        if KINDS_PACKAGE in path.parents:
            continue
        n = len(kind_branches(path.read_text(encoding="utf-8")))
        if n:
            found[path.relative_to(PACKAGE).as_posix()] = n
    return found


def test_no_module_outside_the_kinds_branches_on_a_unit_kind():
    assert dict(branches_outside_kinds()) == NOT_YET_MOVED


@pytest.mark.parametrize("source", [
    "if task.unit_kind == tasks_mod.TAGS:\n    pass\n",
    "x = a.unit_kind is not WORDS\n",
    "ok = kind in (tasks.ENTITIES, tasks.TAGS)\n",
    "f = {tasks_mod.WORDS: g, tasks_mod.TAGS: h}[task.unit_kind]\n",
    "f = {'a': 1}[data.task_record.unit_kind]\n",
])
def test_the_check_finds_a_branch(source):
    assert kind_branches(source) == [1]


def test_the_check_leaves_asking_a_kind_alone():
    source = ("text = task.unit_kind.how_to_read\n"
              "c = task.unit_kind.collector(task, gold)\n"
              "if task.unit_kind.labelled:\n    pass\n")
    assert kind_branches(source) == []


def test_every_kind_is_a_unit_kind_with_its_declarations():
    assert len({k.name for k in UNIT_KINDS}) == len(UNIT_KINDS)
    for kind in UNIT_KINDS:
        assert isinstance(kind, UnitKind)
        assert kind.how_to_read.startswith("How to read: ")
        assert kind.attributes()
        names, count = kind.outcomes()
        assert "correct" in names and callable(count)


class Syllables(Words):
    """A toy kind: words, read to the report as syllables."""

    name = "syllables"
    how_to_read = "How to read: a syllable's difficulty is the share of members that miss it."


def test_a_toy_unit_kind_is_scored_through_what_it_declares():
    """A task that names the toy kind gets its collector and its wording:
    adding a kind touches its module only."""
    from dataclasses import replace

    from committee.tasks import SEGMENTATION

    toy = replace(SEGMENTATION, name="toy-syllables", unit_kind=Syllables())
    gold = Corpus("g", [["ba", "na", "na"]], [1])
    collector = metrics.collector_for(toy.unit_kind, gold, [0.0, 0.5, 1.0], task=toy)
    stats = collector.collect(Corpus("p", [["bana", "na"]], [1]))
    assert (stats.n_gold.tolist(), stats.n_correct.tolist()) == ([3], [1])
    assert toy.unit_kind.how_to_read.startswith("How to read: a syllable")
    with pytest.raises(ValueError, match="task toy: unit_kind 'syllables' is no"):
        replace(SEGMENTATION, name="toy", unit_kind="syllables")


class CountedSyllables(Syllables):
    """The toy kind, counting the gold sides it builds."""

    built = 0

    def gold_side(self, scorer, side) -> None:
        type(self).built += 1
        super().gold_side(scorer, side)


def test_the_scorer_builds_its_gold_side_through_the_kind(monkeypatch):
    """``Scorer`` asks its task's kind for the gold side: a task of the toy
    kind is scored, with its difficulties, without a line outside the kind."""
    from dataclasses import replace

    from committee import scoring, tasks
    from committee.tasks import SEGMENTATION

    toy = replace(SEGMENTATION, name="toy-syllables", unit_kind=CountedSyllables())
    monkeypatch.setitem(tasks.TASKS, toy.name, toy)
    gold = Corpus("g", [["ba", "na", "na"]], [1])
    scorer = scoring.Scorer(gold, difficulty=[0.0, 0.5, 1.0], task=toy.name)
    assert CountedSyllables.built == 1
    scores = scorer.score(Corpus("p", [["bana", "na"]], [1]))
    # by hand: 1 of 3 gold syllables right (the last, d = 1), 1 of 2 proposed
    assert (scores["p"], scores["r"]) == (pytest.approx(1 / 2), pytest.approx(1 / 3))
