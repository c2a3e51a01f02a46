"""The paper's analyses of a run, one record each, in report order.

An :class:`Experiment` says everything about one analysis but its code:
its name (the switch of the config's ``experiments`` section, a choice of
``committee report --only/--skip``), the settings it reads from that
section, the function that makes it (``"module:function"``, imported when
the report runs), the files it writes, its heading in ``report.md`` and the
charts ``report.html`` draws from its CSV files.  From :data:`REGISTRY`
follow :data:`committee.config.EXPERIMENTS`, the section
:class:`committee.config.ExperimentsConfig`, the CLI's choices, the order of
``report.md`` and of ``report.html``, and docs/config.md.

This module imports no other part of the config, so that the section is
built from whatever :data:`REGISTRY` holds when :mod:`committee.config` is
first imported.
"""

from __future__ import annotations

import difflib
import importlib
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StrictBool, conint, constr

from committee.learners import crf
from committee import tasks as tasks_mod
from committee.learners.features import TEMPLATES
from committee.segmenters import CMD_PREFIX, SEGMENTERS as _SEGMENTER_TABLE, name_problem

__all__ = ["COMMON_SETTINGS", "Chart", "Experiment", "REGISTRY", "SEGMENTERS", "Setting",
           "by_name", "function_of"]

#: Real segmenters the report can run itself (committee.segmenters).
SEGMENTERS = tuple(_SEGMENTER_TABLE)

_Path = constr(strict=True, min_length=1)


def command_refusal(name: str) -> str:
    """Why a config (or a run's manifest) may not name the command ``name``:
    a file is data, and only the person at the keyboard runs a command
    (docs/security.md).

    >>> command_refusal("cmd:./seg --utf8")
    "'cmd:./seg --utf8': a config never names a command (files are data, docs/security.md); name it on the command line: --with 'cmd:./seg --utf8'"
    """
    return (f"{name!r}: a config never names a command (files are data, docs/security.md); "
            f"name it on the command line: --with {shlex.quote(name)}")


def _segmenter_name(name: str) -> str:
    """``name`` when it is a segmenter of :data:`SEGMENTERS`; a
    ``cmd:COMMAND`` is refused (:func:`command_refusal`), as is an unknown
    name (:func:`committee.segmenters.name_problem`).

    >>> _segmenter_name("jieba")
    'jieba'
    >>> _segmenter_name("jeiba")
    Traceback (most recent call last):
    ...
    ValueError: unknown value 'jeiba' (did you mean 'jieba'?); expected one of: jieba, thulac, snownlp, pkuseg, lac, jiojio, rjieba (a command: --with 'cmd:COMMAND' on the command line)
    """
    if name.startswith(CMD_PREFIX):
        raise ValueError(command_refusal(name))
    problem = name_problem(name)
    if problem == "unknown segmenter":
        close = difflib.get_close_matches(name, list(_SEGMENTER_TABLE), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ValueError(f"unknown value '{name}'{hint}; expected one of: "
                         f"{', '.join(_SEGMENTER_TABLE)} (a command: --with '{CMD_PREFIX}COMMAND' "
                         "on the command line)")
    if problem is not None:
        raise ValueError(f"'{name}': {problem}")
    return name


_Segmenter = Annotated[str, Field(strict=True, min_length=1), AfterValidator(_segmenter_name)]
_Positive = conint(strict=True, ge=1)
_NonNegative = conint(strict=True, ge=0)
_Fraction = Annotated[float, Field(strict=True, gt=0, le=1)]


@dataclass(frozen=True)
class Setting:
    """One key of the ``experiments`` section besides the switches.

    ``type`` is its pydantic annotation; ``unique`` refuses a repeated item
    of a list; ``meaning`` is its line in docs/config.md.
    """

    name: str
    type: Any
    default: Any
    meaning: str
    unique: bool = False


@dataclass(frozen=True)
class Chart:
    """A chart of ``report.html``, drawn from one CSV file of the analysis.

    ``file`` is relative to the run directory; ``chart``, ``x``, ``label``
    and ``text`` are those of :class:`committee.report.html.Analysis`.
    ``y`` names the columns drawn, or picks them from the file's columns.
    ``needs`` names an input without which the file is not written (the
    report says of any other chart whose file is missing).  ``x_title`` and
    ``y_title`` are the axes' titles and ``names`` the readers' names of
    columns (legend entries, table headings), or a function giving them; a
    column not in ``names`` shows as it is named, a ``" share"`` suffix
    dropped.  ``group`` names a
    column whose values split the points or bars into traces (named by
    ``names`` too).
    """

    file: str
    title: str
    chart: str
    x: str | None = None
    y: Sequence[str] | Callable[[list[str]], list[str]] | None = None
    label: str | None = None
    text: str = ""
    needs: str | None = None
    x_title: str = ""
    y_title: str = ""
    names: Mapping[str, str] | Callable[[str], str] = field(default_factory=dict)
    group: str | None = None

    def columns(self, available: Sequence[str]) -> list[str] | None:
        """The columns to draw among ``available`` (None: every numeric one)."""
        if self.y is None:
            return None
        wanted = self.y(list(available)) if callable(self.y) else self.y
        return [c for c in wanted if c in available]

    def name_of(self, column: str) -> str:
        """The readers' name of ``column``.

        >>> Chart("f.csv", "t", "bar", names={"n_words": "words"}).name_of("n_words")
        'words'
        >>> Chart("f.csv", "t", "bar").name_of("OOV share")
        'OOV'
        """
        if callable(self.names):
            return self.names(column)
        return self.names.get(column, column.removesuffix(" share"))


@dataclass(frozen=True)
class Experiment:
    """One analysis of the report (see the module's docstring).

    ``function`` is ``"module:function"`` or a callable taking the report's
    :class:`committee.report.sections.Context` and returning its section of
    ``report.md`` (or None); ``outputs`` are globs relative to the run
    directory, removed when the analysis fails.  ``units``: the kinds of
    unit whose runs it reads (:attr:`committee.tasks.Task.collector`:
    ``words``, ``entities`` or ``tags``), None for every kind (:func:`reads`); on a
    run of another kind the report leaves it out with a note saying why.
    """

    name: str
    function: str | Callable
    title: str
    meaning: str
    settings: tuple[Setting, ...] = ()
    outputs: tuple[str, ...] = ()
    charts: tuple[Chart, ...] = field(default=())
    units: tuple[str, ...] | None = None


def reads(experiment: Experiment, task: str) -> bool:
    """Whether ``experiment`` reads runs of ``task`` (a name of
    :data:`committee.tasks.TASKS`): those whose units are of a kind it reads."""
    return experiment.units is None or tasks_mod.get(task).collector in experiment.units


def for_task(title: str, task: str) -> str:
    """A heading or chart title said of a run of ``task``: the models of an
    entity run are taggers, not segmenters (:attr:`committee.tasks.Task.models`).

    >>> for_task("Table 2: segmenters trained on more data", "ner")
    'Table 2: taggers trained on more data'
    """
    return title.replace("segmenters", tasks_mod.get(task).models)


def function_of(experiment: Experiment) -> Callable:
    """The function of ``experiment``, imported if given as ``"module:function"``."""
    if callable(experiment.function):
        return experiment.function
    module, _, name = experiment.function.partition(":")
    return getattr(importlib.import_module(module), name)


def by_name(name: str) -> Experiment:
    """The record of analysis ``name`` (``KeyError`` if there is none)."""
    for experiment in REGISTRY:
        if experiment.name == name:
            return experiment
    raise KeyError(name)


_HERE = "committee.report.sections"

#: Readers' names of the metric columns of Table 2.
_METRIC_NAMES = {"p": "precision p", "r": "recall r", "f1": "F1", "pb": "balanced precision pb",
                 "rb": "balanced recall rb", "fb": "balanced F fb"}
#: Readers' names of the kinds of models a split-half or θ chart shows.
_KINDS = {"member": "committee members", "table2": "Table 2 models", "system": "segmenters"}


def _drop_recall(column: str) -> str:
    """A system's recall column by the system's name (the axis says recall)."""
    return column.removesuffix(" recall")


#: The word attributes of the report's ``buckets`` analysis, with their chart
#: titles: those a run directory allows (it keeps the training vocabulary,
#: not the training corpus that frequency and consistency need).
BUCKET_ATTRIBUTES = {"length": "word length", "oov": "OOV / IV",
                     "sentence": "sentence length", "difficulty": "difficulty"}

#: The analyses, in the order of their sections in ``report.md`` and ``report.html``.
REGISTRY: tuple[Experiment, ...] = (
    Experiment(
        "table2", f"{_HERE}:table2", "Table 2: segmenters trained on more data",
        "Table 2: models of one template trained on shares of the training data (trains models)",
        (Setting("table2_fractions", Annotated[tuple[_Fraction, ...], Field(min_length=1)],
                 (0.2, 0.5, 0.8, 1.0), "shares of the training sentences, nested random samples",
                 unique=True),
         Setting("table2_template", Literal[TEMPLATES], "F2", "feature template of the models"),
         Setting("table2_preset", Literal[(*crf.PRESETS, "committee")], "paper",
                 "recipe of the models, a preset of crf.trainer (committee: the members' own crf "
                 "section)"),
         Setting("table2_max_iterations", _Positive | None, None,
                 "replaces the recipe's max_iterations for these models; null: the recipe's")),
        ("table2.csv", "report/table2.md", "report/table2.png"),
        (Chart("table2.csv", "Table 2: segmenters trained on more data", "line", "fraction",
               ("p", "r", "f1", "pb", "rb", "fb"),
               text="Scores of template models trained on growing shares of the training "
                    "sentences: p, r, f1 count every word alike (solid), the balanced pb, rb, "
                    "fb weigh each word by its difficulty (dashed).",
               x_title="share of the training sentences", y_title="score",
               names=_METRIC_NAMES),)),
    Experiment(
        "stability", f"{_HERE}:stability", "Fig. 1: is the committee large enough?",
        "Fig. 1: difficulties of the committee's first members against the whole committee's",
        (Setting("stability_sizes", tuple[_Positive, ...] | None, None,
                 "committee sizes to compare; null: about ten steps up to the committee's size"),),
        ("report/fig1-*",),
        (Chart("report/fig1-committee-size.csv", "Fig. 1: is the committee large enough?",
               "line", "size", ("mean_abs_diff", "max_abs_diff", "pearson", "reliability"),
               text="Difficulties from the first K' members against the full committee's.",
               x_title="committee size K' (its first K' members)",
               y_title="against the full committee",
               names={"mean_abs_diff": "mean |d(K') − d(K)|",
                      "max_abs_diff": "largest |d(K') − d(K)|",
                      "pearson": "Pearson r of d(K') with d(K)",
                      "reliability": "split-half reliability of d(K')"}),)),
    Experiment(
        "linguistic", f"{_HERE}:linguistic", "Fig. 2: which words are hard?",
        "Fig. 2: idioms, 2-character and OOV words over the difficulty bins",
        (Setting("idioms", _Path | None, None,
                 "idiom word list, one a line, when the test corpus has no POS tag 'i'"),),
        ("report/fig2-*",),
        (Chart("report/fig2-linguistic.csv", "Fig. 2: which words are hard?", "bar", "bin",
               lambda columns: [c for c in columns if c.endswith(" share")],
               text="Share of each word group in each difficulty bin.",
               x_title="difficulty bin", y_title="share of the group's words"),),
        units=(tasks_mod.WORDS, tasks_mod.TAGS)),
    Experiment(
        "ranking", f"{_HERE}:ranking", "Fig. 3: ranking systems by f1 and by fb",
        "Fig. 3: the systems ranked by f1 and by fb (and against human judgements)",
        (Setting("systems", tuple[_Path, ...], (),
                 "other segmenters' outputs of the test set (SIGHAN files) scored beside the "
                 "Table 2 models"),
         Setting("segmenters", tuple[_Segmenter, ...], (),
                 "segmenters the report runs on the test set itself: names of "
                 "committee.segmenters (a command is named on the command line only: "
                 "--with 'cmd:COMMAND', docs/security.md)"),
         Setting("human", _Path | None, None,
                 "human judgements of the systems: 'system<TAB>score' per line")),
        ("report/fig3-*",),
        (Chart("report/fig3-human-correlation.csv", "Fig. 3: correlation with human judgements",
               "bar", "metric", ("pearson",),
               text="Pearson r of each metric with the human scores.",
               needs="human judgements", x_title="metric",
               y_title="Pearson r with the human scores", names={"pearson": "Pearson r"}),)),
    Experiment(
        "bins", f"{_HERE}:bins", "Fig. 4: accuracy by difficulty",
        "Fig. 4: recall of each system in each difficulty bin",
        (), ("report/fig4-*",),
        (Chart("report/fig4-recall-by-bin.csv", "Fig. 4: accuracy by difficulty", "line", "bin",
               lambda columns: [c for c in columns if c not in ("bin", "gold_words")],
               text="Recall of the gold words in each difficulty bin, per system.",
               x_title="difficulty bin", y_title="recall of the bin's gold words"),)),
    Experiment(
        "split_half", f"{_HERE}:split_half", "Fig. 6: split-half reliability",
        "Fig. 6: fb on two random halves of the test set, Pearson r over the models",
        (Setting("split_half_repeats", _Positive, 100, "random splits of the test sentences"),),
        ("report/fig6-*",),
        (Chart("report/fig6-split-half.csv", "Fig. 6a: fb on the two halves of one split",
               "scatter", "fb_half_a", ("fb_half_b",), "model",
               "fb of each model on the two halves of the first split.",
               x_title="fb on half A", y_title="fb on half B",
               names={"fb_half_a": "fb on half A", "fb_half_b": "fb on half B", **_KINDS},
               group="kind"),
         Chart("report/fig6-split-half-pearson.csv", "Fig. 6b: Pearson r of each split",
               "line", "split", ("pearson_fb", "pearson_f1"),
               text="Pearson r across halves, for each random split.",
               x_title="random split", y_title="Pearson r between the halves",
               names={"pearson_fb": "r of fb", "pearson_f1": "r of f1"})),
        units=(tasks_mod.WORDS, tasks_mod.TAGS)),
    Experiment(
        "word_weights", f"{_HERE}:word_weights", "Fig. 7: word weights",
        "Fig. 7: sentences with each word's difficulty",
        (Setting("word_weight_sentences", tuple[_NonNegative, ...], (),
                 "test sentence indices (0-based); empty: the hardest sentences"),),
        ("report/fig7-*",),
        (Chart("report/fig7-word-weights.csv", "Fig. 7: word weights", "bar", "word_index",
               ("d",), "word", "The words of the chosen sentences with their difficulties.",
               x_title="the words of each sentence, numbered from 0", y_title="difficulty d",
               names={"word_index": "word"}, group="sentence"),),
        units=(tasks_mod.WORDS, tasks_mod.TAGS)),
    Experiment(
        "irt", f"{_HERE}:irt", "IRT: item response theory on the committee's marks",
        "2PL item response theory on the marks (as committee irt), θ of every system",
        (Setting("irt_subset", _Positive, 500,
                 "informative words chosen to estimate θ and fb (docs/irt.md)"),),
        ("report/irt-*",),
        (Chart("report/irt-b-vs-d.csv", "IRT: b against d", "line", "d",
               ("b_median", "b_q10", "b_q90"),
               text="IRT difficulty b of the words at each committee difficulty d.",
               x_title="committee difficulty d", y_title="IRT difficulty b",
               names={"b_median": "median b", "b_q10": "10th percentile of b",
                      "b_q90": "90th percentile of b"}),
         Chart("report/irt-a-histogram.csv", "IRT: distribution of a", "bar", "a_low",
               ("n_words",), text="Discrimination of the words with variance.",
               x_title="discrimination a (lower edge of the bin)", y_title="words",
               names={"a_low": "a from", "a_high": "a below", "n_words": "words"}),
         Chart("report/irt-systems.csv", "IRT: ability θ against fb", "scatter", "theta",
               ("fb",), "system", "Each system's θ (items fixed) against its fb.",
               x_title="ability θ", y_title="fb", names={"theta": "θ", **_KINDS},
               group="kind"),
         Chart("report/irt-subset.csv", "IRT: estimates from an informative subset", "table",
               text="θ and fb of held-out systems from all words, the chosen words and "
                    "random words.")),
        units=(tasks_mod.WORDS, tasks_mod.TAGS)),
    Experiment(
        "buckets", f"{_HERE}:buckets", "Results by word attribute",
        "recall and rb of each system by word length, OOV, sentence length and difficulty, "
        "with bootstrap intervals (docs/metrics.md)",
        (Setting("buckets_bootstrap", _NonNegative, 200,
                 "bootstrap resamples of the test sentences for the intervals; 0: none"),),
        ("report/buckets-*",),
        tuple(Chart(f"report/buckets-{key}.csv", f"Results by {title}", "bar", "bucket",
                    lambda columns: [c for c in columns if c.endswith(" recall")],
                    text=f"Recall of each system's gold words by {title}.",
                    needs="the training vocabulary" if key == "oov" else None,
                    x_title=title, y_title="recall of the bucket's gold words",
                    names=_drop_recall)
              for key, title in BUCKET_ATTRIBUTES.items()),
        units=(tasks_mod.WORDS,)),
    Experiment(
        "entities", f"{_HERE}:entities", "Entities by type",
        "entities of a task: ner run: difficulty by type, the hardest entities",
        (), ("report/entities-*",),
        (Chart("report/entities-by-type.csv", "Entities by type", "bar", "bin",
               lambda columns: [c for c in columns if c.endswith(" share")],
               text="Share of each type's gold entities in each difficulty bin.",
               x_title="difficulty bin", y_title="share of the type's gold entities"),),
        units=(tasks_mod.ENTITIES,)),
    Experiment(
        "tags", "committee.report.tagsection:tags", "Tags by difficulty",
        "parts of speech of a task: pos run: mean difficulty per tag, the hardest words of "
        "each tag, each system's accuracy per tag",
        (), ("report/tags-*",),
        (Chart("report/tags-by-difficulty.csv", "Tags by difficulty", "bar", "tag",
               ("mean_d",), text="Mean difficulty of the gold words of each tag (tags of 20 "
               "words or more), hardest first.", x_title="gold tag",
               y_title="mean difficulty d of its words", names={"mean_d": "mean d"}),
         Chart("report/tags-recall.csv", "Accuracy by tag", "bar", "tag",
               lambda columns: [c for c in columns if c.endswith(" recall")],
               text="Share of the gold words of each tag that each system gets right (span "
                    "and tag), tags of 20 words or more, the most frequent first.",
               needs="a system to score", x_title="gold tag",
               y_title="recall of the tag's gold words", names=_drop_recall)),
        units=(tasks_mod.TAGS,)),
)

#: Settings of the section that belong to no one analysis.
COMMON_SETTINGS: tuple[Setting, ...] = (
    Setting("seed", _NonNegative, 2016,
            "seed of the Table 2 samples and of the split-half splits"),
    Setting("command_timeout", Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
            | None, None,
            "seconds a cmd:COMMAND segmenter or tagger may run before it is stopped (null: no "
            "limit); --timeout overrides it (docs/segmenters.md)"),
)
