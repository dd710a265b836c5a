"""Relative Negative Sentiment Bias (Sweeney & Najafian 2019), as WEFE generalises it (Badilla et al. 2020, §4.1).

Each classifier is WEFE's: scikit-learn's ``LogisticRegression`` with its default
objective — L2 penalty, C = 1, an unpenalised intercept —

    min_{w, b}  Σ_i log(1 + exp(−ỹ_i (x_i · w + b))) + ‖w‖² / (2C),   ỹ_i = ±1,

but solved to its optimum (``tol`` 1e-12) instead of stopping at sklearn's default
tolerance, which leaves the fit 0.06–0.46 % short of the optimum and makes RNSB depend
on the solver. The objective is strictly convex, so its optimum is unique and RNSB is a
function of the data and the seeded subsamples only. Every fit is checked independently:
the largest entry of the gradient of the mean penalised loss must be at most
``GRADIENT_TOL``; the fit falls back to the next solver of ``SOLVERS`` when it is not,
and the value is NaN with the reason when no solver gets there.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict

import numpy as np
from scipy.special import expit
from scipy.stats import entropy

from wefe_same.metrics.result import MetricResult
from wefe_same.validation import check_int, check_number

#: Solvers tried in turn until a fit passes the gradient check: Newton–CG (Hessian-vector
#: products, the fastest here: 2x newton-cholesky on a 6 000-word lexicon in 300 dimensions),
#: then Newton's method with Cholesky solves.
SOLVERS = ("newton-cg", "newton-cholesky")
#: sklearn's stopping rule: max |∇| of its mean loss at most this.
SOLVER_TOL = 1e-12
#: Newton iterations allowed; a fit needs 5–10 from a zero start.
SOLVER_MAX_ITER = 100
#: The independent convergence check: max |∇| of the mean penalised log-loss at the
#: returned coefficients (the default run ends below 1e-12).
GRADIENT_TOL = 1e-10
C = 1.0

#: Trained classifiers by (attribute vectors, settings): a ranking run scores many target
#: sets against the same attribute pair (e.g. a sentiment lexicon), and the training (with
#: the canonical sort before it) is the expensive part. Keyed by the bytes of the vectors,
#: so the cache can never change a result.
_CLASSIFIERS: OrderedDict[tuple, tuple[np.ndarray, np.ndarray, float]] = OrderedDict()
_CACHE_SIZE = 64


def canonical_order(M: np.ndarray) -> np.ndarray:
    """Row order by content: by column 0, ties by column 1, … (``np.lexsort(M.T[::-1])``).

    The lexicographic sort of all d columns costs d stable sorts; rows of real embeddings
    almost never tie on their first coordinate, so one stable sort of column 0 gives the
    same order, and only ties fall back to the full sort.

    >>> canonical_order(np.array([[2.0, 0.0], [1.0, 5.0], [1.0, 3.0]]))
    array([2, 1, 0])
    """
    if len(M) < 2:
        return np.arange(len(M))
    order = np.argsort(M[:, 0], kind="stable")
    first = M[order, 0]
    if np.any(first[1:] == first[:-1]):
        return np.lexsort(M.T[::-1])
    return order


def _canonical(M: np.ndarray) -> np.ndarray:
    """Rows sorted by content, so the random split never depends on word order."""
    return M[canonical_order(M)]


def _digest(M: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(M, dtype=np.float64).tobytes()).hexdigest()


def penalised_gradient(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """Gradient in (w, b) of (1/n) [Σ_i logloss_i + ‖w‖² / (2C)], sklearn's objective / n.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    y : ndarray, shape (n,), values 0 and 1
    w : ndarray, shape (d,)
    b : float

    Returns
    -------
    ndarray, shape (d + 1,)
    """
    residual = expit(X @ w + b) - y
    return np.r_[X.T @ residual + w / C, residual.sum()] / len(y)


def _fit_with(solver: str, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        # The independent gradient check decides whether a fit reached the optimum.
        warnings.simplefilter("ignore")
        clf = LogisticRegression(C=C, solver=solver, tol=SOLVER_TOL, max_iter=SOLVER_MAX_ITER).fit(X, y)
    return clf.coef_[0].astype(np.float64), float(clf.intercept_[0])


def fit_logistic(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """sklearn's default L2 logistic regression (C = 1), solved to the optimum.

    Returns the coefficients (d,), the intercept and max |∇| of the mean penalised loss
    at them (see :func:`penalised_gradient`); convergence is judged by that value, not by
    a solver's own report, and the next solver of ``SOLVERS`` runs when it is above
    ``GRADIENT_TOL``.
    """
    fits = []
    for solver in SOLVERS:
        w, b = _fit_with(solver, X, y)
        fits.append((w, b, float(np.abs(penalised_gradient(X, y, w, b)).max())))
        if fits[-1][2] <= GRADIENT_TOL:
            break
    return min(fits, key=lambda fit: fit[2])


def _train(A1: np.ndarray, A2: np.ndarray, n_iterations: int, train_fraction: float,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """Coefficients (n_iterations, d), intercepts and the largest final gradient of the
    A1-vs-A2 logistic regressions; ``A1`` and ``A2`` in canonical row order."""
    from threadpoolctl import threadpool_limits

    coefs, intercepts, gradient = [], [], 0.0
    # One thread: these products are small, and extra BLAS/OpenMP threads only contend
    # for the cores (the default run's RNSB took 42 s instead of 5 s on a busy 2-core
    # machine); the rounding of a reduction then never depends on the thread count either.
    with threadpool_limits(limits=1):
        for _ in range(n_iterations):
            picks = [rng.choice(len(A), max(1, round(train_fraction * len(A))), replace=False) for A in (A1, A2)]
            X = np.vstack([A1[picks[0]], A2[picks[1]]])
            y = np.r_[np.zeros(len(picks[0])), np.ones(len(picks[1]))]
            w, b, g = fit_logistic(X, y)
            coefs.append(w)
            intercepts.append(b)
            gradient = max(gradient, g)
    return np.array(coefs), np.array(intercepts), gradient


def _classifiers(A1, A2, n_iterations, train_fraction, random_state):
    if not isinstance(random_state, (int, np.integer)):
        return _train(_canonical(A1), _canonical(A2), n_iterations, train_fraction,
                      np.random.default_rng(random_state))
    # Keyed by the bytes as given: a hit skips the canonical sort as well as the training.
    # The same rows in another order miss, then train on the same canonical rows: equal bytes.
    key = (_digest(A1), _digest(A2), A1.shape, A2.shape, n_iterations, train_fraction, int(random_state))
    if key not in _CLASSIFIERS:
        _CLASSIFIERS[key] = _train(_canonical(A1), _canonical(A2), n_iterations, train_fraction,
                                   np.random.default_rng(random_state))
        if len(_CLASSIFIERS) > _CACHE_SIZE:
            _CLASSIFIERS.popitem(last=False)
    _CLASSIFIERS.move_to_end(key)
    return _CLASSIFIERS[key]


def rnsb(
    targets: list[np.ndarray],
    A1: np.ndarray,
    A2: np.ndarray,
    *,
    n_iterations: int = 10,
    train_fraction: float = 0.8,
    random_state: int | np.random.Generator | None = None,
) -> MetricResult:
    """KL divergence between the normalised P(A2 | w) over all target words and uniform.

    A logistic regression learns A1 (class 0) against A2 (class 1); each iteration trains
    on a seeded, stratified ``train_fraction`` of the attribute words. The value is the
    mean KL over iterations; 0 means every target word is equally associated with A2.
    Each regression is sklearn's default (L2, C = 1, as in WEFE) solved to its optimum;
    a fit whose gradient is not below ``GRADIENT_TOL`` makes the value NaN with the reason.

    Parameters
    ----------
    targets : list of ndarray, shapes (n_i, d)
    A1, A2 : ndarray, shapes (m1, d), (m2, d)
    n_iterations : int, default 10
        Classifiers, each on its own subsample.
    train_fraction : float in (0, 1], default 0.8
        Share of each attribute set each classifier trains on (at least one word).
    """
    check_int(n_iterations, "n_iterations", "rnsb", minimum=1)
    check_number(train_fraction, "train_fraction", "rnsb", low=0, high=1, low_open=True)
    coefs, intercepts, gradient = _classifiers(A1, A2, int(n_iterations), float(train_fraction), random_state)
    details = {"kl_std": np.nan, "n_iterations": n_iterations}
    if not gradient <= GRADIENT_TOL:
        return MetricResult.undefined(
            f"a logistic regression did not reach its optimum: max |gradient| {gradient:.3g} > {GRADIENT_TOL:g}",
            details)
    words = np.vstack(targets)
    p = expit(words @ coefs.T + intercepts)  # (words, iterations): P(A2 | w) per classifier
    P = p / p.sum(axis=0)
    kls = entropy(P, np.full_like(P, 1.0 / len(words)), axis=0)
    details["kl_std"] = kls.std(ddof=1) if n_iterations > 1 else 0.0
    return MetricResult(kls.mean(), details)
