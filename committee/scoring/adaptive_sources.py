"""Where an adaptive test gets a system's words for the sentences it draws
(:func:`committee.scoring.adaptive.administer`): only those sentences are
ever read or segmented.

Every source is a callable ``source(indices) -> (output, wheres)``: the
system's output of those sentences (indices from 0, increasing) as a
:class:`committee.corpus.Corpus` of them, in order, and where each came
from, ``(file, line)``, for the message of a sentence that does not align.

* :class:`OutputLines`: an output file of one sentence a line (SIGHAN):
  its line count is checked against the gold, and only the drawn lines are
  decoded and split into words; no other line is parsed.
* :class:`SegmenterSource`: a segmenter (``--with``, a
  :class:`committee.segmenters.Segmenter`, ``cmd:`` included) given the
  characters of the drawn sentences only.
* :class:`MemorySource`: words in memory (one list per gold sentence), or a
  callable given the drawn sentences' texts.
* :class:`Recorded`: another source, with the output of some sentences
  already in hand (the draws of an earlier test, ``--continue``): only the
  others are asked of it.
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
        return (_corpus(self.path, [self.line(i) for i in idx], [i + 1 for i in idx]),
                [(self.path, i + 1) for i in idx])


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
        lines = [self.gold.lines[i] for i in idx]
        words = segment(self.segmenter, [self.gold.text(i) for i in idx], self.gold.path, lines)
        return (_corpus(f"<{self.segmenter.name}>", words, lines),
                [(f"<{self.segmenter.name}>", line) for line in lines])


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
        return _corpus("<output>", words, [i + 1 for i in idx]), [("<output>", i + 1) for i in idx]


class Recorded:
    """``source`` with the output of some sentences in hand: ``answers``
    maps a sentence (index from 0) to its tokens and their labels (None
    for a task of words alone) and ``where`` to the ``(file, line)`` they
    were read from (:func:`committee.scoring.adaptive_draws.read_draws`).
    Those sentences are served from them, every other one is asked of
    ``source``; ``reused`` keeps the sentences served, ``asked`` those asked."""

    def __init__(self, source, answers: dict, where: dict, task):
        self.source, self.answers, self.where, self.task = source, answers, where, task
        self.reused: list[int] = []
        self.asked: list[int] = []

    def __call__(self, indices):
        idx = [int(i) for i in indices]
        ask = [i for i in idx if i not in self.answers]
        asked = dict(zip(ask, zip(*self._ask(ask)))) if ask else {}
        self.reused.extend(i for i in idx if i in self.answers)
        self.asked.extend(ask)
        words, labels, lines, wheres = [], [], [], []
        for i in idx:
            if i in asked:
                (w, lab, line), where = asked[i]
            else:
                (w, lab), where = self.answers[i], self.where[i]
                line = where[1]
            words.append(w)
            labels.append(lab)
            lines.append(line)
            wheres.append(where)
        path = wheres[0][0] if len({w[0] for w in wheres}) == 1 else "<adaptive>"
        has_labels = self.task.labels_field is not None
        return self.task.as_corpus(path, words, lines, labels if has_labels else None), wheres

    def _ask(self, idx):
        """``source``'s output of ``idx``: each sentence's (tokens, labels,
        line), and where each came from."""
        out, wheres = self.source(idx)
        labels = self.task.labels_of(out)
        rows = [(out.words[k], None if labels is None else labels[k], out.lines[k])
                for k in range(len(idx))]
        return rows, wheres


def _corpus(path: str, words: list, lines: list):
    """The words of drawn sentences as a Corpus (its ``lines``: where each was read)."""
    from committee.corpus import Corpus

    return Corpus(path, words, lines)
