"""Where an adaptive test gets a system's words for the sentences it draws
(:func:`committee.scoring.adaptive.administer`): only those sentences are
ever read or segmented.

Every source is a callable ``source(indices) -> (words, wheres)``: the
system's words for each sentence (indices from 0, increasing) and where
each came from, ``(file, line)``, for the message of a sentence that does
not align.

* :class:`OutputLines`: an output file of one sentence a line (SIGHAN):
  its line count is checked against the gold, and only the drawn lines are
  decoded and split into words; no other line is parsed.
* :class:`SegmenterSource`: a segmenter (``--with``, a
  :class:`committee.segmenters.Segmenter`, ``cmd:`` included) given the
  characters of the drawn sentences only.
* :class:`MemorySource`: words in memory (one list per gold sentence), or a
  callable given the drawn sentences' texts.
"""

from __future__ import annotations

import os
import unicodedata

from committee.errors import InputError


def _line_starts(data: bytes) -> list[int]:
    """The byte offset of every line's start (a final line may lack its ``\\n``)."""
    starts, at = [0], data.find(b"\n")
    while at != -1:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    if starts[-1] == len(data):
        starts.pop()
    return starts


class OutputLines:
    """The drawn sentences' lines of an output file in SIGHAN format (one
    sentence a line, words separated by spaces).

    The file's bytes are read once and split at ``\\n``; a line is decoded
    (``encoding``, which must write ``\\n`` as that one byte: UTF-8, GB18030,
    Big5 …), checked and split only when its sentence is drawn.
    ``normalization``: as :func:`committee.corpus.read_corpus`'s.
    """

    def __init__(self, path, gold, encoding: str = "utf-8", normalization: str | None = None):
        self.path = os.fspath(path)
        self.encoding, self.normalization = encoding, normalization
        if "\n".encode(encoding) != b"\n":
            raise InputError(self.path, None, f"--adaptive reads an output line by line: "
                             f"encoding {encoding} does not write a line end as one byte")
        try:
            with open(self.path, "rb") as f:
                self.data = f.read()
        except OSError as exc:
            raise InputError(self.path, None, exc.strerror or str(exc)) from None
        self.starts = _line_starts(self.data)
        self.parsed: list[int] = []  # the lines read, in order (for audits and tests)
        if len(self.starts) != len(gold.words):
            raise InputError(self.path, None,
                             f"has {len(self.starts)} lines, gold {gold.path} has "
                             f"{len(gold.words)}: every output needs one line per gold "
                             "line, in the same order")

    def line(self, i: int) -> list[str]:
        """The words of line ``i + 1``."""
        from committee.corpus import normalize

        end = (self.starts[i + 1] if i + 1 < len(self.starts) else len(self.data))
        if end > self.starts[i] and self.data[end - 1:end] == b"\n":
            end -= 1
        raw = self.data[self.starts[i]:end]
        self.parsed.append(i + 1)
        try:
            text = raw.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise InputError(self.path, i + 1, f"byte {exc.start + 1} of the line does not "
                             f"decode as {self.encoding}: give its --encoding") from None
        if i == 0 and text.startswith("\ufeff"):
            text = text[1:]
        if text.endswith("\r"):
            text = text[:-1]
        bad = next((c for c in text if unicodedata.category(c) == "Cc" and c != "\t"), None)
        if bad is not None:
            raise InputError(self.path, i + 1, f"holds the control character {bad!r}")
        words = text.split()
        if self.normalization is not None:
            words = [normalize(w, self.normalization) for w in words]
        return words

    def __call__(self, indices):
        idx = [int(i) for i in indices]
        return [self.line(i) for i in idx], [(self.path, i + 1) for i in idx]


class SegmenterSource:
    """A segmenter given the characters of the drawn sentences only
    (:func:`committee.segmenters.segment`, which refuses an output with other
    characters); ``sent`` keeps every sentence index sent, in order."""

    def __init__(self, segmenter, gold):
        self.segmenter, self.gold = segmenter, gold
        self.sent: list[int] = []

    def __call__(self, indices):
        from committee.segmenters import segment

        idx = [int(i) for i in indices]
        self.sent.extend(idx)
        words = segment(self.segmenter, [self.gold.text(i) for i in idx], self.gold.path,
                        [self.gold.lines[i] for i in idx])
        return words, [(f"<{self.segmenter.name}>", self.gold.lines[i]) for i in idx]


class MemorySource:
    """Words in memory: a list with one word list (or space-separated
    string) per gold sentence, or a callable ``f(texts) -> word lists``
    given the drawn sentences' characters; ``asked`` keeps every index asked."""

    def __init__(self, system, gold):
        self.system, self.gold = system, gold
        self.asked: list[int] = []
        if not callable(system) and len(system) != len(gold.words):
            raise InputError("<output>", None, f"has {len(system)} sentences, gold "
                             f"{gold.path} has {len(gold.words)}")

    def __call__(self, indices):
        idx = [int(i) for i in indices]
        self.asked.extend(idx)
        if callable(self.system):
            words = [list(w) for w in self.system([self.gold.text(i) for i in idx])]
            if len(words) != len(idx):
                raise InputError("<system>", None, f"gave {len(words)} segmentations for "
                                 f"{len(idx)} sentences")
        else:
            words = [s.split() if isinstance(s, str) else list(s)
                     for s in (self.system[i] for i in idx)]
        return words, [("<output>", i + 1) for i in idx]
