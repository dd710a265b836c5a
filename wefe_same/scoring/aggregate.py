"""The order-aware mean of one metric's score matrix (Badilla et al. 2020, §3.2, §4.2).

Scoring needs it for every resampled draw (one overall aggregate per model and metric);
:mod:`wefe_same.analysis.ranking` uses it for the point estimate and ranks the result.
Aggregation must be monotone in the metric's order: mean |x| for |x|-ordered metrics,
mean x for ascending and descending ones, mean |x − ideal| for an ideal value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec

NanPolicy = Literal["skip", "propagate", "common"]
NAN_POLICY_NAMES = ("skip", "propagate", "common")
OVERALL = "overall"
Scores = TypeVar("Scores", pd.DataFrame, pd.Series, np.ndarray)

def _check_policy(nan_policy: str) -> None:
    if nan_policy not in NAN_POLICY_NAMES:
        raise MetricError(bad_parameter("nan_policy", "aggregate", "'skip', 'propagate' or 'common'", nan_policy))


def to_bias_scale(values: Scores, spec: MetricSpec) -> Scores:
    """Map scores (a frame, series or array) onto the scale whose mean is monotone in the metric's order."""
    if spec.order == "abs":
        return np.abs(values)
    if spec.order == "ideal":
        return np.abs(values - spec.ideal)
    return values


def aggregate(
    scores: pd.DataFrame,
    spec: MetricSpec,
    column_sets: Mapping[str, str],
    weights: Mapping[str, int],
    *,
    nan_policy: NanPolicy = "skip",
) -> pd.DataFrame:
    """Per-query-set and overall aggregates of one metric's score matrix.

    Parameters
    ----------
    scores : DataFrame, models × subqueries
    column_sets : mapping subquery id → query set name
    weights : mapping query set name → number of its queries that fit the metric
    nan_policy : {"skip", "propagate", "common"}
        "skip" averages the defined scores (the count is reported); "propagate" makes
        any NaN score give a NaN aggregate; "common" averages, for every model, the
        subqueries that every model of ``scores`` with at least one defined score
        defines (:func:`common_columns`), so that the aggregates rest on the same
        subqueries. A query set with no common subquery drops out of every model's
        overall aggregate alike; with none at all every aggregate is NaN.

    Returns
    -------
    DataFrame, models × (query sets …, "overall")
        The overall column is the mean of the query-set aggregates weighted by query-set
        size (Badilla et al. 2020, §4.2).
    """
    _check_policy(nan_policy)
    skipna = nan_policy != "propagate"
    scaled = to_bias_scale(scores, spec)
    used = common_columns(scores) if nan_policy == "common" else list(scores.columns)
    sets = list(dict.fromkeys(column_sets[c] for c in scores.columns))
    per_set = pd.DataFrame(
        {qs: scaled[[c for c in used if column_sets[c] == qs]].mean(axis=1, skipna=skipna)
         for qs in sets},
        index=scores.index,
    )
    w = np.array([weights[qs] for qs in sets], dtype=float)
    overall = weighted_overall(per_set.to_numpy(), w, nan_policy)
    per_set[OVERALL] = overall
    return per_set


def overall_per_row(
    values: np.ndarray,
    columns: Sequence[str],
    spec: MetricSpec,
    column_sets: Mapping[str, str],
    weights: Mapping[str, int],
    *,
    nan_policy: NanPolicy = "skip",
) -> np.ndarray:
    """The overall aggregate of each row of ``values`` (rows × ``columns``) taken as a
    matrix of its own with one model: ``aggregate(<the row as a one-row frame>, …)["overall"]``,
    for every row at once (a resampled draw of one model per row, scoring's bootstraps).

    The same arithmetic as :func:`aggregate` on one row, bit for bit: each query set's mean
    is the sum of the row's selected columns (NaN as 0 under "skip") in their order, a
    contiguous row summed as pandas sums a one-row frame, over their count. With one
    model, "common" keeps every subquery (see :func:`common_columns`) and is "skip".
    """
    _check_policy(nan_policy)
    scaled = to_bias_scale(np.asarray(values, dtype=np.float64), spec)
    sets = list(dict.fromkeys(column_sets[c] for c in columns))
    per_set = np.empty((len(values), len(sets)))
    for s, qs in enumerate(sets):
        part = np.ascontiguousarray(scaled[:, [k for k, c in enumerate(columns) if column_sets[c] == qs]])
        missing = np.isnan(part)
        if nan_policy == "propagate":
            total, count = part.sum(axis=1), np.full(len(part), float(part.shape[1]))
        else:
            total, count = np.where(missing, 0.0, part).sum(axis=1), part.shape[1] - missing.sum(axis=1, dtype=float)
        with np.errstate(all="ignore"):  # an empty or all-NaN selection: NaN, as pandas
            per_set[:, s] = np.where(count == 0, np.nan, total / count)
    return weighted_overall(per_set, np.array([weights[qs] for qs in sets], dtype=float), nan_policy)


def common_columns(scores: pd.DataFrame) -> list[str]:
    """The subqueries (columns) that every model with at least one defined score defines,
    and those that none defines (they add nothing to any mean, as under ``"skip"``; kept,
    a matrix whose models are all defined alike is aggregated exactly as ``"skip"`` does).

    A model with no defined score at all is left out of "every model": it is ranked under
    no policy, and counting it would leave no common subquery.

    >>> nan = float("nan")
    >>> common_columns(pd.DataFrame({"a": [1.0, 2.0, nan], "b": [nan, 1.0, nan], "c": [3.0, 1.0, nan],
    ...                              "d": [nan, nan, nan]}))
    ['a', 'c', 'd']
    """
    defined = scores.notna().to_numpy()
    defined = defined[defined.any(axis=1)]
    keep = defined.all(axis=0) | ~defined.any(axis=0)
    return [c for c, k in zip(scores.columns, keep) if k]


def weighted_overall(per_set: np.ndarray, weights: np.ndarray, nan_policy: NanPolicy = "skip") -> np.ndarray:
    """Σ_s w_s a_s / Σ_s w_s over the last axis (query sets): with ``"skip"`` over the sets
    whose a_s is defined (NaN when none is), with ``"propagate"`` NaN when any is NaN
    (``"common"`` is ``"skip"`` here: it acts on the subqueries before)."""
    if nan_policy == "propagate":
        return (per_set * weights).sum(axis=-1) / weights.sum()
    defined = ~np.isnan(per_set)
    total = (np.where(defined, per_set, 0.0) * weights).sum(axis=-1)
    norm = (defined * weights).sum(axis=-1)
    return np.divide(total, norm, out=np.full(np.shape(total), np.nan), where=norm > 0)
