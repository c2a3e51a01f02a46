"""Model-assisted estimates of a system's full-test totals from sentences
drawn with known probabilities (docs/method.md §16).

A system's p, r, f1, pb, rb and fb are functions of six corpus totals:
``n_gold`` and ``gold_d`` (known from the gold and the difficulties) and
the four of :data:`ESTIMATED` (``n_correct``, ``correct_d``, ``n_pred``,
``pred_d``), which need the system's output.  A sentence's four counts are
predicted from the 2PL (:func:`predict`); each draw ``j`` of a sentence
``s`` with selection probability ``q_s`` from the sentences not yet
administered gives one estimate of the four totals (:func:`draw_totals`)

    z_j = Σ_{administered before} y + Σ_{pool} ŷ + (y_s − ŷ_s) / q_s,

whose expectation given the past is the true total whatever predictions
fixed before the draw are (Hansen–Hurwitz on the residuals); the
predictions made again at the final θ make it the GREG form,
approximately unbiased.  :func:`combine`
averages the draws and estimates the variance of the average from their
spread; :func:`intervals` turns the totals into each metric with a 95%
interval by the delta method.
"""

from __future__ import annotations

import numpy as np

from committee.metrics.records import metric_arrays

#: The totals estimated from the administered sentences, in the column order
#: of every (sentences × 4) array here.
ESTIMATED = ("n_correct", "correct_d", "n_pred", "pred_d")
#: The totals known from the gold and its difficulties alone.
KNOWN = ("n_gold", "gold_d")
#: The metrics estimated, in the order reported.
METRICS = ("p", "r", "f1", "pb", "rb", "fb")
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def selection_probabilities(size: np.ndarray, floor: float) -> np.ndarray:
    """Probabilities proportional to ``size`` mixed with the uniform
    distribution: ``(1 − floor) · size / Σ size + floor / n``; uniform when
    every size is 0.

    >>> selection_probabilities(np.array([3.0, 1.0, 0.0, 0.0]), 0.2).round(12).tolist()
    [0.65, 0.25, 0.05, 0.05]
    """
    size = np.asarray(size, np.float64)
    n = size.shape[0]
    total = size.sum()
    if not total > 0:
        return np.full(n, 1.0 / n)
    return (1.0 - floor) * size / total + floor / n


def word_weights(grad: np.ndarray, d: np.ndarray, kappa: tuple[float, float]) -> np.ndarray:
    """How much each gold unit's being right moves a metric: the metric's
    gradient ``grad`` with respect to the totals of :data:`ESTIMATED`
    times what a right unit adds to them against a missed one, (1, d_i,
    1 − κ, (1 − κ_d) d_i) (a right unit is one predicted unit of weight
    d_i, a missed one κ wrong ones, :func:`predict`).

    >>> word_weights(np.array([1.0, 2.0, 0.5, -1.0]), np.array([0.0, 0.5]), (3.0, 1.0)).tolist()
    [0.0, 1.0]
    """
    g = np.asarray(grad, np.float64)
    return (g[0] + (1.0 - kappa[0]) * g[2]) + (g[1] + (1.0 - kappa[1]) * g[3]) * np.asarray(d)


def spread(weights: np.ndarray, unit_sentence: np.ndarray, n_sentences: int) -> np.ndarray:
    """Each sentence's ``sqrt(Σ_i w_i²)`` over its gold units: proportional
    to the standard deviation of its contribution Σ_i w_i m_i when every
    unit is right (m_i = 1) or wrong independently with one common
    probability (the draw sizes of the ``variance`` design, docs/method.md §16).

    >>> spread(np.array([0.5, 0.5, 1.0, 0.0]), np.array([0, 0, 1, 2]), 3).round(6).tolist()
    [0.707107, 1.0, 0.0]
    """
    w = np.asarray(weights, np.float64)
    return np.sqrt(sentence_sums(w * w, unit_sentence, n_sentences))


def sentence_sums(values: np.ndarray, unit_sentence: np.ndarray, n_sentences: int) -> np.ndarray:
    """Per-sentence sums of per-unit ``values`` (units in corpus order)."""
    return np.bincount(unit_sentence, weights=values, minlength=n_sentences)


def ratios(observed: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    """(κ, κ_d) from the administered sentences' rows: the predicted units
    that are wrong per gold unit missed, ``Σ (n' − c) / Σ (n − c)``, and the
    same of the difficulty weights, ``Σ (d' − cd) / Σ (D − cd)``; 1 where
    nothing was missed yet.  ``observed``: rows of :data:`ESTIMATED`;
    ``gold``: rows of (``n_gold``, ``gold_d``).

    >>> ratios(np.array([[2.0, 0.5, 4.0, 1.0]]), np.array([[3.0, 1.0]]))
    (2.0, 1.0)
    """
    missed = gold[:, 0].sum() - observed[:, 0].sum()
    missed_d = gold[:, 1].sum() - observed[:, 1].sum()
    wrong = observed[:, 2].sum() - observed[:, 0].sum()
    wrong_d = observed[:, 3].sum() - observed[:, 1].sum()
    kappa = wrong / missed if missed > 0 else 1.0
    kappa_d = wrong_d / missed_d if missed_d > 1e-12 else 1.0
    return float(kappa), float(kappa_d)


def predict(p_correct: np.ndarray, d: np.ndarray, unit_sentence: np.ndarray,
            gold: np.ndarray, kappa: tuple[float, float]) -> np.ndarray:
    """Each sentence's predicted counts (rows of :data:`ESTIMATED`).

    ``p_correct``: each gold unit's P(correct | θ); ``d`` its difficulty;
    ``gold``: each sentence's (``n_gold``, ``gold_d``).  The expected
    right units ĉ = Σ P and their weight Σ d P; the predicted units
    ĉ + κ (n − ĉ) (each right unit is one predicted unit, and each missed
    one becomes κ wrong ones) and their weight Σ d P + κ_d (D − Σ d P).

    >>> predict(np.array([0.5, 1.0]), np.array([0.4, 0.0]), np.array([0, 0]),
    ...         np.array([[2.0, 0.4]]), (2.0, 1.0)).tolist()
    [[1.5, 0.2, 2.5, 0.4]]
    """
    s = gold.shape[0]
    c = sentence_sums(p_correct, unit_sentence, s)
    cd = sentence_sums(d * p_correct, unit_sentence, s)
    return np.column_stack((c, cd, c + kappa[0] * (gold[:, 0] - c),
                            cd + kappa[1] * (gold[:, 1] - cd)))


#: Administered sentences needed before the predictions are calibrated (:func:`calibrate`).
MIN_CALIBRATION = 5


def calibrate(model: np.ndarray, gold: np.ndarray, seen: np.ndarray,
              observed: np.ndarray, *, with_model: bool = True,
              weights: np.ndarray | None = None) -> np.ndarray:
    """The model's predictions (sentences × 4) calibrated on the sentences
    ``seen``: each of the four counts regressed, without intercept, on its
    model prediction and on the sentence's gold total of the same kind
    (``n_gold`` for the word counts, ``gold_d`` for the weights), by least
    squares over the ``observed`` rows of ``seen``; below
    :data:`MIN_CALIBRATION` sentences the model's own.  Without
    ``with_model`` each count is the ratio ``Σ y / Σ x`` of the ``seen``
    rows times its gold total, from the first sentence on (the model's own
    before any).  ``weights`` (one per row of ``seen``; default 1) weigh
    the fit: the inverse draw probabilities make it estimate the fit over
    every sentence of the test, not over those the draws favour.  A model that ranks
    the sentences well keeps its weight; one that does not gives way to the
    ratio to the gold totals, as the plain ratio estimate uses them.

    >>> m = np.array([[1.0, 0, 1, 0]] * 6); g = np.array([[2.0, 1.0]] * 6)
    >>> calibrate(m, g, np.arange(6), np.array([[2.0, 0.5, 2, 0.5]] * 6))[0].round(6).tolist()
    [2.0, 0.5, 2.0, 0.5]
    >>> calibrate(m, g, np.arange(1), np.array([[1.0, 0.5, 3, 0.5]]), with_model=False)[0].tolist()
    [1.0, 0.5, 3.0, 0.5]
    """
    aux = gold[:, [0, 1, 0, 1]]
    w = np.ones(seen.size) if weights is None else np.asarray(weights, np.float64)
    if not with_model:
        if seen.size == 0:
            return model
        x = w @ aux[seen]
        beta = np.divide(w @ observed, x, out=np.zeros(4), where=x > 0)
        return aux * beta
    if seen.size < MIN_CALIBRATION:
        return model
    out = np.empty_like(model)
    root = np.sqrt(w)
    for k in range(4):
        x = np.column_stack((model[seen, k], aux[seen, k])) * root[:, None]
        beta = np.linalg.lstsq(x, observed[:, k] * root, rcond=None)[0]
        out[:, k] = beta[0] * model[:, k] + beta[1] * aux[:, k]
    return out


#: Word lengths (characters) of the classes of :func:`length_classes`; the last is "or more".
LENGTHS = (1, 2, 3, 4)
#: Administered sentences needed before :func:`calibrate_lengths` fits its classes.
MIN_LENGTHS = 30


def length_classes(lengths: np.ndarray, d: np.ndarray, unit_sentence: np.ndarray,
                   n_sentences: int) -> np.ndarray:
    """Per sentence, its gold units in total and of 2, 3 and 4 or more
    characters (:data:`LENGTHS`), then the same of their difficulties:
    (sentences × 8).

    >>> length_classes(np.array([1, 2, 5]), np.array([0.5, 0.25, 1.0]),
    ...                np.array([0, 0, 1]), 2).tolist()
    [[2.0, 1.0, 0.0, 0.0, 0.75, 0.25, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]]
    """
    lengths = np.minimum(np.asarray(lengths), LENGTHS[-1])
    out = []
    for w in (np.ones_like(d, dtype=np.float64), np.asarray(d, np.float64)):
        out.append(sentence_sums(w, unit_sentence, n_sentences))
        out += [sentence_sums(w * (lengths == k), unit_sentence, n_sentences)
                for k in LENGTHS[1:]]
    return np.column_stack(out)


def calibrate_lengths(classes: np.ndarray, seen: np.ndarray, observed: np.ndarray,
                      weights: np.ndarray) -> np.ndarray:
    """Each sentence's four counts predicted from its word-length classes
    (:func:`length_classes`): each count regressed, without intercept and
    by least squares weighted by ``weights``, on the sentence's gold units
    in total and of 2, 3 and 4 or more characters (the word counts) or on
    their difficulties (the weights), over the ``observed`` rows of
    ``seen``.  A class no administered sentence has gets coefficient 0: its
    words are predicted by the total's ratio.

    >>> c = np.array([[1.0, 0, 0, 0, 1, 0, 0, 0], [2.0, 1, 0, 0, 2, 1, 0, 0]])
    >>> calibrate_lengths(c, np.arange(2), np.array([[1.0, 1, 1, 1], [1.0, 1, 3, 3]]),
    ...                   np.ones(2)).round(6).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 3.0, 3.0]]
    """
    root = np.sqrt(np.asarray(weights, np.float64))
    out = np.empty((classes.shape[0], 4))
    for k in range(4):
        x = classes[:, :4] if k in (0, 2) else classes[:, 4:]
        beta = np.linalg.lstsq(x[seen] * root[:, None], observed[:, k] * root, rcond=None)[0]
        out[:, k] = x @ beta
    return out


def lengths_leverage(classes: np.ndarray, seen: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The leverage h of each ``seen`` sentence (rows) in each of the four
    weighted fits of :func:`calibrate_lengths` (columns): the diagonal of
    W^½ X (Xᵀ W X)⁺ Xᵀ W^½.  A residual of a fit is smaller than the error
    it stands for, the more so the larger h: the variance divides each
    residual by 1 − h (the jackknife's correction).

    >>> c = np.array([[1.0, 0, 0, 0, 1, 0, 0, 0], [3.0, 0, 0, 0, 1, 0, 0, 0]])
    >>> lengths_leverage(c, np.arange(2), np.ones(2))[:, 0].round(6).tolist()
    [0.1, 0.9]
    """
    root = np.sqrt(np.asarray(weights, np.float64))
    out = np.empty((seen.size, 4))
    for k, cols in ((0, slice(0, 4)), (1, slice(4, 8))):
        x = classes[seen][:, cols] * root[:, None]
        h = np.einsum("ij,ji->i", x, np.linalg.pinv(x))
        out[:, k] = out[:, k + 2] = np.clip(h, 0.0, 0.99)
    return out


def draw_totals(base: np.ndarray, residual: np.ndarray, q: np.ndarray) -> np.ndarray:
    """One estimate of the four totals per draw: ``base`` (Σ of the counts
    of the sentences administered before the draw's batch and of the other
    sentences' predictions; one row for every draw, or one per draw) plus
    the drawn sentence's residual over its selection probability.

    >>> draw_totals(np.array([1.0, 0, 0, 0]), np.array([[0.5, 0, 0, 0]]), np.array([0.25])).tolist()
    [[3.0, 0.0, 0.0, 0.0]]
    """
    return np.asarray(base, np.float64) + residual / q[:, None]


def combine(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean of the draws' estimates ``z`` (draws × 4) and the estimated
    covariance of that mean, ``Σ (z_j − z̄)(z_j − z̄)ᵀ / (n (n − 1))``
    (each z_j has the same conditional mean, the true totals, so their
    spread estimates the variance; NaN below 2 draws).

    >>> m, v = combine(np.array([[1.0, 0, 0, 0], [3.0, 0, 0, 0]]))
    >>> m.tolist(), float(v[0, 0])
    ([2.0, 0.0, 0.0, 0.0], 1.0)
    """
    n = z.shape[0]
    mean = z.mean(axis=0)
    if n < 2:
        return mean, np.full((z.shape[1], z.shape[1]), np.nan)
    dev = z - mean
    return mean, dev.T @ dev / (n * (n - 1))


def metric_values(known: dict, estimated: np.ndarray, keys=METRICS) -> dict[str, np.ndarray]:
    """The metrics at totals: ``known`` (``n_gold``, ``gold_d``: scalars)
    and ``estimated`` (… × 4, rows of :data:`ESTIMATED`), by the registry's
    formulas (:func:`committee.metrics.records.metric_arrays`); NaN where
    undefined."""
    est = np.atleast_2d(np.asarray(estimated, np.float64))
    t = {k: np.full(est.shape[0], float(known[k])) for k in KNOWN}
    t.update({k: est[:, j] for j, k in enumerate(ESTIMATED)})
    return metric_arrays(t, tuple(keys))


def gradient(known: dict, totals: np.ndarray, key: str) -> tuple[float, np.ndarray]:
    """The metric ``key`` at ``totals`` (rows of :data:`ESTIMATED`) and its
    gradient with respect to them, by central differences (steps of 10⁻⁶
    of each total, at least 10⁻⁶); NaN value where undefined, its gradient
    then 0.

    >>> v, g = gradient({"n_gold": 10, "gold_d": 2.0}, np.array([5.0, 1.0, 8.0, 2.0]), "r")
    >>> v, g.round(6).tolist()
    (0.5, [0.1, 0.0, 0.0, 0.0])
    """
    totals = np.asarray(totals, np.float64)
    steps = 1e-6 * np.maximum(np.abs(totals), 1.0)
    points = np.vstack([totals] + [totals + s * e for s, e in zip(steps, np.eye(4))]
                       + [totals - s * e for s, e in zip(steps, np.eye(4))])
    v = metric_values(known, points, (key,))[key]
    return float(v[0]), np.nan_to_num((v[1:5] - v[5:9]) / (2 * steps))


def quantile(df: float) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom
    (the normal's, :data:`Z95`, when ``df`` is infinite).

    >>> round(quantile(10), 4), quantile(float("inf")) == Z95
    (2.2281, True)
    """
    from scipy.stats import t

    return Z95 if np.isinf(df) else float(t.ppf(0.975, df))


def intervals(known: dict, mean: np.ndarray, cov: np.ndarray, keys=METRICS,
              z: float = Z95) -> dict:
    """Each metric of ``keys`` at the estimated totals with a 95% interval
    ``value ± z · se`` (``z``: 1.96 by default, :func:`quantile` for few
    draws), se by the delta method (the gradient by central
    differences, steps of 10⁻⁶ of each total); value and bounds clipped to
    [0, 1].  A metric undefined at the totals is None; an interval that
    cannot be estimated (fewer than 2 draws) has None bounds; a covariance
    of zeros (every sentence administered) gives value = low = high.

    >>> iv = intervals({"n_gold": 10, "gold_d": 2.0}, np.array([5.0, 1.0, 10.0, 2.0]),
    ...                np.zeros((4, 4)), ("r",))
    >>> iv["r"]
    {'value': 0.5, 'low': 0.5, 'high': 0.5}
    """
    out = {}
    for key in keys:
        v, grad = gradient(known, mean, key)
        if np.isnan(v):
            out[key] = {"value": None, "low": None, "high": None}
            continue
        value = float(np.clip(v, 0.0, 1.0))
        if np.isnan(cov).any():
            out[key] = {"value": value, "low": None, "high": None}
            continue
        se = float(np.sqrt(max(grad @ cov @ grad, 0.0))) if np.any(cov) else 0.0
        out[key] = {"value": value, "low": float(np.clip(v - z * se, 0.0, 1.0)),
                    "high": float(np.clip(v + z * se, 0.0, 1.0))}
    return out
