"""The report's wording that several analyses share: ranks and undefined
scores in tables, numbers that may be undefined, and the paper's published
figures (:data:`PAPER_PKU`) beside which a run's are shown."""

from __future__ import annotations

import numpy as np

#: What the paper reports for PKU (Qian et al. 2016, Table 2 and §5), percentages.
PAPER_PKU = {
    "table2": {0.2: {"f1": 89.97, "fb": 44.28},
               1.0: {"p": 94.03, "r": 92.91, "f1": 93.47, "pb": 64.22, "rb": 59.16,
                     "fb": 61.59}},
    "split_half_pearson": 0.996,
}


def paper_spread() -> str:
    """Table 2 of the paper from its smallest to its largest share, in one sentence."""
    paper = PAPER_PKU["table2"]
    first, last = paper[min(paper)], paper[max(paper)]
    return "The paper (PKU): " + ", ".join(
        f"{k} {first[k]:.2f} → {last[k]:.2f} (+{last[k] - first[k]:.2f})"
        for k in ("f1", "fb")) + "."


def rank_cell(r: int | None) -> str:
    """A rank for a table: the number, or ``–`` for a system whose metric is undefined.

    >>> rank_cell(None), rank_cell(2)
    ('–', '2')
    """
    return "–" if r is None else str(r)


def shown(value: float) -> str:
    """A reliability for the text: 4 decimals, or undefined."""
    return "undefined" if not np.isfinite(value) else f"{value:.4f}"


def nan_stat(f, values) -> float:
    """``f`` (``np.nanmean``, ``np.nanmin``) of ``values``, NaN when every value is NaN."""
    values = np.asarray(values, dtype=np.float64)
    return float(f(values)) if np.isfinite(values).any() else float("nan")


def undefined_note(ctx, systems, keys, consequence: str) -> str:
    """A paragraph naming the systems with any of the metrics ``keys``
    undefined (``–`` in the tables) and what that costs them; empty when
    there is none."""
    bad = [s for s in systems if any(s.scores[k] is None for k in keys)]
    if not bad:
        return ""
    return ("\nUndefined (`–`): " + "; ".join(
        f"{s.name} ({', '.join(k for k in keys if s.scores[k] is None)}"
        + (f": it predicts no {ctx.data.unit}" if predicts_none(s) else "") + ")"
        for s in bad) + f"; {consequence}.\n")


def predicts_none(s) -> bool:
    """Whether a system predicts no unit at all (its precision, and so its
    f1 and fb, are undefined: docs/metrics.md)."""
    return (getattr(s.scores, "counts", None) or {}).get("n_pred") == 0


#: Readers' names of the kinds of models a split-half or θ chart shows.
KINDS = {"member": "committee members", "table2": "Table 2 models", "system": "segmenters"}


def drop_recall(column: str) -> str:
    """A system's recall column by the system's name (the axis says recall).

    >>> drop_recall("jieba recall")
    'jieba'
    """
    return column.removesuffix(" recall")
