#!/usr/bin/env python3
"""report.html at the size of the NLPCC 2016 Weibo test set: file size and
load time in headless Chromium.

    python3 benchmarks/bench_html.py [--words 188000] [--systems 6] [--loads 3] [--out FILE]

Gold: the first sentences of the NLPCC 2016 Weibo ``train.dat`` (data/README.md)
(the script exits with a message when it is absent)
up to ``--words`` words; training vocabulary: the words of the sentences
after them.  Difficulties are seeded random multiples of 1/12, IRT a and b
seeded random floats (so every optional column is in the page).  System k
(k = 1..6) perturbs gold as ``benchmarks/bench_score.py`` does, at rate k%.

Prints the time to score and encode, the file size (and its parts), and for
each of ``--loads`` page loads in Debian's chromium (driven by Playwright):
milliseconds from navigation start to the explorer's first rows
(``data-explorer-ms``, taken by the page itself with ``performance.now()``)
and to the last chart (``data-charts-ms``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_score import perturb  # noqa: E402

from committee import corpus as corpus_mod  # noqa: E402
from committee.metrics.difficulty_stats import BIN_LABELS  # noqa: E402
from committee import metrics  # noqa: E402
from committee.report import html as htmlreport  # noqa: E402
from committee.scoring import rank  # noqa: E402

#: The Weibo training file: data/ (data/README.md), else the corpora beside the repository.
CORPUS = next((p for p in (ROOT / "data" / "nlpcc2016-weibo" / "train.dat",
                           ROOT.parent / "shared" / "corpora" / "nlpcc2016-weibo" / "train.dat")
               if p.is_file()), ROOT / "data" / "nlpcc2016-weibo" / "train.dat")


def build(n_words: int, n_systems: int, seed: int) -> htmlreport.ReportData:
    full = corpus_mod.read_corpus(CORPUS)
    counts = np.cumsum([len(s) for s in full.words])
    n_sent = int(np.searchsorted(counts, n_words)) + 1
    gold = full.words[:n_sent]
    vocab = {w for s in full.words[n_sent:] for w in s}
    rng = np.random.default_rng(seed)
    n = sum(len(s) for s in gold)
    d = rng.integers(0, 13, size=n) / 12
    irt_a = rng.lognormal(0.0, 0.5, size=n)
    irt_b = rng.normal(0.0, 1.5, size=n)
    gold_corpus = corpus_mod.Corpus(str(CORPUS), gold, full.lines[:n_sent])
    scorer = metrics.Collector(gold_corpus, difficulty=d, train_words=vocab)
    systems = []
    for k in range(1, n_systems + 1):
        words = perturb(gold, k / 100, rng)
        scores = metrics.compute(scorer.collect(corpus_mod.Corpus(f"sys{k}", words,
                                                                  gold_corpus.lines)),
                                 undefined="ignore")
        systems.append(htmlreport.SystemData(f"perturbed {k}%", words, scores))
    for key in ("f1", "fb"):
        for s, r in zip(systems, rank([s.scores[key] for s in systems])):
            s.scores[f"rank_{key}"] = r
    table = {"bin": list(BIN_LABELS)}
    table.update({s.name: s.scores["recall_by_bin"] for s in systems})
    return htmlreport.ReportData(
        name=f"NLPCC 2016 Weibo, first {n:,} words", signature=metrics.make_signature(
            gold, difficulty=d, vocabulary_sha256=corpus_mod.word_list_sha256(vocab)).format(),
        gold=gold, d=d, oov=scorer.oov, irt_a=irt_a, irt_b=irt_b, systems=systems,
        analyses=[htmlreport.Analysis("Accuracy by difficulty", table, "line", x="bin")],
        lines=gold_corpus.lines)


def load_times(path: Path, loads: int) -> list[tuple[float, float, float]]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), headless=True,
                                     args=["--no-sandbox", "--disable-background-networking"])
        for _ in range(loads):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t0 = time.perf_counter()
            page.goto(path.as_uri(), wait_until="commit")
            page.wait_for_selector("body[data-ready='1']", timeout=120_000)
            wall = time.perf_counter() - t0
            rows = page.locator("#items tbody tr").count()
            assert rows > 0, "the explorer shows no row"
            out.append((float(page.get_attribute("body", "data-explorer-ms")),
                        float(page.get_attribute("body", "data-charts-ms")), wall))
            page.close()
        browser.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=188_000)
    ap.add_argument("--systems", type=int, default=6)
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="keep the page here (default: a temporary file)")
    args = ap.parse_args(argv)
    if not CORPUS.is_file():
        print(f"bench_html: {CORPUS} is absent; nothing to measure", file=sys.stderr)
        return 0
    t0 = time.perf_counter()
    data = build(args.words, args.systems, args.seed)
    t1 = time.perf_counter()
    tmp = None
    if args.out is None:
        tmp = tempfile.TemporaryDirectory()
        args.out = Path(tmp.name) / "report.html"
    page = htmlreport.encode(data)
    htmlreport.write_html(args.out, data)
    t2 = time.perf_counter()
    size = args.out.stat().st_size
    from plotly.offline import get_plotlyjs

    lib = len(get_plotlyjs().encode("utf-8"))
    print(f"gold: {page['n_sentences']:,} sentences, {page['n_words']:,} words "
          f"({len(page['vocab']):,} distinct), {page['n_chars']:,} characters; "
          f"{len(data.systems)} systems")
    print(f"score systems: {t1 - t0:.1f} s; encode and write: {t2 - t1:.1f} s")
    print(f"file: {size / 1e6:.2f} MB = charting library {lib / 1e6:.2f} MB + data and page "
          f"{(size - lib) / 1e6:.2f} MB")
    if shutil.which("chromium") is None:
        print("no chromium: load time not measured", file=sys.stderr)
        return 0
    times = load_times(args.out, args.loads)
    print("load  explorer's first rows  all charts drawn  wall (Playwright)")
    for i, (ex, ch, wall) in enumerate(times, 1):
        print(f"{i:4d}  {ex / 1000:19.2f} s  {ch / 1000:13.2f} s  {wall:15.2f} s")
    med = sorted(t[0] for t in times)[len(times) // 2]
    print(f"median time to the explorer's first rows: {med / 1000:.2f} s")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
