"""``python -m committee.metrics``: print the table of metrics of docs/metrics.md
(from :data:`committee.metrics.records.REGISTRY`); ``--write`` puts it in place."""

from __future__ import annotations

import sys
from pathlib import Path

from committee.metrics.records import TABLE_END, TABLE_START, markdown_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def with_table(text: str) -> str:
    """``text`` (docs/metrics.md) with its generated table replaced by the current one."""
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    return text[:start] + markdown_table() + text[end:]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(with_table(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(markdown_table())
