"""Committee members (docs/method.md §3): draws, samples, training, decoding, determinism."""

import hashlib
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pycrfsuite
import pytest

from committee.corpus import from_bmes, to_bmes
from committee.errors import ConfigError, RunError
from committee.learners.features import corpus_attributes
from committee.learners import crf
from committee.learners.crf import check_crf_params, tag_sentences, train_model
from committee.learners.members import (Member, MemberJob, MemberResult, draw_committee,
                               draw_member, member_sample, run_member)

TEMPLATES = ("F1", "F2", "F3")
RATIOS = (0.1, 0.2, 0.3)
LBFGS = {"c2": 1.0, "max_iterations": 30}
ROOT = Path(__file__).resolve().parents[1]

VOCABULARY = ["我们", "喜欢", "北京", "天安门", "人民", "中国", "的", "是", "很", "好",
              "学习", "工作", "大家", "今天", "天气", "我", "你", "他", "在", "看",
              "电影", "图书馆", "朋友", "一起", "去", "了", "新年", "快乐", "经济", "发展"]


def make_corpus(n, seed):
    """``n`` short sentences of 2 to 6 words from a small vocabulary."""
    rnd = random.Random(seed)
    return [[rnd.choice(VOCABULARY) for _ in range(rnd.randint(2, 6))] for _ in range(n)]


TRAIN = make_corpus(40, 1)
TEST = make_corpus(12, 2) + [[]]  # an empty test sentence on purpose
TEST_CHARS = ["".join(s) for s in TEST]


# --------------------------------------------------------------------------
# drawing members


def test_member_k_does_not_depend_on_committee_size():
    small = draw_committee(3, 1000, TEMPLATES, RATIOS, seed=7)
    large = draw_committee(5, 1000, TEMPLATES, RATIOS, seed=7)
    for a, b in zip(small, large):
        assert (a.template, a.ratio, a.n_sentences) == (b.template, b.ratio, b.n_sentences)
        assert a == b
        assert member_sample(a, 1000).tolist() == member_sample(b, 1000).tolist()
    assert draw_member(4, 1000, TEMPLATES, RATIOS, seed=7) == large[4]


def test_seed_zero_is_a_seed_and_seeds_differ():
    zero = draw_committee(6, 1000, TEMPLATES, RATIOS, seed=0)
    one = draw_committee(6, 1000, TEMPLATES, RATIOS, seed=1)
    assert all(m.seed == 0 for m in zero)
    s0 = [member_sample(m, 1000).tolist() for m in zero]
    s1 = [member_sample(m, 1000).tolist() for m in one]
    assert s0 == [member_sample(m, 1000, 0).tolist() for m in zero]
    assert all(a != b for a, b in zip(s0, s1))
    assert [(m.template, m.ratio) for m in zero] != [(m.template, m.ratio) for m in one]


def test_members_differ_from_each_other():
    committee = draw_committee(10, 1000, TEMPLATES, RATIOS, seed=0)
    samples = {tuple(member_sample(m, 1000)) for m in committee}
    assert len(samples) == 10
    assert len({m.template for m in committee}) > 1 and len({m.ratio for m in committee}) > 1


def test_random_draw_follows_the_documented_recipe():
    m = draw_member(3, 200, TEMPLATES, RATIOS, seed=5)
    rng = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(3,)))
    template = TEMPLATES[rng.integers(3)]
    ratio = RATIOS[rng.integers(3)]
    sample = np.sort(rng.choice(200, size=m.n_sentences, replace=False))
    assert (m.template, m.ratio) == (template, ratio)
    assert member_sample(m, 200).tolist() == sample.tolist()


def test_grid_is_template_major_with_replicas():
    committee = draw_committee(18, 1000, TEMPLATES, RATIOS, draw="grid", seed=0)
    combos = [(m.template, m.ratio) for m in committee]
    one_round = [(t, r) for t in TEMPLATES for r in RATIOS]
    assert combos == one_round + one_round
    # the sample still comes from member k's own generator: replicas differ
    assert member_sample(committee[0], 1000).tolist() != member_sample(committee[9], 1000).tolist()


@pytest.mark.parametrize("ratio, n_train, size", [
    (0.1, 15, 2),     # floor(1.5 + 0.5)
    (0.25, 10, 3),    # floor(2.5 + 0.5): halves round up
    (0.01, 10, 1),    # never fewer than one sentence
    (1.0, 7, 7),
])
def test_sample_size(ratio, n_train, size):
    m = draw_member(0, n_train, ("F1",), (ratio,), seed=0)
    idx = member_sample(m, n_train)
    assert m.n_sentences == size == len(idx) == len(set(idx.tolist()))
    assert idx.dtype == np.int64 and idx.min() >= 0 and idx.max() < n_train
    assert (np.diff(idx) > 0).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(templates=("F4",)), "unknown feature template 'F4'"),
    (dict(templates=()), "templates must be a non-empty"),
    (dict(ratios=(0.0,)), "sampling ratio must be a number in \\(0, 1\\]"),
    (dict(ratios=(1.5,)), "sampling ratio"),
    (dict(draw="stratified"), "draw must be one of random, grid"),
    (dict(seed=-1), "seed must be an integer >= 0"),
    (dict(n_train=0), "n_train must be an integer >= 1"),
    (dict(k=-2), "member index"),
])
def test_invalid_draw_arguments(kwargs, message):
    args = dict(k=0, n_train=100, templates=TEMPLATES, ratios=RATIOS, draw="random", seed=0)
    args.update(kwargs)
    k, n = args.pop("k"), args.pop("n_train")
    with pytest.raises(ValueError, match=message):
        draw_member(k, n, **args)


def test_invalid_committee_size():
    with pytest.raises(ValueError, match="committee size"):
        draw_committee(0, 100, TEMPLATES, RATIOS, seed=0)


def test_member_sample_cross_checks():
    m = draw_member(0, 100, TEMPLATES, RATIOS, seed=3)
    with pytest.raises(ValueError, match="drawn with seed 3"):
        member_sample(m, 100, 4)
    with pytest.raises(ValueError, match="drawn for 100 training sentences"):
        member_sample(m, 101)


# --------------------------------------------------------------------------
# CRF parameters


def test_check_crf_params():
    assert check_crf_params("lbfgs", LBFGS) == []
    assert check_crf_params("ap", {"max_iterations": 5}) == []
    problems = check_crf_params("lbfgs", {"c3": 1.0, "max_iterations": 2.5,
                                          "linesearch": "Fast", "c2": -1.0,
                                          "feature.possible_transitions": 1})
    assert [p.split(":")[0] for p in problems] == [
        "params.c3", "params.max_iterations", "params.linesearch", "params.c2",
        "params.feature.possible_transitions"]
    assert "unknown parameter of algorithm 'lbfgs'" in problems[0]
    assert check_crf_params("ap", {"c2": 1.0})[0].startswith("params.c2: unknown parameter")
    assert check_crf_params("sgd", {})[0].startswith("algorithm: unknown training algorithm 'sgd'")


def test_invalid_crf_param_raises_clear_error(tmp_path):
    x = corpus_attributes(TEST_CHARS[:3], "F1")
    y = [to_bmes(s) for s in TEST[:3]]
    with pytest.raises(ConfigError, match=r"crf: params\.c3: unknown parameter.*valid: .*c2"):
        train_model(x, y, "lbfgs", {"c3": 1.0}, tmp_path / "m.crfsuite")
    with pytest.raises(ConfigError, match="unknown training algorithm"):
        train_model(x, y, "newton", {}, tmp_path / "m.crfsuite")
    assert list(tmp_path.iterdir()) == []


def test_run_member_checks_params_before_working(tmp_path):
    m = draw_member(0, len(TRAIN), ("F1",), (0.5,), seed=0)
    sample = [TRAIN[i] for i in member_sample(m, len(TRAIN))]
    with pytest.raises(ConfigError, match="max_iterations: must be an integer"):
        run_member(MemberJob(m, sample, TEST_CHARS, TEST, "lbfgs", {"max_iterations": "50"},
                             tmp_path))
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# training and tagging


def test_train_and_tag_tiny_crf(tmp_path):
    path = tmp_path / "tiny.crfsuite"
    x = corpus_attributes(["".join(s) for s in TRAIN], "F2")
    timings = train_model(x, [to_bmes(s) for s in TRAIN], "lbfgs", LBFGS, path)
    assert set(timings) == {"append_s", "train_s", "featgen_s", "optimise_s", "store_s"}
    assert path.stat().st_size > 0
    tags = tag_sentences(path, corpus_attributes(TEST_CHARS, "F2"))
    assert [len(t) for t in tags] == [len(c) for c in TEST_CHARS]
    assert tags[-1] == []
    for chars, t in zip(TEST_CHARS, tags):
        assert set(t) <= set("BMES")
        words = from_bmes(chars, t)
        assert "".join(words) == chars and all(words)
    # a vocabulary this small is learnt well: most test words come out right
    pred = [from_bmes(c, t) for c, t in zip(TEST_CHARS, tags)]
    gold = {(i, w) for i, s in enumerate(TEST) for w in s}
    assert len(gold & {(i, w) for i, s in enumerate(pred) for w in s}) > 0.8 * len(gold)


@pytest.mark.parametrize("algorithm, params", [
    ("lbfgs", {"c1": 0.1, "c2": 0.1, "max_iterations": 30}),
    ("l2sgd", {"c2": 0.1, "max_iterations": 5}),
])
def test_train_model_reports_crfsuites_own_phases(tmp_path, algorithm, params):
    # crfsuite's log splits train_s into building features, optimising and
    # writing the model; the parts are CPU seconds within the wall-clock whole
    x = corpus_attributes(["".join(s) for s in TRAIN] * 20, "F2")
    t = train_model(x, [to_bmes(s) for s in TRAIN] * 20, algorithm, params,
                    tmp_path / "m.crfsuite")
    parts = [t["featgen_s"], t["optimise_s"], t["store_s"]]
    assert all(p >= 0 for p in parts)
    assert t["optimise_s"] > 0
    assert sum(parts) <= t["train_s"] + 0.05


def test_train_model_input_errors(tmp_path):
    x = corpus_attributes(["我们", "好"], "F1")
    with pytest.raises(ValueError, match="training sentence 1: 1 characters but 2 tags"):
        train_model(x, ["BE", "BE"], "lbfgs", LBFGS, tmp_path / "m")
    with pytest.raises(ValueError, match="no non-empty training sentence"):
        train_model([[]], [""], "lbfgs", LBFGS, tmp_path / "m")


def _model_bytes(tmp_path, name, algorithm, params, rand_seed):
    x = corpus_attributes(["".join(s) for s in TRAIN], "F1")
    path = tmp_path / name
    train_model(x, [to_bmes(s) for s in TRAIN], algorithm, params, path, rand_seed=rand_seed)
    return path.read_bytes()


@pytest.mark.parametrize("algorithm, params", [("lbfgs", LBFGS), ("ap", {"max_iterations": 5})])
def test_training_is_reproducible_within_a_process(tmp_path, algorithm, params):
    # ap shuffles with the C library's rand(): without re-seeding, the second
    # model of a process differs from the first.
    a = _model_bytes(tmp_path, "a", algorithm, params, 11)
    b = _model_bytes(tmp_path, "b", algorithm, params, 11)
    assert a == b


def test_ap_shuffle_seed_matters(tmp_path):
    a = _model_bytes(tmp_path, "a", "ap", {"max_iterations": 5}, 1)
    b = _model_bytes(tmp_path, "b", "ap", {"max_iterations": 5}, 2)
    assert a != b


def test_ap_training_is_reproducible_across_processes(tmp_path):
    here = _model_bytes(tmp_path, "here", "ap", {"max_iterations": 5}, 11)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "import test_members as t, pathlib;"
        # train something else first to move the rand() state on
        "t._model_bytes(pathlib.Path(sys.argv[3]), 'warm', 'ap', {'max_iterations': 3}, 99);"
        "sys.stdout.write(__import__('hashlib').sha256("
        "t._model_bytes(pathlib.Path(sys.argv[3]), 'there', 'ap', {'max_iterations': 5}, 11)"
        ").hexdigest())"
    )
    out = subprocess.run([sys.executable, "-c", code, str(ROOT), str(ROOT / "tests"),
                          str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout == hashlib.sha256(here).hexdigest()


# --------------------------------------------------------------------------
# one member, end to end


def _member(ratio=0.5, template="F2", k=0, seed=0):
    m = draw_member(k, len(TRAIN), (template,), (ratio,), seed=seed)
    return m, [TRAIN[i] for i in member_sample(m, len(TRAIN))]


def test_run_member(tmp_path):
    m, sample = _member()
    res = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "lbfgs", LBFGS, tmp_path))
    assert isinstance(res, MemberResult) and res.index == 0
    n_gold = sum(len(s) for s in TEST)
    assert res.marks.dtype == bool and res.marks.shape == (n_gold,)
    assert res.n_gold == n_gold and res.n_correct == int(res.marks.sum())
    assert res.n_pred >= len(TEST_CHARS) - 1  # every non-empty sentence has a word
    assert res.p == res.n_correct / res.n_pred and res.r == res.n_correct / n_gold
    assert res.f1 == pytest.approx(2 * res.p * res.r / (res.p + res.r))
    assert 0.5 < res.f1 <= 1
    assert res.n_sentences == m.n_sentences == 20
    assert res.n_train_chars == sum(len(w) for s in sample for w in s)
    assert set(res.timings) == {"attributes_s", "append_s", "train_s", "tag_s", "featgen_s",
                                "optimise_s", "store_s"}
    assert list(tmp_path.iterdir()) == []  # the temporary model is gone


def test_run_member_marks_agree_with_tagging(tmp_path):
    m, sample = _member(template="F1")
    res = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "lbfgs", LBFGS, tmp_path,
                               keep_model=True))
    model = tmp_path / "models" / "member-0000.crfsuite"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["member-0000.crfsuite", "models"]
    tags = tag_sentences(model, corpus_attributes(TEST_CHARS, "F1"))
    pred = [from_bmes(c, t) for c, t in zip(TEST_CHARS, tags)]
    expected = [w in set(_spans(p)) for g, p in zip(TEST, pred) for w in _spans(g)]
    assert res.marks.tolist() == expected
    assert res.n_pred == sum(len(p) for p in pred)


def _spans(words):
    out, start = [], 0
    for w in words:
        out.append((start, start + len(w)))
        start += len(w)
    return out


def test_run_member_is_deterministic(tmp_path):
    m, sample = _member(template="F3", k=3, seed=9)
    a = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "lbfgs", LBFGS, tmp_path / "a"))
    b = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "lbfgs", LBFGS, tmp_path / "b"))
    assert a.marks.tobytes() == b.marks.tobytes()
    assert (a.p, a.r, a.f1) == (b.p, b.r, b.f1)
    ap = {"max_iterations": 5}
    c = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "ap", ap, tmp_path / "c"))
    d = run_member(MemberJob(m, sample, TEST_CHARS, TEST, "ap", ap, tmp_path / "d"))
    assert c.marks.tobytes() == d.marks.tobytes()


def test_run_member_skips_empty_training_sentences(tmp_path):
    m = draw_member(0, 4, ("F1",), (1.0,), seed=0)
    sample = [[], ["我们", "喜欢", "北京"], [], ["大家", "好"]]
    res = run_member(MemberJob(m, sample, TEST_CHARS[:2], TEST[:2], "lbfgs", LBFGS, tmp_path))
    assert res.n_sentences == 4 and res.n_train_chars == 9
    with pytest.raises(RunError, match="all 4 training sentences are empty"):
        run_member(MemberJob(m, [[], [], [], []], TEST_CHARS[:2], TEST[:2], "lbfgs", LBFGS,
                             tmp_path))


def test_run_member_input_errors(tmp_path):
    m, sample = _member()
    with pytest.raises(ValueError, match="trains on its 20 sampled sentences"):
        run_member(MemberJob(m, TRAIN, TEST_CHARS, TEST, "lbfgs", LBFGS, tmp_path))
    with pytest.raises(ValueError, match="test sentence 1: gold words do not spell"):
        run_member(MemberJob(m, sample, [TEST_CHARS[0], "错"], TEST[:2], "lbfgs", LBFGS, tmp_path))
    with pytest.raises(ValueError, match="2 test sentences but 3 gold"):
        run_member(MemberJob(m, sample, TEST_CHARS[:2], TEST[:3], "lbfgs", LBFGS, tmp_path))


def test_test_attributes_are_cached_per_template():
    a = crf.test_attributes(TEST_CHARS, "F2")
    assert crf.test_attributes(list(TEST_CHARS), "F2") is a
    assert crf.test_attributes(TEST_CHARS, "F1") is not a
    assert [len(s) for s in a] == [len(c) for c in TEST_CHARS]
    assert isinstance(a[0], pycrfsuite.ItemSequence)
    assert a[0].items() == [{name: 1.0 for name in attrs}
                            for attrs in corpus_attributes(TEST_CHARS[:1], "F2")[0]]


def test_member_is_frozen():
    m = draw_member(0, 10, ("F1",), (0.5,), seed=0)
    assert isinstance(m, Member)
    with pytest.raises(AttributeError):
        m.template = "F2"


@pytest.mark.parametrize("algorithm, params", [("lbfgs", LBFGS), ("l2sgd", {"max_iterations": 5})])
def test_attribute_names_do_not_change_the_model(tmp_path, algorithm, params):
    """Why names may be chosen for speed (committee.learners.features): renaming every
    attribute one-to-one gives the same weights, feature by feature, and the
    same tags, because crfsuite numbers attributes in the order it meets them."""
    def offsets_first(name):  # the former spelling, C-1=中 for 中=C-1
        chars, offsets = name.rsplit("=", 1)
        return f"{offsets}={chars}"

    y = [to_bmes(s) for s in TRAIN]
    x = corpus_attributes(["".join(s) for s in TRAIN], "F2")
    renamed = [[[offsets_first(a) for a in item] for item in s] for s in x]
    test = corpus_attributes(TEST_CHARS, "F2")
    test_renamed = [[[offsets_first(a) for a in item] for item in s] for s in test]
    train_model(x, y, algorithm, params, tmp_path / "a.crfsuite", rand_seed=3)
    train_model(renamed, y, algorithm, params, tmp_path / "b.crfsuite", rand_seed=3)
    info = []
    for path in ("a.crfsuite", "b.crfsuite"):
        tagger = pycrfsuite.Tagger()
        tagger.open(str(tmp_path / path))
        info.append(tagger.info())
        tagger.close()
    a, b = info
    assert len(a.state_features) > 100
    assert {(offsets_first(n), tag): w for (n, tag), w in a.state_features.items()} \
        == b.state_features
    assert a.transitions == b.transitions
    assert tag_sentences(tmp_path / "a.crfsuite", test) \
        == tag_sentences(tmp_path / "b.crfsuite", test_renamed)
