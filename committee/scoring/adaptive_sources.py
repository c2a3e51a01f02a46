"""Where an adaptive test gets a system's output of the sentences it draws
(:func:`committee.scoring.adaptive.administer`): only those sentences are
ever read, segmented or tagged.

Every source is a callable ``source(indices) -> (output, wheres)``: the
system's output of those sentences (indices from 0, increasing) as a
:class:`committee.corpus.Corpus` of them, in order (its words and, for a
task of labels, their tags), and where each came from, ``(file, line)``,
for the message of a sentence that does not align.

* :class:`OutputSentences`: an output file in any format of text
  (:mod:`committee.corpus.formats`): its sentences are indexed once (a line
  each, or a block of lines between blank lines), their count checked
  against the gold, and only the drawn ones are decoded and parsed, by the
  format's own parser.
* :class:`ToolSource`: a segmenter or tagger (``--with``, a
  :class:`committee.segmenters.Segmenter`, ``cmd:`` included) given the
  characters of the drawn sentences only
  (:func:`committee.segmenters.apply`).
* :class:`MemorySource`: an output in memory (a Corpus, or one entry per
  gold sentence), or a callable given the drawn sentences' texts.
* :class:`Recorded`: another source, with the output of some sentences
  already in hand (the draws of an earlier test, ``--continue``): only the
  others are asked of it.
"""

from __future__ import annotations

import os
import warnings

from committee.errors import InputError

#: The line that opens a document in a ``bio`` file: a block of such lines
#: alone is no sentence (:func:`committee.corpus.parsers.parse_bio` skips it).
DOCSTART = "-DOCSTART-"


def _line_starts(data: bytes) -> list[int]:
    """The byte offset of every line's start (a final line may lack its ``\\n``)."""
    starts, at = [0], data.find(b"\n")
    while at != -1:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    if starts[-1] == len(data):
        starts.pop()
    return starts


def one_a_line(record) -> bool:
    """Whether format ``record`` (:class:`committee.corpus.formats.Format`)
    holds one sentence a line: its parser reads a blank line as a sentence
    of no words.  The others hold a sentence a block of lines, blocks
    separated by blank lines (``bio``, ``conllu``, ``char-tsv``).

    >>> from committee.corpus.formats import BY_NAME
    >>> one_a_line(BY_NAME["pku"]), one_a_line(BY_NAME["bio"])
    (True, False)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return len(record.parse("<probe>", [""], None)[0]) == 1


class OutputSentences:
    """The drawn sentences of an output file in ``format`` (any format of
    text: SIGHAN, pku, underscore, conllu, bio …), as ``task`` reads them.

    The file's bytes are read once and its sentences indexed: a line each
    for a format of one sentence a line (:func:`one_a_line`), else a block
    of lines between blank lines (a block of ``-DOCSTART-`` lines alone is
    none).  A sentence's bytes are decoded (``encoding``, which must write
    ``\\n`` as that one byte: UTF-8, GB18030, Big5 …), checked and parsed by
    the format's parser only when it is drawn; a malformed line is refused
    naming its line in the file.  ``normalization``: as
    :func:`committee.corpus.read_corpus`'s.  The reader's warnings about
    the whole file (ill-formed tag sequences) are not given: only the drawn
    sentences are read.
    """

    def __init__(self, path, gold, task=None, format: str | None = None,
                 encoding: str = "utf-8", normalization: str | None = None):
        from committee import tasks as tasks_mod
        from committee.corpus.formats import BY_NAME

        self.path = os.fspath(path)
        self.task = task or tasks_mod.SEGMENTATION
        self.format = format or self.task.format
        self.record = BY_NAME[self.format]
        self.encoding, self.normalization = encoding, normalization
        if self.record.parse is None:
            raise InputError(self.path, None, f"--adaptive reads the drawn sentences of a "
                             f"file of text: format {self.format} is read whole")
        if "\n".encode(encoding) != b"\n":
            raise InputError(self.path, None, f"--adaptive reads an output line by line: "
                             f"encoding {encoding} does not write a line end as one byte")
        try:
            with open(self.path, "rb") as f:
                self.data = f.read()
        except OSError as exc:
            raise InputError(self.path, None, exc.strerror or str(exc)) from None
        self.starts = _line_starts(self.data)
        self.sentences = self._index()  # per sentence: its first and last line (from 0)
        self.parsed: list[int] = []  # the sentences read (from 1), in order: for audits
        if len(self.sentences) != len(gold.words):
            what = "lines" if one_a_line(self.record) else "sentences"
            raise InputError(self.path, None,
                             f"has {len(self.sentences)} {what}, gold {gold.path} has "
                             f"{len(gold.words)}: every output needs one "
                             f"{'line' if what == 'lines' else 'sentence'} per gold "
                             f"{'line' if what == 'lines' else 'sentence'}, in the same order")

    def _index(self) -> list[tuple[int, int]]:
        """Each sentence's first and last line (indices from 0)."""
        n = len(self.starts)
        if one_a_line(self.record):
            return [(k, k) for k in range(n)]
        text = self.data.decode(self.encoding, errors="replace").split("\n")
        out, first = [], None
        for k in range(n + 1):
            blank = k == n or not text[k].strip()
            if blank and first is not None:
                if not all(text[j].startswith(DOCSTART) for j in range(first, k)):
                    out.append((first, k - 1))
                first = None
            elif not blank and first is None:
                first = k
        return out

    def _lines(self, first: int, last: int) -> list[str]:
        """Lines ``first`` to ``last`` (from 0) decoded and checked."""
        from committee.corpus.decoding import BAD_CHAR, split_lines

        end = self.starts[last + 1] if last + 1 < len(self.starts) else len(self.data)
        try:
            text = self.data[self.starts[first]:end].decode(self.encoding)
        except UnicodeDecodeError as exc:
            line = first + 1 + self.data[self.starts[first]:self.starts[first] + exc.start].count(b"\n")
            raise InputError(self.path, line, f"does not decode as {self.encoding}: give its "
                             "--encoding") from None
        if first == 0 and text.startswith("\ufeff"):
            text = text[1:]
        lines = split_lines(text)
        for k, line in enumerate(lines):
            bad = BAD_CHAR.search(line)
            if bad is not None:
                raise InputError(self.path, first + k + 1,
                                 f"holds the control character {bad.group()!r}")
        return lines

    def sentence(self, i: int) -> tuple[list, list | None, int]:
        """Sentence ``i``'s tokens, their labels (None for a format without)
        and its line in the file."""
        first, last = self.sentences[i]
        self.parsed.append(i + 1)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                words, starts, labels = self.record.parse(self.path, self._lines(first, last),
                                                          self.normalization)
        except InputError as exc:
            if exc.path != self.path or exc.line is None:
                raise
            raise InputError(self.path, exc.line + first, exc.message) from None
        return words[0], None if labels is None else labels[0], starts[0] + first

    def __call__(self, indices):
        from committee.corpus import Corpus

        got = [self.sentence(int(i)) for i in indices]
        labels = [g[1] for g in got]
        has = labels[0] is not None
        field = "tags" if self.record.labelled else "pos"
        corpus = Corpus(self.path, [g[0] for g in got], [g[2] for g in got],
                        format=self.format, **({field: labels} if has else {}))
        return corpus, [(self.path, g[2]) for g in got]


class ToolSource:
    """A segmenter or tagger (loaded by
    :func:`committee.segmenters.tool_loader` for ``task``) given the
    characters of the drawn sentences only (:func:`committee.segmenters.apply`,
    which refuses an output with other characters); ``sent`` keeps every
    sentence index sent, in order."""

    def __init__(self, tool, gold, task=None):
        from committee import tasks as tasks_mod

        self.tool, self.gold = tool, gold
        self.task = task or tasks_mod.SEGMENTATION
        self.sent: list[int] = []

    def __call__(self, indices):
        from committee.segmenters import apply

        idx = [int(i) for i in indices]
        self.sent.extend(idx)
        lines = [self.gold.lines[i] for i in idx]
        words, labels = apply(self.task, self.tool, [self.gold.text(i) for i in idx],
                              self.gold.path, lines)
        who = f"<{self.tool.name}>"
        return (self.task.as_corpus(who, words, lines, labels),
                [(who, line) for line in lines])


class MemorySource:
    """An output in memory: a Corpus with one sentence per gold sentence, or
    a list with one entry per gold sentence, or a callable ``f(texts)``
    given the drawn sentences' characters that returns one entry per text.
    An entry is a word list (or a space-separated string) for a task of
    words alone, a pair ``(tokens, labels)`` for a task of labels
    (:attr:`committee.tasks.Task.labels_field`); ``asked`` keeps every
    index asked."""

    def __init__(self, system, gold, task=None):
        from committee import tasks as tasks_mod
        from committee.corpus import Corpus

        self.task = task or tasks_mod.SEGMENTATION
        if isinstance(system, Corpus):
            labels = self.task.labels_of(system)
            system = (system.words if labels is None
                      else [(w, t) for w, t in zip(system.words, labels)])
        self.system, self.gold = system, gold
        self.asked: list[int] = []
        if not callable(system) and len(system) != len(gold.words):
            raise InputError("<output>", None, f"has {len(system)} sentences, gold "
                             f"{gold.path} has {len(gold.words)}")

    def __call__(self, indices):
        idx = [int(i) for i in indices]
        self.asked.extend(idx)
        if callable(self.system):
            entries = list(self.system([self.gold.text(i) for i in idx]))
            if len(entries) != len(idx):
                raise InputError("<system>", None, f"gave {len(entries)} outputs for "
                                 f"{len(idx)} sentences")
        else:
            entries = [self.system[i] for i in idx]
        lines = [i + 1 for i in idx]
        if self.task.labels_field is None:
            words = [e.split() if isinstance(e, str) else list(e) for e in entries]
            corpus = self.task.as_corpus("<output>", words, lines)
        else:
            corpus = self.task.as_corpus("<output>", [list(e[0]) for e in entries], lines,
                                         [list(e[1]) for e in entries])
        return corpus, [("<output>", line) for line in lines]


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
        self.reused.extend(i for i in idx if i in self.answers)
        self.asked.extend(ask)
        if len(ask) == len(idx):  # nothing in hand: the source's output as it is
            return self.source(idx)
        asked = dict(zip(ask, zip(*self._ask(ask)))) if ask else {}
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
        from committee.scoring.goldside import no_entity_tags

        out, wheres = self.source(idx)
        if not self.task.tagged:  # entity tags where words are scored: refused, not dropped
            no_entity_tags(out)
        labels = self.task.labels_of(out)
        rows = [(out.words[k], None if labels is None else labels[k], out.lines[k])
                for k in range(len(idx))]
        return rows, wheres

