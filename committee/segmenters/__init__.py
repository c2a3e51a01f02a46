"""Real segmenters as systems to score: thin adapters over PyPI packages,
and any command a user has.

``committee segment --with NAME TEST -o OUT`` segments the characters of
every sentence of ``TEST`` with segmenter ``NAME`` and writes SIGHAN output
(one sentence per line, words separated by two spaces, as the bakeoff
gold files), aligned line by line with ``TEST``, so that ``committee
score`` and the run report rank real tools beside the committee's models.

Each adapter (one module of :mod:`committee.segmenters.adapters`, its
:class:`Tool` record found by :mod:`committee.segmenters.registry`, which
every list of names reads: :data:`SEGMENTERS`) is an optional extra of the
package and is imported only when asked for; a missing one raises
:class:`SegmenterUnavailable` (exit code 3) saying what to install.  Every
adapter runs offline with the model its package ships: nothing is
downloaded at load or while segmenting.  docs/segmenters.md has their table
(``python -m committee.segmenters --write`` writes it from the registry).

``cmd:COMMAND`` runs ``COMMAND`` (:mod:`committee.segmenters.cmd`,
:func:`command`).  A tool's output is checked to give back exactly the
characters it was given (:mod:`committee.segmenters.outputs`).

This module loads a tool by name (:func:`load`, :func:`load_tagger`,
:func:`load_pos_tagger`, :func:`tool_loader`) and gathers the package's
public names.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from dataclasses import replace

# the package's public names, each importable from here: committee.segmenters.X
from committee.segmenters.adapters.lac import LAC_TYPES
from committee.segmenters.base import (
    CMD_PREFIX, Segmenter, SegmenterFailed, SegmenterUnavailable, Tool)
from committee.segmenters.cmd import command
from committee.segmenters.outputs import apply, pos_tag, segment, tag
from committee.segmenters.registry import (
    POS_TAGGERS, SEGMENTERS, TAGGERS, TOOLS, install_hint, name_problem, pos_tagger_problem,
    tagger_problem, tool_problem)
from committee.system.commands import command_name, output_limit

__all__ = ["SEGMENTERS", "TOOLS", "Tool", "SegmenterUnavailable", "SegmenterFailed", "Segmenter", "load",
           "segment", "command", "load_pos_tagger", "pos_tag", "POS_TAGGERS"]


def load(name: str, *, timeout: float | None = None, timeout_name: str = "timeout") -> Segmenter:
    """Import and initialise segmenter ``name`` (or, for ``cmd:COMMAND``,
    prepare the command: see :func:`command`, which ``timeout`` and
    ``timeout_name`` are passed to; the adapters of packages ignore them).

    Raises
    ------
    SegmenterUnavailable
        Unknown name, or its package is not installed (the message says how
        to install it).

    Examples
    --------
    >>> load("nosuch")
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterUnavailable: nosuch: unknown segmenter; available: jieba, thulac, snownlp, pkuseg, lac, jiojio, rjieba, cmd:COMMAND
    """
    problem = name_problem(name)
    if problem is not None:
        raise SegmenterUnavailable(f"{name}: {problem}; available: {', '.join(SEGMENTERS)}, "
                                   f"{CMD_PREFIX}COMMAND")
    if name.startswith(CMD_PREFIX):
        return command(name[len(CMD_PREFIX):], timeout, timeout_name=timeout_name)
    _import(name)
    return SEGMENTERS[name].loader()


def load_tagger(name: str, *, timeout: float | None = None,
                timeout_name: str = "timeout") -> Segmenter:
    """:func:`load` of a tool that tags entities (``task: ner``): ``lac``, or a
    ``cmd:COMMAND`` that writes each sentence as ``TOKEN/TAG`` items
    (:func:`command`); any other name is :class:`SegmenterUnavailable`."""
    problem = tagger_problem(name)
    if problem is not None:
        raise SegmenterUnavailable(f"{name}: {problem}; entity taggers: "
                                   f"{', '.join(TAGGERS)}, "
                                   f"{CMD_PREFIX}COMMAND")
    return load(name, timeout=timeout, timeout_name=timeout_name)


def load_pos_tagger(name: str, *, timeout: float | None = None,
                    timeout_name: str = "timeout") -> Segmenter:
    """:func:`load` of a part-of-speech tagger: a tool of
    :data:`POS_TAGGERS` (its :attr:`Segmenter.pos` and ``tagset``), or a
    ``cmd:COMMAND`` that writes each sentence as ``WORD/TAG`` items in the
    task's tagset (:func:`pos_tag`); any other name is
    :class:`SegmenterUnavailable`.

    >>> load_pos_tagger("jiojio")
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterUnavailable: jiojio: not a part-of-speech tagger; part-of-speech taggers: jieba, thulac, lac, cmd:COMMAND
    """
    if name.startswith(CMD_PREFIX) or name_problem(name):
        return load(name, timeout=timeout, timeout_name=timeout_name)
    tool = SEGMENTERS[name]
    if pos_tagger_problem(name):
        raise SegmenterUnavailable(f"{name}: {pos_tagger_problem(name)}")
    _import(name)
    return replace((tool.pos_loader or tool.loader)(), tagset=tool.tagset)


def tool_loader(task):
    """How ``--with`` loads its tool for ``task`` (a :class:`committee.tasks.Task`):
    a part-of-speech tagger (:func:`load_pos_tagger`), an entity tagger
    (:func:`load_tagger`) or a segmenter (:func:`load`)."""
    if task.pos_tagset is not None:
        return load_pos_tagger
    return load_tagger if task.tagged else load


def _import(name: str) -> None:
    """Import the module of tool ``name``, or say how to install it."""
    try:
        # some print on import (jiojio): nothing may reach standard output,
        # where ``committee segment -o -`` writes the segmentation
        with contextlib.redirect_stdout(io.StringIO()):
            importlib.import_module(SEGMENTERS[name].module)
    except ImportError as exc:
        raise SegmenterUnavailable(
            f"{name}: not installed ({exc}); install it with: {install_hint(name)}") from None
