"""Every tool ``--with NAME`` runs, found in :mod:`committee.segmenters.adapters`
(one module each, its ``TOOL``), and what is said of a name: whether it can
be asked for, how to install it, whether it tags entities or parts of
speech, and the table of docs/segmenters.md."""

from __future__ import annotations

import importlib
import pkgutil
import shlex

from committee.segmenters.base import CMD_PREFIX, Tool

#: The package whose every module declares one tool.
ADAPTERS = "committee.segmenters.adapters"


def tools_in(package: str) -> tuple[Tool, ...]:
    """The ``TOOL`` of every module of ``package``, in their
    :attr:`~committee.segmenters.base.Tool.order` (then by name); a module
    without one, or two tools of one name, is a :class:`TypeError`."""
    found = []
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        tool = getattr(importlib.import_module(f"{package}.{info.name}"), "TOOL", None)
        if not isinstance(tool, Tool):
            raise TypeError(f"{package}.{info.name}: no TOOL record (a Tool) in an adapter module")
        found.append(tool)
    names = [t.name for t in found]
    if len(set(names)) != len(names):
        raise TypeError(f"{package}: two tools of one name among {', '.join(sorted(names))}")
    return tuple(sorted(found, key=lambda t: (t.order, t.name)))


#: The segmenters ``--with`` runs, in the order help texts list them.
TOOLS: tuple[Tool, ...] = tools_in(ADAPTERS)

#: name -> its :class:`~committee.segmenters.base.Tool` record.
SEGMENTERS: dict[str, Tool] = {t.name: t for t in TOOLS}

#: Which segmenters of :data:`SEGMENTERS` tag entities too
#: (:func:`committee.segmenters.load_tagger`).
TAGGERS = tuple(t.name for t in TOOLS if t.tags_entities)
#: Which tag parts of speech (:func:`committee.segmenters.load_pos_tagger`).
POS_TAGGERS = tuple(t.name for t in TOOLS if t.tagset)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be asked for (``None`` when it is a segmenter of
    :data:`SEGMENTERS` or a ``cmd:COMMAND``): the one wording of the CLI's
    check and of :func:`committee.segmenters.load`.

    >>> name_problem("jieba") is None, name_problem("hanlp")
    (True, 'unknown segmenter')
    >>> name_problem("cmd:./seg --utf8") is None, name_problem("cmd: "), name_problem("cmd:a 'b")
    (True, 'no command after cmd:', 'the command does not parse (No closing quotation)')
    """
    if name.startswith(CMD_PREFIX):
        try:
            argv = shlex.split(name[len(CMD_PREFIX):])
        except ValueError as exc:
            return f"the command does not parse ({exc})"
        return None if argv else f"no command after {CMD_PREFIX}"
    if name not in SEGMENTERS:
        return "unknown segmenter"
    return None


def install_hint(name: str) -> str:
    """The command that installs segmenter ``name`` of :data:`SEGMENTERS`.

    >>> install_hint("jieba")
    "pip install 'committee[jieba]'"
    """
    tool = SEGMENTERS[name]
    return tool.install or f"pip install 'committee[{tool.extra}]'"


def tagger_problem(name: str) -> str | None:
    """Why ``name`` (a segmenter or ``cmd:COMMAND``) cannot tag entities, or None.

    >>> tagger_problem("lac") is None, tagger_problem("cmd:./ner.py") is None
    (True, True)
    >>> tagger_problem("jieba")
    'not an entity tagger: it segments words and tags no entities'
    """
    if name.startswith(CMD_PREFIX) or name in TAGGERS:
        return None
    why = getattr(SEGMENTERS.get(name), "why_not_tagger", None)
    return f"not an entity tagger: {why or 'it segments words and tags no entities'}"


def pos_tagger_problem(name: str) -> str | None:
    """Why ``name`` (a segmenter or ``cmd:COMMAND``) cannot tag parts of speech, or None.

    >>> pos_tagger_problem("jieba") is None, pos_tagger_problem("cmd:./tag.py") is None
    (True, True)
    >>> pos_tagger_problem("jiojio")
    'not a part-of-speech tagger; part-of-speech taggers: jieba, thulac, lac, cmd:COMMAND'
    """
    if name.startswith(CMD_PREFIX) or name in POS_TAGGERS or name not in SEGMENTERS:
        return None
    return (f"not a part-of-speech tagger; part-of-speech taggers: {', '.join(POS_TAGGERS)}, "
            f"{CMD_PREFIX}COMMAND")


def tool_problem(task, name: str) -> str | None:
    """Why ``name`` is not a tool of ``task`` (:func:`pos_tagger_problem`,
    :func:`tagger_problem`), or None: any segmenter serves segmentation."""
    if task.pos_tagset is not None:
        return pos_tagger_problem(name)
    return tagger_problem(name) if task.tagged else None


#: The heading of docs/segmenters.md's table of tools (:func:`table`).
TABLE_HEADING = ("| name | extra | what it is | licence (its package's metadata) |\n"
                 "|---|---|---|---|\n")


def table() -> str:
    """docs/segmenters.md's table of the tools of :data:`SEGMENTERS`, in
    their order: name, extra (or that it comes with committee), what it is,
    licence (``python -m committee.segmenters --write`` puts it in place).

    >>> print(table().splitlines()[2])
    | `jieba` | `[jieba]` | prefix dictionary + HMM for unknown words | MIT |
    """
    def extra(tool: Tool) -> str:
        if tool.dependency:
            return "a dependency"
        return f"`[{tool.extra}]`" + (" + a second step" if tool.install else "")

    return TABLE_HEADING + "".join(f"| `{t.name}` | {extra(t)} | {t.about} | {t.licence} |\n"
                                   for t in SEGMENTERS.values())
