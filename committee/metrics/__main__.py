"""``python -m committee.metrics``: print the table of metrics of docs/metrics.md
(from :data:`committee.metrics.records.REGISTRY`); ``--write`` puts it in place,
and the metrics' declarations in :class:`committee.scoring.Scores`."""

from __future__ import annotations

import sys
from pathlib import Path

from committee.metrics.records import (DECLARATIONS_END, DECLARATIONS_START, TABLE_END,
                                       TABLE_START, declarations, markdown_table)

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
SCORES = Path(__file__).resolve().parents[1] / "scoring" / "scores.py"


def with_table(text: str) -> str:
    """``text`` (docs/metrics.md) with its generated table replaced by the current one."""
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    return text[:start] + markdown_table() + text[end:]


def with_declarations(text: str) -> str:
    """``text`` (committee/scoring/scores.py) with its metrics' declarations
    replaced by the current ones."""
    start = text.index(DECLARATIONS_START)
    end = text.index(DECLARATIONS_END) + len(DECLARATIONS_END)
    return text[:start] + declarations() + text[end:]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(with_table(DOC.read_text(encoding="utf-8")), encoding="utf-8")
        SCORES.write_text(with_declarations(SCORES.read_text(encoding="utf-8")),
                          encoding="utf-8")
    else:
        print(markdown_table())
