"""Relative Negative Sentiment Bias (Sweeney & Najafian 2019), as WEFE generalises it (seed 002 §4.1)."""

from __future__ import annotations

import numpy as np
from scipy.stats import entropy

from ..errors import MetricError, bad_parameter
from .result import MetricResult


def _canonical(M: np.ndarray) -> np.ndarray:
    """Rows sorted by content, so the random split never depends on word order."""
    return M[np.lexsort(M.T[::-1])]


def rnsb(
    targets: list[np.ndarray],
    A1: np.ndarray,
    A2: np.ndarray,
    *,
    n_iterations: int = 10,
    train_fraction: float = 0.8,
    random_state: int | np.random.Generator | None = None,
) -> MetricResult:
    """KL divergence between the normalised P(A2 | w) over all target words and uniform.

    A logistic regression learns A1 (class 0) against A2 (class 1); each iteration trains
    on a seeded, stratified ``train_fraction`` of the attribute words. The value is the
    mean KL over iterations; 0 means every target word is equally associated with A2.
    """
    from sklearn.linear_model import LogisticRegression

    if not isinstance(n_iterations, int) or n_iterations < 1:
        raise MetricError(bad_parameter("n_iterations", "rnsb", "an integer >= 1", n_iterations))
    if not 0 < train_fraction <= 1:
        raise MetricError(bad_parameter("train_fraction", "rnsb", "in (0, 1]", train_fraction))
    rng = np.random.default_rng(random_state)
    A1, A2 = _canonical(A1), _canonical(A2)
    words = np.vstack(targets)
    kls = np.empty(n_iterations)
    for i in range(n_iterations):
        picks = [rng.choice(len(A), max(1, round(train_fraction * len(A))), replace=False) for A in (A1, A2)]
        X = np.vstack([A1[picks[0]], A2[picks[1]]])
        y = np.r_[np.zeros(len(picks[0])), np.ones(len(picks[1]))]
        clf = LogisticRegression(max_iter=2000).fit(X, y)
        p = clf.predict_proba(words)[:, 1]
        kls[i] = entropy(p / p.sum(), np.full(p.size, 1.0 / p.size))
    return MetricResult(kls.mean(), {"kl_std": kls.std(ddof=1) if n_iterations > 1 else 0.0,
                                     "n_iterations": n_iterations})
