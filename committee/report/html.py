"""The run report as one self-contained HTML page with an item explorer.

:func:`write_html` turns a :class:`ReportData` into ``report.html``: one file
with its script, styles and data inlined, which opens from disk with no
network and no server and can be mailed.  The page has

* an overview (the run, difficulty histogram, recall by difficulty bin,
  error types and f1/fb per system) and every analysis of ``report.md`` as
  an interactive chart (values on hover, systems toggled from the legend)
  with its table;
* the systems table, sortable by any column, with bootstrap intervals
  (``committee report`` computes them) and IRT ability θ when given;
* the item explorer: every gold word with its sentence context, difficulty
  (and IRT a, b), OOV flag, length and each system's outcome
  (``committee.tasks.spans.OUTCOMES``), filtered by difficulty range, OOV,
  outcome, system and a text search, sorted by any column, shown a page at
  a time (25 to 1,000 rows, with a jump to any page);
* A versus B: the words one system gets right and another wrong, per
  difficulty bin, with examples.

Charts use Plotly: the ``plotly`` Python package ships ``plotly.min.js``,
which is inlined, so the page needs nothing from the network; hover values
and legend toggles are built in.  The per-word data is columnar and compact:
words dictionary-encoded, difficulties as codes into their distinct values,
outcomes one byte per word and system, predicted segmentations as one bit
per character, each array base64-encoded little-endian.

:func:`from_run` assembles a :class:`ReportData` from a finished run
directory and system output files.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from committee import __version__
from committee import metrics
from committee.metrics import records
from committee.report.plots import COLORS, HATCHES
from committee.corpus import Corpus
from committee.errors import DependencyError
from committee.pipeline import runfiles
from committee.system.files import atomic_write_text
from committee.tasks.spans import OUTCOMES, outcomes, spans

__all__ = ["Analysis", "ReportData", "SystemData", "CHART_KINDS", "encode", "from_run",
           "plotly_problem", "render", "run_analyses", "write_html"]

#: Chart kinds an :class:`Analysis` can ask for.
CHART_KINDS = ("line", "bar", "scatter", "heatmap", "table")
#: A scatter trace of at most this many points shows each point's label.
LABELLED_POINTS = 40
#: The page's A-versus-B section when there are fewer than two systems to compare.
VERSUS_NEEDS_TWO = ('<p class="help" data-testid="versus-note">A versus B compares two systems '
                    "(what one gets right and the other wrong); this report has {systems}: add "
                    "some with <code>committee report --system OUTPUT</code> or --with NAME.</p>")


@dataclass(frozen=True)
class SystemData:
    """One system: its segmentation of the gold sentences and its scores.

    Attributes
    ----------
    name : str
    words : list of list of str
        The system's words per gold sentence (same characters as gold).
    scores : dict
        A system entry of ``committee score --json``: the keys of
        :data:`committee.metrics.METRICS` (fractions, ``None`` when
        undefined), ``counts``, ``recall_by_bin``, ``rank_f1``/``rank_fb``;
        optionally ``ci`` (``{metric: [lo, hi]}``) and ``theta`` (IRT
        ability).
    """

    name: str
    words: list[list[str]]
    scores: dict = field(default_factory=dict)
    #: the labels of its tokens: entity tags (an entity run), a part of speech
    #: per word (a part-of-speech run)
    tags: list[list[str]] | None = None


@dataclass(frozen=True)
class Analysis:
    """One analysis of the report: a table and how to chart it.

    Attributes
    ----------
    title : str
    table : pandas.DataFrame or mapping of column name to sequence
    chart : str
        One of :data:`CHART_KINDS`.  ``line``/``bar``: ``x`` against every
        column of ``y`` (one trace each); ``scatter``: ``y[0]`` against ``x``,
        points labelled by ``label``; ``heatmap``: a labelled heat map, one
        row per value of ``x`` (down) and one column per column of ``y``
        (across), each cell's value written in it, one map per value of
        ``group`` chosen from a menu; ``table``: no chart.
    x : str, optional
        Column on the x axis (default: the first column).
    y : sequence of str, optional
        Columns to draw (default: every numeric column but ``x``).
    label : str, optional
        Column naming each point of a scatter chart.
    text : str
        A sentence saying what the chart shows.
    x_title, y_title : str
        Axis titles (default: the column names).
    names : mapping of str to str
        Readers' names of columns and of ``group`` values (legend, table).
    group : str, optional
        Column whose values split the points or bars into traces; a
        scatter trace of at most :data:`LABELLED_POINTS` points has each
        point labelled by ``label`` (points at the same place share one
        label, their names joined).

    A drawn column ``C`` beside columns ``C low`` and ``C high`` is drawn
    with those as its interval (error bars).
    """

    title: str
    table: object
    chart: str = "table"
    x: str | None = None
    y: Sequence[str] | None = None
    label: str | None = None
    text: str = ""
    x_title: str = ""
    y_title: str = ""
    names: Mapping[str, str] = field(default_factory=dict)
    group: str | None = None


@dataclass(frozen=True)
class ReportData:
    """Everything :func:`write_html` shows.

    Attributes
    ----------
    name : str
        Run name.
    signature : str
        Scoring signature (``committee score``'s) of the systems' scores.
    gold : list of list of str
        Gold sentences as word lists; N words in all.
    d : array of float, shape (N,)
        Difficulty of each gold word, corpus order.
    oov : array of bool, shape (N,), optional
    irt_a, irt_b : array of float, shape (N,), optional
        IRT discrimination and difficulty of each gold word.
    systems : list of SystemData
    analyses : list of Analysis
    lines : list of int, optional
        Source line of each gold sentence (default 1, 2, …).
    notes : list of str
    failed : list of dict
        Analyses that failed: ``{"analysis": name, "title": heading,
        "reason": why}`` each, shown first among the analyses.
    units : list or None
        For a run of labelled units: each sentence's gold units ``(start,
        end, label)``, entities (``task: ner``; ``gold`` holds the
        sentences' tokens, ``d`` is per entity, each system has ``tags``,
        docs/method.md §13) or words with their parts of speech (``task:
        pos``; each system has a tag per word in ``tags``, §14).
    page : str, optional
        The page's view (its script's ``DATA.task``): the run's task's
        :attr:`committee.tasks.Task.page`, which also says how labelled
        units are read; None: ``ner`` with ``units``, else ``segmentation``.
    """

    name: str
    signature: str
    gold: list[list[str]]
    d: np.ndarray
    systems: Sequence[SystemData] = ()
    oov: np.ndarray | None = None
    irt_a: np.ndarray | None = None
    irt_b: np.ndarray | None = None
    analyses: Sequence[Analysis] = ()
    lines: Sequence[int] | None = None
    notes: Sequence[str] = ()
    failed: Sequence[Mapping[str, str]] = ()
    units: list | None = None
    page: str | None = None


# --------------------------------------------------------------------------
# encoding


def _b64(a: np.ndarray) -> str:
    """Base64 of an array's little-endian bytes."""
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and np.little_endian is False):
        a = a.astype(a.dtype.newbyteorder("<"))
    return base64.b64encode(a.tobytes()).decode("ascii")


def _array(a: np.ndarray) -> dict:
    """A typed array for the page: dtype name and base64 data.

    >>> _array(np.array([1, 2], dtype=np.uint16))
    {'dtype': 'uint16', 'b64': 'AQACAA=='}
    """
    return {"dtype": a.dtype.name, "b64": _b64(a)}


def _codes(n_values: int) -> type:
    return np.uint8 if n_values <= 1 << 8 else np.uint16 if n_values <= 1 << 16 else np.uint32


def _dictionary(values) -> tuple[list, np.ndarray]:
    """Distinct values (first-seen order) and each value's code, as small ints.

    >>> vals, codes = _dictionary(["的", "人", "的"])
    >>> vals, codes.tolist(), codes.dtype.name
    (['的', '人'], [0, 1, 0], 'uint8')
    """
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(values), sort=False)
    return list(uniques), codes.astype(_codes(len(uniques)))


def _json_number(x):
    if x is None:
        return None
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return int(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return x
    return None if math.isnan(f) or math.isinf(f) else f


def _columns(table) -> dict[str, list]:
    """A DataFrame or a mapping as ``{column: list}`` with JSON-safe values."""
    if hasattr(table, "to_dict") and hasattr(table, "columns"):
        table = {str(c): table[c].tolist() for c in table.columns}
    out = {}
    for name, col in dict(table).items():
        col = col.tolist() if hasattr(col, "tolist") else list(col)
        out[str(name)] = [_json_number(v) if not isinstance(v, str) else v for v in col]
    return out


def _analysis(a: Analysis) -> dict:
    if a.chart not in CHART_KINDS:
        raise ValueError(f"analysis {a.title!r}: chart {a.chart!r} is not one of "
                         f"{', '.join(CHART_KINDS)}")
    cols = _columns(a.table)
    names = list(cols)
    for c in [a.x, a.label, a.group, *(a.y or ())]:
        if c is not None and c not in cols:
            raise ValueError(f"analysis {a.title!r}: no column {c!r} (has {', '.join(names)})")
    x = a.x if a.x is not None else (names[0] if names else None)
    y = list(a.y) if a.y is not None else [
        c for c in names if c != x and c != a.label and c != a.group
        and all(v is None or isinstance(v, (int, float)) for v in cols[c])]
    intervals = {c: [f"{c} low", f"{c} high"] for c in y
                 if f"{c} low" in cols and f"{c} high" in cols}
    return {"title": a.title, "chart": a.chart, "x": x, "y": y, "label": a.label,
            "text": a.text, "columns": cols, "intervals": intervals,
            "x_title": a.x_title or x or "",
            "y_title": a.y_title or (y[0] if len(y) == 1 else ""),
            "names": {str(k): str(v) for k, v in a.names.items()}, "group": a.group,
            "labelled_points": LABELLED_POINTS}


def _check_vector(name: str, v, n: int, dtype) -> np.ndarray | None:
    if v is None:
        return None
    v = np.asarray(v, dtype=dtype)
    if v.shape != (n,):
        raise ValueError(f"{name} has shape {v.shape}, gold has {n} words")
    return v


def encode(data: ReportData) -> dict:
    """The page's data: the JSON object that :func:`write_html` embeds.

    Raises :class:`ValueError` on vectors of the wrong length and
    :class:`~committee.errors.InputError` on a system whose characters
    differ from gold.

    Examples
    --------
    >>> data = ReportData("demo", "sig", [["约翰", "喜欢", "玛丽"]], [0.0, 0.5, 1.0],
    ...                   [SystemData("s", [["约翰", "喜", "欢", "玛丽"]])])
    >>> page = encode(data)
    >>> page["n_words"], page["vocab"], page["d_values"]
    (3, ['约翰', '喜欢', '玛丽'], [0.0, 0.5, 1.0])
    >>> page["systems"][0]["error_types"]
    {'correct': 2, 'split': 1, 'merged': 0, 'crossed': 0}
    """
    gold = Corpus("gold", data.gold, list(data.lines or range(1, len(data.gold) + 1)))
    if data.units is not None:
        return _encode_entities(data, gold)
    g = spans(gold.words)
    n = len(g.starts)
    d = _check_vector("d", data.d, n, np.float64)
    vocab, word_ids = _dictionary([w for s in gold.words for w in s])
    per_sentence = np.array([len(s) for s in gold.words], dtype=np.int64)
    systems = []
    for s in data.systems:
        pred = Corpus(s.name, s.words, gold.lines)
        metrics.check_aligned(gold, pred)
        p = spans(pred.words)
        codes = outcomes(g, p).astype(np.uint8)
        ends = np.zeros(g.n_chars, dtype=bool)
        ends[p.ends - 1] = True
        counts = np.bincount(codes, minlength=len(OUTCOMES))
        systems.append(_system(s, {k: int(c) for k, c in zip(OUTCOMES, counts)}, codes) | {
            "ends": _array(np.packbits(ends, bitorder="little"))})
    return _page(data, gold, _Items(n, g.n_chars, d, vocab, word_ids, per_sentence), OUTCOMES,
                 systems)


def _system(s: SystemData, error_types: dict, codes: np.ndarray) -> dict:
    """A system's part of the page: scores, error types, outcome per gold unit."""
    scores = {k: (v if isinstance(v, (dict, list, str)) else _json_number(v))
              for k, v in s.scores.items()}
    return {"name": s.name, "scores": json.loads(json.dumps(scores, default=_json_number)),
            "error_types": error_types, "outcome": _array(codes)}


def _encode_entities(data: ReportData, gold: Corpus) -> dict:
    """:func:`encode` of a run of labelled units (entities; words with their
    parts of speech): each item is a gold unit, with its sentence's text,
    offsets and label; each system's units as labelled spans."""
    from committee import tasks as tasks_mod
    from committee.metrics.labelled import outcome_codes
    from committee.tasks import NER, match

    task = next((t for t in tasks_mod.TASKS.values() if t.page == data.page and t.labels_field),
                NER)
    names, count = task.unit_kind.outcomes()  # tagged words: a wrong tag, not a wrong type
    lengths = [sum(map(len, ws)) for ws in gold.words]
    texts = ["".join(ws) for ws in gold.words]
    units = data.units
    n = sum(map(len, units))
    d = _check_vector("d", data.d, n, np.float64)
    vocab, word_ids = _dictionary(task.texts(gold.words, units))
    types, type_codes = _dictionary([u[2] for us in units for u in us] or ["-"])
    systems = []
    for s in data.systems:
        pred = task.as_corpus(s.name, s.words, gold.lines, s.tags)
        metrics.check_aligned(gold, pred)
        g, p, _, _ = match(task, lengths, units, task.gold(pred))
        counts = count(g, p)
        codes = outcome_codes(g, p)
        systems.append(_system(s, counts, codes) | {
            "pred_start": _array(p.starts.astype(np.uint32)),
            "pred_end": _array(p.ends.astype(np.uint32)),
            "pred_type": [p.label_names[k] for k in p.labels.tolist()]})
    page = _page(data, gold, _Items(n, sum(lengths), d, vocab, word_ids,
                                    np.array([len(u) for u in units], dtype=np.int64)),
                 names, systems)
    starts = np.array([u[0] for us in units for u in us], dtype=np.uint32)
    ends = np.array([u[1] for us in units for u in us], dtype=np.uint32)
    return page | {"task": data.page or "ner", "texts": texts, "item_start": _array(starts),
                   "item_end": _array(ends), "types": types,
                   "type_codes": _array(type_codes[:n])} | (
        {"unit": task.unit, "units": task.units} if task is not NER else {})


@dataclass(frozen=True)
class _Items:
    """The page's items (words, or labelled units) as encoded: how many, the
    characters of the test set, each item's difficulty, the dictionary of
    their texts and each item's code in it, and the items of each sentence."""

    n: int
    n_chars: int
    d: np.ndarray
    vocab: list
    word_ids: np.ndarray
    per_sentence: np.ndarray


def _page(data: ReportData, gold: Corpus, items: _Items, outcome_names, systems) -> dict:
    """The page's data once its items (words, or entities) are encoded."""
    n, d, per_sentence = items.n, items.d, items.per_sentence
    oov = _check_vector("oov", data.oov, n, bool)
    irt_a = _check_vector("irt_a", data.irt_a, n, np.float64)
    irt_b = _check_vector("irt_b", data.irt_b, n, np.float64)
    d_values, d_codes = _dictionary(d.tolist())
    return {
        "name": data.name, "signature": data.signature, "version": __version__,
        "n_sentences": len(gold.words), "n_words": n, "n_chars": items.n_chars,
        "task": data.page or "segmentation", "outcomes": list(outcome_names),
        "metrics": records.page_columns(),
        "palette": {"colors": list(COLORS), "patterns": list(HATCHES)},
        "bin_labels": [f"[{b / 10:.1f}, {(b + 1) / 10:.1f}{']' if b == 9 else ')'}"
                       for b in range(metrics.N_BINS)],
        "vocab": items.vocab, "word_ids": _array(items.word_ids),
        "sentence_words": _array(per_sentence.astype(_codes(int(per_sentence.max(initial=0)) + 1))),
        "lines": [int(x) for x in gold.lines],
        "d_values": [float(x) for x in d_values], "d_codes": _array(d_codes),
        "bins": _array(metrics.difficulty_bins(d).astype(np.uint8)),
        "oov": None if oov is None else _array(oov.astype(np.uint8)),
        "irt_a": None if irt_a is None else _array(irt_a.astype(np.float32)),
        "irt_b": None if irt_b is None else _array(irt_b.astype(np.float32)),
        "systems": systems,
        "analyses": [_analysis(a) for a in data.analyses],
        "notes": list(data.notes),
        "failed": [{k: str(f[k]) for k in ("analysis", "title", "reason")} for f in data.failed],
    }


# --------------------------------------------------------------------------
# the page


def _asset(name: str) -> str:
    return (resources.files("committee.report") / "assets" / name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    r"""Script text that cannot end the ``<script>`` element it is put in.

    >>> print(_script_safe('x = "</SCRIPT>"'))
    x = "<\/SCRIPT>"
    """
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


def _json_safe(text: str) -> str:
    r"""JSON text with every ``<`` escaped, so that it is inert inside ``<script>``.

    >>> print(_json_safe('{"a": "</script>"}'))
    {"a": "\u003c/script>"}
    """
    return text.replace("<", "\\u003c")


def plotly_problem() -> str | None:
    """Why the page cannot be made (plotly is not installed), or None."""
    try:
        _plotly_js()
    except DependencyError as exc:
        return str(exc)
    return None


def _plotly_js() -> str:
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise DependencyError("plotly", "report.html needs it", "report") from None
    return get_plotlyjs()


def render(data: ReportData) -> str:
    """The HTML text of the page (see :func:`write_html`)."""
    page = json.dumps(encode(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    n = len(data.systems)
    return (_asset("report.html")
            .replace("{{versus}}", _asset("versus.html") if n > 1 else VERSUS_NEEDS_TWO.format(
                systems="one system" if n else "no system"))
            .replace("{{title}}", html.escape(f"Report: {data.name}"))
            .replace("{{style}}", _asset("report.css"))
            .replace("{{plotly}}", _script_safe(_plotly_js()))
            .replace("{{data}}", _json_safe(page))
            .replace("{{script}}", _script_safe(_asset("report.js"))))


def write_html(path, data: ReportData) -> Path:
    """Write the self-contained report page to ``path`` (atomically).

    Parameters
    ----------
    path : path
        Where to write, e.g. ``RUN_DIR/report.html``.
    data : ReportData

    Returns
    -------
    Path of the page.
    """
    path = Path(path)
    atomic_write_text(path, render(data))
    return path


# --------------------------------------------------------------------------
# from a run directory


def run_analyses(run_dir, names=None) -> list[Analysis]:
    """The charts of the analyses ``names`` (default: every one) read back
    from the CSV files ``committee report`` wrote into ``run_dir``, as
    :class:`Analysis` items in report order (the charts of
    :data:`committee.report.analyses.REGISTRY`); a file not written is left out
    (the report names those of the analyses it made)."""
    run_dir = Path(run_dir)
    out = []
    for chart in _charts(names):
        path = run_dir / chart.file
        if not path.is_file():
            continue
        df = runfiles.read_table(path, keep_default_na=True)
        group = chart.group if chart.group in df.columns else None
        values = df[group].astype(str).unique().tolist() if group else []
        out.append(Analysis(chart.title, df, chart.chart, x=chart.x,
                            y=chart.columns(list(df.columns)), label=chart.label,
                            text=chart.text, x_title=chart.x_title, y_title=chart.y_title,
                            names={c: chart.name_of(c) for c in [*df.columns, *values]},
                            group=group))
    return out


def _charts(names) -> list:
    """The charts of the analyses ``names`` (None: all), in report order."""
    from committee.report.analyses import REGISTRY

    return [chart for e in REGISTRY if names is None or e.name in names for chart in e.charts]


def _run_system_files(run_dir: Path) -> list[Path]:
    """Outputs ``committee report`` kept: Table 2 models, then segmenters and
    taggers (``.bio`` for an entity run)."""
    from committee.pipeline import layout

    report = run_dir / layout.REPORT_DIR
    return sorted((report / "table2").glob("*.txt")) + sorted(
        p for p in (report / "systems").glob("*") if p.suffix in (".txt", ".bio"))


def from_run(run_dir, system_files: Sequence = (), *, n_bootstrap: int = 0, seed: int = 12345,
             analyses: Sequence[Analysis] | None = None,
             irt: Mapping[str, np.ndarray] | None = None) -> ReportData:
    """Assemble a :class:`ReportData` from a finished run and system outputs.

    Parameters
    ----------
    run_dir : path
        Output directory of ``committee run`` (and, for the analyses, of
        ``committee report``).
    system_files : sequence of path
        Outputs of the run's ``test.txt`` in its task's format (SIGHAN; bio
        for entities, pku for parts of speech).  Default: the outputs
        ``committee report`` kept under ``report/``.
    n_bootstrap, seed
        Bootstrap confidence intervals, as ``committee score --bootstrap``.
    analyses : list of Analysis, optional
        Default: :func:`run_analyses` of ``run_dir``.
    irt : mapping, optional
        ``{"a": ..., "b": ..., "theta": {system: value}}``, any part optional.

    Scores are those of ``committee score --gold test.txt --difficulty
    test.weight --train-words train-words.txt``, signature included.
    """
    from committee import corpus as corpus_mod
    from committee import scoring
    from committee.pipeline import layout
    from committee.report.rundata import load_run

    run_dir = Path(run_dir)
    run = load_run(run_dir)
    task = run.task_record
    p = layout.paths(run_dir)
    files = [Path(f) for f in system_files] or _run_system_files(run_dir)
    scored = {"systems": [], "signature": ""}
    if files:
        # a labelled run's difficulties are read from the run (entities: test.weight_c too)
        scorer = scoring.Scorer(p.test, difficulty=p.root if run.labelled else p.weight,
                                train_words=p.train_words if p.train_words.is_file() else None,
                                **({"task": task.name} if run.labelled else {}))
        scored = scorer.score_all([str(f) for f in files], bootstrap=n_bootstrap, seed=seed)
    irt = dict(irt or {})
    theta = irt.get("theta") or {}
    systems = []
    for f, row in zip(files, scored["systems"]):
        out = task.prepare(corpus_mod.read_corpus(f, format=task.format))
        scores = dict(row)
        if row["name"] in theta:
            scores["theta"] = theta[row["name"]]
        systems.append(SystemData(row["name"], out.words, scores, tags=task.labels_of(out)))
    signature = scored["signature"] or (
        run.score_signature().format() if run.labelled else
        metrics.make_signature(run.test.words, difficulty=run.d).format())
    return ReportData(
        name=run.manifest.get("name", run_dir.name), signature=signature,
        gold=run.test.words, d=run.d, oov=run.oov, systems=systems,
        irt_a=irt.get("a"), irt_b=irt.get("b"),
        analyses=run_analyses(run_dir) if analyses is None else analyses,
        lines=run.test.lines, units=run.units, page=task.page)
