"""The metric registry (committee.metrics.records): one declaration per
metric reaches every place that shows or computes metrics; the IRT metrics
are records like the others; docs/metrics.md's table is current."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import committee
from committee.cli import score as score_mod
from committee.cli import main
from committee.corpus import Corpus
from committee.metrics import records
from committee.metrics.__main__ import DOC, SCORES, with_declarations, with_table
from committee.report.output import score_columns

DATA = Path(__file__).resolve().parent / "data" / "score"

#: A toy metric: the share of predicted units that are correct *and* gold
#: units, c / (N + N' - c) (a Jaccard index).  By hand on out-a: c = 12,
#: N = 17, N' = 16, so 12 / 21.
TOY = records.Metric(key="jaccard",
                     formula=lambda t, m: records.ratio(t["n_correct"], t["n_gold"] + t["n_pred"] - t["n_correct"]),
                     heading="jac",
                     group="toy",
                     label="jaccard",
                     meaning="c / (N + N' − c)",
                     why_undefined=records.when(lambda t: t["n_gold"] + t["n_pred"] == 0,
                 "jaccard undefined: no unit in gold or output"),
                     report="Jac",
                     page="jaccard")


@pytest.fixture
def toy(monkeypatch):
    """The registry with the toy metric added: its one declaration."""
    monkeypatch.setattr(records, "REGISTRY", records.REGISTRY + (TOY,))


def test_a_metric_declared_once_is_everywhere(toy, capsys):
    s = committee.score(DATA / "gold.txt", DATA / "out-a.txt", difficulty=DATA / "gold.weight")
    assert s.jaccard == s["jaccard"] == 12 / 21  # Scores attribute and item
    assert s.to_dict()["jaccard"] == 12 / 21  # --json and the API's dict
    assert "toy         jaccard 57.14" in str(s)  # its own line of str(Scores)
    assert "jac" in score_mod.metrics_help()  # --metrics' help lists it
    argv = ["score", "--gold", str(DATA / "gold.txt"), str(DATA / "out-a.txt")]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["systems"][0]["jaccard"] == 12 / 21
    assert main([*argv, "--metrics", "f1,jac"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["system", "f1", "jac", "#f1"]  # the rank of f1 only
    assert table[1].split()[:3] == ["out-a", "72.73", "57.14"]
    assert ("jaccard", "Jac") in score_columns()  # report.md's ranking and systems.csv
    assert {"key": "jaccard", "label": "jaccard", "scale": "percent",
            "source": "stats"} in records.page_columns()  # report.html's data


@pytest.mark.filterwarnings("ignore::committee.errors.PlausibilityWarning")
def test_a_declared_metric_says_why_it_is_undefined(toy):
    empty = committee.Scorer([[]])
    with pytest.warns(committee.UndefinedMetricWarning) as caught:  # p, r, … too
        assert empty.score([[]]).jaccard is None
    assert any("jaccard undefined: no unit" in str(w.message) for w in caught)


def test_the_report_ranking_is_the_papers_table_2():
    assert score_columns() == (("p", "p"), ("r", "r"), ("f1", "f1"), ("pb", "pb"), ("rb", "rb"),
                               ("fb", "fb"), ("oov_recall", "OOV r"), ("iv_recall", "IV r"))


def test_docs_table_is_current():
    text = DOC.read_text(encoding="utf-8")
    assert with_table(text) == text, "run: python -m committee.metrics --write"
    for m in records.REGISTRY:
        assert f"| `{m.key}` |" in text


def test_every_record_is_complete():
    keys = [m.key for m in records.REGISTRY]
    assert len(set(keys)) == len(keys)
    headings = [m.heading for m in records.REGISTRY]
    assert len(set(headings)) == len(headings)
    for m in records.REGISTRY:
        assert m.scale in ("percent", "raw") and m.source in ("stats", "irt"), m.key
        assert (m.formula is not None) == (m.source == "stats"), m.key
        assert m.pair is None or m.pair in keys, m.key


def test_one_glyph_for_undefined():
    assert records.pct(None) == records.UNDEFINED == "–"
    assert records.get("theta").format(None) == "–"
    assert records.get("theta").format(1.23456, 0.1) == "1.235±0.100"


def test_compute_undefined_policy():
    stats = committee.metrics.collect(*[Corpus("g", [[]], [1])] * 2)
    with pytest.warns(committee.UndefinedMetricWarning) as caught:  # r, tnr, … too
        assert committee.metrics.compute(stats)["p"] is None
    assert any(str(w.message).startswith("p undefined") for w in caught)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert committee.metrics.compute(stats, undefined="ignore")["p"] is None
    with pytest.raises(ValueError, match="undefined must be one of warn, ignore"):
        committee.metrics.compute(stats, undefined="raise")


def test_theta_without_irt_is_a_usage_error(capsys):
    argv = ["score", "--gold", str(DATA / "gold.txt"), str(DATA / "out-a.txt")]
    assert main([*argv, "--metrics", "f1,fb,theta"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"--metrics: theta needs --irt RUN_DIR", err), err
    assert main([*argv, "--metrics", "f1,nonesuch"]) == 2
    assert "unknown metric nonesuch; choose from p, r, f1" in capsys.readouterr().err


def test_columns_of_metrics_with_irt():
    chosen = score_mod.columns("f1,fb,theta", irt=True)
    assert [m.key for m in chosen] == ["f1", "fb", "theta"]
    assert [m.key for m in score_mod.columns("f1,fb", irt=True)] == ["f1", "fb"]  # no theta unasked
    assert "theta" in [m.key for m in score_mod.columns(None, irt=True)]
    assert "theta" not in [m.key for m in score_mod.columns(None, irt=False)]
    result = {"signature": "sig", "systems": [
        {"name": "a", "f1": 0.5, "fb": None, "theta": 0.25, "theta_se": 0.125,
         "rank_f1": 1, "rank_fb": None}]}
    lines = committee.scoring.format_table(result, chosen).splitlines()
    assert lines[0].split() == ["system", "f1", "fb", "#f1", "#fb", "theta"]
    assert lines[1].split() == ["a", "50.00", "–", "1", "–", "0.250±0.125"]


def test_readme_lists_every_column():
    """The README's table of `committee score` columns names every metric
    shown in the table, by its heading and its JSON key."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    for m in records.REGISTRY:
        if m.shown:
            assert any(f"`{m.heading}`" in row and (f"`{m.key}`" in row or "| same |" in row)
                       for row in rows), m.key


def test_a_metric_record_takes_its_fields_by_name():
    with pytest.raises(TypeError):
        records.Metric("x", None, "x", "toy", "x", "nothing")  # six leading strings by position
    m = records.Metric(key="x", formula=None, heading="x", group="toy", label="x", meaning="m")
    assert (m.key, m.scale, m.source) == ("x", "percent", "stats")


def test_scores_declares_every_metric():
    """dir() lists the metrics; the declarations that IDEs and type checkers
    read are those of the registry (``python -m committee.metrics --write``)."""
    text = SCORES.read_text(encoding="utf-8")
    assert with_declarations(text) == text, "run: python -m committee.metrics --write"
    s = committee.score([["我", "爱", "你"]], [["我爱", "你"]])
    assert set(records.keys()) <= set(dir(s))
    assert "        fb: float | None" in text.splitlines()


def test_the_declarations_follow_the_registry(toy):
    """A metric added to the registry makes the checked-in declarations stale."""
    text = SCORES.read_text(encoding="utf-8")
    assert "        jaccard: float | None" in with_declarations(text)
    assert with_declarations(text) != text
    assert "jaccard" in dir(committee.score([["我", "爱", "你"]], [["我爱", "你"]]))
