"""The audit's loose ends (issue 10, item 5): RNSB solved to its optimum, RNSB's canonical
row order, and Direct Bias's c = 0. (The WEAT tie rule is tested in tests/metrics/test_stats.py.)"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from scipy.stats import entropy

from wefe_same.metrics import rnsb as rnsb_module
from wefe_same.metrics.direct_bias import ORTHOGONAL_TOL, direct_bias
from wefe_same.metrics.rnsb import canonical_order, fit_logistic, rnsb


def unit(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def attribute_sets(rng, n1, n2, dim, shift):
    direction = unit(rng.normal(size=(1, dim)))[0]
    return unit(rng.normal(size=(n1, dim)) - shift * direction), unit(rng.normal(size=(n2, dim)) + shift * direction)


def reference_fit(X, y):
    """sklearn's default objective written out — Σ_i log-loss_i + ‖w‖²/2 (C = 1, intercept
    unpenalised) — minimised by scipy's trust-region Newton method to gtol 1e-12."""
    Z = np.hstack([X, np.ones((len(X), 1))])
    penalised = np.r_[np.ones(X.shape[1]), 0.0]

    def f(theta):
        z = Z @ theta
        return -np.sum(y * log_expit(z) + (1 - y) * log_expit(-z)) + 0.5 * np.sum(penalised * theta**2)

    def grad(theta):
        return Z.T @ (expit(Z @ theta) - y) + penalised * theta

    def hess(theta):
        p = expit(Z @ theta)
        return (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(penalised)

    res = minimize(f, np.zeros(Z.shape[1]), jac=grad, hess=hess, method="trust-exact",
                   options={"gtol": 1e-12, "maxiter": 1000})
    # Near gtol 1e-12 the trust region stops on rounding in f ("failure to predict
    # improvement") with ‖∇‖ ~ 1e-10; two plain Newton steps finish the job. The objective
    # is strongly convex, so the distance to the optimum is at most ‖∇‖₂ / λ_min(H):
    # certify that bound instead of the solver's flag.
    theta = res.x
    for _ in range(2):
        theta = theta - np.linalg.solve(hess(theta), grad(theta))
    distance = np.linalg.norm(grad(theta)) / np.linalg.eigvalsh(hess(theta)).min()
    assert distance < 1e-10, (res.message, distance)
    return theta[:-1], theta[-1]


# (sizes of A1 and A2, dimension, class shift): more words than dimensions, as with a
# sentiment lexicon, and fewer (separable data; the penalty keeps the optimum finite).
SHAPES = [((60, 90), 12, 0.6), ((40, 40), 25, 0.3), ((8, 8), 50, 0.5), ((3, 4), 300, 0.5)]


@pytest.mark.parametrize(("sizes", "dim", "shift"), SHAPES)
def test_logistic_regression_reaches_the_optimum(sizes, dim, shift):
    A1, A2 = attribute_sets(np.random.default_rng(dim), *sizes, dim, shift)
    X, y = np.vstack([A1, A2]), np.r_[np.zeros(len(A1)), np.ones(len(A2))]
    w_ref, b_ref = reference_fit(X, y)
    w, b, gradient = fit_logistic(X, y)
    assert gradient <= rnsb_module.GRADIENT_TOL
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-8)
    assert b == pytest.approx(b_ref, abs=1e-8)


@pytest.mark.parametrize(("sizes", "dim", "shift"), SHAPES)
def test_rnsb_value_equals_the_optimal_fit(sizes, dim, shift):
    rng = np.random.default_rng(100 + dim)
    A1, A2 = attribute_sets(rng, *sizes, dim, shift)
    targets = [unit(rng.normal(size=(7, dim))), unit(rng.normal(size=(5, dim)))]
    # train_fraction=1: every classifier trains on all attribute words, so each is the one
    # optimum whatever the seed, and RNSB is KL(P ‖ U) with P ∝ P(A2 | w) from it.
    w, b = reference_fit(np.vstack([A1, A2]), np.r_[np.zeros(len(A1)), np.ones(len(A2))])
    p = expit(np.vstack(targets) @ w + b)
    expected = entropy(p / p.sum(), np.full(len(p), 1 / len(p)))
    got = rnsb(targets, A1, A2, n_iterations=3, train_fraction=1.0, random_state=0)
    assert got.value == pytest.approx(expected, rel=1e-8, abs=1e-12)
    assert got.details["kl_std"] < 1e-10  # three fits on the same words: the same optimum


def test_rnsb_flags_a_fit_that_misses_the_optimum(monkeypatch):
    rng = np.random.default_rng(3)
    A1, A2 = attribute_sets(rng, 30, 30, 10, 0.5)
    monkeypatch.setattr(rnsb_module, "SOLVER_MAX_ITER", 1)
    res = rnsb([A1[:5], A2[:5]], A1, A2, n_iterations=2, random_state=0)
    assert math.isnan(res.value) and "did not reach its optimum" in res.reason
    assert set(res.details) == {"kl_std", "n_iterations"}


def test_rnsb_same_bytes_across_runs_word_orders_and_the_memo():
    from wefe_same.metrics.memo import ModelMemo

    rng = np.random.default_rng(4)
    A1, A2 = attribute_sets(rng, 200, 300, 20, 0.4)
    targets = [unit(rng.normal(size=(6, 20))) for _ in range(2)]
    memo = ModelMemo().bind([*targets, A1, A2], [0, 1, 2, 3])
    first = rnsb(targets, A1, A2, random_state=9, memo=memo)
    assert memo.run.sizes()["rnsb classifiers"] == 1
    again = rnsb(targets, A1, A2, random_state=9, memo=memo)  # from the memo
    fresh = rnsb(targets, A1, A2, random_state=9)  # no memo: trained again
    shuffled = rnsb(targets, A1[rng.permutation(200)], A2[rng.permutation(300)], random_state=9)
    generator = rnsb(targets, A1, A2, random_state=np.random.default_rng(9), memo=memo)  # not remembered
    values = {r.value for r in (first, again, fresh, shuffled, generator)}
    assert len(values) == 1 and first.details == fresh.details == shuffled.details


@pytest.mark.parametrize("ties", [False, True])
def test_canonical_order_is_the_lexicographic_row_order(ties):
    rng = np.random.default_rng(5)
    M = rng.normal(size=(500, 30))
    if ties:  # shared first (and second) coordinates, duplicate rows, ±0
        M[::3, 0] = 0.25
        M[::6, 1] = -1.0
        M[10] = M[20]
        M[30, 0], M[31, 0] = 0.0, -0.0
    np.testing.assert_array_equal(canonical_order(M), np.lexsort(M.T[::-1]))
    assert len(canonical_order(M[:1])) == 1 and len(canonical_order(M[:0])) == 0


# ---------------------------------------------------------------- Direct Bias, c = 0

E = np.eye(4)
FEMALE, MALE = np.array([E[0] + 0.1 * E[2]]), np.array([-E[0] + 0.1 * E[2]])  # bias direction e1


def test_direct_bias_c_zero_is_the_share_of_words_off_the_orthogonal_complement():
    # |cos(w, e1)|: 1, 0, 1/√2, 0, 1e-6 → nonzero for 3 of 5 words.
    T = np.array([E[0], E[1], (E[0] + E[1]) / math.sqrt(2), E[3], unit(np.array([[1e-6, 1, 0, 0]]))[0]])
    res = direct_bias(T, FEMALE, MALE, c=0)
    assert res.value == pytest.approx(3 / 5, abs=1e-15)
    np.testing.assert_allclose(res.word_values["b"], [1, 0, 1 / math.sqrt(2), 0, 1e-6], atol=1e-15)
    # numpy's 0.0 ** 0 == 1 would give 1; the convention gives 0 for orthogonal words only.
    assert direct_bias(E[1:], FEMALE, MALE, c=0).value == 0.0
    assert direct_bias(E[:1], FEMALE, MALE, c=0).value == 1.0


def test_direct_bias_c_zero_tolerance_is_explicit():
    # A word orthogonal up to rounding counts as orthogonal; one just past the tolerance does not.
    rounding = unit(np.array([[1e-15, 1, 0, 0]]))
    past = unit(np.array([[10 * ORTHOGONAL_TOL, 1, 0, 0]]))
    assert direct_bias(rounding, FEMALE, MALE, c=0).value == 0.0
    assert direct_bias(past, FEMALE, MALE, c=0).value == 1.0


def test_direct_bias_small_c_tends_to_the_c_zero_value():
    rng = np.random.default_rng(6)
    T = unit(rng.normal(size=(50, 4)))
    T[:10, 0] = 0.0  # ten words orthogonal to e1
    T = unit(T)
    at_zero = direct_bias(T, FEMALE, MALE, c=0).value
    assert at_zero == pytest.approx(40 / 50)
    assert direct_bias(T, FEMALE, MALE, c=1e-9).value == pytest.approx(at_zero, abs=1e-7)
    # c > 0 is unchanged: the mean of |cos|^c.
    b = np.abs(T[:, 0])
    assert direct_bias(T, FEMALE, MALE, c=0.5).value == pytest.approx(np.mean(b**0.5), rel=1e-14)
