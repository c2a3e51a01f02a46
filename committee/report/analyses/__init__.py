"""The report's analyses, one module each, and their registry.

Each module of this package that is an analysis holds all of it: its record
``ANALYSIS`` (:class:`~committee.report.analyses.base.Analysis`: its name,
title, the kinds of unit whose runs it reads, its switch and settings of
the config's ``experiments`` section, the files it writes and the charts of
``report.html``), its code (``section(ctx)``, which writes its files into
``report/`` and returns its section of ``report.md``), its figure and the
names of its files.  :data:`REGISTRY` lists the records in report order;
from it follow :data:`committee.config.EXPERIMENTS`, the section
:class:`committee.config.ExperimentsConfig` (the config key stays
``experiments``), the CLI's ``--only``/``--skip`` choices, the order of
``report.md`` and ``report.html``, and docs/config.md.

To add an analysis: a module here with its ``ANALYSIS`` and ``section``,
and its place in :data:`MODULES`.

The modules import neither pandas (their functions do) nor the report's
machinery (:mod:`committee.report.build`, :mod:`~committee.report.rundata`,
:mod:`~committee.report.systems`): :mod:`committee.config` imports this
package to build its ``experiments`` section.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from committee.errors import ConfigError
from committee.report.analyses import (bins, buckets, confusion, cost, entities, irt,
                                       linguistic, ranking, split_half, stability, table2, tags,
                                       word_weights)
from committee.report.analyses.base import (Analysis, Chart, Context, NonNegative, Setting,
                                            for_task, marks_of, reads)
from committee.report.analyses.buckets import BUCKET_ATTRIBUTES
from committee.report.analyses.ranking import SEGMENTERS, command_refusal
from committee.report.analyses.text import PAPER_PKU

__all__ = ["BUCKET_ATTRIBUTES", "COMMON_SETTINGS", "MODULES", "PAPER_PKU", "REGISTRY",
           "SEGMENTERS", "Analysis", "Chart", "Context", "Setting", "by_name", "check_run",
           "command_refusal", "for_task", "marks_of", "reads"]

#: The analyses' modules, in the order of their sections in ``report.md`` and
#: ``report.html``: the paper's Table 2 and figures, then the analyses beyond it.
MODULES = (table2, stability, linguistic, ranking, bins, split_half, word_weights, irt, cost,
           buckets, entities, tags, confusion)

#: The analyses, in report order.
REGISTRY: tuple[Analysis, ...] = tuple(module.ANALYSIS for module in MODULES)

#: Settings of the ``experiments`` section that belong to no one analysis.
COMMON_SETTINGS: tuple[Setting, ...] = (
    Setting("seed", NonNegative, 2016,
            "seed of the Table 2 samples and of the split-half splits"),
    Setting("command_timeout", Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
            | None, None,
            "seconds a cmd:COMMAND segmenter or tagger may run before it is stopped (null: no "
            "limit); --timeout overrides it (docs/segmenters.md)"),
)


def by_name(name: str) -> Analysis:
    """The record of analysis ``name`` in :data:`REGISTRY` (``KeyError`` if there is none)."""
    for analysis in REGISTRY:
        if analysis.name == name:
            return analysis
    raise KeyError(name)


def check_run(cfg, data, names) -> None:
    """Refuse, before any compute, settings of ``cfg.experiments`` that the
    run ``data`` cannot satisfy (for the analyses in ``names``, each by its
    record's ``check``): a :class:`ConfigError` listing them."""
    problems = [a.check(cfg.experiments, data) for a in REGISTRY
                if a.name in names and a.check is not None]
    problems = [p for p in problems if p]
    if problems:
        raise ConfigError("experiments", problems)
