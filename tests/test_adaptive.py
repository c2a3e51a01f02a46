"""``committee score --adaptive`` and ``committee.adaptive_score``: the
estimate from every sentence is the full test's, runs are seeded, only the
drawn sentences are read or segmented, the intervals cover on systems that
follow the model and on one that does not, and errors are one line
(docs/method.md §16)."""

from __future__ import annotations

import json
import shlex
import sys

import numpy as np
import pytest

import committee
from committee import corpus as corpus_mod
from committee.cli import main
from committee.metrics import estimators, itemresponse
from committee.pipeline import difficulty as difficulty_mod
from committee.scoring import adaptive, adaptive_run
from committee.scoring.adaptive_sources import MemorySource, OutputSentences
from committee.tasks.units.words import perturb
from test_irt_run import make_run

KEYS = ("p", "r", "f1", "pb", "rb", "fb")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A simulated run (60 sentences, 40 members from a 2PL) with its
    ``test.weight`` and IRT items, and two outputs: the gold perturbed at 5%
    and at 20%."""
    d = tmp_path_factory.mktemp("adaptive")
    marks, test = make_run(d)
    difficulty_mod.write_weight(d / "test.weight", test, difficulty_mod.difficulties(marks)[0])
    assert main(["irt", str(d), "--no-export"]) == 0
    for rate in (0.05, 0.2):
        corpus_mod.write_sighan(d / f"p{int(rate * 100)}.txt", perturb(test.words, rate, 1))
    return d


@pytest.fixture(scope="module")
def bank(run):
    return adaptive_run.load_bank(run / "test.txt", run)


def test_every_sentence_gives_the_full_test_scores_exactly(run):
    for name in ("p5.txt", "p20.txt"):
        full = committee.score(run / "test.txt", run / name, difficulty=run)
        got = committee.adaptive_score(run / "test.txt", run / name, run, target=1e-9)
        assert got["sentences_used"] == 60 and got["stopped_by"] == "target"
        for k in KEYS:
            e = got["estimates"][k]
            assert e["value"] == full[k] and e["low"] == e["high"] == full[k], k
        assert got["estimates"]["theta"]["se"] > 0


def test_the_worked_example_of_the_method():
    # docs/method.md §16: predictions 8, 9, 15, 18; draws of sentences 3 and 4 (q 0.3, 0.4)
    base = np.array([50.0, 0, 0, 0])
    z = estimators.draw_totals(base, np.array([[12.0 - 15, 0, 0, 0], [18.0 - 18, 0, 0, 0]]),
                               np.array([0.3, 0.4]))
    assert z[:, 0].tolist() == pytest.approx([40.0, 50.0])
    mean, cov = estimators.combine(z)
    assert mean[0] == pytest.approx(45.0) and cov[0, 0] == pytest.approx(25.0)
    iv = estimators.intervals({"n_gold": 60.0, "gold_d": 6.0}, mean, cov, ("r",))["r"]
    assert iv["value"] == pytest.approx(0.75)
    assert (round(iv["low"], 3), round(iv["high"], 3)) == (0.587, 0.913)
    observed = np.array([[12.0, 0, 16.0, 0], [18.0, 0, 20.0, 0]])
    assert estimators.ratios(observed, np.array([[20.0, 0], [20.0, 0]]))[0] == pytest.approx(0.6)


def test_seeded_runs_are_byte_identical(run, tmp_path, capsys):
    args = ["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
            "--max-sentences", "30", "--json", str(run / "p5.txt"), str(run / "p20.txt")]
    outs = []
    for seed, where in (("7", "a"), ("7", "b"), ("8", "c")):
        assert main([*args, "--seed", seed, "-o", str(tmp_path / f"{where}.tsv")]) == 0
        outs.append((capsys.readouterr().out, (tmp_path / f"{where}.tsv").read_bytes()))
    assert outs[0] == outs[1] and outs[0][0] != outs[2][0]
    systems = json.loads(outs[0][0])["systems"]
    assert [s["name"] for s in systems] == ["p5", "p20"]
    for s in systems:
        assert s["sentences_used"] == 30 and s["stopped_by"] == "max-sentences"
        assert set(s["estimates"]) == {*KEYS, "theta"}
        for k in KEYS:
            e = s["estimates"][k]
            assert 0 <= e["low"] <= e["value"] <= e["high"] <= 1
        rows = [r.split("\t") for r in outs[0][1].decode().splitlines()[1:] if r.startswith(s["name"] + "\t")]
        assert len(rows) == s["draws"] == len(s["drawn"])
        assert len({r[2] for r in rows}) == 30 and all(0 < float(r[5]) <= 1 for r in rows)


def test_an_output_is_read_only_at_the_drawn_sentences(run, bank, tmp_path, capsys):
    got = committee.adaptive_score(run / "test.txt", run / "p20.txt", run, max_sentences=20,
                                   seed=3)
    drawn = sorted({d["sentence"] for d in got["drawn"]})
    lines = (run / "p20.txt").read_text(encoding="utf-8").splitlines()
    # every other line would be an error if read: a control character, other characters
    garbled = [ln if i + 1 in drawn else ("\x01 乱码" if i % 2 else "乱 码")
               for i, ln in enumerate(lines)]
    (tmp_path / "garbled.txt").write_text("\n".join(garbled) + "\n", encoding="utf-8")
    again = committee.adaptive_score(run / "test.txt", tmp_path / "garbled.txt", run,
                                     max_sentences=20, seed=3)
    assert again["estimates"] == got["estimates"] and again["drawn"] == got["drawn"]
    source = OutputSentences(tmp_path / "garbled.txt", bank.gold)
    adaptive.administer(bank, source, adaptive.Settings(max_sentences=20, seed=3))
    assert sorted(source.parsed) == drawn


def test_a_segmenter_is_given_the_drawn_sentences_only(run, tmp_path, capsys):
    log = tmp_path / "sent.txt"
    script = ("import sys\nfor line in sys.stdin:\n"
              f"    open({str(log)!r}, 'a', encoding='utf-8').write(line)\n"
              "    print(' '.join(line.strip()))\n")
    (tmp_path / "chars.py").write_text(script, encoding="utf-8")
    cmd = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'chars.py'))}"
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 "--with", cmd, "--max-sentences", "20", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["systems"][0]
    test = corpus_mod.read_corpus(run / "test.txt")
    sent = log.read_text(encoding="utf-8").splitlines()
    assert sorted(sent) == sorted(test.text(d["sentence"] - 1) for d in
                                  {d["sentence"]: d for d in s["drawn"]}.values())
    assert len(sent) == s["sentences_used"] == 20


def _outcome_words(words: list[list[str]], right: np.ndarray) -> list[list[str]]:
    """A segmentation that gets the gold words of ``right`` and misses the
    others: a wrong word is split into characters, a wrong one-character
    word joined to the next word of its sentence."""
    out, k = [], 0
    for sentence in words:
        got = []
        for j, w in enumerate(sentence):
            if right[k] or (len(w) == 1 and j + 1 == len(sentence)):
                got.append(w)
            elif len(w) > 1:
                got.extend(w)
            else:
                got.append(w + "\0")  # joined below
            k += 1
        joined = []
        for w in got:
            if joined and joined[-1].endswith("\0"):
                joined[-1] = joined[-1][:-1] + w
            else:
                joined.append(w)
        out.append(joined)
    return out


def _coverage(bank, words, seeds, max_sentences=30, predictor="model") -> dict:
    """Share of seeds whose f1 and fb intervals hold the full test's values,
    and the mean error of the estimates."""
    gold = bank.gold
    full = committee.score(gold, words, difficulty=np.asarray(bank.d))
    hits = {"f1": 0, "fb": 0}
    errors = {"f1": [], "fb": []}
    for seed in seeds:
        out = adaptive.administer(bank, MemorySource(words, gold),
                                  adaptive.Settings(max_sentences=max_sentences, seed=seed,
                                                    predictor=predictor))
        for k in hits:
            e = out["estimates"][k]
            hits[k] += e["low"] <= full[k] <= e["high"]
            errors[k].append(e["value"] - full[k])
    return {k: hits[k] / len(seeds) for k in hits} | {
        f"bias_{k}": float(np.mean(v)) for k, v in errors.items()}


@pytest.mark.parametrize("theta", [-0.5, 1.0])
def test_intervals_cover_a_system_that_follows_the_model(bank, theta):
    rng = np.random.default_rng(11)
    right = rng.random(bank.d.shape[0]) < itemresponse.probability([theta], bank.a, bank.b)[0]
    cov = _coverage(bank, _outcome_words(bank.gold.words, right), range(40))
    assert cov["f1"] >= 0.85 and cov["fb"] >= 0.85, cov
    assert abs(cov["bias_f1"]) < 0.01 and abs(cov["bias_fb"]) < 0.01, cov


def test_intervals_cover_a_system_the_model_does_not_describe(bank):
    # splits every word of four characters, whatever its difficulty
    words = [[c for w in s for c in (w if len(w) == 4 else [w])] for s in bank.gold.words]
    cov = _coverage(bank, words, range(80))
    assert cov["f1"] >= 0.85 and cov["fb"] >= 0.85, cov
    assert abs(cov["bias_f1"]) < 0.01 and abs(cov["bias_fb"]) < 0.01, cov


def test_too_few_members_is_one_line(tmp_path, capsys):
    marks, test = make_run(tmp_path, k=3)
    difficulty_mod.write_weight(tmp_path / "test.weight", test,
                                difficulty_mod.difficulties(marks)[0])
    assert main(["score", "--adaptive", "--gold", str(tmp_path / "test.txt"), "--difficulty",
                 str(tmp_path), str(tmp_path / "test.txt")]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (f"committee: error: {tmp_path / 'marks.npz'}: 3 members are too few "
                       "for an IRT fit (at least 5 for the 1PL model, 12 for the 2PL): train "
                       "a larger committee")


def test_an_output_that_does_not_align_at_a_drawn_sentence(run, tmp_path, capsys):
    got = committee.adaptive_score(run / "test.txt", run / "p5.txt", run, max_sentences=10,
                                   seed=5)
    first = min(d["sentence"] for d in got["drawn"])
    lines = (run / "p5.txt").read_text(encoding="utf-8").splitlines()
    wrong = lines[first - 1]
    lines[first - 1] = "错" + wrong[1:]
    (tmp_path / "bad.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 "--max-sentences", "10", "--seed", "5", str(tmp_path / "bad.txt")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"committee: error: {tmp_path / 'bad.txt'}:{first}: characters differ from "
                   f"{run / 'test.txt'}:{first} at character 1: the output has '错' where the "
                   f"gold has {wrong[0]!r} (the sentence drawn by --adaptive)"]
    (tmp_path / "short.txt").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 str(tmp_path / "short.txt")]) == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {tmp_path / 'short.txt'}: has 59 lines, gold {run / 'test.txt'} "
        "has 60: every output needs one line per gold line, in the same order")


@pytest.mark.parametrize("argv, message", [
    (["--target", "0"], "--target: 0 points: the width of the interval that stops the test "
                        "must be above 0"),
    (["--bootstrap", "100"], "--adaptive estimates p, r, f1, pb, rb, fb and theta with their "
                             "intervals: it takes no --bootstrap"),
])
def test_usage_errors_are_one_line(run, capsys, argv, message):
    assert main(["score", "--adaptive", "--gold", str(run / "test.txt"), "--irt", str(run),
                 *argv, str(run / "p5.txt")]) == 2
    assert capsys.readouterr().err == (f"committee: error: {message} (see 'committee score "
                                       "--help')\n")


def test_adaptive_options_need_adaptive(run, capsys):
    assert main(["score", "--gold", str(run / "test.txt"), "--batch", "5",
                 str(run / "p5.txt")]) == 2
    assert "--batch is an option of --adaptive" in capsys.readouterr().err


def test_a_run_without_items_gets_them_first(run, tmp_path, capsys):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "items.tsv").unlink()
    bank = adaptive_run.load_bank(copy / "test.txt", copy)
    assert "no IRT items yet" in capsys.readouterr().err
    assert (copy / "items.tsv").read_bytes() == (run / "items.tsv").read_bytes()
    assert bank.a.shape == (corpus_mod.read_corpus(run / "test.txt").n_words(),)


def _tiny_bank():
    """Three sentences of 1, 4 and 9 one-character words, every word of
    difficulty 0.5, items a = 1, b = 0."""
    from committee.corpus import Corpus

    words = [["一"], ["二"] * 4, ["三"] * 9]
    gold = Corpus("<tiny>", words, [1, 2, 3])
    return adaptive.make_bank(gold, np.full(14, 0.5), np.ones(14), np.zeros(14)), words


def test_the_variance_design_draws_by_the_hand_computed_probabilities():
    # metric p = c / n': before any sentence κ = 1, so a right word adds
    # ∂p/∂c = 1 / N to p whatever P is; each sentence's spread is
    # sqrt(Σ (1/N)²) ∝ sqrt(n_s) = 1, 2, 3, and with the floor 0.2 over 3
    # sentences q = 0.8 · (1, 2, 3) / 6 + 0.2 / 3 = 0.2, 1/3, 7/15
    bank, words = _tiny_bank()
    out = adaptive.administer(bank, MemorySource(words, bank.gold), adaptive.Settings(
        metric="p", batch=2, max_sentences=1, seed=0))
    q = {d.sentence: d.probability for d in out["record"]}
    expected = {0: 0.2, 1: 1 / 3, 2: 7 / 15}
    assert q and all(q[s] == pytest.approx(expected[s], abs=1e-12) for s in q)
    # the first design: information a² P (1 − P) = 1/4 a word, ∝ 1, 4, 9
    out = adaptive.administer(bank, MemorySource(words, bank.gold), adaptive.Settings(
        metric="p", batch=2, max_sentences=1, seed=0, design="information"))
    expected = {0: 0.8 / 14 + 0.2 / 3, 1: 3.2 / 14 + 0.2 / 3, 2: 7.2 / 14 + 0.2 / 3}
    assert all(d.probability == pytest.approx(expected[d.sentence], abs=1e-12)
               for d in out["record"])


def test_word_weights_and_spread_by_hand():
    # p = c / n' at c = 6, n' = 8: ∂p/∂c = 1/8, ∂p/∂n' = −6/64; κ = 0.5:
    # a right word adds 1/8 − 0.5 · 6/64 = 0.078125 whatever its d
    _, g = estimators.gradient({"n_gold": 10, "gold_d": 3.0},
                               np.array([6.0, 2.0, 8.0, 3.0]), "p")
    w = estimators.word_weights(g, np.array([0.0, 1.0, 0.3]), (0.5, 2.0))
    assert w == pytest.approx([0.078125] * 3, abs=1e-9)
    assert estimators.spread(w, np.array([0, 1, 1]), 2) == pytest.approx(
        [0.078125, 0.078125 * np.sqrt(2)], abs=1e-9)


def test_the_calibration_fit_is_weighted_by_the_inverse_probabilities():
    gold = np.array([[2.0, 1.0], [4.0, 1.0]])
    observed = np.array([[1.0, 0, 1, 0], [4.0, 0, 4, 0]])
    seen = np.arange(2)
    plain = estimators.calibrate(gold[:, [0, 1, 0, 1]], gold, seen, observed, with_model=False)
    weighted = estimators.calibrate(gold[:, [0, 1, 0, 1]], gold, seen, observed,
                                    with_model=False, weights=np.array([1.0, 3.0]))
    assert plain[0, 0] == pytest.approx(2 * 5 / 6)  # Σ y / Σ x = 5 / 6
    assert weighted[0, 0] == pytest.approx(2 * 13 / 14)  # (1 + 3·4) / (2 + 3·4)


def test_theta_kept_batch_by_batch_is_the_ability_of_every_administered_word(bank, run):
    words = corpus_mod.read_corpus(run / "p20.txt").words
    out = adaptive.administer(bank, MemorySource(words, bank.gold),
                              adaptive.Settings(max_sentences=25, seed=4))
    done = np.array(sorted({d.sentence for d in out["record"]}))
    units = adaptive.units_of(bank, done)
    assert units.tolist() == np.flatnonzero(np.isin(bank.unit_sentence, done)).tolist()
    _, ok = adaptive.observe(bank, done, [words[i] for i in done])
    theta, se = itemresponse.ability(ok, bank.a, bank.b, items=units)
    assert out["estimates"]["theta"]["value"] == pytest.approx(theta, abs=1e-8)
    assert out["estimates"]["theta"]["se"] == pytest.approx(se, abs=1e-8)


def test_the_interval_takes_students_t_of_the_draws(bank, run):
    words = corpus_mod.read_corpus(run / "p20.txt").words
    got = {}
    for quantile in ("t", "normal"):
        got[quantile] = adaptive.administer(bank, MemorySource(words, bank.gold),
                                            adaptive.Settings(max_sentences=12, seed=2,
                                                              quantile=quantile))
    t, normal = got["t"]["estimates"]["f1"], got["normal"]["estimates"]["f1"]
    assert t["value"] == normal["value"] and 0 < t["low"] and t["high"] < 1
    ratio = (t["high"] - t["low"]) / (normal["high"] - normal["low"])
    assert ratio == pytest.approx(estimators.quantile(got["t"]["draws"] - 1) / estimators.Z95)
    assert ratio > 1.05


@pytest.mark.parametrize("design, predictor", [("information", "model"), ("variance", "ratio"),
                                               ("variance", "lengths")])
def test_every_sentence_gives_the_full_test_scores_with_every_design(bank, run, design,
                                                                    predictor):
    words = corpus_mod.read_corpus(run / "p5.txt").words
    full = committee.score(bank.gold, words, difficulty=np.asarray(bank.d))
    out = adaptive.administer(bank, MemorySource(words, bank.gold),
                              adaptive.Settings(target=1e-9, design=design, predictor=predictor))
    assert out["sentences_used"] == bank.n_sentences
    for k in KEYS:
        e = out["estimates"][k]
        assert e["value"] == full[k] and e["low"] == e["high"] == full[k], k


@pytest.mark.parametrize("predictor", ["model", "lengths"])
def test_intervals_cover_gold_with_errors_at_random(bank, predictor):
    # split and merged words at random: errors that ignore the items
    cov = _coverage(bank, perturb(bank.gold.words, 0.1, 3), range(60), predictor=predictor)
    assert cov["f1"] >= 0.85 and cov["fb"] >= 0.85, cov
    assert abs(cov["bias_f1"]) < 0.01 and abs(cov["bias_fb"]) < 0.01, cov
