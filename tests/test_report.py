"""The run report end to end on a toy run (300 training, 40 test sentences of
People's Daily, 3 members, 5 L-BFGS iterations): ``committee run`` with the
experiments on, then ``committee report`` on the finished directory."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from committee import cli, scoring
from committee.metrics import difficulty_stats
from committee.pipeline import workflow
from committee import corpus as corpus_mod
from committee.config import load_config
from committee.errors import UndefinedMetricWarning
from toyrun import embedded, make_toy_corpus, write_config

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("toy-report")
    full = embedded()
    make_toy_corpus(d)
    test_words = corpus_mod.read_corpus(d / "test.txt").words
    # two systems: the gold itself, and every character a word
    corpus_mod.write_sighan(d / "gold-copy.txt", test_words)
    corpus_mod.write_sighan(d / "chars.txt", [[c for w in s for c in w] for s in test_words])
    (d / "idioms.txt").write_text("".join(w + "\n" for s, p in zip(full.words, full.pos)
                                          for w, t in zip(s, p) if t == "i"), encoding="utf-8")
    cfg = write_config(d / "toy.yaml", d, d / "run", backend="sequential", experiments="""\
  table2: true
  table2_fractions: [0.5, 1.0]
  table2_max_iterations: 5
  stability: true
  linguistic: true
  idioms: idioms.txt
  bins: true
  ranking: true
  systems: [gold-copy.txt, chars.txt]
  split_half: true
  split_half_repeats: 20
  word_weights: true
  word_weight_sentences: [0, 3]
  buckets: true
""")
    out = workflow.run(load_config(cfg), progress=False)
    return d, out


def test_run_with_experiments_writes_table2_figures_and_report(toy):
    _, out = toy
    assert (out / "report.md").is_file() and (out / "table2.csv").is_file()
    pngs = sorted(p.name for p in (out / "report").glob("*.png"))
    assert len(pngs) >= 5, pngs
    report = (out / "report.md").read_text(encoding="utf-8")
    for png in pngs:  # every figure is shown in the report, with its data beside it
        assert f"](report/{png})" in report
    for name in ("fig1-committee-size", "fig2-linguistic", "fig4-recall-by-bin",
                 "fig6-split-half", "fig7-word-weights"):
        assert (out / "report" / f"{name}.csv").is_file()
    assert (out / "predictions.npz").is_file()


def test_every_file_an_analysis_writes_is_named_in_its_outputs(toy):
    """An analysis's outputs name what it leaves behind to remove when it fails."""
    import fnmatch

    from committee.report.analyses import REGISTRY

    OUTPUTS = {a.name: a.outputs for a in REGISTRY}

    _, out = toy
    written = ["table2.csv"] + [p.relative_to(out).as_posix() for p in (out / "report").iterdir()
                                if p.is_file() and p.name != "systems.csv"]
    owners = {name: [a for a, globs in OUTPUTS.items()
                     if any(fnmatch.fnmatch(name, g) for g in globs)] for name in written}
    assert {name: len(o) for name, o in owners.items()} == {name: 1 for name in written}
    # no IRT in this run (so no cost of evaluation either: it needs the
    # items), and no entities or tags in a segmentation run
    assert {o[0] for o in owners.values()} == set(OUTPUTS) - {"irt", "cost", "entities", "tags",
                                                               "confusion"}


def test_table2_csv_holds_fractions_that_committee_score_reproduces(toy):
    d, out = toy
    t2 = pd.read_csv(out / "table2.csv")
    assert t2["fraction"].tolist() == [0.5, 1.0]
    assert t2["n_sentences"].tolist() == [150, 300]
    for k in ("p", "r", "f1", "pb", "rb", "fb"):
        assert t2[k].between(0, 1).all(), k
    scorer = scoring.Scorer(out / "test.txt", difficulty=out / "test.weight",
                            train_words=out / "train-words.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        scored = scorer.score_all([out / "report/table2/F2-50.txt",
                                   out / "report/table2/F2-100.txt"])
    for row, s in zip(t2.itertuples(), scored["systems"]):
        for k in ("p", "r", "f1", "pb", "rb", "fb"):
            assert getattr(row, k) == pytest.approx(s[k], abs=1e-12)


def test_committee_score_takes_each_table2_output_as_it_is(toy, capsys):
    """Each Table 2 model's output, beside its record in report/table2/, is
    scored by `committee score GOLD OUTPUT` (no format option) to the f1 of
    its row of report.md's Table 2, under the name F2-50, F2-100."""
    import json

    from committee.report.output import pct

    _, out = toy
    assert sorted(p.name for p in (out / "report/table2").iterdir() if p.is_file()) == [
        "F2-100.json", "F2-100.txt", "F2-50.json", "F2-50.txt"]
    capsys.readouterr()
    code = cli.main(["score", "--json", "--gold", str(out / "test.txt"), "--difficulty",
                     str(out / "test.weight"), str(out / "report/table2/F2-50.txt"),
                     str(out / "report/table2/F2-100.txt")])
    assert code == 0
    scored = json.loads(capsys.readouterr().out)["systems"]
    assert [s["name"] for s in scored] == ["F2-50", "F2-100"]
    table = (out / "report/table2.md").read_text(encoding="utf-8").splitlines()[2:]
    shown = {line.split("|")[1].strip(): line.split("|")[5].strip() for line in table}
    assert shown == {"F2 50%": pct(scored[0]["f1"]), "F2 100%": pct(scored[1]["f1"])}
    t2 = pd.read_csv(out / "table2.csv")
    assert t2["f1"].tolist() == [s["f1"] for s in scored]  # golden: the same numbers
    assert t2["fb"].tolist() == [s["fb"] for s in scored]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "`report/table2/F2-50.txt`, `report/table2/F2-100.txt`" in report


def test_systems_are_ranked_and_the_gold_copy_is_perfect(toy):
    _, out = toy
    systems = pd.read_csv(out / "report/systems.csv")
    assert systems["system"].tolist() == ["F2 50%", "F2 100%", "gold-copy", "chars"]
    gold = systems.set_index("system").loc["gold-copy"]
    assert gold["f1"] == 1.0 and gold["fb"] == 1.0 and gold["rank_f1"] == 1
    assert (systems["kind"] == "table2").sum() == 2


def test_stability_csv_matches_the_marks(toy):
    _, out = toy
    marks = np.load(out / "marks.npz")["marks"]
    s = pd.read_csv(out / "report/fig1-committee-size.csv")
    assert s["size"].tolist() == [1, 2, 3]
    assert s["mean_abs_diff"].iloc[-1] == 0.0
    d1 = 1.0 - marks[0]
    d3 = (~marks).sum(axis=0) / 3
    assert s["mean_abs_diff"].iloc[0] == pytest.approx(np.abs(d1 - d3).mean())


def test_linguistic_csv_counts_every_word_once(toy):
    _, out = toy
    lg = pd.read_csv(out / "report/fig2-linguistic.csv")
    words = pd.read_csv(out / "words.tsv", sep="\t", keep_default_na=False)
    assert lg["all words n"].sum() == len(words)
    two = words[words["word"].str.len() == 2]
    assert lg["2-character words n"].tolist() == difficulty_stats.bin_counts(
        two["difficulty"].to_numpy()).tolist()
    assert lg["OOV words n"].sum() == words["oov"].sum()


def test_split_half_pools_table2_members_and_systems(toy):
    _, out = toy
    sh = pd.read_csv(out / "report/fig6-split-half.csv")
    assert sorted(sh["kind"].value_counts().items()) == [("member", 3), ("system", 2),
                                                         ("table2", 2)]
    r = pd.read_csv(out / "report/fig6-split-half-pearson.csv")
    assert len(r) == 20
    assert r["pearson_fb"].iloc[0] == pytest.approx(
        difficulty_stats.pearson(sh["fb_half_a"], sh["fb_half_b"]))


def test_word_weights_shows_the_chosen_sentences(toy):
    _, out = toy
    ww = pd.read_csv(out / "report/fig7-word-weights.csv", keep_default_na=False)
    assert sorted(set(ww["sentence"])) == [0, 3]
    words = pd.read_csv(out / "words.tsv", sep="\t", keep_default_na=False)
    first = words[words["sentence"] == 0]
    assert ww[ww["sentence"] == 0]["d"].tolist() == first["difficulty"].tolist()


def test_report_command_reuses_the_table2_models_and_takes_human_judgements(toy, tmp_path,
                                                                           capsys):
    d, out = toy
    before = {p.name: p.stat().st_mtime_ns for p in (out / "report/table2").iterdir()}
    human = tmp_path / "human.tsv"
    human.write_text("# system score\nF2 50%\t2\nF2 100%\t3\ngold-copy\t4\nchars\t1\n",
                     encoding="utf-8")
    code = cli.main(["report", str(out), "--human", str(human), "--quiet",
                     "--only", "table2,ranking"])
    assert code == 0, capsys.readouterr().err
    after = {p.name: p.stat().st_mtime_ns for p in (out / "report/table2").iterdir()}
    assert after == before  # read back, not retrained
    corr = pd.read_csv(out / "report/fig3-human-correlation.csv").set_index("metric")["pearson"]
    systems = pd.read_csv(out / "report/systems.csv")
    assert corr["f1"] == pytest.approx(difficulty_stats.pearson(systems["f1"], [2, 3, 4, 1]))
    assert "Pearson correlation with the human judgements" in (out / "report.md").read_text(
        encoding="utf-8")


def test_table2_models_kept_under_their_former_names_are_renamed_and_reused(toy, capsys):
    """A report of an earlier version kept F2-0500.json/.txt: the next report
    renames them to F2-50 and reads the model back instead of training it."""
    _, out = toy
    t2dir = out / "report/table2"
    for stem, old in (("F2-50", "F2-0500"), ("F2-100", "F2-1000")):
        for suffix in (".json", ".txt"):
            (t2dir / f"{stem}{suffix}").rename(t2dir / f"{old}{suffix}")
    before = {p.name: p.read_bytes() for p in t2dir.iterdir() if p.is_file()}
    code = cli.main(["report", str(out), "--quiet", "--only", "table2"])
    assert code == 0, capsys.readouterr().err
    after = {p.name: p.read_bytes() for p in t2dir.iterdir() if p.is_file()}
    assert after == {name.replace("-0500", "-50").replace("-1000", "-100"): data
                     for name, data in before.items()}


def test_report_refusals(toy, tmp_path, capsys):
    _, out = toy
    human = tmp_path / "human.tsv"
    human.write_text("nosuch 1\n", encoding="utf-8")
    assert cli.main(["report", str(out), "--human", str(human), "--only", "ranking",
                     "--quiet"]) == 3
    assert "unknown system 'nosuch'" in capsys.readouterr().err
    assert cli.main(["report", str(tmp_path), "--quiet"]) == 3
    assert "manifest.json: no such file" in capsys.readouterr().err
    assert cli.main(["report", str(out), "--skip", "tabel2"]) == 2  # a usage error
    assert capsys.readouterr().err.startswith(
        "committee: error: --skip: unknown analysis tabel2 (did you mean table2?)")


def test_a_run_dir_with_a_report_can_be_resumed(toy):
    d, out = toy
    # report files belong to the run: rerunning the same config is not refused
    # (and its report made again: two quick analyses of the seven it has)
    workflow.run(load_config(d / "toy.yaml", [
        "experiments.table2=false", "experiments.split_half=false",
        "experiments.stability=false", "experiments.linguistic=false",
        "experiments.word_weights=false", "experiments.buckets=false"]), progress=False)
    assert (out / "report.md").is_file()


def test_missing_experiment_inputs_are_refused_before_training(toy, tmp_path):
    from committee.errors import ConfigError

    d, _ = toy
    out = tmp_path / "never"
    cfg = load_config(d / "toy.yaml", [f"output.dir={out}", "experiments.systems=[absent.txt]",
                                       "experiments.human=absent.tsv"])
    with pytest.raises(ConfigError) as info:
        workflow.run(cfg, progress=False)
    assert info.value.problems == [f"experiments.systems[0]: no such file: {d / 'absent.txt'}",
                                   f"experiments.human: no such file: {d / 'absent.tsv'}"]
    assert not out.exists()


def test_table2_on_loky_workers_after_the_committee(toy, tmp_path):
    """The committee and the Table 2 models share loky's reusable pool in one
    process (joblib.Parallel could not reuse the pool the pipeline made)."""
    d, _ = toy
    out = tmp_path / "loky"
    cfg = load_config(d / "toy.yaml", [
        f"output.dir={out}", "parallel.backend=loky", "parallel.n_jobs=2",
        "experiments.table2_fractions=[0.2, 0.4]", "experiments.stability=false",
        "experiments.linguistic=false", "experiments.bins=false", "experiments.ranking=false",
        "experiments.split_half=false", "experiments.word_weights=false",
        "experiments.buckets=false"])
    workflow.run(cfg, progress=False)
    t2 = pd.read_csv(out / "table2.csv")
    assert t2["n_sentences"].tolist() == [60, 120]
    assert (t2["f1"] > 0).all()


def test_builtin_idiom_list_is_people_daily_pos_i():
    from committee import report

    from committee.report.analyses.linguistic import idiom_list

    idioms = idiom_list(None, "peoples-daily-1998")
    assert len(idioms) == 2042  # distinct words tagged i in People's Daily 1998-01
    assert {"一丝不苟", "一举两得"} <= idioms
    assert all(len(w) >= 2 for w in idioms)


def test_stability_sizes_beyond_the_committee_are_refused_before_training(toy, tmp_path):
    from committee.errors import ConfigError

    d, _ = toy
    out = tmp_path / "never"
    cfg = load_config(d / "toy.yaml", [f"output.dir={out}", "experiments.stability_sizes=[2, 5]"])
    with pytest.raises(ConfigError, match=r"experiments.stability_sizes: \[5\] exceed "
                                          r"committee.size \(3\)"):
        workflow.run(cfg, progress=False)
    assert not out.exists()


def test_a_report_of_a_manifests_config_trains_on_every_usable_core(toy):
    """The manifest records no ``parallel`` section (it does not change the
    outputs): ``committee report RUN_DIR`` trains its Table 2 models on every
    usable core, not one; ``--set`` still chooses."""
    from committee.report import load_run_config

    _, out = toy
    cfg = load_run_config(out)
    assert (cfg.parallel.backend, cfg.parallel.n_jobs) == ("loky", -1)
    cfg = load_run_config(out, overrides=["parallel.n_jobs=2"])
    assert cfg.parallel.n_jobs == 2


def test_report_lists_every_file_it_wrote_with_its_size(toy, capsys, tmp_path):
    import shutil
    import time

    _, out = toy
    run = tmp_path / "run"
    shutil.copytree(out, run)
    capsys.readouterr()
    started = time.time_ns()
    assert cli.main(["report", str(run), "--quiet", "--only", "bins,split_half"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines[1:]}
    assert lines[0].startswith(f"wrote {run.as_posix()}/: ")
    for name in ("report.md", "report.html", "table2.csv"):
        assert rows[name] == workflow._size((run / name).stat().st_size)
    written = [p for p in (run / "report").rglob("*")
               if p.is_file() and p.stat().st_mtime_ns >= started]
    assert {"fig4-recall-by-bin.png", "fig6-split-half.png"} <= {p.name for p in written}
    figures = sum(p.suffix == ".png" for p in written)
    assert rows["report/"].startswith(f"{len(written)} files ({figures} figures), ")
    assert "manifest.json" not in rows and "test.txt" not in rows  # the run's, not written
