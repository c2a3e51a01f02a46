"""``committee run`` does only what it says: with experiments in its config
it names the report's analyses on stderr before any member trains, and
takes ``--skip NAMES``/``--only NAMES`` as ``committee report`` does, or
``--no-report`` (docs/config.md, "experiments").

The runs are toy committees of 3 members on the sequential backend; the
analyses are ``table2`` (one model) and ``bins``, a second or two each.
"""

from __future__ import annotations

import sys

import pytest

from committee import cli
from committee.config import ANALYSES
from committee.pipeline import dataset
from toyrun import write_config

EXPERIMENTS_YAML = ("  table2: true\n  table2_fractions: [1.0]\n  table2_max_iterations: 3\n"
                    "  bins: true\n")
MARK = "<<the committee starts>>"


@pytest.fixture
def marked(monkeypatch):
    """Say on stderr when the committee starts (before its first member)."""
    real = dataset.run

    def run(*args, **kwargs):
        print(MARK, file=sys.stderr)
        return real(*args, **kwargs)

    monkeypatch.setattr(dataset, "run", run)


def _config(tmp_path, toy_corpus, experiments=EXPERIMENTS_YAML):
    return write_config(tmp_path / "toy.yaml", toy_corpus, tmp_path / "run", iterations=3,
                        backend="sequential", experiments=experiments)


def _announced(analyses: str) -> str:
    return (f"committee: after the committee, the report: {analyses} (--skip NAMES or "
            "--no-report leaves analyses out)")


def test_skip_leaves_the_analysis_out_and_the_report_is_announced_first(
        tmp_path, toy_corpus, capsys, marked):
    cfg = _config(tmp_path, toy_corpus)
    assert cli.main(["run", str(cfg), "--quiet", "--skip", "table2"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[:2] == [_announced("bins"), MARK]  # named before the committee trains
    run = tmp_path / "run"
    assert not (run / "table2.csv").exists() and not (run / "report" / "table2").exists()
    assert "Analyses: bins" in (run / "report.md").read_text(encoding="utf-8")
    assert out.splitlines()[-1] == f"report: {run / 'report.md'}"


def test_without_flags_the_config_s_analyses_are_announced(tmp_path, toy_corpus, capsys,
                                                           marked):
    cfg = _config(tmp_path, toy_corpus)
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    assert capsys.readouterr().err.splitlines()[:2] == [_announced("table2, bins"), MARK]
    assert (tmp_path / "run" / "table2.csv").is_file()


def test_no_report_stops_after_the_committee(tmp_path, toy_corpus, capsys, marked):
    cfg = _config(tmp_path, toy_corpus)
    assert cli.main(["run", str(cfg), "--quiet", "--no-report"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == MARK  # nothing announced
    assert not (tmp_path / "run" / "report.md").exists()
    assert not (tmp_path / "run" / "table2.csv").exists()
    assert not any(line.startswith("report:") for line in out.splitlines())


def test_only_chooses_an_analysis_the_config_does_not_switch_on(tmp_path, toy_corpus, capsys,
                                                                marked):
    cfg = _config(tmp_path, toy_corpus, experiments="")
    assert cli.main(["run", str(cfg), "--quiet", "--only", "bins"]) == 0
    assert capsys.readouterr().err.splitlines()[:2] == [_announced("bins"), MARK]
    assert "Analyses: bins" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8")


def test_a_config_without_experiments_announces_nothing(tmp_path, toy_corpus, capsys, marked):
    cfg = _config(tmp_path, toy_corpus, experiments="")
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == MARK
    assert not (tmp_path / "run" / "report.md").exists()


@pytest.mark.parametrize("argv, message", [
    (["--skip", "nosuch"], "--skip: unknown analysis nosuch; choose from "
                           f"{', '.join(ANALYSES)}"),
    (["--only", "tabel2"], "--only: unknown analysis tabel2 (did you mean table2?); choose from "
                           f"{', '.join(ANALYSES)}"),
    (["--no-report", "--skip", "bins"], "--no-report leaves the whole report out; give it "
                                        "without --only and --skip"),
    (["--with", "jieba", "--skip", "ranking"], "--with: the segmenters named are ranked by the "
                                               "analysis ranking, which --no-report, --skip or "
                                               "--only leaves out; keep ranking or drop --with"),
    (["--with", "jieba", "--no-report"], "--with: the segmenters named are ranked by the "
                                         "analysis ranking, which --no-report, --skip or "
                                         "--only leaves out; keep ranking or drop --with"),
], ids=["unknown-skip", "unknown-only", "no-report-and-skip", "with-skip-ranking",
        "with-no-report"])
def test_usage_errors_exit_2_before_anything(tmp_path, toy_corpus, capsys, argv, message):
    cfg = _config(tmp_path, toy_corpus)
    assert cli.main(["run", str(cfg), "--quiet", *argv]) == 2
    assert capsys.readouterr() == ("", f"committee: error: {message} (see 'committee run "
                                       "--help')\n")
    assert not (tmp_path / "run").exists()


def test_the_python_api_takes_the_analyses(tmp_path, toy_corpus, capsys):
    from committee.pipeline import workflow

    cfg = _config(tmp_path, toy_corpus)
    with pytest.raises(ValueError) as e:
        workflow.run(cfg, progress=False, analyses=["nosuch"])
    assert str(e.value) == ("run: unknown analyses ['nosuch']; choose from "
                            f"{', '.join(ANALYSES)}")
    out = workflow.run(cfg, progress=False, analyses=[])
    assert not (out / "report.md").exists()
    assert capsys.readouterr().err == ""
