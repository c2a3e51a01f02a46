"""The TSV of an adaptive test's draws (``committee score --adaptive -o
FILE``) and its reading back to continue a test (``--continue FILE``,
``adaptive_score(resume=...)``; docs/method.md §16).

One row per draw: the system, its batch, the sentence (from 1) and its
gold line, the draw's probability and inclusion probability, whether the
sentence was new, θ at the batch's start, the observed and predicted
counts, and the system's output of the sentence: ``words``, its tokens
separated by spaces (no reader splits a token at a space, so none holds
one), and ``labels``, their labels separated by spaces for a task whose
units carry labels (a part of speech per word, an entity tag per token)
and empty for segmentation.  The rows of one sentence all carry its
output.

Read back, the file serves the recorded output of every sentence it holds
instead of asking the system again.  What is read is checked against the
current test before any system is asked: the header, each row's system
(one being tested: a row of another is refused, for a system renamed since
would otherwise be asked again, and paid for, without a word), its
sentence and gold line against the gold, its tokens' characters against
the gold sentence, its labels (one per token) and the agreement of every
row of one sentence; a mismatch is an :class:`~committee.errors.InputError`
naming the file and its line.  Nothing read decides what runs: the draws
are made again from the seed, and the recorded outputs only stand in for
the system's answers.
"""

from __future__ import annotations

import os

from committee.errors import InputError
from committee.metrics import estimators

#: Columns of the TSV of draws (``-o``), one row per draw.
DRAW_COLUMNS = ("system", "batch", "sentence", "line", "probability", "inclusion", "new",
                "theta", *estimators.ESTIMATED, *(f"predicted_{k}" for k in estimators.ESTIMATED),
                "words", "labels")


def draws_tsv(bank, systems: list[dict]) -> str:
    """The TSV of every draw of every system (:data:`DRAW_COLUMNS`): enough
    to recompute each estimate and to continue the test without asking the
    systems again (docs/method.md §16).  Each system is a dict with
    ``name``, ``record`` (its :class:`~committee.scoring.adaptive.Draw`
    records) and ``answers`` (sentence → tokens and labels)."""
    rows = ["\t".join(DRAW_COLUMNS)]
    for s in systems:
        answers = s.get("answers") or {}
        for d in s["record"]:
            tokens, labels = answers.get(d.sentence, ((), None))
            rows.append("\t".join([str(s["name"]), str(d.batch), str(d.sentence + 1),
                                   str(bank.gold.lines[d.sentence]), repr(d.probability),
                                   repr(d.inclusion), "1" if d.new else "0", repr(d.theta),
                                   *map(repr, map(float, d.observed)),
                                   *map(repr, map(float, d.predicted)),
                                   " ".join(tokens), " ".join(labels or ())]))
    return "\n".join(rows) + "\n"


def read_draws(path, bank, names) -> dict[str, tuple[dict, dict]]:
    """The recorded outputs of a TSV of draws (:func:`draws_tsv`), checked
    against ``bank`` (module docstring): ``{system: (answers, where)}`` for
    the systems of ``names`` (those being tested), ``answers`` mapping a
    sentence (from 0) to its tokens and labels (None for a task of words
    alone) and ``where`` to the file and line they were read from."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise InputError(path, None, exc.strerror or str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, data[:exc.start].count(b"\n") + 1,
                         "is not UTF-8: give the TSV of draws that -o wrote") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != list(DRAW_COLUMNS):
        raise InputError(path, 1, "not a TSV of draws of committee score --adaptive -o: its "
                                  f"header must be the columns {', '.join(DRAW_COLUMNS)}")
    names = list(dict.fromkeys(names))
    out: dict[str, tuple[dict, dict]] = {n: ({}, {}) for n in names}
    for number, line in enumerate(lines[1:], start=2):
        name, i, answer = _row(path, number, line, bank, names)
        answers, where = out[name]
        if i in answers and answers[i] != answer:
            raise InputError(path, number, f"sentence {i + 1} of {name} differs from its "
                                           f"row at line {where[i][1]}")
        answers.setdefault(i, answer)
        where.setdefault(i, (path, number))
    return out


def _row(path: str, number: int, line: str, bank, names: list) -> tuple[str, int, tuple]:
    """One row of a TSV of draws, checked: its system, sentence (from 0) and
    output (tokens, labels or None)."""
    from committee.scoring import adaptive

    cells = line.split("\t")
    if len(cells) != len(DRAW_COLUMNS):
        raise InputError(path, number, f"has {len(cells)} columns, the header "
                                       f"{len(DRAW_COLUMNS)}")
    row = dict(zip(DRAW_COLUMNS, cells))
    name = row["system"]
    if name not in names:
        raise InputError(path, number, f"draws of system {name!r}, which is not being tested "
                                       f"({', '.join(map(repr, names))}): continue a test with "
                                       "the systems it recorded, under the same names")
    gold, n = bank.gold, bank.n_sentences
    if not (row["sentence"].isdigit() and 1 <= int(row["sentence"]) <= n):
        raise InputError(path, number, f"sentence {row['sentence']!r} is not a sentence of "
                                       f"{gold.path} (1 to {n})")
    i = int(row["sentence"]) - 1
    if row["line"] != str(gold.lines[i]):
        raise InputError(path, number, f"sentence {i + 1} at gold line {row['line']}, but it "
                                       f"is at {gold.path}:{gold.lines[i]}: the draws are of "
                                       "another gold")
    tokens = row["words"].split(" ") if row["words"] else []
    if "" in tokens:
        raise InputError(path, number, "an empty token in words (two spaces in a row, or one "
                                       "at an end): tokens are separated by one space")
    adaptive.check_words(bank, i, tokens, (path, number))
    labels = _labels(path, number, row["labels"], tokens, bank.task)
    return name, i, (tokens, labels)


def _labels(path: str, number: int, cell: str, tokens: list, task) -> list | None:
    """A row's labels: one per token for a task of labels, none otherwise."""
    if task.labels_field is None:
        if cell:
            raise InputError(path, number, f"has labels, but task {task.name} scores words "
                                           "alone: the draws are of another task")
        return None
    labels = cell.split(" ") if cell else []
    if len(labels) != len(tokens) or not all(labels):
        raise InputError(path, number, f"has {len(tokens)} tokens and {len(labels)} labels: "
                                       f"task {task.name} needs one label per token")
    return labels
