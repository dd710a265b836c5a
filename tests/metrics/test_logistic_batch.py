"""The batched logistic solve (wefe_same.metrics.logistic) against scikit-learn, its oracle.

scikit-learn's ``LogisticRegression`` (C = 1, L2, unpenalised intercept, newton-cholesky
to tol 1e-12) fits each problem alone; the batch must reach the same optimum to 1e-6
(it does to ~1e-10) on random problems of every shape RNSB meets: fewer words than
dimensions (separable: only the penalty bounds w), near-separable classes, many more
words than dimensions (the Newton–CG path), one word per class, duplicate rows and a
row in both classes. RNSB's value is then recomputed from scikit-learn's fits on the
same seeded subsamples (drawn here as the paper's procedure says, not by our code).
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles.logistic_sklearn import sklearn_fit
from scipy.special import expit
from scipy.stats import entropy

from wefe_same.metrics import rnsb as rnsb_module
from wefe_same.metrics.logistic import fit_logistic_batch
from wefe_same.metrics.logistic_pool import fit_logistic_subsets
from wefe_same.metrics.memo import ModelMemo


def unit(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def random_problem(rng, n1, n2, d, shift, *, raw=False, duplicates=False, shared=False):
    direction = unit(rng.normal(size=(1, d)))[0]
    A1 = rng.normal(size=(n1, d)) - shift * direction
    A2 = rng.normal(size=(n2, d)) + shift * direction
    if not raw:
        A1, A2 = unit(A1), unit(A2)
    else:
        A1, A2 = 3 * A1, 3 * A2  # raw vectors, norms ≈ 3√d
    if duplicates and n1 > 1:
        A1[1] = A1[0]
    if shared:
        A2[0] = A1[0]  # one vector in both classes
    return np.vstack([A1, A2]), np.r_[np.zeros(n1), np.ones(n2)]


CASES = [
    # (n1, n2, d, shift, options)
    *[(n1, n2, d, s, {}) for n1, n2 in [(1, 1), (1, 5), (4, 4), (20, 20), (25, 31)]
      for d in (2, 10, 50, 300) for s in (0.0, 0.5, 3.0)],
    (30, 30, 50, 0.5, {"duplicates": True}),
    (3, 3, 20, 0.5, {"duplicates": True, "shared": True}),
    (10, 12, 50, 1.0, {"raw": True}),
    (200, 260, 20, 0.4, {}),  # many words per feature: the Newton–CG steps
    (400, 300, 50, 0.3, {"duplicates": True}),
    (300, 300, 40, 8.0, {}),  # separable with many words
]


def test_batch_reaches_sklearns_optimum_on_random_problems():
    rng = np.random.default_rng(2019)
    by_dim: dict[int, list] = {}
    for n1, n2, d, shift, opts in CASES:
        by_dim.setdefault(d, []).append(random_problem(rng, n1, n2, d, shift, **opts))
    for problems in by_dim.values():
        coefs, intercepts, gradients = fit_logistic_batch(problems, tol=1e-12)
        assert gradients.max() <= rnsb_module.GRADIENT_TOL
        for (X, y), w, b in zip(problems, coefs, intercepts):
            w_ref, b_ref = sklearn_fit(X, y)
            np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-6)
            assert b == pytest.approx(b_ref, abs=1e-6)
            p, p_ref = expit(X @ w + b), expit(X @ w_ref + b_ref)
            np.testing.assert_allclose(p, p_ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize(("n1", "n2", "d", "shift"), [(150, 200, 20, 0.4), (400, 300, 50, 3.0), (60, 60, 4, 0.0)])
def test_subsets_of_one_pool_reach_sklearns_optimum(n1, n2, d, shift):
    rng = np.random.default_rng(n1 + d)
    X, y = random_problem(rng, n1, n2, d, shift, duplicates=True)
    masks = np.zeros((6, len(y)), dtype=bool)
    for mask in masks:
        mask[rng.choice(len(y), int(0.8 * len(y)), replace=False)] = True
    masks[0, :] = True
    assert_subsets_reach_sklearns_optimum(X, y, masks)


def assert_subsets_reach_sklearns_optimum(X, y, masks):
    coefs, intercepts, gradients = fit_logistic_subsets(X, y, masks)
    assert gradients.max() <= rnsb_module.GRADIENT_TOL
    for mask, w, b in zip(masks, coefs, intercepts):
        w_ref, b_ref = sklearn_fit(X[mask], y[mask])
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-6)
        assert b == pytest.approx(b_ref, abs=1e-6)


def test_subsets_of_an_anisotropic_pool_reach_sklearns_optimum():
    """Word vectors share a mean direction and a few strong ones (the case the pool's
    Hessian preconditions); a lexicon's thousands of words against 40 dimensions."""
    rng = np.random.default_rng(19)
    d, n = 40, 3000
    spectrum = np.geomspace(6.0, 0.05, d)
    X = rng.normal(size=(n, d)) * spectrum + 4.0 * unit(rng.normal(size=(1, d)))
    y = (X @ rng.normal(size=d) + rng.normal(scale=4.0, size=n) > np.median(X @ rng.normal(size=d))).astype(float)
    masks = np.zeros((5, n), dtype=bool)
    for i, mask in enumerate(masks):
        mask[rng.choice(n, (2400, 2400, 2400, 1800, n)[i], replace=False)] = True
    assert_subsets_reach_sklearns_optimum(X, y, masks)


def test_a_problems_result_does_not_depend_on_the_rest_of_the_batch():
    rng = np.random.default_rng(5)
    problems = [random_problem(rng, 8, 8, 30, 0.5) for _ in range(5)]
    problems += [random_problem(rng, 9, 7, 30, 0.5), random_problem(rng, 150, 150, 30, 0.5)]
    together = fit_logistic_batch(problems)
    for i, problem in enumerate(problems):
        alone = fit_logistic_batch([problem])
        assert np.array_equal(alone[0][0], together[0][i]) and alone[1][0] == together[1][i]


def test_running_out_of_steps_shows_in_the_gradient():
    rng = np.random.default_rng(6)
    problems = [random_problem(rng, 20, 20, 10, 0.5), random_problem(rng, 200, 200, 10, 0.5)]
    _, _, gradients = fit_logistic_batch(problems, max_iter=1)
    assert (gradients > rnsb_module.GRADIENT_TOL).all()


def test_the_empty_batch():
    coefs, intercepts, gradients = fit_logistic_batch([])
    assert coefs.shape[0] == intercepts.size == gradients.size == 0


def rnsb_by_sklearn(targets, A1, A2, n_iterations, train_fraction, seed):
    """RNSB as the procedure reads: the attribute rows in canonical (lexicographic) order,
    per iteration a seeded subsample without replacement of round(fraction·m) rows of each
    set (at least one; A1's draw first), one scikit-learn fit each, KL to uniform."""
    A1, A2 = A1[np.lexsort(A1.T[::-1])], A2[np.lexsort(A2.T[::-1])]
    rng = np.random.default_rng(seed)
    words = np.vstack(targets)
    kls = []
    for _ in range(n_iterations):
        i1 = rng.choice(len(A1), max(1, round(train_fraction * len(A1))), replace=False)
        i2 = rng.choice(len(A2), max(1, round(train_fraction * len(A2))), replace=False)
        w, b = sklearn_fit(np.vstack([A1[i1], A2[i2]]), np.r_[np.zeros(len(i1)), np.ones(len(i2))])
        p = expit(words @ w + b)
        kls.append(entropy(p / p.sum(), np.full(len(p), 1 / len(p))))
    return float(np.mean(kls))


@pytest.mark.parametrize(("m1", "m2", "d", "fraction"),
                         [(25, 25, 50, 0.8), (2, 3, 20, 0.8), (1, 1, 10, 0.5), (8, 40, 300, 0.8),
                          (300, 350, 20, 0.8), (12, 12, 6, 1.0)])
def test_rnsb_equals_rnsb_from_sklearn_fits(m1, m2, d, fraction):
    rng = np.random.default_rng(m1 * 1000 + d)
    X, y = random_problem(rng, m1, m2, d, 0.5)
    A1, A2 = X[y == 0], X[y == 1]
    targets = [unit(rng.normal(size=(6, d))), unit(rng.normal(size=(4, d)))]
    expected = rnsb_by_sklearn(targets, A1, A2, 10, fraction, 11)
    got = rnsb_module.rnsb(targets, A1, A2, n_iterations=10, train_fraction=fraction, random_state=11)
    assert got.value == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_prefit_trains_what_rnsb_would_train_alone():
    rng = np.random.default_rng(8)
    # Two dimensions and both solvers' sizes (few words: the batch; many: subsets of a pool).
    pairs = [random_problem(rng, m, m + 3, d, 0.4) for m, d in ((5, 25), (5, 25), (12, 25), (40, 25), (5, 8), (90, 8))]
    model = ModelMemo()
    calls = []
    for seed, (X, y) in enumerate(pairs):
        t, a = [unit(rng.normal(size=(5, X.shape[1])))], [X[y == 0], X[y == 1]]
        calls.append((model.bind([*t, *a], [3 * seed, 3 * seed + 1, 3 * seed + 2]), t, a, {"n_iterations": 4}, seed))
    alone = [rnsb_module.rnsb(t, *a, **o, random_state=s) for _, t, a, o, s in calls]  # no memo: trained here
    assert rnsb_module.prefit(calls) == len(calls)
    assert rnsb_module.prefit(calls) == 0  # all in the run's memo now
    assert model.run.sizes()["rnsb classifiers"] == len(calls)

    def no_training(requests, memo=None):
        raise AssertionError("rnsb trained again what prefit had trained")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(rnsb_module, "_train", no_training)
        batched = [rnsb_module.rnsb(t, *a, **o, random_state=s, memo=memo) for memo, t, a, o, s in calls]
    assert [r.value for r in alone] == [r.value for r in batched]
