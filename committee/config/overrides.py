"""``--set KEY=VALUE`` overrides: each key checked against the schema,
its value read as YAML, problems blamed on the override that caused them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from committee.config.base import join_key
from committee.config.crfsection import crf_tag
from committee.config.messages import child_key, close_match, fields_of, got_text
from committee.config.schema import Config
from committee.config.yamlsafe import read_yaml, yaml_problem


# --------------------------------------------------------------------------
# overrides


def _override_target(key: str, data: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """Split ``key`` into schema keys, or return a problem if it names no field.

    ``crf.params.NAME`` is checked against the algorithm currently in ``data``.
    """
    tokens = key.split(".")
    model: Any = Config
    raw: Any = data
    keys: list[str] = []
    i = 0
    while i < len(tokens):
        prefix = ".".join(keys)
        if isinstance(model, dict):  # tagged union (crf): the variant in the data
            tag = crf_tag(raw) if isinstance(raw, dict) else "lbfgs"
            if tag not in model:
                return keys + [".".join(tokens[i:])], None  # the algorithm error is reported
            model = model[tag]
        if model is None:
            return None, f"{key}: unknown key ('{prefix}' takes a value, not sub-keys)"
        fields = fields_of(model)
        for j in range(len(tokens), i, -1):  # longest match: names like feature.minfreq
            name = ".".join(tokens[i:j])
            if name in fields:
                break
        else:
            rest = ".".join(tokens[i:])
            guess = close_match(rest, fields) or close_match(tokens[i], fields)
            if guess is not None:
                return None, f"{key}: unknown key (did you mean '{join_key(prefix, guess)}'?)"
            return None, f"{key}: unknown key; expected one of: {', '.join(fields)}"
        keys.append(name)
        model = child_key(fields[name].annotation)
        raw = raw.get(name) if isinstance(raw, dict) else None
        i = j
    return keys, None


SET = "--set"


def blame_overrides(problems: list[str], overrides: Iterable[str]) -> list[str]:
    """Problems of a key an override set, as ``--set KEY=VALUE: message``
    (the value was not in the file: say where it came from).

    >>> blame_overrides(["committee.size: must be >= 1, got 0", "name: required"], ["committee.size=0"])
    ['--set committee.size=0: must be >= 1, got 0', 'name: required']
    >>> blame_overrides(["committee.ratios[1]: must be <= 1, got 2"], ["committee.ratios=[0.5,2]"])
    ['--set committee.ratios=[0.5,2]: [1]: must be <= 1, got 2']
    """
    items = []
    for item in overrides:
        key, sep, _ = str(item).partition("=")
        if sep and key.strip():
            items.append((key.strip(), str(item)))
    items.sort(key=lambda t: -len(t[0]))  # the longest key that matches
    out = []
    for problem in problems:
        for key, item in items:
            if problem.startswith(key + ":"):
                problem = f"{SET} {item}:{problem[len(key) + 1:]}"
                break
            if problem.startswith(key + "."):
                problem = f"{SET} {item}: {problem[len(key) + 1:]}"
                break
            if problem.startswith(key + "["):  # an item of the list it set
                problem = f"{SET} {item}: {problem[len(key):]}"
                break
        out.append(problem)
    return out


def apply_overrides(data: dict[str, Any], overrides: Iterable[str]) -> list[str]:
    problems = []
    for item in overrides:
        key, sep, text = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            problems.append(f"{SET} {item}: expected KEY=VALUE, e.g. committee.size=5")
            continue
        try:
            value, _ = read_yaml(text)
        except yaml.YAMLError as exc:
            problems.append(f"{key}: cannot parse the value: {yaml_problem(exc)}")
            continue
        keys, problem = _override_target(key, data)
        if problem is not None:
            problems.append(problem)
            continue
        node = data
        for depth, name in enumerate(keys[:-1]):
            if node.get(name) is None:
                node[name] = {}
            elif not isinstance(node[name], dict):
                where = ".".join(keys[: depth + 1])
                problems.append(f"{key}: cannot set: '{where}' is {got_text(node[name])}, not a mapping")
                break
            node = node[name]
        else:
            node[keys[-1]] = value
    return problems


