"""The four matching schemes of SemEval-2013 Task 9.1 for labelled spans,
and their difficulty-weighted forms (docs/metrics.md, Matching schemes;
docs/method.md §13).

A predicted entity is paired with at most one gold entity, and each pair,
each predicted entity left alone and each gold entity left alone falls in
one of five categories:

``correct`` (COR), ``incorrect`` (INC), ``partial`` (PAR)
    a predicted entity paired with a gold entity;
``spurious`` (SPU)
    a predicted entity paired with none;
``missed`` (MIS)
    a gold entity paired with none.

The schemes differ in what pairs and in which category:

``strict``
    COR: same span and same type; INC: another overlap.
``exact``
    COR: same span (any type); INC: another overlap.
``partial``
    COR: same span (any type); PAR: another overlap.
``type``
    COR: an overlap with the same type (the closest boundaries win among
    several); INC: an overlap with another type.

POS = COR + INC + PAR + MIS (the gold entities), ACT = COR + INC + PAR +
SPU (the predicted entities), P = (COR + 0.5 PAR) / ACT, R = (COR + 0.5
PAR) / POS and F1 = H(P, R); only ``partial`` has PAR > 0.  The pairing is
nervaluate's (1.2), greedy: the predicted entities in corpus order, each
taking the first gold entity of its sentence not yet taken that qualifies
(``type``: the qualifying one of its type with the least sum of the start
and end distances).  An overlap qualifies when it covers at least
``min_overlap`` percent of the gold entity's characters (nervaluate's
``min_overlap_percentage``; 1, the default, admits any overlap).  Per
type, the scheme is applied to that type's gold and predicted entities
alone, as nervaluate does.  Where nervaluate writes 0 for a zero
denominator, these scores are undefined (None), as every metric of the
package.

**Weighted forms.**  Gold entity i earns a credit c_i: 1 when its pair is
COR, 0.5 when PAR, 0 otherwise.  With d_i its difficulty and d'_j the
weight of predicted entity j (the per-character weight of its last
character, as :mod:`committee.metrics.labelled`), §5 of docs/method.md
holds with c_i for m_i::

    r_reward = Σ d_i c_i / Σ d_i          r_punishment = Σ (1-d_i) c_i / Σ (1-d_i)
    p_reward = Σ d_i c_i / Σ d'_j         p_punishment = Σ (1-d_i) c_i / Σ (1-d'_j)
    pb = H(p_reward, p_punishment), rb = H(r_reward, r_punishment), fb = H(pb, rb)

Under ``strict``, c_i is m_i: these are the scorer's pb, rb and fb.  When
every entity and character weighs one d in (0, 1), they are P, R and F1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from committee.metrics.records import UNDEFINED, metric_arrays, pct
from committee.metrics.stats import SufficientStats
from committee.metrics.totals import totals
from committee.tasks.spans import Spans

#: The schemes, in the order they are reported.
SCHEMES = ("strict", "exact", "partial", "type")

#: The five categories, in code order.
CATEGORIES = ("correct", "incorrect", "partial", "missed", "spurious")
COR, INC, PAR, MIS, SPU = range(len(CATEGORIES))

#: A gold entity's credit by the category of its pair.
CREDIT = np.array([1.0, 0.0, 0.5, 0.0, 0.0])

#: The scores of a scheme, unweighted then weighted.
SCORES = ("p", "r", "f1")
WEIGHTED = ("pb", "rb", "fb", "p_reward", "p_punishment", "r_reward", "r_punishment")

#: The column headings of a scheme's counts.
SHORT = ("COR", "INC", "PAR", "MIS", "SPU")


def check_min_overlap(value, where: str = "min_overlap") -> float:
    """``value`` as a percentage of a gold entity's characters, from 1 to 100.

    >>> check_min_overlap(50)
    50.0
    >>> check_min_overlap(0)
    Traceback (most recent call last):
    ...
    ValueError: min_overlap must be a number from 1 to 100 (percent of a gold entity's characters), got 0
    """
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not 1.0 <= float(value) <= 100.0:
        raise ValueError(f"{where} must be a number from 1 to 100 (percent of a gold "
                         f"entity's characters), got {value!r}")
    return float(value)


def _enough(ps: int, pe: int, ts: int, te: int, min_overlap: float) -> bool:
    """Does predicted ``[ps, pe)`` cover ``min_overlap`` percent of gold
    ``[ts, te)``?  nervaluate's arithmetic (overlap / gold length × 100)."""
    if ps >= te or pe <= ts:
        return False
    return (min(pe, te) - max(ps, ts)) / (te - ts) * 100.0 >= min_overlap


def _strict(p, golds, min_overlap, same_type=True):
    """The category of predicted ``p`` (start, end, label) against the
    candidate ``golds`` (index, start, end, label), and its gold pair."""
    ps, pe, pl = p
    other = -1
    for t, ts, te, tl in golds:
        if ts == ps and te == pe and (tl == pl or not same_type):
            return COR, t
        if other < 0 and _enough(ps, pe, ts, te, min_overlap):
            other = t
    return (INC, other) if other >= 0 else (SPU, -1)


def _exact(p, golds, min_overlap):
    return _strict(p, golds, min_overlap, same_type=False)


def _partial(p, golds, min_overlap):
    ps, pe, _ = p
    other = -1
    for t, ts, te, _ in golds:
        if _enough(ps, pe, ts, te, min_overlap):
            if ts == ps and te == pe:
                return COR, t
            if other < 0:
                other = t
    return (PAR, other) if other >= 0 else (SPU, -1)


def _type(p, golds, min_overlap):
    ps, pe, pl = p
    best, best_distance, other = -1, None, -1
    for t, ts, te, tl in golds:
        if not _enough(ps, pe, ts, te, min_overlap):
            continue
        if tl == pl:
            distance = abs(ps - ts) + abs(pe - te)
            if best_distance is None or distance < best_distance:
                best, best_distance = t, distance
        elif other < 0:
            other = t
    if best >= 0:
        return COR, best
    return (INC, other) if other >= 0 else (SPU, -1)


_RULES = {"strict": _strict, "exact": _exact, "partial": _partial, "type": _type}


def check_scheme(scheme: str) -> str:
    if scheme not in _RULES:
        raise ValueError(f"unknown matching scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
    return scheme


def pair(gold: Spans, pred: Spans, scheme: str, min_overlap: float = 1.0
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairing of ``scheme`` (nervaluate's, greedy in corpus order).

    Both sides are labelled spans over one label set, in corpus order
    (sentence, then start).

    Returns
    -------
    pred_category : ndarray of int8, shape (N_pred,)
        COR, INC, PAR or SPU.
    partner : ndarray of int64, shape (N_pred,)
        The gold entity each predicted entity is paired with, -1 for none.
    gold_category : ndarray of int8, shape (N_gold,)
        The category of the pair each gold entity is in; MIS when none.

    >>> from committee.tasks.spans import labelled
    >>> g = labelled([9], [[(0, 3, "PER"), (4, 6, "LOC")]], ["LOC", "PER"])
    >>> p = labelled([9], [[(0, 2, "PER"), (4, 6, "PER"), (7, 9, "LOC")]], ["LOC", "PER"])
    >>> [CATEGORIES[c] for c in pair(g, p, "partial")[0]]
    ['partial', 'correct', 'spurious']
    >>> [CATEGORIES[c] for c in pair(g, p, "strict")[2]]
    ['incorrect', 'incorrect']
    """
    decide = _RULES[check_scheme(scheme)]
    if gold.label_names != pred.label_names:
        raise ValueError("labelled spans are paired over one label set")
    n_gold, S = len(gold.starts), gold.n_sentences
    first = np.searchsorted(gold.sentence, np.arange(S + 1)).tolist()
    g = list(zip(range(n_gold), gold.starts.tolist(), gold.ends.tolist(), _labels(gold)))
    taken = [False] * n_gold
    category = np.full(len(pred.starts), SPU, dtype=np.int8)
    partner = np.full(len(pred.starts), -1, dtype=np.int64)
    for j, (s, p) in enumerate(zip(pred.sentence.tolist(),
                                   zip(pred.starts.tolist(), pred.ends.tolist(), _labels(pred)))):
        golds = [u for u in g[first[s]:first[s + 1]] if not taken[u[0]]]
        c, t = decide(p, golds, min_overlap)
        category[j] = c
        if t >= 0:
            partner[j], taken[t] = t, True
    gold_category = np.full(n_gold, MIS, dtype=np.int8)
    paired = partner >= 0
    gold_category[partner[paired]] = category[paired]
    return category, partner, gold_category


def _labels(s: Spans) -> list[int]:
    return [0] * len(s.starts) if s.labels is None else s.labels.tolist()


@dataclass(frozen=True)
class SchemeScores:
    """One scheme's five counts and its scores, over every type or one.

    ``possible`` is POS (the gold entities), ``actual`` ACT (the predicted
    ones); ``scores`` holds p, r, f1 and, with difficulties, pb, rb, fb and
    their four components (None when undefined or without difficulties).
    """

    counts: dict
    scores: dict

    @property
    def possible(self) -> int:
        c = self.counts
        return c["correct"] + c["incorrect"] + c["partial"] + c["missed"]

    @property
    def actual(self) -> int:
        c = self.counts
        return c["correct"] + c["incorrect"] + c["partial"] + c["spurious"]

    def __getattr__(self, key: str):
        if key in ("counts", "scores"):
            raise AttributeError(key)
        if key in self.counts:
            return self.counts[key]
        if key in self.scores:
            return self.scores[key]
        raise AttributeError(f"SchemeScores has no {key!r}")

    def to_dict(self) -> dict:
        return {**self.counts, "possible": self.possible, "actual": self.actual, **self.scores}


def scheme_scores(gold: Spans, pred: Spans, scheme: str, min_overlap: float = 1.0,
                  difficulty=None, pred_weights=None) -> SchemeScores:
    """:class:`SchemeScores` of ``scheme`` over the given spans.

    ``difficulty``: d of every gold span; ``pred_weights``: d' of every
    predicted span (both or neither).

    >>> from committee.tasks.spans import labelled
    >>> g = labelled([9], [[(0, 3, "PER"), (4, 6, "LOC")]], ["LOC", "PER"])
    >>> p = labelled([9], [[(0, 2, "PER"), (4, 6, "PER"), (7, 9, "LOC")]], ["LOC", "PER"])
    >>> s = scheme_scores(g, p, "partial")
    >>> s.counts, round(s.p, 4), s.r
    ({'correct': 1, 'incorrect': 0, 'partial': 1, 'missed': 0, 'spurious': 1}, 0.5, 0.75)
    """
    category, _, gold_category = pair(gold, pred, scheme, min_overlap)
    n = np.bincount(category, minlength=len(CATEGORIES)) + np.bincount(
        gold_category[gold_category == MIS], minlength=len(CATEGORIES))
    counts = {name: int(c) for name, c in zip(CATEGORIES, n)}
    return SchemeScores(counts, _scores(gold, pred, CREDIT[gold_category], difficulty,
                                        pred_weights))


def _scores(gold: Spans, pred: Spans, credit: np.ndarray, difficulty, pred_weights) -> dict:
    """P, R, F1 (and the weighted forms) of the gold credits: the package's
    formulas (:mod:`committee.metrics.records`) on per-sentence sums added
    up as the scorer adds them, so that strict matching gives its pb, rb, fb
    to the last bit."""
    S = gold.n_sentences
    fields = {"n_gold": np.bincount(gold.sentence, minlength=S),
              "n_pred": np.bincount(pred.sentence, minlength=S),
              "n_correct": np.bincount(gold.sentence, credit, minlength=S)}
    keys = SCORES
    if difficulty is not None:
        d = np.asarray(difficulty, dtype=np.float64)
        fields["gold_d"] = np.bincount(gold.sentence, d, minlength=S)
        fields["correct_d"] = np.bincount(gold.sentence, d * credit, minlength=S)
        fields["pred_d"] = np.bincount(pred.sentence, np.asarray(pred_weights, dtype=np.float64),
                                       minlength=S)
        keys = SCORES + WEIGHTED
    values = metric_arrays(totals(SufficientStats(**fields)), keys)
    out = {k: _plain(values[k]) for k in keys}
    if difficulty is None:
        out.update(dict.fromkeys(WEIGHTED))
    return out


def _plain(x) -> float | None:
    x = float(x)
    return None if x != x else x


def subset(s: Spans, keep: np.ndarray) -> Spans:
    """The spans of ``s`` where ``keep`` is true (the same label set)."""
    return Spans(s.starts[keep], s.ends[keep], s.sentence[keep], s.sentence_offsets,
                 None if s.labels is None else s.labels[keep], s.label_names)


@dataclass(frozen=True)
class SchemeResults:
    """The four schemes of one output: ``overall[scheme]`` and
    ``by_type[scheme][type]``, each a :class:`SchemeScores`, and the
    ``min_overlap`` they were counted with."""

    overall: dict
    by_type: dict
    min_overlap: float
    weighted: bool

    def __getitem__(self, scheme: str) -> SchemeScores:
        return self.overall[scheme]

    def to_dict(self) -> dict:
        """What ``committee score --schemes --json`` gives each system under
        ``"schemes"``."""
        out: dict = {"min_overlap": self.min_overlap}
        for scheme in SCHEMES:
            out[scheme] = {"overall": self.overall[scheme].to_dict(),
                           "by_type": {t: s.to_dict() for t, s in self.by_type[scheme].items()}}
        return out

    def text(self, markdown: bool = False) -> str:
        """A table: one row per scheme, then per scheme and type; the five
        counts, POS, ACT and the scores as percentages."""
        keys = SCORES + (("pb", "rb", "fb") if self.weighted else ())
        head = ["scheme", "type", *SHORT, "POS", "ACT", *keys]
        rows = []
        for scheme in SCHEMES:
            parts = [("all", self.overall[scheme])] + sorted(self.by_type[scheme].items())
            for label, s in parts:
                rows.append([scheme, label, *(str(s.counts[c]) for c in CATEGORIES),
                             str(s.possible), str(s.actual), *(pct(s.scores[k]) for k in keys)])
        note = (f"matching schemes (SemEval-2013 Task 9.1); overlaps of at least "
                f"{self.min_overlap:g}% of a gold entity count; {UNDEFINED}: undefined")
        return format_rows(head, rows, markdown, left=2) + "\n" + note


def evaluate(gold: Spans, pred: Spans, difficulty=None, pred_weights=None, *,
             min_overlap: float = 1.0) -> SchemeResults:
    """The four schemes, overall and per type, of predicted spans against
    gold spans (one label set, corpus order), weighted too when
    ``difficulty`` (d of every gold span) and ``pred_weights`` (d' of every
    predicted span) are given.

    >>> from committee.tasks.spans import labelled
    >>> g = labelled([9], [[(0, 3, "PER"), (4, 6, "LOC")]], ["LOC", "PER"])
    >>> p = labelled([9], [[(0, 3, "PER"), (4, 6, "PER")]], ["LOC", "PER"])
    >>> r = evaluate(g, p)
    >>> [r[s].correct for s in SCHEMES], r.by_type["strict"]["LOC"].counts["missed"]
    ([1, 2, 2, 1], 1)
    """
    min_overlap = check_min_overlap(min_overlap)
    if (difficulty is None) != (pred_weights is None):
        raise ValueError("give both difficulty and pred_weights, or neither")
    if difficulty is not None:
        difficulty = np.asarray(difficulty, dtype=np.float64)
        pred_weights = np.asarray(pred_weights, dtype=np.float64)
        if difficulty.shape != gold.starts.shape or pred_weights.shape != pred.starts.shape:
            raise ValueError(f"difficulty has shape {difficulty.shape} and pred_weights "
                             f"{pred_weights.shape}; the spans are {len(gold.starts)} gold, "
                             f"{len(pred.starts)} predicted")
    overall, by_type = {}, {}
    used = sorted(set(_labels(gold)) | set(_labels(pred)))
    for scheme in SCHEMES:
        overall[scheme] = scheme_scores(gold, pred, scheme, min_overlap, difficulty,
                                        pred_weights)
        by_type[scheme] = {}
        for code in used:
            g, p = _labels_of(gold, code), _labels_of(pred, code)
            by_type[scheme][gold.label_names[code]] = scheme_scores(
                subset(gold, g), subset(pred, p), scheme, min_overlap,
                None if difficulty is None else difficulty[g],
                None if pred_weights is None else pred_weights[p])
    return SchemeResults(overall, by_type, min_overlap, difficulty is not None)


def _labels_of(s: Spans, code: int) -> np.ndarray:
    return np.asarray(_labels(s), dtype=np.int64) == code


def format_rows(head: list[str], rows: list[list[str]], markdown: bool = False,
                left: int = 1) -> str:
    """A table of strings: aligned columns (the first ``left`` to the left,
    the others to the right), or Markdown.

    >>> print(format_rows(["a", "n"], [["x", "1"], ["yy", "10"]]))
    a    n
    x    1
    yy  10
    >>> print(format_rows(["a", "n"], [["x|y", "1"]], markdown=True))
    | a | n |
    |---|---:|
    | x\\|y | 1 |
    """
    if markdown:
        cells = [[c.replace("|", "\\|") for c in r] for r in rows]
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "---|" * left + "---:|" * (len(head) - left)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])
    width = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(r):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(r, width))).rstrip()
    return "\n".join(line(r) for r in [head, *rows])


def score_output(scorer, output, *, min_overlap: float = 1.0) -> SchemeResults:
    """:func:`evaluate` of an entity output against the gold of ``scorer``
    (a :class:`committee.Scorer` of ``task="ner"``; with its difficulties,
    the weighted forms too): ``committee.schemes``.

    >>> import committee
    >>> from committee.corpus import Corpus
    >>> gold = Corpus("g", [list("江泽民在北京")], [1], tags=[["B-PER", "I-PER", "I-PER", "O",
    ...                                                      "B-LOC", "I-LOC"]])
    >>> out = Corpus("o", [list("江泽民在北京")], [1], tags=[["B-PER", "I-PER", "O", "O",
    ...                                                     "B-LOC", "I-LOC"]])
    >>> r = score_output(committee.Scorer(gold, task="ner"), out)
    >>> r["strict"].f1, r["partial"].f1, r["type"].f1
    (0.5, 0.75, 1.0)
    """
    g, p, d, weights = labelled_units(scorer, output, entities=True, api="schemes")
    return evaluate(g, p, d, weights, min_overlap=min_overlap)


def labelled_units(scorer, output, *, entities: bool = False, api: str = "labelled_units"):
    """The gold's and an output's units as spans over one label set, read
    and checked as ``scorer`` (a :class:`committee.Scorer`) reads them, with
    the gold's d and the output's d' (None without difficulties).

    ``entities``: only of a task of entity tags (else of any labelled
    units: entities, tagged words).  d' of a predicted entity is the
    per-character weight of its last character (docs/method.md §13).
    """
    from committee import tasks
    from committee.corpus.entities import detect_scheme
    from committee.errors import InputError
    from committee.metrics.align import check_aligned

    task = tasks.get(scorer.task)
    if not (task.tagged if entities else task.labels_field):
        raise ValueError(f"{api}: for {'entities' if entities else 'labelled units'}, not the "
                         f"{task.units} of task {scorer.task!r}")
    pred = scorer.read(output)
    if task.tagged and pred.tags is None:
        raise InputError(pred.path, None, "has no entity tags: task ner reads bio files (a "
                                          "token and its tag a line)")
    check_aligned(scorer.gold, pred)
    mode, scheme = getattr(scorer, "mode", "default"), getattr(scorer, "scheme", None)
    if mode == "strict" and scheme is None:  # outputs are read by the gold's scheme
        scheme = detect_scheme(scorer.gold.tags)
    lengths = [sum(map(len, s)) for s in scorer.gold.words]
    g, p, _, _ = tasks.match(task, lengths, task.gold(scorer.gold, mode, scheme),
                             task.gold(pred, mode, scheme))
    d = scorer.difficulty
    if d is None or not task.tagged:
        return g, p, d, None if d is None else _word_weights(g, d)[p.ends - 1]
    return g, p, d, np.asarray(scorer.char_difficulty)[p.ends - 1]


def _word_weights(g: Spans, d) -> np.ndarray:
    """Per character, the d of the gold word holding it (gold words tile the text)."""
    return np.repeat(np.asarray(d, dtype=np.float64), g.ends - g.starts)
