"""The one result type of scoring, :class:`Scores`, and the text and JSON
of ``committee score`` made from several: :func:`format_table`,
:func:`select_metrics`, :func:`format_buckets`."""

from __future__ import annotations

from dataclasses import dataclass, field

from committee import metrics
from committee.metrics import records
from committee.metrics.buckets import BUCKET_METRICS
from committee.metrics.records import pct

#: The metrics of a bucket row, by their names there.
BUCKET_KEYS = tuple(BUCKET_METRICS.values())


@dataclass(frozen=True)
class Scores:
    """Every metric of one output, with the signature that makes it comparable.

    The metrics are fractions in [0, 1] (``er`` can exceed 1), ``None`` when
    undefined or when their input (difficulties, vocabulary) was not given;
    their names are the keys of ``committee score --json``
    (``docs/metrics.md``).  ``str()`` shows them as percentages.

    Every metric of the registry (:mod:`committee.metrics.records`) is an
    attribute (``scores.fb``): ``p, r, f1, pb, rb, fb, p_reward, ...``.

    Attributes
    ----------
    values : dict
        Metric key -> float or None: every statistics metric, and ``theta``,
        ``theta_se`` when scored with ``irt``.
    recall_by_bin : list of 10 float-or-None, or None
        Recall per difficulty bin ``[0, .1) ... [.9, 1]``.
    counts : dict
        ``n_gold``, ``n_pred``, ``n_correct``.
    signature : Signature
        What the numbers depend on (:class:`committee.metrics.Signature`;
        ``str()`` gives the text of ``--json``).
    name, path : str or None
        The output's short name and its file (None in memory).
    ci : dict or None
        With ``bootstrap > 0``: ``(low, high)`` 95% interval of every metric.
    error_types : dict or None
        How many gold words the output gets ``correct``, ``split``, ``merged``
        or ``crossed`` (:func:`committee.metrics.error_types`).
    stats : SufficientStats
        The per-sentence counts behind the scores (for :func:`compare`).
    buckets : pandas.DataFrame or None
        When scored with buckets: one row per word attribute and bucket,
        columns ``attr``, ``bucket``, ``gold_words``, ``pred_words``,
        ``correct``, ``recall``, ``rb``, ``precision``, ``f1``, ``pb``,
        ``fb`` (NaN when undefined), and ``<metric>_low``/``<metric>_high``
        with a bootstrap (docs/metrics.md, Results by word attribute).
    theta, theta_se : float or None (in ``values``)
        With ``irt``: the output's IRT ability (EAP from its right/wrong
        outcome on every gold word, the run's items fixed) and its
        posterior standard deviation (docs/irt.md).
    """

    values: dict
    recall_by_bin: list | None
    counts: dict
    signature: metrics.Signature
    name: str | None = None
    path: str | None = None
    ci: dict | None = None
    error_types: dict | None = None
    stats: metrics.SufficientStats | None = field(default=None, repr=False, compare=False)
    buckets: object = field(default=None, repr=False, compare=False)

    @classmethod
    def from_stats(cls, stats: metrics.SufficientStats, signature: metrics.Signature, *,
                   where: str | None = None, undefined: str = "warn", theta=None,
                   bucket_ci: dict | None = None, **info) -> "Scores":
        """The scores of one output from its sufficient statistics: the one
        place a :class:`Scores` is made (``committee score``, the API, the
        report).  ``where`` names the output in warnings of undefined
        metrics (:func:`committee.metrics.compute`); ``theta`` is ``(θ, se)``
        with IRT items; ``info``: ``name``, ``path``, ``ci``, ``error_types``."""
        computed = metrics.compute(stats, where=where, undefined=undefined)
        values = {k: computed[k] for k in records.keys("stats")}
        if theta is not None:
            values["theta"], values["theta_se"] = float(theta[0]), float(theta[1])
        frame = None
        if stats.buckets is not None:
            import pandas as pd

            from committee.metrics.buckets import bucket_rows

            frame = pd.DataFrame(bucket_rows(stats.buckets, bucket_ci)).astype(
                {"gold_words": "int64", "pred_words": "Int64", "correct": "int64"})
        return cls(values, recall_by_bin=computed["recall_by_bin"], counts=computed["counts"],
                   signature=signature, stats=stats, buckets=frame, **info)

    def __getitem__(self, key: str):
        """``scores["fb"]``, ``scores["recall_by_bin"]``, ``scores["counts"]``."""
        if key in ("recall_by_bin", "counts"):
            return getattr(self, key)
        try:
            records.get(key)
        except KeyError:
            raise KeyError(key) from None
        return self.values.get(key)

    def data(self) -> dict:
        """The statistics metrics, ``recall_by_bin`` and ``counts`` as one dict
        (what :func:`committee.metrics.compute` returns)."""
        return {**{k: self.values.get(k) for k in records.keys("stats")},
                "recall_by_bin": self.recall_by_bin, "counts": self.counts}

    def __getattr__(self, key: str):
        """A metric of the registry by its key (``scores.fb``); None when not computed."""
        if key.startswith("_") or key == "values":
            raise AttributeError(key)
        try:
            records.get(key)
        except KeyError:
            raise AttributeError(f"Scores has no metric or attribute {key!r}") from None
        return self.values.get(key)

    def to_dict(self) -> dict:
        """The scores as plain data: a system of ``committee score --json``
        (``name``, ``path``, the metrics, ``recall_by_bin``, ``counts``,
        ``ci`` with a bootstrap) plus ``signature``."""
        out = {"name": self.name, "path": self.path}
        out.update({k: self.values.get(k) for k in records.keys("stats")})
        out["recall_by_bin"] = self.recall_by_bin
        out["counts"] = dict(self.counts)
        if self.error_types is not None:
            out["error_types"] = dict(self.error_types)
        if self.ci is not None:
            out["ci"] = {k: list(v) for k, v in self.ci.items()}
        if self.buckets is not None:
            out["buckets"] = self.bucket_data()
        for m in records.registry():  # metrics not from the statistics: when given
            if m.source != "stats" and self.values.get(m.key) is not None:
                out[m.key] = self.values[m.key]
        out["signature"] = self.signature.format()
        return out

    def bucket_data(self) -> dict:
        """:attr:`buckets` as plain data: ``{attr: [{bucket, gold_words,
        pred_words, correct, recall, rb, precision, f1, pb, fb, ci}]}``,
        ``None`` for an undefined value, ``ci`` (``{metric: [low, high]}``)
        with a bootstrap (the bucket section of ``committee score --json``)."""
        import pandas as pd

        def plain(v):
            return None if pd.isna(v) else v

        out: dict = {}
        for row in self.buckets.to_dict("records"):
            item = {k: plain(v) for k, v in row.items()
                    if k != "attr" and not k.endswith(("_low", "_high"))}
            for k in ("gold_words", "pred_words", "correct"):
                item[k] = None if item[k] is None else int(item[k])
            if "recall_low" in row:
                item["ci"] = {k: [plain(row[f"{k}_low"]), plain(row[f"{k}_high"])]
                              for k in BUCKET_KEYS if plain(row[k]) is not None}
            out.setdefault(row["attr"], []).append(item)
        return out

    def to_frame(self):
        """A one-row :class:`pandas.DataFrame` indexed by the output's name:
        the metrics, then ``<metric>_low``/``<metric>_high`` with a bootstrap.
        ``pandas.concat`` of several gives a table of systems."""
        import pandas as pd

        row = {k: self.values.get(k) for k in records.keys("stats")}
        for k, (lo, hi) in (self.ci or {}).items():
            row[f"{k}_low"], row[f"{k}_high"] = lo, hi
        index = pd.Index([self.name or "output"], name="system")
        return pd.DataFrame([row], index=index, dtype="float64")

    def __str__(self) -> str:
        lines = [] if self.name is None else [self.name]
        groups: dict[str, list[str]] = {}
        for m in records.registry():
            value = self.values.get(m.key)
            if not m.shown or (m.source != "stats" and value is None):
                continue
            pair = None if m.pair is None else self.values.get(m.pair)
            cell = (m.format(value) if m.scale == "percent" or pair is None
                    else f"{m.format(value)} ± {pair:.3f}")
            groups.setdefault(m.group, []).append(f"{m.label} {cell}")
        lines += [f"{title:<10}  {'  '.join(cells)}" for title, cells in groups.items()]
        if self.ci is not None:
            lines.append("95% ci      " + "  ".join(
                f"{k} [{pct(self.ci[k][0])}, {pct(self.ci[k][1])}]" for k in ("f1", "fb")))
        lines.append(self.signature.format())
        return "\n".join(lines)


def format_buckets(result: dict) -> str:
    """The per-bucket results of ``result`` as one compact table per word
    attribute: gold words, r, rb, p, f1, fb and, with a bootstrap, the
    interval of r."""
    from committee.metrics.buckets import attribute

    systems = [s for s in result["systems"] if "buckets" in s]
    entities = "match:exact-entity" in result.get("signature", "")
    out = []
    for attr in (systems[0]["buckets"] if systems else ()):
        a = attribute(attr, entities)
        head = ["system", "bucket", "gold", "r", "rb"] + (["p", "f1", "pb", "fb"] if a.predicted
                                                          else [])
        ci = any("ci" in row for s in systems for row in s["buckets"][attr])
        head += ["r 95% ci"] if ci else []
        rows = [head]
        for s in systems:
            for row in s["buckets"][attr]:
                cells = [s["name"], row["bucket"], str(row["gold_words"])]
                cells += [pct(row[k]) for k in ("recall", "rb") + (
                    ("precision", "f1", "pb", "fb") if a.predicted else ())]
                if ci:
                    lo, hi = row.get("ci", {}).get("recall", [None, None])
                    cells.append(records.UNDEFINED if lo is None else f"[{pct(lo)}, {pct(hi)}]")
                rows.append(cells)
        widths = [max(len(r[j]) for r in rows) for j in range(len(head))]
        out += ["", f"by {attr}: {a.meaning}"]
        out += ["  ".join(c.ljust(w) if j < 2 else c.rjust(w)
                          for j, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(out)


def _cell(system: dict, m) -> str:
    """One metric of one system as the table shows it."""
    return m.format(system.get(m.key), None if m.pair is None else system.get(m.pair))


def _ranked(columns) -> list[str]:
    """The metrics among ``columns`` (metric records) that outputs are ranked
    by, and compared by the paired bootstrap: f1 and fb, each when chosen."""
    keys = {m.key for m in columns}
    return [k for k in ("f1", "fb") if k in keys]


def format_table(result: dict, columns=None) -> str:
    """Render a score result as a fixed-width table: percentages with 2
    decimals, ``–`` when undefined; ``columns`` are metric records (default:
    every shown one the systems have), the statistics ones before the ranks
    (``#f1`` and ``#fb``, each when its metric is a column).  Intervals and
    paired tests are those of f1 and fb among the columns, and the line of
    the outputs that f1 and fb rank differently needs both."""
    systems = result["systems"]
    if columns is None:
        columns = [m for m in records.registry() if m.shown
                   and (m.source == "stats" or any(m.key in s for s in systems))]
    ranked = _ranked(columns)
    groups = ([m for m in columns if m.source == "stats"], None,
              [m for m in columns if m.source != "stats"])
    name_w = max([len("system")] + [len(s["name"]) for s in systems])
    rows = [["system".ljust(name_w)]] + [[s["name"].ljust(name_w)] for s in systems]
    for group in groups:
        if group is None:
            rows[0] += [f"#{k}" for k in ranked]
            for row, s in zip(rows[1:], systems):
                row += [str(s[f"rank_{k}"] or records.UNDEFINED).rjust(3) for k in ranked]
            continue
        for m in group:
            cells = [_cell(s, m) for s in systems]
            width = max([6, len(m.heading)] + [len(c) for c in cells])
            rows[0].append(m.heading.rjust(width))
            for row, c in zip(rows[1:], cells):
                row.append(c.rjust(width))
    lines = ["  ".join(row) for row in rows]
    if ranked and any("ci" in s for s in systems):
        lines.append("")
        lines.append("95% bootstrap intervals:")
        for s in systems:
            ci = s["ci"]
            parts = [f"{k} [{records.pct(ci[k][0])}, {records.pct(ci[k][1])}]"
                     for k in ranked if k in ci]
            lines.append(f"  {s['name'].ljust(name_w)}  " + "  ".join(parts))
    paired = [s for s in systems if "paired" in s]
    if paired and ranked:
        lines.append("")
        lines.append("paired bootstrap (share of resamples in which the first system is better):")
        for s in paired:
            for key in ranked:
                pb = s["paired"][key]
                lines.append(f"  {key}: {pb['against']} > {s['name']}: {pb['share_a_better']:.3f}")
    disagree = [s["name"] for s in systems if s["rank_f1"] != s["rank_fb"]]
    if disagree and ranked == ["f1", "fb"] and all(s["rank_fb"] is not None for s in systems):
        lines.append("")
        lines.append("f1 and fb rank these differently: " + ", ".join(disagree))
    lines.append("")
    lines.append(result["signature"])
    return "\n".join(lines)


def select_metrics(result: dict, columns) -> dict:
    """``result`` (:meth:`~committee.scoring.Scorer.score_all`) with, for each
    system, only the metrics of ``columns`` (metric records; a metric's
    ``pair``, ``theta_se``, comes with it): what ``committee score --json
    --metrics`` prints.  A system keeps its ``name`` and ``path``, the
    chosen metrics, their ``ci``, the ranks and ``paired`` tests of f1 and
    fb when chosen (:func:`_ranked`), and ``buckets`` when asked for.

    >>> from committee.metrics import records
    >>> result = {"signature": "S", "systems": [{"name": "a", "path": "a.txt", "p": 0.5,
    ...     "f1": 0.4, "fb": 0.3, "counts": {}, "ci": {"p": [0.1, 0.9], "f1": [0.2, 0.6]},
    ...     "rank_f1": 1, "rank_fb": 1}]}
    >>> select_metrics(result, [m for m in records.registry() if m.key == "f1"])
    {'signature': 'S', 'systems': [{'name': 'a', 'path': 'a.txt', 'f1': 0.4, 'ci': {'f1': [0.2, 0.6]}, 'rank_f1': 1}]}
    """
    keys = [k for m in columns for k in (m.key, m.pair) if k is not None]
    ranked = _ranked(columns)
    systems = []
    for s in result["systems"]:
        row = {"name": s["name"], "path": s["path"]}
        row.update({k: s.get(k) for k in keys})
        ci = {k: s["ci"][k] for k in keys if k in s.get("ci", {})}
        if ci:
            row["ci"] = ci
        row.update({f"rank_{k}": s[f"rank_{k}"] for k in ranked})
        if "paired" in s and ranked:
            row["paired"] = {k: s["paired"][k] for k in ranked}
        if "buckets" in s:
            row["buckets"] = s["buckets"]
        systems.append(row)
    return {**result, "systems": systems}
