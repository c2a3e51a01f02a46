"""Integration on the real corpora, and where the configs look for them.

A corpus is read from the repository's ``data/`` (laid out as
``data/README.md`` says) or another place of :mod:`public_corpora`; configs
get its location as a ``--set corpus.root=`` override.  A test whose corpus
is in no such place is skipped, with the reason (a fresh clone has none)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from committee import corpus as corpus_mod
from committee.cli import main
from committee.config import load_config
from committee.errors import ConfigError
from public_corpora import find, needs

REPO = Path(__file__).resolve().parents[1]
REGENERATE = REPO / "scripts" / "regenerate_datasets.py"

WEIBO = find("nlpcc2016-weibo")
UD = find("ud-chinese-gsdsimp")
PUBLIC_CONFIGS = ("nlpcc2016-weibo", "nlpcc2016-weibo-analyses", "ud-chinese-gsdsimp",
                  "sighan2005-pku", "sighan2005-msr", "sighan2005-as", "sighan2005-cityu")


@pytest.mark.parametrize("name", PUBLIC_CONFIGS)
def test_public_corpus_configs_default_to_data(name, tmp_path, monkeypatch):
    """From the repository root a public-corpus config reads ``data/FOLDER``;
    from another directory it looks there, and says so when it is missing."""
    monkeypatch.chdir(REPO)
    cfg = load_config(REPO / "configs" / f"{name}.yaml", check_paths=False)
    folder = Path(cfg.corpus.root)
    assert not folder.is_absolute() and folder.parts[0] == "data" and len(folder.parts) == 2
    assert cfg.base_dir() == REPO / folder
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_config(REPO / "configs" / f"{name}.yaml")
    assert err.value.problems == [f"corpus.root: no such directory: {tmp_path / folder}"]


def test_regenerate_datasets_names_the_missing_corpus_folder(tmp_path):
    """``--corpora DIR`` is where the script looks; a corpus absent there is
    listed as not built, with the folder it looked for."""
    empty = tmp_path / "corpora"
    empty.mkdir()
    p = subprocess.run([sys.executable, str(REGENERATE), "ud-chinese-gsdsimp", "--quiet",
                        "--corpora", str(empty), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1
    folder = empty / "ud-chinese-gsdsimp"
    assert f"--set corpus.root={folder}: no such directory: {folder}" in p.stderr
    assert "| ud-chinese-gsdsimp | – |" in (tmp_path / "out" / "README.md").read_text("utf-8")


@pytest.mark.corpora
@needs("ud-chinese-gsdsimp")
def test_regenerate_datasets_builds_from_the_corpora_folder(tmp_path):
    p = subprocess.run([sys.executable, str(REGENERATE), "ud-chinese-gsdsimp", "--quiet",
                        "--corpora", str(UD.parent), "--out", str(tmp_path / "out"),
                        "--set", "committee.size=2", "--set", "crf.params.max_iterations=5"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    manifest = json.loads((tmp_path / "out" / "ud-chinese-gsdsimp" / "manifest.json").read_text())
    dev = corpus_mod.read_corpus(UD / "dev.conllu", format="conllu")
    assert manifest["corpus"]["train"]["sha256"] == dev.sha256
    assert manifest["committee"]["size"] == 2


@pytest.mark.corpora
@needs("nlpcc2016-weibo")
def test_weibo_reads_as_documented():
    train = corpus_mod.read_corpus(WEIBO / "train.dat")
    dev = corpus_mod.read_corpus(WEIBO / "dev.dat")
    assert (len(train), len(dev)) == (20135, 2052)
    assert 420_000 < train.n_words() < 423_000 and 43_000 < dev.n_words() < 45_000


@pytest.mark.corpora
@needs("ud-chinese-gsdsimp")
def test_unseen_conllu_corpus_runs_by_config_alone(tmp_path):
    """UD GSDSimp (CoNLL-U) through `committee run` with only config overrides."""
    out = tmp_path / "ud"
    code = main(["run", str(REPO / "configs" / "ud-chinese-gsdsimp.yaml"), "--quiet",
                 "--set", f"corpus.root={UD}", "--set", f"output.dir={out}",
                 "--set", "committee.size=3", "--set", "crf.params.max_iterations=10"])
    assert code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    gold = corpus_mod.read_corpus(UD / "test.conllu", format="conllu")
    assert manifest["difficulty"]["n_words"] == gold.n_words()
    assert (out / "test.txt").read_text(encoding="utf-8").splitlines()[0] == " ".join(gold.words[0])
    # the run's own files score: the gold against itself is perfect
    result = subprocess.run(
        [sys.executable, "-m", "committee", "score", "--json", "--gold", str(out / "test.txt"),
         "--difficulty", str(out / "test.weight"), "--train-words",
         str(out / "train-words.txt"), str(out / "test.txt")],
        capture_output=True, text=True, cwd=REPO, check=True)
    system = json.loads(result.stdout)["systems"][0]
    assert system["f1"] == 1.0 and system["fb"] == 1.0
    assert 0 < system["oov_rate"] < 1
