"""ECT (Dev & Phillips 2019) and RIPA (Ethayarajh, Duvenaud & Hirst 2019), as WEFE describes them."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from wefe_same.metrics.result import MetricResult


def ect(T1: np.ndarray, T2: np.ndarray, A: np.ndarray) -> MetricResult:
    """Embedding Coherence Test: Spearman's rho between cos(mean T1, a) and cos(mean T2, a)
    over the attribute words a. 1 means both groups rank the words alike (fairer)."""
    sims = [A @ (T.mean(axis=0) / np.linalg.norm(T.mean(axis=0))) for T in (T1, T2)]
    if len(A) < 3:
        return MetricResult.undefined(f"{len(A)} attribute word(s): a rank correlation needs 3", {})
    if min(np.ptp(s) for s in sims) == 0:
        return MetricResult.undefined("constant similarities: the rank correlation is undefined", {})
    return MetricResult(spearmanr(sims[0], sims[1]).statistic, {})


def ripa(T1: np.ndarray, T2: np.ndarray, A: np.ndarray) -> MetricResult:
    """Relational Inner Product Association: mean_a mean_i ⟨a, b_i⟩, b_i = (x_i − y_i)/‖x_i − y_i‖
    for the pairs (x_i, y_i) of the aligned target sets. Raw vectors; 0 means no association."""
    diff = T1 - T2
    norms = np.linalg.norm(diff, axis=1, keepdims=True)
    if np.any(norms == 0):
        return MetricResult.undefined("a target pair has two identical vectors: no relation vector",
                                      {"n_pairs": len(T1)})
    per_word = (A @ (diff / norms).T).mean(axis=1)
    return MetricResult(per_word.mean(), {"n_pairs": len(T1)}, word_values={"ripa": per_word})
