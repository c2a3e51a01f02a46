"""``committee irt`` on a run directory made of simulated marks."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee.pipeline import difficulty as difficulty_mod
from committee import metrics
from committee.metrics import itemresponse
from committee.scoring import irt as irt_mod
from committee.tasks.units.words import perturb
from committee.cli import main
from committee.system.files import write_npz
from committee.pipeline.layout import paths
from toyrun import embedded


def make_run(d, k=40, seed=3, bad_word=None):
    """A run directory with a K × N response matrix from a 2PL model on the
    first 60 sentences of the embedded corpus; ``bad_word``: an index whose
    outcome is reversed (the better members miss it)."""
    full = embedded()
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
    assert rows[0].split("\t") == list(irt_mod.ITEM_COLUMNS)
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
    ("tiny", "marks.npz: 4 members are too few for an IRT fit (at least 5 for the 1PL model, "
             "12 for the 2PL): train a larger committee"),
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


@pytest.mark.parametrize("model, message", [
    ("auto", r"the 1PL fit did not converge in 2 EM iterations \(largest change [0-9.e+-]+ > "
             r"0.001\) \(nor did the 2PL\); nothing written: raise --max-iter"),
    ("2pl", r"the 2PL fit did not converge in 2 EM iterations \(largest change [0-9.e+-]+ > "
            r"0.001\); nothing written: raise --max-iter or use --model 1pl"),
])
def test_no_convergence_refused(tmp_path, capsys, model, message):
    make_run(tmp_path)
    before = sorted(x.name for x in tmp_path.iterdir())
    assert main(["irt", str(tmp_path), "--max-iter", "2", "--model", model]) == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert re.fullmatch(f"committee: error: {re.escape(str(tmp_path))}/marks.npz: {message}",
                        err[0]), err[0]
    assert sorted(x.name for x in tmp_path.iterdir()) == before


def test_auto_fits_the_1pl_below_12_members(tmp_path, capsys):
    marks, _ = make_run(tmp_path, k=8)
    assert main(["irt", str(tmp_path), "--no-export"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"committee: warning: {tmp_path}/marks.npz: 8 members are too few for the "
                   "2PL model (at least 12): fitted the 1PL model, one discrimination shared "
                   "by every word; train 12 or more members for each word's discrimination"]
    summary = json.loads(paths(tmp_path).irt_fit.read_text(encoding="utf-8"))
    assert (summary["model"], summary["model_requested"], summary["model_reason"]) == (
        "1pl", "auto", "8 members are too few for the 2PL model (at least 12)")
    a = [float(r.split("\t")[7]) for r in
         paths(tmp_path).irt_items.read_text(encoding="utf-8").splitlines()[1:]]
    assert len(set(a)) == 1  # one discrimination shared by every word
    # the same fit as asked for by name, without a warning
    assert main(["irt", str(tmp_path), "--no-export", "--model", "1pl"]) == 0
    assert capsys.readouterr().err == ""
    again = json.loads(paths(tmp_path).irt_fit.read_text(encoding="utf-8"))
    assert again["members"] == summary["members"] and again["model_reason"] is None


def test_the_help_names_the_2pl_threshold():
    from committee.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    model = next(a for a in sub.choices["irt"]._actions if a.dest == "model")
    assert model.default == "auto" and model.choices == list(irt_mod.MODELS)
    assert f"the 2PL from {itemresponse.MIN_K_2PL} members on" in model.help


def test_auto_falls_back_on_the_1pl_when_the_2pl_does_not_converge(tmp_path, capsys):
    make_run(tmp_path, k=40)  # 2PL: 7 EM iterations, 1PL: 5
    assert main(["irt", str(tmp_path), "--no-export", "--max-iter", "6"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.fullmatch(
        f"committee: warning: {re.escape(str(tmp_path))}/marks.npz: the 2PL fit did not "
        r"converge in 6 EM iterations \(largest change [0-9.e+-]+ > 0.001\): fitted the 1PL "
        r"model, one discrimination shared by every word; `committee irt --model 2pl "
        r"--max-iter N` tries the 2PL longer", err[0]), err[0]
    summary = json.loads(paths(tmp_path).irt_fit.read_text(encoding="utf-8"))
    assert summary["model"] == "1pl" and summary["converged"] and summary["n_iter"] == 5
    assert summary["model_reason"].startswith("the 2PL fit did not converge in 6 EM iterations")
    assert main(["irt", str(tmp_path), "--no-export"]) == 0  # 500 iterations: the 2PL
    assert json.loads(paths(tmp_path).irt_fit.read_text(encoding="utf-8"))["model"] == "2pl"


# --------------------------------------------------------------------------
# words to check, the informative subset, θ of any system


def test_check_gold_puts_words_strong_systems_get_right_first(tmp_path):
    marks, test = make_run(tmp_path)
    marks[:, 7] = False  # a second word every member misses; gold gets both right
    difficulty_mod.write_words_tsv(tmp_path / "words.tsv", test,
                                   *difficulty_mod.difficulties(marks))
    write_npz(tmp_path / "marks.npz", marks=marks)
    chars = [list("".join(s)) for s in test.words]
    corpus_mod.write_sighan(tmp_path / "chars.txt", chars)
    gold = str(tmp_path / "test.txt")
    irt_mod.run(tmp_path, systems=[gold, str(tmp_path / "chars.txt")], export=False)
    rows = [r.split("\t") for r in paths(tmp_path).irt_check.read_text("utf-8").splitlines()]
    head, rows = rows[0], rows[1:]
    col = head.index("right_by_strong")
    strong = [r for r in rows if r[col]]
    # gold (θ above every member) gets both all-wrong words right; the
    # one-character output is weak, so never listed
    assert {tuple(r[:2]) for r in strong} == {("0", "0"), tuple(map(str, _where(test, 7)))}
    assert all(r[col] == gold for r in strong) and rows[:2] == strong


def test_subset_with_every_word_reproduces_the_full_scores(tmp_path):
    make_run(tmp_path)
    res = irt_mod.compute(tmp_path, systems=[str(tmp_path / "test.txt")])
    d = res.data.words["difficulty"].to_numpy()
    gold = res.systems[0]
    every = np.arange(res.fit.n_items)
    est = irt_mod.estimate(res.fit, d, every, gold["marks"], gold["stats"])
    assert est["fb"] == pytest.approx(1.0) and est["r"] == pytest.approx(1.0)
    # a perturbed output: the estimate from every word is its own fb
    test = res.data.test
    pert = irt_mod.system("p", test, d, perturb(test.words, 0.2, 1))
    full = metrics.compute(pert["stats"])
    est = irt_mod.estimate(res.fit, d, every, pert["marks"], pert["stats"])
    assert est["fb"] == pytest.approx(full["fb"]) and est["r"] == pytest.approx(full["r"])
    assert full["r"] < 0.95


def test_subset_command_writes_the_words_and_the_errors(tmp_path, capsys):
    marks, test = make_run(tmp_path)
    assert main(["irt", str(tmp_path), "--subset", "50", "--no-export"]) == 0
    out = capsys.readouterr().out
    assert "RMS error: theta" in out and "gold, 20% perturbed" in out
    rows = paths(tmp_path).irt_subset.read_text("utf-8").splitlines()
    assert rows[0].split("\t") == list(irt_mod.SUBSET_COLUMNS) and len(rows) == 51
    info = [float(r.split("\t")[-1]) for r in rows[1:]]
    sub = json.loads(paths(tmp_path).irt_fit.read_text("utf-8"))["subset"]
    assert sub["n"] == 50 and len(sub["systems"]) == len(irt_mod.PERTURB_RATES)
    # the chosen words carry more information than the words left out
    fit = irt_mod.compute(tmp_path)
    lo, hi = sub["theta_range"]
    every = itemresponse.mean_information(fit.fit.discrimination, fit.fit.difficulty, (lo, hi))
    assert min(info) >= np.sort(every)[-50] - 1e-6
    # fewer perturbations, higher θ
    thetas = [r["theta"] for r in sub["systems"]]
    assert thetas == sorted(thetas, reverse=True)
    assert main(["irt", str(tmp_path), "--subset", str(marks.shape[1] + 1)]) == 3


def test_score_with_irt_adds_theta(tmp_path, capsys):
    import committee

    make_run(tmp_path)
    assert main(["irt", str(tmp_path), "--no-export"]) == 0
    test = corpus_mod.read_corpus(tmp_path / "test.txt")
    corpus_mod.write_sighan(tmp_path / "chars.txt", [list("".join(s)) for s in test.words])
    capsys.readouterr()
    assert main(["score", "--gold", str(tmp_path / "test.txt"), "--irt", str(tmp_path),
                 "--json", str(tmp_path / "test.txt"), str(tmp_path / "chars.txt")]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert systems[0]["theta"] > systems[1]["theta"] + 1 and systems[0]["theta_se"] > 0
    summary = irt_mod.run(tmp_path, systems=[str(tmp_path / "chars.txt")], export=False)
    s = committee.score(tmp_path / "test.txt", tmp_path / "chars.txt", irt=tmp_path)
    assert s.theta == pytest.approx(summary["systems"][0]["theta"])
    assert "theta" in str(s)
    # theta is a metric like the others: --metrics chooses it (with --irt)
    assert main(["score", "--gold", str(tmp_path / "test.txt"), "--irt", str(tmp_path),
                 "--metrics", "f1,fb,theta", str(tmp_path / "chars.txt")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["system", "f1", "fb", "#f1", "#fb", "theta"]
    assert table[1].split()[-1] == f"{s.theta:.3f}±{s.theta_se:.3f}"


def test_score_with_irt_of_another_test_set_is_refused(tmp_path, capsys):
    make_run(tmp_path)
    assert main(["irt", str(tmp_path), "--no-export"]) == 0
    other = embedded().words[:5]
    corpus_mod.write_sighan(tmp_path / "other.txt", other)
    capsys.readouterr()
    assert main(["score", "--gold", str(tmp_path / "other.txt"), "--irt", str(tmp_path),
                 str(tmp_path / "other.txt")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "items.tsv:2: word" in err[0] and "another test set" in err[0]
    assert main(["score", "--gold", str(tmp_path / "other.txt"), "--irt", str(tmp_path / "x"),
                 str(tmp_path / "other.txt")]) == 3


def test_report_irt_section(tmp_path):
    pytest.importorskip("matplotlib")
    import pandas as pd

    from committee.config import parse_config
    from committee.report import Context, System
    from committee.report.analyses import by_name
    from committee.report.rundata import RunData
    from committee.report.systems import score

    marks, test = make_run(tmp_path)
    d, n_correct = difficulty_mod.difficulties(marks)
    chars = System("chars", "system", [list("".join(s)) for s in test.words])
    gold = System("gold", "system", test.words)
    half = System("half", "system", perturb(test.words, 0.3, 2))
    systems = [chars, gold, half]
    score(systems, metrics.Collector(test, difficulty=d), test,
          metrics.make_signature(test.words, difficulty=d))
    cfg = parse_config({
        "name": "hand",
        "corpus": {"train": {"builtin": "peoples-daily-1998", "split": "train"},
                   "test": {"builtin": "peoples-daily-1998", "split": "test"}},
        "committee": {"size": marks.shape[0]}, "output": {"dir": str(tmp_path)},
        "experiments": {"irt": True, "irt_subset": 40}}, check_paths=False)
    data = RunData(tmp_path, test, d, n_correct, None, marks, None, {"name": "hand"})
    (tmp_path / "report").mkdir()
    ctx = Context(cfg, data, tmp_path / "report", others=systems, f1_rank=[3, 1, 2],
                  fb_rank=[3, 1, 2])
    text = by_name("irt").function(ctx)
    assert text.startswith("## IRT") and "### Flagged words" in text
    ranks = pd.read_csv(ctx.out_dir / "irt-systems.csv")
    assert ranks.set_index("system")["rank_theta"].to_dict() == {"gold": 1, "half": 2,
                                                                 "chars": 3}
    assert "θ and f1 rank the systems in the same order" in text
    assert ctx.irt["a"].shape == (test.n_words(),) and set(ctx.irt["theta"]) == {
        "chars", "gold", "half"}
    sub = pd.read_csv(ctx.out_dir / "irt-subset.csv")
    assert len(sub) == 3 + len(irt_mod.PERTURB_RATES)
    b_vs_d = pd.read_csv(ctx.out_dir / "irt-b-vs-d.csv")
    assert b_vs_d["n_words"].sum() == test.n_words()
    assert np.corrcoef(b_vs_d["d"], b_vs_d["b_median"])[0, 1] > 0.9  # harder by d and b
    assert ctx.figures == ["irt-items.png", "irt-systems.png"]
    assert paths(tmp_path).irt_items.is_file()
    # too small a committee: a section that says so, as `committee irt` refuses it
    small = Context(cfg, RunData(tmp_path, test, d, n_correct, None, marks[:3], None, {}),
                    tmp_path / "report")
    assert by_name("irt").function(small) == (
        "## IRT: item response theory on the committee's marks\n\nNot fitted: 3 members are "
        "too few for an IRT fit (at least 5 for the 1PL model, 12 for the 2PL; `committee irt` "
        "refuses the same committee). Train a larger committee (`committee.size`) for this "
        "section (docs/irt.md).\n")
    assert small.notes == [] and small.figures == [] and small.irt is None


def test_config_switch_runs_irt_after_the_committee(toy_corpus, tmp_path):
    pytest.importorskip("matplotlib")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from toyrun import write_config

    from committee.pipeline import workflow

    out = tmp_path / "run"
    cfg = write_config(tmp_path / "toy.yaml", toy_corpus, out, size=6, iterations=3)
    # six members: the 1PL, as `committee irt` fits it; its warning becomes a note
    workflow.run(cfg, experiments__irt=True, experiments__irt_subset=30, progress=False)
    p = paths(out)
    assert p.irt_items.is_file() and p.irt_check.is_file() and p.irt_subset.is_file()
    summary = json.loads(p.irt_fit.read_text("utf-8"))
    assert summary["n_members"] == 6 and summary["subset"]["n"] == 30
    assert summary["model"] == "1pl"
    report = (out / "report.md").read_text("utf-8")
    assert ("A 1PL model (one discrimination shared by every word: 6 members are too few "
            "for the 2PL model (at least 12); docs/irt.md) fitted to the K = 6 members") in report
    assert (f"- IRT: {p.marks}: 6 members are too few for the 2PL model (at least 12): fitted "
            "the 1PL model") in report
    items = p.irt_items.read_bytes()
    assert main(["irt", str(out), "--subset", "30"]) == 0  # the command agrees with the report
    assert p.irt_items.read_bytes() == items
