"""Adaptive testing: a system's full-test scores estimated from a few
sentences, drawn in batches until the estimate is precise enough
(``committee score --adaptive``, :func:`adaptive_score`; docs/method.md §16).

A :class:`Bank` holds the test set as the estimator needs it: the gold,
each gold unit's difficulty (a word's, an entity's or a tagged word's,
by the task), its 2PL items (a, b) from the run's ``items.tsv`` (fitted
on demand as ``committee irt`` does,
:func:`committee.scoring.adaptive_run.load_bank`), each sentence's known
totals and the gold side's collector, which the task's unit kind restricts
to the drawn sentences to count a system's units on them (:func:`observe`).  :func:`administer` runs one system:
every batch draws ``batch`` sentences with replacement from those not yet
administered, with probabilities proportional to the spread of each
sentence's contribution to the target metric (:data:`DESIGNS`) plus a
uniform floor (:func:`committee.metrics.estimators.selection_probabilities`); only the
newly drawn sentences are asked of the system (:mod:`committee.scoring.adaptive_sources`);
θ is re-estimated (EAP, items fixed) from every administered word; the
model-assisted estimate of the totals and its interval follow
(:mod:`committee.metrics.estimators`).  It stops when the 95% interval of
the target metric is narrower than ``target`` points, or at
``max_sentences``.  Every draw is recorded (:class:`Draw`), so a run can be
audited and replayed: the same seed gives the same draws.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from committee import metrics
from committee.errors import InputError
from committee.metrics import estimators, irtem, itemresponse
from committee import tasks as tasks_mod

#: Sentences drawn per batch (``--batch``).
BATCH = 10
#: Width of the target metric's 95% interval, in points, that stops the test (``--target``).
TARGET = 1.0
#: Share of the selection probability spread uniformly over the pool (the floor).
FLOOR = 0.2
#: Draws needed before the width may stop the test: the variance estimate
#: of fewer draws is too noisy to stop on.
MIN_DRAWS = 30
#: Default seed of the draws (``--seed``).
SEED = 12345
#: How the draw probabilities are sized (:attr:`Settings.design`, docs/method.md
#: §16): ``variance``, proportional to sqrt(Σ w_i²) over a sentence's words,
#: w_i how much word i's being right moves the target metric (Neyman-like:
#: the spread of the sentence's contribution); ``information``, proportional
#: to its Fisher information at the current θ (the first design).
DESIGNS = ("variance", "information")
#: What each sentence's counts are predicted from (:attr:`Settings.predictor`):
#: ``model``, the 2PL's predictions calibrated on the administered sentences;
#: ``ratio``, its gold totals times the administered sentences' ratios.
PREDICTORS = ("model", "ratio", "lengths")
#: The quantile of the 95% intervals: Student's t or the normal's.
QUANTILES = ("t", "normal")


@dataclass(frozen=True)
class Settings:
    """How :func:`administer` draws and when it stops (docs/method.md §16)."""

    batch: int = BATCH
    target: float = TARGET
    metric: str = "fb"
    max_sentences: int | None = None
    seed: int = SEED
    floor: float = FLOOR
    min_draws: int = MIN_DRAWS
    design: str = DESIGNS[0]
    predictor: str = PREDICTORS[0]
    #: The calibration's fit weighted by the inverse draw probabilities
    #: (False: unweighted, as the first design fitted it).
    weighted: bool = True
    #: The interval's quantile: Student's t with (draws − 1) degrees of
    #: freedom, or the normal's 1.96 (``normal``, as the first design).
    quantile: str = QUANTILES[0]

    def check(self, api: str = "adaptive_score") -> None:
        """Refuse settings out of range, naming the argument."""
        if self.metric not in estimators.METRICS:
            raise ValueError(f"{api}: metric must be one of {', '.join(estimators.METRICS)}, "
                             f"got {self.metric!r}")
        if not self.target > 0:
            raise ValueError(f"{api}: target must be > 0 points (the width of the 95% "
                             f"interval that stops the test), got {self.target:g}")
        if self.batch < 2:
            raise ValueError(f"{api}: batch must be at least 2 sentences, got {self.batch}")
        if self.max_sentences is not None and self.max_sentences < 1:
            raise ValueError(f"{api}: max_sentences must be at least 1, got {self.max_sentences}")
        if not 0 < self.floor <= 1:
            raise ValueError(f"{api}: floor must be in (0, 1], got {self.floor:g}")
        for name, value, allowed in (("design", self.design, DESIGNS),
                                     ("predictor", self.predictor, PREDICTORS),
                                     ("quantile", self.quantile, QUANTILES)):
            if value not in allowed:
                raise ValueError(f"{api}: {name} must be one of {', '.join(allowed)}, "
                                 f"got {value!r}")


@dataclass(frozen=True)
class Bank:
    """A test set ready for adaptive testing: ``gold`` (a Corpus, as its
    ``task`` scores it), per gold unit (a word, an entity, a tagged word;
    corpus order) its ``d``, its items ``a``/``b`` and its
    ``unit_sentence``; per sentence ``gold_rows`` (``n_gold``, ``gold_d``);
    ``known``: their corpus totals, summed as the scorer sums them."""

    gold: object
    d: np.ndarray
    a: np.ndarray
    b: np.ndarray
    unit_sentence: np.ndarray
    gold_rows: np.ndarray
    known: dict
    #: Per sentence: its gold words by length class and their difficulties
    #: (:func:`committee.metrics.estimators.length_classes`).
    classes: np.ndarray | None = None
    #: The task whose units are scored (:mod:`committee.tasks`).
    task: object = tasks_mod.SEGMENTATION
    #: The gold side's collector (its unit kind's,
    #: :meth:`committee.tasks.units.UnitKind.collector`), restricted to the
    #: drawn sentences by :func:`observe`.
    collector: object = None

    @property
    def n_sentences(self) -> int:
        return int(self.gold_rows.shape[0])


def make_bank(gold, d, a, b, *, task=tasks_mod.SEGMENTATION, collector=None) -> Bank:
    """A :class:`Bank` from a gold Corpus, its units' difficulties and
    items; ``collector``: the gold side's (a scorer's, which entities need
    for their per-character weights), made of ``gold`` and ``d`` by the
    task's unit kind when not given."""
    d = np.asarray(d, np.float64)
    if collector is None:
        collector = task.unit_kind.collector(task, gold, d)
    g = collector.spans
    s = len(gold.words)
    stats = metrics.SufficientStats(
        n_gold=np.bincount(g.sentence, minlength=s), n_pred=np.zeros(s, np.int64),
        n_correct=np.zeros(s, np.int64), gold_d=np.bincount(g.sentence, weights=d, minlength=s))
    tot = metrics.totals(stats)
    return Bank(gold, d, np.asarray(a, np.float64), np.asarray(b, np.float64), g.sentence,
                np.column_stack((stats.n_gold, stats.gold_d)).astype(np.float64),
                {"n_gold": tot["n_gold"], "gold_d": tot["gold_d"]},
                estimators.length_classes(g.ends - g.starts, d, g.sentence, s), task, collector)


@dataclass(frozen=True)
class Draw:
    """One draw of a sentence: its ``batch`` (from 1), ``sentence`` (index
    from 0), ``probability`` q of being drawn at that draw, ``inclusion``
    1 − (1 − q)^n of being in the batch of n draws, ``new`` (first time
    administered), the batch's ``theta`` and the sentence's ``observed``
    and ``predicted`` counts (rows of :data:`committee.metrics.estimators.ESTIMATED`)."""

    batch: int
    sentence: int
    probability: float
    inclusion: float
    new: bool
    theta: float
    observed: tuple
    predicted: tuple


@dataclass
class _State:
    """What the administration knows so far."""

    bank: Bank
    rows: np.ndarray  # sentences × 4: observed counts (NaN: not administered)
    outcomes: np.ndarray  # per gold word: right (only administered words count)
    done: np.ndarray  # per sentence: administered
    batch_of: np.ndarray  # per sentence: the batch that administered it (0: none yet)
    settings: Settings = Settings()
    draws: list = field(default_factory=list)
    theta: float = 0.0
    theta_se: float = 1.0
    #: Σ log(1 − P_i) over the administered words at ``irtem.COARSE``, and
    #: Σ a_i over those right: θ's posterior (:func:`_update_theta`).
    log1mp: np.ndarray = field(default_factory=lambda: np.zeros(irtem.COARSE.shape[0]))
    a_right: float = 0.0
    weight: np.ndarray | None = None  # per sentence: Σ 1 / q over its draws
    #: per administered sentence: the system's tokens and their labels (None
    #: for a task of words alone), as its source gave them
    answers: dict = field(default_factory=dict)
    cache: tuple = ()  # ((θ, sentences used), :func:`_predictions`' result)

    @property
    def used(self) -> int:
        return int(self.done.sum())


def observe(bank: Bank, chosen: np.ndarray, pred) -> tuple[np.ndarray, np.ndarray]:
    """The counts of the ``chosen`` sentences (rows of
    :data:`committee.metrics.estimators.ESTIMATED`) given the system's
    output of them, ``pred`` (a Corpus of those sentences, in order, or
    their word lists), and the outcome of each of their gold words (corpus
    order), matched as the scorer matches them: against the gold side of
    those sentences alone (:meth:`committee.tasks.units.UnitKind.sentences_collector`);
    ``chosen`` in increasing order."""
    from committee.corpus import Corpus

    if not isinstance(pred, Corpus):
        pred = Corpus("<adaptive>", list(pred), [bank.gold.lines[i] for i in chosen])
    kind = bank.task.unit_kind
    st, ok = kind.scored(kind.sentences_collector(bank.task, bank.collector, chosen), pred)
    rows = np.column_stack((st.n_correct, st.correct_d, st.n_pred, st.pred_d)).astype(np.float64)
    return rows, ok


def checked(bank: Bank, chosen: np.ndarray, pred, wheres):
    """The system's output of the ``chosen`` sentences (a Corpus of them) as
    its task scores it (:meth:`committee.tasks.Task.prepare`), refused as
    the scorer refuses an output that cannot hold its units (entity tags
    where words are scored, an entity output without tags), and each
    sentence refused unless it has its gold characters (:func:`check_words`)."""
    from committee.scoring.goldside import no_entity_tags

    task = bank.task
    pred = task.prepare(pred)
    if not task.tagged:
        no_entity_tags(pred)
    task.unit_kind.check_output(pred)
    for k, (i, where) in enumerate(zip(np.asarray(chosen).tolist(), wheres)):
        check_words(bank, i, pred.words[k], where)
    return pred


def check_words(bank: Bank, i: int, words: list, where: tuple[str, int | None]) -> None:
    """Refuse the system's ``words`` for sentence ``i`` unless they have its
    gold characters; ``where``: the output's file and line (None: no line)."""
    text, expected = "".join(words), bank.gold.text(i)
    if text == expected:
        return
    k = next((k for k, (x, y) in enumerate(zip(text, expected)) if x != y),
             min(len(text), len(expected)))
    raise InputError(where[0], where[1],
                     f"characters differ from {bank.gold.path}:{bank.gold.lines[i]} at "
                     f"character {k + 1}: {metrics.first_difference(text, expected, k, 'the output')}"
                     " (the sentence drawn by --adaptive)")


def units_of(bank: Bank, sentences: np.ndarray) -> np.ndarray:
    """The gold words (corpus order) of ``sentences`` (increasing)."""
    lo = np.searchsorted(bank.unit_sentence, sentences, "left")
    hi = np.searchsorted(bank.unit_sentence, sentences, "right")
    return np.concatenate([np.arange(x, y) for x, y in zip(lo, hi)] + [np.zeros(0, np.int64)])


def _predictions(state: _State) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's predicted counts at the current θ, calibrated on the
    sentences administered (:func:`committee.metrics.estimators.calibrate`;
    by the ratio to the gold totals alone with the ``ratio`` predictor),
    and its Fisher information, Σ a² P (1 − P) over its words."""
    key = (state.theta, state.used)
    if state.cache and state.cache[0] == key:
        return state.cache[1]
    bank = state.bank
    p = itemresponse.probability([state.theta], bank.a, bank.b)[0]
    info = estimators.sentence_sums(bank.a ** 2 * p * (1 - p), bank.unit_sentence,
                                    bank.n_sentences)
    seen = state.done
    kappa = estimators.ratios(state.rows[seen], bank.gold_rows[seen])
    model = estimators.predict(p, bank.d, bank.unit_sentence, bank.gold_rows, kappa)
    idx = np.flatnonzero(seen)
    weights = state.weight[idx] if state.settings.weighted else None
    if state.settings.predictor == "lengths" and idx.size >= estimators.MIN_LENGTHS:
        fitted = estimators.calibrate_lengths(bank.classes, idx, state.rows[idx],
                                              state.weight[idx])
    else:
        fitted = estimators.calibrate(model, bank.gold_rows, idx, state.rows[idx],
                                      with_model=state.settings.predictor == "model",
                                      weights=weights)
    out = (fitted, info)
    state.cache = (key, out)
    return out


def _sizes(state: _State, pool: np.ndarray, predicted: np.ndarray,
           info: np.ndarray) -> np.ndarray:
    """The sizes the pool's draw probabilities are proportional to (before
    the floor): the information, or the ``variance`` design's spreads
    sqrt(Σ w_i²), w_i the change of the target metric at the predicted
    totals when gold word i is right rather than missed
    (:func:`committee.metrics.estimators.word_weights`)."""
    if state.settings.design == "information":
        return info[pool]
    bank, seen = state.bank, state.done
    _, grad = estimators.gradient(bank.known, predicted.sum(axis=0), state.settings.metric)
    kappa = estimators.ratios(state.rows[seen], bank.gold_rows[seen])
    w = estimators.word_weights(grad, bank.d, kappa)
    return estimators.spread(w, bank.unit_sentence, bank.n_sentences)[pool]


def _batch(state: _State, source, settings: Settings, rng, number: int) -> None:
    """Draw, administer and record one batch (a census of the pool when the
    pool is no larger than the draws allowed)."""
    bank = state.bank
    room = bank.n_sentences if settings.max_sentences is None else settings.max_sentences
    n = min(settings.batch, room - state.used)
    pool = np.flatnonzero(~state.done)
    predicted, info = _predictions(state)
    if pool.size <= n:  # the rest, each with probability 1
        picks, q = pool, np.ones(pool.size)
    else:
        size = _sizes(state, pool, predicted, info)
        q_pool = estimators.selection_probabilities(size, settings.floor)
        idx = rng.choice(pool.size, size=n, replace=True, p=q_pool)
        picks, q = pool[idx], q_pool[idx]
    new = np.unique(picks)  # corpus order: each asked of the system once
    if hasattr(source, "counts"):  # counts made beforehand (a benchmark's systems)
        rows, ok = source.counts(new)
    else:
        pred = checked(bank, new, *source(new))
        rows, ok = observe(bank, new, pred)
        labels = bank.task.labels_of(pred)
        for k, i in enumerate(new.tolist()):
            state.answers[i] = (list(pred.words[k]), None if labels is None else list(labels[k]))
    state.rows[new] = rows
    units = units_of(bank, new)
    state.outcomes[units] = ok
    state.log1mp += -np.logaddexp(0.0, bank.a[units, None] * (
        irtem.COARSE[None, :] - bank.b[units, None])).sum(axis=0)
    state.a_right += float(bank.a[units][np.asarray(ok, bool)].sum())
    state.done[new] = True
    state.batch_of[new] = number
    np.add.at(state.weight, picks, 1.0 / q)
    first = set()
    for s, qs in zip(picks.tolist(), q.tolist()):
        state.draws.append(Draw(number, s, qs, 1.0 - (1.0 - qs) ** len(picks), s not in first,
                                state.theta, tuple(state.rows[s]), tuple(predicted[s])))
        first.add(s)


def _update_theta(state: _State) -> None:
    """θ and its standard error: EAP from every administered word, items
    fixed, prior N(0, 1), as :func:`committee.metrics.itemresponse.ability`
    computes it (the log posterior A θ + S(θ) − θ² / 2, S interpolated from
    ``irtem.COARSE`` to ``irtem.FINE``), from the sums kept batch by batch."""
    from scipy.interpolate import CubicSpline

    x = irtem.FINE
    logp = state.a_right * x + CubicSpline(irtem.COARSE, state.log1mp)(x) - 0.5 * x * x
    post = np.exp(logp - logp.max())
    post /= post.sum()
    theta = float(post @ x)
    state.theta, state.theta_se = theta, float(np.sqrt(max(post @ x ** 2 - theta ** 2, 0.0)))


def estimate(state: _State, keys=estimators.METRICS) -> dict:
    """Every metric of ``keys`` with its interval, from the draws so far;
    exact (the system's own full-test scores) once every sentence is
    administered."""
    bank = state.bank
    if state.done.all():  # summed as the scorer sums them: the same numbers
        r = state.rows
        tot = metrics.totals(metrics.SufficientStats(
            n_gold=bank.gold_rows[:, 0].astype(np.int64), n_pred=r[:, 2].astype(np.int64),
            n_correct=r[:, 0].astype(np.int64), gold_d=bank.gold_rows[:, 1], correct_d=r[:, 1],
            pred_d=r[:, 3]))
        mean = np.array([tot[k] for k in estimators.ESTIMATED], np.float64)
        cov = np.zeros((4, 4))
    else:
        z = _draw_estimates(state)
        mean, cov = estimators.combine(z)
        m = state.used  # residuals of a fit of k coefficients per total: m / (m - k)
        k, start = (2, estimators.MIN_CALIBRATION) if state.settings.predictor == "model" \
            else (1, 2)
        if state.settings.predictor == "lengths" and m >= estimators.MIN_LENGTHS:
            idx = np.flatnonzero(state.done)  # each residual over 1 − its leverage
            h = estimators.lengths_leverage(bank.classes, idx, state.weight[idx])
            scale = np.ones((bank.n_sentences, 4))
            scale[idx] = (1.0 - h)
            cov = estimators.combine(_draw_estimates(state, scale))[1]
        elif m >= start:
            cov = cov * m / (m - k)
        if state.settings.quantile == "t" and z.shape[0] > 1:
            return estimators.intervals(bank.known, mean, cov, keys,
                                        estimators.quantile(z.shape[0] - 1))
    return estimators.intervals(bank.known, mean, cov, keys)


def _draw_estimates(state: _State, scale: np.ndarray | None = None) -> np.ndarray:
    """Each draw's estimate of the four totals, with every sentence's
    prediction made again at the current θ and κ (the GREG form): Σ of all
    predictions, plus the residuals of the sentences administered before the
    draw's batch, plus the drawn sentence's residual over its probability;
    every residual divided by ``scale`` (sentences × 4) when given."""
    predicted, _ = _predictions(state)
    done = state.done
    residual = np.where(done[:, None], np.nan_to_num(state.rows) - predicted, 0.0)
    if scale is not None:
        residual = residual / scale
    by_batch = np.zeros((int(state.batch_of.max()) + 1, 4))
    np.add.at(by_batch, state.batch_of[done], residual[done])
    before = np.cumsum(by_batch, axis=0)  # before[t - 1]: batches before t
    draws = [d for d in state.draws if d.probability < 1.0]
    batch = np.array([d.batch for d in draws], np.int64)
    sentence = np.array([d.sentence for d in draws], np.int64)
    q = np.array([d.probability for d in draws])
    base = predicted.sum(axis=0)[None, :] + before[batch - 1]
    return estimators.draw_totals(base, residual[sentence], q)


def administer(bank: Bank, source, settings: Settings = Settings(), after_batch=None) -> dict:
    """Run the adaptive test of one system; ``source(indices)`` returns its
    output of those sentences (indices from 0, increasing) as a Corpus of
    them and where each came from, ``(file, line)``
    (:mod:`committee.scoring.adaptive_sources`); a source with a method
    ``counts(indices)`` gives those sentences' counts and their gold words'
    outcomes (:func:`observe`'s result) instead.  ``after_batch(record,
    answers)``, when given, is called after every batch with the draws so
    far and the system's output of every sentence administered (its
    ``answers``), so that a caller can keep what the system was asked.

    Returns ``sentences_used``, ``draws`` (how many), ``batches``,
    ``stopped_by`` (``target`` or ``max-sentences``), ``estimates`` (every
    metric as ``{"value", "low", "high"}``, fractions; ``theta`` with
    ``se`` too), ``record`` (the :class:`Draw` of every draw), ``answers``
    (sentence → the system's tokens and labels, or None) and ``trace``:
    the target metric's estimate after each batch the stopping rule looked
    at, as ``{"batch", "sentences", "draws", "value", "low", "high"}``
    (the report's cost of evaluation draws it).
    """
    s = bank.n_sentences
    state = _State(bank, np.full((s, 4), np.nan), np.zeros(bank.d.shape[0], bool),
                   np.zeros(s, bool), np.zeros(s, np.int64), settings, weight=np.zeros(s))
    rng = np.random.default_rng(settings.seed)
    limit = s if settings.max_sentences is None else min(settings.max_sentences, s)
    number, stopped, trace = 0, "max-sentences", []
    while state.used < limit:
        number += 1
        _batch(state, source, settings, rng, number)
        _update_theta(state)
        if after_batch is not None:
            after_batch(list(state.draws), dict(state.answers))
        if state.done.all() or len(state.draws) >= settings.min_draws:
            iv = estimate(state, (settings.metric,))[settings.metric]
            trace.append({"batch": number, "sentences": state.used, "draws": len(state.draws),
                          **iv})
            width = None if iv["low"] is None else iv["high"] - iv["low"]
            # a width of 0 before the census is the clip at 0 or 1, not precision
            if width is not None and width < settings.target / 100 and (
                    width > 0 or state.done.all()):
                stopped = "target"
                break
    est = estimate(state)
    est["theta"] = {"value": state.theta, "low": state.theta - estimators.Z95 * state.theta_se,
                    "high": state.theta + estimators.Z95 * state.theta_se, "se": state.theta_se}
    return {"sentences_used": state.used, "draws": len(state.draws), "batches": number,
            "stopped_by": stopped, "estimates": est, "record": state.draws,
            "answers": state.answers, "trace": trace}


def settings_dict(settings: Settings) -> dict:
    """The settings as ``--json`` carries them."""
    return {"batch": settings.batch, "target": settings.target, "metric": settings.metric,
            "max_sentences": settings.max_sentences, "seed": settings.seed,
            "floor": settings.floor, "min_draws": settings.min_draws,
            "design": settings.design, "predictor": settings.predictor,
            "weighted": settings.weighted, "quantile": settings.quantile}


def source_name(system) -> str | None:
    """The path of a system given as a file, else None."""
    return os.fspath(system) if isinstance(system, (str, os.PathLike)) else None
