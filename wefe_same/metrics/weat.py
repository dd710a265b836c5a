"""WEAT, its effect size and p-value (Caliskan et al. 2017; seed 000 eq. 2–6), gWEAT
(Swinger et al. 2019; seed 001 eq. 3) and MAC (Manzini et al. 2019).

All inputs are unit vectors, one row per word, so a dot product is a cosine.
"""

from __future__ import annotations

import numpy as np

from wefe_same.metrics._permutation import EXACT_LIMIT, Alternative, weat_permutation_test
from wefe_same.validation import check_choice
from wefe_same.metrics.result import MetricResult


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


def _weat_parts(X, Y, A, B, permutations, alternative, exact_limit, random_state):
    s = np.concatenate([association(X, A, B), association(Y, A, B)])
    test = weat_permutation_test(s, len(X), permutations=permutations, alternative=alternative,
                                 exact_limit=exact_limit, random_state=random_state)
    details = {"p_value": test.p_value, "n_splits": test.n_splits, "p_method": test.method}
    return s, details


def weat(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *,
    permutations: int = 0, alternative: Alternative = "greater", exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None,
) -> MetricResult:
    """WEAT test statistic Σ_{x∈X} s(x,A,B) − Σ_{y∈Y} s(y,A,B); 0 means no bias.

    ``permutations`` > 0 adds the permutation test's p-value to the details: the share
    of splits of X ∪ Y at least as extreme as the observed one, which is counted (see
    :func:`wefe_same.metrics._permutation.weat_permutation_test` for the tie rule and its reason).
    """
    s, details = _weat_parts(X, Y, A, B, permutations, alternative, exact_limit, random_state)
    sx, sy = s[: len(X)], s[len(X):]
    return MetricResult(sx.sum() - sy.sum(), details, word_values={"s": s})


def weat_effect_size(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, ddof: int = 1,
    permutations: int = 0, alternative: Alternative = "greater", exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None,
) -> MetricResult:
    """(mean_X s − mean_Y s) / std_{X∪Y} s, in [−2, 2].

    ``ddof=1`` (sample standard deviation) reproduces Caliskan et al.'s published
    effect sizes; WEFE uses ``ddof=0``. The p-value is the WEAT statistic's: the
    denominator is the same for every split of X ∪ Y.
    """
    check_choice(ddof, "ddof", "weat_effect_size", (0, 1))
    s, details = _weat_parts(X, Y, A, B, permutations, alternative, exact_limit, random_state)
    sx, sy = s[: len(X)], s[len(X):]
    details = {"mean_difference": sx.mean() - sy.mean(), "std": np.nan, **details}
    words = {"s": s}
    if s.size <= ddof:
        return MetricResult.undefined(f"{s.size} target word(s) left: std with ddof={ddof} is undefined",
                                      details, words)
    details["std"] = s.std(ddof=ddof)
    if details["std"] < 1e-12:
        return MetricResult.undefined("every target word has the same association: std = 0", details, words)
    return MetricResult(details["mean_difference"] / details["std"], details, word_values=words)


def gweat(targets: list[np.ndarray], attributes: list[np.ndarray]) -> MetricResult:
    """g = Σ_i (X̄_i − μ) · (Ā_i − Ā), target set i paired with attribute set i (seed 001 eq. 3).

    X̄_i, Ā_i are means of unit vectors, μ and Ā their means. With two pairs of equal size
    m, g = WEAT / (2m).
    """
    if len(targets) != len(attributes):
        return MetricResult.undefined(
            f"gWEAT pairs target set i with attribute set i: got {len(targets)} target and "
            f"{len(attributes)} attribute sets", {"n_groups": len(targets)})
    x_means = np.array([T.mean(axis=0) for T in targets])
    a_means = np.array([A.mean(axis=0) for A in attributes])
    value = np.sum((x_means - x_means.mean(axis=0)) * (a_means - a_means.mean(axis=0)))
    return MetricResult(value, {"n_groups": len(targets)})


def mac(T: np.ndarray, *attribute_sets: np.ndarray) -> MetricResult:
    """Mean Average Cosine distance: mean over t ∈ T and A_j of mean_{a∈A_j} (1 − cos(t, a)).

    1 means no association on average (the ideal value); 0 or 2 strong (anti-)association.
    """
    per_word = np.array([1.0 - T @ A.mean(axis=0) for A in attribute_sets]).mean(axis=0)
    return MetricResult(per_word.mean(), {"n_attribute_sets": len(attribute_sets)},
                        word_values={"mean_cosine_distance": per_word})
