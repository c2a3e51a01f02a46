"""docs/config.md, written from the schema: every key of a config with its
type and allowed values, its default and its meaning (the field's
description).

    python -m committee.config.docs > docs/config.md

``tests/test_config_docs.py`` fails when docs/config.md differs from
:func:`render`.
"""

from __future__ import annotations

import sys
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from committee.learners import crf
from committee.learners import trainers
from committee.config.crfsection import CrfBase, crf_models
from committee.config.schema import Choices, Config, CorpusSource, SplitConfig
from committee.learners.crf import ALGORITHMS

_HEAD = """\
# Config keys

<!-- Written by `python -m committee.config.docs > docs/config.md` from the
schema in committee/config/; tests/test_config_docs.py fails when this page
is stale. Edit the schema's descriptions, not this page. -->

A run is described by one YAML file (examples in `configs/`); `committee run
CONFIG` validates all of it before any compute is spent and lists every
problem as `dotted.key: message`.  `--set KEY=VALUE` overrides one key
(the value read as YAML).  Keys marked *required* have no default; any key
not listed here is refused.  Relative paths are resolved against
`corpus.root`.
"""

_BOUNDS = ((annotated_types.Ge, ">= {}", "ge"), (annotated_types.Gt, "> {}", "gt"),
           (annotated_types.Le, "<= {}", "le"), (annotated_types.Lt, "< {}", "lt"))
_NAMES = {bool: "true/false", int: "integer", float: "number", str: "string"}


def _constraints(metadata) -> list[str]:
    """Bounds, lengths and patterns among a field's metadata, in words."""
    out = []
    for item in metadata:
        if isinstance(item, annotated_types.GroupedMetadata):  # Interval, StringConstraints, Field
            out += _constraints(list(item))
        for kind, text, attr in _BOUNDS:
            if isinstance(item, kind):
                out.append(text.format(getattr(item, attr)))
        if isinstance(item, annotated_types.MinLen) and item.min_length:
            out.append("not empty" if item.min_length == 1 else f">= {item.min_length} items")
        if getattr(item, "pattern", None):
            out.append(f"matching `{item.pattern}`")
    return out


def type_text(annotation: Any, metadata=()) -> str:
    """A field's type in words, with its allowed values and bounds."""
    choices = [m for m in metadata if isinstance(m, Choices)]
    if choices:
        return "one of: " + ", ".join(f"`{v}`" for v in choices[0].values())
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extra = get_args(annotation)
        return type_text(inner, [*metadata, *extra])
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        text = " or ".join(dict.fromkeys(type_text(a) for a in args))
        return (f"{text} or null" if len(args) < len(get_args(annotation)) else text) + \
            _suffix(metadata)
    if origin is Literal:
        return "one of: " + ", ".join(f"`{v}`" for v in get_args(annotation))
    if origin is tuple:
        return f"list of {type_text(get_args(annotation)[0])}" + _suffix(metadata)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    return _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation))) + \
        _suffix(metadata)


def _suffix(metadata) -> str:
    found = []
    for item in metadata:
        found += _constraints([item, *getattr(item, "metadata", ())])
    return f" ({', '.join(dict.fromkeys(found))})" if found else ""


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "*required*"
    value = info.default
    if value is PydanticUndefined:
        return "(section)"
    return f"`{_yaml(value)}`"


def _yaml(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    return str(value)


def _meaning(info: FieldInfo) -> str:
    return " ".join((info.description or "").split()).replace("|", "\\|")


def _rows(model: type[BaseModel], prefix: str, skip=()) -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key in skip:
            continue
        rows.append(f"| `{prefix}{key}` | {type_text(info.annotation, info.metadata)} | "
                    f"{_default(info)} | {_meaning(info)} |")
        if isinstance(info.default, BaseModel):  # a section with defaults: its keys follow
            rows += _rows(type(info.default), f"{prefix}{key}.")
    return rows


def _table(rows: list[str]) -> list[str]:
    return ["| key | type, allowed values | default | meaning |", "|---|---|---|---|", *rows, ""]


def _crf_part() -> list[str]:
    models = crf_models(trainers.DEFAULT_TRAINER)
    lbfgs = models[crf.PRESETS[crf.DEFAULT_PRESET]["algorithm"]]
    out = ["## crf", "", _meaning(Config.model_fields["crf"]) + ".", ""]
    out += _table([
        f"| `crf.trainer` | one of: {', '.join(f'`{t}`' for t in trainers.TRAINERS)} | "
        f"`{trainers.DEFAULT_TRAINER}` | {_meaning(CrfBase.model_fields['trainer'])} |",
        f"| `crf.preset` | one of: {', '.join(f'`{p}`' for p in crf.PRESETS)} or null | "
        f"`{crf.DEFAULT_PRESET}` | {_meaning(lbfgs.model_fields['preset'])} |",
        f"| `crf.algorithm` | one of: {', '.join(f'`{a}`' for a in ALGORITHMS)} | the preset's "
        "| python-crfsuite's training algorithm; it decides which `crf.params` exist |",
        "| `crf.params` | mapping | the preset's | parameters of the algorithm by "
        "python-crfsuite's names (below); null for a name: python-crfsuite's default |"])
    out += ["Presets of `" + crf.CRFSUITE.name + "` (`crf.preset`, default `"
            + crf.DEFAULT_PRESET + "`):", ""]
    out += [f"- `{name}`: `{preset['algorithm']}`, "
            + ", ".join(f"{k} = {v}" for k, v in preset["params"].items())
            for name, preset in crf.PRESETS.items()]
    out += ["", "Without a preset, " + ", ".join(f"{k} = {v}" for k, v in
                                                crf.PARAM_DEFAULTS.items())
            + " where the algorithm has them, python-crfsuite's defaults for the rest.", ""]
    for algorithm in ALGORITHMS:
        params = models[algorithm].model_fields["params"].annotation
        defaults = crf.trainer_defaults(algorithm)
        out += [f"### crf.params of `{algorithm}`", "",
                "| key | type, allowed values | python-crfsuite default |", "|---|---|---|"]
        out += [f"| `{info.alias}` | {type_text(info.annotation, info.metadata)} | "
                f"`{_yaml(defaults[info.alias])}` |" for info in params.model_fields.values()]
        out.append("")
    return out


def render() -> str:
    """The text of docs/config.md."""
    out = [_HEAD, "## Top level", ""]
    out += _table(_rows(Config, ""))
    for section in ("corpus", "committee", "crf", "parallel", "output", "experiments"):
        if section == "crf":
            out += _crf_part()
            continue
        model = Config.model_fields[section].annotation
        out += [f"## {section}", "", _meaning(Config.model_fields[section]) + ".", ""]
        out += _table(_rows(model, f"{section}."))
        if section == "corpus":
            out += ["`corpus.train` and `corpus.test` take these keys:", ""]
            out += _table(_rows(CorpusSource, ""))
            out += ["`corpus.split` takes these keys:", ""]
            out += _table(_rows(SplitConfig, "corpus.split."))
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
