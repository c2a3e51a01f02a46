"""docs/config.md is written from the schema (``python -m committee.config.docs``):
it is current, it lists every key, and its type column reads right."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import Field, StrictBool, conint

from committee.config import Config, CorpusSource, ExperimentsConfig
from committee.config import docs
from committee.config.base import NonEmptyStr, Ratio

PAGE = Path(__file__).resolve().parents[1] / "docs" / "config.md"


def test_docs_config_md_is_current():
    assert PAGE.read_text(encoding="utf-8") == docs.render(), (
        "docs/config.md is stale: python -m committee.config.docs > docs/config.md")


def _keys(model, prefix=""):
    for name, info in model.model_fields.items():
        yield prefix + (info.alias or name)


@pytest.mark.parametrize("section", ["committee", "parallel", "output", "experiments", "corpus"])
def test_every_key_of_a_section_has_a_row_with_a_meaning(section):
    text = docs.render()
    model = Config.model_fields[section].annotation
    for key in _keys(model, f"{section}."):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{key}` |"))
        assert not row.endswith("|  |"), f"{key} has no meaning"
    for key in _keys(CorpusSource):
        assert f"| `{key}` |" in text


def test_every_parameter_of_every_algorithm_is_listed():
    from committee.learners import crf

    text = docs.render()
    for algorithm in crf.ALGORITHMS:
        part = text.split(f"### crf.params of `{algorithm}`")[1].split("###")[0]
        for name, default in crf.trainer_defaults(algorithm).items():
            assert f"| `{name}` |" in part


@pytest.mark.parametrize("annotation, text", [
    (StrictBool, "true/false"),
    (Annotated[int, Field(ge=1)], "integer (>= 1)"),
    (conint(strict=True, ge=0) | None, "integer (>= 0) or null"),
    (Annotated[tuple[Ratio, ...], Field(min_length=1)], "list of number (> 0, <= 1) (not empty)"),
    (tuple[Literal["a", "b"], ...], "list of one of: `a`, `b`"),
    (NonEmptyStr | None, "string (not empty) or null"),
    (Literal["x"] | None, "one of: `x` or null"),
])
def test_type_text(annotation, text):
    assert docs.type_text(annotation) == text


def test_defaults_and_requirements_read_as_yaml():
    text = docs.render()
    assert "| `name` | string (matching `^[A-Za-z0-9._-]+$`) | *required* |" in text
    assert "| `committee.ratios` | list of number (> 0, <= 1) (not empty) | `[0.1, 0.2, 0.3]` |" in text
    assert "| `crf.preset` | one of: `paper`, `fast`, `elastic`, `legacy` or null | `paper` |" in text
    assert "| `experiments.stability_sizes` | list of integer (>= 1) or null | `null` |" in text
    assert "| `output.keep_models` | true/false | `false` |" in text
    # the section's keys in its order: each switch, then its settings
    rows = [line.split("`")[1] for line in text.split("## experiments")[1].splitlines()
            if line.startswith("| `")]
    assert rows == [f"experiments.{k}" for k in ExperimentsConfig.model_fields]
