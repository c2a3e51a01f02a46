"""Item response theory on a response matrix (docs/irt.md).

The committee's ``marks`` (K members × N gold words, true when the member
got the word right) is an IRT response matrix: subjects × items.  The 2PL
model gives item *i* a difficulty ``b_i`` and a discrimination ``a_i``, and
subject *k* an ability ``θ_k``::

    P(correct) = 1 / (1 + exp(-a_i (θ_k - b_i))),   θ ~ N(0, 1)

The 1PL model shares one ``a`` between all items.  :func:`fit` estimates the
items by marginal maximum a posteriori (Bock–Aitkin EM over a quadrature of
the ability distribution, weak normal priors on ``a`` and ``c = -ab``), vectorised
over items with numpy; the 2PL's last M-step re-estimates each item in
(a, b) with a weak prior on b, which keeps b finite as a → 0.  :func:`ability` gives the EAP ability and its
posterior standard deviation of any subject from its right/wrong outcomes,
the items held fixed.  The estimation itself is in
:mod:`committee.metrics.irtem`.

Two facts make the fit cheap at committee scale (K ≤ a few hundred, N up to
hundreds of thousands):

* the log-likelihood of subject *k* at ability θ is
  ``θ Σ_i y_ki a_i − Σ_i y_ki a_i b_i + S(θ)`` with
  ``S(θ) = Σ_i log(1 − P_i(θ))`` common to all subjects, so the E-step costs
  two matrix–vector products;
* items with the same response pattern have the same estimates, so the
  M-step runs once per distinct pattern (most words every member gets
  right share one pattern).

>>> rng = np.random.default_rng(0)
>>> theta = rng.normal(size=200)
>>> a, b = rng.uniform(0.8, 2.0, 50), rng.normal(size=50)
>>> y = rng.random((200, 50)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))
>>> f = fit(y)
>>> f.converged, f.difficulty.shape, f.ability.shape
(True, (50,), (200,))
>>> bool(np.corrcoef(f.difficulty, b)[0, 1] > 0.9)
True
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, logsumexp

from committee.errors import caller_level, PlausibilityWarning
from committee.metrics.irtem import (  # noqa: F401  (re-exported)
    BLOCK, FINE, LIMIT, M_STEPS, POLISH_STEPS, Priors, em, extreme_items, log_posterior)

#: Below this many subjects a fit is refused; below WARN_K a 2PL fit is warned of.
MIN_K = 5
WARN_K = 30
#: Below this many subjects ``model="auto"`` (:func:`choose_model`) fits the
#: 1PL: on committees of 5 to 11 CRF members the 2PL's EM mostly does not
#: converge (one member's θ runs off to ~3.6 and the items follow it), on 12
#: and more it converged in every committee measured (docs/irt.md, "Small
#: committees").
MIN_K_2PL = 12
#: Default priors: a ~ N(1, 1.5²) (sign left free, so a negative slope can
#: show) and the intercept c = −ab ~ N(0, 3²); θ ~ N(0, 1) (docs/irt.md).
PRIOR_A = (1.0, 1.5)
PRIOR_C = (0.0, 3.0)
#: Prior of the final (a, b) polishing step of the 2PL: b ~ N(0, 3²), which
#: keeps b finite where the data hardly fix it (a near 0; docs/irt.md).
PRIOR_B = (0.0, 3.0)


@dataclass(frozen=True)
class IrtFit:
    """The result of :func:`fit`; arrays are float64 unless said otherwise.

    ``difficulty``/``discrimination`` (N,) are b and a with standard errors
    ``difficulty_se``/``discrimination_se``; ``ability``/``ability_se`` (K,)
    the EAP θ of each subject and its posterior standard deviation.
    ``all_correct``/``all_wrong`` (N,) bool flag items without variance:
    their ``a`` is the prior mean (1PL: the common a) with the prior's
    standard deviation as its SE, and ``b`` the posterior mode given that a.
    ``log_likelihood`` is the marginal log-likelihood of the data at the
    estimates, ``log_posterior`` adds the log prior densities of the items.
    """

    model: str
    difficulty: np.ndarray
    discrimination: np.ndarray
    difficulty_se: np.ndarray
    discrimination_se: np.ndarray
    ability: np.ndarray
    ability_se: np.ndarray
    n_correct: np.ndarray
    all_correct: np.ndarray
    all_wrong: np.ndarray
    log_likelihood: float
    log_posterior: float
    converged: bool
    n_iter: int
    max_change: float
    settings: dict = field(default_factory=dict)

    @property
    def n_subjects(self) -> int:
        return int(self.ability.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.difficulty.shape[0])


def check_responses(responses, n_items: int | None = None) -> np.ndarray:
    """``responses`` as a (K, N) boolean array, or ``ValueError`` saying why.

    Only booleans, or integers/floats that are all 0 or 1, are accepted.

    >>> check_responses([[1, 0], [0, 1]]).dtype
    dtype('bool')
    >>> check_responses([[1, 2]])
    Traceback (most recent call last):
    ...
    ValueError: responses must be boolean (or 0/1); found the value 2
    >>> check_responses(np.zeros((3, 2), bool), n_items=3)
    Traceback (most recent call last):
    ...
    ValueError: responses are 3 × 2 (subjects × items) but there are 3 items (transposed? expected K × 3)
    """
    y = np.asarray(responses)
    if y.ndim != 2:
        raise ValueError(f"responses must be a (subjects × items) matrix, got shape {y.shape}")
    if y.dtype != bool:
        if y.dtype.kind not in "iuf":
            raise ValueError(f"responses must be boolean (or 0/1), got dtype {y.dtype}")
        bad = ~np.isin(y, (0, 1))
        if bad.any():
            raise ValueError("responses must be boolean (or 0/1); found the value "
                             f"{y[bad].flat[0]:g}")
        y = y.astype(bool)
    if n_items is not None and y.shape[1] != n_items:
        hint = "transposed? " if y.shape[0] == n_items else ""
        raise ValueError(f"responses are {y.shape[0]} × {y.shape[1]} (subjects × items) but "
                         f"there are {n_items} items ({hint}expected K × {n_items})")
    return y


def choose_model(k: int) -> str:
    """The model ``auto`` fits to ``k`` subjects: the 2PL from
    :data:`MIN_K_2PL` on, the 1PL below.

    >>> choose_model(6), choose_model(12)
    ('1pl', '2pl')
    """
    return "2pl" if k >= MIN_K_2PL else "1pl"


def nodes(n: int = 61) -> np.ndarray:
    """The M-step's ability nodes: ``n`` equally spaced points on [-6, 6].

    >>> nodes(5).tolist()
    [-6.0, -3.0, 0.0, 3.0, 6.0]
    """
    return np.linspace(-LIMIT, LIMIT, n)


def fit(responses, model: str = "2pl", *, n_nodes: int = 61,
        prior_a: tuple[float, float] = PRIOR_A, prior_c: tuple[float, float] = PRIOR_C,
        prior_b: tuple[float, float] = PRIOR_B, tol: float = 1e-3, max_iter: int = 500) -> IrtFit:
    """Fit a 1PL or 2PL model to a (K subjects × N items) boolean matrix.

    Parameters
    ----------
    responses : array of bool, shape (K, N)
        ``responses[k, i]`` true iff subject k got item i right.
    model : {"2pl", "1pl"}
    n_nodes : ability nodes of the M-step (see :func:`nodes`).
    prior_a, prior_c : (mean, sd) of the normal priors on a and on the
        intercept c = −ab (the model's logit is a θ + c) during EM.
    prior_b : (mean, sd) of the normal prior on b of the 2PL's final
        M-step, which re-estimates every item in (a, b) under the priors on
        a and b, starting from EM's (a, c) (docs/irt.md).
    tol : EM stops when no a and no c moves by more than ``tol``.
    max_iter : EM iterations at most; ``converged`` is False when reached.

    Raises ``ValueError`` for a matrix that is not boolean (or 0/1), an
    unknown model, or fewer than :data:`MIN_K` subjects; warns
    (:class:`~committee.errors.PlausibilityWarning`) of a 2PL fit below
    :data:`WARN_K`.  :func:`choose_model` picks the model by the number of
    subjects.
    """
    if model not in ("2pl", "1pl"):
        raise ValueError(f"unknown model {model!r}; use '2pl' or '1pl'")
    y = check_responses(responses)
    k, n_items = y.shape
    if k < MIN_K:
        raise ValueError(f"{k} subjects are too few for an IRT fit (at least {MIN_K}; "
                         f"{WARN_K} or more for stable discriminations)")
    if model == "2pl" and k < WARN_K:
        warnings.warn(f"only {k} subjects: discriminations rest largely on their prior "
                      f"(use at least {WARN_K})", PlausibilityWarning, stacklevel=caller_level())
    x = nodes(n_nodes)
    n_correct = y.sum(0, dtype=np.int64)
    all_correct, all_wrong = n_correct == k, n_correct == 0
    varied = ~(all_correct | all_wrong)
    a = np.full(n_items, prior_a[0])
    b, se_a, se_b = np.zeros(n_items), np.full(n_items, prior_a[1]), np.zeros(n_items)
    change, n_iter, n_patterns = 0.0, 0, 0
    n_at = k * np.exp(-0.5 * x * x) / np.exp(-0.5 * x * x).sum()
    if varied.any():
        (au, bu, sau, sbu), inverse, n_at, change, n_iter = em(
            y[:, varied], model, x, Priors(prior_a, prior_c, prior_b), tol, max_iter)
        n_patterns = int(au.shape[0])
        a[varied], b[varied] = au[inverse], bu[inverse]
        se_a[varied], se_b[varied] = sau[inverse], sbu[inverse]
        if model == "1pl":
            a[~varied], se_a[~varied] = au[0], sau[0]
    for mask, correct in ((all_correct, True), (all_wrong, False)):
        if mask.any():
            b[mask], se_b[mask] = extreme_items(correct, float(a[mask][0]), n_at, x, prior_c)
    theta, theta_se = ability(y, a, b)
    ll = log_likelihood(y, a, b)
    if model == "2pl":
        lp = ll + float(_log_normal(b, *prior_b).sum() + _log_normal(a, *prior_a).sum())
    else:
        lp = ll + float(_log_normal(-a * b, *prior_c).sum() + _log_normal(a[0], *prior_a))
    settings = {"n_nodes": n_nodes, "prior_a": list(prior_a), "prior_c": list(prior_c),
                "prior_b": list(prior_b),
                "tol": tol, "max_iter": max_iter, "n_patterns": n_patterns}
    return IrtFit(model, b, a, se_b, se_a, theta, theta_se, n_correct, all_correct, all_wrong,
                  ll, float(lp), bool(change < tol), n_iter, change, settings)


def _log_normal(v, mean, sd):
    return -0.5 * ((np.asarray(v) - mean) / sd) ** 2 - math.log(sd * math.sqrt(2 * math.pi))


def _weighted_sums(y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """y @ v in float64, items in blocks (no float64 copy of all of y)."""
    out = np.zeros(y.shape[0])
    for s in range(0, v.shape[0], BLOCK):
        out += y[:, s:s + BLOCK].astype(np.float64) @ v[s:s + BLOCK]
    return out


def log_likelihood(responses, discrimination, difficulty) -> float:
    """Marginal log-likelihood of ``responses`` (K, N) under the items, θ ~
    N(0, 1) integrated on a grid of 0.002 over [-6, 6].

    >>> round(log_likelihood([[True]], [1.0], [0.0]), 6) == round(math.log(0.5), 6)
    True
    """
    y = np.asarray(responses, dtype=bool)
    a = np.asarray(discrimination, np.float64)
    b = np.asarray(difficulty, np.float64)
    A, B = _weighted_sums(y, a), _weighted_sums(y, a * b)
    logp = log_posterior(A, a, b)
    h = FINE[1] - FINE[0]
    return float((logsumexp(logp, axis=1) + math.log(h / math.sqrt(2 * math.pi)) - B).sum())


def ability(responses, discrimination, difficulty, *, prior=(0.0, 1.0),
            items=None) -> tuple[np.ndarray, np.ndarray]:
    """EAP ability and its posterior standard deviation, items held fixed.

    Parameters
    ----------
    responses : array of bool, shape (S, M) or (M,)
        Each subject's right (True) / wrong outcome on the M items used.
    discrimination, difficulty : arrays (N,)
        Item parameters (from :class:`IrtFit`).
    prior : (mean, sd) of the normal ability prior; N(0, 1) is the fit's scale.
    items : optional index array (M,) into the N items; default all N.

    The posterior of θ given outcomes y depends on y only through
    ``Σ_i y_i a_i``: ``log p(θ | y) = θ Σ y_i a_i + S(θ) − (θ − μ)² / 2σ²``
    with ``S(θ) = Σ_i log(1 − P_i(θ))``, computed every 0.1 on [-6, 6],
    interpolated by a cubic spline and integrated on a grid of 0.002.

    >>> th, se = ability([[1, 1, 1, 0], [0, 0, 0, 1]], [1, 1, 1, 1], [-1, 0, 1, 2])
    >>> bool(th[0] > th[1]), bool(np.all(se < 1))
    (True, True)
    """
    a = np.asarray(discrimination, np.float64)
    b = np.asarray(difficulty, np.float64)
    if items is not None:
        a, b = a[items], b[items]
    y = np.asarray(responses)
    single = y.ndim == 1
    y = check_responses(y[None, :] if single else y, n_items=a.shape[0])
    logp = log_posterior(_weighted_sums(y, a), a, b, prior=prior)
    post = np.exp(logp - logp.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    theta = post @ FINE
    se = np.sqrt(np.maximum(post @ FINE**2 - theta**2, 0.0))
    return (theta[0], se[0]) if single else (theta, se)


def probability(theta, discrimination, difficulty) -> np.ndarray:
    """P(correct) of each subject (rows) on each item (columns).

    >>> probability([0.0], [1.0, 2.0], [0.0, 1.0]).round(4).tolist()
    [[0.5, 0.1192]]
    """
    th = np.atleast_1d(np.asarray(theta, np.float64))
    a = np.asarray(discrimination, np.float64)
    b = np.asarray(difficulty, np.float64)
    return expit(a[None, :] * (th[:, None] - b[None, :]))


def infit(responses, discrimination, difficulty, theta) -> np.ndarray:
    """Infit mean square of every item: Σ_k (y − P)² / Σ_k P(1 − P).

    Near 1 when the item behaves as the model predicts, above about 1.3
    when its outcomes are noisier than its a and b allow (a misfit).

    >>> y = np.array([[1], [1], [0], [0]], bool)
    >>> infit(y, [1.0], [0.0], [1.0, 0.5, -0.5, -1.0]).round(3).tolist()
    [0.498]
    """
    y = np.asarray(responses, dtype=bool)
    a = np.asarray(discrimination, np.float64)
    b = np.asarray(difficulty, np.float64)
    out = np.empty(a.shape[0])
    for s in range(0, a.shape[0], BLOCK):
        p = probability(theta, a[s:s + BLOCK], b[s:s + BLOCK])
        out[s:s + BLOCK] = ((y[:, s:s + BLOCK] - p) ** 2).sum(0) / (p * (1 - p)).sum(0)
    return out


def information(theta, discrimination, difficulty) -> np.ndarray:
    """Fisher information a² P (1 − P) of each item (columns) at each θ (rows).

    >>> information([0.0], [2.0], [0.0]).tolist()
    [[1.0]]
    """
    p = probability(theta, discrimination, difficulty)
    a = np.asarray(discrimination, np.float64)
    return a[None, :] ** 2 * p * (1.0 - p)


def mean_information(discrimination, difficulty, theta_range: tuple[float, float],
                     n_points: int = 21) -> np.ndarray:
    """Each item's Fisher information averaged over ``n_points`` abilities
    spread evenly on ``theta_range``.

    >>> mean_information([2.0], [0.0], (0.0, 0.0), 1).tolist()
    [1.0]
    """
    grid = np.linspace(theta_range[0], theta_range[1], n_points)
    a = np.asarray(discrimination, np.float64)
    b = np.asarray(difficulty, np.float64)
    out = np.zeros(b.shape[0])
    for s in range(0, a.shape[0], BLOCK):
        out[s:s + BLOCK] = information(grid, a[s:s + BLOCK], b[s:s + BLOCK]).mean(0)
    return out


def select_items(discrimination, difficulty, n: int, theta_range: tuple[float, float],
                 n_points: int = 21) -> np.ndarray:
    """The ``n`` items with the most Fisher information averaged over
    ``n_points`` abilities spread evenly on ``theta_range``
    (:func:`mean_information`); sorted indices.

    >>> select_items([1, 1, 3, 1], [0, 5, 0, -5], 2, (-1, 1)).tolist()
    [0, 2]
    """
    mean_info = mean_information(discrimination, difficulty, theta_range, n_points)
    order = np.argsort(-mean_info, kind="stable")[:n]
    return np.sort(order)


def fill_outcomes(theta: float, discrimination, difficulty, items, observed) -> np.ndarray:
    """Expected right/wrong outcome of every item for a subject seen on
    ``items`` only: the observed outcome there, P(correct | θ) elsewhere.

    Sums of the result estimate the subject's full-test counts (its recall,
    and with difficulties the balanced reward and punishment sums).

    >>> fill_outcomes(0.0, [1.0, 1.0, 1.0], [0.0, 9.0, -9.0], [0], [False]).round(3).tolist()
    [0.0, 0.0, 1.0]
    """
    out = probability([theta], discrimination, difficulty)[0]
    out[np.asarray(items)] = np.asarray(observed, dtype=np.float64)
    return out
