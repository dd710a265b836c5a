"""ECT, the Embedding Coherence Test (Dev & Phillips 2019), as WEFE (Badilla et al. 2020) describes it."""

from __future__ import annotations

import numpy as np

from wefe_same.metrics.result import MetricResult


def ect(T1: np.ndarray, T2: np.ndarray, A: np.ndarray) -> MetricResult:
    """Embedding Coherence Test: Spearman's rho between cos(mean T1, a) and cos(mean T2, a)
    over the attribute words a. 1 means both groups rank the words alike (fairer)."""
    sims = [A @ (T.mean(axis=0) / np.linalg.norm(T.mean(axis=0))) for T in (T1, T2)]
    if len(A) < 3:
        return MetricResult.undefined(f"{len(A)} attribute word(s): a rank correlation needs 3", {})
    if min(np.ptp(s) for s in sims) == 0:
        return MetricResult.undefined("constant similarities: the rank correlation is undefined", {})
    return MetricResult(spearman_rho(sims[0], sims[1]), {})


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.spearmanr(x, y).statistic`` of two 1-D arrays, by the same operations
    (average ranks, then ``np.corrcoef`` of the ranked columns) but without its p-value and
    argument handling, which cost ~10 times the statistic on a query's few dozen words.
    NaN when an input holds NaN or is constant, as scipy's (which also warns).

    >>> from scipy.stats import spearmanr
    >>> x, y = np.array([0.1, 0.4, 0.3, 0.3]), np.array([1.0, 3.0, 2.0, 5.0])
    >>> bool(spearman_rho(x, y) == spearmanr(x, y).statistic)
    True
    """
    # Imported here: scipy.stats takes ~1 s and ~50 MB, which a run's parent need not hold
    # while its encoder worker reads (the run's memory peak).
    from scipy.stats import rankdata

    a = np.column_stack((x, y))
    if len(a) <= 1 or np.isnan(a).any() or (a[0] == a).all(axis=0).any():
        return float("nan")
    return float(np.corrcoef(np.apply_along_axis(rankdata, 0, a), rowvar=False)[1, 0])
