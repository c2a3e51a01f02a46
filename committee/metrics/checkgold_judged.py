"""Hand-judged rows of ``committee check-gold`` (docs/method.md §15,
``data/check-gold/``): reading a judged sample and measuring a ranked list
against it.

A judged sample is a UTF-8 tab-separated file: ``#`` lines are comments,
then a header naming :data:`JUDGED_COLUMNS`, then one row per judged span
(``sentence``, ``start``, ``end`` of the test set, the ``gold`` and
``proposed`` readings with words separated by spaces, a ``judgement`` of
:data:`JUDGEMENTS` and a one-line ``reason``).  A ranked row is judged
when a judged row has its sentence, start, end, gold and proposed reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from committee.errors import InputError

#: What the hand-judged sample of ``data/check-gold/`` found among the first
#: ``k`` rows of the embedded corpus's list (``configs/default.yaml``,
#: ``benchmarks/bench_check_gold_adjudicated.py``): how many were judged
#: gold-wrong, gold-right and unclear.  ``committee check-gold`` quotes it
#: for lists of its ``task``.
MEASURED = {"task": "segmentation", "corpus": "the embedded People's Daily corpus", "k": 50,
            "gold_wrong": 40, "gold_right": 7, "unclear": 3, "where": "docs/benchmarks.md"}

JUDGED_COLUMNS = ("sentence", "start", "end", "gold", "proposed", "judgement", "reason")
#: The judgements: the gold is an annotation error there, the proposed
#: reading is wrong, or neither can be said.
JUDGEMENTS = ("gold-wrong", "gold-right", "unclear")


def key(row: dict) -> tuple:
    """What names a span: ``(sentence, start, end, gold, proposed)``.

    >>> key({"sentence": "3", "start": 1, "end": "2", "gold": "不 同", "proposed": "不同"})
    (3, 1, 2, '不 同', '不同')
    """
    return (int(row["sentence"]), int(row["start"]), int(row["end"]), str(row["gold"]),
            str(row["proposed"]))


def parse_judged(text: str, where: str = "judged sample") -> dict[tuple, tuple[str, str]]:
    """The judged rows of a sample's text: ``{key: (judgement, reason)}``; an
    :class:`InputError` names the first line without a valid judgement, a
    reason or a span, and a span judged twice.

    >>> parse_judged("# c\\n" + "\\t".join(JUDGED_COLUMNS) + "\\n1\\t0\\t2\\t不 同\\t不同\\t"
    ...              "gold-wrong\\ttrain: 不同 x309, 不 同 x4\\n")
    {(1, 0, 2, '不 同', '不同'): ('gold-wrong', 'train: 不同 x309, 不 同 x4')}
    """
    out: dict = {}
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.startswith("#")]
    if not lines or tuple(lines[0][1].split("\t")) != JUDGED_COLUMNS:
        raise InputError(where, lines[0][0] if lines else None,
                         f"the header must name the columns {', '.join(JUDGED_COLUMNS)}")
    for n, line in lines[1:]:
        cells = line.split("\t")
        row = dict(zip(JUDGED_COLUMNS, cells))
        try:
            k = key(row)
        except (KeyError, ValueError):
            raise InputError(where, n, "not a judged span (sentence, start and end must be "
                             "numbers)") from None
        if len(cells) != len(JUDGED_COLUMNS) or row["judgement"] not in JUDGEMENTS \
                or not row["reason"].strip() or not 0 <= k[1] < k[2]:
            raise InputError(where, n, f"a row needs {len(JUDGED_COLUMNS)} cells, a judgement "
                             f"of {', '.join(JUDGEMENTS)}, a reason and start < end")
        if k in out:
            raise InputError(where, n, "this span is judged twice")
        out[k] = (row["judgement"], row["reason"])
    return out


def read_judged(path) -> dict[tuple, tuple[str, str]]:
    """:func:`parse_judged` of the file at ``path``."""
    from pathlib import Path

    return parse_judged(Path(path).read_text(encoding="utf-8"), str(path))


@dataclass
class AtK:
    """The first ``k`` rows of a ranked list against a judged sample."""

    k: int
    gold_wrong: int
    gold_right: int
    unclear: int
    unjudged: int

    @property
    def precision(self) -> float | None:
        """gold-wrong rows among the rows judged gold-wrong or gold-right."""
        judged = self.gold_wrong + self.gold_right
        return self.gold_wrong / judged if judged else None


def precision_at(rows, judged: dict, ks=(20, 50, 100)) -> list[AtK]:
    """For each ``k`` of ``ks``, the judgements of the first ``k`` of
    ``rows`` (dicts with the keys of :func:`key`, in ranked order).

    >>> j = {(0, 0, 2, "a b", "ab"): ("gold-wrong", "r"), (0, 2, 4, "c d", "cd"): ("gold-right", "r")}
    >>> rows = [{"sentence": 0, "start": 0, "end": 2, "gold": "a b", "proposed": "ab"},
    ...         {"sentence": 0, "start": 2, "end": 4, "gold": "c d", "proposed": "cd"},
    ...         {"sentence": 1, "start": 0, "end": 1, "gold": "e", "proposed": "e"}]
    >>> [(a.k, a.precision, a.unjudged) for a in precision_at(rows, j, (1, 3))]
    [(1, 1.0, 0), (3, 0.5, 1)]
    """
    out = []
    for k in ks:
        counts = dict.fromkeys(JUDGEMENTS, 0)
        unjudged = 0
        for r in rows[:k]:
            found = judged.get(key(r))
            if found is None:
                unjudged += 1
            else:
                counts[found[0]] += 1
        out.append(AtK(k, counts["gold-wrong"], counts["gold-right"], counts["unclear"],
                       unjudged))
    return out
