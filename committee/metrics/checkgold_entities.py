"""Suspicious gold entities (docs/method.md §15): the candidates, features
and injected errors of :mod:`committee.metrics.checkgold` for a run of
entities.

A run of entities records, for each member, which gold entities it got
right (``marks.npz``) and which characters it put inside an entity
(``predictions.npz``), not the types it gave.  A member that misses a gold
entity ``[s, e)`` reads it one of three ways: ``type`` (it has an entity
over exactly ``[s, e)``, so of another type), ``span`` (its entities over
the gold one cover ``[a, b)`` instead) or ``none`` (no entity there).  A
stretch a member puts inside an entity that no gold entity overlaps is a
``missing`` candidate: the gold may have left an entity out.

The variation counts are those of entity strings: how often the training
corpus (and the rest of the test gold) tags a string with each type, and
how often the string occurs there outside any entity.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from committee.metrics.checkgold import (Candidates, Check, Injected, adjust_prior,
                                         fill_shared, probabilities, rank, touches)

#: The readings of a missed gold entity, and the candidate of an entity the
#: gold may have left out.
KINDS = ("type", "span", "none", "missing")

#: Weights of :data:`committee.metrics.checkgold.FEATURES` (intercept first)
#: for entities: fitted on the embedded corpus's default entity committee
#: (``configs/default-ner.yaml``, K = 30) with
#: :data:`~committee.metrics.checkgold.FIT_RATE` of its test entities
#: injected with errors, seed 1000 (``benchmarks/bench_check_gold.py RUN --fit``).
WEIGHTS = np.array([-5.4481, 1.9184, 2.0830, 0.0, 1.6609, -1.9080, 0.9372, 0.4961, -1.2373,
                    -2.5090])
#: The share of candidates that were errors where :data:`WEIGHTS` were fitted.
FITTED_RATE = 0.0372

#: Kinds of injected entity errors and their shares: another type, or one
#: character more or less at one end.
ENTITY_ERRORS = (("type", 0.5), ("boundary", 0.5))


@dataclass(frozen=True)
class Entities:
    """Gold entities on the global character axis, in corpus order."""

    start: np.ndarray
    end: np.ndarray
    type: list

    @classmethod
    def from_units(cls, units: list, lengths) -> Entities:
        """From each sentence's ``(start, end, type)`` and the sentences' lengths.

        >>> e = Entities.from_units([[(0, 2, "PER")], [(1, 3, "LOC")]], [3, 4])
        >>> e.start.tolist(), e.end.tolist(), e.type
        ([0, 4], [2, 6], ['PER', 'LOC'])
        """
        offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
        start, end, types = [], [], []
        for off, sentence in zip(offsets.tolist(), units):
            for s, e, t in sentence:
                start.append(off + s)
                end.append(off + e)
                types.append(t)
        return cls(np.array(start, dtype=np.int64), np.array(end, dtype=np.int64), types)


def runs(inside: np.ndarray, sentence_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stretches of ``inside`` characters, cut at sentence starts.

    >>> s, e = runs(np.array([1, 1, 0, 1, 1], dtype=bool), np.array([0, 4]))
    >>> s.tolist(), e.tolist()
    ([0, 3, 4], [2, 4, 5])
    """
    begin = inside.copy()
    begin[1:] &= ~inside[:-1]
    begin[sentence_starts[sentence_starts < inside.size]] = inside[
        sentence_starts[sentence_starts < inside.size]]
    starts = np.flatnonzero(begin)
    last = inside.copy()
    last[:-1] &= ~inside[1:]
    cut = sentence_starts[(sentence_starts > 0) & (sentence_starts < inside.size)] - 1
    last[cut] = inside[cut]
    return starts, np.flatnonzero(last) + 1


def member_readings(gold: Entities, marks: np.ndarray, pred: np.ndarray,
                    sentence_starts: np.ndarray) -> tuple[Counter, Counter]:
    """How many members read each missed gold entity each way, keyed
    ``(entity, kind, a, b)`` (``a, b`` the span of a ``span`` reading, else
    the entity's), and how many put each ``(a, b)`` stretch no gold entity
    overlaps inside an entity (``missing``)."""
    readings: Counter = Counter()
    missing: Counter = Counter()
    for k, member in enumerate(pred):
        rs, re = runs(member, sentence_starts)
        for i in np.flatnonzero(~marks[k]).tolist():
            s, e = int(gold.start[i]), int(gold.end[i])
            lo, hi = np.searchsorted(re, s, side="right"), np.searchsorted(rs, e, side="left")
            if hi <= lo:
                readings[(i, "none", s, e)] += 1
            elif hi - lo == 1 and (rs[lo], re[lo]) == (s, e):
                readings[(i, "type", s, e)] += 1
            else:
                readings[(i, "span", int(rs[lo]), int(re[hi - 1]))] += 1
        lo = np.searchsorted(gold.end, rs, side="right")
        hi = np.searchsorted(gold.start, re, side="left")
        for a, b in zip(rs[hi <= lo].tolist(), re[hi <= lo].tolist()):
            missing[(a, b)] += 1
    return readings, missing


class EntityVariation:
    """How a corpus tags strings: per string, the count of each type, and
    the count of its occurrences outside any entity.

    >>> v = EntityVariation("江泽民在北京\\n北京好", Entities.from_units(
    ...     [[(0, 3, "PER"), (4, 6, "LOC")], [(0, 2, "ORG")]], [7, 3]), {"北京"})
    >>> sorted(v.types["北京"].items()), v.outside("北京")
    ([('LOC', 1), ('ORG', 1)], 0)
    """

    def __init__(self, text: str, gold: Entities, strings=None):
        self.types: dict = defaultdict(Counter)
        for s, e, t in zip(gold.start.tolist(), gold.end.tolist(), gold.type):
            piece = text[s:e]
            if strings is None or piece in strings:
                self.types[piece][t] += 1
        self._text = text
        self._occurrences: dict = {}

    def as_type(self, string: str, t: str | None) -> int:
        counts = self.types.get(string, {})
        return sum(counts.values()) if t is None else counts.get(t, 0)

    def outside(self, string: str) -> int:
        """Occurrences of ``string`` in the text that are not one of its entities."""
        if string not in self._occurrences:
            self._occurrences[string] = self._text.count(string)
        return max(self._occurrences[string] - self.as_type(string, None), 0)

    def other_type(self, string: str, t: str) -> str | None:
        """The type most often given to ``string`` other than ``t``."""
        counts = {k: v for k, v in self.types.get(string, {}).items() if k != t}
        return max(sorted(counts), key=lambda k: counts[k]) if counts else None


def entity_candidates(gold: Entities, marks: np.ndarray, pred: np.ndarray,
                      sentence_starts: np.ndarray) -> Candidates:
    """Every reading a member gives a gold entity it misses, and every
    stretch members put an entity over that the gold leaves out.  A
    candidate's span covers both the gold entity and the reading; its
    ``extra`` holds ``entity`` (-1 for ``missing``), ``kind``, ``a``, ``b``."""
    readings, missing = member_readings(gold, marks, pred, sentence_starts)
    k = len(pred)
    wrong = (~marks).sum(0)
    rows = []
    for (i, kind, a, b), n in sorted(readings.items()):
        s, e = int(gold.start[i]), int(gold.end[i])
        rows.append((min(s, a), max(e, b), i, kind, a, b, n, int(wrong[i])))
    for (a, b), n in sorted(missing.items()):
        put = int(sum(bool(member[a:b].any()) for member in pred))
        rows.append((a, b, -1, "missing", a, b, n, put))
    arr = list(zip(*rows)) if rows else [[]] * 8
    c = Candidates(np.array(arr[0], dtype=np.int64), np.array(arr[1], dtype=np.int64),
                   [()] * len(rows), [()] * len(rows), np.array(arr[6], dtype=np.int64),
                   np.array(arr[7], dtype=np.int64), k)
    c.extra.update(entity=np.array(arr[2], dtype=np.int64), kind=list(arr[3]),
                   a=np.array(arr[4], dtype=np.int64), b=np.array(arr[5], dtype=np.int64))
    return c


def features(c: Candidates, text: str, gold: Entities, train: EntityVariation,
             test: EntityVariation) -> np.ndarray:
    """The :data:`committee.metrics.checkgold.FEATURES` of entity candidates
    (see the module's docstring); ``extra`` gains ``gold`` and ``proposed``
    (the two readings, as text) and the four counts."""
    n = len(c)
    x = np.zeros((n, 9))
    counts = np.zeros((n, 4))
    gold_text, proposed = [], []
    for j in range(n):
        i, kind, a, b = int(c.extra["entity"][j]), c.extra["kind"][j], int(c.extra["a"][j]), \
            int(c.extra["b"][j])
        if kind == "missing":
            piece = text[a:b]
            t = train.other_type(piece, "") or test.other_type(piece, "")
            counts[j] = (train.as_type(piece, None), train.outside(piece),
                         test.as_type(piece, None), max(test.outside(piece) - 1, 0))
            gold_text.append("-")
            proposed.append(f"{piece}/{t or '?'}")
            x[j, 6], x[j, 7], x[j, 8] = 0, train.as_type(piece, None) == 0, -1
            continue
        s, e, t = int(gold.start[i]), int(gold.end[i]), gold.type[i]
        piece = text[s:e]
        gold_text.append(f"{piece}/{t}")
        x[j, 6] = train.as_type(piece, None) == 0
        if kind == "type":
            other = train.other_type(piece, t) or test.other_type(piece, t)
            counts[j] = (train.as_type(piece, other) if other else 0, train.as_type(piece, t),
                         test.as_type(piece, other) if other else 0,
                         max(test.as_type(piece, t) - 1, 0))
            proposed.append(f"{piece}/{other or 'another type'}")
            x[j, 7] = counts[j, 0] == 0
        elif kind == "none":
            counts[j] = (train.outside(piece), train.as_type(piece, t), test.outside(piece),
                         max(test.as_type(piece, t) - 1, 0))
            proposed.append("not an entity")
            x[j, 8] = 1
        else:
            alt = text[a:b]
            counts[j] = (train.as_type(alt, t), train.as_type(piece, t), test.as_type(alt, t),
                         max(test.as_type(piece, t) - 1, 0))
            proposed.append(f"{alt}/{t}")
            x[j, 7] = train.as_type(alt, None) == 0
    c.extra.update(gold=gold_text, proposed=proposed)
    return fill_shared(x, c, counts)


def entity_inputs(gold: Entities, lengths, text: str, marks: np.ndarray, pred: np.ndarray,
                  train_text: str, train_gold: Entities):
    """The candidates of a gold's entities and their features."""
    starts = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))[:-1]
    c = entity_candidates(gold, marks, pred, starts)
    strings = {text[s:e] for s, e in zip(gold.start.tolist(), gold.end.tolist())}
    strings |= {text[a:b] for a, b in zip(c.extra["a"].tolist(), c.extra["b"].tolist())}
    train = EntityVariation(train_text, train_gold, strings)
    test = EntityVariation(text, gold)
    return c, features(c, text, gold, train, test)


def check_entities(gold: Entities, lengths, text: str, marks: np.ndarray, pred: np.ndarray,
                   train_text: str, train_gold: Entities) -> Check:
    """Rank a gold's entities (and the stretches it leaves out) by how likely
    they are annotation errors (docs/method.md §15), with the model's
    weights fitted on injected entity errors (:data:`WEIGHTS`,
    :data:`FITTED_RATE`)."""
    c, x = entity_inputs(gold, lengths, text, marks, pred, train_text, train_gold)
    p = probabilities(WEIGHTS, x)
    order = rank(c.start, c.end, p)
    score, rate = adjust_prior(p[order], FITTED_RATE)
    return Check(c, x, p, order, score, rate)


# --------------------------------------------------------------------------
# injected errors


def inject_entities(units: list, lengths, rate: float, seed: int, types,
                    kinds=ENTITY_ERRORS) -> tuple[list, list[Injected], list]:
    """A copy of each sentence's entities ``units`` with errors in about
    ``rate`` of them: another type (one of ``types``), or one character
    more or less at one end (never into another entity, never out of the
    sentence, never below one character).  Errors never touch each other.
    Returns the new units, the errors (spans covering the old and new
    entity, global axis) and, per error, ``(sentence, index)`` of the entity.

    >>> new, errs, where = inject_entities([[(0, 3, "PER")]], [5], 1.0, 0, ["PER", "LOC"],
    ...                                    kinds=(("type", 1.0),))
    >>> new, [(e.kind, e.start, e.end) for e in errs], where
    ([[(0, 3, 'LOC')]], [('type', 0, 3)], [(0, 0)])
    """
    rng = np.random.default_rng(seed)
    sites = []
    for s, sentence in enumerate(units):
        for j, (a, b, t) in enumerate(sentence):
            left = sentence[j - 1][1] if j else 0
            right = sentence[j + 1][0] if j + 1 < len(sentence) else lengths[s]
            sites.append((s, j, "type", None))
            for na, nb in ((a - 1, b), (a, b + 1), (a + 1, b), (a, b - 1)):
                if left <= na < nb <= right and (na, nb) != (a, b) and nb - na >= 1:
                    sites.append((s, j, "boundary", (na, nb)))
    target = int(round(rate * sum(map(len, units))))
    order = rng.permutation(len(sites))
    names = [n for n, _ in kinds]
    shares = np.array([sh for _, sh in kinds], dtype=np.float64)
    by_kind = {n: [sites[i] for i in order if sites[i][2] == n] for n in names}
    pos = dict.fromkeys(names, 0)
    used: set = set()
    chosen = []
    while len(chosen) < target and any(pos[n] < len(by_kind[n]) for n in names):
        live = np.array([pos[n] < len(by_kind[n]) for n in names])
        name = names[int(rng.choice(len(names), p=shares * live / (shares * live).sum()))]
        s, j, kind, span = by_kind[name][pos[name]]
        pos[name] += 1
        if {(s, j - 1), (s, j), (s, j + 1)} & used:
            continue
        used.add((s, j))
        if kind == "type":
            others = [t for t in types if t != units[s][j][2]]
            if not others:
                continue
            span = others[int(rng.integers(len(others)))]
        chosen.append((s, j, kind, span))
    out = [list(sentence) for sentence in units]
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
    errors, where = [], []
    for s, j, kind, change in sorted(chosen):
        a, b, t = out[s][j]
        out[s][j] = (a, b, change) if kind == "type" else (change[0], change[1], t)
        lo, hi = min(a, out[s][j][0]), max(b, out[s][j][1])
        errors.append(Injected(kind, int(offsets[s]) + lo, int(offsets[s]) + hi))
        where.append((s, j))
    return out, errors, where


def corrupted_marks(marks: np.ndarray, pred: np.ndarray, units: list, lengths, where: list,
                    errors: list[Injected]) -> np.ndarray:
    """The members' marks on a gold with injected errors (``units``, the
    changed entities at ``where``, :func:`inject_entities`), from what a run
    records: where each member put entities, not their types.  A member is
    right on a moved entity when it has an entity over exactly the new span
    (its type taken to be the gold's), and on a retyped one when it has an
    entity over exactly that span that was not right before (its type taken
    to be the new one); every other mark is kept."""
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
    first = np.concatenate(([0], np.cumsum([len(s) for s in units])))
    out = marks.copy()
    exact = []
    for member in pred:
        rs, re = runs(member, offsets[:-1])
        exact.append(set(zip(rs.tolist(), re.tolist())))
    for (s, j), err in zip(where, errors):
        a, b, _ = units[s][j]
        span = (int(offsets[s]) + a, int(offsets[s]) + b)
        i = int(first[s]) + j
        for k in range(len(pred)):
            has = span in exact[k]
            out[k, i] = has and (err.kind != "type" or not marks[k, i])
    return out


def restores(c: Candidates, original: Entities, errors: list[Injected],
             text: str) -> np.ndarray:
    """For each candidate, whether it overlaps an injected error and proposes
    what the injection replaced: the original entity's type (``type``) or
    span (``span``)."""
    hit = touches(c.start, c.end, errors)
    orig = {(int(s), int(e)): t for s, e, t in zip(original.start, original.end, original.type)}
    out = np.zeros(len(c), dtype=bool)
    for j in np.flatnonzero(hit).tolist():
        kind, a, b = c.extra["kind"][j], int(c.extra["a"][j]), int(c.extra["b"][j])
        if kind == "type":
            proposed = c.extra["proposed"][j].rsplit("/", 1)[-1]
            out[j] = (a, b) in orig and orig[(a, b)] == proposed or (
                (a, b) in orig and proposed == "another type")
        elif kind == "span":
            out[j] = (a, b) in orig
        elif kind == "missing":
            out[j] = (a, b) in orig
        else:
            out[j] = False
    return out
