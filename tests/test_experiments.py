"""One module per analysis, its record in the registry
(committee.report.analyses.REGISTRY): the config's ``experiments`` section,
``ANALYSES``, ``--only``/``--skip``, the order of report.md and the charts
of report.html follow from it, and a toy analysis declared in that one place
shows up in each."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from committee.report import analyses
from committee.config import ANALYSES, ExperimentsConfig
from committee.report.analyses import text

TESTS = Path(__file__).resolve().parent


def test_everything_follows_the_registry_in_report_order():
    names = [e.name for e in analyses.REGISTRY]
    assert list(ANALYSES) == names
    assert [m.ANALYSIS for m in analyses.MODULES] == list(analyses.REGISTRY)
    # report order is the order of the paper's figures, then the analyses beyond it
    assert names == ["table2", "stability", "linguistic", "ranking", "bins", "split_half",
                     "word_weights", "irt", "cost", "buckets", "entities", "tags", "confusion"]
    fields = list(ExperimentsConfig.model_fields)
    for e in analyses.REGISTRY:  # each switch, then its own settings
        i = fields.index(e.name)
        assert fields[i + 1:i + 1 + len(e.settings)] == [s.name for s in e.settings]
    # then the settings that belong to no one analysis
    common = [s.name for s in analyses.COMMON_SETTINGS]
    assert common[:1] == ["seed"] and fields[-len(common):] == common


def test_each_analysis_is_one_module_of_the_package():
    """Each module of committee/report/analyses/ with an ``ANALYSIS`` is in
    ``MODULES``, is named as its analysis, and its record's function is its
    ``section``; its charts are CSV files it writes (its outputs)."""
    import fnmatch
    import importlib

    package = Path(analyses.__file__).parent
    declared = sorted(p.stem for p in package.glob("*.py")
                      if hasattr(importlib.import_module(f"{analyses.__name__}.{p.stem}"),
                                 "ANALYSIS"))
    assert declared == sorted(m.__name__.rsplit(".", 1)[1] for m in analyses.MODULES)
    for module in analyses.MODULES:
        record = module.ANALYSIS
        assert module.__name__ == f"{analyses.__name__}.{record.name}"
        assert record.function is module.section
        assert record.title == module.TITLE
        for chart in record.charts:
            assert chart.file.endswith(".csv")
            assert any(fnmatch.fnmatch(chart.file, g) for g in record.outputs), chart.file


def test_a_chart_picks_its_columns():
    chart = analyses.by_name("bins").charts[0]
    assert chart.columns(["bin", "gold_words", "a", "b"]) == ["a", "b"]
    chart = analyses.by_name("table2").charts[0]
    assert chart.columns(["fraction", "f1", "fb"]) == ["f1", "fb"]
    with pytest.raises(KeyError):
        analyses.by_name("nope")


def test_the_paper_numbers_have_one_home():
    paper = analyses.PAPER_PKU
    assert text.paper_spread() == (
        "The paper (PKU): f1 89.97 → 93.47 (+3.50), fb 44.28 → 61.59 (+17.31).")
    assert paper["split_half_pearson"] == 0.996
    package = Path(analyses.__file__).parent
    for number in ("89.97", "93.47", "44.28", "61.59", "0.996"):
        homes = [(p.name, p.read_text(encoding="utf-8").count(number))
                 for p in package.glob("*.py") if number in p.read_text(encoding="utf-8")]
        assert homes == [("text.py", 1)], number  # in PAPER_PKU only


TOY = '''
import sys
from pathlib import Path
from committee.report import analyses as x

def toy(ctx):
    (ctx.out_dir / "toy.csv").write_text("x,y\\n1,2\\n2,5\\n", encoding="utf-8")
    return f"## Toy heading\\n\\nToy level {ctx.cfg.experiments.toy_level}.\\n"

x.REGISTRY = x.REGISTRY + (x.Analysis(
    "toy", toy, "Toy heading", "a toy analysis",
    (x.Setting("toy_level", int, 3, "how much toy"),), ("report/toy*",),
    (x.Chart("report/toy.csv", "Toy chart", "line", "x", ("y",)),
     x.Chart("report/toy-never.csv", "Toy chart never written", "table"))),)

from committee import cli, config
sys.path.insert(0, sys.argv[2])
from toyrun import make_toy_corpus, write_config

root = Path(sys.argv[1])
assert config.ANALYSES[-1] == "toy"
assert config.ExperimentsConfig().toy_level == 3
d = make_toy_corpus(root)
cfg = write_config(root / "c.yaml", root, root / "out", size=3, backend="sequential",
                   experiments="  toy: true\\n  toy_level: 4\\n")
assert cli.main(["run", str(cfg), "--quiet"]) == 0
print("RUN", (root / "out" / "report.md").read_text(encoding="utf-8"))
print("HTML", "Toy chart" in (root / "out" / "report.html").read_text(encoding="utf-8"))
print("NOTE", "Toy chart never written: not drawn, report/toy-never.csv was not written."
      in (root / "out" / "report.html").read_text(encoding="utf-8"))
assert cli.main(["report", str(root / "out"), "--quiet", "--only", "toy,stability"]) == 0
print("ONLY", (root / "out" / "report.md").read_text(encoding="utf-8"))
code = cli.main(["report", str(root / "out"), "--quiet", "--skip", "toyy"])
print("SKIP", code)
code = cli.main(["run", str(cfg), "--quiet", "--set", "experiments.toy_level=many"])
print("SET", code)
'''


def test_a_toy_analysis_declared_in_one_place_is_everywhere(tmp_path):
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(TOY), str(tmp_path), str(TESTS)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out, err = proc.stdout, proc.stderr
    run_md = out.split("RUN ", 1)[1].split("\nHTML ")[0]
    assert "Analyses: toy;" in run_md
    assert "## Toy heading\n\nToy level 4.\n" in run_md  # the config's setting reached it
    assert "HTML True" in out and "NOTE True" in out
    only_md = out.split("ONLY ", 1)[1].split("\nSKIP ")[0]
    assert "Analyses: stability, toy;" in only_md  # --only takes it, in report order
    assert only_md.index("## Fig. 1") < only_md.index("## Toy heading")
    assert "SKIP 2" in out
    assert "--skip: unknown analysis toyy (did you mean toy?); choose from table2, " in err
    assert "buckets, entities, tags, confusion, toy" in err
    assert "SET 4" in out  # a config error
    assert "--set experiments.toy_level=many: expected an integer, got 'many' (a string)" in err
