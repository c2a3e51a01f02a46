"""Real segmenters as systems to score: thin adapters over PyPI packages.

``committee segment --with NAME TEST -o OUT`` segments the characters of
every sentence of ``TEST`` with segmenter ``NAME`` and writes SIGHAN output
(one sentence per line, words separated by two spaces, as the bakeoff
gold files), aligned line by line with ``TEST``, so that ``committee
score`` and the run report rank real tools beside the committee's models.

Each adapter is an optional extra of the package and is imported only when
asked for; a missing one raises :class:`SegmenterUnavailable` (exit code 3)
saying what to install.  Every adapter runs offline with what its package
ships.

=========  ================  ===============================================
name       extra             notes
=========  ================  ===============================================
jieba      ``[jieba]``       dictionary + HMM for unknown words (``jieba.Tokenizer``)
thulac     ``[thulac]``      THULAC's own CRF-like model, ``seg_only=True``
snownlp    (a dependency)    character HMM trained on People's Daily 1998-01:
                             the embedded corpus, test split included, so its
                             scores on that split are not a fair comparison
=========  ================  ===============================================

pkuseg (``pkuseg``, ``spacy-pkuseg``) is not offered: ``pkuseg`` does not
build from PyPI here, and ``spacy-pkuseg`` downloads its model from the
network on first use.

An adapter must give back exactly the characters it was given; one that
drops or changes a character is refused (:class:`committee.errors.InputError`
naming the sentence), never silently fixed.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from typing import Callable, Sequence

from committee.errors import CommitteeError, InputError

__all__ = ["SEGMENTERS", "SegmenterUnavailable", "Segmenter", "load", "segment"]


class SegmenterUnavailable(CommitteeError):
    """The requested segmenter is not installed (or unknown).

    >>> str(SegmenterUnavailable("nosuch: unknown segmenter"))
    'nosuch: unknown segmenter'
    """

    exit_code = 3


@dataclass(frozen=True)
class Segmenter:
    """A loaded segmenter: ``cut(text) -> list of words``."""

    name: str
    version: str
    cut: Callable[[str], list[str]]
    note: str = ""


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


def _thulac() -> Segmenter:
    import contextlib
    import io

    import thulac

    import gc
    import warnings

    # it prints "Model loaded succeed" and leaves model files open (ResourceWarning)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        model = thulac.thulac(seg_only=True)
        gc.collect()

    def cut(text: str) -> list[str]:
        return [w for w, _ in model.cut(text, text=False)]

    return Segmenter("thulac", _version("thulac"), cut)


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
}


#: Segmenters asked for but not offered, and why.
NOT_OFFERED = {
    "pkuseg": "pkuseg needs a C compiler to install from PyPI and spacy-pkuseg downloads "
              "its model on first use",
}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be asked for (``None`` when it is a segmenter of
    :data:`SEGMENTERS`): the one wording of the CLI's check and of :func:`load`.

    >>> name_problem("jieba") is None, name_problem("hanlp")
    (True, 'unknown segmenter')
    """
    if name in NOT_OFFERED:
        return f"not offered ({NOT_OFFERED[name]})"
    if name not in SEGMENTERS:
        return "unknown segmenter"
    return None


def load(name: str) -> Segmenter:
    """Import and initialise segmenter ``name``.

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
    committee.segmenters.SegmenterUnavailable: nosuch: unknown segmenter; available: jieba, thulac, snownlp
    """
    problem = name_problem(name)
    if problem is not None:
        raise SegmenterUnavailable(f"{name}: {problem}; available: {', '.join(SEGMENTERS)}")
    module, extra, loader = SEGMENTERS[name]
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise SegmenterUnavailable(
            f"{name}: not installed ({exc}); install it with: "
            f"pip install 'committee[{extra}]'") from None
    return loader()


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

    out = []
    for i, text in enumerate(tqdm(texts, unit="sentence", desc=segmenter.name,
                                  disable=not progress, dynamic_ncols=True)):
        words = [w for w in segmenter.cut(text) if w.strip()] if text else []
        got = "".join(words)
        if got != text:
            k = next((k for k, (a, b) in enumerate(zip(text, got)) if a != b),
                     min(len(text), len(got)))
            a = f"has {text[k]!r}" if k < len(text) else "ends"
            b = f"has {got[k]!r}" if k < len(got) else "ends"
            line = lines[i] if lines is not None and i < len(lines) else i + 1
            raise InputError(path, line, f"{segmenter.name} changed the characters at "
                                         f"character {k + 1}: its output {b} where the text {a}")
        out.append(words)
    return out
