"""``python -m committee.segmenters``: prints docs/segmenters.md's table of
tools (:func:`committee.segmenters.registry.table`); ``--write`` puts it in
place of the one in docs/segmenters.md."""

from __future__ import annotations

import sys
from pathlib import Path

from committee.segmenters.registry import TABLE_HEADING, table

DOC = Path(__file__).resolve().parents[2] / "docs" / "segmenters.md"


def with_table(text: str) -> str:
    """``text`` (docs/segmenters.md) with its table of tools, the lines from
    :data:`~committee.segmenters.registry.TABLE_HEADING` to the first line
    that is not a row, replaced by :func:`table`.

    >>> with_table("a\\n\\n" + TABLE_HEADING + "| `old` | x | y | z |\\n\\nb\\n").split("\\n")[4]
    '| `jieba` | `[jieba]` | prefix dictionary + HMM for unknown words | MIT |'
    """
    start = text.index(TABLE_HEADING)
    end = start + len(TABLE_HEADING)
    while text.startswith("|", end):
        end = text.index("\n", end) + 1
    return text[:start] + table() + text[end:]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(with_table(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(table(), end="")
