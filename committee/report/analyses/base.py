"""What every analysis of the report is made of: its record
(:class:`Analysis`, with its :class:`Setting` items and :class:`Chart`
items), the :class:`Context` its code receives, and the checks and names
that several analyses share.

This module, like every module of the package, imports neither pandas nor
the report's machinery: :mod:`committee.config` builds the ``experiments``
section from the records when it is first imported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import Field, conint, constr

from committee import tasks as tasks_mod

__all__ = ["Analysis", "Chart", "Context", "Fraction", "NonNegative", "PathSetting", "Positive",
           "Setting", "for_task", "marks_of", "reads"]

#: Types of the settings (pydantic annotations).
PathSetting = constr(strict=True, min_length=1)
Positive = conint(strict=True, ge=1)
NonNegative = conint(strict=True, ge=0)
Fraction = Annotated[float, Field(strict=True, gt=0, le=1)]


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
class Analysis:
    """One analysis of the report: everything about it but its code.

    ``name`` is its switch in the config's ``experiments`` section and its
    name for ``committee report --only/--skip``; ``function`` takes the
    report's :class:`Context` and returns its section of ``report.md`` (or
    None); ``title`` is its heading and ``meaning`` its switch's line in
    docs/config.md; ``settings`` are its keys of the ``experiments``
    section; ``outputs`` are globs relative to the run directory, removed
    when the analysis fails; ``charts`` are those ``report.html`` draws from
    its CSV files.  ``units``: the kinds of unit whose runs it reads
    (:attr:`committee.tasks.Task.unit_kind`: ``words``, ``entities`` or
    ``tags``), None for every kind (:func:`reads`); on a run of another
    kind the report leaves it out with a note saying why.  ``check``, given
    the ``experiments`` section and the run read back, says what of the
    settings the run cannot satisfy (None: nothing), before any compute.
    """

    name: str
    function: Callable
    title: str
    meaning: str
    settings: tuple[Setting, ...] = ()
    outputs: tuple[str, ...] = ()
    charts: tuple[Chart, ...] = field(default=())
    units: tuple[str, ...] | None = None
    check: Callable[[Any, Any], str | None] | None = None


def reads(analysis: Analysis, task: str) -> bool:
    """Whether ``analysis`` reads runs of ``task`` (a name of
    :data:`committee.tasks.TASKS`): those whose units are of a kind it reads."""
    return analysis.units is None or tasks_mod.get(task).unit_kind.among(analysis.units)


def for_task(title: str, task: str) -> str:
    """A heading or chart title said of a run of ``task``: the models of an
    entity run are taggers, not segmenters (:attr:`committee.tasks.Task.models`).

    >>> for_task("Table 2: segmenters trained on more data", "ner")
    'Table 2: taggers trained on more data'
    """
    return title.replace("segmenters", tasks_mod.get(task).models)


@dataclass
class Context:
    """What every analysis of one report sees.

    Attributes
    ----------
    cfg : Config
    data : committee.report.rundata.RunData
        The run, read back.
    out_dir : Path
        ``report/`` inside the run directory.
    table2, others, members : list of committee.report.systems.System
        Scored Table 2 models, other systems, and committee members (the
        last from ``predictions.npz``; empty without it).
    f1_rank, fb_rank : list
        Ranks of ``ranked`` (Table 2 models, then other systems).
    human_scores : dict or None
        Human judgements by system name; ``human_path`` their file.
    notes, figures : list of str
        Filled by the analyses.
    irt : dict or None
        Filled by the ``irt`` analysis: each word's ``a`` and ``b`` and each
        ranked system's ``theta`` and ``theta_se`` (by name), for ``report.html``.
    failed : list of (str, str)
        The analyses that failed and why, in report order (filled by
        :func:`committee.report.build.build_report`).
    check_gold_files : set of str
        The CSV files of the "Suspicious gold" section written in this build.
    """

    cfg: object
    data: object
    out_dir: Path
    table2: list = field(default_factory=list)
    others: list = field(default_factory=list)
    members: list = field(default_factory=list)
    f1_rank: list = field(default_factory=list)
    fb_rank: list = field(default_factory=list)
    human_scores: dict | None = None
    human_path: object = None
    notes: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    irt: dict | None = None
    failed: list[tuple[str, str]] = field(default_factory=list)
    check_gold_files: set[str] = field(default_factory=set)

    @property
    def run_dir(self) -> Path:
        return self.data.run_dir

    @property
    def ranked(self) -> list:
        return self.table2 + self.others


def marks_of(data, system) -> np.ndarray:
    """Whether ``system`` gets each gold unit of the run ``data`` right
    (bool, corpus order): its words, or its labelled units matched exactly."""
    if not data.labelled:
        from committee.tasks import spans

        return spans.marks(data.test.words, system.words)
    from committee.tasks import match

    task = data.task_record
    lengths = [sum(map(len, ws)) for ws in data.test.words]
    pred = task.as_corpus(system.name, system.words, data.test.lines, system.tags)
    return match(task, lengths, data.units, task.gold(pred))[2]
