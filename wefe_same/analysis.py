"""Agreement between rankings: Spearman's rho (or Kendall's tau) with p-values."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from .errors import MetricError, bad_parameter
from .metrics.registry import MetricSpec
from .ranking import NanPolicy, to_bias_scale
from .stats import percentile_interval, stratified_bootstrap

Method = Literal["spearman", "kendall"]


def correlations(rankings: pd.DataFrame, method: Method = "spearman") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairwise rank correlation between the columns of ``rankings``.

    Models where either column is NaN are left out of that pair. A pair with fewer than
    3 models, or a constant column, has NaN rho and p-value.

    Returns
    -------
    rho, p_value : DataFrame, columns × columns

    >>> r = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> correlations(r)[0].round(2)
    metric    a    b    c
    metric
    a       1.0  0.8 -1.0
    b       0.8  1.0 -0.8
    c      -1.0 -0.8  1.0
    """
    if method not in ("spearman", "kendall"):
        raise MetricError(bad_parameter("method", "correlations", "'spearman' or 'kendall'", method))
    test = stats.spearmanr if method == "spearman" else stats.kendalltau
    cols = list(rankings.columns)
    rho = pd.DataFrame(np.nan, index=cols, columns=cols)
    pval = rho.copy()
    for i, a in enumerate(cols):
        for b in cols[i:]:
            pair = rankings[[a, b]].astype(float).to_numpy()
            pair = pair[~np.isnan(pair).any(axis=1)]
            if len(pair) < 3 or min(len(np.unique(pair[:, 0])), len(np.unique(pair[:, 1]))) < 2:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", stats.ConstantInputWarning)
                res = test(pair[:, 0], pair[:, 1])
            rho.loc[a, b] = rho.loc[b, a] = res.statistic
            pval.loc[a, b] = pval.loc[b, a] = res.pvalue
    for df in (rho, pval):
        df.index.name, df.columns.name = "metric", "metric"
    return rho, pval


def _pearson_columns(ranks: np.ndarray) -> np.ndarray:
    """Pearson correlation between columns, per draw: ranks (draws, models, metrics) →
    (draws, metrics, metrics). Spearman's rho when the input holds average ranks."""
    centred = ranks - np.nanmean(ranks, axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        scaled = centred / np.sqrt(np.nansum(centred**2, axis=1, keepdims=True))
        return np.einsum("bmi,bmj->bij", scaled, scaled)


def bootstrap(
    scores: Mapping[str, pd.DataFrame],
    specs: Sequence[MetricSpec],
    column_sets: Mapping[str, Mapping[str, str]],
    weights: Mapping[str, Mapping[str, int]],
    observed: pd.DataFrame,
    rankings: pd.DataFrame,
    *,
    draws: int,
    random_state: int,
    level: float = 0.95,
    nan_policy: NanPolicy = "skip",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Bootstrap over subqueries, resampled with replacement inside each query set.

    Each draw recomputes every metric's overall aggregate (the same weighting as the
    point estimate), its ranking and the Spearman correlations between rankings.

    Returns
    -------
    aggregates_ci : DataFrame (model, metric, value, ci_low, ci_high)
    correlations_ci : DataFrame (metric_a, metric_b, rho, ci_low, ci_high), Spearman
    rank_stability : DataFrame (model, metric, rank, share_same_rank, rank_ci_low, rank_ci_high)
        ``share_same_rank``: the share of draws in which the model keeps its rank.
    """
    if not isinstance(draws, int) or draws < 1:
        raise MetricError(bad_parameter("bootstrap", "rank", "an integer >= 1", draws))
    rng = np.random.default_rng(random_state)
    models = list(observed.index)
    overall = np.empty((draws, len(models), len(specs)))
    for k, spec in enumerate(specs):
        matrix = to_bias_scale(scores[spec.name], spec).to_numpy(dtype=float)
        sets = list(dict.fromkeys(column_sets[spec.name].values()))
        cols = [np.array([i for i, c in enumerate(scores[spec.name].columns)
                          if column_sets[spec.name][c] == qs]) for qs in sets]
        per_set = np.stack([_mean(matrix[:, idx], nan_policy) for idx in stratified_bootstrap(cols, draws, rng)],
                           axis=-1)  # (models, draws, sets)
        w = np.array([weights[spec.name][qs] for qs in sets], dtype=float)
        defined = ~np.isnan(per_set)
        if nan_policy == "skip":
            with np.errstate(all="ignore"):
                agg = (np.where(defined, per_set, 0) * w).sum(-1) / (defined * w).sum(-1)
        else:
            agg = (per_set * w).sum(-1) / w.sum()
        overall[:, :, k] = agg.T
    low, high = percentile_interval(overall, level, axis=0)
    names = [s.name for s in specs]
    aggregates_ci = pd.DataFrame(
        [(m, n, observed.at[m, n], low[i, k], high[i, k]) for k, n in enumerate(names) for i, m in enumerate(models)],
        columns=["model", "metric", "value", "ci_low", "ci_high"])

    sign = np.array([-1.0 if s.order == "descending" else 1.0 for s in specs])
    oriented = overall * sign
    min_ranks = stats.rankdata(oriented, method="min", axis=1, nan_policy="omit")
    avg_ranks = stats.rankdata(oriented, method="average", axis=1, nan_policy="omit")
    rows = []
    for k, n in enumerate(names):
        for i, m in enumerate(models):
            r = rankings.at[m, n]
            draws_k = min_ranks[:, i, k]
            rlow, rhigh = percentile_interval(draws_k, level)
            share = float(np.mean(draws_k == r)) if not pd.isna(r) else np.nan
            rows.append((m, n, r, share, rlow, rhigh))
    rank_stability = pd.DataFrame(rows, columns=["model", "metric", "rank", "share_same_rank",
                                                 "rank_ci_low", "rank_ci_high"])

    rho_draws = _pearson_columns(avg_ranks)
    rho_low, rho_high = percentile_interval(rho_draws, level, axis=0)
    point, _ = correlations(rankings, "spearman")
    corr_rows = [(a, b, point.at[a, b], rho_low[i, j], rho_high[i, j])
                 for i, a in enumerate(names) for j, b in enumerate(names) if i < j]
    correlations_ci = pd.DataFrame(corr_rows, columns=["metric_a", "metric_b", "rho", "ci_low", "ci_high"])
    return aggregates_ci, correlations_ci, rank_stability


def _mean(resampled: np.ndarray, nan_policy: NanPolicy) -> np.ndarray:
    """Mean over the last axis of (models, draws, n) per the NaN policy → (models, draws)."""
    if nan_policy == "propagate":
        return resampled.mean(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(resampled, axis=-1)
