"""Part-of-speech committees (``task: pos``, docs/method.md §14): word-level
members on the gold segmentation, their word templates, marks,
difficulties and files, a toy committee run end to end and its scores.

Oracles: attribute lists and difficulty files written out by hand; a
member's own score recomputed by ``committee score`` from its predicted
tags (``predictions.npz``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee import tasks
from committee.cli import main
from committee.config import load_config
from committee.corpus import Corpus
from committee.learners import features, members, trainers
from committee.learners.features import attributes, template_for
from committee.pipeline import dataset, difficulty, layout
from committee.pipeline import marks as marks_mod
from committee.pipeline.unitfiles import UnitFiles

sys.path.insert(0, str(Path(__file__).parent))
from toyrun import embedded, outputs  # noqa: E402

POS = tasks.PART_OF_SPEECH
ROOT = Path(__file__).resolve().parents[1]

# -- word templates, by hand ---------------------------------------------------

WORDS = ("中国", "人民", "好")

W1 = [
    ["<P>=W-1", "中国=W0", "人民=W1", "中=P0", "国=S0", "2=N0"],
    ["中国=W-1", "人民=W0", "好=W1", "人=P0", "民=S0", "2=N0"],
    ["人民=W-1", "好=W0", "<P>=W1", "好=P0", "好=S0", "1=N0"],
]
W2 = [
    ["<P>=W-2", "<P>=W-1", "中国=W0", "人民=W1", "好=W2", "<P> 中国=W-1:0", "中国 人民=W0:1",
     "中=P0", "国=S0", "2=N0"],
    ["<P>=W-2", "中国=W-1", "人民=W0", "好=W1", "<P>=W2", "中国 人民=W-1:0", "人民 好=W0:1",
     "人=P0", "民=S0", "2=N0"],
    ["中国=W-2", "人民=W-1", "好=W0", "<P>=W1", "<P>=W2", "人民 好=W-1:0", "好 <P>=W0:1",
     "好=P0", "好=S0", "1=N0"],
]
W3 = [
    W2[0] + ["中国=PP0", "中国=SS0", "<P>=S-1", "人=P1"],
    W2[1] + ["人民=PP0", "人民=SS0", "国=S-1", "好=P1"],
    W2[2] + ["好=PP0", "好=SS0", "民=S-1", "<P>=P1"],
]


@pytest.mark.parametrize("template, expected", [("W1", W1), ("W2", W2), ("W3", W3)])
def test_word_attributes_by_hand(template, expected):
    assert attributes(WORDS, template) == expected
    assert all(len(a) == features.n_attributes(template) for a in expected)


def test_long_words_unseen_words_affixes_and_length_cap():
    [a] = attributes(("图书馆里面",), "W3")
    assert a[7:] == ["图=P0", "面=S0", "4=N0", "图书=PP0", "里面=SS0", "<P>=S-1", "<P>=P1"]
    assert attributes((), "W1") == [] and attributes([], "W3") == []
    with pytest.raises(TypeError, match="sequence of words"):
        attributes("中国", "W1")


def test_the_templates_of_a_config_stand_for_word_templates_when_items_are_words():
    assert [template_for(t, POS.item) for t in features.TEMPLATES] == ["W1", "W2", "W3"]
    assert [template_for(t, tasks.SEGMENTATION.item) for t in features.TEMPLATES] == \
        list(features.TEMPLATES)
    assert tasks.NER.item == tasks.CHARACTERS and POS.item == tasks.WORD_ITEMS
    assert features.WORD_ITEMS == tasks.WORD_ITEMS  # one value, two homes (floors)
    # more attributes per word at each level, so the templates differ
    assert [features.n_attributes(t) for t in ("W1", "W2", "W3")] == [6, 10, 14]


def test_a_training_sentence_is_its_words_with_one_tag_each():
    gold = Corpus("g", [["迈向", "新", "世纪"], [], ["好"]], [1, 2, 3],
                  pos=[["v", "a", "n"], [], ["a"]])
    sentences = POS.train_sentences(gold, POS.gold(gold))
    assert sentences == [(("迈向", "新", "世纪"), ("v", "a", "n")), (("好",), ("a",))]
    assert POS.example(sentences[0]) == sentences[0]
    assert POS.items(["迈向", "新"]) == ("迈向", "新")
    assert POS.decode(("迈向", "新"), ["v", "a"]) == [(0, 2, "v"), (2, 3, "a")]


# -- golden difficulties: three scripted members ------------------------------

GOLD = Corpus("gold.txt", [["迈向", "新", "世纪"], ["好"]], [1, 2],
              pos=[["v", "a", "n"], ["a"]], format="pku")
#: each member's tags of the gold words, by its (word) template
SCRIPT = {"W1": [["v", "a", "n"], ["a"]],    # all right
          "W2": [["v", "n", "n"], ["d"]],    # wrong at 新 and 好
          "W3": [["n", "a", "n"], ["d"]]}    # wrong at 迈向 and 好


class Scripted:
    """A trainer whose model tags what :data:`SCRIPT` says for its template."""

    name = "scripted"
    model_suffix = ".json"
    algorithms = ("script",)
    seen: list = []

    def check_params(self, algorithm, params):
        return []

    def train(self, examples, template, algorithm, params, model_path, *, rand_seed=1):
        type(self).seen.append((template, examples))
        Path(model_path).write_text(template, encoding="utf-8")
        return {"train_s": 0.0}

    def tag(self, model_path, test_items, template):
        assert all(isinstance(x, tuple) for x in test_items)  # the gold words
        return SCRIPT[Path(model_path).read_text(encoding="utf-8")]

    def fingerprint(self, algorithm, params):
        return {"algorithm": algorithm}


def test_marks_to_difficulties_and_files_by_hand(tmp_path, monkeypatch):
    monkeypatch.setitem(trainers.TRAINERS, "scripted", Scripted())
    train = POS.train_sentences(GOLD, POS.gold(GOLD))
    units, items = POS.gold(GOLD), [POS.items(s) for s in GOLD.words]
    committee = members.draw_committee(3, len(train), ("F1", "F2", "F3"), (1.0,), "grid", seed=1)
    records = {}
    for m in committee:
        sample = [train[i] for i in members.member_sample(m, len(train))]
        result = members.run_member(members.MemberJob(m, sample, items, units, "script", {},
                                                      tmp_path / "work", trainer="scripted",
                                                      task="pos"))
        marks_mod.save_member(tmp_path, result, m)
        records[m.index] = marks_mod.load_member(tmp_path, m, 4)
    assert [t for t, _ in Scripted.seen[-3:]] == ["W1", "W2", "W3"]  # word templates
    assert Scripted.seen[-1][1] == train  # (words, tags), as the task gives them
    # by hand: marks A 1111, B 1010, C 0110; right 2, 2, 3, 1 of 3
    marks = marks_mod.stack(committee, records)
    assert marks.astype(int).tolist() == [[1, 1, 1, 1], [1, 0, 1, 0], [0, 1, 1, 0]]
    assert [records[k]["f1"] for k in range(3)] == [1.0, 0.5, 0.5]
    d, n_correct = difficulty.difficulties(marks)
    assert d.tolist() == [1 / 3, 1 / 3, 0.0, 2 / 3] and n_correct.tolist() == [2, 2, 3, 1]
    inputs = dataset.RunInputs(GOLD, GOLD, train, {"迈向", "新"}, {}, "pos", units)
    p = layout.paths(tmp_path)
    tasks.TAGS.write_files(UnitFiles(p), inputs.test, inputs.units, committee, records, d,
                           n_correct, np.array([False, False, True, True]))
    third, two_thirds = repr(1 / 3), repr(2 / 3)
    assert p.weight.read_text(encoding="utf-8") == f"{third} {third} 0.0\n{two_thirds}\n"
    assert p.weight_c.read_text(encoding="utf-8") == \
        f"{third} {third} {third} 0.0 0.0\n{two_thirds}\n"
    assert p.test.read_text(encoding="utf-8") == "迈向/v  新/a  世纪/n\n好/a\n"
    rows = [r.split("\t") for r in p.words.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == list(difficulty.WORDS_TSV_COLUMNS)
    assert rows[1:] == [["0", "0", "0", "2", "迈向", third, "2", "0", "v"],
                        ["0", "1", "2", "3", "新", third, "2", "0", "a"],
                        ["0", "2", "3", "5", "世纪", "0.0", "3", "1", "n"],
                        ["1", "0", "0", "1", "好", two_thirds, "1", "1", "a"]]
    # each member's tags over the union of their tags: a d n v
    assert marks_mod.write_predictions(p.predictions, committee, records)
    names, codes = marks_mod.read_labels(p.predictions, 4, 3)
    assert names == ("a", "d", "n", "v")
    assert codes.tolist() == [[3, 0, 2, 0], [3, 2, 2, 1], [2, 0, 2, 1]]
    assert difficulty.load_difficulty(p.weight, GOLD).tolist() == d.tolist()


def test_a_real_member_tags_the_gold_words(tmp_path):
    full = embedded("test")
    gold = POS.prepare(Corpus("pd", full.words[:200], full.lines[:200], pos=full.pos[:200]))
    train = POS.train_sentences(gold, POS.gold(gold))[:150]
    test_words = gold.words[150:]
    m = members.draw_member(0, len(train), ("F2",), (0.5,), seed=3)
    sample = [train[i] for i in members.member_sample(m, len(train))]
    units = POS.gold(Corpus("t", test_words, [1] * len(test_words), pos=gold.pos[150:]))
    result = members.run_member(members.MemberJob(m, sample, [POS.items(s) for s in test_words],
                                                  units, "lbfgs", {"c2": 1.0, "max_iterations": 30},
                                                  tmp_path, task="pos"))
    n = sum(map(len, test_words))
    assert result.n_gold == result.n_pred == n and result.pred_ends is None
    assert result.p == result.r == result.f1 > 0.5  # tag accuracy on the gold words
    tags = np.array(result.label_names)[result.pred_labels]
    gold_tags = np.array([t for s in gold.pos[150:] for t in s])
    assert ((tags == gold_tags) == result.marks).all()


# -- a toy committee run end to end ------------------------------------------


def _toy_pos(d: Path, out: Path, size: int = 3) -> Path:
    full = embedded()
    corpus_mod.write_pku(d / "train.txt", full.words[:300], full.pos[:300])
    corpus_mod.write_pku(d / "test.txt", full.words[1000:1040], full.pos[1000:1040])
    cfg = d / "pos.yaml"
    cfg.write_text(f"""
name: toypos
task: pos
corpus:
  root: {d}
  train: {{path: train.txt, format: pku}}
  test: {{path: test.txt, format: pku}}
committee: {{size: {size}, templates: [F1, F2, F3], ratios: [0.1, 0.2, 0.3], seed: 7}}
crf: {{preset: legacy, params: {{max_iterations: 50}}}}
parallel: {{backend: sequential, n_jobs: 1}}
output: {{dir: {out}}}
""", encoding="utf-8")
    return cfg


def test_a_toy_pos_committee_runs_resumes_and_is_scored(tmp_path, capsys):
    run = tmp_path / "run"
    cfg = _toy_pos(tmp_path, run)
    assert main(["run", str(cfg), "--quiet"]) == 0
    assert "|task:pos|" in capsys.readouterr().out
    test = POS.prepare(corpus_mod.read_corpus(tmp_path / "test.txt", format="pku"))
    n = test.n_words()
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["difficulty"]["n_words"] == n and manifest["config"]["task"] == "pos"
    # test.txt: the gold words with their tags, read back as they were
    back = corpus_mod.read_corpus(run / "test.txt", format="pku")
    assert (back.words, back.pos) == (test.words, test.pos)
    d = difficulty.read_weight(run / "test.weight", test)
    per_char = difficulty.read_weight_c(run / "test.weight_c", test)
    assert per_char.tolist() == np.repeat(d, [len(w) for s in test.words for w in s]).tolist()
    words = difficulty.read_words_tsv(run / "words.tsv")
    assert words["pos"].tolist() == [t for s in test.pos for t in s]
    assert words["difficulty"].tolist() == d.tolist()
    marks = np.load(run / "marks.npz")["marks"]
    assert marks.shape == (3, n) and (d == (3 - marks.sum(axis=0)) / 3).all()
    names, codes = marks_mod.read_labels(run / "predictions.npz", n, 3)
    gold_tags = np.array([t for s in test.pos for t in s])
    assert ((np.array(names)[codes] == gold_tags) == marks).all()
    f1 = [m["f1"] for m in manifest["committee"]["members"]]
    assert all(0.5 < v < 1 for v in f1)

    # resumed: nothing trained again, the same bytes
    before = outputs(run) | {"predictions.npz": (run / "predictions.npz").read_bytes()}
    assert main(["run", str(cfg), "--quiet"]) == 0
    assert "resuming" in capsys.readouterr().err
    assert outputs(run) | {"predictions.npz": (run / "predictions.npz").read_bytes()} == before
    layout.verify(run, list(layout.OUTPUT_FILES) + ["predictions.npz"])

    # member 1's tags as an output: committee score gives back its own f1,
    # and its fb against the run's difficulties
    out = tmp_path / "member1.txt"
    tags = np.array(names)[codes[1]].tolist()
    k, rows = 0, []
    for s in test.words:
        rows.append(tags[k:k + len(s)])
        k += len(s)
    corpus_mod.write_pku(out, test.words, rows)
    assert main(["score", "--task", "pos", "--gold", str(run / "test.txt"), "--difficulty",
                 str(run), "--json", str(out)]) == 0
    system = json.loads(capsys.readouterr().out)["systems"][0]
    assert system["p"] == system["r"] == pytest.approx(f1[1], abs=1e-12)
    right = marks[1]  # §5: the right gold words weighed by d, and by 1 - d
    assert system["r_reward"] == pytest.approx(d[right].sum() / d.sum(), abs=1e-12)
    assert system["r_punishment"] == pytest.approx((1 - d[right]).sum() / (1 - d).sum(),
                                                   abs=1e-12)
    assert 0 < system["fb"] < 1


def test_the_default_pos_config_is_accepted():
    cfg = load_config(ROOT / "configs" / "default-pos.yaml")
    assert cfg.task == "pos" and tasks.get(cfg.task).runnable
    assert (cfg.committee.size, cfg.committee.templates, cfg.committee.ratios) == \
        (9, ("F1", "F2", "F3"), (0.1, 0.2, 0.3))
    assert cfg.corpus.train.builtin == "peoples-daily-1998"
    assert cfg.experiments.enabled() == ("table2", "stability", "ranking", "bins", "irt", "tags")
    default = load_config(ROOT / "configs" / "default.yaml")
    assert (cfg.corpus.train, cfg.corpus.test, cfg.committee.seed, cfg.committee.draw) == \
        (default.corpus.train, default.corpus.test, default.committee.seed, default.committee.draw)


def test_pku_written_is_read_back_on_the_embedded_test_split():
    test = corpus_mod.read_embedded("test")
    text = corpus_mod.format_pku(test.words, test.pos)
    with pytest.raises(ValueError, match="cannot be written as pku"):
        corpus_mod.format_pku([["a[b"]], [["n"]])
    from committee.corpus.parsers import parse_pku

    words, _, pos = parse_pku("t", text.split("\n")[:-1], None)
    assert (words, pos) == (test.words, test.pos)
