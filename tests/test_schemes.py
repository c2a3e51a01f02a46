"""The four SemEval-2013 matching schemes of entities, their weighted forms
and the confusion matrices of entities and tags (docs/metrics.md, Matching
schemes and Confusion matrices): nervaluate (the test extra) is the oracle
of every count and score; the weighted forms reduce to the unweighted ones
under one difficulty and to the scorer's pb/rb/fb under strict matching; a
worked example and the matrices are counted by hand; the command line's
options and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import committee
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from committee.corpus import Corpus
from committee.corpus.entities import chunks
from committee.metrics.confusion import entity_confusion, tag_confusion
from committee.metrics.schemes import (CATEGORIES, SCHEMES, check_min_overlap, evaluate, pair,
                                       scheme_scores)
from committee.scoring import Scorer
from committee.tasks.spans import labelled

nervaluate = pytest.importorskip("nervaluate", reason="nervaluate (the test extra) is the oracle")

#: nervaluate's name of each scheme.
ORACLE_NAME = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
TYPES = ("PER", "LOC", "ORG")


# --------------------------------------------------------------------------
# random tag sequences, read as the scorer reads them (the conlleval rules)
# --------------------------------------------------------------------------

def _tag(prefixes):
    return st.one_of(st.just("O"), st.builds(lambda p, t: f"{p}-{t}", st.sampled_from(prefixes),
                                             st.sampled_from(TYPES)))


#: The strategies _documents draws from, made once: building (and validating)
#: them anew at every draw was most of the property tests' time.
_PREFIXES = st.sampled_from([("B", "I"), ("B", "I", "E", "S")])
_N_SENTENCES, _N_CHARS, _EDIT = st.integers(1, 4), st.integers(1, 12), st.integers(0, 3)
_KIND = st.sampled_from(["random", "copy", "edit", "empty"])
_SENTENCE = {(prefixes, n): st.lists(_tag(prefixes), min_size=n, max_size=n)
             for prefixes in (("B", "I"), ("B", "I", "E", "S")) for n in range(1, 13)}


@st.composite
def _documents(draw):
    """Gold and predicted tags of 1-4 sentences of 1-12 characters, IOB2 or
    IOBES (ill-formed sequences included: the reader reads every one);
    some sentences without an entity on one side or both, some with the
    predicted tags those of the gold (exact matches), and overlaps."""
    prefixes = draw(_PREFIXES)
    gold, pred = [], []
    for _ in range(draw(_N_SENTENCES)):
        n = draw(_N_CHARS)
        g = draw(_SENTENCE[prefixes, n])
        kind = draw(_KIND)
        if kind == "copy":
            p = list(g)
        elif kind == "empty":
            p = ["O"] * n
        else:
            p = draw(_SENTENCE[prefixes, n])
            if kind == "edit":  # the gold with a few tags changed: overlaps, near misses
                p = [pt if draw(_EDIT) == 0 else gt for gt, pt in zip(g, p)]
        gold.append(g)
        pred.append(p)
    return gold, pred


def _units(tags, stretch: bool = False):
    """Each sentence's entities (start, end, type); ``stretch``: each one a
    character longer where the sentence goes on, so that entities of one
    side overlap too (nested and crossing spans)."""
    return [[(s, min(e + stretch, len(sent)), t) for t, s, e in chunks(sent)] for sent in tags]


def _spans(gold_tags, pred_tags, stretch: bool = False):
    lengths = [len(s) for s in gold_tags]
    g, p = _units(gold_tags, stretch), _units(pred_tags, stretch)
    names = sorted({u[2] for s in g + p for u in s})
    return labelled(lengths, g, names), labelled(lengths, p, names), g, p


def _oracle(gold_units, pred_units, min_overlap):
    """nervaluate's results of the same entities (its ends inclusive)."""
    def docs(units):
        return [[{"label": t, "start": s, "end": e - 1} for s, e, t in sent] for sent in units]
    tags = sorted({u[2] for s in gold_units + pred_units for u in s})
    return nervaluate.Evaluator(docs(gold_units), docs(pred_units), tags=tags, loader="dict",
                                min_overlap_percentage=min_overlap).evaluate()


def _same(ours, theirs, where):
    """Our counts and scores are nervaluate's: counts equal, scores to 1e-12;
    where nervaluate writes 0 for a zero denominator ours is undefined."""
    for c in CATEGORIES:
        assert ours.counts[c] == getattr(theirs, c), (where, c)
    assert (ours.possible, ours.actual) == (theirs.possible, theirs.actual), where
    for key, theirs_value, den in (("p", theirs.precision, theirs.actual),
                                   ("r", theirs.recall, theirs.possible)):
        if den == 0:
            assert ours.scores[key] is None and theirs_value == 0, (where, key)
        else:
            assert abs(ours.scores[key] - theirs_value) <= 1e-12, (where, key)
    if ours.scores["p"] is None or ours.scores["r"] is None:
        assert ours.scores["f1"] is None and theirs.f1 == 0, where
    else:
        assert abs(ours.scores["f1"] - theirs.f1) <= 1e-12, where


@settings(max_examples=1200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents(), st.sampled_from([1, 1.0, 10, 25, 33.3, 50, 66.7, 75, 100]),
       st.booleans())
def test_every_count_and_score_of_the_four_schemes_is_nervaluates(docs, min_overlap, stretch):
    g, p, gold_units, pred_units = _spans(*docs, stretch)
    ours = evaluate(g, p, min_overlap=min_overlap)
    theirs = _oracle(gold_units, pred_units, min_overlap)
    for scheme in SCHEMES:
        _same(ours.overall[scheme], theirs["overall"][ORACLE_NAME[scheme]], scheme)
        assert set(ours.by_type[scheme]) == set(theirs["entities"])
        for t, result in theirs["entities"].items():
            _same(ours.by_type[scheme][t], result[ORACLE_NAME[scheme]], f"{scheme} {t}")


@settings(max_examples=300, deadline=None)
@given(_documents(), st.floats(0.05, 0.95), st.sampled_from([1, 50]))
def test_one_difficulty_for_every_unit_gives_the_unweighted_scores(docs, d, min_overlap):
    g, p, _, _ = _spans(*docs)
    r = evaluate(g, p, np.full(len(g.starts), d), np.full(len(p.starts), d),
                 min_overlap=min_overlap)
    parts = [r.overall[s] for s in SCHEMES] + [x for s in SCHEMES for x in r.by_type[s].values()]
    for s in parts:
        for weighted, plain in (("pb", "p"), ("rb", "r"), ("fb", "f1")):
            a, b = s.scores[weighted], s.scores[plain]
            assert (a is None) == (b is None) and (a is None or abs(a - b) <= 1e-12)


@settings(max_examples=200, deadline=None)
@given(_documents(), st.randoms(use_true_random=False))
def test_strict_weighted_is_the_scorers_pb_rb_fb_to_the_bit(docs, rnd):
    gold_tags, pred_tags = docs
    chars = [[chr(0x4e00 + i) for i in range(len(s))] for s in gold_tags]
    gold = Corpus("g", chars, list(range(1, len(chars) + 1)), tags=gold_tags)
    pred = Corpus("p", chars, list(range(1, len(chars) + 1)), tags=pred_tags)
    lines = []
    for sent, units in zip(gold_tags, _units(gold_tags)):  # one value inside each entity
        w = [rnd.choice([0.0, 0.25, 0.5, 1.0, rnd.random()]) for _ in sent]
        for s, e, _ in units:
            w[s:e] = [w[s]] * (e - s)
        lines.append(" ".join(map(repr, w)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "test.weight_c"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        scorer = Scorer(gold, path, task="ner")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            today = scorer.score(pred)
            strict = committee.schemes(scorer, pred)["strict"]
    for key in ("p", "r", "f1", "pb", "rb", "fb", "p_reward", "p_punishment", "r_reward",
                "r_punishment"):
        assert strict.scores[key] == today[key], key


@settings(max_examples=300, deadline=None)
@given(_documents(), st.sampled_from([1, 40, 100]))
def test_confusion_cells_sum_to_the_counts_they_come_from(docs, min_overlap):
    g, p, _, _ = _spans(*docs)
    c = entity_confusion(g, p, min_overlap)
    k = len(g.label_names)
    partial = scheme_scores(g, p, "partial", min_overlap)
    assert c.cells[:k].sum(axis=1).tolist() == np.bincount(g.labels, minlength=k).tolist()
    assert c.cells[:, :k].sum(axis=0).tolist() == np.bincount(p.labels, minlength=k).tolist()
    assert c.cells[:k, k].sum() == partial.counts["missed"]
    assert c.cells[k, :k].sum() == partial.counts["spurious"]
    assert np.trace(c.cells[:k, :k]) + c.cells[:k, :k].sum() >= 0 and c.cells[k, k] == 0
    strict = scheme_scores(g, p, "strict", min_overlap)
    assert np.trace(c.cells[:k, :k]) >= strict.counts["correct"]


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------

#: The worked example of docs/metrics.md: 江泽民在北京见到李鹏.
GOLD = ["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O", "B-PER", "I-PER"]
PRED = ["B-PER", "I-PER", "O", "O", "B-ORG", "I-ORG", "B-PER", "I-PER", "O", "O"]
D = [0.5, 0.0, 1.0]                                     # 江泽民, 北京, 李鹏
PER_CHAR = [.5, .5, .5, .25, 0, 0, .75, .25, 1, 1]      # 在 .25, 见 .75, 到 .25


def test_the_worked_example_of_the_docs():
    g, p, _, _ = _spans([GOLD], [PRED])
    weights = np.array(PER_CHAR)[p.ends - 1]          # 泽 .5, 京 0, 到 .25
    r = evaluate(g, p, D, weights)
    expected = {"strict": (0, 2, 0, 1, 1), "exact": (1, 1, 0, 1, 1),
                "partial": (1, 0, 1, 1, 1), "type": (1, 1, 0, 1, 1)}
    for scheme, counts in expected.items():
        assert tuple(r[scheme].counts[c] for c in CATEGORIES) == counts, scheme
    assert (r["partial"].p, r["partial"].r, r["exact"].f1) == (0.5, 0.5, pytest.approx(1 / 3))
    # partial: credits 0.5 (江泽民), 1 (北京), 0 (李鹏); Σ d c = .25, Σ (1-d) c = 1.25
    # Σ d = 1.5, Σ (1-d) = 1.5; Σ d' = .75, Σ (1-d') = 2.25
    s = r["partial"].scores
    assert s["r_reward"] == pytest.approx(.25 / 1.5) and s["r_punishment"] == pytest.approx(1.25 / 1.5)
    assert s["p_reward"] == pytest.approx(.25 / .75) and s["p_punishment"] == pytest.approx(1.25 / 2.25)
    assert s["rb"] == pytest.approx(2 * (1 / 6) * (5 / 6) / 1.0)
    assert s["pb"] == pytest.approx(2 * (1 / 3) * (5 / 9) / (1 / 3 + 5 / 9))
    # type: 江泽 is correct (PER over PER), credit 1: Σ d c = .5, Σ (1-d) c = .5
    t = r["type"].scores
    assert (t["r_reward"], t["r_punishment"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert t["p_reward"] == pytest.approx(.5 / .75) and t["p_punishment"] == pytest.approx(.5 / 2.25)
    # strict: nothing correct
    assert (r["strict"].scores["r_reward"], r["strict"].scores["pb"]) == (0.0, 0.0)


def test_min_overlap_turns_a_short_overlap_spurious():
    # gold 江泽民 (3 characters); 江 covers 33.3% of it
    g, p, _, _ = _spans([["B-PER", "I-PER", "I-PER", "O"]], [["B-PER", "O", "O", "O"]])
    assert [CATEGORIES[c] for c in pair(g, p, "partial", 33)[0]] == ["partial"]
    assert [CATEGORIES[c] for c in pair(g, p, "partial", 34)[0]] == ["spurious"]
    with pytest.raises(ValueError, match=r"^min_overlap must be a number from 1 to 100"):
        check_min_overlap(0.5)


def test_the_type_scheme_pairs_the_closest_gold_entity_of_the_type():
    # two gold PER under one predicted PER: the nearer boundaries win
    g, p, _, _ = _spans([["B-PER", "O", "B-PER", "I-PER", "I-PER", "O"]],
                        [["O", "B-PER", "I-PER", "I-PER", "I-PER", "I-PER"]])
    _, partner, gold_category = pair(g, p, "type")
    assert partner.tolist() == [1] and [CATEGORIES[c] for c in gold_category] == ["missed",
                                                                                  "correct"]


def test_the_entity_confusion_by_hand():
    g, p, _, _ = _spans([GOLD], [PRED])
    c = entity_confusion(g, p)
    assert c.rows == ("LOC", "ORG", "PER", "spurious")
    assert c.columns == ("LOC", "ORG", "PER", "missed")
    #            LOC ORG PER missed
    assert c.cells.tolist() == [[0, 1, 0, 0],    # 北京 LOC called ORG
                                [0, 0, 0, 0],
                                [0, 0, 1, 1],    # 江泽民 ~ 江泽 PER; 李鹏 missed
                                [0, 0, 1, 0]]    # 见到 a spurious PER
    assert c.csv().splitlines()[0] == "gold,LOC,ORG,PER,missed"
    assert c.to_dict()["cells"][2] == [0, 0, 1, 1]


def test_the_tag_confusion_by_hand():
    gold = Corpus("g", [["江泽民", "在", "北京", "见到", "李鹏"]], [1],
                  pos=[["nr", "p", "ns", "v", "nr"]])
    pred = Corpus("p", [["江泽民", "在", "北京", "见", "到", "李鹏"]], [1],
                  pos=[["nr", "v", "ns", "v", "v", "ns"]])
    scorer = Scorer(gold, task="pos")
    with pytest.warns(Warning, match="scored jointly"):
        c = committee.confusion(scorer, pred)
    assert c.rows == c.columns == ("nr", "ns", "p", "v")
    cells = {(c.rows[i], c.columns[j]): int(c.cells[i, j]) for i, j in zip(*np.nonzero(c.cells))}
    # 见到 is split: not on the words segmented alike; 4 words remain
    assert cells == {("nr", "nr"): 1, ("nr", "ns"): 1, ("p", "v"): 1, ("ns", "ns"): 1}
    with pytest.warns(Warning, match="scored jointly"):
        assert np.trace(c.cells) == scorer.score(pred).counts["n_correct"] == 2
    assert c.text().splitlines()[-1] == "4 words the output segments as the gold does"


def test_the_scorer_refuses_schemes_of_words():
    with pytest.raises(ValueError, match=r"^schemes: for entities, not the words of "
                                         r"task 'segmentation'$"):
        committee.schemes(Scorer([["江泽民", "在"]]), [["江泽民", "在"]])


# --------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------

def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "committee", "score", *args],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture()
def bio(tmp_path):
    def write(name, tags):
        (tmp_path / name).write_text("".join(f"{c} {t}\n" for c, t in zip("江泽民在北京见到李鹏", tags)),
                                     encoding="utf-8")
        return str(tmp_path / name)
    return write("gold.bio", GOLD), write("out.bio", PRED)


def test_schemes_and_confusion_in_json_are_new_keys_only(bio):
    gold, out = bio
    plain = _cli("--task", "ner", "--gold", gold, "--json", out)
    both = _cli("--task", "ner", "--gold", gold, "--json", "--schemes", "--confusion", out)
    assert plain.returncode == both.returncode == 0, both.stderr
    a, b = json.loads(plain.stdout), json.loads(both.stdout)
    row = b["systems"][0]
    assert {k: v for k, v in row.items() if k not in ("schemes", "confusion")} == a["systems"][0]
    assert row["schemes"]["partial"]["overall"]["partial"] == 1
    assert row["schemes"]["min_overlap"] == 1.0
    assert row["schemes"]["strict"]["by_type"]["PER"]["missed"] == 1
    assert row["confusion"]["cells"][3] == [0, 0, 1, 0]


def test_schemes_as_text(bio):
    gold, out = bio
    res = _cli("--task", "ner", "--gold", gold, "--schemes", "--min-overlap", "50", out)
    assert res.returncode == 0, res.stderr
    assert "out: matching schemes" in res.stdout
    line = next(x for x in res.stdout.splitlines() if x.startswith("partial  all"))
    assert line.split() == ["partial", "all", "1", "0", "1", "1", "1", "3", "3", "50.00",
                            "50.00", "50.00"]
    assert "overlaps of at least 50% of a gold entity count" in res.stdout


@pytest.mark.parametrize("args, message", [
    (["--schemes"], "--schemes is for --task ner (entity spans)"),
    (["--task", "ner", "--min-overlap", "50"], "--min-overlap is for --schemes or --confusion"),
    (["--task", "ner", "--schemes", "--min-overlap", "101"],
     "--min-overlap: expected a number from 1 to 100, got '101'"),
    (["--task", "ner", "--schemes", "--min-overlap", "0.5"],
     "--min-overlap: expected a number from 1 to 100, got '0.5'"),
    (["--confusion"], "--confusion is for --task ner or --task pos (labelled units)"),
])
def test_wrong_options_are_one_line(bio, args, message):
    gold, out = bio
    res = _cli("--gold", gold, *args, out)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and message in res.stderr, res.stderr


def test_standard_input_is_refused_with_schemes(bio):
    gold, _ = bio
    res = _cli("--task", "ner", "--gold", gold, "--schemes", "-")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "--schemes and --confusion read each output twice" in res.stderr
