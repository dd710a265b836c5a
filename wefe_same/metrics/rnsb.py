"""Relative Negative Sentiment Bias (Sweeney & Najafian 2019), as WEFE generalises it (Badilla et al. 2020, §4.1).

Each classifier is WEFE's: scikit-learn's ``LogisticRegression`` with its default
objective — L2 penalty, C = 1, an unpenalised intercept —

    min_{w, b}  Σ_i log(1 + exp(−ỹ_i (x_i · w + b))) + ‖w‖² / (2C),   ỹ_i = ±1,

but solved to its optimum (``tol`` 1e-12) instead of stopping at sklearn's default
tolerance, which leaves the fit 0.06–0.46 % short of the optimum and makes RNSB depend
on the solver. The objective is strictly convex, so its optimum is unique and RNSB is a
function of the data and the seeded subsamples only. The fits are not scikit-learn's
calls but one batched Newton solve of all of them (:mod:`wefe_same.metrics.logistic`,
checked against scikit-learn in the tests): :func:`prefit` trains the classifiers of
all of a model's subqueries at once. Every fit is checked independently: the largest
entry of the gradient of the mean penalised loss must be at most ``GRADIENT_TOL``, or
the value is NaN with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.special import expit, rel_entr

from wefe_same.metrics.logistic import fit_logistic_batch
from wefe_same.metrics.logistic_pool import fit_logistic_subsets
from wefe_same.metrics.memo import Memo, RunMemo, read_only
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec, integer, number
from wefe_same.query.sets import AtLeast, Template
from wefe_same.validation import check_int, check_number

#: The solvers' stopping rule (scikit-learn's ``tol``): the gradient of the mean loss at most this.
SOLVER_TOL = 1e-12
#: Newton iterations allowed; a fit needs 5–10 from a zero start.
SOLVER_MAX_ITER = 100
#: The independent convergence check: max |∇| of the mean penalised log-loss at the
#: returned coefficients (the default run ends below 1e-12).
GRADIENT_TOL = 1e-10
C = 1.0

#: Attribute pairs :func:`prefit` trains at a time: the run memo's "rnsb classifiers"
#: section keeps 64 (:data:`~wefe_same.metrics.memo.BOUNDS`).
PREFIT_PAIRS = 64


def canonical_order(M: np.ndarray) -> np.ndarray:
    """Row order by content: by column 0, ties by column 1, … (``np.lexsort(M.T[::-1])``).

    The lexicographic sort of all d columns costs d stable sorts; rows of real embeddings
    almost never tie on their first coordinate, so one stable sort of column 0 gives the
    same order, and only the rows that tie there are sorted by the other columns. (A
    lexicon holds a few words with one vector, e.g. two spellings an encoder reads
    alike: sorting all rows by all columns for them was most of the cost.)

    >>> canonical_order(np.array([[2.0, 0.0], [1.0, 5.0], [1.0, 3.0]]))
    array([2, 1, 0])
    """
    if len(M) < 2:
        return np.arange(len(M))
    order = np.argsort(M[:, 0], kind="stable")
    first = M[order, 0]
    tie = first[1:] == first[:-1]
    if not tie.any():
        return order
    if np.isnan(first).any():  # NaN never ties with itself here, but does in the full sort
        return np.lexsort(M.T[::-1])
    # Positions (in ``order``) of rows that share their first coordinate with a neighbour:
    # their runs are contiguous and in ascending order of that coordinate, so sorting them
    # by (run, column 1, …, column d−1), stably, gives the full sort's order of those rows
    # (within a run ``order`` is ascending, as the full sort's ties are).
    tied = np.zeros(len(M), dtype=bool)
    tied[1:] |= tie
    tied[:-1] |= tie
    positions = np.flatnonzero(tied)
    run = np.cumsum(~np.r_[False, tie])[positions]
    rows = order[positions]
    keys = M[rows, 1:].T[::-1]
    order[positions] = rows[np.lexsort((*keys, run))]
    return order


def _stacked_canonical(A1: np.ndarray, A2: np.ndarray) -> np.ndarray:
    """A1's rows then A2's, each set in :func:`canonical_order` (so the random split never
    depends on word order), as float64; each row copied once."""
    X = np.empty((len(A1) + len(A2), A1.shape[1]))
    for M, part in ((A1, X[:len(A1)]), (A2, X[len(A1):])):
        np.take(np.asarray(M, dtype=np.float64), canonical_order(M), axis=0, out=part)
    return X


def fit_logistic(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """sklearn's default L2 logistic regression (C = 1), solved to the optimum.

    Returns the coefficients (d,), the intercept and max |∇| of the mean penalised loss
    at them (see :func:`~wefe_same.metrics.logistic.penalised_gradients`); convergence is judged by that value.
    One problem of :func:`~wefe_same.metrics.logistic.fit_logistic_batch`.
    """
    coefs, intercepts, gradients = fit_logistic_batch([(X, y)], C=C, tol=SOLVER_TOL, max_iter=SOLVER_MAX_ITER)
    return coefs[0], float(intercepts[0]), float(gradients[0])


def _subsamples(m1: int, m2: int, n_iterations: int, train_fraction: float,
                random_state: int | np.integer | np.random.Generator | None, memo: RunMemo | None = None) -> np.ndarray:
    """Which rows of ``vstack([A1, A2])`` (``A1``, ``A2`` of m1 and m2 rows, in canonical
    row order) each classifier trains on, shape (n_iterations, m1 + m2): per iteration, a
    seeded ``train_fraction`` of each set without replacement (at least one word), A1's first.

    A function of the sizes and an int seed, not of the vectors: every model of a run
    draws the same masks for one attribute pair, so the run's ``memo`` draws them once
    (read-only)."""
    def draw() -> np.ndarray:
        rng = np.random.default_rng(random_state)
        masks = np.zeros((n_iterations, m1 + m2), dtype=bool)
        for i in range(n_iterations):
            masks[i, rng.choice(m1, max(1, round(train_fraction * m1)), replace=False)] = True
            masks[i, m1 + rng.choice(m2, max(1, round(train_fraction * m2)), replace=False)] = True
        return read_only(masks)

    seed = int(random_state) if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) \
        else None
    if seed is None or memo is None:
        return draw()
    return memo.remember("rnsb masks", (m1, m2, n_iterations, train_fraction, seed), draw)


#: (A1, A2, n_iterations, train_fraction, random_state) of one attribute pair.
Request = tuple[np.ndarray, np.ndarray, int, float, int | np.integer | np.random.Generator | None]


def _train(requests: list[Request], memo: RunMemo | None = None) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Coefficients (n_iterations, d), intercepts and the largest final gradient of the
    A1-vs-A2 logistic regressions of every request (A1, A2, n_iterations, train_fraction,
    random_state). Pairs with many more training words than dimensions (a sentiment
    lexicon) are solved as subsets of their pair's rows; all others in one batch."""
    fits: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = []
    problems: list[tuple[np.ndarray, np.ndarray]] = []
    for A1, A2, n_iterations, train_fraction, random_state in requests:
        X = _stacked_canonical(A1, A2)
        y = np.r_[np.zeros(len(A1)), np.ones(len(A2))]
        masks = _subsamples(len(A1), len(A2), n_iterations, train_fraction, random_state, memo)
        if masks[0].sum() > 2 * (X.shape[1] + 1):
            fits.append(fit_logistic_subsets(X, y, masks, C=C, tol=SOLVER_TOL, max_iter=SOLVER_MAX_ITER))
        else:
            fits.append(None)
            problems += [(X[m], y[m]) for m in masks]
    # One batch per dimension (a model's calls share one; prefit may be handed several).
    solved: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for d in {X.shape[1] for X, _ in problems}:
        solved[d] = fit_logistic_batch([p for p in problems if p[0].shape[1] == d],
                                       C=C, tol=SOLVER_TOL, max_iter=SOLVER_MAX_ITER)
    out, start = [], dict.fromkeys(solved, 0)
    for (A1, _, n_iterations, _, _), fit in zip(requests, fits):
        if fit is None:
            d, i = A1.shape[1], start[A1.shape[1]]
            coefs, intercepts, gradients = (part[i:i + n_iterations] for part in solved[d])
            start[d] += n_iterations
        else:
            coefs, intercepts, gradients = fit
        out.append((coefs, intercepts, float(gradients.max())))
    return out


def _key(memo: Memo, A1, A2, n_iterations, train_fraction, random_state) -> tuple:
    # Keyed by the bytes as given (each array's digest once per model): a hit skips the
    # canonical sort as well as the training. The same rows in another order miss, then
    # train on the same canonical rows: equal bytes.
    return (memo.digest(A1), memo.digest(A2), A1.shape, A2.shape, n_iterations, train_fraction, int(random_state))


def _classifiers(A1, A2, n_iterations, train_fraction, random_state, memo: Memo | None):
    request = (A1, A2, n_iterations, train_fraction, random_state)
    if memo is None or not isinstance(random_state, (int, np.integer)):
        return _train([request], None if memo is None else memo.run)[0]
    return memo.run.remember("rnsb classifiers", _key(memo, *request), lambda: _train([request], memo.run)[0])


def prefit(calls: Sequence[tuple[Memo, Sequence[np.ndarray], Sequence[np.ndarray], Mapping[str, Any], object]]) -> int:
    """Train the classifiers of many RNSB calls in one batched solve, into the run's memo.

    ``calls`` holds (memo, targets, attributes, options, random_state) as
    :meth:`~wefe_same.metrics.registry.MetricSpec.compute` receives them; the later
    :func:`rnsb` calls then find their classifiers trained. The same classifiers (bytes)
    as one call at a time: each pair's subsamples come from its own seed. Calls without an
    integer seed, with invalid options or more than :data:`PREFIT_PAIRS` pairs are left to
    :func:`rnsb`. Returns the number of attribute pairs trained.
    """
    requests: dict[tuple, tuple[Memo, Request]] = {}
    for memo, _targets, attributes, options, random_state in calls:
        n_iterations, train_fraction = options.get("n_iterations", 10), options.get("train_fraction", 0.8)
        if (not isinstance(random_state, (int, np.integer)) or len(attributes) != 2
                or not isinstance(n_iterations, (int, np.integer)) or n_iterations < 1
                or not isinstance(train_fraction, (int, float)) or not 0 < train_fraction <= 1):
            continue
        A1, A2 = attributes
        request = (A1, A2, int(n_iterations), float(train_fraction), int(random_state))
        key = _key(memo, *request)
        if ("rnsb classifiers", key) not in memo.run:
            requests.setdefault(key, (memo, request))
    todo = list(requests.items())[:PREFIT_PAIRS]
    if todo:
        run = todo[0][1][0].run  # one scoring call's memos share their run
        for (key, _), classifiers in zip(todo, _train([request for _, (_, request) in todo], run)):
            run.put("rnsb classifiers", key, classifiers)
    return len(todo)


def kl_to_uniform(P: np.ndarray) -> np.ndarray:
    """``scipy.stats.entropy(P, np.full_like(P, 1 / n), axis=0)`` for P of shape (n, k), by
    the same operations (both normalised by their column sums, then ``rel_entr`` summed)
    without its argument handling, which was most of RNSB's own time.

    >>> from scipy.stats import entropy
    >>> P = np.array([[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]])
    >>> bool((kl_to_uniform(P) == entropy(P, np.full_like(P, 1 / 3), axis=0)).all())
    True
    """
    Q = np.full_like(P, 1.0 / len(P))
    with np.errstate(invalid="ignore"):  # as scipy: a column of zeros gives NaN
        Q = Q / Q.sum(axis=0, keepdims=True)
        P = P / P.sum(axis=0, keepdims=True)
    return rel_entr(P, Q).sum(axis=0)


def rnsb(
    targets: list[np.ndarray],
    A1: np.ndarray,
    A2: np.ndarray,
    *,
    n_iterations: int = 10,
    train_fraction: float = 0.8,
    random_state: int | np.random.Generator | None = None,
    memo: Memo | None = None,
) -> MetricResult:
    """KL divergence between the normalised P(A2 | w) over all target words and uniform.

    A logistic regression learns A1 (class 0) against A2 (class 1); each iteration trains
    on a seeded, stratified ``train_fraction`` of the attribute words. The value is the
    mean KL over iterations; 0 means every target word is equally associated with A2.
    Each regression is sklearn's default (L2, C = 1, as in WEFE) solved to its optimum
    (:func:`~wefe_same.metrics.logistic.fit_logistic_batch`);
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
    coefs, intercepts, gradient = _classifiers(A1, A2, int(n_iterations), float(train_fraction), random_state, memo)
    details = {"kl_std": np.nan, "n_iterations": n_iterations}
    if not gradient <= GRADIENT_TOL:
        return MetricResult.undefined(
            f"a logistic regression did not reach its optimum: max |gradient| {gradient:.3g} > {GRADIENT_TOL:g}",
            details)
    words = np.vstack(targets)
    p = expit(words @ coefs.T + intercepts)  # (words, iterations): P(A2 | w) per classifier
    P = p / p.sum(axis=0)
    kls = kl_to_uniform(P)
    details["kl_std"] = kls.std(ddof=1) if n_iterations > 1 else 0.0
    return MetricResult(kls.mean(), details)


METRIC = MetricSpec(
    name="RNSB", func=rnsb,
    call=lambda t, a, **o: rnsb(t, a[0], a[1], **o),
    template=Template(AtLeast(2), 2), order="ascending", change_tolerance=0.01, stochastic=True, seed_by="attributes",
    prefit=prefit,
    option_checks={"n_iterations": integer(1), "train_fraction": number(0, 1, low_open=True)},
    formula="KL(P ‖ U), P(w) ∝ P_logreg(A2 | w) over the words of T1 ∪ … ∪ Tn",
    reference="Sweeney & Najafian 2019, ACL; generalised as in WEFE (Badilla et al. 2020)",
)
