"""Several systems scored against one gold, and its reporters.

:meth:`Scorer.score_all <committee.scoring.Scorer.score_all>` returns a
:class:`ScoredSystems`: the signature and one row per system (its metrics,
ranks, intervals and paired tests, as ``committee score --json`` prints
them).  Three reporters write it, each for one reader: :meth:`~ScoredSystems.text`
(the table of ``committee score``), :meth:`~ScoredSystems.json` (``--json``)
and :meth:`~ScoredSystems.markdown` (``--markdown``: a table to paste into a
paper or a README).  A row keeps the shape of the JSON, so the result also
is the dict ``{"signature": ..., "systems": [...]}`` itself.
"""

from __future__ import annotations

import json as json_mod
from collections.abc import Sequence

from committee.metrics import records
from committee.scoring.scores import (cell, default_columns, format_buckets, format_table,
                                      ranked_keys, select_metrics)


class ScoredSystems(dict):
    """The systems scored against one gold, in the order they were given: the
    dict ``{"signature": ..., "systems": [...]}`` that ``committee score
    --json`` prints (so ``json.dumps`` takes it as it is), with its parts as
    attributes and its reporters as methods.

    Attributes
    ----------
    signature : str
        What every number depends on (:class:`committee.metrics.Signature`).
    systems : list of dict
        One row per system: ``name``, ``path``, the metrics (fractions, None
        when undefined), ``recall_by_bin``, ``counts``, ``rank_f1``,
        ``rank_fb`` and, when computed, ``ci``, ``paired``, ``error_types``,
        ``buckets``.
    """

    def __init__(self, signature: str, systems: Sequence[dict]):
        super().__init__(signature=signature, systems=list(systems))

    @property
    def signature(self) -> str:
        return self["signature"]

    @property
    def systems(self) -> list[dict]:
        return self["systems"]

    def to_dict(self) -> dict:
        """A plain dict (a copy of the rows' list)."""
        return {"signature": self.signature, "systems": list(self.systems)}

    def select(self, columns: Sequence[records.Metric] | None) -> ScoredSystems:
        """Only the metrics of ``columns`` (metric records) in every row (all when None)."""
        if columns is None:
            return self
        picked = select_metrics(self.to_dict(), columns)
        return ScoredSystems(picked["signature"], picked["systems"])

    def text(self, columns: Sequence[records.Metric] | None = None) -> str:
        """The table of ``committee score``: metrics as percentages, ranks,
        intervals, paired tests, results by word attribute, the signature."""
        result = self.to_dict()
        buckets = format_buckets(result)
        return format_table(result, columns) + ("\n" + buckets if buckets else "")

    def json(self, columns: Sequence[records.Metric] | None = None,
             check_gold: dict | None = None, per_system: Sequence[dict] | None = None) -> str:
        """What ``committee score --json`` prints (``--metrics``: ``columns``;
        ``check_gold``: the scores without the suspicious spans, under
        ``"check_gold"``; ``per_system``: more results of each system, in
        order, each a dict of objects with ``to_dict()``, such as its
        matching schemes and confusion matrix)."""
        data = self.select(columns).to_dict()
        for row, more in zip(data["systems"], per_system or ()):
            row.update({k: v.to_dict() for k, v in more.items()})
        if check_gold is not None:
            data["check_gold"] = check_gold
        return json_mod.dumps(data, ensure_ascii=False, indent=2)

    def markdown(self, columns: Sequence[records.Metric] | None = None) -> str:
        """A Markdown table: one row per system, its metrics as percentages
        (``–`` when undefined) and its ranks by f1 and fb, then the
        signature.

        >>> r = ScoredSystems("S", [{"name": "a|b", "p": 0.5, "f1": 0.25, "fb": None,
        ...                         "rank_f1": 1, "rank_fb": None}])
        >>> print(r.markdown([records.get("p"), records.get("f1"), records.get("fb")]))
        | system | p | f1 | fb | #f1 | #fb |
        |---|---:|---:|---:|---:|---:|
        | a\\|b | 50.00 | 25.00 | – | 1 | – |
        <BLANKLINE>
        S
        """
        systems = list(self.systems)
        columns = default_columns(systems) if columns is None else list(columns)
        ranked = ranked_keys(columns)
        head = ["system", *(m.heading for m in columns), *(f"#{k}" for k in ranked)]
        lines = ["| " + " | ".join(head) + " |",
                 "|---|" + "---:|" * (len(head) - 1)]
        for s in systems:
            cells = [s["name"].replace("|", "\\|")]
            cells += [cell(s, m) for m in columns]
            cells += [str(s.get(f"rank_{k}") or records.UNDEFINED) for k in ranked]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join([*lines, "", self.signature])
