"""The logistic model of suspicious gold (docs/method.md §15): the features
it reads, in the order of its weights, its probabilities and its fit, the
probabilities moved to a gold's own rate of errors, and the ranked list of
candidates.  :mod:`committee.metrics.checkgold` re-exports every name here.
"""

from __future__ import annotations

import numpy as np

#: The features of a candidate, in the order of the model's weights.
FEATURES = (
    "agree",         # n_alt / K: members reading exactly this alternative
    "wrong",         # n_wrong / K: members reading the span otherwise than the gold
    "consensus",     # n_alt / n_wrong: how much the wrong members agree
    "train_ratio",   # log((train_alt + .5) / (train_gold + .5))
    "train_seen",    # log(1 + train_alt + train_gold)
    "test_ratio",    # log((test_alt + .5) / (test_gold + .5)), other test sentences
    "gold_unseen",   # a gold word of the span is not a training word
    "alt_unseen",    # a word of the alternative is not a training word
    "direction",     # gold words minus alternative words, clipped to [-2, 2]
)

#: The features of a candidate of a segmentation, in the order of
#: :data:`committee.metrics.checkgold.WEIGHTS`: :data:`FEATURES` with the
#: training counts' two weighted by ``agree`` (the training corpus's say
#: about a string counts as far as the members, models of that corpus
#: reading this sentence, follow it), then what the training corpus says
#: around the span (:mod:`committee.metrics.checkgold_context`).
WORD_FEATURES = FEATURES[:3] + (
    "train_ratio_followed",  # agree * train_ratio
    "train_seen_followed",   # agree * train_seen
) + FEATURES[5:] + (
    "context_ratio",  # log((ctx_alt + .5) / (ctx_gold + .5)): the span with a neighbour
    "surname",        # the alternative joins a one-character surname to the next word
)

#: The features whose weight the fit keeps at 0 or above: more members
#: agreeing on the alternative never makes it less suspicious (§15).
NONNEGATIVE = ("agree", "consensus")


def _design(x: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((x.shape[0], 1)), x])


def probabilities(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The logistic model's probability of every row of ``x``."""
    from scipy.special import expit

    return expit(_design(x) @ weights)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0,
        nonnegative=NONNEGATIVE) -> np.ndarray:
    """Logistic regression of ``y`` (0 or 1) on ``x``: the weights, intercept
    first, that maximise the likelihood less ``l2 / 2`` times their squared
    norm (a standard normal prior on each weight; scipy's L-BFGS-B), those
    of the features named in
    ``nonnegative`` kept at 0 or above.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2000, 1)); y = (x[:, 0] + rng.normal(size=2000) > 1).astype(float)
    >>> w = fit(x, y, nonnegative=())
    >>> bool(w[1] > 1.0 and w[0] < 0)
    True
    >>> float(fit(-x, y, nonnegative=(0,))[1])
    0.0
    """
    from scipy.optimize import minimize
    from scipy.special import log_expit

    a = _design(x)
    sign = 2 * np.asarray(y, dtype=np.float64) - 1
    bounds = [(None, None)] * a.shape[1]
    for name in nonnegative:
        bounds[1 + (FEATURES.index(name) if isinstance(name, str) else name)] = (0.0, None)

    def loss(w):
        z = sign * (a @ w)
        g = -(a.T @ (sign * np.exp(log_expit(-z)))) + l2 * w
        return -log_expit(z).sum() + 0.5 * l2 * (w @ w), g

    return minimize(loss, np.zeros(a.shape[1]), jac=True, method="L-BFGS-B", bounds=bounds).x


def adjust_prior(p: np.ndarray, fitted_rate: float, max_iter: int = 200,
                 tol: float = 1e-9) -> tuple[np.ndarray, float]:
    """Probabilities ``p`` of a model fitted where a share ``fitted_rate`` of
    candidates were errors, moved to the rate of errors among these
    candidates, itself estimated by EM (Saerens, Latinne & Decaestecker
    2002): ``(adjusted probabilities, estimated rate)``.

    >>> p, rate = adjust_prior(np.array([0.5, 0.5]), 0.5)
    >>> p.tolist(), rate
    ([0.5, 0.5], 0.5)
    """
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    if p.size == 0:
        return p, 0.0
    t = min(max(fitted_rate, 1e-9), 1 - 1e-9)
    rate = float(p.mean())
    q = p
    for _ in range(max_iter):
        odds = p / (1 - p) * (rate / (1 - rate)) / (t / (1 - t))
        q = odds / (1 + odds)
        new = float(min(max(q.mean(), 1e-9), 1 - 1e-9))
        if abs(new - rate) < tol:
            rate = new
            break
        rate = new
    return q, rate


def rank(start: np.ndarray, end: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Indices of the candidates in ranked order (highest ``score`` first,
    ties by position), keeping of candidates that overlap the first one only.

    >>> rank(np.array([0, 1, 5]), np.array([2, 3, 6]), np.array([0.5, 0.9, 0.1])).tolist()
    [1, 2]
    """
    order = np.lexsort((end, start, -np.asarray(score)))
    taken = np.zeros(int(end.max()) + 1 if end.size else 0, dtype=bool)
    keep = []
    for i in order.tolist():
        s, e = int(start[i]), int(end[i])
        if not taken[s:e].any():
            taken[s:e] = True
            keep.append(i)
    return np.array(keep, dtype=np.int64)
