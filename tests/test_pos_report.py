"""``committee report`` on a run of tagged words (``task: pos``,
docs/method.md §14): Table 2 taggers, Fig. 1, the ranking, accuracy by
difficulty, "Tags by difficulty", IRT and the explorer's data.

Oracles: a member's tags (``predictions.npz``) and a re-segmented output
counted by hand, unit by unit ((start, end, tag) matches); per-tag means of
``words.tsv`` computed with numpy loops; ``committee score --task pos`` on
the same files.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from committee import corpus as corpus_mod
from committee import tasks
from committee.cli import main
from committee.errors import PlausibilityWarning
from committee.pipeline import marks as marks_mod
from committee.scoring import irt as irt_mod

POS = tasks.PART_OF_SPEECH
K = 6


def _units(words, tags):
    """Each sentence's (start, end, tag) units."""
    out = []
    for ws, ts in zip(words, tags):
        start, sent = 0, []
        for w, t in zip(ws, ts):
            sent.append((start, start + len(w), t))
            start += len(w)
        out.append(sent)
    return out


def _cut(flat, words):
    out, k = [], 0
    for s in words:
        out.append(flat[k:k + len(s)])
        k += len(s)
    return out


@pytest.fixture(scope="module")
def pos_report(tmp_path_factory):
    """A K = 6 toy POS run reported with two Table 2 taggers, one member's
    tags as an output file, and a re-segmented output (scored jointly)."""
    from test_pos_members import _toy_pos

    d = tmp_path_factory.mktemp("posreport")
    run = d / "run"
    cfg = _toy_pos(d, run, size=K)
    assert main(["run", str(cfg), "--quiet"]) == 0
    test = POS.prepare(corpus_mod.read_corpus(run / "test.txt", format="pku"))
    n = test.n_words()
    names, codes = marks_mod.read_labels(run / "predictions.npz", n, K)
    member = np.array(names)[codes[1]].tolist()
    corpus_mod.write_pku(d / "member1.txt", test.words, _cut(member, test.words))
    # every sentence's first two words merged, with the first one's tag
    joint_words = [[ws[0] + ws[1], *ws[2:]] if len(ws) > 1 else list(ws) for ws in test.words]
    joint_tags = [[ts[0], *ts[2:]] if len(ts) > 1 else list(ts) for ts in test.pos]
    corpus_mod.write_pku(d / "joint.txt", joint_words, joint_tags)
    assert main(["report", str(run), "--quiet", "--system", str(d / "member1.txt"),
                 "--system", str(d / "joint.txt"),
                 "--set", "experiments.table2_fractions=[0.5,1.0]",
                 "--set", "experiments.table2_preset=committee",
                 "--set", "experiments.split_half_repeats=5",
                 "--set", "experiments.irt_subset=50"]) == 0
    return {"dir": d, "run": run, "test": test, "member": member,
            "joint": (joint_words, joint_tags), "n": n}


def test_the_report_has_every_analysis_of_a_pos_run(pos_report):
    text = (pos_report["run"] / "report.md").read_text(encoding="utf-8")
    for heading in ("## Table 2: taggers trained on more data", "## Fig. 1:", "## Fig. 3:",
                    "## Fig. 4: accuracy by difficulty", "## Fig. 6:", "## Fig. 7:",
                    "## IRT:", "## Tags by difficulty", "### Accuracy by tag"):
        assert heading in text, heading
    assert "Not made:" not in text and "Committee of K = 6 CRF taggers" in text
    # the output with its own segmentation is named as scored jointly
    assert ("span and tag (on the gold segmentation, a system's accuracy on the tag's words; "
            "joint scored jointly with its own segmentation)") in text
    assert "--task pos --gold test.txt --difficulty test.weight" in text
    # buckets read segmentations, entities entity runs: said once
    assert ("Not made for a run of pos (word difficulties): buckets (it reads runs of "
            "segmentation); entities (it reads runs of ner).") in text


def test_systems_scores_equal_hand_counts_and_committee_score(pos_report, capsys):
    run, test, n = pos_report["run"], pos_report["test"], pos_report["n"]
    systems = pd.read_csv(run / "report" / "systems.csv").set_index("system")
    gold = [t for s in test.pos for t in s]
    right = np.array([a == b for a, b in zip(pos_report["member"], gold)])
    member = systems.loc["member1"]
    for k in ("p", "r", "f1"):  # on the gold segmentation: the tag accuracy
        assert member[k] == pytest.approx(right.mean(), abs=1e-12)
    # the joint output: exact (start, end, tag) units counted by hand
    g = _units(test.words, test.pos)
    p = _units(*pos_report["joint"])
    hits = sum(len(set(a) & set(b)) for a, b in zip(g, p))
    n_pred = sum(map(len, p))
    joint = systems.loc["joint"]
    assert joint["p"] == pytest.approx(hits / n_pred, abs=1e-12)
    assert joint["r"] == pytest.approx(hits / n, abs=1e-12)
    # and committee score --task pos on the same files, against the run
    for name in ("member1", "joint"):
        assert main(["score", "--task", "pos", "--gold", str(run / "test.txt"), "--difficulty",
                     str(run), "--train-words", str(run / "train-words.txt"), "--json",
                     str(pos_report["dir"] / f"{name}.txt")]) == 0
        scored = json.loads(capsys.readouterr().out)["systems"][0]
        for k in ("p", "r", "f1", "pb", "rb", "fb"):
            assert systems.loc[name][k] == pytest.approx(scored[k], abs=1e-12), (name, k)


def test_table2_taggers_keep_the_gold_words_and_score_their_accuracy(pos_report):
    run, test = pos_report["run"], pos_report["test"]
    table = pd.read_csv(run / "table2.csv").set_index("model")
    assert list(table.index) == ["F2 50%", "F2 100%"]
    gold = [t for s in test.pos for t in s]
    for model, file in (("F2 50%", "F2-50.txt"), ("F2 100%", "F2-100.txt")):
        out = corpus_mod.read_corpus(run / "report" / "table2" / file, format="pku")
        assert out.words == test.words  # taggers of the gold words
        tags = [t for s in out.pos for t in s]
        accuracy = np.mean([a == b for a, b in zip(tags, gold)])
        assert table.loc[model, "f1"] == pytest.approx(accuracy, abs=1e-12)
        assert 0.5 < accuracy < 1
    record = json.loads((run / "report" / "table2" / "F2-100.json").read_text("utf-8"))
    assert record["n_sentences"] == 300  # every training sentence


def test_tags_by_difficulty_equals_the_words_file(pos_report):
    run = pos_report["run"]
    words = pd.read_csv(run / "words.tsv", sep="\t", keep_default_na=False)
    table = pd.read_csv(run / "report" / "tags-all.csv",
                        keep_default_na=False).set_index("tag")
    tags, d = words["pos"].to_numpy(), words["difficulty"].to_numpy()
    assert set(table.index) == set(tags)
    for t in set(tags):
        mine = [x for x, y in zip(d, tags) if y == t]
        assert table.loc[t, "words"] == len(mine)
        assert table.loc[t, "mean_d"] == pytest.approx(sum(mine) / len(mine), abs=1e-12)
        assert table.loc[t, "d_half_or_more"] == pytest.approx(
            sum(x >= 0.5 for x in mine) / len(mine), abs=1e-12)
    # hardest first among the tags of 20 words or more, the figure's
    big = table[table["words"] >= 20]
    assert big["mean_d"].tolist() == sorted(big["mean_d"], reverse=True) and len(big) > 3
    figure = pd.read_csv(run / "report" / "tags-by-difficulty.csv", keep_default_na=False)
    assert figure["tag"].tolist() == big.index.tolist()
    # each system's recall per tag, by hand for the member's tags
    recall = pd.read_csv(run / "report" / "tags-recall.csv",
                         keep_default_na=False).set_index("tag")
    member = np.array(pos_report["member"])
    assert set(recall.index) == set(big.index)
    for t in big.index:
        assert recall.loc[t, "member1 recall"] == pytest.approx(
            float((member[tags == t] == t).mean()), abs=1e-12)
    assert (run / "report" / "tags-by-difficulty.png").stat().st_size > 10_000


def test_the_page_holds_tagged_words_and_their_outcomes(pos_report):
    run, test = pos_report["run"], pos_report["test"]
    text = (run / "report.html").read_text(encoding="utf-8")
    page = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>',
                                text, re.S).group(1))
    assert (page["task"], page["unit"], page["units"]) == ("pos", "word", "words")
    assert page["n_words"] == pos_report["n"]
    assert page["outcomes"] == ["correct", "wrong_tag", "wrong_boundary", "missed"]
    assert sorted(page["types"]) == sorted({t for s in test.pos for t in s})
    gold = [t for s in test.pos for t in s]
    by_name = {s["name"]: s for s in page["systems"]}
    wrong = sum(a != b for a, b in zip(pos_report["member"], gold))
    assert by_name["member1"]["error_types"] == {
        "correct": len(gold) - wrong, "wrong_tag": wrong, "wrong_boundary": 0, "missed": 0,
        "spurious": 0}
    # merging the first two words: both gold words lose their span
    merged = sum(2 for ws in test.words if len(ws) > 1)
    assert by_name["joint"]["error_types"]["wrong_boundary"] == merged
    assert "Tags by difficulty" in [a["title"] for a in page["analyses"]]


def test_irt_of_a_pos_run_reads_a_tagger_file(pos_report):
    """``committee irt RUN --system OUT`` reads a tagged file (pku), its
    outcomes those of its tags."""
    run = pos_report["run"]
    with pytest.warns(PlausibilityWarning, match="too few for the 2PL model"):
        summary = irt_mod.run(run, systems=[pos_report["dir"] / "member1.txt"], export=False)
    gold = [t for s in pos_report["test"].pos for t in s]
    [system] = summary["systems"]
    assert system["n_correct"] == sum(a == b for a, b in zip(pos_report["member"], gold))


def test_a_segmenter_that_tags_no_part_of_speech_is_refused(pos_report, capsys):
    assert main(["report", str(pos_report["run"]), "--quiet", "--only", "ranking",
                 "--set", "experiments.segmenters=[jiojio]"]) == 4  # a config error
    err = capsys.readouterr().err
    assert err == ("committee: error: --set experiments.segmenters=[jiojio]: "
                   "experiments.segmenters[0]: jiojio: not a "
                   "part-of-speech tagger; part-of-speech taggers: jieba, thulac, lac, "
                   "cmd:COMMAND\n")


def test_a_tiny_pos_committee_is_reported_by_its_run_without_irt(tmp_path):
    """K = 3, the analyses switched on in the config: ``committee run``
    writes the report too; IRT says why it is not fitted."""
    from test_pos_members import _toy_pos

    run = tmp_path / "run"
    cfg = _toy_pos(tmp_path, run)
    assert main(["run", str(cfg), "--quiet", "--set", "experiments.tags=true",
                 "--set", "experiments.irt=true", "--set", "experiments.stability=true"]) == 0
    text = (run / "report.md").read_text(encoding="utf-8")
    assert "Analyses: stability, irt, tags;" in text
    assert "Not fitted: 3 members are too few for an IRT fit" in text
    assert "## Tags by difficulty" in text and "## Fig. 1" in text and "Not made:" not in text
    assert (run / "report.html").is_file()


def test_the_page_explores_tagged_words_in_a_browser(pos_report):
    """report.html of a part-of-speech run in chromium: every gold word
    listed with its gold tag; the filter by gold tag keeps that tag's words;
    the outcome filter counts a system's wrong tags; a word's detail shows
    its sentence with every word's tag; no console error."""
    from test_html_report import _chromium

    exe = _chromium()
    from playwright.sync_api import sync_playwright

    run, test = pos_report["run"], pos_report["test"]
    gold = [t for s in test.pos for t in s]
    wrong = sum(a != b for a, b in zip(pos_report["member"], gold))
    tag = max(set(gold), key=gold.count)  # the most frequent gold tag
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=["--no-sandbox", "--disable-background-networking"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        pg.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto((run / "report.html").as_uri())
        pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
        count = lambda: int(pg.text_content("[data-testid=item-count]").replace(",", ""))  # noqa: E731
        assert count() == len(gold)
        assert "gold words" in pg.text_content("#item-count-of")
        headers = [h.text_content() for h in pg.locator("#items thead th").all()]
        assert headers[:3] == ["#", "word", "gold tag"]
        options = [o.text_content() for o in pg.locator("[data-testid=filter-type] option").all()]
        assert options[0] == "any tag" and f"{tag} ({gold.count(tag)})" in options
        pg.select_option("[data-testid=filter-type]", label=f"{tag} ({gold.count(tag)})")
        assert count() == gold.count(tag)
        cells = {c.text_content() for c in pg.locator("#items tbody td[data-key=label]").all()}
        assert cells == {tag}
        pg.click("#f-reset")
        names = [o.text_content() for o in pg.locator("[data-testid=filter-system] option").all()]
        pg.select_option("[data-testid=filter-system]", str(names.index("member1") - 1))
        pg.select_option("[data-testid=filter-outcome]", "wrong_tag")
        assert count() == wrong
        pg.click("#f-reset")
        pg.click("#items tbody tr:first-child")
        detail = pg.text_content("[data-testid=detail]")
        first = test.words[0][0]
        assert detail.startswith(f"“{first}” ({test.pos[0][0]}), word 1, sentence 1")
        # the gold line: every word of the sentence with its tag below it
        line = pg.locator("#detail tr").first.locator("span.w")
        assert line.count() == len(test.words[0])
        assert line.first.text_content() == first + test.pos[0][0]
        browser.close()
    assert errors == []


def test_from_run_builds_the_page_data_of_a_pos_run(pos_report):
    """``committee.report.html.from_run`` on a part-of-speech run: the
    Table 2 taggers the report kept, scored as ``committee score --task pos``
    (the report's systems.csv), encoded as tagged words."""
    from committee.report import html

    run = pos_report["run"]
    data = html.from_run(run, analyses=[])
    assert data.page == "pos" and data.units is not None
    assert [s.name for s in data.systems] == ["F2-100", "F2-50"]
    table = pd.read_csv(run / "table2.csv").set_index("model")
    for s, model in zip(data.systems, ("F2 100%", "F2 50%")):
        assert s.scores["f1"] == pytest.approx(table.loc[model, "f1"], abs=1e-12)
        assert s.tags is not None and s.words == pos_report["test"].words
    page = html.encode(data)
    assert page["task"] == "pos" and page["outcomes"][1] == "wrong_tag"
    assert "match:exact-tag" in page["signature"]


def test_tags_by_difficulty_without_a_tag_of_enough_words(pos_report, tmp_path, monkeypatch):
    """No tag reaches the floor of words: the table of every tag stays, the
    section says why there is no figure and no accuracy by tag, and the
    report holds no broken link."""
    import shutil

    from committee.report.analyses import tags as tags_mod

    run = tmp_path / "run"
    shutil.copytree(pos_report["run"], run)
    monkeypatch.setattr(tags_mod, "MIN_WORDS", 10 ** 6)
    assert main(["report", str(run), "--quiet", "--only", "tags"]) == 0
    text = (run / "report.md").read_text(encoding="utf-8")
    section = text.split("## Tags by difficulty", 1)[1]
    assert "no tag has 1000000 words or more, so there is no figure and no accuracy by tag" \
        in section
    assert "tags-by-difficulty.png" not in text and "### Accuracy by tag" not in section
    # the earlier build's figure and accuracies are gone with them
    assert not (run / "report" / "tags-by-difficulty.png").exists()
    assert not (run / "report" / "tags-recall.csv").exists()
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "tags-recall.csv was not written" not in page  # no system: none expected
    all_tags = pd.read_csv(run / "report" / "tags-all.csv", keep_default_na=False)
    assert len(all_tags) == len({t for s in pos_report["test"].pos for t in s})


def test_the_suspicious_gold_section_of_a_pos_report(pos_report, tmp_path):
    """After ``committee check-gold`` the report's "Suspicious gold" section
    is made on a pos run, and it rescores a tagger without given words, its
    tags going with them (hand count of the member's accuracy on the rest)."""
    import shutil

    from committee.report import checkgold
    from committee.report.rundata import load_run
    from committee.report.analyses import Context
    from committee.report.systems import System, score

    run = tmp_path / "run"
    shutil.copytree(pos_report["run"], run)
    assert main(["check-gold", str(run)]) == 0
    assert main(["report", str(run), "--quiet", "--only", "ranking", "--system",
                 str(pos_report["dir"] / "member1.txt")]) == 0
    text = (run / "report.md").read_text(encoding="utf-8")
    assert "## Suspicious gold" in text and "Suspicious gold: not made" not in text
    # without the first word of every sentence
    data = load_run(run)
    test = pos_report["test"]
    ctx = Context(None, data, run / "report")
    member = _cut(pos_report["member"], test.words)
    ctx.others = [System("member1", "system", test.words, tags=member)]
    score(ctx.others, data.collector(), data.test,
          data.score_signature(), data.task_record)
    mask = np.zeros(test.n_chars(), dtype=bool)
    start = 0
    for ws in test.words:
        mask[start:start + len(ws[0])] = True
        start += sum(map(len, ws))
    [row] = checkgold._without(ctx, mask)
    kept = [a == b for ws, ms, gs in zip(test.words, member, test.pos)
            for a, b in zip(ms[1:], gs[1:])]
    assert row["f1_left_out"] == pytest.approx(np.mean(kept), abs=1e-12)
    assert row["f1"] == pytest.approx(
        np.mean([a == b for ms, gs in zip(member, test.pos) for a, b in zip(ms, gs)]), abs=1e-12)
