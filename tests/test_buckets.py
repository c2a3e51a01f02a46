"""Results by word attribute (``committee score --buckets``): every
attribute's bucket counts, recall and precision against counts made by
hand, rb of some buckets by hand, intervals, and the errors."""

import json
import warnings

import pandas as pd
import pytest

from committee.cli import main
from committee.errors import Note
from committee.metrics.buckets import KEYS
from committee.scoring import Scorer

TRAIN = "北京 大学 很 大\n我 爱 北京\n北京大学 在 北京\n我 在 北京 大学\n"
GOLD = "我 爱 北京大学\n约翰 在 北京 工作\n北京 大学 的 学生 都 喜欢 在 图书馆 学习\n"
OUT = "我爱 北京大学\n约 翰 在 北京 工作\n北京大学 的 学生 都 喜欢 在 图 书馆 学习\n"
WEIGHT = "0.0 0.1 0.5\n0.9 0.2 0.3 0.4\n0.6 0.7 0.0 0.1 0.2 0.3 0.8 1.0 0.45\n"

# By hand.  Gold words (d, right or wrong):
#   S1 (6 chars): 我 .0 ✗, 爱 .1 ✗, 北京大学 .5 ✓
#   S2 (7 chars): 约翰 .9 ✗, 在 .2 ✓, 北京 .3 ✓, 工作 .4 ✓
#   S3 (16 chars): 北京 .6 ✗, 大学 .7 ✗, 的 .0 ✓, 学生 .1 ✓, 都 .2 ✓, 喜欢 .3 ✓,
#                  在 .8 ✓, 图书馆 1.0 ✗, 学习 .45 ✓
# Predicted words: 我爱 ✗ 北京大学 ✓ | 约 ✗ 翰 ✗ 在 北京 工作 ✓ |
#                  北京大学 ✗ 的 学生 都 喜欢 在 ✓ 图 ✗ 书馆 ✗ 学习 ✓
# Training words: 北京 4, 大学 2, 我 2, 在 2, 很 1, 大 1, 爱 1, 北京大学 1.
# Places where the characters occur in the training text: 北京 5, 大学 3,
# 北京大学 3, 我 2, 在 2, 爱 1, 我爱 1; so the
# consistency of 北京 is 4/5, 大学 2/3, 北京大学 1/3, 我 爱 在 1, 我爱 0;
# 约翰 工作 的 学生 都 喜欢 图书馆 学习 约 翰 图 书馆 are unseen.
#: attr -> [(bucket, gold words, predicted words or None, correct)]
EXPECTED = {
    "length": [("1", 6, 7, 4), ("2", 8, 7, 5), ("3", 1, 0, 0), ("4+", 1, 2, 1)],
    "oov": [("IV", 8, 5, 4), ("OOV", 8, 11, 6)],
    "frequency": [("0", 8, 11, 6), ("1", 2, 2, 1), ("2-4", 6, 3, 3), ("5-19", 0, 0, 0),
                  ("20+", 0, 0, 0)],
    "consistency": [("unseen", 8, 10, 6), ("[0,.5)", 1, 3, 1), ("[.5,.9)", 3, 1, 1),
                    ("[.9,1]", 4, 2, 2)],
    "sentence": [("1-15", 7, 7, 4), ("16-30", 9, 9, 6), ("31-50", 0, 0, 0),
                 ("51-80", 0, 0, 0), ("81+", 0, 0, 0)],
    "difficulty": [("[0,.2)", 4, None, 2), ("[.2,.4)", 4, None, 4), ("[.4,.6)", 3, None, 3),
                   ("[.6,.8)", 2, None, 0), ("[.8,1]", 3, None, 1)],
}


def _h(a, b):
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


#: rb by hand: (attr, bucket) -> H(Σ d m / Σ d, Σ (1-d) m / Σ (1-d)).
RB = {
    # 我 .0 ✗, 爱 .1 ✗, 在 .2 ✓, 的 .0 ✓, 都 .2 ✓, 在 .8 ✓
    ("length", "1"): _h(1.2 / 1.3, 2.8 / 4.7),
    # 约翰 .9 ✗, 北京 .3 ✓, 工作 .4 ✓, 北京 .6 ✗, 大学 .7 ✗, 学生 .1 ✓, 喜欢 .3 ✓, 学习 .45 ✓
    ("length", "2"): _h(1.55 / 3.75, 3.45 / 4.25),
    ("length", "3"): None,  # 图书馆 1.0 ✗: Σ (1-d) = 0, r_punishment and so rb undefined
    ("difficulty", "[.2,.4)"): 1.0,
    ("sentence", "1-15"): _h(1.4 / 2.4, 2.6 / 4.6),  # S1 and S2
}


@pytest.fixture
def files(tmp_path, monkeypatch):
    for name, text in (("train.txt", TRAIN), ("gold.txt", GOLD), ("out.txt", OUT),
                       ("gold.weight", WEIGHT)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


SCORE = ["score", "out.txt", "--gold", "gold.txt", "--train", "train.txt",
         "--difficulty", "gold.weight"]


def test_every_attribute_equals_the_hand_counts(files, capsys):
    assert main([*SCORE, "--buckets", "--json"]) == 0
    buckets = json.loads(capsys.readouterr().out)["systems"][0]["buckets"]
    assert list(buckets) == list(KEYS) == list(EXPECTED)
    for attr, rows in EXPECTED.items():
        got = [(b["bucket"], b["gold_words"], b["pred_words"], b["correct"])
               for b in buckets[attr]]
        assert got == rows, attr
        for b, (_, gold, pred, correct) in zip(buckets[attr], rows):
            assert b["recall"] == (correct / gold if gold else None), (attr, b["bucket"])
            assert b["precision"] == (correct / pred if pred else None), (attr, b["bucket"])
            if gold and pred:
                assert b["f1"] == pytest.approx(2 * correct / (gold + pred), abs=1e-12)
            elif pred is None:
                assert b["f1"] is b["pb"] is b["fb"] is None
    for (attr, label), rb in RB.items():
        row = next(b for b in buckets[attr] if b["bucket"] == label)
        assert row["rb"] == (None if rb is None else pytest.approx(rb, abs=1e-12)), (attr, label)


def test_buckets_leave_the_rest_unchanged(files, capsys):
    assert main([*SCORE, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*SCORE, "--buckets=length", "--json"]) == 0
    with_buckets = json.loads(capsys.readouterr().out)
    assert list(with_buckets["systems"][0].pop("buckets")) == ["length"]
    assert with_buckets == plain


def test_the_text_table_has_one_table_per_attribute(files, capsys):
    assert main([*SCORE, "--buckets=length,difficulty"]) == 0
    out = capsys.readouterr().out
    assert "by length: word length in characters" in out
    # 4+: gold 北京大学 (d .5) right; predicted 北京大学 twice, once right, the
    # other's d' is that of 大学 (.7): p_reward = .5 / 1.2, p_punishment = .5 / .8,
    # pb = H(5/12, 5/8) = 1/2, fb = H(1/2, 1) = 2/3
    line = next(x for x in out.splitlines() if x.startswith("out     4+"))
    assert line.split() == ["out", "4+", "1", "100.00", "100.00", "50.00", "66.67", "50.00",
                            "66.67"]
    assert "by difficulty" in out and "by oov" not in out


def test_scores_buckets_is_a_frame_with_intervals(files):
    scorer = Scorer("gold.txt", difficulty="gold.weight", train_words="train.txt",
                    train_format="sighan", buckets=["oov", "length"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = scorer.score("out.txt", bootstrap=200, seed=3)
    frame = s.buckets
    assert isinstance(frame, pd.DataFrame)
    assert frame[["attr", "bucket", "gold_words"]].values.tolist() == [
        ["oov", "IV", 8], ["oov", "OOV", 8], ["length", "1", 6], ["length", "2", 8],
        ["length", "3", 1], ["length", "4+", 1]]
    for key in ("recall", "rb", "precision", "f1", "pb", "fb"):
        ok = frame[key].notna() & frame[f"{key}_low"].notna()
        assert ok.any()
        assert (frame.loc[ok, f"{key}_low"] <= frame.loc[ok, f"{key}_high"]).all()
    # intervals of the same resamples as the main bootstrap: a sentence-level
    # total (one bucket holding every word) has the main interval
    scorer = Scorer("gold.txt", buckets=["sentence"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = scorer.score("out.txt", bootstrap=200, seed=3)
    row = one.buckets.iloc[0]
    assert row["gold_words"] == 7
    data = one.to_dict()["buckets"]["sentence"]
    assert data[0]["ci"]["recall"] == [row["recall_low"], row["recall_high"]]


def test_defaulted_attributes_without_input_are_left_out_with_a_note(files):
    with pytest.warns(Note, match="oov left out.*frequency left out.*difficulty left out"):
        s = Scorer("gold.txt", buckets=True).score("out.txt")
    assert list(dict.fromkeys(s.buckets["attr"])) == ["length", "sentence"]


@pytest.mark.parametrize("argv, message", [
    (["--buckets=oov"], "--buckets: oov needs --train or --train-words"),
    (["--train-words", "train.txt", "--buckets=frequency"],
     "--buckets: frequency needs --train CORPUS"),
    (["--buckets=difficulty"], "--buckets: difficulty needs --difficulty"),
    (["--buckets=size"], "--buckets: unknown attribute 'size'"),
])
def test_an_attribute_asked_for_without_its_input_is_an_error(files, capsys, argv, message):
    assert main(["score", "out.txt", "--gold", "gold.txt", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_api_names_the_missing_input(files):
    with pytest.raises(ValueError, match="Scorer: buckets: consistency needs a training corpus"):
        Scorer("gold.txt", train_words=TRAIN.split(), buckets=["consistency"])
    with pytest.raises(ValueError, match="buckets"):
        Scorer("gold.txt", buckets=["nope"])


# -- frequency from a run's training words with their counts (train-words.tsv) ------------

#: The training words of TRAIN with their counts, by hand, as a run keeps them.
TRAIN_COUNTS = ("word\tcount\n大\t1\n大学\t2\n在\t2\n很\t1\n我\t2\n爱\t1\n北京\t4\n"
                "北京大学\t1\n")


def test_a_runs_word_counts_give_the_frequency_buckets(files, capsys):
    """The counts beside the difficulties (as in a run directory) stand for
    the training corpus: frequency equals the hand counts, with no --train."""
    from collections import Counter

    from committee.pipeline import runfiles

    words = Counter(w for line in TRAIN.splitlines() for w in line.split())
    text = runfiles.format_word_counts(words)
    assert sorted(text.splitlines()[1:]) == sorted(TRAIN_COUNTS.splitlines()[1:])
    (files / "train-words.tsv").write_text(text, encoding="utf-8")
    assert main(["score", "out.txt", "--gold", "gold.txt", "--difficulty", "gold.weight",
                 "--buckets=frequency", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["systems"][0]["buckets"]["frequency"]
    assert [(r["bucket"], r["gold_words"], r["pred_words"], r["correct"]) for r in rows] == (
        EXPECTED["frequency"])
    # every attribute asked for: consistency still needs the training text
    with pytest.warns(Note, match="oov left out.*consistency left out") as notes:
        s = Scorer("gold.txt", difficulty="gold.weight", buckets=True).score("out.txt")
    assert "frequency left out" not in str(notes[0].message)
    assert list(dict.fromkeys(s.buckets["attr"])) == ["length", "frequency", "sentence",
                                                      "difficulty"]


def test_frequency_without_counts_says_where_they_come_from(files, capsys):
    """Difficulties without counts beside them (a run made before runs kept
    train-words.tsv): frequency is refused, naming what would give it."""
    assert main(["score", "out.txt", "--gold", "gold.txt", "--difficulty", "gold.weight",
                 "--buckets=frequency"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("committee: error: --buckets: frequency needs --train CORPUS, or "
                          "--difficulty RUN of a run that keeps its training words' counts "
                          "(train-words.tsv;")
    with pytest.raises(ValueError, match="frequency needs the training words' counts"):
        Scorer("gold.txt", difficulty="gold.weight", buckets=["frequency"])


def test_counts_and_text_give_the_buckets_of_the_training_corpus(files):
    """A run's two files (counts and text) stand for the training corpus:
    every word's consistency by hand (the comment above EXPECTED) and every
    bucket equal to those of train_words."""
    from collections import Counter

    from committee.metrics.buckets import Bucketer
    from committee.pipeline import runfiles

    train = [line.split() for line in TRAIN.splitlines()]
    gold = [line.split() for line in GOLD.splitlines()]
    path = files / "train-text.txt"
    path.write_text(runfiles.format_train_text(train), encoding="utf-8")
    attrs = ("frequency", "consistency")
    kept = Bucketer(gold, attrs, counts=Counter(w for s in train for w in s),
                    text=runfiles.read_train_text(path))
    full = Bucketer(gold, attrs, train_words=train)
    assert [kept.share(w) for w in ("北京", "大学", "北京大学", "我", "我爱")] == [
        4 / 5, 2 / 3, 1 / 3, 1.0, 0.0]
    for attr in attrs:
        assert kept.word_buckets(attr, gold).tolist() == full.word_buckets(attr, gold).tolist()


@pytest.mark.parametrize("data, line, problem", [
    (b"\xe5\x8c\x97\n\xff\n", 2, "not valid UTF-8"),
    ("北京\n大\x01学\n".encode(), 2, "control character"),
    ("北京\n大学".encode(), 2, "no line end")])
def test_a_damaged_train_text_is_refused_at_its_line(tmp_path, data, line, problem):
    from committee.errors import InputError
    from committee.pipeline import runfiles

    path = tmp_path / "train-text.txt"
    path.write_bytes(data)
    with pytest.raises(InputError, match=problem) as err:
        runfiles.read_train_text(path)
    assert err.value.line == line


def test_a_toy_run_keeps_its_training_word_counts(tmp_path, capsys):
    """committee run writes train-words.tsv (each training word and how often
    it is one) and train-text.txt (the training text), records their
    checksums in the manifest, and `committee score --difficulty RUN
    --buckets=frequency,consistency` gives the buckets of --train."""
    from collections import Counter

    from committee import corpus as corpus_mod
    from committee.pipeline import layout
    from toyrun import make_toy_corpus, write_config

    make_toy_corpus(tmp_path)
    cfg = write_config(tmp_path / "toy.yaml", tmp_path, tmp_path / "run", backend="sequential")
    assert main(["run", str(cfg), "--quiet"]) == 0
    run = tmp_path / "run"
    train = corpus_mod.read_corpus(tmp_path / "train.txt")
    counts = Counter(w for s in train.words for w in s)
    lines = (run / "train-words.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "word\tcount"
    assert {w: int(n) for w, n in (line.split("\t") for line in lines[1:])} == counts
    assert "train-words.tsv" in layout.manifest_in(run)["files"]
    assert "train-text.txt" in layout.manifest_in(run)["files"]
    assert (run / "train-text.txt").read_text(encoding="utf-8") == "".join(
        "".join(s) + "\n" for s in train.words)
    capsys.readouterr()
    by = {}
    for source in (["--difficulty", str(run)], ["--difficulty", str(run), "--train",
                                                 str(tmp_path / "train.txt")]):
        assert main(["score", "--gold", str(run / "test.txt"), *source,
                     "--buckets=frequency,consistency", "--json", str(run / "test.txt")]) == 0
        by[len(source)] = json.loads(capsys.readouterr().out)["systems"][0]["buckets"]
    assert by[2] == by[4]
    gold_words = sum(map(len, corpus_mod.read_corpus(run / "test.txt").words))
    assert sum(r["gold_words"] for r in by[2]["consistency"]) == gold_words
    gold = corpus_mod.read_corpus(run / "test.txt").words
    edges = [(0, "0"), (1, "1"), (4, "2-4"), (19, "5-19"), (10**9, "20+")]
    hand = Counter(next(label for top, label in edges if counts[w] <= top)
                   for s in gold for w in s)
    assert {r["bucket"]: r["gold_words"] for r in by[2]["frequency"]} == {
        label: hand[label] for _, label in edges}
    # a changed file is refused against the manifest's checksum
    text = (run / "train-text.txt").read_text(encoding="utf-8")
    (run / "train-text.txt").write_text("北京\n" + text, encoding="utf-8")
    assert main(["score", "--gold", str(run / "test.txt"), "--difficulty", str(run),
                 "--buckets=consistency", str(run / "test.txt")]) == 3
    assert "train-text.txt" in capsys.readouterr().err
    (run / "train-text.txt").write_text(text, encoding="utf-8")
    (run / "train-words.tsv").write_text(lines[0] + "\n北京\t99\n", encoding="utf-8")
    assert main(["score", "--gold", str(run / "test.txt"), "--difficulty", str(run),
                 "--buckets=frequency", str(run / "test.txt")]) == 3
    assert "train-words.tsv" in capsys.readouterr().err
