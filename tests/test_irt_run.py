"""``committee irt`` on a run directory made of simulated marks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import irtrun
from committee.cli import main
from committee.fileio import write_npz
from committee.rundir import paths


def make_run(d, k=40, seed=3, bad_word=None):
    """A run directory with a K × N response matrix from a 2PL model on the
    first 60 sentences of the embedded corpus; ``bad_word``: an index whose
    outcome is reversed (the better members miss it)."""
    full = corpus_mod.read_embedded()
    words = full.words[2000:2060]
    corpus_mod.write_sighan(d / "test.txt", words)
    test = corpus_mod.read_corpus(d / "test.txt")
    n = test.n_words()
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(size=k))
    a = rng.uniform(0.8, 2.0, n)
    b = rng.normal(-1.0, 1.0, n)
    marks = rng.random((k, n)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    if bad_word is not None:
        marks[:, bad_word] = np.arange(k) < k // 2  # the weaker half is right
    marks[:, 0] = False  # a word every member misses
    d_, n_correct = difficulty_mod.difficulties(marks)
    difficulty_mod.write_words_tsv(d / "words.tsv", test, d_, n_correct)
    write_npz(d / "marks.npz", marks=marks)
    return marks, test


def test_run_writes_every_file(tmp_path, capsys):
    marks, test = make_run(tmp_path, bad_word=5)
    assert main(["irt", str(tmp_path)]) == 0
    p = paths(tmp_path)
    rows = p.irt_items.read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == list(irtrun.ITEM_COLUMNS)
    assert len(rows) == 1 + test.n_words()
    first = rows[1].split("\t")
    assert first[2] == test.words[0][0] and first[-1] == "all_wrong" and first[4] == "0"
    summary = json.loads(p.irt_fit.read_text(encoding="utf-8"))
    assert summary["converged"] and len(summary["members"]) == marks.shape[0]
    thetas = [m["theta"] for m in summary["members"]]
    # members were sorted by true ability: the estimates follow
    assert np.corrcoef(thetas, np.arange(len(thetas)))[0, 1] > 0.9
    check = p.irt_check.read_text(encoding="utf-8").splitlines()
    reasons = {tuple(r.split("\t")[:2]): r.split("\t")[8] for r in check[1:]}
    assert reasons[("0", "0")] == "all_wrong"
    s5, j5 = _where(test, 5)
    assert reasons[(str(s5), str(j5))] == "negative_a"
    assert "【" in check[1]
    with np.load(p.irt_npz) as f:
        assert f["responses"].shape == (test.n_words(), marks.shape[0])
    lines = p.irt_pyirt.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    assert rec["subject_id"] == "member-1" and rec["responses"]["w3"] == int(marks[1, 3])
    assert "wrote" in capsys.readouterr().out


def _where(test, i):
    k = 0
    for s, sent in enumerate(test.words):
        if i < k + len(sent):
            return s, i - k
        k += len(sent)
    raise IndexError(i)


def test_system_theta_orders_outputs(tmp_path, capsys):
    make_run(tmp_path)
    gold = tmp_path / "test.txt"
    test = corpus_mod.read_corpus(gold)
    chars = [[c for c in "".join(s)] for s in test.words]
    corpus_mod.write_sighan(tmp_path / "chars.txt", chars)
    assert main(["irt", str(tmp_path), "--system", str(gold),
                 "--system", str(tmp_path / "chars.txt")]) == 0
    systems = json.loads(paths(tmp_path).irt_fit.read_text(encoding="utf-8"))["systems"]
    assert systems[0]["theta"] > systems[1]["theta"] + 1


@pytest.mark.parametrize("case, message", [
    ("no-marks", "marks.npz: no such file"),
    ("transposed", "transposed?"),
    ("not-boolean", "must be boolean"),
    ("tiny", "too few for an IRT fit"),
])
def test_bad_input_one_line_nothing_written(tmp_path, capsys, case, message):
    marks, _ = make_run(tmp_path)
    if case == "no-marks":
        (tmp_path / "marks.npz").unlink()
    elif case == "transposed":
        write_npz(tmp_path / "marks.npz", marks=marks.T)
    elif case == "not-boolean":
        write_npz(tmp_path / "marks.npz", marks=marks.astype(np.int64) * 2)
    else:
        write_npz(tmp_path / "marks.npz", marks=marks[:4])
    before = sorted(x.name for x in tmp_path.iterdir())
    assert main(["irt", str(tmp_path)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("committee: error: ") and message in err[0]
    assert sorted(x.name for x in tmp_path.iterdir()) == before


def test_small_committee_warns(tmp_path, capsys):
    make_run(tmp_path, k=12)
    assert main(["irt", str(tmp_path), "--no-export"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "only 12 members" in err[0]
    assert not paths(tmp_path).irt_npz.exists()


def test_no_convergence_refused(tmp_path, capsys):
    make_run(tmp_path)
    before = sorted(x.name for x in tmp_path.iterdir())
    assert main(["irt", str(tmp_path), "--max-iter", "2"]) == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "did not converge in 2 EM iterations" in err[0]
    assert sorted(x.name for x in tmp_path.iterdir()) == before
