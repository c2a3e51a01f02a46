#!/usr/bin/env python3
"""Reading speed of the corpus readers on a large corpus.

    python3 benchmarks/bench_read.py [--repeat 7] [--copies 4] [--repo DIR]

The embedded People's Daily 1998-01 (10 MB, pku format) is read as it
ships, and written out ``--copies`` times over (about 40 MB) as SIGHAN
files in UTF-8 and GB18030 and as a word list, which are then read with
``committee.corpus.read_corpus`` / ``read_word_list``.  Prints the median
wall time of ``--repeat`` reads of each, and the throughput.  Run it from
two checkouts to compare their readers (the script reads the ``committee``
package of the checkout it lives in).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

corpus_mod = None  # committee.corpus of the checkout timed (see main)


def _best_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def _decode_only(path, encoding: str):
    """Read, decode and check ``path`` without parsing (the reader's first stage)."""
    label = str(path)
    if hasattr(corpus_mod, "decoding"):  # the corpus package
        return lambda: corpus_mod.decoding.read_text(path, label, encoding)
    if hasattr(corpus_mod, "_read_text"):  # block by block
        return lambda: corpus_mod._read_text(path, label, encoding)
    return lambda: corpus_mod._decode(label, corpus_mod._read_bytes(path), encoding)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parent.parent),
                    help="checkout whose committee package to time (default: this one)")
    args = ap.parse_args(argv)
    global corpus_mod
    sys.path.insert(0, args.repo)
    import committee.corpus as corpus_mod
    print(f"committee.corpus: {corpus_mod.__file__}")
    embedded = corpus_mod.embedded_path()
    full = corpus_mod.read_embedded()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        words = full.words * args.copies
        text = corpus_mod.format_sighan(words)
        (d / "big.txt").write_text(text, encoding="utf-8")
        (d / "big.gb").write_text(text, encoding="gb18030")
        vocab = sorted({w for s in full.words for w in s})
        (d / "words.txt").write_text("".join(w + "\n" for w in vocab), encoding="utf-8")
        cases = [
            ("embedded pku (utf-8)", embedded,
             lambda: corpus_mod.read_corpus(embedded, format="pku")),
            (f"sighan utf-8 x{args.copies}", d / "big.txt",
             lambda: corpus_mod.read_corpus(d / "big.txt")),
            (f"sighan gb18030 x{args.copies}", d / "big.gb",
             lambda: corpus_mod.read_corpus(d / "big.gb", encoding="gb18030")),
            ("word list (utf-8)", d / "words.txt",
             lambda: corpus_mod.read_word_list(d / "words.txt")),
            (f"decode utf-8 x{args.copies}", d / "big.txt", _decode_only(d / "big.txt", "utf-8")),
            (f"decode gb18030 x{args.copies}", d / "big.gb",
             _decode_only(d / "big.gb", "gb18030")),
        ]
        print(f"{'input':<26} {'MB':>6} {'CPU s':>9} {'MB/s':>7}")
        for name, path, fn in cases:
            size = path.stat().st_size / 1e6
            t = _best_time(fn, args.repeat)
            print(f"{name:<26} {size:>6.1f} {t:>9.3f} {size / t:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
