"""The estimation behind :func:`committee.metrics.itemresponse.fit`
(docs/irt.md): Bock–Aitkin EM over the distinct response patterns of the
items, on a quadrature of the ability distribution; the M-step's Newton
steps in the slope-intercept form, the 2PL's final (a, b) polishing step,
the items without variance, and the grid every posterior of θ is computed
on (:func:`log_posterior`).  :mod:`committee.metrics.itemresponse`
re-exports its constants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.special import expit

#: Fisher-scoring steps of that polishing step at most.
POLISH_STEPS = 100
#: Ability range of every grid; θ beyond ±6 has prior density below 1e-8.
LIMIT = 6.0
#: Fisher-scoring steps per M-step.
M_STEPS = 3
#: Items handled per block where a (subjects × items) float array is formed.
BLOCK = 16384


@dataclass(frozen=True)
class Priors:
    """(mean, sd) of the normal priors on a, on the intercept c = −ab (EM)
    and on b (the 2PL's polishing step)."""

    a: tuple[float, float]
    c: tuple[float, float]
    b: tuple[float, float]


@dataclass(frozen=True)
class NodeCounts:
    """The E-step's expected counts on the active nodes ``x``: ``r`` the
    right answers (patterns × nodes), ``n`` the subjects at each node."""

    r: np.ndarray
    n: np.ndarray
    x: np.ndarray


#: Where S(θ) is computed exactly (spacing 0.1), and the grid it is
#: interpolated to by a cubic spline (spacing 0.002).
COARSE = np.linspace(-LIMIT, LIMIT, 121)
FINE = np.linspace(-LIMIT, LIMIT, 6001)


def _binning(fine: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(F, Q) matrix that splits each fine point between its two neighbouring
    nodes in proportion to distance (linear binning; moments up to the
    mean are kept)."""
    h = x[1] - x[0]
    pos = np.clip((fine - x[0]) / h, 0.0, x.shape[0] - 1.0)
    j = np.minimum(pos.astype(np.int64), x.shape[0] - 2)
    frac = pos - j
    m = np.zeros((fine.shape[0], x.shape[0]))
    rows = np.arange(fine.shape[0])
    m[rows, j] = 1.0 - frac
    m[rows, j + 1] += frac
    return m


def _patterns(y: np.ndarray):
    """Distinct item response patterns: (first item of each, inverse, counts)."""
    packed = np.ascontiguousarray(np.packbits(y.T, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    return first, inverse.ravel(), counts


def _common_log1mp(x: np.ndarray, a: np.ndarray, b: np.ndarray, w=None) -> np.ndarray:
    """S(x) = Σ_i w_i log(1 − P_i(x)) at every point of ``x``."""
    out = np.zeros(x.shape[0])
    for s in range(0, a.shape[0], BLOCK):
        aa, bb = a[s:s + BLOCK, None], b[s:s + BLOCK, None]
        terms = -np.logaddexp(0.0, aa * (x[None, :] - bb))  # log(1 - P)
        out += terms.sum(0) if w is None else w[s:s + BLOCK] @ terms
    return out


def log_posterior(A, a, b, w=None, prior=(0.0, 1.0)):
    """Unnormalised log posterior of θ on ``FINE`` for subjects whose
    ``Σ_i y_i a_i`` (times w_i) is ``A``: ``A θ + S(θ) − (θ − μ)² / 2σ²``."""
    s_fine = CubicSpline(COARSE, _common_log1mp(COARSE, a, b, w))(FINE)
    mu, sd = prior
    return A[:, None] * FINE[None, :] + (s_fine - 0.5 * ((FINE - mu) / sd) ** 2)[None, :]


def _newton_2pl(a, c, r, n, x, prior_a, prior_c):
    """Gradient and (negative) Hessian of every item's log posterior in the
    slope-intercept form z = a θ + c, where the log-likelihood is concave."""
    (ma, sa), (mc, sc) = prior_a, prior_c
    p = expit(a[:, None] * x[None, :] + c[:, None])
    resid = r - n * p
    wgt = n * p * (1.0 - p)
    wx = wgt * x[None, :]
    jaa = wx @ x + 1.0 / sa**2
    jcc = wgt.sum(1) + 1.0 / sc**2
    jac = wx.sum(1)
    ga = resid @ x - (a - ma) / sa**2
    gc = resid.sum(1) - (c - mc) / sc**2
    return (ga, gc), (jaa, jcc, jac)


def _objective_2pl(a, c, r, n, x, prior_a, prior_c):
    """Every item's M-step objective: expected complete-data log-likelihood
    plus the log prior densities (up to a constant); log(1 − σ(z)) =
    log σ(z) − z, one logarithm per cell."""
    z = a[:, None] * x[None, :] + c[:, None]
    ll = (n * -np.logaddexp(0.0, -z) - (n - r) * z).sum(1)
    return ll - 0.5 * ((a - prior_a[0]) / prior_a[1]) ** 2 - 0.5 * ((c - prior_c[0]) / prior_c[1]) ** 2


def _step_2pl(a, c, r, n, x, prior_a, prior_c, halvings=4):
    """One Newton step of every item's (a, c) posterior mode, halved where
    it would lower the item's objective (so EM stays monotone)."""
    (ga, gc), (jaa, jcc, jac) = _newton_2pl(a, c, r, n, x, prior_a, prior_c)
    det = jaa * jcc - jac * jac
    da = np.clip((jcc * ga - jac * gc) / det, -1.0, 1.0)
    dc = np.clip((jaa * gc - jac * ga) / det, -2.0, 2.0)
    old = _objective_2pl(a, c, r, n, x, prior_a, prior_c)
    for _ in range(halvings):
        worse = _objective_2pl(a + da, c + dc, r, n, x, prior_a, prior_c) < old
        if not worse.any():
            break
        da, dc = np.where(worse, da / 2, da), np.where(worse, dc / 2, dc)
    else:
        worse = _objective_2pl(a + da, c + dc, r, n, x, prior_a, prior_c) < old
        da, dc = np.where(worse, 0.0, da), np.where(worse, 0.0, dc)
    return a + da, c + dc


def _newton_c(a, c, r, n, x, prior_c, steps=1):
    """Newton steps of each item's intercept c with a (scalar or per item)
    fixed; returns (c, J_cc) with J_cc the information at the returned c."""
    mc, sc = prior_c
    a = np.broadcast_to(np.asarray(a, dtype=np.float64), c.shape)
    for step in range(steps + 1):
        p = expit(a[:, None] * x[None, :] + c[:, None])
        jcc = (n * p * (1.0 - p)).sum(1) + 1.0 / sc**2
        if step == steps:
            return c, jcc
        gc = (r - n * p).sum(1) - (c - mc) / sc**2
        c = c + np.clip(gc / jcc, -2.0, 2.0)
    raise AssertionError("unreachable")


def _common_a(a, c, r, n, x, counts, prior_a):
    """One Newton step of the 1PL's common a; returns (a, J_aa at the old a)."""
    ma, sa = prior_a
    p = expit(a * x[None, :] + c[:, None])
    g = counts @ ((r - n * p) @ x) - (a - ma) / sa**2
    j = counts @ ((n * p * (1.0 - p)) @ (x * x)) + 1.0 / sa**2
    return float(a + np.clip(g / j, -1.0, 1.0)), float(j)


class _EStep:
    """Expected counts on the nodes: each subject's posterior on the fine
    grid, linearly binned onto the nodes ``x``."""

    def __init__(self, yu: np.ndarray, counts: np.ndarray, x: np.ndarray):
        self.y64 = yu.astype(np.float64)
        self.yt32 = np.ascontiguousarray(yu.T, dtype=np.float32)
        self.counts = counts.astype(np.float64)
        self.bins = _binning(FINE, x)

    def __call__(self, a, c):
        """(r (patterns × active nodes), n (active nodes), active mask)."""
        A = self.y64 @ (self.counts * a)
        with np.errstate(divide="ignore", invalid="ignore"):
            b = np.where(a != 0, -c / np.where(a != 0, a, 1.0), 0.0)
        logp = log_posterior(A, a, b, self.counts)
        post = np.exp(logp - logp.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        pi = post @ self.bins
        n = pi.sum(0)
        active = n > 1e-9 * pi.shape[0]
        r = (self.yt32 @ pi[:, active].astype(np.float32)).astype(np.float64)
        return r, n[active], active


def em(y, model: str, x, priors: Priors, tol: float, max_iter: int):
    """EM over the distinct patterns of items with variance (``y``: subjects
    × items), on the nodes ``x``; returns ((a, b, se_a, se_b) per pattern,
    inverse, n, change, iterations)."""
    first, inverse, counts = _patterns(y)
    estep = _EStep(y[:, first], counts, x)
    p = (y[:, first].sum(0) + 0.5) / (y.shape[0] + 1.0)
    a = np.full(first.shape[0], priors.a[0])
    c = np.clip(np.log(p / (1.0 - p)), -4.0, 4.0)
    change, it = math.inf, 0
    for it in range(1, max_iter + 1):
        r, n, act = estep(a, c)
        if model == "2pl":
            a_new, c_new = a, c
            for _ in range(M_STEPS):
                a_new, c_new = _step_2pl(a_new, c_new, r, n, x[act], priors.a, priors.c)
        else:
            a0, _ = _common_a(a[0], c, r, n, x[act], counts, priors.a)
            c_new, _ = _newton_c(a0, c, r, n, x[act], priors.c)
            a_new = np.full(a.shape, a0)
        # identification: the subjects' pooled posterior has mean 0 and sd 1
        # (θ = sd θ' + mean moved onto the items: a' = a sd, c' = c + a mean),
        # which takes away EM's slow drift along the location/scale ridge
        mean = float(n @ x[act]) / n.sum()
        sd = math.sqrt(float(n @ (x[act] - mean) ** 2) / n.sum())
        a_new, c_new = a_new * sd, c_new + a_new * mean
        change = float(max(np.abs(a_new - a).max(), np.abs(c_new - c).max()))
        a, c = a_new, c_new
        if change < tol:
            break
    r, n, act = estep(a, c)
    n_all = np.zeros(x.shape[0])
    n_all[act] = n
    errors = _item_errors(model, a, c, NodeCounts(r, n, x[act]), counts, priors, tol)
    return errors, inverse, n_all, change, it


def _item_errors(model: str, a, c, at: NodeCounts, counts, priors: Priors, tol: float):
    """(a, b, se_a, se_b) at the estimates.  2PL: the (a, b) posterior mode
    of :func:`_polish_2pl`, its covariance the inverse information; 1PL:
    b = −c / a with its SE by the delta method."""
    if model == "2pl":
        return _polish_2pl(a, c, at, priors.a, priors.b, tol)
    _, jcc = _newton_c(a[0], c, at.r, at.n, at.x, priors.c, steps=0)
    _, ja = _common_a(a[0], c, at.r, at.n, at.x, counts, priors.a)
    vaa, vcc, vac = np.full(a.shape, 1 / ja), 1 / jcc, np.zeros(a.shape)
    return _to_b(a, c, vaa, vcc, vac)


def _info_ab(a, b, r, n, x, prior_a, prior_b):
    """Gradient and Fisher information of every item's log posterior in
    (a, b), z = a (θ − b), priors on a and on b."""
    (ma, sa), (mb, sb) = prior_a, prior_b
    u = x[None, :] - b[:, None]
    p = expit(a[:, None] * u)
    resid = r - n * p
    w = n * p * (1.0 - p)
    ga = (resid * u).sum(1) - (a - ma) / sa**2
    gb = -a * resid.sum(1) - (b - mb) / sb**2
    wu = (w * u).sum(1)
    return (ga, gb), ((w * u * u).sum(1) + 1.0 / sa**2, a * a * w.sum(1) + 1.0 / sb**2, -a * wu)


def _objective_ab(a, b, r, n, x, prior_a, prior_b):
    return _objective_2pl(a, -a * b, r, n, x, prior_a, (0.0, math.inf)) - 0.5 * (
        (b - prior_b[0]) / prior_b[1]) ** 2


def _polish_step(a, b, r, n, x, prior_a, prior_b, halvings):
    """One Fisher-scoring step in (a, b) of every item, halved where it would
    lower the item's objective and dropped where halving does not help."""
    old = _objective_ab(a, b, r, n, x, prior_a, prior_b)
    (ga, gb), (jaa, jbb, jab) = _info_ab(a, b, r, n, x, prior_a, prior_b)
    det = jaa * jbb - jab * jab
    da = np.clip((jbb * ga - jab * gb) / det, -1.0, 1.0)
    db = np.clip((jaa * gb - jab * ga) / det, -2.0, 2.0)
    for _ in range(halvings):
        worse = _objective_ab(a + da, b + db, r, n, x, prior_a, prior_b) < old
        if not worse.any():
            return da, db
        da, db = np.where(worse, da / 2, da), np.where(worse, db / 2, db)
    keep = _objective_ab(a + da, b + db, r, n, x, prior_a, prior_b) >= old
    return np.where(keep, da, 0.0), np.where(keep, db, 0.0)


def _polish_2pl(a, c, at: NodeCounts, prior_a, prior_b, tol: float, halvings=8):
    """The final 2PL M-step: every item's posterior mode in (a, b) under
    priors on a and b, given the E-step's counts ``at``, by Fisher scoring from the converged (a, c) (b
    clipped to the ability range), each step halved where it would lower
    the item's objective; returns (a, b, se_a, se_b), the SEs from the
    inverse information.  The prior on b keeps b finite as a → 0, where
    b = −c / a is undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.clip(-c / np.where(a != 0, a, 1e-12), -LIMIT, LIMIT)
    a, b = a.copy(), b.copy()
    todo = np.arange(a.shape[0])  # items still moving
    for _ in range(POLISH_STEPS):
        if todo.size == 0:
            break
        da, db = _polish_step(a[todo], b[todo], at.r[todo], at.n, at.x, prior_a, prior_b,
                              halvings)
        a[todo] += da
        b[todo] += db
        todo = todo[np.maximum(np.abs(da), np.abs(db)) >= tol / 10]
    _, (jaa, jbb, jab) = _info_ab(a, b, at.r, at.n, at.x, prior_a, prior_b)
    det = jaa * jbb - jab * jab
    return a, b, np.sqrt(jbb / det), np.sqrt(jaa / det)


def _to_b(a, c, vaa, vcc, vac):
    """(a, b, se_a, se_b) from (a, c) and their covariance; b = −c / a."""
    safe = np.where(np.abs(a) > 1e-12, a, 1e-12)
    b = -c / safe
    vb = (c / safe**2) ** 2 * vaa + vcc / safe**2 - 2 * (c / safe**3) * vac
    return a, b, np.sqrt(vaa), np.sqrt(np.maximum(vb, 0.0))


def extreme_items(correct: bool, a, n, x, prior_c):
    """b and its SE of an item every subject gets right (``correct``) or
    wrong: its a held at ``a``, c the posterior mode given a, b = −c / a."""
    r = (n if correct else np.zeros_like(n))[None, :]
    c0 = np.array([3.0 if correct else -3.0])
    c, jcc = _newton_c(a, c0, r, n[None, :], x, prior_c, steps=50)
    return float(-c[0] / a), float(1 / np.sqrt(jcc[0]) / abs(a))
