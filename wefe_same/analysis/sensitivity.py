"""How the overall ranking of the models depends on how the metrics are combined.

The per-metric rankings are combined into one overall ranking in three ways:

``mean``
    The mean over metrics of each metric's overall aggregate rescaled to [0, 1] across
    the models (0 = the least biased model of the run, 1 = the most biased; descending
    metrics are flipped first), so that no metric weighs more because of its scale. This
    is the "mean of the scores" that benchmark tables use (WEFE's overall aggregate is
    the same mean across query sets within one metric, Badilla et al. 2020, §4.2).
``borda``
    The sum of the per-metric ranks (the Borda count; the accumulated rankings of Badilla et al. 2020,
    Fig. 2, and its WEB column). A model with no rank in one of the metrics has no sum.
``median``
    The median of the per-metric ranks it has.

In each, a lower score is less biased and gets rank 1. Metrics that rank no model are
left out. The orders are compared with Kendall's tau-b (``scipy.stats.kendalltau``) on
the scores, over the models that have both, with the exact p-value of
:func:`~wefe_same.analysis.significance.correlation_pvalue` (scipy's exact distribution
without ties, the enumerated or permuted conditional null with them), and the models
whose rank changes are named.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, get_args

import numpy as np
import pandas as pd

from wefe_same.analysis.ranking import Ties, rank_values
from wefe_same.analysis.significance import NullCache, PValue, PValueMethod, correlation_pvalue
from wefe_same.errors import MetricError, WefeSameWarning, bad_parameter

METHODS = ("mean", "borda", "median")
TIES: tuple[str, ...] = get_args(Ties)


def _metric_columns(frame: pd.DataFrame, specs: Sequence[Any], what: str) -> list[str]:
    names = [s.name for s in specs]
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise MetricError(f"{what} has no column for metric {missing[0]!r}; "
                          f"columns: {', '.join(map(str, frame.columns))}")
    return names


def normalized_aggregates(aggregates: pd.DataFrame, specs: Sequence[Any]) -> pd.DataFrame:
    """Each metric's aggregates rescaled to [0, 1] across the models, 0 = least biased.

    Descending metrics (higher = fairer) are negated first; a metric on which every
    defined model scores the same gives 0 to all of them. NaN stays NaN.

    >>> from types import SimpleNamespace as S
    >>> agg = pd.DataFrame({"a": [1.0, 3.0, 2.0], "b": [0.9, 0.1, 0.5]}, index=["x", "y", "z"])
    >>> normalized_aggregates(agg, [S(name="a", order="abs"), S(name="b", order="descending")])
         a    b
    x  0.0  0.0
    y  1.0  1.0
    z  0.5  0.5
    """
    names = _metric_columns(aggregates, specs, "aggregates")
    out = {}
    for spec, name in zip(specs, names):
        values = aggregates[name].astype("float64") * (-1.0 if spec.order == "descending" else 1.0)
        span = values.max() - values.min()
        out[name] = (values - values.min()) / span if span > 0 else values * 0.0
    return pd.DataFrame(out, index=aggregates.index)


def aggregation_sensitivity(
    aggregates: pd.DataFrame,
    rankings: pd.DataFrame,
    specs: Sequence[Any],
    ties: Ties = "min",
    *,
    pvalues: PValueMethod = "exact",
    cache: NullCache | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The overall ranking under the mean of normalised aggregates, Borda and the median rank.

    Parameters
    ----------
    aggregates : DataFrame, models × columns
        Overall aggregates (bias scale); the columns named after ``specs`` are used.
    rankings : DataFrame, models × columns
        The run's per-metric ranks (1 = least biased); the columns named after ``specs``.
    specs : metric specs (``name`` and ``order``)
    ties : {"min", "average", "max", "dense", "first"}
        Tie rule of the overall ranks.
    pvalues, cache : the p-values' method and the run's null distributions, as in
        :func:`~wefe_same.analysis.correlation.correlations`.

    Returns
    -------
    ranks : DataFrame, one row per model
        model, mean_score, mean_rank, borda_score, borda_rank, median_score, median_rank,
        metrics_used (metrics that rank the model), changes (True when the three ranks
        are not all equal).
    agreement : DataFrame, one row per pair of methods
        method_a, method_b, kendall_tau, p_value, p_method, mc_error (as in
        :func:`~wefe_same.analysis.correlation.correlation_tests`), n_models, moved (the models whose rank
        differs between the two, "; "-joined, in run order).
    """
    if ties not in TIES:
        raise MetricError(bad_parameter("ties", "aggregation_sensitivity", "one of " + ", ".join(TIES), ties))
    _metric_columns(rankings, specs, "rankings")
    used = [s for s in specs if aggregates[s.name].notna().any() and rankings[s.name].notna().any()]
    names = [s.name for s in used]
    run_ranks = rankings[names].astype("float64")
    if not used:
        # Undefined metrics never stop a run (each keeps its reason in the details): the
        # tables keep their shape, with no score, no rank and nothing compared.
        warnings.warn(f"aggregation sensitivity: none of the metrics {', '.join(s.name for s in specs)} ranks "
                      "any model (all undefined; the reasons are in details.csv): nothing to compare",
                      WefeSameWarning, stacklevel=2)
        nothing = pd.Series(np.nan, index=aggregates.index, dtype="float64")
        scores = dict.fromkeys(METHODS, nothing)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a model no metric ranks: NaN
            scores = {
                "mean": normalized_aggregates(aggregates, used).mean(axis=1, skipna=True),
                "borda": run_ranks.sum(axis=1, min_count=len(names)),
                "median": run_ranks.median(axis=1, skipna=True),
            }
    ranks = {m: rank_values(scores[m], ties=ties) for m in METHODS}
    table = pd.DataFrame({"model": list(aggregates.index)})
    for m in METHODS:
        table[f"{m}_score"] = scores[m].to_numpy()
        table[f"{m}_rank"] = ranks[m].to_numpy()
    table["metrics_used"] = run_ranks.notna().sum(axis=1).to_numpy(dtype="int64")
    stacked = np.column_stack([ranks[m].astype("float64").to_numpy() for m in METHODS])
    table["changes"] = [bool(np.nanmax(r) != np.nanmin(r)) if np.isfinite(r).any() else False
                        for r in stacked]

    from scipy import stats  # lazily: importing scipy.stats takes ~1 s

    cache = NullCache() if cache is None else cache
    rows = []
    for i, a in enumerate(METHODS):
        for b in METHODS[i + 1:]:
            x, y = scores[a].to_numpy(float), scores[b].to_numpy(float)
            both = ~(np.isnan(x) | np.isnan(y))
            tau, p = np.nan, PValue(np.nan, "")
            if both.sum() >= 2 and len(np.unique(x[both])) > 1 and len(np.unique(y[both])) > 1:
                tau = float(stats.kendalltau(x[both], y[both]).statistic)
                p = correlation_pvalue(x[both], y[both], "kendall", pvalues=pvalues, cache=cache)
            ra, rb = ranks[a].astype("float64"), ranks[b].astype("float64")
            moved = [m for m in aggregates.index if not (pd.isna(ra[m]) and pd.isna(rb[m])) and ra[m] != rb[m]]
            rows.append((a, b, tau, p.p_value, p.method, p.mc_error, int(both.sum()), "; ".join(map(str, moved))))
    agreement = pd.DataFrame(rows, columns=["method_a", "method_b", "kendall_tau", "p_value", "p_method", "mc_error",
                                            "n_models", "moved"])
    return table, agreement
