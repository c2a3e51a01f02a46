"""Validation errors as ``dotted.path: message``: the schema walked along
an error's location, and one translation per kind of pydantic error."""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Iterable
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError

from committee.config.base import _join, _show
from committee.config.schema import Config, CorpusSource
from committee.crf import ALGORITHMS


# --------------------------------------------------------------------------
# walking the schema (for overrides and messages)


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """Fields by the key used in YAML (the alias where there is one)."""
    return {info.alias or name: info for name, info in model.model_fields.items()}


def _child(annotation: Any) -> type[BaseModel] | dict[str, type[BaseModel]] | None:
    """The model a field holds, ``{tag: model}`` for a tagged union, else None."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _child(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        tagged, plain = {}, []
        for arg in get_args(annotation):
            tag = next((m.tag for m in getattr(arg, "__metadata__", ()) if isinstance(m, Tag)), None)
            sub = _child(arg)
            if isinstance(sub, type):
                if tag is None:
                    plain.append(sub)
                else:
                    tagged[tag] = sub
        if tagged:
            return tagged
        return plain[0] if len(plain) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None




def _close(word: str, candidates: Iterable[str]) -> str | None:
    lowered = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(str(word).lower(), list(lowered), n=1, cutoff=0.5)
    return lowered[match[0]] if match else None


def _unknown_key(prefix: str, key: str, model: type[BaseModel] | None) -> str:
    keys = list(_fields(model)) if model is not None else []
    guess = _close(key, keys)
    if guess is not None:
        return f"unknown key (did you mean '{_join(prefix, guess)}'?)"
    if keys:
        return f"unknown key; expected one of: {', '.join(keys)}"
    return "unknown key"


# --------------------------------------------------------------------------
# pydantic errors -> "dotted.path: message"

_KINDS = {
    str: "a string", int: "an integer", float: "a number", bool: "true/false",
    list: "a list", dict: "a mapping", type(None): "null",
}


def _got(value: Any) -> str:
    kind = _KINDS.get(type(value), type(value).__name__)
    shown = _show(value)
    return shown if isinstance(value, (int, float, type(None))) else f"{shown} ({kind})"


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _translate(error: dict[str, Any]) -> str | None:
    """``dotted.path: message`` for one pydantic error (None: nothing to add)."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    # Walk the location through the schema: union tags are dropped, and the
    # model holding the last key is kept for did-you-mean.
    path, model, parent = "", Config, None
    for item in error["loc"]:
        if isinstance(model, dict):  # a tagged union: this item is the tag
            model = model.get(item)
            continue
        parent = model
        if isinstance(item, int) and kind != "extra_forbidden":
            path, model = _join(path, item), None
            continue
        path = _join(path, str(item))
        info = _fields(model).get(str(item)) if model is not None else None
        model = _child(info.annotation) if info is not None else None

    if kind == "config":
        for item in ctx.get("at", ()):
            path = _join(path, item)
        message = ctx["message"]
    elif kind == "extra_forbidden":
        prefix, _, key = path.rpartition(".")
        message = _unknown_key(prefix, key, parent if isinstance(parent, type) else None)
    elif kind == "missing":
        message = "missing required key"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        path = _join(path, "algorithm")
        given = value.get("algorithm") if isinstance(value, dict) else value
        guess = _close(str(given), ALGORITHMS)
        hint = f" (did you mean '{guess}'?)" if guess else ""
        message = f"unknown value {_show(given)}{hint}; expected one of: {', '.join(ALGORITHMS)}"
    elif kind == "literal_error":
        expected = re.findall(r"'([^']*)'", ctx.get("expected", ""))
        guess = _close(str(value), expected) if isinstance(value, str) else None
        hint = f" (did you mean '{guess}'?)" if guess else ""
        message = f"unknown value {_show(value)}{hint}; expected one of: {', '.join(expected)}"
    elif kind in ("int_type", "int_parsing", "int_from_float"):
        message = f"expected an integer, got {_got(value)}"
    elif kind in ("float_type", "float_parsing"):
        message = f"expected a number, got {_got(value)}"
        if isinstance(value, str) and _looks_numeric(value):
            message = (f"expected a number, got {_show(value)} (a string: YAML reads "
                       "exponents without a '.' as text; write e.g. 1.0e-3)")
    elif kind == "finite_number":
        message = f"must be a finite number, got {_show(value)}"
    elif kind in ("bool_type", "bool_parsing"):
        message = f"expected true or false, got {_got(value)}"
    elif kind == "string_type":
        message = f"expected a string, got {_got(value)}"
    elif kind == "string_too_short":
        message = "must not be empty"
    elif kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern", "").strip("^$")
        message = f"must match {pattern} (letters, digits, '.', '_', '-'), got {_show(value)}"
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = {"greater_than_equal": ">= {ge}", "greater_than": "> {gt}",
                 "less_than_equal": "<= {le}", "less_than": "< {lt}"}[kind]
        bound = bound.format(**{k: _number(v) for k, v in ctx.items()})
        message = f"must be {bound}, got {_show(value)}"
    elif kind == "too_short":
        n = ctx.get("min_length", 1)
        if isinstance(value, (list, tuple)) and len(value) >= n:
            return None  # pydantic counts only the items that validated; those are reported
        message = "must not be empty" if n == 1 else f"needs at least {n} items"
    elif kind in ("tuple_type", "list_type", "iterable_type"):
        message = f"expected a list, got {_got(value)}"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        message = f"expected a mapping, got {_got(value)}"
        if model is CorpusSource:
            message += "; e.g. {path: FILE, format: sighan} or {builtin: peoples-daily-1998, split: train}"
    else:
        message = error["msg"].removeprefix("Value error, ")
    return f"{path}: {message}" if path else message


def _validation_problems(error: ValidationError) -> list[str]:
    return [p for p in map(_translate, error.errors()) if p is not None]


