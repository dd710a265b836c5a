"""RNSB's pool solver (wefe_same.metrics.logistic_pool): a float32 path, the float64 optimum.

The optimum of scikit-learn's default L2 logistic regression is the point where the
gradient of the penalised loss vanishes; these tests recompute that gradient here, in
float64 from the returned coefficients, and compare the coefficients with scikit-learn's
and with the batched float64 solver's on the same subsets. The float32 copy of the pool
(the preconditioner's FᵀF and every Hessian product) may only change the path.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles.logistic_sklearn import sklearn_fit
from scipy.special import expit

from wefe_same.metrics import logistic_pool
from wefe_same.metrics.logistic import fit_logistic_batch
from wefe_same.metrics.logistic_pool import fit_logistic_subsets

TOL = 1e-12


def gradient_here(X, y, w, b):
    """max |∇| of the mean penalised loss (C = 1), computed here in float64."""
    residual = expit(X @ w + b) - y
    return max(np.abs(residual @ X + w).max(), abs(residual.sum())) / len(y)


@pytest.fixture(scope="module")
def pool():
    """Word-vector-like rows: unit length, a shared mean direction and a decaying spectrum
    (anisotropic, as the preconditioner expects), labels from a noisy linear rule; six
    80 % subsets and the whole pool."""
    rng = np.random.default_rng(32)
    n, d = 900, 24
    basis = np.linalg.qr(rng.normal(size=(d, d)))[0]
    X = (rng.normal(size=(n, d)) * np.geomspace(3.0, 0.05, d)) @ basis.T + 2.0 * basis[:, 3]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0).astype(float)
    masks = np.zeros((7, n), dtype=bool)
    for mask in masks[:6]:
        mask[rng.choice(n, int(0.8 * n), replace=False)] = True
    masks[6] = True
    return X, y, masks


def test_the_float32_path_reaches_the_float64_optimum(pool):
    X, y, masks = pool
    coefs, intercepts, gradients = fit_logistic_subsets(X, y, masks, tol=TOL)
    batch = fit_logistic_batch([(X[m], y[m]) for m in masks], tol=TOL)
    for i, (mask, w, b, g, w_batch, b_batch) in enumerate(zip(masks, coefs, intercepts, gradients, *batch[:2])):
        here = gradient_here(X[mask], y[mask], w, b)
        assert here <= TOL and g == pytest.approx(here, rel=1e-3, abs=1e-15)
        # The batched solver (float64 throughout, another path) finds the same point.
        np.testing.assert_allclose(w, w_batch, rtol=0, atol=1e-10)
        assert b == pytest.approx(b_batch, abs=1e-10)
        if i in (0, len(masks) - 1):  # a subset and the whole pool, as scikit-learn fits them
            w_ref, b_ref = sklearn_fit(X[mask], y[mask])
            np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-6)
            assert b == pytest.approx(b_ref, abs=1e-6)


def test_float32_products_and_exact_gradients_are_the_path(pool, monkeypatch):
    """Hessian products read a float32 pool; the stopping decision comes from float64 passes."""
    X, y, masks = pool
    seen = {"products": set(), "exact": 0}
    products, exact = logistic_pool._hess_vec, logistic_pool.exact_gradients

    def spy_products(F, *args):
        seen["products"].add(F.dtype)
        return products(F, *args)

    def spy_exact(*args):
        seen["exact"] += 1
        return exact(*args)

    monkeypatch.setattr(logistic_pool, "_hess_vec", spy_products)
    monkeypatch.setattr(logistic_pool, "exact_gradients", spy_exact)
    _, _, gradients = fit_logistic_subsets(X, y, masks[:3], tol=TOL)
    assert seen["products"] == {np.dtype(np.float32)} and seen["exact"] >= 1
    assert gradients.max() <= TOL


def test_float32_gradients_that_stop_falling_hand_over_to_exact_ones(pool, monkeypatch):
    """Never switching by size, the float32 gradient stalls at its rounding; the solver
    then goes on with exact gradients and still meets the stopping rule."""
    X, y, masks = pool
    expected = fit_logistic_subsets(X, y, masks[:2], tol=TOL)
    monkeypatch.setattr(logistic_pool, "_SWITCH", 0.0)
    coefs, intercepts, gradients = fit_logistic_subsets(X, y, masks[:2], tol=TOL)
    assert gradients.max() <= TOL
    np.testing.assert_allclose(coefs, expected[0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(intercepts, expected[1], rtol=0, atol=1e-10)


def test_a_preconditioner_the_float32_gram_fails_is_rebuilt_in_float64(pool, monkeypatch):
    X, y, masks = pool
    expected = fit_logistic_subsets(X, y, masks[:2], tol=TOL)
    factor, grams = logistic_pool.cho_factor, []

    def fails_once(M):
        grams.append(M.copy())
        if len(grams) == 1:
            raise np.linalg.LinAlgError("not positive definite")
        return factor(M)

    monkeypatch.setattr(logistic_pool, "cho_factor", fails_once)
    coefs, intercepts, gradients = fit_logistic_subsets(X, y, masks[:2], tol=TOL)
    F = np.hstack([X, np.ones((len(X), 1))])
    size = masks[0].sum()
    np.testing.assert_allclose(grams[1], 0.25 * size / len(X) * (F.T @ F) + np.diag(np.r_[np.ones(X.shape[1]), 0.0]),
                               rtol=1e-13, atol=1e-12)
    assert gradients.max() <= TOL
    np.testing.assert_allclose(coefs, expected[0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(intercepts, expected[1], rtol=0, atol=1e-10)


def test_rows_beyond_float32s_range_keep_float64_products(pool, monkeypatch):
    """|x| of 1e20 overflows float32's FᵀF: the pool stays float64, and the fit is the
    one of the unscaled rows with w scaled by 1e-20 (C = 1e-40 keeps the penalty's share;
    the gradient scales by 1e20, so does the tolerance)."""
    X, y, masks = pool
    seen = set()
    products = logistic_pool._hess_vec

    def spy(F, *args):
        seen.add(F.dtype)
        return products(F, *args)

    monkeypatch.setattr(logistic_pool, "_hess_vec", spy)
    coefs, intercepts, _ = fit_logistic_subsets(X * 1e20, y, masks[:2], C=1e-40, tol=1e20 * TOL)
    assert seen == {np.dtype(np.float64)}
    expected = fit_logistic_subsets(X, y, masks[:2], tol=TOL)
    np.testing.assert_allclose(coefs * 1e20, expected[0], rtol=0, atol=1e-8)
    np.testing.assert_allclose(intercepts, expected[1], rtol=0, atol=1e-8)


def test_running_out_of_steps_shows_in_the_exact_gradient(pool):
    X, y, masks = pool
    for max_iter in (1, 3):
        coefs, intercepts, gradients = fit_logistic_subsets(X, y, masks[:2], tol=TOL, max_iter=max_iter)
        for mask, w, b, g in zip(masks, coefs, intercepts, gradients):
            assert g > 1e-10
            assert g == pytest.approx(gradient_here(X[mask], y[mask], w, b), rel=1e-9)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rnsb_stacks_the_canonical_pair_as_vstack_would(dtype):
    from wefe_same.metrics.rnsb import _stacked_canonical, canonical_order

    rng = np.random.default_rng(4)
    A1 = rng.integers(0, 3, size=(40, 5)).astype(dtype)  # many ties on the first columns
    A2 = rng.normal(size=(25, 5)).astype(dtype)
    expected = np.vstack([A1[canonical_order(A1)], A2[canonical_order(A2)]]).astype(np.float64)
    got = _stacked_canonical(A1, A2)
    assert got.dtype == np.float64 and np.array_equal(got, expected)
