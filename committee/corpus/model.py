"""The corpus model: a segmented corpus as read from one file, the
normalisation of its words and the checksums of its content."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

from committee.errors import InputError
from committee.system.files import sha256_bytes

#: Normalisation modes: ``None`` (off), ``"nfkc"``, ``"fullwidth"``.
NORMALIZATIONS = (None, "nfkc", "fullwidth")

_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}


@dataclass(frozen=True)
class Corpus:
    """A segmented corpus as read from one file.

    Attributes
    ----------
    path : str
        Where it came from (used in error messages); ``"<embedded:...>"``
        for the built-in corpus.
    words : list of list of str
        One list of words per sentence.
    lines : list of int
        1-based line number in ``path`` where each sentence starts.
    pos : list of list of str, or None
        POS tags parallel to ``words`` when the format has them.
    sha256 : str
        Checksum of the file's bytes (of the selected sentences for a split).
    encoding : str
    normalization : str or None
        ``None``, ``"nfkc"`` or ``"fullwidth"``.
    format : str
        The format it was read as.
    content_sha256 : str
        Checksum of the words (:func:`content_sha256`): the same for the
        same words in any encoding or format; of the words and their tags
        for a labelled corpus.
    tags : list of list of str, or None
        For labelled spans (``task: ner``, docs/method.md §13): one tag per
        word (token), parallel to ``words``, as the file spells it (``O``,
        ``B-PER``, ``I-LOC``, ...); the entities follow from them
        (:func:`committee.corpus.entities.entities`).  None for a
        segmentation.
    """

    path: str
    words: list[list[str]]
    lines: list[int]
    pos: list[list[str]] | None = None
    sha256: str = ""
    encoding: str = "utf-8"
    normalization: str | None = None
    format: str = "sighan"
    content_sha256: str = ""
    tags: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.words)

    def n_words(self) -> int:
        return sum(len(s) for s in self.words)

    def n_chars(self) -> int:
        """Number of characters over all sentences."""
        return sum(len(w) for s in self.words for w in s)

    def text(self, i: int) -> str:
        """Characters of sentence ``i``."""
        return "".join(self.words[i])


def normalize(text: str, mode: str | None) -> str:
    """Normalise ``text`` as :func:`read_corpus` does with ``normalization=mode``.

    Parameters
    ----------
    text : str
    mode : {None, "nfkc", "fullwidth"}
        ``"fullwidth"`` maps only full-width ASCII (U+FF01–U+FF5E) to ASCII;
        ``"nfkc"`` is Unicode NFKC, which also folds e.g. circled digits.

    Examples
    --------
    >>> normalize("ＡＢ１，好", "fullwidth")
    'AB1,好'
    >>> normalize("①ＡＢ", "nfkc")
    '1AB'
    >>> normalize("ＡＢ", None)
    'ＡＢ'
    """
    if mode is None:
        return text
    if mode == "fullwidth":
        return text.translate(_FULLWIDTH)
    if mode == "nfkc":
        return unicodedata.normalize("NFKC", text)
    raise ValueError(f"unknown normalization {mode!r}; valid: {', '.join(map(repr, NORMALIZATIONS))}")


def normalize_words(path: str, line: int, words: list[str], mode: str) -> list[str]:
    out = [normalize(w, mode) for w in words]
    for before, after in zip(words, out):
        if after.split() != [after]:
            raise InputError(
                path, line,
                f"word {before!r} becomes {after!r} under {mode} normalization, "
                "which is not a word (empty or contains whitespace)",
            )
    return out


def content_sha256(words: Iterable[Sequence[str]],
                   tags: Iterable[Sequence[str]] | None = None) -> str:
    """Checksum of a segmentation's content: SHA-256 of its words written as
    SIGHAN UTF-8 (:func:`format_sighan`).

    The same words in another encoding, line-end convention or file format
    give the same checksum; other words (a file read with the wrong format
    or normalisation) give another.  With ``tags`` (a labelled corpus): of
    the words and their tags written as ``bio`` UTF-8, a token, a tab and
    its tag a line, a blank line after each sentence.

    >>> content_sha256([["计算机", "总是"], []]) == sha256_bytes("计算机 总是\\n\\n".encode("utf-8"))
    True
    >>> content_sha256([["江", "泽"]], [["B-PER", "I-PER"]]) == sha256_bytes(
    ...     "江\\tB-PER\\n泽\\tI-PER\\n\\n".encode("utf-8"))
    True
    """
    if tags is not None:
        return sha256_bytes("".join(
            "".join(f"{w}\t{t}\n" for w, t in zip(ws, ts)) + "\n"
            for ws, ts in zip(words, tags)).encode("utf-8"))
    # format_sighan's output for words that are words, without its checks
    return sha256_bytes("".join(" ".join(s) + "\n" for s in words).encode("utf-8"))


def word_list_sha256(words: Iterable[str]) -> str:
    """Checksum of a set of words (a training vocabulary): SHA-256 of the
    sorted words, one a line, in UTF-8; the file's order, encoding and
    blank lines do not matter.

    >>> word_list_sha256({"问题", "计算机"}) == word_list_sha256(["计算机", "问题", "问题"])
    True
    """
    return sha256_bytes("".join(w + "\n" for w in sorted(set(words))).encode("utf-8"))


def training_words(corpus: Corpus) -> set[str]:
    """The set of word types of a (training) corpus.

    >>> sorted(training_words(Corpus("x", [["问题", "有"], ["问题"]], [1, 2])))
    ['有', '问题']
    """
    return {w for s in corpus.words for w in s}
