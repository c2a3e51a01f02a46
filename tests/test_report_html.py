"""report.html's layout: A versus B only with two systems to compare, counts
worded singular or plural, tables that scroll inside their panel, Fig. 7's
words read level, chart toolbars clear of the titles and a word's detail in
view once clicked.  What the HTML shows without a browser is checked here
directly; the rest in Debian's chromium (driven by Playwright; skipped with
a reason where either is missing) by ``benchmarks/report_screenshots.py``,
whose checks fail the test."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from committee import cli
from committee import corpus as corpus_mod
from committee.report import html as html_mod
from committee.report.html import ReportData, SystemData
from toyrun import make_toy_corpus, write_config

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "report_screenshots.py"
GOLD = [["约翰", "喜欢", "玛丽"], ["我", "爱", "北京"]]
D = [0.0, 0.5, 1.0, 0.0, 0.2, 0.9]


def _page(n_systems: int) -> str:
    systems = [SystemData(f"s{k}", GOLD) for k in range(n_systems)]
    return html_mod.render(ReportData("demo", "sig", GOLD, D, systems))


class _Tables(HTMLParser):
    """Each ``<table>`` of a page with the classes of the element around it."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.tables: list[tuple[str | None, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append((dict(attrs).get("id"), self.stack[-1] if self.stack else ""))
        if tag not in ("meta", "link", "input", "br"):
            self.stack.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag):
        if tag not in ("meta", "link", "input", "br") and self.stack:
            self.stack.pop()


@pytest.mark.parametrize("n, says", [(0, "no system"), (1, "one system")])
def test_fewer_than_two_systems_have_no_a_versus_b_view_but_a_note(n, says):
    page = _page(n)
    section = page[page.index('<section id="versus">'):]
    section = section[:section.index("</section>")]
    assert 'id="vs-a"' not in section and 'id="chart-vs"' not in section
    note = re.search(r'<p class="help" data-testid="versus-note">(.*?)</p>', section, re.S)
    assert note and f"this report has {says}" in note.group(1)
    assert "compares two systems" in note.group(1)


def test_two_systems_have_the_a_versus_b_view():
    page = _page(2)
    assert 'id="vs-a"' in page and 'id="vs-b"' in page and 'id="chart-vs"' in page
    assert 'data-testid="versus-note"' not in page


def test_every_table_of_the_page_scrolls_inside_its_panel():
    tables = _Tables()
    tables.feed(_page(2))
    assert {t for t, _ in tables.tables} == {"systems-table", "items", "vs-table"}
    assert all(around == "scroll" for _, around in tables.tables), tables.tables
    css = html_mod._asset("report.css")
    assert re.search(r"\.scroll\s*\{[^}]*overflow-x:\s*auto", css)
    # the analyses' tables, made by the script, are put in one too
    assert 'details.append(el("div", { class: "scroll" }, t))' in html_mod._asset("report.js")


def test_counts_are_worded_singular_or_plural():
    script = html_mod._asset("report.js")
    assert not re.search(r"\$\{[^}]*\.length\} systems", script)
    assert 'count(systems.length, "system", "systems")' in script
    assert re.search(r'const count = \(n, one, many\) => `\$\{int\(n\)\} \$\{n === 1 \? one : many\}`',
                     script)


def test_bars_of_groups_lie_across_with_level_labels():
    """Fig. 7's words (bars of groups) are drawn across the chart, their
    labels level, rather than turned upright under columns."""
    script = html_mod._asset("report.js")
    across = script[script.index("function across("):script.index("function lineTraces(")]
    assert 'orientation: "h"' in across and "tickangle: 0" in across
    assert 'a.chart === "bar" && a.group ? across(a, traces, layout)' in script


# --------------------------------------------------------------------------
# in a browser


def _chromium() -> str:
    pytest.importorskip("playwright.sync_api",
                        reason="playwright is not installed (scripts/bootstrap.sh test)")
    exe = shutil.which("chromium")
    if exe is None:
        pytest.skip("no chromium on PATH: the browser checks of report.html need Debian's "
                    "chromium (apt-get install chromium)")
    return exe


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """``committee report`` of a toy run (K = 3) with its suspicious gold and
    three systems, and of a copy with one system."""
    d = make_toy_corpus(tmp_path_factory.mktemp("toy-layout"))
    words = corpus_mod.read_corpus(d / "test.txt").words
    corpus_mod.write_sighan(d / "chars.txt", [[c for w in s for c in w] for s in words])
    corpus_mod.write_sighan(d / "pairs.txt", [[w[i:i + 2] for w in s for i in range(0, len(w), 2)]
                                              for s in words])
    corpus_mod.write_sighan(d / "gold-copy.txt", words)
    cfg = write_config(d / "toy.yaml", d, d / "run", backend="sequential")
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    assert cli.main(["check-gold", str(d / "run")]) == 0
    shutil.copytree(d / "run", d / "one")
    common = ["--quiet", "--skip", "table2", "--set", "experiments.split_half_repeats=10",
              "--set", "experiments.irt_subset=100"]
    assert cli.main(["report", str(d / "run"), *common, "--system", str(d / "chars.txt"),
                     "--system", str(d / "pairs.txt"), "--system", str(d / "gold-copy.txt")]) == 0
    assert cli.main(["report", str(d / "one"), *common, "--system", str(d / "chars.txt")]) == 0
    return {"three": d / "run" / "report.html", "one": d / "one" / "report.html"}


@pytest.mark.parametrize("name", ["three", "one"])
def test_layout_at_1400_and_900_pixels(pages, name, tmp_path):
    # --only: the pictures of two sections, not of every one; the script's
    # checks (tables, the detail in view, counts, chart titles and toolbars,
    # Fig. 7's labels) read the whole page at each width all the same
    _chromium()
    p = subprocess.run([sys.executable, str(SCRIPT), str(pages[name]), str(tmp_path),
                        "--prefix", name, "--width", "1400", "900", "--only", "systems",
                        "versus"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    shots = sorted(x.name for x in tmp_path.glob("*.png"))
    for width in (1400, 900):
        assert f"{name}-systems-{width}.png" in shots and f"{name}-detail-{width}.png" in shots
    assert (f"{name}-versus-1400.png" in shots) and pages[name].is_file()
