#!/usr/bin/env python3
"""Screenshots of a run's report.html, for docs/results.md.

Opens the page headless in Debian's chromium (driven by Playwright, as the
browser tests do) and saves one PNG per section: the systems table, the
overview, the explorer and every analysis chart, or only those named.

    python3 benchmarks/report_screenshots.py runs/default/report.html docs/images --prefix pd
    python3 benchmarks/report_screenshots.py PAGE OUT_DIR --only systems chart-analysis-table2
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", type=Path, help="report.html")
    ap.add_argument("out", type=Path, help="directory for the PNG files")
    ap.add_argument("--prefix", default="report", help="file name prefix (default: report)")
    ap.add_argument("--only", nargs="*", help="element ids to take (default: every section)")
    ap.add_argument("--width", type=int, default=1400, help="viewport width in pixels")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("report_screenshots: no chromium on PATH (apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--no-sandbox", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": args.width, "height": 1000})
        page.goto(args.page.resolve().as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=120_000)
        page.wait_for_timeout(3000)  # the charts draw after the page is ready
        ids = args.only or ["overview", "systems", "explorer"] + page.eval_on_selector_all(
            "[id^=chart-analysis-]", "els => els.map(e => e.id)")
        for id_ in ids:
            element = page.query_selector(f"#{id_}")
            if element is None:
                print(f"no element #{id_}", file=sys.stderr)
                continue
            element.scroll_into_view_if_needed()
            path = args.out / f"{args.prefix}-{id_.removeprefix('chart-analysis-')}.png"
            element.screenshot(path=str(path))
            print(f"wrote {path}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
