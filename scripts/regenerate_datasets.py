#!/usr/bin/env python3
"""Regenerate the difficulty datasets from their corpora, reproducibly.

Each dataset is one config of ``configs/``, run with ``committee run`` into
``OUT/NAME/``.  The public corpora are read from ``CORPORA/FOLDER`` (by
default the repository's ``data/``, laid out as ``data/README.md`` says); the
embedded People's Daily corpus needs nothing.  A dataset whose corpus is not
at hand is skipped, with the reason in the listing.  Rerunning resumes
unfinished runs and leaves finished ones untouched.  Each dataset is also
exported (``committee export``) into ``OUT/hf/NAME/``: a parquet file of one
row per gold unit and its dataset card, which ``datasets.load_dataset``
reads.  At the end ``OUT/README.md`` lists every dataset with its
signature, size and file checksums.

    python3 scripts/regenerate_datasets.py                      # every dataset
    python3 scripts/regenerate_datasets.py nlpcc2016-weibo      # some of them
    python3 scripts/regenerate_datasets.py --corpora /srv/corpora  # another corpora folder
    python3 scripts/regenerate_datasets.py sighan2005-pku \\
        --root sighan2005-pku=/srv/icwb2-data                   # where one corpus is
    python3 scripts/regenerate_datasets.py --set committee.size=10 --out runs/small
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from committee.pipeline import export, workflow
from committee.config import load_config  # noqa: E402
from committee.errors import CommitteeError  # noqa: E402

#: Dataset name -> its corpus folder under the corpora root (None: embedded).
FOLDERS = {
    "peoples-daily-1998": None,
    "sighan2005-pku": "icwb2-data",
    "sighan2005-msr": "icwb2-data",
    "sighan2005-as": "icwb2-data",
    "sighan2005-cityu": "icwb2-data",
    "nlpcc2016-weibo": "nlpcc2016-weibo",
    "ud-chinese-gsdsimp": "ud-chinese-gsdsimp",
}
DATASETS = tuple(FOLDERS)


def corpus_roots(corpora: Path, roots: dict[str, str]) -> dict[str, str]:
    """``corpus.root`` of every dataset with a corpus folder: ``corpora/FOLDER``,
    unless ``roots`` names another directory for it.

    >>> r = corpus_roots(Path("/srv/c"), {"sighan2005-msr": "/x"})
    >>> r["sighan2005-pku"], r["sighan2005-msr"], "peoples-daily-1998" in r
    ('/srv/c/icwb2-data', '/x', False)
    """
    found = {name: str(corpora / folder) for name, folder in FOLDERS.items() if folder}
    return found | roots


def build(name: str, out_root: Path, overrides: list[str], roots: dict[str, str],
          progress: bool) -> dict:
    """Run one dataset's config; return its README row."""
    extra = [f"output.dir={out_root / name}"] + list(overrides)
    if name in roots:
        extra.append(f"corpus.root={roots[name]}")
    try:
        cfg = load_config(ROOT / "configs" / f"{name}.yaml", overrides=extra)
        out = workflow.run(cfg, progress=progress)
        # the same dataset as parquet and its card, for datasets.load_dataset
        export.export(out, out_root / "hf" / name)
    except CommitteeError as exc:
        first = str(exc).splitlines()
        return {"name": name, "status": "not built", "reason": " ".join(s.strip() for s in first)}
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return {"name": name, "status": "built", "dir": str(out), "manifest": manifest}


def readme(rows: list[dict]) -> str:
    lines = ["# Difficulty datasets", "",
             "Made by `scripts/regenerate_datasets.py`; each folder is one "
             "`committee run` output (docs/method.md §8): `test.txt`, `test.weight`, "
             "`test.weight_c`, `words.tsv`, `marks.npz`, `train-words.txt`, "
             "`manifest.json`; `hf/NAME/` holds the same as parquet with its dataset card "
             "(`committee export`), which `datasets.load_dataset(\"hf/NAME\")` reads.", ""]
    lines += ["| dataset | K | test sentences | test words | mean d | OOV rate | signature |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "built":
            lines.append(f"| {r['name']} | – | – | – | – | – | not built: {r['reason']} |")
            continue
        m = r["manifest"]
        sig = m["signature"].replace("|", "\\|")  # a pipe would end the table cell
        lines.append(
            f"| {r['name']} | {m['committee']['size']} | {m['corpus']['test']['sentences']:,} "
            f"| {m['difficulty']['n_words']:,} | {m['difficulty']['mean']:.4f} "
            f"| {100 * m['corpus']['test_oov_rate']:.2f}% | `{sig}` |")
    for r in rows:
        if r["status"] != "built":
            continue
        lines += ["", f"## {r['name']}", "", "| file | sha256 |", "|---|---|"]
        lines += [f"| `{f}` | `{h}` |" for f, h in sorted(r["manifest"]["files"].items())]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"datasets to build (default: all): {', '.join(DATASETS)}")
    ap.add_argument("--out", default="runs/datasets", help="where datasets go (default: %(default)s)")
    ap.add_argument("--corpora", type=Path, default=ROOT / "data", metavar="DIR",
                    help="folder holding the public corpora as data/README.md lays them out "
                         "(default: the repository's data/)")
    ap.add_argument("--root", action="append", default=[], metavar="NAME=DIR",
                    help="corpus.root of one dataset, overriding --corpora (repeatable)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override applied to every dataset (repeatable)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in DATASETS]
    if unknown:
        ap.error(f"unknown dataset(s): {', '.join(unknown)}; known: {', '.join(DATASETS)}")
    roots = {}
    for item in args.root:
        name, sep, path = item.partition("=")
        if not sep or name not in DATASETS:
            ap.error(f"--root wants NAME=DIR with a known NAME, got {item!r}")
        roots[name] = path
    roots = corpus_roots(args.corpora, roots)
    out_root = Path(args.out)
    rows = []
    for name in args.names or DATASETS:
        row = build(name, out_root, args.set, roots, progress=not args.quiet)
        print(f"{name}: {row['status']}" + (f" ({row['reason']})" if "reason" in row else ""),
              file=sys.stderr)
        rows.append(row)
    out_root.mkdir(parents=True, exist_ok=True)
    from committee.system.files import atomic_write_text
    atomic_write_text(out_root / "README.md", readme(rows))
    print(f"wrote {out_root / 'README.md'}", file=sys.stderr)
    return 0 if all(r["status"] == "built" for r in rows) or not args.names else 1


if __name__ == "__main__":
    sys.exit(main())
