"""`committee score` output, byte for byte, against golden files.

The files in ``tests/data/score/`` are a four-sentence gold with its
difficulties, two outputs, a training word list and a training corpus.  The
golden outputs ``score*.json``, ``score-bootstrap.txt`` and
``score-bootstrap.stderr`` were written by the scorer before it became a layer
over the Python API (``committee.score``); this test proves that its output
did not change.  A golden file is never regenerated to make this test pass:
a difference is a change in behaviour to explain.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from committee.cli import main

DATA = Path(__file__).resolve().parent / "data" / "score"
BASE = ["out-a.txt", "out-b.txt", "--gold", "gold.txt", "--difficulty", "gold.weight"]

CASES = {
    "score.json": [*BASE, "--train-words", "train-words.txt", "--json"],
    "score-bootstrap.json": [*BASE, "--train", "train.txt", "--bootstrap", "200", "--seed", "7",
                             "--json"],
    "score-bootstrap.txt": [*BASE, "--train-words", "train-words.txt", "--bootstrap", "200",
                            "--seed", "7"],
    "score-plain.json": ["out-b.txt", "--gold", "gold.txt", "--json"],
}


@pytest.mark.parametrize("golden", sorted(CASES))
def test_score_output_is_unchanged(golden, monkeypatch, capsys):
    monkeypatch.chdir(DATA)  # paths in the output are as given on the command line
    assert main(["score", *CASES[golden]]) == 0
    out, err = capsys.readouterr()
    assert out == (DATA / golden).read_text(encoding="utf-8")
    if golden == "score-bootstrap.json":
        assert err == (DATA / "score-bootstrap.stderr").read_text(encoding="utf-8")
