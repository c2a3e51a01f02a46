"""The ``experiments`` section."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from committee import crf
from committee.config.base import (NonEmptyStr, NonNegativeInt, PositiveInt, Ratio, StrictBool,
                                   _no_duplicates, _Section)
from committee.features import TEMPLATES
from committee.segmenters import SEGMENTERS as _SEGMENTER_TABLE


# --------------------------------------------------------------------------
# experiments: the paper's analyses (committee.report), run after the committee

#: The switches of :class:`ExperimentsConfig`, in report order.
EXPERIMENTS = ("table2", "stability", "linguistic", "bins", "ranking", "split_half",
               "word_weights", "irt")

#: Real segmenters the report can run itself (committee.segmenters).
SEGMENTERS = tuple(_SEGMENTER_TABLE)



class ExperimentsConfig(_Section):
    """Which of the paper's analyses ``committee run`` adds, and their settings.

    Each switch (:data:`EXPERIMENTS`) is off by default; ``committee report
    RUN_DIR`` runs every analysis that needs no training whatever the
    switches, and trains the Table 2 models only when ``table2`` is on.
    Paths (``idioms``, ``systems``, ``human``) are resolved like corpus paths.
    """

    table2: StrictBool = False
    table2_fractions: Annotated[tuple[Ratio, ...], Field(min_length=1)] = (0.2, 0.5, 0.8, 1.0)
    table2_template: Literal[TEMPLATES] = "F2"
    table2_preset: Literal[(*crf.PRESETS, "committee")] = "paper"
    table2_max_iterations: PositiveInt | None = None
    stability: StrictBool = False
    stability_sizes: tuple[PositiveInt, ...] | None = None
    linguistic: StrictBool = False
    idioms: NonEmptyStr | None = None
    bins: StrictBool = False
    ranking: StrictBool = False
    systems: tuple[NonEmptyStr, ...] = ()
    segmenters: tuple[Literal[SEGMENTERS], ...] = ()
    human: NonEmptyStr | None = None
    split_half: StrictBool = False
    split_half_repeats: PositiveInt = 100
    word_weights: StrictBool = False
    word_weight_sentences: tuple[NonNegativeInt, ...] = ()
    irt: StrictBool = False
    irt_subset: PositiveInt = 500
    seed: NonNegativeInt = 2016

    @field_validator("table2_fractions")
    @classmethod
    def _unique_fractions(cls, values: tuple) -> tuple:
        return _no_duplicates(values)

    def enabled(self) -> tuple[str, ...]:
        """The experiments switched on, in report order (empty: none)."""
        return tuple(name for name in EXPERIMENTS if getattr(self, name))


