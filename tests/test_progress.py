"""Progress bars counted in cost: the committee's bar and the Table 2 bar
move by each item's expected training cost (sample size x the template's
attributes per item), so their share done and time left follow the work;
``--quiet`` shows nothing."""

from __future__ import annotations

import io

import pytest

from committee import cli
from committee.learners import features, members as members_mod
from committee.pipeline import dataset
from committee.system import process
from toyrun import make_toy_corpus, write_config


def test_training_cost_weighs_the_sample_and_the_template():
    cost = features.training_cost
    # golden: sentences x attributes per character (F1 5, F2 9, F3 12)
    assert [cost(100, t) for t in ("F1", "F2", "F3")] == [500, 900, 1200]
    assert cost(300, "F1") == 3 * cost(100, "F1")  # 30% of the sentences costs 3x 10%
    assert cost(100, "F3") > cost(100, "F1")
    with pytest.raises(ValueError, match="unknown feature template"):
        cost(100, "F9")


def test_the_member_bar_counts_each_members_cost():
    drawn = members_mod.draw_committee(6, 1000, ["F1", "F2", "F3"], [0.1, 0.2, 0.3],
                                       draw="grid", seed=3)
    costs = [features.training_cost(m.n_sentences, m.template) for m in drawn]
    assert len(set(costs)) > 1  # unequal members: a count of members would mislead
    out = io.StringIO()
    bar = dataset.member_bar(drawn, {1: {}}, 4, "toy", True, file=out)  # member 1 saved
    assert bar.bar.total == sum(costs[:4])
    assert bar.bar.n == bar.bar.initial == costs[1]
    bar.done(0)
    assert bar.bar.n == costs[0] + costs[1]
    bar.expect(6)
    assert bar.bar.total == bar.total == sum(costs)
    meter = bar.bar.format_meter(**bar.bar.format_dict)
    assert "2/6 members" in meter and "<?" not in meter  # a time left from the first member
    for m in drawn[2:]:
        bar.done(m.index)
    assert bar.bar.n == bar.bar.total
    bar.close()
    assert "100%" in out.getvalue()
    quiet = io.StringIO()
    silent = dataset.member_bar(drawn, {}, 6, "toy", False, file=quiet)
    silent.done(0)
    silent.note("reliability 0.9")
    silent.close()
    assert quiet.getvalue() == ""


class _Recording(process.CostBar):
    made: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _Recording.made.append(self)


@pytest.fixture
def recorded(monkeypatch):
    _Recording.made = []
    monkeypatch.setattr(process, "CostBar", _Recording)
    monkeypatch.setattr(dataset, "CostBar", _Recording)
    return _Recording.made


def test_a_run_and_its_table2_bars_total_the_costs_and_quiet_shows_no_bar(
        tmp_path, recorded, capsys):
    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "toy.yaml", tmp_path, tmp_path / "run", backend="sequential",
                       experiments="  table2: true\n  table2_fractions: [0.5, 1.0]\n"
                                   "  table2_max_iterations: 3\n")
    capsys.readouterr()
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    err = capsys.readouterr().err  # no bar: only the line naming the analyses to come
    assert [line for line in err.splitlines() if not line.startswith(
        "committee: after the committee, the report:")] == []
    committee_bar, table2_bar = recorded
    drawn = members_mod.draw_committee(3, 300, ["F1", "F2", "F3"], [0.1, 0.2, 0.3], seed=7)
    costs = {m.index: features.training_cost(m.n_sentences, m.template) for m in drawn}
    assert committee_bar.costs == costs
    assert committee_bar.total == committee_bar.cost_done == sum(costs.values())
    # the Table 2 models of F2 on 150 and 300 sentences, smallest first on one worker
    assert list(table2_bar.costs.values()) == [150 * 9, 300 * 9]
    assert table2_bar.total == table2_bar.cost_done == 450 * 9
    assert all(b.bar.disable for b in recorded)
