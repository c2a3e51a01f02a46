"""Progress bars counted in cost: the committee's bar and the Table 2 bar
move by each item's expected training cost (sample size x the template's
attributes per item), so their share done and time left follow the work;
``--quiet`` shows nothing."""

from __future__ import annotations

import dataclasses
import io
import time

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


# -- items in flight: the bar counts their work at the rate measured -----------------------

class _Clock:
    """A clock the test sets."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _bar(costs, clock, tick_s, file=None, disable=False):
    """A CostBar on ``clock``, ticking every ``tick_s`` seconds (0: never)."""
    class Timed(process.CostBar):
        pass

    Timed.clock, Timed.tick_s = staticmethod(clock), tick_s
    return Timed(costs, desc="t", unit="item", disable=disable, file=file or io.StringIO())


def test_items_in_flight_count_at_the_measured_rate_and_the_bar_never_goes_back():
    clock = _Clock()
    bar = _bar({"a": 100, "b": 1000, "c": 100}, clock, 0)
    bar.started("a")
    bar.started("b")
    bar.tick(5.0)
    assert bar.rate() is None and bar.bar.n == 0  # nothing timed yet: nothing guessed
    clock.now = 1.0
    bar.done("a")  # 100 in 1 s: one worker does 100 a second
    assert bar.rate() == 100.0
    assert bar.bar.n == 100 + 100  # a, and b's first second
    bar.tick(9.0)
    assert bar.bar.n == 100 + 900
    bar.tick(20.0)
    assert bar.bar.n == 100 + 950  # b counts at most 95% of its cost until it is done
    clock.now = 9.0
    bar.started("c")
    clock.now = 109.0
    bar.done("c")  # 100 in 100 s: the rate falls to 200 / 101 a second
    assert bar.rate() == pytest.approx(200 / 101)
    # b at the new rate, 109 s x 200/101 = 215: the bar stays where it was
    assert bar.in_flight(109.0) == 215 and bar.bar.n == 100 + 950
    clock.now = 110.0
    bar.done("b")
    assert bar.bar.n == bar.bar.total == 1200 and bar.in_flight() == 0
    bar.close()


def test_a_failed_item_stops_counting_and_a_ticking_bar_moves_on_its_own():
    clock = _Clock()
    out = io.StringIO()
    bar = _bar({0: 10, 1: 10, 2: 1000}, clock, 0.01, out)
    for key in (0, 1, 2):
        bar.started(key)
    clock.now = 1.0
    bar.done(0)  # 10 a second
    bar.stopped(1)  # failed: it counts no more
    clock.now = 31.0  # item 2 has done 310 by now, for the ticker to show
    for _ in range(500):
        if bar.bar.n == 10 + 310:
            break
        time.sleep(0.01)
    assert bar.bar.n == 10 + 310
    ticker = bar._ticker
    bar.close()
    assert ticker is not None and not ticker.is_alive()  # closing stops the ticker
    quiet = process.CostBar({0: 1}, desc="t", unit="item", disable=True)
    quiet.started(0)
    assert quiet._ticker is None  # --quiet: no bar, no thread
    quiet.close()


@dataclasses.dataclass(frozen=True)
class _Job:
    index: int


def _same(job):
    return job


@pytest.mark.parametrize("backend, n_jobs", [("sequential", 1), ("loky", 2)])
def test_the_pools_say_when_each_task_starts(backend, n_jobs):
    """announced hears each task once, as the pool takes it: before its
    result, with at most n_jobs in flight (loky hands a worker one task at a
    time)."""
    from committee.system import pools

    events, in_flight, most = [], set(), 0
    tasks = pools.announced([(_Job(i),) for i in range(5)], backend,
                            lambda i: (events.append(("start", i)), in_flight.add(i)))
    for result in pools.results(_same, tasks, backend, n_jobs, n_tasks=5):
        assert ("start", result.index) in events
        most = max(most, len(in_flight))
        in_flight.discard(result.index)
        events.append(("done", result.index))
    assert sorted(i for e, i in events if e == "start") == list(range(5))
    assert [i for e, i in events if e == "start"] == list(range(5))  # in submission order
    assert most <= n_jobs
