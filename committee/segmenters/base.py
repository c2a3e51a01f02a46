"""The records of :mod:`committee.segmenters`: a loaded tool
(:class:`Segmenter`), a tool that ``--with NAME`` runs (:class:`Tool`, one
per adapter module), and the two errors a tool raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from committee.errors import CommitteeError

#: Prefix of a ``--with`` name that runs a command (:func:`committee.segmenters.command`).
CMD_PREFIX = "cmd:"


class SegmenterUnavailable(CommitteeError):
    """The requested segmenter is not installed (or unknown).

    >>> str(SegmenterUnavailable("nosuch: unknown segmenter"))
    'nosuch: unknown segmenter'
    """

    exit_code = 3


class SegmenterFailed(CommitteeError):
    """A segmenter's command failed: it could not start, exited non-zero, or
    wrote too few or too many lines.  One line: the command, what went wrong
    and the tail of its standard error.  Exit code 3, as for any output that
    does not align with its text."""

    exit_code = 3


# tracebacks and messages name them where users import them from
SegmenterUnavailable.__module__ = SegmenterFailed.__module__ = "committee.segmenters"


@dataclass(frozen=True)
class Segmenter:
    """A loaded segmenter: ``cut(text) -> list of words``.

    ``cut_many(texts) -> list of word lists``, when given, segments all
    sentences at once (a command is run once, not once per sentence; its
    ``cut_many`` also takes ``progress`` and ``tagged``, see
    :func:`committee.segmenters.command`); ``command`` is the command line
    of a ``cmd:`` segmenter, named in its error messages.
    """

    name: str
    version: str
    cut: Callable[[str], list[str]]
    note: str = ""
    cut_many: Callable[..., list[list[str]]] | None = None
    command: str = ""
    #: ``tag(text) -> (tokens, IOB2 entity tags)``: the tool as an entity
    #: tagger (``task: ner``), when it is one (a ``cmd:`` tagger's items are
    #: read by :func:`committee.segmenters.tag`)
    tag: Callable[[str], tuple[list[str], list[str]]] | None = None
    #: ``pos(text) -> [(word, tag), ...]``: the tool as a part-of-speech
    #: tagger in its own tagset (``tagset``, :mod:`committee.corpus.tagsets`;
    #: a ``cmd:`` tagger's items are read by :func:`committee.segmenters.pos_tag`)
    pos: Callable[[str], list[tuple[str, str]]] | None = None
    tagset: str = ""


@dataclass(frozen=True, kw_only=True)
class Tool:
    """A segmenter (or tagger) that ``--with NAME`` runs: one record per
    adapter module (its ``TOOL``), every list of names (``--with``, the
    config's ``experiments.segmenters``, the help texts, install hints, the
    entity and part-of-speech taggers, the table of docs/segmenters.md)
    read from them (:mod:`committee.segmenters.registry`).

    Attributes
    ----------
    name : str
        Its name in ``--with`` and in the config.
    module : str
        The module to import (its presence says whether it is installed).
    extra : str
        The extra of pyproject.toml that installs it (``committee[EXTRA]``).
    loader : callable
        Returns the :class:`Segmenter` (imports the tool, loads its model).
    order : int
        Its place in every list of names (help texts, messages, the table
        of docs/segmenters.md): the lower, the earlier (ties by name;
        default: after the tools of committee, 10 to 70).
    about : str
        What it is, for the table of docs/segmenters.md.
    licence : str
        Its licence as its package's metadata states it (the same table).
    dependency : bool
        It is installed with committee itself (the table says so).
    install : str or None
        The command that installs it when the extra alone is not enough.
    tags_entities : bool
        It also tags entities (``task: ner``, :func:`committee.segmenters.load_tagger`).
    why_not_tagger : str or None
        Why it tags no entities here, when it could elsewhere.
    tagset : str or None
        It tags parts of speech (:func:`committee.segmenters.load_pos_tagger`),
        in this tagset of :data:`committee.corpus.tagsets.TAGSETS`, mapped to
        the task's.
    pos_loader : callable or None
        Returns it as a part-of-speech tagger (:attr:`Segmenter.pos`), when
        ``loader`` does not.
    """

    name: str
    module: str
    extra: str
    loader: Callable[[], Segmenter]
    order: int = 100
    about: str = ""
    licence: str = ""
    dependency: bool = False
    install: str | None = None
    tags_entities: bool = False
    why_not_tagger: str | None = None
    tagset: str | None = None
    pos_loader: Callable[[], Segmenter] | None = None


def version(dist: str) -> str:
    """The installed version of distribution ``dist``, or ``unknown``.

    >>> version("no-such-distribution")
    'unknown'
    """
    import importlib.metadata as md

    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "unknown"
