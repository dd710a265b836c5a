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
    # Imported here: scipy.stats takes ~1 s and ~50 MB, which a run's parent need not hold
    # while its encoder worker reads (the run's memory peak).
    from scipy.stats import spearmanr

    return MetricResult(spearmanr(sims[0], sims[1]).statistic, {})
