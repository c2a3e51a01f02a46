"""Reading and writing segmented corpora (METHOD.md §1, §9).

A corpus is a list of sentences; a sentence is a list of words (non-empty
strings).  Line ``k`` of a SIGHAN-style file is sentence ``k`` (blank lines
are kept as sentences with no words, so that gold and output align line by
line).  Readers never "fix" input: bytes that do not decode, malformed
tokens and the like raise :class:`committee.errors.InputError` naming the
file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """

    path: str
    words: list[list[str]]
    lines: list[int]
    pos: list[list[str]] | None = None
    sha256: str = ""
    encoding: str = "utf-8"
    normalization: str | None = None

    def __len__(self) -> int:
        return len(self.words)

    def n_words(self) -> int:
        return sum(len(s) for s in self.words)

    def text(self, i: int) -> str:
        """Characters of sentence ``i``."""
        return "".join(self.words[i])
