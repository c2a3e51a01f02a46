"""Validation errors as ``dotted.path: message``: the schema walked along
an error's location, and one translation per kind of pydantic error."""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError

from committee.learners import trainers
from committee.config.base import join_key, show_value
from committee.config.crfsection import CrfBase, trainer_of, crf_models
from committee.config.schema import Config, CorpusSource


# --------------------------------------------------------------------------
# walking the schema (for overrides and messages)


def fields_of(model: type[BaseModel]) -> dict[str, Any]:
    """Fields by the key used in YAML (the alias where there is one)."""
    return {info.alias or name: info for name, info in model.model_fields.items()}


def child_key(annotation: Any) -> type[BaseModel] | dict[str, type[BaseModel]] | None:
    """The model a field holds, ``{tag: model}`` for a tagged union (the
    ``crf`` section: of every registered trainer), else None."""
    if annotation is CrfBase:
        return crf_models()
    origin = get_origin(annotation)
    if origin is Annotated:
        return child_key(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        tagged, plain = {}, []
        for arg in get_args(annotation):
            tag = next((m.tag for m in getattr(arg, "__metadata__", ()) if isinstance(m, Tag)), None)
            sub = child_key(arg)
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




def close_match(word: str, candidates: Iterable[str]) -> str | None:
    lowered = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(str(word).lower(), list(lowered), n=1, cutoff=0.5)
    return lowered[match[0]] if match else None


def _unknown_key(prefix: str, key: str, model: type[BaseModel] | None) -> str:
    keys = list(fields_of(model)) if model is not None else []
    guess = close_match(key, keys)
    if guess is not None:
        return f"unknown key (did you mean '{join_key(prefix, guess)}'?)"
    if keys:
        return f"unknown key; expected one of: {', '.join(keys)}"
    return "unknown key"


# --------------------------------------------------------------------------
# pydantic errors -> "dotted.path: message"

_KINDS = {
    str: "a string", int: "an integer", float: "a number", bool: "true/false",
    list: "a list", dict: "a mapping", type(None): "null",
}


def got_text(value: Any) -> str:
    kind = _KINDS.get(type(value), type(value).__name__)
    shown = show_value(value)
    return shown if isinstance(value, (int, float, type(None))) else f"{shown} ({kind})"


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class _Error:
    """One pydantic error, its location walked through the schema."""

    kind: str
    value: Any
    ctx: dict[str, Any]
    msg: str
    path: str  # the location as dotted keys, union tags dropped
    model: Any  # the model the last key holds (None: a plain value)
    parent: Any  # the model holding the last key (for did-you-mean)


def _locate(error: dict[str, Any]) -> _Error:
    """Walk ``error``'s location through the schema: union tags are dropped,
    and the model holding the last key is kept for did-you-mean."""
    kind = error["type"]
    path, model, parent = "", Config, None
    for item in error["loc"]:
        if isinstance(model, dict):  # a tagged union: this item is the tag
            model = model.get(item)
            continue
        parent = model
        if isinstance(item, int) and kind != "extra_forbidden":
            path, model = join_key(path, item), None
            continue
        path = join_key(path, str(item))
        info = fields_of(model).get(str(item)) if model is not None else None
        model = child_key(info.annotation) if info is not None else None
    return _Error(kind, error.get("input"), error.get("ctx") or {}, error["msg"], path, model,
                  parent)


def _unknown_value(given: Any, expected: Iterable[str], guess_any: bool = False) -> str:
    """``given`` is none of ``expected``; a close one is guessed for a string
    (for any value with ``guess_any``)."""
    expected = list(expected)
    guess = close_match(str(given), expected) if guess_any or isinstance(given, str) else None
    hint = f" (did you mean '{guess}'?)" if guess else ""
    return f"unknown value {show_value(given)}{hint}; expected one of: {', '.join(expected)}"


def _unknown_algorithm(e: _Error) -> str:
    """An algorithm that the section's trainer does not know."""
    given = e.value.get("algorithm") if isinstance(e.value, dict) else e.value
    name = trainer_of(e.value)
    trainer = trainers.get(name if isinstance(name, str) and name in trainers.TRAINERS
                           else trainers.DEFAULT_TRAINER)
    return _unknown_value(given, trainer.algorithms, guess_any=True)


def _quoted_number(text: str) -> bool:
    """Whether YAML reads ``text``, unquoted, as a number: then a string of it
    was written in quotes (``"0.99"``).

    >>> _quoted_number("0.99"), _quoted_number("3"), _quoted_number("1e-3"), _quoted_number("x")
    (True, True, False, False)
    """
    import yaml

    tag = yaml.SafeLoader.resolve(yaml.SafeLoader, yaml.ScalarNode, text, (True, False))
    return tag in ("tag:yaml.org,2002:float", "tag:yaml.org,2002:int")


def _not_a_number(e: _Error, expected: str = "a number") -> str:
    if isinstance(e.value, str) and _quoted_number(e.value):
        return (f"expected {expected}, got {show_value(e.value)} (a string: it is in quotes); "
                f"write {e.value} without quotes")
    if expected == "a number" and isinstance(e.value, str) and _looks_numeric(e.value):
        return (f"expected a number, got {show_value(e.value)} (a string: YAML reads "
                "exponents without a '.' as text; write e.g. 1.0e-3)")
    return f"expected {expected}, got {got_text(e.value)}"


_BOUNDS = {"greater_than_equal": ">= {ge}", "greater_than": "> {gt}",
           "less_than_equal": "<= {le}", "less_than": "< {lt}"}


def _out_of_bounds(e: _Error) -> str:
    bound = _BOUNDS[e.kind].format(**{k: _number(v) for k, v in e.ctx.items()})
    return f"must be {bound}, got {show_value(e.value)}"


def _too_short(e: _Error) -> str | None:
    n = e.ctx.get("min_length", 1)
    if isinstance(e.value, (list, tuple)) and len(e.value) >= n:
        return None  # pydantic counts only the items that validated; those are reported
    return "must not be empty" if n == 1 else f"needs at least {n} items"


def _not_a_mapping(e: _Error) -> str:
    message = f"expected a mapping, got {got_text(e.value)}"
    if e.model is CorpusSource:
        message += "; e.g. {path: FILE, format: sighan} or {builtin: peoples-daily-1998, split: train}"
    return message


def _unknown_key_of(e: _Error) -> str:
    prefix, _, key = e.path.rpartition(".")
    return _unknown_key(prefix, key, e.parent if isinstance(e.parent, type) else None)


def _pattern(e: _Error) -> str:
    pattern = e.ctx.get("pattern", "").strip("^$")
    return f"must match {pattern} (letters, digits, '.', '_', '-'), got {show_value(e.value)}"


def _kinds(names: str, handler: Callable[[_Error], str | None]) -> dict:
    return dict.fromkeys(names.split(), handler)


#: The message of each kind of pydantic error (None: nothing to add); a kind
#: not listed keeps pydantic's own message.
_MESSAGES: dict[str, Callable[[_Error], str | None]] = {
    "config": lambda e: e.ctx["message"],
    "extra_forbidden": _unknown_key_of,
    "missing": lambda e: "missing required key",
    **_kinds("union_tag_invalid union_tag_not_found", _unknown_algorithm),
    "literal_error": lambda e: _unknown_value(
        e.value, re.findall(r"'([^']*)'", e.ctx.get("expected", ""))),
    **_kinds("int_type int_parsing int_from_float", lambda e: _not_a_number(e, "an integer")),
    **_kinds("float_type float_parsing", _not_a_number),
    "finite_number": lambda e: f"must be a finite number, got {show_value(e.value)}",
    **_kinds("bool_type bool_parsing", lambda e: f"expected true or false, got {got_text(e.value)}"),
    "string_type": lambda e: f"expected a string, got {got_text(e.value)}",
    "string_too_short": lambda e: "must not be empty",
    "string_pattern_mismatch": _pattern,
    **_kinds(" ".join(_BOUNDS), _out_of_bounds),
    "too_short": _too_short,
    **_kinds("tuple_type list_type iterable_type",
             lambda e: f"expected a list, got {got_text(e.value)}"),
    **_kinds("model_type model_attributes_type dict_type", _not_a_mapping),
}

#: Keys below the reported location that a kind of error is about.
_SUBKEYS: dict[str, Callable[[_Error], tuple]] = {
    "config": lambda e: tuple(e.ctx.get("at", ())),
    **_kinds("union_tag_invalid union_tag_not_found", lambda e: ("algorithm",)),
}


def _translate(error: dict[str, Any]) -> str | None:
    """``dotted.path: message`` for one pydantic error (None: nothing to add)."""
    e = _locate(error)
    handler = _MESSAGES.get(e.kind, lambda e: e.msg.removeprefix("Value error, "))
    message = handler(e)
    if message is None:
        return None
    path = e.path
    for item in _SUBKEYS.get(e.kind, lambda e: ())(e):
        path = join_key(path, item)
    return f"{path}: {message}" if path else message


def validation_problems(error: ValidationError) -> list[str]:
    return [p for p in map(_translate, error.errors()) if p is not None]


