"""The report's "Confusion matrices" analysis (committee/report/analyses/confusion.py):
each system's matrix of an entity run and of a part-of-speech run, counted by
hand, its CSV, its figure and its heat map in report.html."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest

from committee import tasks
from committee.corpus import Corpus
from committee.report.analyses import by_name, confusion
from committee.report.analyses.base import Context

GOLD = ["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O", "B-PER", "I-PER"]
PRED = ["B-PER", "I-PER", "O", "O", "B-ORG", "I-ORG", "B-PER", "I-PER", "O", "O"]


def _entity_run():
    chars = [list("江泽民在北京见到李鹏")]
    test = Corpus("test.txt", chars, [1], tags=[GOLD])
    task = tasks.get("ner")
    data = SimpleNamespace(task="ner", test=test, units=task.gold(test))
    system = SimpleNamespace(name="F2 100%", words=chars, tags=[PRED])
    return data, system


def _ctx(tmp_path, data, systems):
    return Context(cfg=None, data=data, out_dir=tmp_path, table2=systems,
                   f1_rank=[1] * len(systems), fb_rank=[1] * len(systems))


def test_an_entity_runs_matrix_csv_and_figure(tmp_path):
    pytest.importorskip("matplotlib")
    data, system = _entity_run()
    other = SimpleNamespace(name="perfect", words=system.words, tags=[GOLD])
    ctx = _ctx(tmp_path, data, [system, other])
    text = confusion.section(ctx)
    rows = list(csv.DictReader((tmp_path / confusion.CSV).open(encoding="utf-8")))
    assert [r["gold"] for r in rows] == ["LOC", "ORG", "PER", "spurious", "LOC", "PER",
                                         "spurious"]
    assert list(rows[0]) == ["system", "gold", "LOC", "ORG", "PER", "missed"]
    mine = {r["gold"]: [int(r[k]) for k in ("LOC", "ORG", "PER", "missed")]
            for r in rows if r["system"] == "F2 100%"}
    # 北京 LOC called ORG; 江泽 over 江泽民 PER; 李鹏 missed; 见到 a spurious PER
    assert mine == {"LOC": [0, 1, 0, 0], "ORG": [0, 0, 0, 0], "PER": [0, 0, 1, 1],
                    "spurious": [0, 0, 1, 0]}
    perfect = {r["gold"]: [int(r[k]) for k in ("LOC", "ORG", "PER", "missed")]
               for r in rows if r["system"] == "perfect"}
    assert perfect["LOC"] == [1, 0, 0, 0] and perfect["PER"] == [0, 0, 2, 0]
    assert (tmp_path / confusion.FIGURE).stat().st_size > 1000
    assert "| PER | 0 | 0 | 1 | 1 |" in text and ctx.figures == [confusion.FIGURE]


def test_a_tag_runs_matrix_is_on_the_words_segmented_alike():
    test = Corpus("test.txt", [["江泽民", "在", "北京", "见到"]], [1], pos=[["nr", "p", "ns", "v"]])
    task = tasks.get("pos")
    data = SimpleNamespace(task="pos", test=test, units=task.gold(test))
    system = SimpleNamespace(name="t", words=[["江泽民", "在", "北京", "见", "到"]],
                             tags=[["nr", "v", "ns", "v", "v"]])
    c = confusion.matrix(data, system)
    cells = {(c.rows[i], c.columns[j]): int(c.cells[i, j])
             for i in range(len(c.rows)) for j in range(len(c.columns)) if c.cells[i, j]}
    assert cells == {("nr", "nr"): 1, ("p", "v"): 1, ("ns", "ns"): 1}


def test_the_analysis_reads_labelled_runs_and_draws_a_heat_map():
    from committee.report.html import CHART_KINDS, Analysis, _analysis

    record = by_name("confusion")
    assert record.units == (tasks.ENTITIES, tasks.TAGS)
    chart = record.charts[0]
    assert chart.chart == "heatmap" in CHART_KINDS and chart.group == "system"
    columns = ["system", "gold", "LOC", "PER", "missed"]
    assert chart.columns(columns) == ["LOC", "PER", "missed"]
    table = {"system": ["a", "a"], "gold": ["LOC", "PER"], "LOC": [1, 0], "PER": [0, 2],
             "missed": [0, 1]}
    out = _analysis(Analysis("t", table, "heatmap", x="gold", y=["LOC", "PER", "missed"],
                             group="system"))
    assert out["chart"] == "heatmap" and out["y"] == ["LOC", "PER", "missed"]


def test_the_heat_map_code_is_in_the_page_script():
    script = (Path(confusion.__file__).parents[1] / "assets" / "report.js").read_text("utf-8")
    assert 'a.chart === "heatmap"' in script and 'type: "heatmap"' in script
