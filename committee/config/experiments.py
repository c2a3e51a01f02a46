"""The ``experiments`` section: the switches and settings of the report's
analyses, built from their registry :data:`committee.report.analyses.REGISTRY`
(one module per analysis, each with its record): one switch per analysis
(off by default), then that analysis's settings, then the settings shared by
several (:data:`committee.report.analyses.COMMON_SETTINGS`).  The section
keeps the name ``experiments`` that users' configs use; in code the word is
"analysis"."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictBool, create_model, model_serializer

from committee.report import analyses as _registry
from committee import tasks as tasks_mod
from committee.config.base import no_duplicates, Section

#: The switches of :class:`ExperimentsConfig`, in report order: the analyses' names.
ANALYSES = tuple(e.name for e in _registry.REGISTRY)

#: Real segmenters the report can run itself (committee.segmenters).
SEGMENTERS = _registry.SEGMENTERS


class _Experiments(Section):
    """Which of the paper's analyses ``committee run`` adds, and their settings.

    Each switch (:data:`ANALYSES`) is off by default; ``committee report
    RUN_DIR`` runs every analysis that needs no training whatever the
    switches, and trains the Table 2 models only when ``table2`` is on.
    Paths (``idioms``, ``systems``, ``human``) are resolved like corpus paths.
    """

    def enabled(self) -> tuple[str, ...]:
        """The analyses switched on, in report order (empty: none)."""
        return tuple(name for name in ANALYSES if getattr(self, name))

    @model_serializer(mode="wrap")
    def _drop_other_tasks(self, handler):
        """Switches of analyses that no segmentation run reads are written only
        when on: a segmentation run's config and manifest read as they did
        before such analyses existed."""
        data = handler(self)
        for name in _OTHER_TASKS:
            if data.get(name) is False:
                data.pop(name)
        return data


#: Analyses of runs of other tasks than segmentation only (``entities``).
_OTHER_TASKS = tuple(e.name for e in _registry.REGISTRY
                     if not _registry.reads(e, tasks_mod.DEFAULT_TASK))


def _field(setting: _registry.Setting) -> tuple[Any, Any]:
    kind = setting.type
    if setting.unique:
        kind = Annotated[kind, AfterValidator(no_duplicates)]
    return kind, Field(setting.default, description=setting.meaning)


def _fields() -> dict[str, tuple[Any, Any]]:
    """The section's fields, in order: each analysis's switch and settings, then the common ones."""
    fields: dict[str, tuple[Any, Any]] = {}
    for analysis in _registry.REGISTRY:
        fields[analysis.name] = (StrictBool, Field(False, description=analysis.meaning))
        for setting in analysis.settings:
            fields[setting.name] = _field(setting)
    for setting in _registry.COMMON_SETTINGS:
        fields[setting.name] = _field(setting)
    return fields


ExperimentsConfig = create_model("ExperimentsConfig", __base__=_Experiments,
                                 __module__=__name__, **_fields())
ExperimentsConfig.__doc__ = _Experiments.__doc__
