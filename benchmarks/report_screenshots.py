#!/usr/bin/env python3
"""Screenshots of a run's report.html, and checks of its layout.

Opens the page headless in Debian's chromium (driven by Playwright, as the
browser tests do) at each width asked (default 1,400 and 900 pixels) and
saves, per width, one PNG per section (the overview, the systems table, the
explorer, A versus B and every analysis; or only the elements named), one
of a word's detail opened from the explorer's list and one of the whole
page, every chart with its toolbar showing.  File names carry the width:
``PREFIX-systems-1400.png``.

At each width it checks the layout and says what is wrong (exit status 1):

* no table reaches past its section unless it lies in a box that scrolls
  sideways inside the section, and the page itself does not scroll sideways;
* a word's detail, opened by a click on a row halfway down the list, is in
  the view below the sticky header;
* no count reads "1 systems" (a count of one with a plural noun);
* no chart's toolbar covers its title or its menu, and every title lies
  inside its chart;
* the tick labels of Fig. 7 (Chinese words) read level: none is turned.

    python3 benchmarks/report_screenshots.py runs/default/report.html /tmp/shots --prefix pd
    python3 benchmarks/report_screenshots.py PAGE OUT_DIR --width 1400 --only systems analysis-0
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

#: A count of one with a plural noun, as the page words its counts.
ONE_PLURAL = (r"(^|[^\d.,])1 (systems|sentences|words|entities|characters|resamples|members|"
              r"models|spans|units|tags)\b")

#: Tables wider than their section outside a sideways-scrolling box, and
#: whether the page scrolls sideways.
_TABLES = """() => {
  const problems = [];
  const scrolls = (e) => ["auto", "scroll"].includes(getComputedStyle(e).overflowX);
  for (const t of document.querySelectorAll('table')) {
    const panel = t.closest('section'), p = panel.getBoundingClientRect();
    let box = t;
    for (let e = t.parentElement; e && e !== panel; e = e.parentElement) if (scrolls(e)) { box = e; break; }
    const r = box.getBoundingClientRect();
    if (r.width === 0) continue;  // not shown
    if (r.left < p.left - 0.5 || r.right > p.right + 0.5)
      problems.push(`table ${t.id || t.closest('.analysis, section').querySelector('h2, h3').textContent}: ` +
                    `${box === t ? 'no scrolling box' : 'its scrolling box'} spans ${r.left.toFixed(0)}–` +
                    `${r.right.toFixed(0)} px, its section ${p.left.toFixed(0)}–${p.right.toFixed(0)} px`);
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth) problems.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${innerWidth}`);
  return problems;
}"""

#: Each chart's title, toolbar and menus as boxes.
_CHARTS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((c) => {
  const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
                       return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
  return { chart: c.id || '?', title: box(c.querySelector('.gtitle')),
           titleText: (c.querySelector('.gtitle') || {}).textContent || '',
           toolbar: box(c.querySelector('.modebar')), frame: box(c),
           menus: Array.from(c.querySelectorAll('.updatemenu-header-group')).map(box) };
})"""

#: The transforms of Fig. 7's tick labels.
_FIG7_TICKS = """() => {
  const a = Array.from(document.querySelectorAll('.analysis')).find(
    (e) => e.querySelector('h3').textContent.startsWith('Fig. 7'));
  if (!a) return null;
  return Array.from(a.querySelectorAll('.xtick text, .ytick text, .xtick2 text, .ytick2 text'))
    .map((t) => ({ text: t.textContent, transform: t.getAttribute('transform') || '' }));
}"""

#: The detail's box and the view's, after a click on a row.
_DETAIL = """() => {
  const r = document.querySelector('#detail').getBoundingClientRect();
  return { t: r.top, b: r.bottom, l: r.left, r: r.right, width: innerWidth, height: innerHeight,
           header: document.querySelector('header').getBoundingClientRect().bottom,
           rows: document.querySelectorAll('#detail tr').length };
}"""


def _meets(a: dict, b: dict) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def chart_problems(charts: list[dict]) -> list[str]:
    """Toolbars over titles or menus, and titles reaching out of their chart."""
    out = []
    for c in charts:
        title, bar = c["title"], c["toolbar"]
        if title is None:
            continue
        if bar is not None and _meets(title, bar):
            out.append(f"chart {c['chart']}: its toolbar covers its title {c['titleText']!r}")
        if bar is not None and any(_meets(m, bar) for m in c["menus"]):
            out.append(f"chart {c['chart']}: its toolbar covers its menu")
        if any(_meets(title, m) for m in c["menus"]):
            out.append(f"chart {c['chart']}: its menu covers its title")
        f = c["frame"]
        if title["l"] < f["l"] - 0.5 or title["r"] > f["r"] + 0.5:
            out.append(f"chart {c['chart']}: its title {c['titleText']!r} reaches out of it")
    return out


def detail_problems(at: dict) -> list[str]:
    """The detail not in the view below the header after a click."""
    if at["rows"] == 0:
        return ["no detail opened on a click on a row"]
    room = at["height"] - at["header"]
    top_ok = at["header"] - 1 <= at["t"] <= at["height"]
    whole = at["b"] <= at["height"] + 1 or (at["b"] - at["t"] > room and at["t"] <= at["header"] + 30)
    if not (top_ok and whole and 0 <= at["l"] and at["r"] <= at["width"] + 1):
        return [f"the detail is at {at['t']:.0f}–{at['b']:.0f} px, the view below the header "
                f"{at['header']:.0f}–{at['height']} px"]
    return []


def check(page) -> list[str]:
    """Every layout problem of the opened page (at its current width)."""
    import re

    problems = list(page.evaluate(_TABLES))
    problems += chart_problems(page.evaluate(_CHARTS))
    ticks = page.evaluate(_FIG7_TICKS) or []
    problems += [f"Fig. 7: tick label {t['text']!r} is turned ({t['transform']})"
                 for t in ticks if "rotate" in t["transform"]]
    for m in re.finditer(ONE_PLURAL, page.inner_text("body")):
        problems.append(f"count of one with a plural noun: {m.group(0).strip()!r}")
    return problems


def open_detail(page) -> list[str]:
    """Click a row halfway down the explorer's list; the detail's problems."""
    rows = page.locator("#items tbody tr")
    if rows.count() == 0:
        return []
    row = rows.nth(rows.count() // 2)
    row.scroll_into_view_if_needed()
    row.click()
    page.wait_for_timeout(300)
    return detail_problems(page.evaluate(_DETAIL))


def _sections(page) -> list[str]:
    ids = ["overview", "systems", "explorer", "versus"]
    return ids + page.eval_on_selector_all("[id^=analysis-]", "els => els.map(e => e.id)")


def shoot(browser, args, width: int) -> list[str]:
    """The screenshots at ``width``; the problems found there."""
    page = browser.new_page(viewport={"width": width, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"script error: {e}"))
    page.goto(args.page.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=120_000)
    page.wait_for_timeout(3000)  # the charts draw after the page is ready
    # every chart's toolbar shown, as the pointer over it shows it, so that the
    # pictures show where it lies
    page.add_style_tag(content=".js-plotly-plot .modebar-group { opacity: 1 !important; }")
    for id_ in args.only or _sections(page):
        element = page.query_selector(f"#{id_}")
        if element is None:
            print(f"no element #{id_}", file=sys.stderr)
            continue
        element.scroll_into_view_if_needed()
        _write(element, args.out / f"{args.prefix}-{id_}-{width}.png")
    problems = check(page)
    problems += open_detail(page)
    _write(page, args.out / f"{args.prefix}-detail-{width}.png")
    _write(page, args.out / f"{args.prefix}-page-{width}.png", full_page=True)
    page.close()
    return errors + problems


def _write(target, path: Path, **kw) -> None:
    target.screenshot(path=str(path), **kw)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", type=Path, help="report.html")
    ap.add_argument("out", type=Path, help="directory for the PNG files")
    ap.add_argument("--prefix", default="report", help="file name prefix (default: report)")
    ap.add_argument("--only", nargs="*", help="element ids to take (default: every section)")
    ap.add_argument("--width", type=int, nargs="+", default=[1400, 900],
                    help="viewport widths in pixels (default: 1400 900)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("report_screenshots: no chromium on PATH (apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    failed = False
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--no-sandbox", "--disable-background-networking"])
        for width in args.width:
            for problem in shoot(browser, args, width):
                print(f"{width} px: {problem}", file=sys.stderr)
                failed = True
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
