"""The report's cost of evaluation (``experiments.cost``): the adaptive test
of docs/method.md §16 run on each ranked system from its segmentation, its
trace per batch, the golden cross-check against ``committee.adaptive_score``
with the same settings, the note of a committee too small for IRT items."""

from __future__ import annotations

import csv
import shutil

import pytest

import committee
from committee import corpus as corpus_mod
from committee.cli.entry import main
from committee.errors import PlausibilityWarning
from committee.metrics import estimators
from committee.pipeline import layout, workflow
from committee.report import analyses as analyses_mod
from committee.report.analyses import cost
from committee.scoring import adaptive, adaptive_run
from committee.tasks.units.words import perturb
from toyrun import make_toy_corpus, write_config

pytest.importorskip("matplotlib")

#: Settings of the analysis tried, as ``--set`` overrides, with their keywords
#: of ``adaptive_score``: the defaults (40 sentences: every one administered),
#: and a wide target that stops before the census, on f1, another seed.
SETTINGS = [
    ({}, {"target": cost.TARGET, "metric": "fb", "max_sentences": cost.MAX_SENTENCES,
          "seed": cost.SEED}),
    ({"cost_target": 6, "cost_metric": "f1", "cost_seed": 3, "cost_max_sentences": 35},
     {"target": 6.0, "metric": "f1", "max_sentences": 35, "seed": 3}),
]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Toy runs of K = 5 and K = 3 members, and two outputs of their test set:
    the gold perturbed at 5% and at 30%."""
    d = make_toy_corpus(tmp_path_factory.mktemp("cost"))
    for k in (5, 3):
        config = write_config(d / f"k{k}.yaml", d, d / f"k{k}", size=k)
        assert main(["run", str(config), "--quiet"]) == 0
    test = corpus_mod.read_corpus(d / "test.txt")
    for rate in (0.05, 0.3):
        corpus_mod.write_sighan(d / f"p{int(rate * 100)}.txt", perturb(test.words, rate, 1))
    return d


def _report(run, systems, settings: dict):
    overrides = [f"experiments.{k}={v}" for k, v in settings.items()]
    return workflow.report(run, None, overrides, analyses=["cost"],
                           systems=[str(s) for s in systems], progress=False)


def _rows(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("settings,keywords", SETTINGS)
def test_each_trace_ends_where_adaptive_score_ends(toy, tmp_path, settings, keywords):
    run = tmp_path / "k5"
    shutil.copytree(toy / "k5", run)
    outputs = [toy / "p5.txt", toy / "p30.txt"]
    md = _report(run, outputs, settings).read_text(encoding="utf-8")
    assert "**Not made: the " not in md and f"## {cost.TITLE}" in md
    rows = _rows(run / layout.REPORT_DIR / cost.TRACE_CSV)
    assert list(rows[0]) == list(cost.COLUMNS)
    assert {r["system"] for r in rows} == {"p5", "p30"}
    assert {r["metric"] for r in rows} == {keywords["metric"]}
    summary = {r["system"]: r for r in _rows(run / layout.REPORT_DIR / cost.SYSTEMS_CSV)}
    for output in outputs:
        name = output.stem
        trace = [r for r in rows if r["system"] == name]
        sentences = [int(r["sentences"]) for r in trace]
        assert sentences == sorted(sentences) and len(set(sentences)) == len(sentences)
        for r in trace:
            assert float(r["low"]) <= float(r["value"]) <= float(r["high"])
        got = committee.adaptive_score(run / "test.txt", output, run, **keywords)
        last, want = trace[-1], got["estimates"][keywords["metric"]]
        assert int(last["sentences"]) == got["sentences_used"]
        assert [float(last[k]) for k in ("value", "low", "high")] == [
            want["value"], want["low"], want["high"]]
        assert summary[name]["stopped_by"] == got["stopped_by"]
        assert int(summary[name]["sentences"]) == got["sentences_used"]
    if settings:  # a wide target stops before every sentence is drawn
        assert all(int(r["sentences"]) < 40 for r in summary.values())
    else:  # every sentence drawn: the full test's own numbers
        assert all(r["estimate"] == r["full_test"] for r in summary.values())


def test_the_chart_and_the_table_reach_report_html(toy, tmp_path):
    pytest.importorskip("plotly")
    from committee.report import html

    run = tmp_path / "k5"
    shutil.copytree(toy / "k5", run)
    _report(run, [toy / "p5.txt", toy / "p30.txt"], {})
    assert (run / layout.REPORT_DIR / cost.FIGURE).stat().st_size > 0
    charts = {a.title: a for a in html.run_analyses(run, ["cost"])}
    line = charts["Cost of evaluation: estimate against sentences administered"]
    assert line.chart == "line" and line.group == "system" and line.x == "sentences"
    assert list(line.y) == ["estimate", "full test"]
    assert {"estimate low", "estimate high"} <= set(line.table.columns)  # the interval
    assert line.x_title and line.y_title
    assert charts["Cost of evaluation: sentences each system used"].chart == "table"
    page = (run / layout.REPORT_HTML_FILE).read_text(encoding="utf-8")
    assert "Cost of evaluation: estimate against sentences administered" in page


def test_a_committee_too_small_for_irt_gets_a_note(toy, tmp_path):
    run = tmp_path / "k3"
    shutil.copytree(toy / "k3", run)
    md = _report(run, [toy / "p5.txt"], {}).read_text(encoding="utf-8")
    assert "**Not made: the " not in md and f"## {cost.TITLE}" not in md
    assert f"- {cost.TITLE}: not made, 3 members are too few" in md
    assert not list((run / layout.REPORT_DIR).glob("cost*"))
    assert not layout.paths(run).irt_items.exists()


def test_items_that_cannot_be_read_give_a_note(toy, tmp_path):
    run = tmp_path / "k5"
    shutil.copytree(toy / "k5", run)
    layout.paths(run).irt_items.write_text("not\titems\n", encoding="utf-8")
    md = _report(run, [toy / "p5.txt"], {}).read_text(encoding="utf-8")
    assert "**Not made: the " not in md and f"## {cost.TITLE}" not in md
    assert f"- {cost.TITLE}: not made, the run's IRT items could not be had: " in md


def test_the_trace_is_what_the_stopping_rule_saw(toy, tmp_path):
    run = tmp_path / "k5"
    shutil.copytree(toy / "k5", run)
    with pytest.warns(PlausibilityWarning, match="fitted the 1PL model"):  # K = 5 < 12
        bank = adaptive_run.load_bank(run / "test.txt", run, quiet=True)
    words = corpus_mod.read_corpus(toy / "p30.txt").words
    settings = adaptive.Settings(target=6.0, seed=3)
    out = cost.administer(bank, words, settings)
    assert out["trace"] and all(t["draws"] >= settings.min_draws for t in out["trace"])
    last = out["trace"][-1]
    assert last["high"] - last["low"] < settings.target / 100 and out["stopped_by"] == "target"
    final = out["estimates"]["fb"]
    assert out["points"][-1] == (out["sentences_used"], final["value"], final["low"],
                                 final["high"])


def test_the_defaults_are_those_of_score_adaptive_and_runs_of_every_task():
    assert cost.TARGET == adaptive.TARGET and cost.SEED == adaptive.SEED
    assert cost.METRICS == tuple(estimators.METRICS)
    e = analyses_mod.by_name("cost")
    assert all(analyses_mod.reads(e, t) for t in ("segmentation", "ner", "pos"))


# the entity output drops the B- of some entities: read by the conlleval
# rules with a warning, as everywhere (tests/test_matrix.py)
@pytest.mark.filterwarnings("ignore:.*ill-formed tag sequences:committee.errors.PlausibilityWarning")
@pytest.mark.parametrize("task", ["ner", "pos"])
def test_entity_and_tag_runs_get_the_cost_of_their_taggers(task_runs, tmp_path, task):
    """A run of entities or tagged words: each output's trace ends where
    committee.adaptive_score with the task ends, from its file; every
    sentence drawn (the default cap is above the test's 40), the estimate is
    the full test's own."""
    r = task_runs[task]
    run = tmp_path / "k5"
    shutil.copytree(r.k5, run)
    outputs = list(r.outputs.values())
    md = _report(run, outputs, {}).read_text(encoding="utf-8")
    assert "**Not made: the " not in md and f"## {cost.TITLE}" in md
    rows = _rows(run / layout.REPORT_DIR / cost.TRACE_CSV)
    summary = {s["system"]: s for s in _rows(run / layout.REPORT_DIR / cost.SYSTEMS_CSV)}
    assert set(summary) == {o.stem for o in outputs}
    for output in outputs:
        got = committee.adaptive_score(run / "test.txt", output, run, task=task,
                                       format=r.format)
        last = [x for x in rows if x["system"] == output.stem][-1]
        want = got["estimates"]["fb"]
        assert int(last["sentences"]) == got["sentences_used"] == 40
        assert [None if last[k] == "" else float(last[k]) for k in ("value", "low", "high")] \
            == [want["value"], want["low"], want["high"]]
        row = summary[output.stem]
        assert row["estimate"] == row["full_test"]
