"""ECT, the Embedding Coherence Test (Dev & Phillips 2019), as WEFE (Badilla et al. 2020) describes it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from wefe_same.metrics.memo import Memo, column_mean
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import Template


def ect(T1: np.ndarray, T2: np.ndarray, A: np.ndarray) -> MetricResult:
    """Embedding Coherence Test: Spearman's rho between cos(mean T1, a) and cos(mean T2, a)
    over the attribute words a. 1 means both groups rank the words alike (fairer)."""
    return _from_cosines(len(A), [_cosines(A, T) for T in (T1, T2)], spearman_rho)


def _cosines(A: np.ndarray, T: np.ndarray, memo: Memo | None = None) -> np.ndarray:
    mean = column_mean(T, memo)
    return A @ (mean / np.linalg.norm(mean))


def _from_cosines(n_words: int, sims: list[np.ndarray], rho: Callable[[np.ndarray, np.ndarray], float]) -> MetricResult:
    if n_words < 3:
        return MetricResult.undefined(f"{n_words} attribute word(s): a rank correlation needs 3", {})
    if min(np.ptp(s) for s in sims) == 0:
        return MetricResult.undefined("constant similarities: the rank correlation is undefined", {})
    return MetricResult(rho(sims[0], sims[1]), {})


def _shared(memo: Memo, t: list[np.ndarray], a: list[np.ndarray]) -> MetricResult:
    """:func:`ect` with each set's cosines to a target mean, and their ranks, from the model's memo."""
    A, targets = a[0], t[:2]
    sims = [memo.remember("ect cosines", (A, T), partial(_cosines, A, T, memo)) for T in targets]

    def rho(x: np.ndarray, y: np.ndarray) -> float:
        rx, ry = (memo.remember("ect ranks", (A, T), partial(average_ranks, s)) for T, s in zip(targets, (x, y)))
        return spearman_rho(x, y, ranks=(rx, ry))

    return _from_cosines(len(A), sims, rho)


def spearman_rho(x: np.ndarray, y: np.ndarray, *, ranks: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """``scipy.stats.spearmanr(x, y).statistic`` of two 1-D arrays, by the same operations
    (average ranks, then ``np.corrcoef`` of the ranked columns, written out) but without
    its p-value, argument handling and array-API dispatch, which cost ~10 times the
    statistic on a query's few dozen words. NaN when an input holds NaN or is constant,
    as scipy's (which also warns). tests/metrics/test_shortcuts.py checks the bits.
    ``ranks``: ``average_ranks`` of x and y, when known.

    >>> from scipy.stats import spearmanr
    >>> x, y = np.array([0.1, 0.4, 0.3, 0.3]), np.array([1.0, 3.0, 2.0, 5.0])
    >>> bool(spearman_rho(x, y) == spearmanr(x, y).statistic)
    True
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n = len(x)
    if n <= 1 or np.isnan(x).any() or np.isnan(y).any() or (x[0] == x).all() or (y[0] == y).all():
        return float("nan")
    # np.corrcoef(ranks, rowvar=False)[1, 0] step by step: numpy's cov centres the rows of
    # the (2, n) array by their means, takes dot(X, Xᵀ) times 1/(n − 1), and corrcoef
    # divides by the row and then the column standard deviation and clips to [−1, 1].
    X = np.stack((average_ranks(x), average_ranks(y)) if ranks is None else ranks)
    X -= X.mean(axis=1)[:, None]
    c = np.dot(X, X.T)
    c *= np.true_divide(1, n - 1)
    sd = np.sqrt(np.diag(c))
    return float(np.clip(c[1, 0] / sd[1] / sd[0], -1, 1))


def average_ranks(x: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(x)`` (ties get the mean of their ranks) of a 1-D array
    without NaN: ranks and halves are exact, so any correct computation has scipy's bits.

    >>> average_ranks(np.array([0.5, 0.1, 0.5, 0.2]))
    array([3.5, 1. , 3.5, 2. ])
    """
    n = len(x)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.empty(n, dtype=bool)  # where a run of equal values starts, in sorted order
    new[0] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    ranks = np.empty(n)
    if new.all():
        ranks[order] = np.arange(1, n + 1, dtype=np.float64)
    else:
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, n))
        ranks[order] = np.repeat((starts + 1) + (counts - 1) / 2, counts)
    return ranks


METRIC = MetricSpec(
    name="ECT", func=ect,
    call=lambda t, a, **o: ect(t[0], t[1], a[0], **o),
    memo_call=_shared,
    template=Template(2, 1), order="descending", change_tolerance=0.05, ideal=1.0,
    formula="Spearman rho of (cos(mean T1, a))_a and (cos(mean T2, a))_a",
    reference="Dev & Phillips 2019, AISTATS; as in WEFE",
)
