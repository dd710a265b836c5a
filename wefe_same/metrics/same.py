"""SAME, Scoring Association Means of word Embeddings (Schröder et al.; seed 001 §3.1–3.2).

In this library the groups (SAME's "attribute sets") are the query's target sets and
the neutral words (SAME's "targets") its one attribute set: template (N, 1).
"""

from __future__ import annotations

import numpy as np

from .result import MetricResult

#: A Gram–Schmidt residual shorter than this share of its direction counts as linearly dependent.
DEPENDENCE_TOL = 1e-10


def bias_basis(group_means: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the bias subspace from the directions â_i − â_0 (seed 001 eq. 13).

    Gram–Schmidt in the order of the groups; a direction that depends linearly on the
    previous ones is dropped, giving a smaller subspace.

    Parameters
    ----------
    group_means : ndarray, shape (n_groups, d)

    Returns
    -------
    ndarray, shape (k, d), k ≤ n_groups − 1

    >>> bias_basis(np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0]]))
    array([[1., 0.]])
    """
    scale = max(float(np.abs(group_means).max()), 1e-300)
    basis: list[np.ndarray] = []
    for direction in group_means[1:] - group_means[0]:
        residual = direction - sum((direction @ b) * b for b in basis)
        if np.linalg.norm(residual) > DEPENDENCE_TOL * scale:
            basis.append(residual / np.linalg.norm(residual))
    return np.array(basis).reshape(len(basis), group_means.shape[1])


def same(T: np.ndarray, *groups: np.ndarray) -> MetricResult:
    """SAME(T) = mean_t b(t, A) ∈ [0, 1]; 0 iff every word is equidistant to all group means.

    Parameters
    ----------
    T : ndarray, shape (m, d)
        Unit vectors of the neutral words.
    *groups : ndarray, shapes (n_i, d)
        Unit vectors of each group's words; the group mean â_i is the mean of these.
    """
    means = np.array([G.mean(axis=0) for G in groups])
    basis = bias_basis(means)
    details = {"n_groups": len(groups), "bias_dims": basis.shape[0]}
    if basis.shape[0] == 0:
        return MetricResult.undefined("all group means coincide: no bias direction", details)
    return MetricResult(np.linalg.norm(T @ basis.T, axis=1).mean(), details)
