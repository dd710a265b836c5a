"""Aggregation by each metric's order relation, and rankings (Badilla et al. 2020, §3.2, §4.2).

Aggregation must be monotone in the metric's order: mean |x| for |x|-ordered metrics,
mean x for ascending and descending ones, mean |x − ideal| for an ideal value. After
aggregation every column is "lower is less biased" except descending metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec

Ties = Literal["min", "average", "max", "dense", "first"]
NanPolicy = Literal["skip", "propagate"]
OVERALL = "overall"


def to_bias_scale(values: pd.DataFrame | pd.Series, spec: MetricSpec) -> pd.DataFrame | pd.Series:
    """Map scores onto the scale whose mean is monotone in the metric's order."""
    if spec.order == "abs":
        return values.abs()
    if spec.order == "ideal":
        return (values - spec.ideal).abs()
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
    nan_policy : {"skip", "propagate"}
        "skip" averages the defined scores (the count is reported); "propagate" makes
        any NaN score give a NaN aggregate.

    Returns
    -------
    DataFrame, models × (query sets …, "overall")
        The overall column is the mean of the query-set aggregates weighted by query-set
        size (Badilla et al. 2020, §4.2).
    """
    if nan_policy not in ("skip", "propagate"):
        raise MetricError(bad_parameter("nan_policy", "aggregate", "'skip' or 'propagate'", nan_policy))
    skipna = nan_policy == "skip"
    scaled = to_bias_scale(scores, spec)
    sets = list(dict.fromkeys(column_sets[c] for c in scores.columns))
    per_set = pd.DataFrame(
        {qs: scaled[[c for c in scores.columns if column_sets[c] == qs]].mean(axis=1, skipna=skipna)
         for qs in sets},
        index=scores.index,
    )
    w = np.array([weights[qs] for qs in sets], dtype=float)
    overall = weighted_overall(per_set.to_numpy(), w, nan_policy)
    per_set[OVERALL] = overall
    return per_set


def rank_values(values: pd.Series | pd.DataFrame, *, ascending: bool = True,
                ties: Ties = "min") -> pd.Series | pd.DataFrame:
    """Ranks (per column) with an explicit tie rule; NaN stays NaN. Integer ranks (Int64)
    unless ``ties="average"``: every ranking column of a run has this form.

    >>> rank_values(pd.Series([0.3, np.nan, 0.1, 0.3])).tolist()
    [2, <NA>, 1, 2]
    """
    ranks = values.astype("float64").rank(method=ties, ascending=ascending, na_option="keep")
    return ranks if ties == "average" else ranks.astype("Int64")


def weighted_overall(per_set: np.ndarray, weights: np.ndarray, nan_policy: NanPolicy = "skip") -> np.ndarray:
    """Σ_s w_s a_s / Σ_s w_s over the last axis (query sets): with ``"skip"`` over the sets
    whose a_s is defined (NaN when none is), with ``"propagate"`` NaN when any is NaN."""
    if nan_policy == "propagate":
        return (per_set * weights).sum(axis=-1) / weights.sum()
    defined = ~np.isnan(per_set)
    total = (np.where(defined, per_set, 0.0) * weights).sum(axis=-1)
    norm = (defined * weights).sum(axis=-1)
    return np.divide(total, norm, out=np.full(np.shape(total), np.nan), where=norm > 0)


def rank_column(values: pd.Series, spec: MetricSpec, ties: Ties = "min") -> pd.Series:
    """1 = least biased; NaN stays NaN (shown, never ranked)."""
    if ties not in ("min", "average", "max", "dense", "first"):
        raise MetricError(bad_parameter("ties", "rank", "one of min, average, max, dense, first", ties))
    return rank_values(values, ascending=spec.order != "descending", ties=ties)


def rank_table(aggregates: Mapping[str, pd.DataFrame], specs: Sequence[MetricSpec], column: str,
               ties: Ties = "min") -> pd.DataFrame:
    """Models × metrics ranks for one aggregate column (a query set or "overall")."""
    return pd.DataFrame(
        {s.name: rank_column(aggregates[s.name][column], s, ties) for s in specs}
    ).rename_axis(index="model", columns="metric")


@dataclass
class Aggregation:
    """The aggregation stage's output: per-metric aggregates and the rankings.

    Attributes
    ----------
    per_metric : dict of str to DataFrame
        Models × (query sets …, "overall") per metric.
    aggregates : DataFrame
        Models × metrics, overall aggregates.
    rankings : DataFrame
        Models × metrics, overall ranks (1 = least biased).
    by_query_set : DataFrame
        Long: query_set, metric, model, value, rank, n_subqueries, n_defined,
        fewer_defined (the model was ranked on fewer defined subqueries than the most any
        model had for that metric and query set).
    """

    per_metric: dict[str, pd.DataFrame]
    aggregates: pd.DataFrame
    rankings: pd.DataFrame
    by_query_set: pd.DataFrame


def aggregate_run(scores: Mapping[str, pd.DataFrame], specs: Sequence[MetricSpec],
                  column_sets: Mapping[str, Mapping[str, str]], weights: Mapping[str, Mapping[str, int]],
                  *, ties: Ties = "min", nan_policy: NanPolicy = "skip") -> Aggregation:
    """Aggregate every metric's score matrix by its order and rank the models."""
    per_metric = {}
    rows = []
    for spec in specs:
        matrix = scores[spec.name]
        agg = aggregate(matrix, spec, column_sets[spec.name], weights[spec.name], nan_policy=nan_policy)
        per_metric[spec.name] = agg
        for qs in agg.columns:
            cols = [c for c, q in column_sets[spec.name].items() if q == qs or qs == OVERALL]
            defined = matrix[cols].notna().sum(axis=1)
            ranks = rank_column(agg[qs], spec, ties)
            for model in matrix.index:
                rows.append((qs, spec.name, model, agg.at[model, qs], ranks[model], len(cols),
                             int(defined[model]), bool(defined[model] < defined.max())))
    by_query_set = pd.DataFrame(rows, columns=["query_set", "metric", "model", "value", "rank", "n_subqueries",
                                               "n_defined", "fewer_defined"])
    by_query_set["rank"] = by_query_set["rank"].astype("Float64" if ties == "average" else "Int64")
    aggregates = pd.DataFrame({s.name: per_metric[s.name][OVERALL] for s in specs}).rename_axis(
        index="model", columns="metric")
    return Aggregation(per_metric, aggregates, rank_table(per_metric, specs, OVERALL, ties), by_query_set)
