"""Logistic regressions on subsets of one long pool of rows (RNSB's sentiment lexicons).

The same objective, stopping rule and independent gradient check as
:func:`wefe_same.metrics.logistic.fit_logistic_batch` (scikit-learn's default L2 logistic
regression, C = 1, an unpenalised intercept; ``tol`` on the gradient of the loss divided
by n), for problems that share their rows: problem i is the rows of one pool where
``masks[i]`` is true, e.g. RNSB's ten seeded 80 % subsamples of a pair of sentiment
lexicons (Sweeney & Najafian 2019: 2,006 + 4,783 words). With many more words than
features, Newton–CG (as scikit-learn's ``newton-cg``) is the solver, and sharing the
rows makes each problem's matrix-vector product one matrix-matrix product over the pool
for all of them. Its cost is passes over the pool (tens of MB at real widths), so the
path is arranged to read it rarely and
in float32 where only the path, not the optimum, depends on the precision:

* **Preconditioner.** Conjugate gradients are preconditioned by the pool's Hessian at
  θ = 0 scaled to each subset's size, m/N · ¼ FᵀF + diag(penalty): word vectors are
  anisotropic (a few directions hold most of the variance, Ethayarajh 2019) and a
  diagonal preconditioner left ~100 products per fit. FᵀF comes from a float32 copy of
  the pool (one single-precision matrix product);
  any symmetric positive definite matrix is a valid preconditioner. One per call (per
  pool), factorised once per distinct subset size.
* **Float32 path, float64 optimum.** The Hessian products Fᵀ(s ⊙ F q) always read the
  float32 copy (half the memory traffic), each block of rows once for both products.
  The first Newton steps also take their gradient from it and their margins from the
  sums of those products. After the step from a gradient within ``_SWITCH`` of its
  start (or as soon as one stops halving: float32's rounding, ~6e-8 of a product, is
  reached), every gradient is exact: margins Fθ and gradient recomputed from θ in
  float64 in one pass over the float64 rows. The stopping rule and the returned
  gradient are those exact ones, so the optimum is the float64 optimum; a step's
  precision only changes how many steps it takes. (The switch is one decision for all
  the subsets of a call: RNSB's call is one attribute pair's subsets, so a subset's
  bits depend on its pair and seed only, never on what else is ranked.)
* **Conjugate gradients** stop at the usual forcing term min(0.5, √(‖∇‖/n))·‖∇‖ or, on
  exact gradients, at a tenth of the stopping rule's gradient (× n): the last step then
  lands below it. A step's margins along it (F·step, for the line search) are summed from
  the products that made the step.

The objective is strictly convex, so its optimum is unique: a different path gives the
same coefficients to rounding (tests/metrics/test_logistic_pool.py checks them against
scikit-learn and against the all-float64 batched solver). Measured at 768 dimensions
in benchmarks/RESULTS.md ("RNSB's pool classifiers, cheaper path").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit

from wefe_same.metrics.logistic import _cg_steps, _line_search
from wefe_same.processes import one_thread

#: Bytes of the pool per block of a fused product: a block read for F q is still in cache
#: for Fᵀ(s ⊙ F q).
_BLOCK_BYTES = 256 * 1024
#: Conjugate gradients on exact gradients stop at this share of the stopping rule's gradient (× n).
_CG_FLOOR = 0.1
#: A Newton step from a float32 gradient at most this share of its value at θ = 0 is the
#: last on float32 gradients; the gradients are exact from then on, or as soon as a
#: float32 one stops halving (the value chosen: benchmarks/RESULTS.md, "Measurements behind
#: the code").
_SWITCH = 1e-2
#: Bytes of the float64 rows per block of an exact pass (:func:`exact_gradients`).
_EXACT_BLOCK_BYTES = 512 * 1024


def _block_rows(k: int, itemsize: int) -> int:
    """Rows of the pool per block of a fused product: about ``_BLOCK_BYTES`` of it."""
    return max(16, _BLOCK_BYTES // (itemsize * k))


def _pool(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F = [X, 1] in float32 and FᵀF (in float64) from it: one single-precision product.
    Rows beyond float32's range (|x|² past ~3e38: FᵀF not finite) keep float64 throughout."""
    N, d = X.shape
    F = np.empty((N, d + 1), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is seen in FᵀF, and handled
        F[:, :d] = X
        F[:, d] = 1.0
        gram = (F.T @ F).astype(np.float64)
    if not np.isfinite(gram).all():
        F = np.hstack([X, np.ones((N, 1))])
        gram = F.T @ F
    return F, gram


def _preconditioner(gram: np.ndarray, X: np.ndarray, sizes: np.ndarray,
                    pen: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """M⁻¹ r per problem of m rows (its row of ``r``, its size in ``sizes``), M the pool's
    Hessian at θ = 0 scaled to m rows: m/N · ¼ FᵀF + diag(pen).

    A subset of m of the N rows has about that Hessian at θ = 0, and the logistic weights
    p(1 − p) stay near ¼ for these classifiers, so it is close to every step's Hessian.
    ``gram`` is FᵀF from the float32 pool (:func:`_pool`); should its rounding leave M
    short of positive definite, FᵀF is recomputed from the float64 rows. One k × k
    Cholesky factor per distinct size (RNSB's subsets have one), applied by two
    triangular solves."""
    N = len(X)
    gram = 0.25 * gram
    factors = {}
    for size in np.unique(sizes):
        try:
            factors[size] = cho_factor(gram * (size / N) + np.diag(pen))
        except np.linalg.LinAlgError:
            ones = X.sum(axis=0)
            gram = 0.25 * np.block([[X.T @ X, ones[:, None]], [ones[None, :], np.full((1, 1), float(N))]])
            factors[size] = cho_factor(gram * (size / N) + np.diag(pen))

    def precondition(r: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        out = np.empty_like(r)
        for size, factor in factors.items():
            rows = sizes == size
            out[rows] = cho_solve(factor, r[rows].T, check_finite=False).T
        return out

    return precondition


def _hess_vec(F: np.ndarray, s: np.ndarray, pen: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """H q = Fᵀ(s ⊙ F q) + pen ⊙ q per problem (rows of ``s`` and ``q``), and the margins
    F q, in the precision of the pool ``F`` (float32 unless out of its range), block by
    block of its rows: each block is read from memory once for both products. Returned
    in float64."""
    q32, s32 = q.astype(F.dtype), s.astype(F.dtype)
    out = np.zeros(q.shape, dtype=F.dtype)
    margins = np.empty(s.shape, dtype=F.dtype)
    rows = _block_rows(F.shape[1], F.itemsize)
    for start in range(0, len(F), rows):
        block = F[start:start + rows]
        part = margins[:, start:start + rows]
        np.matmul(q32, block.T, out=part)
        out += (part * s32[:, start:start + rows]) @ block
    return out + pen * q, margins.astype(np.float64)


def exact_gradients(X: np.ndarray, y: np.ndarray, weights: np.ndarray, w: np.ndarray, b: np.ndarray,
                    C: float) -> tuple[np.ndarray, np.ndarray]:
    """Margins X w + b and the gradient (in w, then b) of the penalised loss of each
    problem (weights 0/1 per row), recomputed from the coefficients in float64 by one
    pass over ``X``, block by block of its rows."""
    margins = np.empty(weights.shape)
    grad = np.zeros((len(w), X.shape[1] + 1))
    rows = max(16, _EXACT_BLOCK_BYTES // (X.itemsize * X.shape[1]))
    for start in range(0, len(X), rows):
        part = slice(start, start + rows)
        block = X[part]
        eta = margins[:, part]
        np.matmul(w, block.T, out=eta)
        eta += b[:, None]
        residual = weights[:, part] * (expit(eta) - y[part])
        grad[:, :-1] += residual @ block
        grad[:, -1] += residual.sum(axis=1)
    grad[:, :-1] += w / C
    return margins, grad


def fit_logistic_subsets(X: np.ndarray, y: np.ndarray, masks: np.ndarray, *, C: float = 1.0, tol: float = 1e-12,
                         max_iter: int = 100) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logistic regressions on subsets of one pool of rows, by Newton–CG, all at once.

    The same objective and stopping rule as
    :func:`~wefe_same.metrics.logistic.fit_logistic_batch`; problem i is the rows of ``X``
    where ``masks[i]`` is true. Use it when the subsets hold many more words than features.

    Parameters
    ----------
    X : ndarray, shape (N, d)
    y : ndarray, shape (N,), values 0 and 1
    masks : ndarray of bool, shape (B, N)

    Returns
    -------
    coefs (B, d), intercepts (B,), gradients (B,): as ``fit_logistic_batch``; each
    gradient is max |∇| of the mean penalised loss, recomputed in float64 from the
    returned coefficients.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    weights = np.asarray(masks, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    N, d = X.shape
    B, k = len(weights), d + 1
    n = weights.sum(axis=1)
    pen = np.r_[np.full(d, 1.0 / C), 0.0]
    theta = np.zeros((B, k))
    gradients = np.full(B, np.inf)
    with one_thread(None):
        F, gram = _pool(X)
        precondition = _preconditioner(gram, X, n, pen)
        active = np.arange(B)
        eta = np.zeros((B, N))  # margins F θ of the active problems (θ = 0)
        exact, last_float32, start, last = False, False, 0.0, 0.0
        for _ in range(max_iter):
            th, wa = theta[active], weights[active]
            if not exact:
                p = expit(eta)
                grad = ((wa * (p - y)).astype(F.dtype) @ F).astype(np.float64) + pen * th
                norm_max = float(np.linalg.norm(grad, axis=1).max())
                # No longer falling (float32's rounding, or a hard problem): exact from here.
                exact = bool(start) and norm_max > 0.5 * last
                start, last = start or norm_max, norm_max
                # The step from a gradient this small is the last on float32 gradients: it
                # lands about its square below, out of float32's reach.
                last_float32 = norm_max <= _SWITCH * start
            if exact:
                eta, grad = exact_gradients(X, y, wa, th[:, :-1], th[:, -1], C)
                p = expit(eta)
                norm = np.linalg.norm(grad, axis=1)
                gradients[active] = np.abs(grad).max(axis=1) / n[active]
                done = norm / n[active] <= tol
                if done.all():
                    break
                keep = ~done
                active, th, wa, eta, p, grad = (a[keep] for a in (active, th, wa, eta, p, grad))
            s = wa * p * (1 - p)
            sizes = n[active]

            def hess_vec(q: np.ndarray, s: np.ndarray = s) -> tuple[np.ndarray, np.ndarray | None]:
                return _hess_vec(F, s, pen, q)

            def apply(r: np.ndarray, sizes: np.ndarray = sizes) -> np.ndarray:
                return precondition(r, sizes)

            # On exact gradients, solved to a tenth of the stopping rule's gradient at most:
            # the step then lands below it at once instead of being solved to ~1e-6 of it.
            floor = _CG_FLOOR * tol * sizes if exact else 0.0
            step, F_step = _cg_steps(hess_vec, grad, apply, sizes, floor=floor)
            if F_step is None:  # no conjugate-gradient iteration ran: the step is 0
                F_step = np.zeros_like(eta)
            t = _line_search(eta, np.broadcast_to(y, eta.shape), th, step, grad, F_step, pen, wa)
            theta[active] = th + t[:, None] * step
            eta = eta + t[:, None] * F_step
            exact = exact or last_float32
        else:  # out of steps: the gradient at the returned coefficients, as always
            _, grad = exact_gradients(X, y, weights[active], theta[active, :-1], theta[active, -1], C)
            gradients[active] = np.abs(grad).max(axis=1) / n[active]
    return theta[:, :-1].copy(), theta[:, -1].copy(), gradients
