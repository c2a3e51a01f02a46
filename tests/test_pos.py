"""Part of speech (``task: pos``, docs/method.md §14): scoring outputs
(its committees: tests/test_pos_members.py).

Oracles: scikit-learn's ``accuracy_score`` and ``classification_report`` on
outputs that keep the gold segmentation; hand counts of exact (start, end,
tag) matches, and §5's formulas written out over those matches, on outputs
with their own segmentation.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import committee
from committee import corpus as corpus_mod
from committee.cli import main
from committee.corpus import Corpus
from committee.errors import InputError, PlausibilityWarning
from committee.scoring import Scorer
from toyrun import embedded

sklearn_metrics = pytest.importorskip("sklearn.metrics",
                                      reason="scikit-learn (the test extra) is the oracle")

TAGSET = ["n", "v", "a", "d", "m", "q", "t", "w", "nr", "ns", "nt", "vn", "u", "p", "r", "c"]


def _pku(words, tags) -> str:
    return "".join("  ".join(f"{w}/{t}" for w, t in zip(ws, ts)) + "\n"
                   for ws, ts in zip(words, tags))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _score_json(argv, capsys) -> dict:
    assert main(["score", "--task", "pos", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def pd_sample():
    """300 sentences of the embedded People's Daily with their tags."""
    full = embedded("test")
    return [s for s in full.words[:300]], [s for s in full.pos[:300]]


def test_on_the_gold_segmentation_p_r_f1_are_sklearns_accuracy_and_report(pd_sample, tmp_path,
                                                                           capsys):
    words, gold_tags = pd_sample
    rng = random.Random(3)
    pred_tags = [[t if rng.random() > 0.15 else rng.choice(TAGSET) for t in ts] for ts in gold_tags]
    gold = _write(tmp_path / "gold.txt", _pku(words, gold_tags))
    out = _write(tmp_path / "out.txt", _pku(words, pred_tags))
    system = _score_json(["--gold", str(gold), "--buckets=tag", str(out)], capsys)["systems"][0]
    y_true = [t for ts in gold_tags for t in ts]
    y_pred = [t for ts in pred_tags for t in ts]
    accuracy = sklearn_metrics.accuracy_score(y_true, y_pred)
    assert 0.8 < accuracy < 0.9  # the oracle is not trivially 1
    for key in ("p", "r", "f1"):
        assert abs(system[key] - accuracy) < 1e-9
    report = sklearn_metrics.classification_report(y_true, y_pred, output_dict=True,
                                                   zero_division=0)
    rows = system["buckets"]["tag"]
    assert {r["bucket"] for r in rows} == set(y_true) | set(y_pred)
    for row in rows:
        want = report[row["bucket"]]
        assert row["gold_words"] == want["support"]
        if row["gold_words"]:
            assert abs(row["recall"] - want["recall"]) < 1e-9
        if row["pred_words"]:
            assert abs(row["precision"] - want["precision"]) < 1e-9
        if row["gold_words"] and row["pred_words"] and row["correct"]:
            assert abs(row["f1"] - want["f1-score"]) < 1e-9


def _balanced(gold_units, pred_units, d):
    """§5 written out: the units as (sentence, start, end, tag) sets; d'_j
    is the d of the gold unit holding the last character of unit j."""
    correct = [u in set(pred_units) for u in gold_units]
    d_of_char = {}
    for u, du in zip(gold_units, d):
        for c in range(u[1], u[2]):
            d_of_char[(u[0], c)] = du
    d_pred = [d_of_char[(u[0], u[2] - 1)] for u in pred_units]

    def h(a, b):
        return 0.0 if a + b == 0 else 2 * a * b / (a + b)

    r_rew = sum(di for di, m in zip(d, correct) if m) / sum(d)
    r_pun = sum(1 - di for di, m in zip(d, correct) if m) / sum(1 - di for di in d)
    p_rew = sum(di for di, m in zip(d, correct) if m) / sum(d_pred)
    p_pun = sum(1 - di for di, m in zip(d, correct) if m) / sum(1 - dj for dj in d_pred)
    rb, pb = h(r_rew, r_pun), h(p_rew, p_pun)
    return pb, rb, h(pb, rb)


def _units(words, tags):
    out = []
    for i, (ws, ts) in enumerate(zip(words, tags)):
        start = 0
        for w, t in zip(ws, ts):
            out.append((i, start, start + len(w), t))
            start += len(w)
    return out


def test_a_resegmented_output_is_scored_by_exact_span_and_tag(tmp_path, capsys):
    gold_words = [["迈向", "充满", "希望", "的", "新", "世纪"], ["江", "泽民", "在", "北京"]]
    gold_tags = [["v", "v", "n", "u", "a", "n"], ["nr", "nr", "p", "ns"]]
    # 迈向/v 充满/v right; 希望的/n merges two words; 新/a right; 世纪/v wrong tag;
    # 江泽民/nr merges; 在/p right; 北/ns 京/ns split
    pred_words = [["迈向", "充满", "希望的", "新", "世纪"], ["江泽民", "在", "北", "京"]]
    pred_tags = [["v", "v", "n", "a", "v"], ["nr", "p", "ns", "ns"]]
    d = [0.0, 0.25, 0.5, 0.75, 0.1, 1.0, 0.2, 0.4, 0.6, 0.8]
    gold = _write(tmp_path / "gold.txt", _pku(gold_words, gold_tags))
    out = _write(tmp_path / "out.txt", _pku(pred_words, pred_tags))
    weight = _write(tmp_path / "gold.weight", "0 0.25 0.5 0.75 0.1 1\n0.2 0.4 0.6 0.8\n")
    system = _score_json(["--gold", str(gold), "--difficulty", str(weight), str(out)],
                         capsys)["systems"][0]
    # by hand: 4 correct (迈向 充满 新 在) of 10 gold and 9 predicted units
    assert (system["p"], system["r"]) == (4 / 9, 4 / 10)
    assert system["error_types"] == {"correct": 4, "wrong_tag": 1, "wrong_boundary": 5,
                                     "missed": 0, "spurious": 0}
    pb, rb, fb = _balanced(_units(gold_words, gold_tags), _units(pred_words, pred_tags), d)
    assert abs(system["pb"] - pb) < 1e-12 and abs(system["rb"] - rb) < 1e-12
    assert abs(system["fb"] - fb) < 1e-12
    # the same through the API, with the difficulties in memory
    from committee.errors import Note

    with pytest.warns(Note, match="its words differ from the gold's in 2 of 2 sentences"):
        s = committee.score(str(gold), str(out), difficulty=[d[:6], d[6:]], task="pos",
                            format="pku")
    assert (s.p, s.r, s.fb) == (system["p"], system["r"], system["fb"])
    assert s.signature.match == "exact-tag"


def test_a_perfect_output_scores_one_and_segmentation_ignores_tags(tmp_path):
    words = [["迈向", "充满", "希望"], ["新", "世纪"]]
    tags = [["v", "v", "n"], ["a", "n"]]
    gold = Corpus("gold", words, [1, 2], pos=tags, format="pku")
    with pytest.warns(PlausibilityWarning, match="same words as the gold"):
        s = Scorer(gold, difficulty=[[0.2, 0.5, 1.0], [0.0, 0.4]], task="pos").score(gold)
    assert (s.p, s.r, s.f1, s.pb, s.rb, s.fb) == (1.0,) * 6
    wrong = Corpus("out", words, [1, 2], pos=[["n", "v", "n"], ["a", "v"]], format="pku")
    assert Scorer(gold, task="pos").score(wrong).p == 3 / 5
    with pytest.warns(PlausibilityWarning, match="same words as the gold"):
        assert Scorer(gold).score(wrong).p == 1.0  # segmentation: the same words


def test_peoples_daily_ids_are_dropped_and_compounds_keep_inner_tags(tmp_path, capsys):
    gold = _write(tmp_path / "gold.txt",
                  "19980101-01-001-001/m  [中央/n  人民/n  广播/vn  电台/n]nt  讲话/v\n"
                  "19980101-01-001-002/m  一心一意/i\n")
    out = _write(tmp_path / "out.txt", "中央/n  人民/n  广播/n  电台/n  讲话/v\n一心一意/l\n")
    system = _score_json(["--gold", str(gold), "--buckets=tag", str(out)], capsys)["systems"][0]
    assert system["p"] == system["r"] == 4 / 6
    rows = {r["bucket"]: r for r in system["buckets"]["tag"]}
    assert rows["vn"]["gold_words"] == 1 and rows["vn"]["correct"] == 0
    assert "nt" not in rows and "m" not in rows  # the compound's tag and the ids are no units


CONLLU = ("# sent_id = 1\n"
          "1\t我\t我\tPRON\tr\t_\t2\tnsubj\t_\t_\n"
          "2\t爱\t爱\tVERB\tv\t_\t0\troot\t_\t_\n"
          "3-4\t北京市\t_\t_\t_\t_\t_\t_\t_\t_\n"
          "3\t北京\t北京\tPROPN\tns\t_\t2\tobj\t_\t_\n"
          "4\t市\t市\tNOUN\tn\t_\t3\tflat\t_\t_\n\n")


def test_conllu_upos_by_default_xpos_selectable_and_underscore(tmp_path, capsys):
    gold = _write(tmp_path / "gold.conllu", CONLLU)
    upos = _write(tmp_path / "upos.txt", "我_PRON 爱_VERB 北京_NOUN 市_NOUN\n")
    xpos = _write(tmp_path / "xpos.txt", "我/r 爱/v 北京/ns 市/v\n")
    got = _score_json(["--gold", str(gold), "--gold-format", "conllu", "--format", "underscore",
                       str(upos)], capsys)["systems"][0]
    assert got["p"] == 3 / 4
    got = _score_json(["--gold", str(gold), "--gold-format", "conllu-xpos", "--format", "pku",
                       str(xpos)], capsys)["systems"][0]
    assert got["p"] == 3 / 4
    assert corpus_mod.read_corpus(gold, format="conllu-xpos").pos == [["r", "v", "ns", "n"]]


@pytest.mark.parametrize("fmt,text,line,message", [
    ("pku", "迈向/v  充满/v\n希望/n  的\n", 2, "token '的' has no '/' (expected word/POS)"),
    ("underscore", "迈向_v 充满_v\n希望_n 的\n", 2, "token '的' has no '_' (expected word_TAG)"),
    ("underscore", "迈向_v 充满_\n", 1, "token '充满_' has an empty tag (expected word_TAG)"),
    # CoNLL-U: the line of the word's sentence (its first line)
    ("conllu", CONLLU + CONLLU.replace("PROPN", "_").replace("sent_id = 1", "sent_id = 2"), 8,
     "word 3 '北京' has no tag ('_'): task pos needs a tag for every word"),
])
def test_a_word_without_a_tag_is_refused_naming_its_line(tmp_path, fmt, text, line, message):
    gold = _write(tmp_path / "gold.txt", text)
    with pytest.raises(InputError) as e:
        Scorer(str(gold), task="pos", format=fmt)
    assert str(e.value) == f"{gold}:{line}: {message}"


def test_the_wrong_task_is_named_in_one_line(tmp_path, capsys):
    tagged = _write(tmp_path / "tagged.txt", "迈向/v  充满/v  希望/n\n")
    plain = _write(tmp_path / "plain.txt", "迈向 充满 希望\n")
    assert main(["score", "--gold", str(tagged), str(plain)]) == 3
    err = capsys.readouterr().err
    assert err == (f"committee: error: {tagged}:1: looks like pku (word/POS tokens), read as "
                   "sighan: set --gold-format pku to score its words, or --task pos to score "
                   "its tags\n")
    assert main(["score", "--task", "pos", "--gold", str(tagged), str(plain)]) == 3
    err = capsys.readouterr().err
    assert err == (f"committee: error: {plain}:1: looks like sighan (several words a line, "
                   "separated by spaces), read as pku: its words carry no part-of-speech tags: "
                   "score them with --task segmentation\n")
    with pytest.raises(InputError, match=r"^<gold>: has no part-of-speech tags \(read as "
                                         r"sighan\): .*score its words with task='segmentation'$"):
        committee.score(["迈向 充满"], ["迈向 充满"], task="pos")


def test_a_resegmented_output_gets_a_note_and_unknown_tags_a_warning(tmp_path, capsys):
    from committee.cli import main

    gold = tmp_path / "gold.txt"
    gold.write_text("我/r 爱/v 北京/ns\n好/a\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text("我爱/v 北京/NS\n好/a\n", encoding="utf-8")
    assert main(["score", "--task", "pos", "--gold", str(gold), "--json", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"committee: note: {out}: its words differ from the gold's in 1 of 2 sentences: scored "
        "jointly (a word is right when its span and its tag are)",
        f"committee: warning: {out}: 1 tag the gold never uses, so never right: NS (1)"]
    same = tmp_path / "same.txt"
    same.write_text("我/r 爱/r 北京/ns\n好/a\n", encoding="utf-8")  # one tag wrong
    assert main(["score", "--task", "pos", "--gold", str(gold), "--json", str(same)]) == 0
    assert capsys.readouterr().err == ""  # the gold's words, known tags: nothing to say
