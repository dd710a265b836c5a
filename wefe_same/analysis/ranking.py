"""Aggregation of a run by each metric's order relation, and rankings (Badilla et al. 2020, §3.2, §4.2).

The order-aware mean itself is :mod:`wefe_same.scoring.aggregate`. After aggregation every
column is "lower is less biased" except descending metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import pandas as pd

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec
from wefe_same.metrics.spec import Order

# Aggregation itself sits in scoring (every resampled draw is aggregated there); the names
# stay importable from here, where the ranks are.
from wefe_same.scoring.aggregate import (
    OVERALL,
    NanPolicy,
    aggregate,
    to_bias_scale,
    weighted_overall,
)

Ties = Literal["min", "average", "max", "dense", "first"]
__all__ = [
    "OVERALL",
    "Aggregation",
    "NanPolicy",
    "Ties",
    "aggregate",
    "aggregate_run",
    "rank_by_order",
    "rank_column",
    "rank_table",
    "rank_values",
    "to_bias_scale",
    "weighted_overall",
]


def rank_values(values: pd.Series | pd.DataFrame, *, ascending: bool = True,
                ties: Ties = "min") -> pd.Series | pd.DataFrame:
    """Ranks (per column) with an explicit tie rule; NaN stays NaN. Integer ranks (Int64)
    unless ``ties="average"``: every ranking column of a run has this form.

    >>> rank_values(pd.Series([0.3, float("nan"), 0.1, 0.3])).tolist()
    [2, <NA>, 1, 2]
    """
    ranks = values.astype("float64").rank(method=ties, ascending=ascending, na_option="keep")
    return ranks if ties == "average" else ranks.astype("Int64")


def rank_by_order(values: pd.Series, order: Order, *, ideal: float = 0.0, ties: Ties = "min") -> pd.Series:
    """Ranks of raw values under one of the metrics' orders: the one vocabulary of "less
    biased" that metrics, likelihood measures and external columns share.

    ``abs``: |x| ascending; ``ideal``: |x − ideal| ascending; ``ascending``: x ascending;
    ``descending``: x descending. 1 = least biased, NaN stays NaN.

    >>> values = pd.Series([-0.4, 0.1, 0.3])
    >>> [rank_by_order(values, o, ideal=0.3).tolist() for o in ("abs", "ideal", "ascending", "descending")]
    [[3, 1, 2], [3, 2, 1], [1, 2, 3], [3, 2, 1]]
    """
    if order == "abs":
        values = values.abs()
    elif order == "ideal":
        values = (values - ideal).abs()
    return cast(pd.Series, rank_values(values, ascending=order != "descending", ties=ties))



def rank_column(values: pd.Series, spec: MetricSpec, ties: Ties = "min") -> pd.Series:
    """1 = least biased; NaN stays NaN (shown, never ranked). ``values`` are aggregates,
    already on the bias scale (:func:`to_bias_scale`): only a descending metric ranks the
    highest first."""
    if ties not in ("min", "average", "max", "dense", "first"):
        raise MetricError(bad_parameter("ties", "rank", "one of min, average, max, dense, first", ties))
    return rank_by_order(values, "descending" if spec.order == "descending" else "ascending", ties=ties)


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
