"""Direct Bias (Bolukbasi et al. 2016), with a k-dimensional PCA subspace (seed 001 eq. 17)."""

from __future__ import annotations

import numpy as np

from ..errors import MetricError, bad_parameter
from .result import MetricResult


def pca_subspace(tuples: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """First ``k`` principal components of the centred defining tuples.

    Parameters
    ----------
    tuples : ndarray, shape (n_groups, m, d)
        ``tuples[g, j]`` is the unit vector of the j-th defining word of group g.

    Returns
    -------
    components : ndarray, shape (k, d)
    explained : ndarray, shape (k,)
        Share of the centred variance each component explains.
    """
    centred = (tuples - tuples.mean(axis=0, keepdims=True)).reshape(-1, tuples.shape[-1])
    # Each tuple sums to zero, so the stacked matrix is already centred: plain SVD is PCA.
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    variance = singular**2
    return vt[:k], variance[:k] / variance.sum()


def direct_bias(T: np.ndarray, *groups: np.ndarray, k: int | None = None, c: float = 1.0) -> MetricResult:
    """mean_t ‖(cos(t, b_i))_{i≤k}‖^c over the neutral words ``T``; 0 means no bias.

    Parameters
    ----------
    T : ndarray, shape (m, d)
        Unit vectors of the neutral words.
    *groups : ndarray, each of shape (p, d)
        Aligned defining words: row j of every group forms the j-th defining tuple.
    k : int, optional
        Number of principal components; default ``n_groups − 1`` (seed 001 §4.3.2).
    c : float, default 1
        Strictness exponent.
    """
    n = len(groups)
    k = n - 1 if k is None else k
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise MetricError(bad_parameter("k", "direct_bias", "an integer >= 1", k))
    if not c > 0:
        raise MetricError(bad_parameter("c", "direct_bias", "a positive number", c))
    tuples = np.stack(groups)
    details = {"k": k, "n_tuples": tuples.shape[1], "explained_variance": np.nan}
    rank = min(tuples.shape[1] * (n - 1), tuples.shape[2])
    if k > rank:
        return MetricResult.undefined(
            f"k={k} principal components asked, but {tuples.shape[1]} tuple(s) of {n} groups span at most {rank}",
            details,
        )
    components, explained = pca_subspace(tuples, k)
    details["explained_variance"] = explained.sum()
    b = np.linalg.norm(T @ components.T, axis=1)
    return MetricResult((b**c).mean(), details, word_values={"b": b})
