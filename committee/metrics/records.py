"""Every metric, declared once: its key, formula, why it can be undefined,
heading, display group and scale (docs/metrics.md).

A :class:`Metric` is one record of :data:`REGISTRY`.  Everything that shows
or computes a metric reads the registry when it runs: :func:`compute` (and
the bootstrap of :mod:`committee.metrics.significance`, through
:func:`metric_arrays`), :class:`committee.scoring.Scores` (attributes,
``str()``, ``to_dict``), ``committee score`` (``--metrics``, the table,
``--json``), the report (Table 2 in ``report.md``, the page's data) and the
table of docs/metrics.md (``python -m committee.metrics``).  Adding a
metric is one more :class:`Metric` in :data:`REGISTRY`.

The formulas take the corpus totals of the sufficient statistics
(:class:`~committee.metrics.stats.SufficientStats`) as arrays, so that one
formula serves a corpus total and a batch of bootstrap resamples alike.  The
statistics count *units*: words here, labelled spans for a scorer of
entities; a record names the statistics it ``needs``, and is ``None``
without a warning when one of them was not collected.

Conventions: a zero denominator makes a metric undefined (NaN in arrays,
``None`` in results); ``H(0, 0) = 0``; the harmonic mean of an undefined
value is undefined.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from committee.errors import UndefinedMetricWarning

#: How an undefined value is shown, in every table and text.
UNDEFINED = "–"

#: Values of ``compute(..., undefined=...)``.
UNDEFINED_POLICIES = ("warn", "ignore")


def harmonic(a, b):
    """H(a, b) = 2ab / (a + b), with H(0, 0) = 0 and H(x, NaN) = NaN (elementwise).

    >>> harmonic(np.array([0.5, 0.0, 1.0]), np.array([1/3, 0.0, np.nan])).round(6).tolist()
    [0.4, 0.0, nan]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    s = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(s > 0, 2 * a * b / np.where(s > 0, s, 1.0), 0.0)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


def ratio(num, den, clip=False):
    """``num / den`` elementwise, NaN where ``den`` is 0; ``clip`` to [0, 1].

    >>> ratio(np.array([1.0, 1.0]), np.array([4.0, 0.0])).tolist()
    [0.25, nan]
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)
    if clip:
        # Ratios of float sums whose exact value lies in [0, 1] can miss it by
        # an ulp (the two sums are accumulated in different orders).
        out = np.clip(out, 0.0, 1.0)
    return out


def pct(x, digits: int = 2) -> str:
    """A fraction as a percentage, :data:`UNDEFINED` when undefined.

    >>> pct(0.8997), pct(None), pct(float("nan"), 1)
    ('89.97', '–', '–')
    """
    return UNDEFINED if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f"{100 * x:.{digits}f}"


#: ``formula(t, m)``: ``t`` the totals (name -> array), ``m(key)`` another
#: metric's array; returns an array, NaN where undefined.
Formula = Callable[[dict, Callable[[str], np.ndarray]], np.ndarray]


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One metric, every field given by name.

    Attributes
    ----------
    key : str
        Its name: attribute of ``Scores``, key of ``--json``, of ``--metrics``.
    formula : callable or None
        ``formula(t, m)`` over the totals ``t`` of the statistics and the other
        metrics ``m(key)`` (arrays; NaN = undefined).  None for a value that
        does not come from the statistics (``source`` says where from).
    why_undefined : callable or None
        ``why_undefined(t)`` on scalar totals: the message saying why the
        metric is undefined there, or None.  Only components have one: a
        harmonic mean is undefined through its parts.
    heading : str
        Column heading of the ``committee score`` table.
    group, label : str
        The line of ``str(Scores)`` it is shown in, and its label there.
    scale : str
        ``"percent"`` (a fraction shown as a percentage) or ``"raw"``.
    meaning : str
        One line for the table of docs/metrics.md.
    needs : tuple of str
        Statistics without which the metric is None (without a warning).
    source : str
        ``"stats"`` (a formula over sufficient statistics) or ``"irt"`` (the
        IRT ability of ``committee score --irt``).
    pair : str or None
        A metric shown after this one as ``value ± pair`` (its standard error).
    shown : bool
        Shown in its own column or cell (False for a ``pair``).
    report : str or None
        Its column heading in the report's ranking of systems (``report.md``,
        ``systems.csv``); None: not in it.
    page : str or None
        Its column label in the systems table of ``report.html``; None: not in it.
    """

    key: str
    formula: Formula | None
    heading: str
    group: str
    label: str
    meaning: str
    why_undefined: Callable[[dict], str | None] | None = None
    scale: str = "percent"
    needs: tuple[str, ...] = ()
    source: str = "stats"
    pair: str | None = None
    shown: bool = True
    report: str | None = None
    page: str | None = None

    def format(self, value, pair=None) -> str:
        """``value`` as shown in a table: a percentage, or 3 decimals
        (``± pair``); :data:`UNDEFINED` when None."""
        if self.scale == "percent":
            return pct(value)
        text = UNDEFINED if value is None else f"{value:.3f}"
        return text if pair is None else f"{text}±{pair:.3f}"


def when(condition: Callable[[dict], bool], message: str):
    """A ``why_undefined``: ``message`` when ``condition(totals)`` holds."""
    return lambda t: message if condition(t) else None


_D = ("gold_d", "correct_d", "pred_d")
_OOV = ("n_oov", "oov_correct")
_BOUNDARY = ("boundary_gold", "boundary_pred", "boundary_correct")


def _easy(t):
    return t["n_correct"] - t["correct_d"]  # Σ (1 - d_i) m_i


#: Per side of the balanced metrics: the sum of difficulties, the count of
#: units, how messages spell them, and the metrics an undefined one takes along.
_SIDES = {
    "p": ("pred_d", "n_pred", "d'", "d'_j", "predicted words",
          "every predicted word ends in a gold word of difficulty", "pb, fb"),
    "r": ("gold_d", "n_gold", "d", "d_i", "gold words", "every word has difficulty", "rb, fb"),
}


def _component(side: str, kind: str) -> Metric:
    """``p_reward``, ``p_punishment``, ``r_reward`` or ``r_punishment``: a
    difficulty-weighted ratio, clipped to [0, 1], undefined when its
    denominator (a sum of d or of 1 - d) is 0."""
    sum_d, n, d, d_sub, units, every, along = _SIDES[side]
    key, reward = f"{side}_{kind}", kind == "reward"
    num = (lambda t: t["correct_d"]) if reward else _easy
    den = (lambda t: t[sum_d]) if reward else (lambda t: t[n] - t[sum_d])
    weights = f"Σ {d}" if reward else f"Σ (1 - {d})"
    why = (f"{key} undefined (and so {along}): {weights} over {units} is 0 ({every} "
           f"{0 if reward else 1})")
    meaning = f"Σ d_i m_i / Σ {d_sub}" if reward else f"Σ (1−d_i) m_i / Σ (1−{d_sub})"
    return Metric(key=key,
                  formula=lambda t, m: ratio(num(t), den(t), clip=True),
                  heading=f"{side}_{kind[:3]}",
                  group=kind,
                  label=side,
                  meaning=meaning,
                  why_undefined=when(lambda t: den(t) == 0, why),
                  needs=_D)


REGISTRY: tuple[Metric, ...] = (
    Metric(key="p",
           formula=lambda t, m: ratio(t["n_correct"], t["n_pred"]),
           heading="p",
           group="standard",
           label="p",
           meaning="c / N'",
           why_undefined=when(lambda t: t["n_pred"] == 0,
           "p undefined (and so f1): the output has no {units} (N' = 0)"),
           report="p",
           page="p"),
    Metric(key="r",
           formula=lambda t, m: ratio(t["n_correct"], t["n_gold"]),
           heading="r",
           group="standard",
           label="r",
           meaning="c / N",
           why_undefined=when(lambda t: t["n_gold"] == 0,
           "r undefined (and so f1, er, oov_rate): the gold standard has no {units} (N = 0)"),
           report="r",
           page="r"),
    Metric(key="f1",
           formula=lambda t, m: harmonic(m("p"), m("r")),
           heading="f1",
           group="standard",
           label="f1",
           meaning="H(p, r)",
           report="f1",
           page="f1"),
    Metric(key="pb",
           formula=lambda t, m: harmonic(m("p_reward"), m("p_punishment")),
           heading="pb",
           group="balanced",
           label="pb",
           meaning="H(p_reward, p_punishment)",
           needs=_D,
           report="pb",
           page="pb"),
    Metric(key="rb",
           formula=lambda t, m: harmonic(m("r_reward"), m("r_punishment")),
           heading="rb",
           group="balanced",
           label="rb",
           meaning="H(r_reward, r_punishment)",
           needs=_D,
           report="rb",
           page="rb"),
    Metric(key="fb",
           formula=lambda t, m: harmonic(m("pb"), m("rb")),
           heading="fb",
           group="balanced",
           label="fb",
           meaning="H(pb, rb)",
           needs=_D,
           report="fb",
           page="fb"),
    _component("p", "reward"), _component("p", "punishment"),
    _component("r", "reward"), _component("r", "punishment"),
    Metric(key="oov_rate",
           formula=lambda t, m: ratio(t["n_oov"], t["n_gold"]),
           heading="oov",
           group="oov",
           label="rate",
           meaning="share of gold tokens not in the training vocabulary",
           needs=_OOV),
    Metric(key="oov_recall",
           formula=lambda t, m: ratio(t["oov_correct"], t["n_oov"]),
           heading="oov_r",
           group="oov",
           label="recall",
           meaning="recall over OOV tokens",
           why_undefined=when(lambda t: t["n_oov"] == 0 and t["n_gold"] > 0,
                 "oov_recall undefined: no gold word is out of vocabulary"),
           needs=_OOV,
           report="OOV r",
           page="oov_recall"),
    Metric(key="iv_recall",
           formula=lambda t, m: ratio(t["n_correct"] - t["oov_correct"],
                                           t["n_gold"] - t["n_oov"]),
           heading="iv_r",
           group="oov",
           label="iv_recall",
           meaning="recall over in-vocabulary tokens",
           why_undefined=when(lambda t: t["n_gold"] - t["n_oov"] == 0 and t["n_gold"] > 0,
                 "iv_recall undefined: no gold word is in the vocabulary"),
           needs=_OOV,
           report="IV r",
           page="iv_recall"),
    Metric(key="er",
           formula=lambda t, m: ratio(t["n_pred"] - t["n_correct"], t["n_gold"]),
           heading="er",
           group="errors",
           label="er",
           meaning="(N' − c) / N (can exceed 1)",
           page="er"),
    Metric(key="tnr",
           formula=lambda t, m: 1.0 - ratio(t["n_pred"] - t["n_correct"],
                                           t["total_words"] - t["n_gold"]),
           heading="tnr",
           group="errors",
           label="tnr",
           meaning="1 − (N' − c) / (Σ TW − N) (Shao et al. 2017)",
           why_undefined=when(lambda t: t["total_words"] - t["n_gold"] == 0,
                 "tnr undefined: there is no non-gold candidate word (Σ TW - N = 0; every "
                 "sentence has at most one character)"),
           needs=("total_words",),
           page="tnr"),
    Metric(key="boundary_p",
           formula=lambda t, m: ratio(t["boundary_correct"], t["boundary_pred"]),
           heading="b_p",
           group="boundary",
           label="p",
           meaning="predicted inner boundaries that are gold (over the n−1 inner gaps of every sentence)",
           why_undefined=when(lambda t: t["boundary_pred"] == 0,
                 "boundary_p undefined (and so boundary_f1): the output has no inner boundary"),
           needs=_BOUNDARY),
    Metric(key="boundary_r",
           formula=lambda t, m: ratio(t["boundary_correct"], t["boundary_gold"]),
           heading="b_r",
           group="boundary",
           label="r",
           meaning="gold inner boundaries that are predicted",
           why_undefined=when(lambda t: t["boundary_gold"] == 0,
                 "boundary_r undefined (and so boundary_f1): the gold standard has no inner "
                 "boundary"),
           needs=_BOUNDARY),
    Metric(key="boundary_f1",
           formula=lambda t, m: harmonic(m("boundary_p"), m("boundary_r")),
           heading="b_f1",
           group="boundary",
           label="f1",
           meaning="H(boundary_p, boundary_r)",
           needs=_BOUNDARY,
           page="boundary_f1"),
    Metric(key="theta",
           formula=None,
           heading="theta",
           group="irt",
           label="theta",
           meaning="IRT ability θ (EAP from the right/wrong outcome "
           "on every gold word, the run's items fixed; `--irt`, docs/irt.md)",
           scale="raw",
           source="irt",
           pair="theta_se",
           page="θ"),
    Metric(key="theta_se",
           formula=None,
           heading="theta_se",
           group="irt",
           label="theta_se",
           meaning="posterior standard deviation of θ "
           "(shown after θ as ±)",
           scale="raw",
           source="irt",
           shown=False),
)


def registry(source: str | None = None) -> tuple[Metric, ...]:
    """The records of :data:`REGISTRY` (of one ``source``), read when called."""
    return tuple(m for m in REGISTRY if source is None or m.source == source)


def keys(source: str | None = None) -> tuple[str, ...]:
    """The keys of :func:`registry`, in order."""
    return tuple(m.key for m in registry(source))


def get(key: str) -> Metric:
    """The record of ``key`` (:class:`KeyError` when there is none)."""
    for m in REGISTRY:
        if m.key == key:
            return m
    raise KeyError(key)


#: The metrics computed from sufficient statistics, in order (at import).
METRICS = keys("stats")


def metric_arrays(t: dict, keys: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """Every statistics metric (or those of ``keys``, and what they need) from
    totals ``t`` (arrays of equal shape); NaN = undefined.

    :func:`compute` applies it to corpus totals, :mod:`committee.metrics.significance`
    to bootstrap resamples.

    >>> m = metric_arrays({"n_correct": 3, "n_gold": 4, "n_pred": 6}, ("p", "r", "f1"))
    >>> [float(m[k]) for k in ("p", "r", "f1")]
    [0.5, 0.75, 0.6]
    """
    values = _Values(t)
    return {key: values(key) for key in (values.records if keys is None else keys)}


class _Values:
    """The metrics of totals ``t``, each computed once when first asked for
    (a formula asks for the metrics it is made of).  A callable object, not a
    closure that calls itself: that would be a reference cycle keeping every
    array alive until the garbage collector runs."""

    def __init__(self, t: dict):
        self.t, self.out = t, {}
        self.records = {m.key: m for m in REGISTRY if m.source == "stats"}
        self.nan = np.full(np.shape(t["n_gold"]), np.nan)

    def __call__(self, key: str) -> np.ndarray:
        if key not in self.out:
            m = self.records[key]
            self.out[key] = (self.nan if any(n not in self.t for n in m.needs)
                             else m.formula(self.t, self))
        return self.out[key]


def why_undefined(t: dict, units: str = "words") -> list[str]:
    """Why each metric is undefined at the scalar totals ``t``, in registry
    order, saying ``units`` of what is counted (``words``, ``entities``)."""
    return [msg.replace("{units}", units) for m in registry("stats")
            if m.why_undefined is not None and all(n in t for n in m.needs)
            for msg in [m.why_undefined(t)] if msg]


def report_undefined(t: dict, where: str | None, undefined: str, stacklevel: int = 3,
                     units: str = "words") -> None:
    """Warn (``undefined="warn"``) or not (``"ignore"``) of each undefined
    metric at ``t`` (its units called ``units``)."""
    if undefined not in UNDEFINED_POLICIES:
        raise ValueError(f"undefined must be one of {', '.join(UNDEFINED_POLICIES)}, "
                         f"got {undefined!r}")
    if undefined == "ignore":
        return
    for msg in why_undefined(t, units):
        warnings.warn(UndefinedMetricWarning(f"{where}: {msg}" if where else msg),
                      stacklevel=stacklevel)


def report_columns() -> tuple[Metric, ...]:
    """The metrics of the report's ranking of systems, in order."""
    return tuple(m for m in REGISTRY if m.report is not None)


def page_columns() -> list[dict]:
    """The metrics of the systems table of ``report.html``, as the page's data."""
    return [{"key": m.key, "label": m.page, "scale": m.scale, "source": m.source}
            for m in REGISTRY if m.page is not None]


#: The lines around the generated table in docs/metrics.md.
TABLE_START = ("<!-- metrics table: generated by `python -m committee.metrics` "
               "from committee/metrics/records.py; do not edit -->")
TABLE_END = "<!-- end of metrics table -->"


def markdown_table() -> str:
    """The table of docs/metrics.md: every metric with its definition, column
    heading, group and scale, between :data:`TABLE_START` and :data:`TABLE_END`."""
    lines = [TABLE_START, "", "| key | definition | column | group | scale |",
             "|---|---|---|---|---|"]
    lines += [f"| `{m.key}` | {m.meaning} | `{m.heading}` | {m.group} | {m.scale} |"
              for m in REGISTRY]
    return "\n".join([*lines, "", TABLE_END])



#: The lines around the metrics that :class:`committee.scoring.Scores`
#: declares for IDEs and type checkers (:func:`declarations`).
DECLARATIONS_START = "    # metrics: generated by `python -m committee.metrics --write` from REGISTRY"
DECLARATIONS_END = "    # end of metrics"


def declarations() -> str:
    """The attribute declarations of every metric, as :class:`Scores` holds
    them between :data:`DECLARATIONS_START` and :data:`DECLARATIONS_END`."""
    lines = [DECLARATIONS_START, "    if TYPE_CHECKING:"]
    lines += [f"        {m.key}: float | None" for m in REGISTRY]
    return "\n".join([*lines, DECLARATIONS_END])
