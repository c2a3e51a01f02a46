"""committee.metrics.itemresponse: parameter recovery, agreement with girth, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committee.metrics import itemresponse
from committee.errors import PlausibilityWarning


def simulate(k, n, seed, n_all_right=0, n_all_wrong=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    a = rng.lognormal(0.0, 0.3, n)
    b = rng.normal(0.0, 1.0, n)
    # items far outside the subjects' range, answered the same by everyone
    extreme = slice(0, n_all_right + n_all_wrong)
    a[extreme] = 3.0
    b[:n_all_right] = -6.0
    b[n_all_right:n_all_right + n_all_wrong] = 6.0
    y = rng.random((k, n)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    return y, theta, a, b


@pytest.fixture(scope="module")
def recovery():
    y, theta, a, b = simulate(240, 4000, seed=11, n_all_right=40, n_all_wrong=20)
    return itemresponse.fit(y), y, theta, a, b


def test_recovery_2pl(recovery):
    f, y, theta, a, b = recovery
    assert f.converged
    assert f.all_correct.sum() >= 40 and f.all_wrong.sum() >= 20
    # every word but the all-right / all-wrong ones, those fitted with a
    # near 0 included (the prior on b keeps their b finite)
    varied = ~(f.all_correct | f.all_wrong)
    assert (f.discrimination[varied] < 0.3).any()
    assert np.corrcoef(f.difficulty[varied], b[varied])[0, 1] >= 0.95
    assert np.corrcoef(f.discrimination[varied], a[varied])[0, 1] >= 0.6
    assert np.corrcoef(f.ability, theta)[0, 1] >= 0.95
    rank = lambda v: np.argsort(np.argsort(v))  # noqa: E731
    assert np.corrcoef(rank(f.difficulty), rank(b))[0, 1] >= 0.95


def test_extreme_items_finite_and_ordered(recovery):
    f, *_ = recovery
    est = f.difficulty
    assert np.isfinite(est).all() and np.isfinite(f.difficulty_se).all()
    varied = ~(f.all_correct | f.all_wrong)
    # an item every member gets right is easier than any other, and its
    # discrimination is the prior mean with the prior's sd as SE
    assert est[f.all_correct].max() < np.quantile(est[varied], 0.01)
    assert est[f.all_wrong].min() > np.quantile(est[varied], 0.99)
    assert np.all(f.discrimination[f.all_correct] == itemresponse.PRIOR_A[0])
    assert np.all(f.discrimination_se[f.all_correct] == itemresponse.PRIOR_A[1])


def test_standard_errors_cover_truth(recovery):
    f, y, theta, a, b = recovery
    varied = ~(f.all_correct | f.all_wrong) & (np.abs(b) < 2) & (f.discrimination >= 0.3)
    z = (f.difficulty[varied] - b[varied]) / f.difficulty_se[varied]
    assert 0.85 <= np.mean(np.abs(z) < 1.96) <= 1.0
    # θ's scale is set by the members (pooled posterior mean 0, sd 1)
    zt = (f.ability - (theta - theta.mean()) / theta.std()) / f.ability_se
    assert 0.85 <= np.mean(np.abs(zt) < 1.96) <= 1.0


def test_agrees_with_girth():
    girth = pytest.importorskip("girth")
    y, theta, a, b = simulate(600, 25, seed=5)
    f = itemresponse.fit(y, prior_a=(1.0, 100.0), prior_c=(0.0, 100.0), prior_b=(0.0, 100.0))
    g = girth.twopl_mml(y.T.astype(int))
    assert np.corrcoef(f.difficulty, g["Difficulty"])[0, 1] > 0.99
    assert np.corrcoef(f.discrimination, g["Discrimination"])[0, 1] > 0.97
    assert np.max(np.abs(f.difficulty - g["Difficulty"])) < 0.15


def test_1pl_shares_discrimination():
    y, theta, a, b = simulate(200, 300, seed=2)
    f = itemresponse.fit(y, model="1pl")
    assert f.converged and np.unique(f.discrimination).size == 1
    assert np.corrcoef(f.difficulty, b)[0, 1] > 0.95


def test_ability_from_subset_close_to_full(recovery):
    f, *_ = recovery
    items = itemresponse.select_items(f.discrimination, f.difficulty, 400,
                             (f.ability.min(), f.ability.max()))
    assert items.size == 400
    # held-out systems: fresh subjects drawn from the true model
    rng = np.random.default_rng(99)
    _, _, a, b = recovery[1:]
    th_true = rng.normal(size=30)
    y_new = rng.random((30, b.size)) < 1 / (1 + np.exp(-a * (th_true[:, None] - b)))
    th_full, _ = itemresponse.ability(y_new, f.discrimination, f.difficulty)
    th_sub, se_sub = itemresponse.ability(y_new[:, items], f.discrimination, f.difficulty, items=items)
    assert np.sqrt(np.mean((th_sub - th_full) ** 2)) < 0.2
    rand = np.sort(rng.choice(b.size, 400, replace=False))
    th_rand, _ = itemresponse.ability(y_new[:, rand], f.discrimination, f.difficulty, items=rand)
    assert np.mean((th_sub - th_full) ** 2) < np.mean((th_rand - th_full) ** 2)
    # the recall estimated from the 400 items and the model
    recall = y_new.mean(1)
    est = np.array([itemresponse.fill_outcomes(t, f.discrimination, f.difficulty, items, y[items]).mean()
                    for t, y in zip(th_sub, y_new)])
    assert np.mean(np.abs(est - recall)) < 0.015 and np.max(np.abs(est - recall)) < 0.06


@pytest.mark.parametrize("bad, message", [
    (np.zeros(5, bool), "matrix"),
    (np.full((10, 3), 2), "found the value 2"),
    (np.array([["x"] * 3] * 10), "dtype"),
])
def test_bad_responses(bad, message):
    with pytest.raises(ValueError, match=message):
        itemresponse.fit(bad)


def test_committee_size_limits():
    y, *_ = simulate(4, 50, seed=1)
    with pytest.raises(ValueError, match="too few"):
        itemresponse.fit(y)
    y, *_ = simulate(10, 50, seed=1)
    with pytest.warns(PlausibilityWarning, match="only 10 subjects"):
        itemresponse.fit(y)


def test_not_converged_is_reported():
    y, *_ = simulate(60, 200, seed=4)
    f = itemresponse.fit(y, max_iter=2)
    assert not f.converged and f.n_iter == 2 and f.max_change > f.settings["tol"]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=3, max_size=12))
def test_ability_monotone_in_right_answers(outcomes):
    """Turning a wrong answer into a right one never lowers the EAP θ
    (every a > 0)."""
    y = np.array(outcomes)
    a = np.linspace(0.5, 2.0, y.size)
    b = np.linspace(-2.0, 2.0, y.size)
    th, se = itemresponse.ability(y, a, b)
    for i in np.flatnonzero(~y):
        y2 = y.copy()
        y2[i] = True
        assert itemresponse.ability(y2, a, b)[0] >= th - 1e-12
    assert 0 < se < 1


def test_probability_and_infit_by_hand():
    p = itemresponse.probability([1.0], [2.0], [0.5])[0, 0]
    assert p == pytest.approx(1 / (1 + np.exp(-1.0)))
    # one subject, answer right with P = p: infit = (1 - p)^2 / (p (1 - p))
    assert itemresponse.infit(np.array([[True]]), [2.0], [0.5], [1.0])[0] == pytest.approx((1 - p) / p)
