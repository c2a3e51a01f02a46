"""The building blocks of the config schema: strict value types, the
frozen section base, and messages' small helpers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import AllowInfNan, BaseModel, ConfigDict, Field, Strict, StringConstraints

from pydantic_core import PydanticCustomError


NAME_PATTERN = r"^[A-Za-z0-9._-]+$"

NonEmptyStr = Annotated[str, Strict(), StringConstraints(min_length=1)]
StrictInt = Annotated[int, Strict()]
StrictFloat = Annotated[float, Strict(), AllowInfNan(False)]  # ints are accepted
StrictBool = Annotated[bool, Strict()]


def section_problem(message: str, at: tuple = ()) -> PydanticCustomError:
    """A validation error whose message is shown as is, ``at`` sub-keys below
    the location pydantic reports (model validators can only report at the
    model itself)."""
    return PydanticCustomError("config", "{message}", {"message": message, "at": at})


def show_value(value: Any) -> str:
    """A value as it would read in YAML, shortened for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def no_duplicates(values: tuple) -> tuple:
    """A list setting's values, refused with the index of the first repeat."""
    seen = set()
    for i, value in enumerate(values):
        if value in seen:
            raise section_problem(f"duplicate {value!r}", (i,))
        seen.add(value)
    return values


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


Ratio = Annotated[float, Strict(), Field(gt=0, le=1)]


def absolute_path(base: str | os.PathLike, path: str | os.PathLike) -> Path:
    return Path(os.path.abspath(os.path.join(base, os.path.expanduser(path))))


def join_key(prefix: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)

