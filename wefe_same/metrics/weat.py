"""WEAT, the Word Embedding Association Test (Caliskan et al. 2017): the association
s(w, A, B), the test statistic and its permutation p-value.

All inputs are unit vectors, one row per word, so a dot product is a cosine.
"""

from __future__ import annotations

import numpy as np

from wefe_same.metrics._permutation import ALTERNATIVES, EXACT_LIMIT, Alternative, role_labels, weat_permutation_test
from wefe_same.metrics.memo import Memo, column_mean, remembered
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec, OptionCheck, integer, one_of
from wefe_same.query.sets import Template


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


def associations_and_test(X, Y, A, B, permutations, alternative, exact_limit, random_state, memo=None):
    """s(w, A, B) for the words of X then Y, and the permutation test's details.

    Shared by WEAT and its effect size (:mod:`wefe_same.metrics.weat_es`): both report
    the WEAT statistic's p-value.
    """
    # association(X, A, B) then association(Y, A, B), the attribute means taken once
    # (a sentiment lexicon has thousands of rows; ``memo``: once per model)
    direction = column_mean(A, memo) - column_mean(B, memo)
    s = np.concatenate([X @ direction, Y @ direction])
    test = weat_permutation_test(s, len(X), permutations=permutations, alternative=alternative,
                                 exact_limit=exact_limit, random_state=random_state,
                                 memo=None if memo is None else memo.run)
    details = {"p_value": test.p_value, "n_splits": test.n_splits, "p_method": test.method}
    return s, details


def weat(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *,
    permutations: int = 0, alternative: Alternative = "greater", exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None, memo: Memo | None = None,
) -> MetricResult:
    """WEAT test statistic Σ_{x∈X} s(x,A,B) − Σ_{y∈Y} s(y,A,B); 0 means no bias.

    ``permutations`` > 0 adds the permutation test's p-value to the details: the share
    of splits of X ∪ Y at least as extreme as the observed one, which is counted (see
    :func:`wefe_same.metrics._permutation.weat_permutation_test` for the tie rule and its reason).
    """
    s, details = associations_and_test(X, Y, A, B, permutations, alternative, exact_limit, random_state, memo)
    sx, sy = s[: len(X)], s[len(X):]
    return MetricResult(sx.sum() - sy.sum(), details, word_values={"s": s})


def permuted_associations(targets: list[np.ndarray], attributes: list[np.ndarray], target_labels: np.ndarray | None,
                          attribute_labels: np.ndarray | None,
                          memo: Memo | None = None) -> tuple[np.ndarray, np.ndarray]:
    """s(w, A, B) of every pooled target word in each draw of the permutation null, and
    the target set each word is dealt to: two arrays of shape (draws, targets' words).

    A draw only weighs the pooled attributes (1/|A| for the words dealt to A, −1/|B| for B),
    so s = W (P_A P_Tᵀ) with W the draws' weights: the cosine matrix P_A P_Tᵀ made once
    serves every draw, or (W P_A) P_Tᵀ, whichever takes fewer products; ``memo`` (keys that
    stand for these deals, `wefe_same.scoring.chance`) remembers W P_A for the other
    subqueries and metrics with these attribute sets (a lexicon of thousands of words).
    """
    draws = len(target_labels if target_labels is not None else attribute_labels)  # type: ignore[arg-type]
    pooled_targets = np.concatenate(targets)
    (n_a, dims), n_t = (sum(len(a) for a in attributes), attributes[0].shape[1]), len(pooled_targets)

    def weights() -> np.ndarray:  # (draws, pooled attributes)
        to_a = role_labels([len(a) for a in attributes], attribute_labels, draws) == 0
        return np.where(to_a, 1 / len(attributes[0]), -1 / len(attributes[1]))

    if n_a * n_t * (dims + draws) > draws * dims * (n_t + (0 if memo is not None else n_a)):
        def weighted() -> np.ndarray:
            return weights() @ np.concatenate(attributes)
        s = remembered(memo, "chance weighted attributes", tuple(attributes), weighted) @ pooled_targets.T
    else:
        s = weights() @ (np.concatenate(attributes) @ pooled_targets.T)
    return s, role_labels([len(t) for t in targets], target_labels, draws)


def weat_permuted(targets: list[np.ndarray], attributes: list[np.ndarray], target_labels: np.ndarray | None,
                  attribute_labels: np.ndarray | None, memo: Memo | None = None, **options: object) -> np.ndarray:
    """WEAT's statistic in each draw of the permutation null (`MetricSpec.permuted_draws`)."""
    s, labels = permuted_associations(targets, attributes, target_labels, attribute_labels, memo)
    return np.where(labels == 0, s, -s).sum(axis=1)


#: The permutation test's options, shared by WEAT and WEAT-ES.
PERMUTATION_OPTIONS: dict[str, OptionCheck] = {
    "permutations": integer(0),
    "alternative": one_of(*ALTERNATIVES),
    "exact_limit": integer(0),
}
#: Details of WEAT and WEAT-ES that ``details.csv`` shows as columns of their own.
PERMUTATION_DETAILS = ("p_value", "n_splits", "p_method")

METRIC = MetricSpec(
    name="WEAT", func=weat,
    call=lambda t, a, **o: weat(t[0], t[1], a[0], a[1], **o),
    template=Template(2, 2), order="abs", change_tolerance=0.01, stochastic=True, word_role="targets",
    option_checks=PERMUTATION_OPTIONS, promoted_details=PERMUTATION_DETAILS, permuted_draws=weat_permuted,
    formula="Σ_{x∈T1} s(x,A1,A2) − Σ_{y∈T2} s(y,A1,A2), s(w,A,B) = mean_a cos(w,a) − mean_b cos(w,b)",
    reference="Caliskan, Bryson & Narayanan 2017, Science 356(6334)",
)
