"""report.html (committee.report.html): the encoded data, and the page in a real
browser (Debian's chromium driven by Playwright; skipped with a reason where
either is missing).  Screenshots are kept in the test's tmp directory."""

from __future__ import annotations

import base64
import json
import random
import shutil
import re
import subprocess
import sys

import numpy as np
import pytest

from committee import corpus as corpus_mod
from committee import metrics
from committee.pipeline import workflow
from committee.report import html as html_mod
from committee.config import load_config
from committee.corpus import Corpus
from committee.errors import InputError
from committee.report.html import Analysis, ReportData, SystemData
from committee.tasks.spans import OUTCOMES, outcomes, spans
from toyrun import make_toy_corpus, write_config

GOLD = [["约翰", "喜欢", "玛丽", "和", "猫"], ["我", "爱", "北京"]]
PRED = [["约翰", "喜", "欢", "玛", "丽和", "猫"], ["我爱", "北京"]]


def _decode(a: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(a["b64"]), dtype=np.dtype(a["dtype"]).newbyteorder("<"))


def test_encode_round_trips_words_difficulties_and_outcomes():
    d = [0.0, 0.5, 1.0, 0.5, 0.0, 0.25, 0.25, 0.0]
    oov = [0, 1, 0, 0, 1, 0, 0, 1]
    page = html_mod.encode(ReportData("demo", "sig", GOLD, d, [SystemData("s", PRED)], oov=oov))
    vocab, ids = page["vocab"], _decode(page["word_ids"])
    assert [vocab[i] for i in ids] == [w for s in GOLD for w in s]
    assert np.array(page["d_values"])[_decode(page["d_codes"])].tolist() == d
    assert _decode(page["oov"]).tolist() == oov
    assert _decode(page["sentence_words"]).tolist() == [5, 3]
    s = page["systems"][0]
    # by hand: 约翰 correct, 喜欢 split, 玛丽 crossed, 和 merged, 猫 correct; 我 爱 merged, 北京 correct
    assert [OUTCOMES[c] for c in _decode(s["outcome"])] == [
        "correct", "split", "crossed", "merged", "correct", "merged", "merged", "correct"]
    assert s["error_types"] == {"correct": 3, "split": 1, "merged": 3, "crossed": 1}
    # one bit per character, set at the last character of each predicted word
    bits = np.unpackbits(_decode(s["ends"]), bitorder="little")[:page["n_chars"]]
    assert np.flatnonzero(bits).tolist() == [1, 2, 3, 4, 6, 7, 9, 11]


def test_encode_refuses_bad_input():
    with pytest.raises(ValueError, match="d has shape"):
        html_mod.encode(ReportData("x", "", GOLD, [0.0] * 3))
    with pytest.raises(InputError, match="characters differ"):
        html_mod.encode(ReportData("x", "", GOLD, [0.0] * 8,
                                     [SystemData("bad", [["约翰喜欢玛丽和狗"], ["我爱北京"]])]))
    with pytest.raises(ValueError, match="chart 'pie'"):
        html_mod.encode(ReportData("x", "", GOLD, [0.0] * 8,
                                     analyses=[Analysis("t", {"a": [1]}, "pie")]))
    with pytest.raises(ValueError, match="no column 'b'"):
        html_mod.encode(ReportData("x", "", GOLD, [0.0] * 8,
                                     analyses=[Analysis("t", {"a": [1]}, "line", x="b")]))


def test_page_data_cannot_close_its_script_element(tmp_path):
    gold = [["</script>", "<b>"]]
    path = html_mod.write_html(tmp_path / "r.html",
                                 ReportData("<i>run</i>", "", gold, [0.0, 1.0],
                                            [SystemData("</script><b>", gold)]))
    text = path.read_text(encoding="utf-8")
    start = text.index('<script id="report-data"')
    body = text[start:text.index("</script>", start)]
    data = json.loads(body[body.index(">") + 1:])
    assert data["vocab"] == ["</script>", "<b>"] and data["systems"][0]["name"] == "</script><b>"


# --------------------------------------------------------------------------
# a toy run with three systems, scored by the CLI as well


def _perturb(sentences, seed):
    rng = random.Random(seed)
    out = []
    for s in sentences:
        words = []
        for w in s:
            if words and rng.random() < 0.15:
                words[-1] += w
            elif len(w) > 1 and rng.random() < 0.2:
                k = rng.randrange(1, len(w))
                words += [w[:k], w[k:]]
            else:
                words.append(w)
        out.append(words)
    return out


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = make_toy_corpus(tmp_path_factory.mktemp("toy-html"))
    test_words = corpus_mod.read_corpus(d / "test.txt").words
    corpus_mod.write_sighan(d / "chars.txt", [[c for w in s for c in w] for s in test_words])
    corpus_mod.write_sighan(d / "noisy.txt", _perturb(test_words, 1))
    corpus_mod.write_sighan(d / "noisier.txt", _perturb(_perturb(test_words, 2), 3))
    write_config(d / "toy.yaml", d, d / "run", backend="sequential", experiments="""\
  stability: true
  linguistic: true
  bins: true
  ranking: true
  systems: [chars.txt, noisy.txt, noisier.txt]
  split_half: true
  split_half_repeats: 10
  word_weights: true
  word_weight_sentences: [0, 3]
  buckets: true
  buckets_bootstrap: 50
""")
    out = workflow.run(load_config(d / "toy.yaml"), progress=False)
    files = [d / "chars.txt", d / "noisy.txt", d / "noisier.txt"]
    data = html_mod.from_run(out, files, n_bootstrap=50)
    page = html_mod.write_html(out / "report.html", data)
    cli = subprocess.run(
        [sys.executable, "-m", "committee", "score", "--gold", str(out / "test.txt"),
         "--difficulty", str(out / "test.weight"), "--train-words", str(out / "train-words.txt"),
         "--bootstrap", "50", "--json", *map(str, files)], capture_output=True, text=True, check=True)
    return {"dir": d, "run": out, "data": data, "page": page, "files": files,
            "json": json.loads(cli.stdout)}


def test_report_signs_as_committee_score_whichever_difficulty_file(toy):
    """report.md's signature is the one ``committee score`` gives the same
    inputs, and the run's .weight and .weight_c (the same difficulties, per
    word and per character) sign the same."""
    run = toy["run"]
    line = next(x for x in (run / "report.md").read_text(encoding="utf-8").splitlines()
                if x.startswith("Scores: `"))
    in_report = line.split("`")[1]
    signatures = []
    for weight in ("test.weight", "test.weight_c"):
        cli = subprocess.run(
            [sys.executable, "-m", "committee", "score", "--gold", str(run / "test.txt"),
             "--difficulty", str(run / weight), "--train-words", str(run / "train-words.txt"),
             "--json", str(toy["files"][0])], capture_output=True, text=True, check=True)
        signatures.append(json.loads(cli.stdout)["signature"])
    assert signatures == [in_report, in_report]
    assert "|difficulty:sha256=" in in_report and "|oov:words=" in in_report
    page = json.loads(re.search(r'<script id="report-data" type="application/json">(.*?)</script>',
                                (run / "report.html").read_text(encoding="utf-8"), re.S)[1])
    # the fixture rewrote the page with 50 bootstrap resamples
    assert page["signature"].replace("|bootstrap:50,seed=12345", "") == in_report
    assert [m["key"] for m in page["metrics"]] == [
        "p", "r", "f1", "pb", "rb", "fb", "oov_recall", "iv_recall", "er", "tnr", "boundary_f1",
        "theta"]


def test_from_run_scores_as_committee_score_does(toy):
    data, js = toy["data"], toy["json"]
    assert data.signature == js["signature"]
    assert [s.name for s in data.systems] == [s["name"] for s in js["systems"]]
    for s, row in zip(data.systems, js["systems"]):
        assert s.scores["counts"] == row["counts"]
        assert s.scores["fb"] == pytest.approx(row["fb"], abs=1e-12)
    titles = [a.title for a in data.analyses]
    assert any(t.startswith("Fig. 4") for t in titles) and any(t.startswith("Fig. 1") for t in titles)


# --------------------------------------------------------------------------
# the page in a browser


def _chromium() -> str:
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (scripts/bootstrap.sh test)")
    del sync_api
    exe = shutil.which("chromium")
    if exe is None:
        reason = ("no chromium on PATH: the browser tests of report.html need Debian's chromium "
                  "(apt-get install chromium, done by scripts/bootstrap.sh test as root)")
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    return exe


@pytest.fixture(scope="module")
def browser():
    exe = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True,
                               args=["--no-sandbox", "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def opened(browser, toy, tmp_path_factory):
    """The toy report opened from disk once; console messages and requests recorded."""
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    pg.messages, pg.requests = [], []
    pg.on("console", lambda m: pg.messages.append((m.type, m.text)))
    pg.on("pageerror", lambda e: pg.messages.append(("pageerror", str(e))))
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(toy["page"].as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
    pg.shots = tmp_path_factory.mktemp("screenshots")
    yield pg
    pg.close()


@pytest.fixture()
def page(opened):
    """The opened report with the explorer's filters and sort reset."""
    opened.click("#f-reset")
    yield opened
    errors = [m for m in opened.messages if m[0] in ("error", "pageerror", "warning")]
    assert errors == [], errors


def _wait_count(pg, expected: int) -> None:
    for _ in range(100):  # the search box applies its text after a short pause
        if _count(pg) == expected:
            return
        pg.wait_for_timeout(50)
    assert _count(pg) == expected


def _count(pg) -> int:
    return int(pg.text_content("[data-testid=item-count]").replace(",", ""))


def _flat(toy):
    run = toy["data"]
    return [w for s in run.gold for w in s], np.asarray(run.d)


def _shot(pg, name: str) -> None:
    path = pg.shots / f"{name}.png"
    pg.screenshot(path=str(path), full_page=name == "full")
    print(f"screenshot: {path}")


def test_page_loads_offline_without_console_errors(page, toy):
    _shot(page, "full")
    assert [m for m in page.messages if m[0] in ("error", "pageerror", "warning")] == []
    assert all(u.startswith(("file:", "data:")) for u in page.requests), page.requests
    # charts drawn (Plotly made an svg per chart) and the overview names the run
    assert page.locator(".chart .main-svg").count() >= 5
    assert page.text_content("[data-testid=n-words]") == f"{len(_flat(toy)[0]):,}"


def test_explorer_lists_every_gold_word(page, toy):
    words, _ = _flat(toy)
    assert _count(page) == len(words)
    seen = []
    while True:
        seen += page.eval_on_selector_all("#items tbody tr",
                                          "rows => rows.map(r => +r.dataset.word)")
        if page.is_disabled("[data-testid=page-next]"):
            break
        page.click("[data-testid=page-next]")
    assert seen == list(range(len(words)))
    texts = page.eval_on_selector_all("#items tbody td[data-key=word]",
                                      "cells => cells.map(c => c.textContent)")
    assert texts == words[-len(texts):]


def test_search_narrows_to_the_words_occurrences(page, toy):
    words, _ = _flat(toy)
    target = next(w for w in words if len(w) == 2 and words.count(w) >= 2)
    page.check("[data-testid=item-search-exact]")
    page.fill("[data-testid=item-search]", target)
    _wait_count(page, words.count(target))
    shown = page.eval_on_selector_all("#items tbody td[data-key=word]",
                                      "cells => cells.map(c => c.textContent)")
    assert shown == [target] * words.count(target)
    _shot(page, "search")
    page.uncheck("[data-testid=item-search-exact]")  # substring search: every word containing it
    char = target[0]
    expected = sum(char in w for w in words)
    page.fill("[data-testid=item-search]", char)
    _wait_count(page, expected)


def test_difficulty_filter_keeps_the_right_count(page, toy):
    _, d = _flat(toy)
    page.fill("[data-testid=filter-dmin]", "0.3")
    page.fill("[data-testid=filter-dmax]", "0.7")
    expected = int(((d >= 0.3) & (d <= 0.7)).sum())
    assert 0 < expected < len(d)
    assert _count(page) == expected
    shown = page.eval_on_selector_all("#items tbody td[data-key=d]",
                                      "cells => cells.map(c => +c.textContent)")
    assert shown and all(0.3 <= x <= 0.7 for x in shown)
    page.select_option("[data-testid=filter-oov]", "oov")
    oov = np.asarray(toy["data"].oov)
    assert _count(page) == int(((d >= 0.3) & (d <= 0.7) & oov).sum())


def test_outcome_filter_counts_equal_the_scorer(page, toy):
    run = toy["data"]
    gold = Corpus("gold", run.gold, list(range(1, len(run.gold) + 1)))
    for k, s in enumerate(run.systems):
        counts = metrics.error_types(gold, Corpus(s.name, s.words, gold.lines))
        page.select_option("[data-testid=filter-system]", str(k))
        for name in OUTCOMES:
            page.select_option("[data-testid=filter-outcome]", name)
            assert _count(page) == counts[name], (s.name, name)
    # "any system": words that at least one system splits
    page.select_option("[data-testid=filter-system]", "-1")
    page.select_option("[data-testid=filter-outcome]", "split")
    g = spans(run.gold)
    any_split = np.zeros(len(g.starts), dtype=bool)
    for s in run.systems:
        any_split |= outcomes(g, spans(s.words)) == OUTCOMES.index("split")
    assert _count(page) == int(any_split.sum())
    _shot(page, "outcome-filter")


def test_sorting_orders_rows(page, toy):
    _, d = _flat(toy)
    page.click("#items th[data-key=d]")  # first click: hardest first
    shown = page.eval_on_selector_all("#items tbody td[data-key=d]",
                                      "cells => cells.map(c => +c.textContent)")
    assert shown == sorted(shown, reverse=True) and shown[0] == pytest.approx(d.max(), abs=5e-4)
    page.click("#items th[data-key=len]")
    page.click("#items th[data-key=len]")  # second click: shortest first
    lengths = page.eval_on_selector_all("#items tbody td[data-key=len]",
                                        "cells => cells.map(c => +c.textContent)")
    assert lengths == sorted(lengths) and lengths[0] == 1
    _shot(page, "sorted")


def test_systems_table_shows_the_json_scores_and_sorts(page, toy):
    js = {s["name"]: s for s in toy["json"]["systems"]}
    for name, row in js.items():
        cells = page.locator(f"#systems-table tr[data-system='{name}']")
        for key in ("p", "r", "f1", "fb"):
            text = cells.locator(f"td[data-key={key}]").text_content()
            assert text.startswith(f"{100 * row[key]:.2f}"), (name, key, text)
        correct = cells.locator("td[data-key=n_correct]").text_content()
        assert int(correct.replace(",", "")) == row["counts"]["n_correct"]
        ci = cells.locator("td[data-key=f1] .ci").text_content()  # bootstrap interval shown
        lo, hi = (float(x) for x in ci.split("–"))
        assert lo <= 100 * row["f1"] + 0.01 and 100 * row["f1"] - 0.01 <= hi
    page.click("#systems-table th[data-key=fb]")
    order = page.eval_on_selector_all("#systems-table tbody tr",
                                      "rows => rows.map(r => r.dataset.system)")
    assert order == sorted(js, key=lambda n: -js[n]["fb"])
    page.click("#systems-table th[data-key=fb]")
    assert page.eval_on_selector_all("#systems-table tbody tr",
                                     "rows => rows.map(r => r.dataset.system)") == order[::-1]


def test_a_versus_b_counts(page, toy):
    run = toy["data"]
    g = spans(run.gold)
    right = {s.name: outcomes(g, spans(s.words)) == 0 for s in run.systems}
    a, b = run.systems[1].name, run.systems[2].name
    page.select_option("[data-testid=vs-a]", "1")
    page.select_option("[data-testid=vs-b]", "2")
    total = page.text_content("[data-testid=vs-table] tr[data-row=a] td[data-key=all]")
    assert int(total.replace(",", "")) == int((right[a] & ~right[b]).sum())
    total = page.text_content("[data-testid=vs-table] tr[data-row=b] td[data-key=all]")
    assert int(total.replace(",", "")) == int((right[b] & ~right[a]).sum())
    page.locator("#versus").scroll_into_view_if_needed()
    _shot(page, "versus")


def test_row_click_shows_each_systems_segmentation(page, toy):
    run = toy["data"]
    page.locator("#items tbody tr").nth(1).click()
    segs = page.eval_on_selector_all("#detail .seg", "ds => ds.map(d => Array.from("
                                     "d.querySelectorAll('span.w')).map(s => s.textContent))")
    assert segs[0] == run.gold[0]
    assert segs[1:] == [s.words[0] for s in run.systems]
    page.locator("#detail").scroll_into_view_if_needed()
    _shot(page, "detail")


# --------------------------------------------------------------------------
# a sentence longer than the page is wide, opened in the explorer

_PHRASE = ["张三", "在", "北京", "会见", "了", "李四", "，"]  # 张三 PER, 北京 LOC, 李四 PER


def _long_sentence_page(tmp_path, kind: str):
    """A page whose second sentence has 330 words (segmentation) or 990
    characters and 142 entities (entities), and the item to open: one near
    the end of that sentence, the only one with d = 1 (first when the
    explorer lists the hardest first)."""
    long = [_PHRASE[k % len(_PHRASE)] for k in range(330)]
    gold = [["今天", "下雨"], long, ["好"]]
    if kind == "words":
        merged = [w for k in range(0, len(long), 2) for w in ["".join(long[k:k + 2])]]
        system = SystemData("pairs", [gold[0], merged, gold[2]])
        item, d = 2 + 320, np.zeros(sum(map(len, gold)))
        d[item] = 1.0
        data = ReportData("long", "", gold, d, [system])
        return html_mod.write_html(tmp_path / "long.html", data), item, long[320]
    sentences = [list("今天下雨"), list("".join(long)), list("好")]
    units, tags, at = [[], [], []], [], 0
    for k, w in enumerate(long):
        label = {0: "PER", 2: "LOC", 5: "PER"}.get(k % len(_PHRASE))
        if label:
            units[1].append((at, at + len(w), label))
            # the tagger calls every third place an organisation
            said = "ORG" if label == "LOC" and k % 3 == 0 else label
            tags += [f"B-{said}"] + [f"I-{said}"] * (len(w) - 1)
        else:
            tags += ["O"] * len(w)
        at += len(w)
    system = SystemData("tagger", sentences, tags=[["O"] * 4, tags, ["O"]])
    item, d = len(units[1]) - 3, np.zeros(len(units[1]))
    d[item] = 1.0
    data = ReportData("long", "", sentences, d, [system], units=units)
    a, b, _ = units[1][item]
    return html_mod.write_html(tmp_path / "long.html", data), item, "".join(long)[a:b]


_LAYOUT = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
  const hit = document.querySelector('#detail .seg span.hit');
  return { scrollWidth: document.documentElement.scrollWidth, width: innerWidth,
           height: innerHeight, header: document.querySelector('header').getBoundingClientRect().bottom,
           panel: box(document.querySelector('#detail')),
           section: box(document.querySelector('#explorer')),
           rows: Array.from(document.querySelectorAll('#detail tr')).map(box),
           hit: box(hit), hitText: hit.firstChild.textContent };
}"""


@pytest.mark.parametrize("kind", ["words", "entities"])
def test_a_long_sentence_wraps_in_its_panel_with_the_chosen_item_in_view(browser, tmp_path, kind):
    """A 330-word sentence opened from a word near its end, listed first
    with every other word below it: its lines wrap inside the explorer's
    panel (no sideways scroll), and the page scrolls the chosen word, marked
    in gold, into view below the sticky header."""
    path, item, text = _long_sentence_page(tmp_path, kind)
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    pg.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(path.as_uri())
        pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
        pg.select_option("[data-testid=page-size]", "1000")
        pg.click("#items th[data-key=d]")  # hardest first: the rows of every other word below
        assert pg.get_attribute("#items tbody tr:first-child", "data-word") == str(item)
        pg.click("#items tbody tr:first-child")
        at = pg.evaluate(_LAYOUT)
        pg.screenshot(path=str(tmp_path / f"long-{kind}.png"))
        print(f"screenshot: {tmp_path / f'long-{kind}.png'}")
    finally:
        pg.close()
    assert at["hitText"] == text
    assert at["scrollWidth"] <= at["width"], at  # no sideways scroll
    panel, section = at["panel"], at["section"]
    assert section["l"] <= panel["l"] and panel["r"] <= section["r"], at
    assert len(at["rows"]) == 2  # gold and the one system
    for row in at["rows"]:
        assert panel["l"] <= row["l"] and row["r"] <= panel["r"], (row, panel)
    assert at["rows"][0]["b"] - at["rows"][0]["t"] > 100  # the sentence took several lines
    hit = at["hit"]
    assert 0 <= hit["l"] and hit["r"] <= at["width"], hit
    assert at["header"] <= hit["t"] and hit["b"] <= at["height"], (hit, at["header"])
    assert errors == []


def test_from_run_without_system_files_takes_the_reports_segmentations(toy, tmp_path):
    # the toy run's report kept no segmentation (no Table 2, no segmenter run)
    data = html_mod.from_run(toy["run"])
    assert data.systems == [] and data.name == "toy"
    page = html_mod.encode(data)
    assert page["systems"] == [] and page["n_words"] == len([w for s in data.gold for w in s])
    kept = toy["run"] / "report" / "systems"
    kept.mkdir(parents=True)
    shutil.copy(toy["files"][1], kept / "noisy.txt")
    try:
        data = html_mod.from_run(toy["run"])
    finally:
        shutil.rmtree(kept)
    assert [s.name for s in data.systems] == ["noisy"]
    assert data.systems[0].scores["counts"] == toy["json"]["systems"][1]["counts"]


_UNCOVERED = """(sel) => {
  const e = document.querySelector(sel), r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + Math.min(8, r.width / 2), r.top + r.height / 2);
  return { top: r.top, covered: !(hit === e || e.contains(hit)),
           by: hit ? hit.tagName + "#" + hit.id : null };
}"""


@pytest.mark.parametrize("section, targets", [
    ("explorer", ["#explorer h2", "#f-search", "#f-reset"]),
    ("systems", ["#systems h2", "#systems-help"]),
    ("analyses", ["#analyses h2"]),
])
def test_nav_link_leaves_the_section_uncovered_by_the_header(page, section, targets):
    """After a jump from the nav, the sticky header covers neither the
    section's heading nor its first row (the element itself is what is at
    its place on screen)."""
    page.evaluate("window.scrollTo(0, 0)")
    page.click(f"nav a[href='#{section}']")
    page.wait_for_timeout(200)
    header = page.eval_on_selector("header", "h => h.getBoundingClientRect().bottom")
    for target in targets:
        at = page.evaluate(_UNCOVERED, target)
        assert not at["covered"] and at["top"] >= header, (target, at, header)
    _shot(page, f"nav-{section}")


def test_page_size_and_jump_to_page(page, toy):
    words, _ = _flat(toy)
    n = len(words)
    rows = "rows => rows.map(r => +r.dataset.word)"
    page.select_option("[data-testid=page-size]", "25")
    assert page.eval_on_selector_all("#items tbody tr", rows) == list(range(25))
    assert page.text_content("[data-testid=page-info]") == f"of {-(-n // 25):,}"
    page.fill("[data-testid=page-jump]", "3")
    page.press("[data-testid=page-jump]", "Enter")
    assert page.eval_on_selector_all("#items tbody tr", rows) == list(range(50, 75))
    page.fill("[data-testid=page-jump]", "100000")  # beyond the last page: the last page
    page.press("[data-testid=page-jump]", "Enter")
    last = page.eval_on_selector_all("#items tbody tr", rows)
    assert last[-1] == n - 1 and page.input_value("[data-testid=page-jump]") == str(-(-n // 25))
    page.click("[data-testid=page-first]")
    assert page.eval_on_selector_all("#items tbody tr", rows)[0] == 0
    page.select_option("[data-testid=page-size]", "1000")
    assert len(page.eval_on_selector_all("#items tbody tr", rows)) == min(n, 1000)
    page.click("[data-testid=page-last]")
    assert page.eval_on_selector_all("#items tbody tr", rows)[-1] == n - 1
    page.fill("[data-testid=page-jump]", "1")  # a new size keeps the first row in view
    page.press("[data-testid=page-jump]", "Enter")
    page.select_option("[data-testid=page-size]", "50")


_CHARTS = """() => Array.from(document.querySelectorAll('[data-testid=analysis]')).map(a => {
  const c = a.querySelector('.chart');
  return { title: a.querySelector('h3').textContent,
           x: c ? c.layout.xaxis.title.text : null, y: c ? c.layout.yaxis.title.text : null,
           traces: c ? c.data.map(t => ({ name: t.name, mode: t.mode || null, text: t.text || null,
                                         color: t.marker.color, symbol: t.marker.symbol || null,
                                         pattern: t.marker.pattern ? t.marker.pattern.shape : null,
                                         dash: t.line ? t.line.dash : null,
                                         y: t.y, err: t.error_y || null,
                                         pos: t.textposition || null })) : null };
})"""


def test_charts_have_readers_axes_titles_and_labelled_points(page, toy):
    charts = page.evaluate(_CHARTS)
    titles = [c["title"] for c in charts]
    assert len(set(titles)) == len(titles), titles  # no two figures share a number
    assert {"Fig. 6a: fb on the two halves of one split", "Fig. 6b: Pearson r of each split",
            "Fig. 7: word weights"} <= set(titles)
    for c in charts:
        assert c["traces"], c["title"]  # every analysis charted, Fig. 7 too
        for text in (c["x"], c["y"], *(t["name"] for t in c["traces"])):
            assert text and "_" not in text, (c["title"], text)  # no raw CSV column name
    split = next(c for c in charts if c["title"].startswith("Fig. 6a"))
    labelled = {n for t in split["traces"] if "text" in t["mode"] for n in t["text"]}
    assert {"chars", "noisy", "noisier"} <= labelled  # which dot is which system
    bins = next(c for c in charts if c["title"].startswith("Fig. 4"))
    styles = [(t["color"], t["symbol"], t["dash"]) for t in bins["traces"]]
    assert len(set(styles)) == len(styles)
    by_length = next(c for c in charts if c["title"] == "Results by word length")
    for t in by_length["traces"]:  # each bar with its bootstrap interval around it
        err = t["err"]
        assert err and len(err["array"]) == len(err["arrayminus"]) == len(t["y"]), t["name"]
        assert all(v is None or v >= 0 for v in [*err["array"], *err["arrayminus"]])
    assert any(v for t in by_length["traces"] for v in [*t["err"]["array"], *t["err"]["arrayminus"]])


_TICK_LABELS = """() => Array.from(document.querySelectorAll('.chart')).flatMap((c) => {
  const svg = c.querySelector('.main-svg');
  if (!svg) return [];
  const box = svg.getBoundingClientRect();
  const name = c.id === '' ? c.closest('.analysis').querySelector('h3').textContent : c.id;
  return Array.from(c.querySelectorAll('.xtick text, .ytick text')).map((t) => {
    const r = t.getBoundingClientRect();
    return { chart: name, text: t.textContent,
             inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 &&
                     r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 };
  });
})"""


def test_every_tick_label_lies_inside_its_chart(page):
    """No axis label is cut by its chart's edge: the difficulty bins' last
    label, turned to fit, reaches past the plot area on the right."""
    labels = page.evaluate(_TICK_LABELS)
    hist = [t["text"] for t in labels if t["chart"] == "chart-hist"]
    assert "[0.9, 1.0]" in hist  # the overview's histogram is among them
    assert [t for t in labels if not t["inside"]] == []


def _one_place():
    """jieba and rjieba score alike."""
    table = {"system": ["jieba", "thulac", "rjieba", "lac"], "f1": [0.8, 0.9, 0.8, 0.8],
             "fb": [0.6, 0.85, 0.6, 0.61]}
    return Analysis("systems", table, "scatter", "f1", ("fb",), label="system", x_title="f1",
                    y_title="fb")


def _close_together():
    """Two systems almost at one place, and 30 committee members."""
    table = {"name": ["jieba", "lac", "thulac", *(f"member {i}" for i in range(30))],
             "kind": ["system"] * 3 + ["member"] * 30,
             "a": [0.60, 0.601, 0.9, *(0.6 + 0.0005 * i for i in range(30))],
             "b": [0.60, 0.601, 0.9, *(0.6 + 0.0005 * i for i in range(30))]}
    return Analysis("split", table, "scatter", "a", ("b",), label="name", group="kind",
                    x_title="fb on half A", y_title="fb on half B")


def _past_the_palette():
    """More systems than colours."""
    from committee.report.plots import COLORS

    n = len(COLORS) + 3
    table = {"bucket": ["1", "2"], **{f"s{i} recall": [0.5, 0.6] for i in range(n)}}
    return Analysis("buckets", table, "bar", "bucket", list(table)[1:], x_title="word length",
                    y_title="recall")


def _six_lines():
    """Six metrics of nearly equal values (Table 2's p, r, f1, pb, rb, fb)."""
    from committee.report.analyses import by_name

    chart = by_name("table2").charts[0]
    table = {"fraction": [0.2, 1.0], **{k: [0.9, 0.95] for k in chart.y}}
    return Analysis(chart.title, table, chart.chart, chart.x, chart.y, x_title=chart.x_title,
                    y_title=chart.y_title, names={c: chart.name_of(c) for c in table})


@pytest.fixture(scope="module")
def charts(browser, tmp_path_factory):
    """The chart of each analysis above, by its title: the four drawn on one
    page, which loads the charting library once instead of once a test."""
    analyses = [_one_place(), _close_together(), _past_the_palette(), _six_lines()]
    path = html_mod.write_html(tmp_path_factory.mktemp("charts") / "c.html",
                               ReportData("c", "", GOLD, [0.0] * 8, analyses=analyses))
    pg = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        pg.goto(path.as_uri())
        pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
        pg.wait_for_function("n => Array.from(document.querySelectorAll('.analysis .chart'))"
                             ".filter((c) => c.querySelector('.main-svg')).length === n",
                             arg=len(analyses))
        drawn = pg.evaluate(_CHARTS)
    finally:
        pg.close()
    assert [c["title"] for c in drawn] == [a.title for a in analyses]
    return {c["title"]: c for c in drawn}


def test_points_at_one_place_share_one_label(charts):
    """jieba and rjieba score alike: one label "jieba, rjieba", not two
    printed over each other; the hover still names each point."""
    (t,) = charts[_one_place().title]["traces"]
    assert t["text"] == ["jieba, rjieba", "thulac", "", "lac"]


def test_labels_of_points_close_together_move_apart(charts):
    """Two systems almost at one place: both named, on different sides of
    their points; the committee members (the larger group) are placed after
    the systems, and a member label with no free side is left to the hover."""
    c = charts[_close_together().title]
    systems = next(t for t in c["traces"] if t["name"].startswith("system"))
    assert systems["text"] == ["jieba", "lac", "thulac"]
    assert systems["pos"][0] != systems["pos"][1]
    members = next(t for t in c["traces"] if t["name"].startswith("member"))
    assert "" in members["text"] and any(members["text"])


def test_bars_past_the_palette_are_hatched(charts):
    """More systems than colours: the colours come again hatched, so no two
    bars of a chart look alike; the palette is the figures' own."""
    from committee.report.plots import COLORS, HATCHES

    n = len(COLORS) + 3
    c = charts[_past_the_palette().title]
    styles = [(t["color"], t["pattern"]) for t in c["traces"]]
    assert len(set(styles)) == n
    assert [t["color"] for t in c["traces"]][:len(COLORS)] == list(COLORS)
    assert {t["pattern"] for t in c["traces"][len(COLORS):]} == {HATCHES[0]}
    assert all(t["err"] is None for t in c["traces"])  # no interval columns, no error bars


def test_line_traces_differ_in_colour_marker_and_dash(charts):
    """Six metrics of nearly equal values (Table 2's p, r, f1, pb, rb, fb):
    each its own colour, marker and dash, the balanced ones dashed."""
    c = charts[_six_lines().title]
    assert [t["name"] for t in c["traces"]] == [
        "precision p", "recall r", "F1", "balanced precision pb", "balanced recall rb",
        "balanced F fb"]
    assert c["x"] == "share of the training sentences"
    for key in ("color", "symbol"):
        assert len({t[key] for t in c["traces"]}) == 6
    assert [t["dash"] for t in c["traces"]] == ["solid"] * 3 + ["dash"] * 3


# --------------------------------------------------------------------------
# small committees end to end, and a page with an analysis that failed


def _fails(ctx):
    raise ZeroDivisionError("injected")


@pytest.fixture(scope="module")
def small_pages(tmp_path_factory):
    """``committee run`` and ``committee report`` of K = 3 and K = 6 committees,
    and a copy of the K = 6 run reported with its linguistic analysis failing."""
    from committee import cli
    from dataclasses import replace

    from committee.report import analyses

    d = make_toy_corpus(tmp_path_factory.mktemp("toy-small-html"))
    words = corpus_mod.read_corpus(d / "test.txt").words
    corpus_mod.write_sighan(d / "chars.txt", [[c for w in s for c in w] for s in words])
    corpus_mod.write_sighan(d / "noisy.txt", _perturb(words, 1))
    systems = ["--system", str(d / "chars.txt"), "--system", str(d / "noisy.txt"),
               "--set", "experiments.split_half_repeats=10", "--set", "experiments.irt_subset=100"]
    for k in (3, 6):
        cfg = write_config(d / f"k{k}.yaml", d, d / f"k{k}", size=k, backend="sequential")
        assert cli.main(["run", str(cfg), "--quiet"]) == 0
        assert cli.main(["report", str(d / f"k{k}"), "--quiet", "--skip", "table2", *systems]) == 0
    shutil.copytree(d / "k6", d / "k6-failed")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(analyses, "REGISTRY", tuple(
            replace(a, function=_fails) if a.name == "linguistic" else a
            for a in analyses.REGISTRY))
        assert cli.main(["report", str(d / "k6-failed"), "--quiet", "--skip", "table2",
                         *systems]) == 0
    return {name: d / name / "report.html" for name in ("k3", "k6", "k6-failed")}


@pytest.mark.parametrize("name", ["k3", "k6", "k6-failed"])
def test_small_committee_pages_render_without_console_errors(browser, small_pages, name):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    messages = []
    pg.on("console", lambda m: messages.append((m.type, m.text)))
    pg.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
    try:
        pg.goto(small_pages[name].as_uri())
        pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
        titles = pg.eval_on_selector_all("[data-testid=analysis] h3",
                                         "hs => hs.map(h => h.textContent)")
        failed = pg.locator("[data-testid=analysis-failed]")
        assert pg.locator(".chart .main-svg").count() >= 5
        assert any(t.startswith("Fig. 4") for t in titles)
        assert any(t.startswith("IRT") for t in titles) == (name != "k3")
        # committee report computes the intervals the systems table shows
        assert pg.locator("#systems-table td[data-key=fb] .ci").count() == 2
        assert "(1,000 resamples of the test sentences)" in pg.text_content(
            "[data-testid=systems-help]")
        if name == "k6-failed":
            assert failed.count() == 1
            assert failed.get_attribute("data-analysis") == "linguistic"
            assert failed.locator("h3").text_content() == "Fig. 2: which words are hard?"
            assert failed.locator("p").text_content() == (
                "Not made: the linguistic analysis failed. ZeroDivisionError: injected")
            assert not any(t.startswith("Fig. 2") for t in titles)
            failed.scroll_into_view_if_needed()
            pg.screenshot(path=str(small_pages[name].parent / "failed.png"))
        else:
            assert failed.count() == 0 and any(t.startswith("Fig. 2") for t in titles)
    finally:
        pg.close()
    assert [m for m in messages if m[0] in ("error", "pageerror", "warning")] == []
