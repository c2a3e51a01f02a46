"""One analysis never sinks a report: K = 3 and K = 6 committees of the toy
corpus end to end (``committee run``, then ``committee report``), an
analysis forced to fail, a report.html that cannot be written, plotly or
matplotlib missing, and settings the run cannot satisfy."""

from __future__ import annotations

import errno
import fnmatch
import json
import shutil
import sys

import pandas as pd
import pytest

from committee import cli
from committee.system.files import atomic_open
from committee.report import analyses
from committee.report import html
from toyrun import make_toy_corpus, write_config

pytest.importorskip("matplotlib")

IRT_TOO_FEW = (
    "## IRT: item response theory on the committee's marks\n\nNot fitted: 3 members are too "
    "few for an IRT fit (at least 5 for the 1PL model, 12 for the 2PL; `committee irt` refuses "
    "the same committee). Train a larger committee (`committee.size`) for this section "
    "(docs/irt.md).\n")
IRT_1PL = ("A 1PL model (one discrimination shared by every word: 6 members are too few for "
           "the 2PL model (at least 12); docs/irt.md) fitted to the K = 6 members × 2,052 words")


def _report(run, *extra) -> tuple[int, str]:
    """``committee report RUN --quiet --skip table2``: exit code, stderr."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["report", str(run), "--quiet", "--skip", "table2", *extra])
    return code, err.getvalue()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``committee run`` of a K = 3 and a K = 6 committee (no analyses), each
    then reported once (``committee report RUN --quiet --skip table2``): the
    run directory, the report's exit code and its stderr lines.  Tests work
    on copies (:func:`runs`), so that this one build is every test's earlier
    build instead of each test making the same report again."""
    d = make_toy_corpus(tmp_path_factory.mktemp("toy-small"))
    out = {}
    for k in (3, 6):
        cfg = write_config(d / f"k{k}.yaml", d, d / f"k{k}", size=k, backend="sequential")
        assert cli.main(["run", str(cfg), "--quiet"]) == 0
        code, err = _report(d / f"k{k}")
        out[k] = (d / f"k{k}", code, err.splitlines())
    return out


class _Copies(dict):
    """K -> a copy, made when first asked for, of the run :func:`built` reported."""

    def __init__(self, built, tmp_path):
        super().__init__()
        self.built, self.tmp_path = built, tmp_path

    def __missing__(self, k):
        run, code, err = self.built[k]
        assert (code, err) == (0, []), err
        self[k] = copy = self.tmp_path / run.name
        shutil.copytree(run, copy)
        return copy


@pytest.fixture
def runs(built, tmp_path):
    """A copy of each committee's run, reported once (:func:`built`): the
    report an earlier build left (its files and their times) is there."""
    return _Copies(built, tmp_path)


def report(run, capsys, *extra) -> tuple[int, list[str]]:
    """``committee report RUN --quiet --skip table2``: exit code, stderr lines."""
    capsys.readouterr()
    code = cli.main(["report", str(run), "--quiet", "--skip", "table2", *extra])
    return code, capsys.readouterr().err.splitlines()


def page_data(run) -> dict:
    """The JSON data embedded in ``run/report.html``."""
    text = (run / "report.html").read_text(encoding="utf-8")
    start = text.index(">", text.index('<script id="report-data"')) + 1
    return json.loads(text[start:text.index("</script>", start)])


def leftovers(run) -> list[str]:
    return sorted(p.name for p in run.rglob(".*.tmp"))


@pytest.mark.parametrize("k", [3, 6])
def test_small_committees_get_a_whole_report(built, k):
    run, code, err = built[k]
    assert (code, err) == (0, [])
    text = (run / "report.md").read_text(encoding="utf-8")
    for title in ("Fig. 1", "Fig. 2", "Fig. 6", "Fig. 7", "IRT"):
        assert f"## {title}" in text
    if k == 3:
        assert IRT_TOO_FEW in text and not (run / "items.tsv").exists()
    else:
        assert IRT_1PL in text
        assert json.loads((run / "irt.json").read_text("utf-8"))["model"] == "1pl"
    assert page_data(run)["failed"] == []
    assert leftovers(run) == []


def test_every_file_of_an_analysis_is_named_in_outputs(built):
    run, code, _ = built[6]
    assert code == 0
    written = sorted(p.relative_to(run).as_posix() for p in (run / "report").iterdir()
                     if p.is_file() and p.name != "systems.csv")
    assert written
    for name in written:
        owners = [a.name for a in analyses.REGISTRY
                  if any(fnmatch.fnmatch(name, g) for g in a.outputs)]
        assert len(owners) == 1, (name, owners)


def _boom(ctx):
    raise ZeroDivisionError("injected\n  on two lines")


def failing(name: str, function) -> tuple:
    """The analyses' registry with the function of ``name`` replaced."""
    from dataclasses import replace

    return tuple(replace(a, function=function) if a.name == name else a
                 for a in analyses.REGISTRY)


def test_a_failing_analysis_is_a_section_and_one_warning(runs, capsys, monkeypatch):
    run = runs[6]  # an earlier build with Fig. 1
    assert (run / "report/fig1-committee-size.csv").is_file()
    monkeypatch.setattr(analyses, "REGISTRY", failing("stability", _boom))
    code, err = report(run, capsys)
    assert code == 0
    assert err == [f"committee: warning: analysis stability failed: ZeroDivisionError: injected "
                   "on two lines; report.md and report.html say so in its section and hold the "
                   f"rest of the report (traceback in {run}/run.log)"]
    text = (run / "report.md").read_text(encoding="utf-8")
    assert ("## Fig. 1: is the committee large enough?\n\n**Not made: the stability analysis "
            "failed.** ZeroDivisionError: injected on two lines\n\nThe other sections do not "
            "depend on it. The traceback is in `run.log`; `committee report` makes this section "
            "again (Table 2 models are read back, not retrained).\n") in text
    assert ("Analyses: stability, linguistic, ranking, bins, split_half, word_weights, irt, "
            "cost, buckets (1 failed: stability); figures: 4 (") in text  # Fig. 2, 6, 7, IRT's
    # items (no ranked system here: the cost of evaluation is a note)
    for title in ("## Fig. 2", "## Fig. 6", "## Fig. 7", IRT_1PL):
        assert title in text
    # the earlier build's Fig. 1 is gone: neither report/ nor report.html shows it
    assert not list((run / "report").glob("fig1-*"))
    assert (run / "report/fig2-linguistic.png").is_file()
    data = page_data(run)
    assert data["failed"] == [{"analysis": "stability",
                               "title": "Fig. 1: is the committee large enough?",
                               "reason": "ZeroDivisionError: injected on two lines"}]
    assert not any(a["title"].startswith("Fig. 1") for a in data["analyses"])
    assert "ZeroDivisionError: injected" in (run / "run.log").read_text(encoding="utf-8")
    assert "Traceback" in (run / "run.log").read_text(encoding="utf-8")


def test_a_failing_irt_fit_leaves_the_irt_files_as_they_were(runs, capsys, monkeypatch):
    from committee.scoring import irt as irt_mod
    from committee.errors import RunError

    run = runs[6]  # an earlier build with IRT's files
    items = (run / "items.tsv").read_bytes()

    def no_fit(*args, **kwargs):
        raise RunError(f"{run}/marks.npz: the 1PL fit did not converge")

    monkeypatch.setattr(irt_mod, "fit_model", no_fit)
    code, err = report(run, capsys)
    assert code == 0 and len(err) == 1
    assert err[0].startswith(f"committee: warning: analysis irt failed: {run}/marks.npz: the "
                             "1PL fit did not converge; report.md and report.html")
    assert "**Not made: the irt analysis failed.**" in (run / "report.md").read_text("utf-8")
    assert (run / "items.tsv").read_bytes() == items
    assert not list((run / "report").glob("irt-*"))
    assert page_data(run)["irt_a"] is None


def _full_disk(path, text, encoding="utf-8"):
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text[:1000])
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_write_of_report_html_is_exit_6(runs, capsys, monkeypatch):
    run = runs[3]  # an earlier build
    before = (run / "report.md").stat().st_mtime_ns
    monkeypatch.setattr(html, "atomic_write_text", _full_disk)
    code, err = report(run, capsys, "--skip", "table2,stability")
    assert code == 6
    assert err == [f"committee: error: {run}/report.html: cannot write: No space left on "
                   "device; free some space or choose another output directory; report.md is "
                   "written and the report.html of an earlier build removed: rerun `committee "
                   "report` for report.html"]
    assert (run / "report.md").stat().st_mtime_ns > before
    assert "## Fig. 1" not in (run / "report.md").read_text(encoding="utf-8")
    assert not (run / "report.html").exists() and leftovers(run) == []


def test_without_plotly_report_md_says_so_and_no_stale_page_stays(runs, capsys, monkeypatch):
    run = runs[3]  # an earlier build
    assert (run / "report.html").is_file()
    monkeypatch.setitem(sys.modules, "plotly.offline", None)  # import fails
    code, err = report(run, capsys)
    assert code == 0
    assert err == [f"committee: warning: {run}/report.html: not written: plotly: not installed "
                   "(report.html needs it); pip install 'committee[report]'; the page of an "
                   "earlier build was removed; report.md holds the whole report"]
    assert not (run / "report.html").exists()
    assert ("- report.html not written: plotly: not installed (report.html needs it); pip "
            "install 'committee[report]'; the page of an earlier build was removed."
            ) in (run / "report.md").read_text(encoding="utf-8")
    code, err = report(run, capsys)  # nothing to remove the second time
    assert code == 0 and err[0].endswith("pip install 'committee[report]'; report.md holds "
                                         "the whole report")


def test_missing_matplotlib_is_one_clean_line_exit_3(runs, capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    expected = ["committee: error: matplotlib: not installed (the report's figures need it); "
                "pip install 'committee[report]'"]
    code, err = report(runs[3], capsys)
    assert (code, err) == (3, expected)
    # committee run refuses it before any training: nothing is written
    cfg = write_config(tmp_path / "c.yaml", runs.built[3][0].parent, tmp_path / "out", size=3,
                       backend="sequential", experiments="  stability: true\n")
    capsys.readouterr()
    assert cli.main(["run", str(cfg), "--quiet"]) == 3
    assert capsys.readouterr().err.splitlines() == expected
    assert not (tmp_path / "out").exists()


def test_settings_the_run_cannot_satisfy_are_refused_before_any_compute(runs, capsys):
    run = runs[3]  # an earlier build
    before = (run / "report.md").read_bytes()
    # the config says 6 members (so its own check passes); the run has 3
    code, err = report(run, capsys, "--set", "committee.size=6",
                       "--set", "experiments.stability_sizes=[1, 4]",
                       "--set", "experiments.word_weight_sentences=[0, 40, 41]")
    assert code == 4
    # each problem blamed on the --set that gave the value, not on the run
    assert err == ["committee: error: 2 problems",
                   "  --set experiments.stability_sizes=[1, 4]: experiments.stability_sizes: "
                   "sizes [4] exceed the run's committee size K = 3",
                   "  --set experiments.word_weight_sentences=[0, 40, 41]: "
                   "experiments.word_weight_sentences: [40, 41] do not exist (the test set "
                   "has 40 sentences, 0-based)"]
    assert (run / "report.md").read_bytes() == before
    # skipped analyses are not checked
    assert report(run, capsys, "--set", "experiments.word_weight_sentences=[40]",
                  "--skip", "table2,word_weights")[0] == 0
    assert "## Fig. 7" not in (run / "report.md").read_text(encoding="utf-8")
    assert pd.read_csv(run / "report/fig1-committee-size.csv")["size"].max() == 3
