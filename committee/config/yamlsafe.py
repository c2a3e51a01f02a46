"""Reading a config's YAML safely: PyYAML's safe loader within bounds
(no recursive alias, :data:`MAX_VALUES` values with the aliases expanded,
:data:`MAX_DEPTH` levels), repeated keys named, and YAML errors in one line."""

from __future__ import annotations

import re
from typing import Any

import yaml

from committee.config.base import join_key


# --------------------------------------------------------------------------
# YAML


def yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, yaml.constructor.ConstructorError) and "constructor for the tag" in problem:
        found = re.search(r"tag '([^']*)'", problem)
        tag = (found.group(1) if found else "?").replace("tag:yaml.org,2002:", "!!")
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return f"{where}YAML tag '{tag}' is not allowed: configs are plain data"
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return problem


#: Values a config may hold once its aliases are expanded (every scalar, list
#: and mapping counts one).  Real configs hold a few dozen; the bound stops
#: an alias bomb (aliases of aliases, nine of each: 9**9 values from 1 KB)
#: while it is composed, before anything walks the expanded data.
MAX_VALUES = 10_000
#: How deep values may nest (a config nests four levels).  PyYAML composes
#: and constructs recursively: thousands of ``[`` would overflow Python's stack.
MAX_DEPTH = 20
#: Bytes a config file may have (real ones have a few hundred to a few thousand).
MAX_BYTES = 1_000_000


class _ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses, while it composes, what would make a
    later walk of the data explode: a recursive alias (``x: &a [*a]``), more
    than :data:`MAX_VALUES` values with every alias expanded, nesting deeper
    than :data:`MAX_DEPTH`.

    Each finished node's expanded size is kept (``1 +`` its children's), so
    an alias costs one look-up and the count is exact without expanding
    anything.  A refusal is a :class:`yaml.composer.ComposerError` at the
    alias or value that crosses the bound.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(node) -> expanded size, finished nodes only
        self._total = 0  # values so far, aliases expanded
        self._depth = 0

    def _refuse(self, problem: str, mark) -> None:
        raise yaml.composer.ComposerError(None, None, problem, mark)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None and id(node) not in self._sizes:
                self._refuse(f"alias *{event.anchor} refers to the value it is part of (a "
                             "recursive alias); a config is a tree: write the value out",
                             event.start_mark)
            self._count(self._sizes.get(id(node), 0), event, f"alias *{event.anchor} expands")
            return super().compose_node(parent, index)
        self._count(1, event, "")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            self._refuse(f"values nested more than {MAX_DEPTH} deep; a config nests a few "
                         "levels: is this a config file?", event.start_mark)
        node = super().compose_node(parent, index)
        self._depth -= 1
        children = (node.value if isinstance(node, yaml.SequenceNode) else
                    [n for pair in node.value for n in pair]
                    if isinstance(node, yaml.MappingNode) else [])
        self._sizes[id(node)] = 1 + sum(self._sizes[id(c)] for c in children)
        return node

    def _count(self, n: int, event, what: str) -> None:
        self._total += n
        if self._total <= MAX_VALUES:
            return
        if what:
            self._refuse(f"{what} the config past {MAX_VALUES} values (aliases of aliases: an "
                         "alias bomb?); a config holds a few dozen: write the values out",
                         event.start_mark)
        self._refuse(f"the config holds more than {MAX_VALUES} values; a config holds a few "
                     "dozen: is this a config file?", event.start_mark)


def read_yaml(text: str) -> tuple[Any, list[str]]:
    """The data of one YAML document, bounded (:class:`_ConfigLoader`), and
    its repeated keys as problems.  Raises :class:`yaml.YAMLError`."""
    loader = _ConfigLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        duplicates = _duplicate_keys(node)  # before construction merges ``<<`` keys in place
        return loader.construct_document(node), duplicates
    finally:
        loader.dispose()


def _duplicate_keys(root: yaml.Node) -> list[str]:
    """``yaml.safe_load`` keeps the last of repeated keys silently; name them.

    Each node is visited once: a value shared through an alias is reported
    at the first place it occurs, and the walk stays as small as the file.
    """
    problems: list[str] = []
    seen_nodes: set[int] = set()

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in seen:
                        problems.append(
                            f"{join_key(path, key.value)}: duplicate key "
                            f"(lines {seen[key.value]} and {key.start_mark.line + 1})"
                        )
                    seen.setdefault(key.value, key.start_mark.line + 1)
                    walk(value, join_key(path, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, join_key(path, i))

    walk(root, "")
    return problems


