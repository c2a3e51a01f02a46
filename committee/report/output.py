"""How the report writes: percentages, Markdown tables and CSV files."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from committee.fileio import atomic_open

#: The scores of a system shown in ``systems.csv`` and the ranking table.
SCORE_KEYS = ("p", "r", "f1", "pb", "rb", "fb", "oov_recall", "iv_recall")


def pct(x, digits: int = 2) -> str:
    """A fraction as a percentage, ``–`` when undefined.

    >>> pct(0.8997), pct(None), pct(float("nan"), 1)
    ('89.97', '–', '–')
    """
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}"


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
