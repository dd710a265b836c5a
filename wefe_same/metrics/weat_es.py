"""WEAT effect size (Caliskan et al. 2017): the WEAT statistic scaled by the spread of
the associations, with the WEAT statistic's permutation p-value.

All inputs are unit vectors, one row per word, so a dot product is a cosine.
"""

from __future__ import annotations

import numpy as np

from wefe_same.metrics._permutation import EXACT_LIMIT, Alternative
from wefe_same.metrics.memo import Memo
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec, one_of
from wefe_same.metrics.weat import (
    PERMUTATION_DETAILS,
    PERMUTATION_OPTIONS,
    associations_and_test,
    permuted_associations,
)
from wefe_same.query.sets import Template
from wefe_same.validation import check_choice


def weat_effect_size(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, ddof: int = 1,
    permutations: int = 0, alternative: Alternative = "greater", exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None, memo: Memo | None = None,
) -> MetricResult:
    """(mean_X s − mean_Y s) / std_{X∪Y} s, in [−2, 2].

    ``ddof=1`` (sample standard deviation) reproduces Caliskan et al.'s published
    effect sizes; WEFE uses ``ddof=0``. The p-value is the WEAT statistic's: the
    denominator is the same for every split of X ∪ Y.
    """
    check_choice(ddof, "ddof", "weat_effect_size", (0, 1))
    s, details = associations_and_test(X, Y, A, B, permutations, alternative, exact_limit, random_state, memo)
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


def weat_effect_size_permuted(targets: list[np.ndarray], attributes: list[np.ndarray],
                              target_labels: np.ndarray | None, attribute_labels: np.ndarray | None,
                              memo: Memo | None = None, *, ddof: int = 1, **options: object) -> np.ndarray:
    """The effect size in each draw of the permutation null (`MetricSpec.permuted_draws`);
    NaN where :func:`weat_effect_size` is undefined."""
    s, labels = permuted_associations(targets, attributes, target_labels, attribute_labels, memo)
    if s.shape[1] <= ddof:
        return np.full(len(s), np.nan)
    in_x = labels == 0
    difference = np.where(in_x, s, 0).sum(axis=1) / len(targets[0]) - np.where(in_x, 0, s).sum(axis=1) / len(targets[1])
    std = s.std(axis=1, ddof=ddof)
    return np.where(std < 1e-12, np.nan, difference / np.where(std < 1e-12, 1, std))


METRIC = MetricSpec(
    name="WEAT-ES", func=weat_effect_size,
    call=lambda t, a, **o: weat_effect_size(t[0], t[1], a[0], a[1], **o),
    template=Template(2, 2), order="abs", change_tolerance=0.05, stochastic=True, random_stream="WEAT",
    option_checks={"ddof": one_of(0, 1), **PERMUTATION_OPTIONS}, promoted_details=PERMUTATION_DETAILS,
    permuted_draws=weat_effect_size_permuted,
    formula="(mean_{T1} s − mean_{T2} s) / std_{T1∪T2} s  (ddof=1 by default)",
    reference="Caliskan, Bryson & Narayanan 2017, Science 356(6334)",
)
