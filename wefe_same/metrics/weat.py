"""WEAT and its effect size (Caliskan et al. 2017; seed 000 eq. 2–4), and MAC (Manzini et al. 2019).

All inputs are unit vectors, one row per word, so a dot product is a cosine.
"""

from __future__ import annotations

import numpy as np

from ..errors import MetricError, bad_parameter
from .result import MetricResult


def association(W: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b) for every row w of ``W``.

    Parameters
    ----------
    W : ndarray, shape (n, d)
    A, B : ndarray, shapes (n_a, d), (n_b, d)

    Returns
    -------
    ndarray, shape (n,)

    >>> association(np.eye(2)[:1], np.eye(2)[:1], np.eye(2)[1:])
    array([1.])
    """
    # mean_a (w · a) = w · mean(A): one matrix–vector product per attribute set.
    return W @ (A.mean(axis=0) - B.mean(axis=0))


def weat(X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray) -> MetricResult:
    """WEAT test statistic Σ_{x∈X} s(x,A,B) − Σ_{y∈Y} s(y,A,B); 0 means no bias."""
    sx, sy = association(X, A, B), association(Y, A, B)
    return MetricResult(
        sx.sum() - sy.sum(),
        {"mean_s_targets_1": sx.mean(), "mean_s_targets_2": sy.mean()},
    )


def weat_effect_size(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, ddof: int = 1
) -> MetricResult:
    """(mean_X s − mean_Y s) / std_{X∪Y} s, in [−2, 2].

    ``ddof=1`` (sample standard deviation) reproduces Caliskan et al.'s published
    effect sizes; WEFE uses ``ddof=0``.
    """
    if ddof not in (0, 1):
        raise MetricError(bad_parameter("ddof", "weat_effect_size", "0 or 1", ddof))
    sx, sy = association(X, A, B), association(Y, A, B)
    s = np.concatenate([sx, sy])
    details = {"mean_difference": sx.mean() - sy.mean(), "std": np.nan}
    if s.size <= ddof:
        return MetricResult.undefined(f"{s.size} target word(s) left: std with ddof={ddof} is undefined", details)
    std = s.std(ddof=ddof)
    details["std"] = std
    if std < 1e-12:
        return MetricResult.undefined("every target word has the same association: std = 0", details)
    return MetricResult(details["mean_difference"] / std, details)


def mac(T: np.ndarray, *attribute_sets: np.ndarray) -> MetricResult:
    """Mean Average Cosine distance: mean over t ∈ T and A_j of mean_{a∈A_j} (1 − cos(t, a)).

    1 means no association on average (the ideal value); 0 or 2 strong (anti-)association.
    """
    per_set = np.array([1.0 - (T @ A.mean(axis=0)).mean() for A in attribute_sets])
    return MetricResult(per_set.mean(), {"n_attribute_sets": len(attribute_sets)})
