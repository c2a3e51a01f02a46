"""Files are data, never code (docs/security.md): a config or a run
directory never runs a command and never chooses the host that receives
the work.  Each case plants a command that would create a marker file and
checks that the marker never appears, with the exact line that says why.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from committee import cli, corpus as corpus_mod
from committee import config as config_mod
from committee.cli.options import scheduler_overrides
from committee.errors import ConfigError, UntrustedWarning
from toyrun import make_toy_corpus, write_config


def _planted(marker: Path) -> str:
    """A ``cmd:`` segmenter that would leave ``marker`` behind: it echoes each
    sentence as one word (a valid segmentation) after touching the file."""
    script = f"open({str(marker)!r}, 'w').close(); import sys; sys.stdout.write(sys.stdin.read())"
    return f"cmd:{shlex.quote(sys.executable)} -c {shlex.quote(script)}"


def _cli(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    """A finished 3-member toy run (no report) to plant files in."""
    d = tmp_path_factory.mktemp("trust")
    make_toy_corpus(d)
    cfg = write_config(d / "c.yaml", d, d / "run", size=3, iterations=3)
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    return d


def _copy_run(toy_run: Path, tmp_path: Path) -> Path:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(toy_run / "run", run)
    return run


def _plant_in_manifest(run: Path, key: str, value) -> None:
    path = run / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    section, _, name = key.partition(".")
    manifest["config"].setdefault(section, {})[name] = value
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def test_config_naming_a_command_is_refused_and_runs_nothing(toy_run, tmp_path, capsys):
    marker = tmp_path / "ran"
    command = _planted(marker)
    cfg = write_config(tmp_path / "c.yaml", toy_run, tmp_path / "run", size=3, iterations=3,
                       experiments=f"  ranking: true\n  segmenters: [{json.dumps(command)}]\n")
    code, out, err = _cli(["run", cfg, "--quiet"], capsys)
    assert (code, out) == (4, "")
    assert err == (
        f"committee: error: {cfg}: experiments.segmenters[0]: {command!r}: a config never names a command (files are "
        f"data, docs/security.md); name it on the command line: --with {shlex.quote(command)}\n")
    assert not marker.exists() and not (tmp_path / "run").exists()


def test_set_cannot_name_a_command_either(toy_run, tmp_path):
    cfg = write_config(tmp_path / "c.yaml", toy_run, tmp_path / "run")
    with pytest.raises(ConfigError, match=r"a config never names a command"):
        config_mod.load_config(cfg, overrides=['experiments.segmenters=["cmd:id"]'])


def test_manifest_naming_a_command_never_runs_it(toy_run, tmp_path, capsys):
    run = _copy_run(toy_run, tmp_path)
    marker = tmp_path / "ran"
    command = _planted(marker)
    _plant_in_manifest(run, "experiments.segmenters", [command])
    code, out, err = _cli(["report", run, "--only", "ranking", "--quiet"], capsys)
    assert code == 0, err
    assert not marker.exists()
    assert (f"committee: warning: {run / 'manifest.json'}: experiments.segmenters names the "
            f"command {command!r}, which is never run from a file: its saved output in "
            "report/systems/ is used if there is one; to run it, name it on the command line "
            "(--with)") in err.splitlines()
    report = (run / "report.md").read_text(encoding="utf-8")
    assert (f"Not run: {command}, named in the run's manifest; a command is run only when "
            "named on the command line (--with), and no saved output of it was found.") in report


def test_manifest_command_uses_its_saved_output(toy_run, tmp_path, capsys):
    """A command given with --with once leaves its output in report/systems/;
    a manifest naming it later reads that output and runs nothing."""
    run = _copy_run(toy_run, tmp_path)
    marker = tmp_path / "ran"
    command = _planted(marker)
    code, _, err = _cli(["report", run, "--only", "ranking", "--quiet", "--with", command],
                        capsys)
    assert code == 0, err
    assert marker.exists()  # named on the command line: run
    marker.unlink()
    ran = _systems(run)
    assert len(ran) == 1
    _plant_in_manifest(run, "experiments.segmenters", [command])
    code, _, err = _cli(["report", run, "--only", "ranking", "--quiet"], capsys)
    assert code == 0, err
    assert not marker.exists()
    assert _systems(run) == ran  # the same system, with the same scores
    report = (run / "report.md").read_text(encoding="utf-8")
    assert f"the saved output of {command} (report/systems/" in report


def _systems(run: Path) -> list[str]:
    """The rows of ``systems.csv`` of kind ``system`` (not Table 2 models)."""
    rows = (run / "report" / "systems.csv").read_text(encoding="utf-8").splitlines()[1:]
    return [r for r in rows if r.split(",")[1] == "system"]


def test_config_file_cannot_name_a_scheduler(toy_run, tmp_path, capsys):
    cfg = write_config(tmp_path / "c.yaml", toy_run, tmp_path / "run", backend="dask")
    text = cfg.read_text(encoding="utf-8").replace(
        "parallel: {backend: dask, n_jobs: 1}",
        "parallel: {backend: dask, n_jobs: 1, scheduler: 'tcp://127.0.0.1:9'}")
    cfg.write_text(text, encoding="utf-8")
    code, out, err = _cli(["run", cfg, "--quiet"], capsys)
    assert (code, out) == (4, "")
    assert err == (
        f"committee: error: {cfg}: parallel.scheduler: 'tcp://127.0.0.1:9': a config file never chooses the host that "
        "receives the work (docs/security.md); name it on the command line: --scheduler "
        "tcp://127.0.0.1:9\n")
    assert not (tmp_path / "run").exists()
    # named on the command line, the same address is the user's word
    named = config_mod.load_config(cfg, overrides=scheduler_overrides(
        cli.build_parser().parse_args(["run", str(cfg), "--scheduler", "tcp://127.0.0.1:9"])))
    assert (named.parallel.backend, named.parallel.scheduler) == ("dask", "tcp://127.0.0.1:9")


def test_manifest_naming_a_scheduler_is_not_contacted(toy_run, tmp_path):
    run = _copy_run(toy_run, tmp_path)
    _plant_in_manifest(run, "parallel.backend", "dask")
    _plant_in_manifest(run, "parallel.scheduler", "tcp://127.0.0.1:9")
    from committee.report.rundata import load_run_config

    with pytest.warns(UntrustedWarning, match=r"parallel.scheduler 'tcp://127.0.0.1:9' is not "
                                              r"contacted: a file never chooses where work"):
        cfg = load_run_config(run)
    assert (cfg.parallel.backend, cfg.parallel.scheduler) == ("loky", None)


def test_run_with_names_a_command_on_the_command_line(toy_run, tmp_path, capsys):
    """``committee run --with 'cmd:…'``: the command line's word runs it."""
    marker = tmp_path / "ran"
    cfg = write_config(tmp_path / "c.yaml", toy_run, tmp_path / "run", size=3, iterations=3,
                       experiments="  ranking: true\n")
    code, _, err = _cli(["run", cfg, "--quiet", "--with", _planted(marker)], capsys)
    assert code == 0, err
    assert marker.exists()
    assert corpus_mod.read_corpus(next((tmp_path / "run" / "report" / "systems").glob("*.txt")))


def test_run_with_needs_the_ranking(toy_run, tmp_path, capsys):
    cfg = write_config(tmp_path / "c.yaml", toy_run, tmp_path / "run", size=3, iterations=3)
    code, out, err = _cli(["run", cfg, "--quiet", "--with", "jieba"], capsys)
    assert (code, out) == (4, "")
    assert err == (f"committee: error: {cfg}: experiments.ranking: the report ranks the systems named "
                                   "with --with; switch it on (experiments: {ranking: true})\n")
