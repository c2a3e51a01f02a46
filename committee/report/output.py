"""How the report writes: percentages, Markdown tables and CSV files."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from committee.system.files import atomic_open
from committee.metrics import records
from committee.metrics.records import pct  # noqa: F401 (the report's one percent formatter)


def score_columns() -> tuple[tuple[str, str], ...]:
    """``(key, heading)`` of the scores in ``systems.csv`` and the ranking
    table: the metrics with a ``report`` heading (:mod:`committee.metrics.records`)."""
    return tuple((m.key, m.report) for m in records.report_columns())


def markdown_table(header: Sequence[str], rows: Sequence[Sequence], align: str | None = None) -> str:
    """A GitHub Markdown table; ``align`` has one ``l``/``r`` per column.

    >>> print(markdown_table(["model", "f1"], [["F2 20%", "89.97"]], "lr"))
    | model | f1 |
    |:---|---:|
    | F2 20% | 89.97 |
    """
    align = align or "l" + "r" * (len(header) - 1)
    lines = ["| " + " | ".join(map(str, header)) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines)


def write_csv(path: Path, df) -> None:
    """A pandas DataFrame as CSV (``\\n`` line ends, no index), atomically."""
    with atomic_open(path, "w", encoding="utf-8", newline="") as f:
        df.to_csv(f, index=False, lineterminator="\n")
