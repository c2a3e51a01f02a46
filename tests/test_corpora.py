"""Integration on the real corpora beside the repository (../shared/corpora).

Skipped, with the reason, when that folder is absent (a fresh clone)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from committee import corpus as corpus_mod
from committee.cli import main

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"
WEIBO = CORPORA / "nlpcc2016-weibo"
UD = CORPORA / "ud-chinese-gsdsimp"

pytestmark = [
    pytest.mark.corpora,
    pytest.mark.skipif(not CORPORA.is_dir(), reason=f"{CORPORA} is absent (corpora are not "
                                                    "part of the repository)"),
]


def test_weibo_reads_as_documented():
    train = corpus_mod.read_corpus(WEIBO / "train.dat")
    dev = corpus_mod.read_corpus(WEIBO / "dev.dat")
    assert (len(train), len(dev)) == (20135, 2052)
    assert 420_000 < train.n_words() < 423_000 and 43_000 < dev.n_words() < 45_000


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
