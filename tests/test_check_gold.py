"""``committee check-gold`` and ``committee score --check-gold``: suspicious
gold spans (docs/method.md §15)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee.cli import main
from committee.corpus import Corpus
from committee.metrics import Collector, checkgold as S
from committee.metrics import compute
from committee.pipeline.layout import paths
from committee.scoring import checkgold
from toyrun import embedded


# --------------------------------------------------------------------------
# injection


def _vocabulary(words):
    return {w for s in words for w in s}


@pytest.fixture(scope="module")
def gold_words():
    return embedded().words[3000:3300]


def test_injection_is_seeded_and_counts_each_error_once(gold_words):
    vocab = _vocabulary(gold_words)
    a, errs_a = S.inject_words(gold_words, 0.02, 5, vocab)
    b, errs_b = S.inject_words(gold_words, 0.02, 5, vocab)
    c, errs_c = S.inject_words(gold_words, 0.02, 6, vocab)
    assert a == b and errs_a == errs_b
    assert errs_a != errs_c
    n_words = sum(map(len, gold_words))
    assert len(errs_a) == round(0.02 * n_words)
    # the characters are untouched; only the reading of each error's span changes
    assert ["".join(s) for s in a] == ["".join(s) for s in gold_words]
    before, after = S.ends_of(gold_words), S.ends_of(a)
    for e in errs_a:
        assert S.reading(before, e.start, e.end) != S.reading(after, e.start, e.end)
    # errors do not touch, and outside them the two segmentations are equal
    spans = sorted((e.start, e.end) for e in errs_a)
    assert all(e1 < s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))
    outside = np.ones(before.size, dtype=bool)
    for s, e in spans:
        outside[s:e] = False
    assert np.array_equal(before[outside], after[outside])
    # every region where they differ is exactly one error: counted once
    regions = S.member_regions(before, after)
    assert len(regions) == len(errs_a)
    assert {(s, e) for s, e, _ in regions} <= set(spans)
    # the new words are words of the corpus (a merge's, a split's, a shift's)
    text = "".join("".join(s) for s in a)
    for e in errs_a:
        assert all(w in vocab for w in S.cut(text[e.start:e.end],
                                              S.reading(after, e.start, e.end)))
    assert {e.kind for e in errs_a} == {"merge", "split", "shift"}


def test_injection_of_each_kind_by_hand():
    vocab = {"北京", "大学", "北京大学", "我", "爱"}
    new, errs = S.inject_words([["北京大学"]], 1.0, 0, vocab, kinds=(("split", 1.0),))
    assert new == [["北京", "大学"]] and [(e.kind, e.start, e.end) for e in errs] == [
        ("split", 0, 4)]
    new, errs = S.inject_words([["我", "北京", "大学"]], 1.0, 0, vocab, kinds=(("merge", 1.0),))
    assert new == [["我", "北京大学"]] and [(e.start, e.end) for e in errs] == [(1, 5)]
    new, errs = S.inject_words([["我爱", "北京"]], 1.0, 0, {"我", "爱北京"},
                               kinds=(("shift", 1.0),))
    assert new == [["我", "爱北京"]] and [(e.start, e.end) for e in errs] == [(0, 4)]


def test_detection_measures_by_hand():
    errs = [S.Injected("merge", 0, 2), S.Injected("split", 4, 6), S.Injected("shift", 8, 10)]
    # rows: hit e0, miss, hit e1, hit e1 again, hit e2
    starts, ends = np.array([0, 2, 4, 5, 9]), np.array([2, 3, 5, 6, 10])
    r = S.detection(starts, ends, errs, ks=(3, 6))
    assert r["recall@3"] == pytest.approx(2 / 3) and r["precision@3"] == pytest.approx(2 / 3)
    assert r["recall@6"] == 1.0 and r["precision@6"] == pytest.approx(4 / 6)
    # new errors found at ranks 1, 3 and 5 with 1, 2 and 4 hitting rows so far
    assert r["ap"] == pytest.approx((1 / 1 + 2 / 3 + 4 / 5) / 3)


# --------------------------------------------------------------------------
# ranking


def _members(gold, readings):
    """(K, C) ends: each member the gold with some spans read otherwise."""
    out = []
    for member in readings:
        ends = gold.copy()
        for (s, e), lengths in member.items():
            ends[s:e] = False
            ends[s + np.cumsum(lengths) - 1] = True
        out.append(ends)
    return np.array(out)


def test_agreeing_members_rank_above_scattered_errors():
    # 天 天 向 上 | 有 限 公 司 : two spans of four characters read as 1+1+1+1 by the gold
    words = [["天", "天", "向", "上"], ["有", "限", "公", "司"]] * 3
    gold = S.ends_of(words)
    k = 6
    agree = {(0, 4): (4,)}                                # every member: one word
    scattered = [{(4, 8): r} for r in ((2, 2), (4,), (3, 1), (1, 3), (2, 1, 1), (1, 1, 2))]
    pred = _members(gold, [{**agree, **scattered[j]} for j in range(k)])
    check = S.check_words(words, pred, [["天"], ["上"]], {"天", "上"})
    c = check.candidates
    first = check.order[0]
    assert (c.start[first], c.end[first]) == (0, 4)
    assert (c.n_alt[first], c.n_wrong[first]) == (k, k) and tuple(c.alt[first]) == (4,)
    # the scattered span: readings split at the boundaries members share with the
    # gold ((2, 2) is two regions of one word each), none given by more than 2 members
    on_second = [i for i in range(len(c)) if c.start[i] >= 4 and c.end[i] <= 8]
    assert on_second and all(c.n_alt[i] <= 2 for i in on_second)
    assert max(c.n_wrong[i] for i in on_second) >= k - 1  # yet nearly every member is wrong
    ranked_second = [j for j, i in enumerate(check.order) if i in on_second]
    assert ranked_second
    assert all(check.p[first] > check.p[i] for i in on_second)
    assert all(check.score[0] > check.score[j] for j in ranked_second)


def test_variation_ngrams_count_each_reading():
    train = [["北京", "大学"], ["北京大学", "好"], ["北京", "大学", "生"]]
    v = S.Variation(train)
    assert v.count("北京大学", (2, 2)) == 2 and v.count("北京大学", (4,)) == 1
    words = [["北京大学", "好"]]
    test = S.Variation(words)
    assert S.variation_candidates(words, v, test) == [(0, 4, (2, 2))]


def test_prior_adjustment_recovers_a_known_rate():
    rng = np.random.default_rng(1)
    # a model fitted where half the cases were errors, applied where 10% are
    y = rng.random(20000) < 0.1
    score = rng.normal(np.where(y, 1.5, -1.5), 1.0)
    p_half = 1 / (1 + np.exp(-3 * score))  # the exact posterior at prior 1/2
    q, rate = S.adjust_prior(p_half, 0.5)
    assert rate == pytest.approx(0.1, abs=0.01)
    assert q.sum() == pytest.approx(y.sum(), rel=0.05)


# --------------------------------------------------------------------------
# scores without the suspicious spans


def test_leaving_out_equals_rescoring_without_those_words():
    gold = Corpus("gold.txt", [["约翰", "喜欢", "玛丽", "和", "猫"], ["北京", "大学", "好"]], [1, 2])
    out = Corpus("out.txt", [["约翰", "喜", "欢", "玛丽和", "猫"], ["北京大学", "好"]], [1, 2])
    d = np.array([0.0, 0.5, 1.0, 0.25, 0.75, 0.2, 0.4, 0.1])
    # leave out 喜欢 (characters 2 to 4) and 北京大学 (8 to 12): the output has
    # boundaries at their edges, so removing them from both sides is plain
    mask = np.zeros(13, dtype=bool)
    mask[2:4] = mask[8:12] = True
    left = Collector(gold, difficulty=d).leaving_out(mask).collect(out)
    gold2 = Corpus("gold2.txt", [["约翰", "玛丽", "和", "猫"], ["好"]], [1, 2])
    out2 = Corpus("out2.txt", [["约翰", "玛丽和", "猫"], ["好"]], [1, 2])
    d2 = np.array([0.0, 1.0, 0.25, 0.75, 0.1])
    plain = Collector(gold2, difficulty=d2).collect(out2)
    a, b = compute(left), compute(plain)
    for key in ("p", "r", "f1", "pb", "rb", "fb"):
        assert a[key] == pytest.approx(b[key], abs=1e-12), key
    assert (left.n_gold.sum(), left.n_pred.sum(), left.n_correct.sum()) == (5, 4, 3)


# --------------------------------------------------------------------------
# the command on a real toy run


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory, toy_corpus):
    from toyrun import write_config

    d = tmp_path_factory.mktemp("checkgold")
    cfg = write_config(d / "toy.yaml", toy_corpus, d / "run", size=3, iterations=20)
    assert main(["run", str(cfg), "--quiet"]) == 0
    return d / "run"


def test_check_gold_writes_a_ranked_list(toy_run, capsys):
    assert main(["check-gold", str(toy_run)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"wrote {toy_run}/check-gold.tsv and check-gold.json: ")
    assert "the likeliest annotation errors first" in out and "Judged by hand on" in out
    p = paths(toy_run)
    lines = p.check_gold.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(checkgold.COLUMNS)
    rows = [dict(zip(checkgold.COLUMNS, line.split("\t"))) for line in lines[1:]]
    assert rows, "a K = 3 toy committee disagrees with its gold somewhere"
    scores = [float(r["evidence"]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    test = corpus_mod.read_corpus(p.test)
    summary = json.loads(p.check_gold_json.read_text(encoding="utf-8"))
    assert summary["expected_errors_at_fitted_rate"] == pytest.approx(sum(scores), rel=1e-4)
    assert 0 <= summary["expected_errors"] <= len(rows) and summary["version"] == checkgold.VERSION
    assert summary["features"] == list(S.WORD_FEATURES)
    assert summary["n_members"] == 3 and summary["n_units"] == test.n_words()
    for r in rows[:20]:
        s, a, b, j = int(r["sentence"]), int(r["start"]), int(r["end"]), int(r["word_index"])
        text = "".join(test.words[s])
        assert r["gold"].replace(" ", "") == r["proposed"].replace(" ", "") == text[a:b]
        assert r["gold"] != r["proposed"]
        assert sum(map(len, test.words[s][:j])) == a  # the span starts at that gold word
        ctx = r["context"]
        assert "【" + text[a:b] + "】" in ctx
        assert ctx.strip("…").replace("【", "").replace("】", "") in text
        assert len(ctx.strip("…")) <= 2 * checkgold.CONTEXT + (b - a) + 2
        assert r["reasons"].startswith("members: ")


def test_score_check_gold_equals_a_rescoring_without_those_spans(toy_run, tmp_path, capsys):
    assert main(["check-gold", str(toy_run)]) == 0
    p = paths(toy_run)
    test = corpus_mod.read_corpus(p.test)
    out = tmp_path / "out.txt"
    corpus_mod.write_sighan(out, [[c for w in s for c in w] if i % 3 == 0 else s
                                  for i, s in enumerate(test.words)])  # some sentences by character
    capsys.readouterr()
    assert main(["score", "--gold", str(p.test), "--difficulty", str(toy_run), "--check-gold",
                 str(toy_run), "--json", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    sens = data["check_gold"]
    rows, summary = checkgold.read(toy_run)
    n = int(round(summary["expected_errors"]))
    assert sens["n_left_out"] == n
    # by hand: the gold words and the output's words overlapping those spans removed
    mask = np.zeros(test.n_chars(), dtype=bool)
    for r in rows[:n]:
        mask[r["g_start"]:r["g_end"]] = True
    pred = corpus_mod.read_corpus(out)
    from committee.tasks.spans import match, spans
    g, q = spans(test.words), spans(pred.words)
    before = np.concatenate(([0], np.cumsum(mask)))
    keep_g = before[g.ends] == before[g.starts]
    keep_q = before[q.ends] == before[q.starts]
    ok = match(g, q)[0]
    n_correct = int((ok & keep_g).sum())
    precision, recall = n_correct / keep_q.sum(), n_correct / keep_g.sum()
    row = sens["systems"][0]
    assert row["p_left_out"] == pytest.approx(precision, abs=1e-12)
    assert row["r_left_out"] == pytest.approx(recall, abs=1e-12)
    assert row["f1"] == pytest.approx(data["systems"][0]["f1"], abs=1e-12)
    assert row["fb"] == pytest.approx(data["systems"][0]["fb"], abs=1e-12)


def test_gold_check_refuses_a_list_edited_since(toy_run, tmp_path, capsys):
    run = tmp_path / "copy"
    shutil.copytree(toy_run, run)
    assert main(["check-gold", str(run)]) == 0
    p = paths(run)
    p.check_gold.write_text(p.check_gold.read_text(encoding="utf-8") + "x\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["score", "--gold", str(p.test), "--check-gold", str(run), str(p.test)])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code != 0 and "check-gold.tsv: changed since committee check-gold wrote it" in last
    assert "Traceback" not in err


def test_gold_check_before_check_gold_says_what_to_run(toy_run, tmp_path, capsys):
    run = tmp_path / "fresh"
    shutil.copytree(toy_run, run, ignore=shutil.ignore_patterns("check-gold.*"))
    p = paths(run)
    code = main(["score", "--gold", str(p.test), "--check-gold", str(run), str(p.test)])
    err = capsys.readouterr().err
    assert code != 0 and f"run `committee check-gold {run}` first" in err


def test_check_gold_on_a_directory_that_is_no_run(tmp_path, capsys):
    code = main(["check-gold", str(tmp_path / "nothing")])
    err = capsys.readouterr().err
    assert code != 0 and "nothing: no such directory" in err and err.count("\n") == 1


def test_gold_check_refuses_standard_input(toy_run, capsys):
    p = paths(toy_run)
    code = main(["score", "--gold", str(p.test), "--check-gold", str(toy_run), "-"])
    err = capsys.readouterr().err
    assert code == 2 and "--check-gold scores each output twice" in err


# --------------------------------------------------------------------------
# entities


def test_entity_injection_is_seeded_and_each_error_counted_once():
    from committee.metrics import checkgold_entities

    full = embedded(entities=True)
    from committee.tasks import NER

    test = Corpus("t", full.words[3000:3400], list(range(400)), tags=full.tags[3000:3400])
    units = NER.gold(test)
    lengths = [sum(map(len, s)) for s in test.words]
    types = sorted({u[2] for s in units for u in s})
    a = checkgold_entities.inject_entities(units, lengths, 0.05, 3, types)
    assert a == checkgold_entities.inject_entities(units, lengths, 0.05, 3, types)
    new, errors, where = a
    n = sum(map(len, units))
    assert len(errors) == round(0.05 * n) == len(where)
    assert {e.kind for e in errors} == {"type", "boundary"}
    changed = [(s, j) for s in range(len(units)) for j in range(len(units[s]))
               if units[s][j] != new[s][j]]
    assert sorted(changed) == sorted(where)  # each changed entity is one error, once
    for (s, j), e in zip(where, errors):
        (a0, b0, t0), (a1, b1, t1) = units[s][j], new[s][j]
        assert (t0 != t1) == (e.kind == "type") and ((a0, b0) != (a1, b1)) == (e.kind != "type")
        assert 0 <= a1 < b1 <= lengths[s]
    for sentence in new:  # still disjoint, in order
        assert all(x[1] <= y[0] for x, y in zip(sentence, sentence[1:]))


def test_members_agreeing_on_a_type_rank_above_scattered_boundaries():
    from committee.metrics import checkgold_entities

    # two sentences of 10 characters, one gold entity each at [2, 5)
    lengths = [10, 10]
    gold = checkgold_entities.Entities.from_units([[(2, 5, "LOC")], [(2, 5, "PER")]], lengths)
    k = 6
    marks = np.zeros((k, 2), dtype=bool)
    pred = np.zeros((k, 20), dtype=bool)
    pred[:, 2:5] = True  # every member: an entity over exactly [2, 5), of another type
    for m, (a, b) in enumerate([(11, 15), (12, 16), (13, 15), (12, 14), (11, 16), (13, 16)]):
        pred[m, a:b] = True  # scattered spans around the second entity [12, 15)
    text = "我在北京市住" + "了很久" + "他是张三丰的人" + "呢呀哦"
    train_text = "北京市\n张三丰"
    train_gold = checkgold_entities.Entities.from_units([[(0, 3, "ORG")], [(0, 3, "PER")]], [4, 4])
    check = checkgold_entities.check_entities(gold, lengths, text, marks, pred, train_text, train_gold)
    c = check.candidates
    first = check.order[0]
    assert c.extra["kind"][first] == "type" and (c.start[first], c.end[first]) == (2, 5)
    assert c.extra["proposed"][first] == "北京市/ORG" and c.n_alt[first] == k
    second = [i for i in range(len(c)) if c.extra["entity"][i] == 1]
    assert second and all(c.n_alt[i] <= 2 for i in second)
    assert all(check.p[first] > check.p[i] for i in second)


@pytest.fixture(scope="module")
def ner_toy_run(tmp_path_factory):
    from test_ner import _config, _quiet, ner_corpus as _  # noqa: F401
    from committee.config import load_config
    from committee.corpus.embedded import with_entities
    from committee.pipeline import workflow

    d = tmp_path_factory.mktemp("ner-goldcheck")
    full = with_entities(embedded())
    for name, rows in (("train.bio", range(400)), ("test.bio", range(1000, 1040))):
        chars, tags = [], []
        for i in rows:
            c, t = [], []
            for w, tag in zip(full.words[i], full.tags[i]):
                for j, ch in enumerate(w):
                    c.append(ch)
                    t.append(tag if tag == "O" or j == 0 else "I-" + tag[2:])
            chars.append(c)
            tags.append(t)
        corpus_mod.write_bio(d / name, chars, tags)
    cfg = load_config(_config(d / "ner.yaml", d, d / "out"))
    with _quiet():
        workflow.run(cfg, progress=False)
    return d / "out"


def test_check_gold_and_gold_check_on_a_run_of_entities(ner_toy_run, tmp_path, capsys):
    assert main(["check-gold", str(ner_toy_run)]) == 0
    assert "3 committee members or the training data read the gold's" in \
        capsys.readouterr().out
    rows, summary = checkgold.read(ner_toy_run)
    assert summary["task"] == "ner" and rows
    p = paths(ner_toy_run)
    test = corpus_mod.read_corpus(p.test, format="bio")
    for r in rows[:10]:
        text = "".join(test.words[r["sentence"]])
        assert r["context"].replace("【", "").replace("】", "").strip("…") in text
        assert r["gold"] != r["proposed"]
    # an output that tags nothing: recall without the left-out entities, by hand
    out = tmp_path / "none.bio"
    corpus_mod.write_bio(out, test.words, [["O"] * len(s) for s in test.words])
    capsys.readouterr()
    assert main(["score", "--task", "ner", "--gold", str(p.test), "--difficulty",
                 str(ner_toy_run), "--check-gold", str(ner_toy_run), "--json", str(out)]) == 0
    sens = json.loads(capsys.readouterr().out)["check_gold"]
    assert sens["n_left_out"] == int(round(summary["expected_errors"]))
    row = sens["systems"][0]
    assert row["r"] == 0.0 and row["r_left_out"] == 0.0


def test_the_api_returns_the_rows_the_command_writes(toy_run, tmp_path):
    import committee

    run = tmp_path / "api"
    shutil.copytree(toy_run, run, ignore=shutil.ignore_patterns("check-gold.*"))
    result = committee.check_gold(run, write_files=False)
    assert not paths(run).check_gold.exists()
    written = committee.check_gold(run)
    assert paths(run).check_gold.read_text(encoding="utf-8") == result.tsv() == written.tsv()
    rows, summary = checkgold.read(run)
    assert [r["proposed"] for r in rows] == [r["proposed"] for r in result.rows]
    assert summary["expected_errors"] == pytest.approx(result.summary["expected_errors"])


def test_the_report_shows_the_list_and_the_scores_without_it(toy_run, tmp_path):
    run = tmp_path / "report"
    shutil.copytree(toy_run, run, ignore=shutil.ignore_patterns("check-gold.*"))
    test = corpus_mod.read_corpus(paths(run).test)
    by_char = tmp_path / "chars.txt"
    corpus_mod.write_sighan(by_char, [[c for w in s for c in w] for s in test.words])
    assert main(["report", str(run), "--only", "word_weights", "--system", str(by_char),
                 "--quiet"]) == 0
    page = (run / "report.md").read_text(encoding="utf-8")
    assert "## Suspicious gold" not in page and f"committee check-gold {run}" in page
    assert main(["check-gold", str(run)]) == 0
    assert main(["report", str(run), "--only", "word_weights", "--system", str(by_char),
                 "--quiet"]) == 0
    page = (run / "report.md").read_text(encoding="utf-8")
    assert "## Suspicious gold" in page and "| # | gold | proposed | evidence | sentence |" in page
    rows, summary = checkgold.read(run)
    assert f"lists {len(rows):,} spans" in page
    assert "【" + rows[0]["context"].split("【")[1] in page
    shown = (run / "report" / "check-gold.csv").read_text(encoding="utf-8").splitlines()
    assert len(shown) == 1 + min(20, len(rows))
    page_html = (run / "report.html").read_text(encoding="utf-8")
    assert "Suspicious gold: the most suspicious spans" in page_html
    assert json.dumps(rows[0]["proposed"], ensure_ascii=False) in page_html
    if int(round(summary["expected_errors"])):
        systems = (run / "report" / "check-gold-systems.csv").read_text(encoding="utf-8")
        assert "chars" in systems and "| system | f1 | f1 without | fb | fb without |" in page


def test_check_gold_without_the_members_readings_says_what_to_do(toy_run, tmp_path, capsys):
    run = tmp_path / "old"
    shutil.copytree(toy_run, run, ignore=shutil.ignore_patterns("check-gold.*",
                                                                "predictions.npz"))
    code = main(["check-gold", str(run)])
    err = capsys.readouterr().err
    assert code != 0 and "predictions.npz: no members' readings of the test set" in err
    assert err.count("\n") == 1 and not paths(run).check_gold.exists()


# --------------------------------------------------------------------------
# parts of speech


def test_tag_injection_is_seeded_and_each_error_counted_once():
    from committee.metrics import checkgold_tags

    full = embedded()
    words, tags = full.words[3000:3300], full.pos[3000:3300]
    train = checkgold_tags.TagVariation(full.words[:3000], full.pos[:3000])
    names = sorted({t for s in full.pos for t in s})
    a = checkgold_tags.inject_tags(words, tags, 0.03, 4, train, names)
    assert a == checkgold_tags.inject_tags(words, tags, 0.03, 4, train, names)
    new, errors, where = a
    before, after = [t for s in tags for t in s], [t for s in new for t in s]
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
    assert changed == where and len(errors) == len(where) == round(0.03 * len(before))
    flat = [w for s in words for w in s]
    for e, i in zip(errors, where):
        assert e.end - e.start == len(flat[i])  # the word's own span, once
        other = set(train.counts.get(flat[i], {})) - {before[i]}
        # a tag the training corpus gives the same word, when it gives one
        assert after[i] in (other or set(names))


def test_members_agreeing_on_a_tag_rank_above_scattered_tags():
    from committee.metrics import checkgold_tags

    names = ["a", "d", "n", "v", "vn"]
    words = [["研究", "工作"], ["研究", "工作"]]
    tags = [["v", "n"], ["v", "n"]]
    k = 6
    codes = np.array([[4, 2, 3, 2]] * k)          # every member: 研究/vn in sentence 1
    codes[:, 3] = [0, 1, 3, 4, 0, 1]              # 工作 in sentence 2: scattered
    train_words, train_tags = [["研究"], ["工作"]], [["vn"], ["n"]]
    check = checkgold_tags.check_tags(words, tags, codes, names, train_words, train_tags)
    c = check.candidates
    first = check.order[0]
    assert c.extra["gold"][first] == "研究/v" and c.extra["proposed"][first] == "研究/vn"
    assert (int(c.extra["unit"][first]), c.n_alt[first], c.n_wrong[first]) == (0, k, k)
    scattered = [i for i in range(len(c)) if c.extra["unit"][i] == 3]
    assert scattered and all(c.n_alt[i] <= 2 and c.n_wrong[i] == k for i in scattered)
    assert all(check.p[first] > check.p[i] for i in scattered)


def test_check_gold_and_gold_check_on_a_run_of_tagged_words(tmp_path, capsys):
    from test_pos_members import _toy_pos

    run = tmp_path / "run"
    assert main(["run", str(_toy_pos(tmp_path, run)), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["check-gold", str(run)]) == 0
    assert "3 committee members or the training data read the gold's" in capsys.readouterr().out
    rows, summary = checkgold.read(run)
    assert summary["task"] == "pos" and rows
    for r in rows[:10]:
        word, tag = r["gold"].rsplit("/", 1)
        assert r["proposed"].rsplit("/", 1)[0] == word and r["proposed"] != r["gold"]
        assert "【" + word + "】" in r["context"]
    assert main(["score", "--task", "pos", "--gold", str(run / "test.txt"), "--difficulty",
                 str(run), "--check-gold", str(run), "--json", str(run / "test.txt")]) == 0
    sens = json.loads(capsys.readouterr().out)["check_gold"]
    row = sens["systems"][0]  # the gold itself: perfect with or without the spans
    assert row["f1"] == row["f1_left_out"] == 1.0
    assert sens["n_left_out"] == int(round(summary["expected_errors"]))
    # the list of tagged words is no list of a segmentation's words
    words = tmp_path / "words.txt"
    corpus_mod.write_sighan(words, corpus_mod.read_corpus(run / "test.txt", format="pku").words)
    code = main(["score", "--gold", str(words), "--check-gold", str(run), str(words)])
    err = capsys.readouterr().err
    assert code == 3 and err == (
        f"committee: error: {run / 'check-gold.json'}: lists suspicious gold of a run of task "
        f"pos, the gold scored is of task segmentation: score {run / 'test.txt'} with --task pos, "
        "or run committee check-gold on the run of this gold\n")


def test_the_report_of_an_entity_run_shows_its_suspicious_entities(ner_toy_run, tmp_path):
    run = tmp_path / "ner-report"
    shutil.copytree(ner_toy_run, run, ignore=shutil.ignore_patterns("check-gold.*", "report*"))
    test = corpus_mod.read_corpus(paths(run).test, format="bio")
    none = tmp_path / "none.bio"
    corpus_mod.write_bio(none, test.words, [["O"] * len(s) for s in test.words])
    assert main(["check-gold", str(run)]) == 0
    assert main(["report", str(run), "--only", "entities", "--system", str(none), "--quiet"]) == 0
    page = (run / "report.md").read_text(encoding="utf-8")
    rows, summary = checkgold.read(run)
    assert "## Suspicious gold" in page and f"lists {len(rows):,} spans" in page
    assert rows[0]["proposed"] in page
    if int(round(summary["expected_errors"])):
        assert "| none |" in page


# --------------------------------------------------------------------------
# undefined metrics in the tables of committee score


def _last_lines(text: str, n: int) -> list[str]:
    return text.rstrip("\n").splitlines()[-n:]


def test_gold_check_without_difficulties_shows_undefined_fb_as_a_dash(toy_run, tmp_path,
                                                                         capsys):
    assert main(["check-gold", str(toy_run)]) == 0
    p = paths(toy_run)
    capsys.readouterr()
    code = main(["score", "--gold", str(p.test), "--check-gold", str(toy_run), "--metrics", "f1",
                 str(p.test)])
    out, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err
    rows, summary = checkgold.read(toy_run)
    n = int(round(summary["expected_errors"]))
    chars = sum(r["g_end"] - r["g_start"] for r in rows[:n])
    assert _last_lines(out, 5) == [
        f"check-gold ({toy_run}): the {n:,} most suspicious spans left out ({chars:,} characters)",
        f"{'system':<28} {'f1':>7} {'left out':>9} {'fb':>7} {'left out':>9}",
        f"{'test':<28} {'100.00':>7} {'100.00':>9} {'–':>7} {'–':>9}",
        "ranking by f1: unchanged without them",
        "ranking by fb: unchanged without them"]
    # the JSON keeps null for the undefined values
    assert main(["score", "--gold", str(p.test), "--check-gold", str(toy_run), "--json",
                 str(p.test)]) == 0
    row = json.loads(capsys.readouterr().out)["check_gold"]["systems"][0]
    assert (row["fb"], row["fb_left_out"], row["pb"], row["rb_left_out"]) == (None,) * 4


def test_gold_check_with_every_difficulty_zero_shows_a_dash(toy_run, tmp_path, capsys):
    assert main(["check-gold", str(toy_run)]) == 0
    p = paths(toy_run)
    test = corpus_mod.read_corpus(p.test)
    zero = tmp_path / "zero.weight"
    zero.write_text("".join(" ".join("0" for _ in s) + "\n" for s in test.words),
                    encoding="utf-8")
    capsys.readouterr()
    code = main(["score", "--gold", str(p.test), "--difficulty", str(zero), "--check-gold",
                 str(toy_run), str(p.test)])
    out, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err
    assert _last_lines(out, 3)[0] == f"{'test':<28} {'100.00':>7} {'100.00':>9} {'–':>7} {'–':>9}"


def test_an_entity_output_without_entities_shows_dashes(ner_toy_run, tmp_path, capsys):
    assert main(["check-gold", str(ner_toy_run)]) == 0
    p = paths(ner_toy_run)
    test = corpus_mod.read_corpus(p.test, format="bio")
    out = tmp_path / "none.bio"
    corpus_mod.write_bio(out, test.words, [["O"] * len(s) for s in test.words])
    capsys.readouterr()
    code = main(["score", "--task", "ner", "--gold", str(p.test), "--difficulty",
                 str(ner_toy_run), "--check-gold", str(ner_toy_run), str(out)])
    text, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err
    assert _last_lines(text, 3)[0] == f"{'none':<28} {'–':>7} {'–':>9} {'–':>7} {'–':>9}"


def test_format_sensitivity_of_undefined_values():
    sens = {"run": "runs/x", "n_left_out": 0, "n_chars_left_out": 0, "expected_errors": None,
            "systems": [{"system": "a", "f1": None, "f1_left_out": None, "fb": 0.5,
                         "fb_left_out": None}], "flips": {"f1": False, "fb": False}}
    assert checkgold.format_sensitivity(sens).splitlines()[:3] == [
        "check-gold (runs/x): the 0 most suspicious spans left out (0 characters)",
        f"{'system':<28} {'f1':>7} {'left out':>9} {'fb':>7} {'left out':>9}",
        f"{'a':<28} {'–':>7} {'–':>9} {'50.00':>7} {'–':>9}"]


def test_the_tables_of_committee_score_show_undefined_values_as_dashes():
    from committee.metrics import records
    from committee.scoring.results import ScoredSystems
    from committee.scoring.scores import format_table

    cols = [records.get("f1"), records.get("fb"), records.get("theta")]
    systems = [{"name": "a", "path": "a.txt", "f1": 0.5, "fb": None, "theta": None,
                "theta_se": None, "rank_f1": 1, "rank_fb": None,
                "ci": {"f1": [0.4, 0.6], "fb": [None, None]}},
               {"name": "b", "path": "b.txt", "f1": 0.25, "fb": None, "theta": 0.5,
                "theta_se": None, "rank_f1": 2, "rank_fb": None,
                "ci": {"f1": [0.2, 0.3], "fb": [None, None]},
                "paired": {k: {"against": "a", "share_a_better": 0.0 if k == "fb" else 0.9,
                               "delta": None if k == "fb" else 0.25} for k in ("f1", "fb")}}]
    text = format_table({"signature": "S", "systems": systems}, cols)
    assert text.splitlines() == [
        "system      f1      fb  #f1  #fb   theta",
        "a        50.00       –    1    –       –",
        "b        25.00       –    2    –   0.500",
        "",
        "95% bootstrap intervals:",
        "  a       f1 [40.00, 60.00]  fb [–, –]",
        "  b       f1 [20.00, 30.00]  fb [–, –]",
        "",
        "paired bootstrap (share of resamples in which the first system is better):",
        "  f1: a > b: 0.900",
        "  fb: a > b: –",
        "",
        "S"]
    assert ScoredSystems("S", systems).markdown(cols).splitlines()[2:4] == [
        "| a | 50.00 | – | – | 1 | – |", "| b | 25.00 | – | 0.500 | 2 | – |"]


def test_the_paired_bootstrap_of_an_undefined_fb_is_a_dash(toy_run, tmp_path, capsys):
    p = paths(toy_run)
    test = corpus_mod.read_corpus(p.test)
    chars = tmp_path / "chars.txt"
    corpus_mod.write_sighan(chars, [[c for w in s for c in w] for s in test.words])
    capsys.readouterr()
    code = main(["score", "--gold", str(p.test), "--bootstrap", "20", str(chars), str(p.test)])
    out, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err
    assert "  fb: test > chars: –" in out.splitlines()
    assert [line.split("  ")[-1] for line in out.splitlines() if line.startswith("  chars ")] == [
        "fb [–, –]"]


# --------------------------------------------------------------------------
# a list belongs to one gold


def _gold_check_of(toy_run, tmp_path, name="copy"):
    run = tmp_path / name
    shutil.copytree(toy_run, run, ignore=shutil.ignore_patterns("check-gold.*"))
    assert main(["check-gold", str(run)]) == 0
    return run


def _score_error(capsys, *args) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(map(str, args)))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return code, err.strip()


def test_check_gold_json_records_the_gold_and_the_run(toy_run, tmp_path):
    run = _gold_check_of(toy_run, tmp_path)
    summary = json.loads(paths(run).check_gold_json.read_text(encoding="utf-8"))
    manifest = json.loads(paths(run).manifest.read_text(encoding="utf-8"))
    test = corpus_mod.read_corpus(paths(run).test)
    assert summary["task"] == "segmentation"
    assert summary["test_sha256"] == manifest["files"]["test.txt"]
    assert summary["test_source_sha256"] == manifest["corpus"]["test"]["sha256"]
    assert summary["test_content_sha256"] == corpus_mod.content_sha256(test.words)
    assert summary["signature"] == manifest["signature"]
    assert summary["normalization"] is None


def test_gold_check_refuses_a_gold_of_the_same_sentences_reversed(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    lines = p.test.read_text(encoding="utf-8").splitlines(keepends=True)
    reverse = tmp_path / "reverse.txt"
    reverse.write_text("".join(reversed(lines)), encoding="utf-8")
    code, err = _score_error(capsys, "score", "--gold", reverse, "--check-gold", run, reverse)
    mine = corpus_mod.read_corpus(p.test).content_sha256
    theirs = corpus_mod.read_corpus(reverse).content_sha256
    assert code == 3 and err == (
        f"committee: error: {p.check_gold_json}: lists spans of the test set of {run} ({p.test}, "
        f"content sha256 {mine[:12]}), not of the gold {reverse} ({theirs[:12]}): run committee "
        f"check-gold on the run of that gold, or score against {p.test}")


def test_gold_check_refuses_an_entity_list_for_a_segmentation(toy_run, ner_toy_run, capsys):
    assert main(["check-gold", str(ner_toy_run)]) == 0
    p, ner = paths(toy_run), paths(ner_toy_run)
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", ner_toy_run,
                             p.test)
    assert code == 3 and err == (
        f"committee: error: {ner.check_gold_json}: lists suspicious gold of a run of task ner, "
        f"the gold scored is of task segmentation: score {ner.test} with --task ner, or run "
        "committee check-gold on the run of this gold")


def test_gold_check_names_the_normalisation_that_changes_the_gold(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    text = p.test.read_text(encoding="utf-8")
    assert corpus_mod.normalize(text, "nfkc") != text  # full-width digits and letters
    code, err = _score_error(capsys, "score", "--gold", p.test, "--normalize", "nfkc",
                             "--check-gold", run, p.test)
    assert code == 3 and err == (
        f"committee: error: {p.check_gold_json}: lists spans of the run's test set read with "
        f"normalization none; the gold {p.test} is that file read with --normalize nfkc, which "
        "changes its text: score with --normalize none")
    capsys.readouterr()
    assert main(["score", "--gold", str(p.test), "--normalize", "none", "--check-gold", str(run),
                 str(p.test)]) == 0


def test_the_same_gold_in_another_format_is_accepted(ner_toy_run, tmp_path, capsys):
    """The content checksum, not the file's bytes: the gold rewritten (CRLF
    line ends) is the same gold."""
    assert main(["check-gold", str(ner_toy_run)]) == 0
    p = paths(ner_toy_run)
    crlf = tmp_path / "crlf.bio"
    crlf.write_bytes(p.test.read_bytes().replace(b"\n", b"\r\n"))
    capsys.readouterr()
    assert main(["score", "--task", "ner", "--gold", str(crlf), "--difficulty", str(ner_toy_run),
                 "--check-gold", str(ner_toy_run), "--json", str(crlf)]) == 0


def _edit_summary(run, **changes):
    p = paths(run)
    summary = json.loads(p.check_gold_json.read_text(encoding="utf-8"))
    summary.update(changes)
    for key in [k for k, v in changes.items() if v is ...]:
        del summary[key]
    p.check_gold_json.write_text(json.dumps(summary), encoding="utf-8")


def test_a_list_of_an_older_version_is_refused(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    _edit_summary(run, test_content_sha256=..., test_sha256=..., signature=...)
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    assert code == 3 and err == (
        f"committee: error: {p.check_gold_json}: written by an older version of committee "
        f"check-gold (it does not record the test set its list belongs to); rerun committee "
        f"check-gold {run}")


def test_a_list_of_an_earlier_committee_in_the_directory_is_refused(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    _edit_summary(run, signature="committee-difficulty|K:2")
    manifest = json.loads(p.manifest.read_text(encoding="utf-8"))
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    assert code == 3 and err == (
        f"committee: error: {p.check_gold_json}: made for another committee (difficulty "
        f"signature committee-difficulty|K:2) than the run in this directory "
        f"({manifest['signature']}); rerun committee check-gold {run}")


@pytest.mark.parametrize("value, shown", [("-50", "-50"), ("1e300", "1e+300"),
                                          ('"abc"', '"abc"'), ("NaN", "NaN"),
                                          ("null", "null"), ("Infinity", "Infinity"),
                                          ("true", "true")])
def test_a_forged_expected_errors_is_refused(toy_run, tmp_path, capsys, value, shown):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    text = p.check_gold_json.read_text(encoding="utf-8")
    summary = json.loads(text)
    old = f'"expected_errors": {summary["expected_errors"]!r}'
    assert old in text
    p.check_gold_json.write_text(text.replace(old, f'"expected_errors": {value}'),
                                 encoding="utf-8")
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    n = summary["n_rows"]
    assert code == 3 and err in {
        f"committee: error: {p.check_gold_json}: expected_errors is {shown}, not a number from "
        f"0 to {n} (the rows of check-gold.tsv); rerun committee check-gold {run}",
        # NaN and Infinity are no JSON numbers: refused by the reader of run files
        f"committee: error: {p.check_gold_json}: not valid JSON ({shown} is not a JSON number), "
        f"so the files it records cannot be checked; rerun committee check-gold {run}"}
    if value not in ("NaN", "Infinity"):
        assert "not valid JSON" not in err


def test_a_check_gold_json_that_is_a_list_is_refused(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    p.check_gold_json.write_text("[1, 2]\n", encoding="utf-8")
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    assert code == 3 and err in {
        f"committee: error: {p.check_gold_json}: holds a JSON array, not an object; rerun "
        f"committee check-gold {run}",
        # the same refusal by the reader of run files, which checks the record first
        f"committee: error: {p.check_gold_json}: holds a JSON array, not an object, so the files "
        f"it records cannot be checked; rerun committee check-gold {run}"}


def test_a_check_gold_tsv_that_is_not_utf8_is_refused(toy_run, tmp_path, capsys):
    from committee.system.files import sha256_bytes

    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    data = p.check_gold.read_text(encoding="utf-8").encode("gb18030")
    p.check_gold.write_bytes(data)
    summary = json.loads(p.check_gold_json.read_text(encoding="utf-8"))
    _edit_summary(run, files={"check-gold.tsv": sha256_bytes(data)})
    with pytest.raises(UnicodeDecodeError) as info:
        data.decode("utf-8")
    bad = info.value.start + 1
    assert summary["n_rows"]
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    assert code == 3 and err == (
        f"committee: error: {p.check_gold}: not UTF-8 text (byte {bad}); rerun committee "
        f"check-gold {run}")


# --------------------------------------------------------------------------
# check-gold's own messages


def test_check_gold_on_a_file_says_it_is_no_run_directory(toy_run, capsys):
    test = paths(toy_run).test
    code = main(["check-gold", str(test)])
    err = capsys.readouterr().err
    assert code == 3 and err == (f"committee: error: {test}: is a file, not a directory: give "
                                 "the output.dir of a finished `committee run`\n")


def test_a_system_in_another_encoding_or_format_says_what_check_gold_reads(toy_run, tmp_path,
                                                                         capsys):
    p = paths(toy_run)
    test = corpus_mod.read_corpus(p.test)
    gb = tmp_path / "gb.txt"
    gb.write_bytes(p.test.read_text(encoding="utf-8").encode("gb18030"))
    with pytest.raises(UnicodeDecodeError) as info:
        gb.read_bytes().decode("utf-8")
    code = main(["check-gold", str(toy_run), "--system", str(gb)])
    err = capsys.readouterr().err
    assert code == 3 and err.startswith(
        f"committee: error: {gb}:1: cannot decode as utf-8 at byte {info.value.start + 1} (0x")
    assert err.endswith("): --system reads segmentations as UTF-8 SIGHAN files (words separated "
                        "by spaces); give this output in UTF-8 (it decodes as gb18030)\n")
    assert "--encoding" not in err and err.count("\n") == 1
    pku = tmp_path / "pku.txt"
    corpus_mod.write_pku(pku, test.words, [["n"] * len(s) for s in test.words])
    code = main(["check-gold", str(toy_run), "--system", str(pku)])
    err = capsys.readouterr().err
    assert code == 3 and err == (
        f"committee: error: {pku}:1: looks like pku (word/POS tokens), read as sighan: "
        "--system reads segmentations as UTF-8 SIGHAN files (words separated by spaces); give "
        "this output in that format\n")


def test_the_former_flag_name_works_and_says_the_new_one(toy_run, tmp_path, capsys):
    """``--gold-check``, the option's former name, scores as ``--check-gold``
    does and names the new one in a one-line warning; ``--help`` lists only the new."""

    assert main(["check-gold", str(toy_run)]) == 0
    gold = str(toy_run / "test.txt")
    out = tmp_path / "out.txt"
    out.write_text((toy_run / "test.txt").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["score", "--gold", gold, str(out), "--difficulty", str(toy_run),
                 "--check-gold", str(toy_run)]) == 0
    capsys.readouterr()
    assert main(["score", "--gold", gold, str(out), "--difficulty", str(toy_run),
                 "--check-gold", str(toy_run)]) == 0
    new = capsys.readouterr()
    assert main(["score", "--gold", gold, str(out), "--difficulty", str(toy_run),
                 "--gold-check", str(toy_run)]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and "check-gold (" in new.out
    assert old.err.splitlines()[0] == ("committee: warning: --gold-check is now --check-gold; "
                                       "the old name will go")
    assert old.err.splitlines()[1:] == new.err.splitlines()
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "--gold-check" not in capsys.readouterr().out



# --------------------------------------------------------------------------
# the training corpus around a span, names, the members that follow it


def _span_check(words, span, k_alt, k, train, train_pos=None):
    """The check of gold ``words`` where ``k_alt`` of ``k`` members read the
    two-character ``span`` as one word (the others as the gold does), and
    that span's candidate."""
    gold = S.ends_of(words)
    pred = _members(gold, [{span: (2,)}] * k_alt + [{}] * (k - k_alt))
    check = S.check_words(words, pred, train, _vocabulary(train), train_pos=train_pos)
    c = check.candidates
    i = next(j for j in range(len(c)) if (c.start[j], c.end[j]) == span and c.alt[j] == (2,))
    return check, i


def test_a_merge_across_a_boundary_the_training_data_makes_ranks_below_an_inconsistency():
    # 千余名人上 read with 名人, where the training data writes 余 名 人员 (a boundary
    # inside 名人 after 余), against 往年不同 read with 不同, where it writes 往年 不同:
    # the training data reads both strings as one word three times and never apart
    train = [["千", "余", "名", "人员"]] * 3 + [["名人"]] * 3 + [["往年", "不同"]] * 3
    merge, i = _span_check([["千", "余", "名", "人", "上"]], (2, 4), 4, 4, train)
    inconsistent, j = _span_check([["往年", "不", "同"]], (2, 4), 4, 4, train)
    mx, ix = merge.candidates.extra, inconsistent.candidates.extra
    assert (mx["train_alt"][i], mx["train_gold"][i]) == (ix["train_alt"][j], ix["train_gold"][j]) \
        == (3, 0)
    assert (mx["context_gold"][i], mx["context_alt"][i]) == (3, 0)  # 余名人 in 千 余 名 人员
    assert (ix["context_gold"][j], ix["context_alt"][j]) == (0, 3)  # 年不同 in 往年 不同
    col = S.WORD_FEATURES.index("context_ratio")
    assert merge.x[i, col] == pytest.approx(np.log(0.5 / 3.5))
    assert inconsistent.x[j, col] == pytest.approx(np.log(3.5 / 0.5))
    others = [f for f in range(len(S.WORD_FEATURES)) if f != col]
    assert merge.x[i, others] == pytest.approx(inconsistent.x[j, others])
    assert merge.p[i] < inconsistent.p[j]
    logit = np.log(inconsistent.p[j] / (1 - inconsistent.p[j])) - np.log(merge.p[i] / (1 - merge.p[i]))
    assert logit == pytest.approx(S.WEIGHTS[1 + col] * 2 * np.log(7))


def test_a_surname_split_from_its_given_name_weighs_against_the_merge():
    # 肖 红: the training data tags the one-character word 肖 nr (a surname) and has
    # the word 肖红 three times; joining them reads a name as a word
    train = [["肖", "华"]] * 3 + [["肖红"]] * 3
    pos = [["nr", "nr"]] * 3 + [["nr"]] * 3
    named, i = _span_check([["肖", "红", "说"]], (0, 2), 4, 4, train, pos)
    untagged, j = _span_check([["肖", "红", "说"]], (0, 2), 4, 4, train)
    col = S.WORD_FEATURES.index("surname")
    assert (named.x[i, col], untagged.x[j, col]) == (1, 0)
    odds = [p / (1 - p) for p in (named.p[i], untagged.p[j])]
    assert odds[0] / odds[1] == pytest.approx(np.exp(S.SURNAME_WEIGHT))
    assert S.joins_surname("肖红", (1, 1), (2,), {"肖"}.__contains__)
    assert not S.joins_surname("红肖", (1, 1), (2,), {"肖"}.__contains__)  # 肖 ends the span


def test_training_evidence_counts_as_far_as_the_members_follow_it():
    # the same span and training counts (家中 one word 20 times), read as one word by
    # 1 of 12 members and by 12 of 12: the training data's say is weighted by agree
    train = [["家中"]] * 20
    one, i = _span_check([["第一", "家", "中", "日"]], (2, 4), 1, 12, train)
    all_, j = _span_check([["第一", "家", "中", "日"]], (2, 4), 12, 12, train)
    ratio, seen = np.log(20.5 / 0.5), np.log(21)
    assert one.x[i, 3:5] == pytest.approx([ratio / 12, seen / 12])
    assert all_.x[j, 3:5] == pytest.approx([ratio, seen])
    assert one.p[i] < 0.5 < all_.p[j]


# --------------------------------------------------------------------------
# the hand-judged sample and what the command says


def test_the_hand_judged_sample_parses():
    from pathlib import Path

    from committee.metrics import checkgold_judged as J

    path = Path(__file__).resolve().parents[1] / "data" / "check-gold" / \
        "peoples-daily-adjudicated.tsv"
    judged = J.read_judged(path)
    assert len(judged) >= 100
    assert {j for j, _ in judged.values()} == set(J.JUDGEMENTS)
    for (sentence, start, end, gold, proposed), (judgement, reason) in judged.items():
        assert gold.replace(" ", "") == proposed.replace(" ", "") and len(gold.replace(" ", "")) \
            == end - start and gold != proposed
        assert "train: " in reason and len(reason.split()) >= 4, reason


@pytest.mark.parametrize("text, message", [
    ("sentence\tstart\tend\tgold\tproposed\tjudgement\n", "the header must name"),
    ("\t".join(("sentence", "start", "end", "gold", "proposed", "judgement", "reason"))
     + "\n1\t0\t2\t不 同\t不同\tgold-wrongish\tr\n", "a judgement of gold-wrong"),
    ("\t".join(("sentence", "start", "end", "gold", "proposed", "judgement", "reason"))
     + "\n1\t0\t2\t不 同\t不同\tunclear\t \n", "a reason"),
    ("\t".join(("sentence", "start", "end", "gold", "proposed", "judgement", "reason"))
     + "\n1\t0\t2\t不 同\t不同\tunclear\tr\n1\t0\t2\t不 同\t不同\tgold-right\tr\n",
     "judged twice")])
def test_a_judged_sample_without_a_judgement_or_a_reason_is_refused(text, message):
    from committee.errors import InputError
    from committee.metrics import checkgold_judged as J

    with pytest.raises(InputError, match=message):
        J.parse_judged(text)


def test_the_summary_line_says_what_the_list_is_in_plain_words():
    from committee.metrics.checkgold_judged import MEASURED

    summary = {"n_rows": 13770, "n_members": 12, "n_units": 103464, "units": "words",
               "expected_errors": 665.4, "task": "segmentation"}
    line = checkgold.summary_line("runs/x", summary)
    assert line.splitlines() == [
        "wrote runs/x/check-gold.tsv and check-gold.json: 13,770 places where the 12 committee "
        "members or the training data read the gold's 103,464 words otherwise, the likeliest "
        "annotation errors first.",
        "Judged by hand on the embedded People's Daily corpus, 40 of the first 50 were "
        "annotation errors, 7 were not and 3 unclear (docs/benchmarks.md); committee score "
        "--check-gold leaves out the first 665."]
    assert MEASURED["gold_wrong"] + MEASURED["gold_right"] + MEASURED["unclear"] == MEASURED["k"]
    assert MEASURED["gold_wrong"] / (MEASURED["gold_wrong"] + MEASURED["gold_right"]) >= 0.8
    # a list of entities or tags: the sample measured segmentations only
    assert checkgold.summary_line("runs/x", {**summary, "task": "ner", "units": "entities"}
                                  ).splitlines()[1] == ("committee score --check-gold leaves "
                                                        "out the first 665.")


def test_a_list_of_the_first_format_is_refused(toy_run, tmp_path, capsys):
    run = _gold_check_of(toy_run, tmp_path)
    p = paths(run)
    _edit_summary(run, version=...)
    code, err = _score_error(capsys, "score", "--gold", p.test, "--check-gold", run, p.test)
    assert code == 3 and err == (
        f"committee: error: {p.check_gold_json}: written by another version of committee "
        f"check-gold (list format 1, this one reads {checkgold.VERSION}); rerun committee "
        f"check-gold {run}")
