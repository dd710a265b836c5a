"""Relative Negative Sentiment Bias (Sweeney & Najafian 2019), as WEFE generalises it (seed 002 §4.1)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
from scipy.special import expit
from scipy.stats import entropy

from ..errors import MetricError, bad_parameter
from .result import MetricResult

#: Trained classifiers by (attribute vectors, settings): a ranking run scores many target
#: sets against the same attribute pair (e.g. a sentiment lexicon), and the training is the
#: expensive part. Keyed by content, so the cache can never change a result.
_CLASSIFIERS: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
_CACHE_SIZE = 64


def _canonical(M: np.ndarray) -> np.ndarray:
    """Rows sorted by content, so the random split never depends on word order."""
    return M[np.lexsort(M.T[::-1])]


def _digest(M: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(M, dtype=np.float64).tobytes()).hexdigest()


def _train(A1: np.ndarray, A2: np.ndarray, n_iterations: int, train_fraction: float,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients (n_iterations, d) and intercepts of the A1-vs-A2 logistic regressions."""
    from sklearn.linear_model import LogisticRegression

    coefs, intercepts = [], []
    for _ in range(n_iterations):
        picks = [rng.choice(len(A), max(1, round(train_fraction * len(A))), replace=False) for A in (A1, A2)]
        X = np.vstack([A1[picks[0]], A2[picks[1]]])
        y = np.r_[np.zeros(len(picks[0])), np.ones(len(picks[1]))]
        clf = LogisticRegression(max_iter=2000).fit(X, y)
        coefs.append(clf.coef_[0])
        intercepts.append(clf.intercept_[0])
    return np.array(coefs), np.array(intercepts)


def _classifiers(A1, A2, n_iterations, train_fraction, random_state):
    if not isinstance(random_state, (int, np.integer)):
        return _train(A1, A2, n_iterations, train_fraction, np.random.default_rng(random_state))
    key = (_digest(A1), _digest(A2), A1.shape, A2.shape, n_iterations, train_fraction, int(random_state))
    if key not in _CLASSIFIERS:
        _CLASSIFIERS[key] = _train(A1, A2, n_iterations, train_fraction, np.random.default_rng(random_state))
        if len(_CLASSIFIERS) > _CACHE_SIZE:
            _CLASSIFIERS.popitem(last=False)
    _CLASSIFIERS.move_to_end(key)
    return _CLASSIFIERS[key]


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
    if not isinstance(n_iterations, int) or n_iterations < 1:
        raise MetricError(bad_parameter("n_iterations", "rnsb", "an integer >= 1", n_iterations))
    if not 0 < train_fraction <= 1:
        raise MetricError(bad_parameter("train_fraction", "rnsb", "in (0, 1]", train_fraction))
    coefs, intercepts = _classifiers(_canonical(A1), _canonical(A2), n_iterations, train_fraction, random_state)
    words = np.vstack(targets)
    p = expit(words @ coefs.T + intercepts)  # (words, iterations): P(A2 | w) per classifier
    P = p / p.sum(axis=0)
    kls = entropy(P, np.full_like(P, 1.0 / len(words)), axis=0)
    return MetricResult(kls.mean(), {"kl_std": kls.std(ddof=1) if n_iterations > 1 else 0.0,
                                     "n_iterations": n_iterations})
