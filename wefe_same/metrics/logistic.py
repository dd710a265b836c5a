"""Many small L2 logistic regressions solved at once: one batched Newton solve in numpy.

RNSB (Sweeney & Najafian 2019) trains ``n_iterations`` classifiers per attribute pair, for
every subquery of every model: the default run fits about 1 300 of them, each on a few
dozen words. scikit-learn's ``LogisticRegression`` fits one problem per call, and at this
size its per-call overhead (input validation, solver set-up, a Python-level Newton loop)
is most of the cost: about 12 ms a fit. Nothing in scikit-learn batches many independent
small problems, so this module solves them together: every Newton step of every problem
of a stack is one stacked ``np.linalg.solve``.

The objective is scikit-learn's default one, unchanged (L2 penalty, ``C``, an
unpenalised intercept, no class weights), for labels y ∈ {0, 1}:

    min_{w, b}  Σ_i [log(1 + exp(x_i·w + b)) − y_i (x_i·w + b)] + ‖w‖² / (2C).

It is strictly convex, so the optimum is unique and any solver that reaches it returns
the same coefficients (to rounding): tests/metrics/test_logistic_batch.py checks this one
against scikit-learn at tolerance 1e-12.

Three things make it cheap:

* **Row-space reduction.** With fewer words n than dimensions d, the optimal w lies in
  the span of the rows (the gradient condition gives w = −C Σ_i r_i x_i), so with
  Xᵀ = QR (Q: d × n, orthonormal columns) w = Qz and the problem is the same one in
  n features, Z = XQ, with ‖w‖ = ‖z‖. The Hessians are then (n + 1)², not (d + 1)².
* **Stacks of equal size.** Problems with the same number of words are solved as one
  stack (RNSB's repeats of one attribute pair always are), unpadded, so each problem's
  result is the same bytes whatever else is in the batch.
* **Newton–CG for long problems.** With many more words than features (a sentiment
  lexicon of 5 000 words against 300 dimensions) forming each Hessian (n·k² per step)
  would dominate; the step then comes from preconditioned conjugate gradients (two
  passes over the words per iteration), as scikit-learn's ``newton-cg`` does, and the
  line search reuses the margins along the step. Stacks are preconditioned by the
  Hessian's diagonal; subsets of one pool of rows (RNSB's subsamples of a sentiment
  lexicon pair) have their own solver, :mod:`wefe_same.metrics.logistic_pool`, which
  shares this module's conjugate gradients and line search.

Stopping rule: scikit-learn's (``tol`` on max |∇| of the objective divided by n), here
on the Euclidean norm of the reduced gradient, which bounds max |∇| in the original
coordinates (∇_w = Q ∇_z). Steps are damped by a backtracking (Armijo) line search, so
separable data, where the penalty alone bounds w, converge too. The returned gradient
is recomputed in the original coordinates, independently of the solver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import expit

from wefe_same.processes import one_thread

#: Largest stacked feature array of one chunk, in float64 entries (~64 MB).
_CHUNK_ENTRIES = 8_000_000
#: Armijo's sufficient-decrease constant, and the step halvings tried.
_ARMIJO = 1e-4
_HALVINGS = 40
#: Conjugate-gradient iterations allowed per Newton–CG step (scikit-learn's 200).
_CG_MAX_ITER = 200


def _objective(eta: np.ndarray, y: np.ndarray, theta: np.ndarray, pen: np.ndarray,
               weights: np.ndarray | None) -> np.ndarray:
    """The penalised loss per problem, from the margins η = Fθ (rows weighted 0/1 if given)."""
    # log(1 + e^η) as max(η, 0) + log1p(e^−|η|): the same value to an ulp, and 7x faster
    # than np.logaddexp, whose float64 loop calls libm per element (it was most of a
    # lexicon fit's time); it only decides the line search's steps, not the optimum.
    loss = np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta))) - y * eta
    return (loss if weights is None else loss * weights).sum(axis=1) + 0.5 * (pen * theta**2).sum(axis=1)


def _line_search(eta: np.ndarray, y: np.ndarray, theta: np.ndarray, step: np.ndarray, grad: np.ndarray,
                 F_step: np.ndarray, pen: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Step lengths t ∈ {1, 1/2, …} meeting Armijo's condition, one per problem; the
    margins along the step are η + t·F·step, so no trial touches F again."""
    slope = (grad * step).sum(axis=1)
    f0 = _objective(eta, y, theta, pen, weights)
    # Rounding in f: a step within it of f0 is accepted (only the gradient decides
    # convergence, and near the optimum Newton's full step is the right one).
    slack = 1e-13 * (1.0 + np.abs(f0))
    t = np.ones(len(theta))
    pending = np.ones(len(theta), dtype=bool)
    for _ in range(_HALVINGS):
        idx = np.flatnonzero(pending)
        # Every problem (the first trial, mostly the only one): views, not copies of the
        # (problems, words) arrays; the same values either way.
        part = slice(None) if len(idx) == len(t) else idx
        ti = t[part, None]
        f1 = _objective(eta[part] + ti * F_step[part], y[part], theta[part] + ti * step[part], pen,
                        None if weights is None else weights[part])
        ok = f1 <= f0[part] + _ARMIJO * t[part] * slope[part] + slack[part]
        pending[idx[ok]] = False
        t[idx[~ok]] *= 0.5
        if not pending.any():
            break
    return t


#: (B, k) → (H v per problem, and F v, the margins along v, where the product made them, or None).
HessVec = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]]


def _cg_steps(hess_vec: HessVec, grad: np.ndarray, precondition: Callable[[np.ndarray], np.ndarray],
              n: float | np.ndarray, floor: float | np.ndarray = 0.0) -> tuple[np.ndarray, np.ndarray | None]:
    """Inexact Newton steps: H d = −∇ by conjugate gradients (``hess_vec``: (B, k) → H v per
    problem, H v = Fᵀ(s ⊙ Fv) + pen ⊙ v, and F v or None), ``precondition``: (B, k) → M⁻¹ r,
    an approximate inverse Hessian; stops at the forcing term min(0.5, √(‖∇‖/n))·‖∇‖
    (scikit-learn's newton-cg on the mean loss), which keeps the convergence superlinear,
    or at ``floor`` (per problem) when that is larger: a residual below what the stopping
    rule needs buys nothing (the gradient after a full step is about the residual).
    Returns the steps d and, when ``hess_vec`` gives F v, the margins along them F d (the
    same sum of the same products as d: no pass over F for them); else None."""
    norm = np.linalg.norm(grad, axis=1)
    target = np.maximum(np.minimum(0.5, np.sqrt(norm / n)) * norm, floor)
    d = np.zeros_like(grad)
    r = -grad
    z = precondition(r)
    q = z.copy()
    rz = (r * z).sum(axis=1)
    Fd: np.ndarray | None = None
    for _ in range(_CG_MAX_ITER):
        live = np.linalg.norm(r, axis=1) > target
        if not live.any():
            break
        Hq, Fq = hess_vec(q)
        curvature = (q * Hq).sum(axis=1)
        alpha = np.where(live, rz / np.where(live, curvature, 1.0), 0.0)
        d += alpha[:, None] * q
        if Fq is not None:
            Fd = alpha[:, None] * Fq if Fd is None else Fd + alpha[:, None] * Fq
        r -= alpha[:, None] * Hq
        z = precondition(r)
        rz_new = (r * z).sum(axis=1)
        beta = np.where(live, rz_new / np.where(rz == 0, 1.0, rz), 0.0)
        q = np.where(live[:, None], z + beta[:, None] * q, q)
        rz = np.where(live, rz_new, rz)
    return d, Fd


def _newton(F: np.ndarray, y: np.ndarray, pen: np.ndarray, tol: float, max_iter: int, cg: bool) -> np.ndarray:
    """Minimise each problem of the stack (B, n, k) from θ = 0; returns θ, shape (B, k).

    ``cg``: Newton–CG steps (for many more words than features, e.g. a sentiment lexicon:
    a Hessian costs n·k² per step, a CG iteration n·k, and a step needs about five);
    otherwise exact Newton steps from the Hessian."""
    B, n, k = F.shape
    theta = np.zeros((B, k))
    active = np.arange(B)
    Fa, ya = F, y
    precond = None
    if cg:
        precond = 1.0 / (0.25 * np.einsum("bnk,bnk->bk", F, F) + pen)
    for _ in range(max_iter):
        th = theta[active]
        eta = np.matmul(Fa, th[..., None])[..., 0]
        p = expit(eta)
        grad = np.matmul((p - ya)[:, None, :], Fa)[:, 0] + pen * th
        done = np.linalg.norm(grad, axis=1) / n <= tol
        if done.all():
            return theta
        if done.any():  # copy the stack only when a problem leaves it
            keep = ~done
            active, Fa, ya, th, eta, p, grad = (a[keep] for a in (active, Fa, ya, th, eta, p, grad))
            precond = precond[keep] if precond is not None else None
        s = p * (1 - p)
        if precond is not None:
            def hess_vec(q: np.ndarray, Fa: np.ndarray = Fa,
                         s: np.ndarray = s) -> tuple[np.ndarray, np.ndarray | None]:
                return np.matmul((np.matmul(Fa, q[..., None])[..., 0] * s)[:, None, :], Fa)[:, 0] + pen * q, None

            def jacobi(r: np.ndarray, diagonal: np.ndarray = precond) -> np.ndarray:
                return diagonal * r

            step = _cg_steps(hess_vec, grad, jacobi, n)[0]
        else:
            hess = np.matmul(Fa.transpose(0, 2, 1) * s[:, None, :], Fa)
            hess[:, np.arange(k), np.arange(k)] += pen
            step = np.linalg.solve(hess, -grad[..., None])[..., 0]
        t = _line_search(eta, ya, th, step, grad, np.matmul(Fa, step[..., None])[..., 0], pen)
        theta[active] = th + t[:, None] * step
    return theta


def penalised_gradients(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: np.ndarray, C: float) -> np.ndarray:
    """max |∇| in (w, b) of (1/n)[Σ_i logloss_i + ‖w‖²/(2C)] per problem of a stack (B, n, d)."""
    residual = expit(np.matmul(X, w[..., None])[..., 0] + b[:, None]) - y
    gw = np.matmul(residual[:, None, :], X)[:, 0] + w / C
    return np.maximum(np.abs(gw).max(axis=1), np.abs(residual.sum(axis=1))) / X.shape[1]


def _solve_stack(X: np.ndarray, y: np.ndarray, C: float, tol: float,
                 max_iter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Problems of one size, stacked: X (B, n, d), y (B, n)."""
    B, n, d = X.shape
    Q = np.linalg.qr(np.ascontiguousarray(X.transpose(0, 2, 1)))[0] if n < d else None  # (B, d, n)
    Z = np.matmul(X, Q) if Q is not None else X
    F = np.concatenate([Z, np.ones((B, n, 1))], axis=2)
    k = F.shape[2]
    pen = np.r_[np.full(k - 1, 1.0 / C), 0.0]
    theta = _newton(F, y, pen, tol, max_iter, cg=n > 2 * k)
    w = np.matmul(Q, theta[:, :-1, None])[..., 0] if Q is not None else theta[:, :-1]
    b = theta[:, -1]
    return w, b, penalised_gradients(X, y, w, b, C)


def fit_logistic_batch(problems: Sequence[tuple[np.ndarray, np.ndarray]], *, C: float = 1.0, tol: float = 1e-12,
                       max_iter: int = 100) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's default L2 logistic regression on many problems at once.

    Parameters
    ----------
    problems : sequence of (X, y)
        X of shape (n_i, d) (one d for all), y of shape (n_i,) with values 0 and 1.
    C : float, default 1
        Inverse penalty strength, as in ``LogisticRegression(C=...)``.
    tol : float, default 1e-12
        Stop a problem when the norm of its gradient divided by n_i is at most this.
    max_iter : int, default 100
        Newton steps allowed per problem.

    Returns
    -------
    coefs : ndarray, shape (len(problems), d)
    intercepts : ndarray, shape (len(problems),)
    gradients : ndarray, shape (len(problems),)
        max |∇| of each mean penalised loss at the returned coefficients, computed
        independently of the solver (a problem that ran out of steps shows it here).

    >>> X = np.array([[1.0], [2.0], [-1.0], [-2.0]]); y = np.array([1.0, 1.0, 0.0, 0.0])
    >>> w, b, g = fit_logistic_batch([(X, y), (X[:3], y[:3])])
    >>> bool(g.max() <= 1e-12), w.shape
    (True, (2, 1))
    """
    if not problems:
        return np.zeros((0, 0)), np.zeros(0), np.zeros(0)
    # One BLAS thread: these products are small, so extra threads only contend for the
    # cores, and the rounding of a reduction never depends on the thread count (measured:
    # benchmarks/RESULTS.md, "Measurements behind the code").
    with one_thread(None):
        return _fit_chunks(problems, C, tol, max_iter)


def _fit_chunks(problems: Sequence[tuple[np.ndarray, np.ndarray]], C: float, tol: float,
                max_iter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    problems = [(np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)) for X, y in problems]
    d = problems[0][0].shape[1]
    coefs, intercepts, gradients = np.zeros((len(problems), d)), np.zeros(len(problems)), np.zeros(len(problems))
    # Problems stack by size, unpadded: every operation then acts on each problem alone, so
    # a problem's coefficients are the same bytes whatever else is in the batch. Chunks
    # bound the memory.
    sizes = np.array([len(y) for _, y in problems])
    for n in np.unique(sizes):
        group = np.flatnonzero(sizes == n)
        per_chunk = max(1, _CHUNK_ENTRIES // (int(n) * (2 * d + 2)))
        for start in range(0, len(group), per_chunk):
            idx = group[start:start + per_chunk]
            w, b, g = _solve_stack(np.stack([problems[i][0] for i in idx]), np.stack([problems[i][1] for i in idx]),
                                   C, tol, max_iter)
            coefs[idx], intercepts[idx], gradients[idx] = w, b, g
    return coefs, intercepts, gradients
