"""Agreement between rankings (Spearman's rho or Kendall's tau, with p-values) and
intervals from resampled draws: subqueries (:func:`bootstrap`), words inside the sets
(the word bootstrap) or random halves of the neutral words (:func:`robustness_table`)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec
from wefe_same.analysis.ranking import NanPolicy, Ties, to_bias_scale, weighted_overall
from wefe_same.metrics._permutation import percentile_interval, stratified_bootstrap

CorrelationMethod = Literal["spearman", "kendall"]


def correlations(rankings: pd.DataFrame, method: CorrelationMethod = "spearman") -> tuple[pd.DataFrame, pd.DataFrame]:
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


#: pandas tie rules → scipy.stats.rankdata methods.
_SCIPY_TIES = {"min": "min", "average": "average", "max": "max", "dense": "dense", "first": "ordinal"}


def _quiet_interval(samples: np.ndarray, level: float, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`percentile_interval` without the warning for cells whose every draw is NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return percentile_interval(samples, level, axis=axis)


def spearman_draws(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho per draw between two columns, models where either is NaN left out.

    Parameters
    ----------
    x, y : ndarray, shape (draws, models)

    Returns
    -------
    ndarray, shape (draws,)
        NaN for a draw with fewer than 3 models defined in both, or a constant column —
        the same rule as :func:`correlations`, whose value this reproduces per draw.
    """
    both = ~(np.isnan(x) | np.isnan(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ranks = [stats.rankdata(np.where(both, v, np.nan), method="average", axis=1, nan_policy="omit")
                 for v in (x, y)]
        xc, yc = (r - np.nanmean(r, axis=1, keepdims=True) for r in ranks)
        num = np.nansum(xc * yc, axis=1)
        den = np.sqrt(np.nansum(xc**2, axis=1) * np.nansum(yc**2, axis=1))
    ok = (both.sum(axis=1) >= 3) & (den > 0)  # equal ranks centre to exactly 0
    return np.where(ok, np.clip(num / np.where(ok, den, 1.0), -1.0, 1.0), np.nan)


def summarize_draws(
    draws: np.ndarray,
    specs: Sequence[MetricSpec],
    observed: pd.DataFrame,
    rankings: pd.DataFrame,
    *,
    fixed: pd.DataFrame | None = None,
    level: float = 0.95,
    ties: Ties = "min",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Intervals from resampled overall aggregates, whatever was resampled (subqueries, words).

    Parameters
    ----------
    draws : ndarray, shape (B, models, metrics)
        Overall aggregates per draw on the bias scale of ``observed`` (after
        :func:`~wefe_same.analysis.ranking.to_bias_scale`), models in ``observed.index`` order and
        metrics in ``specs`` order. NaN draws are ignored.
    specs : metric specs, in the order of the last axis
    observed : DataFrame, models × columns
        The point estimates; its columns named after ``specs`` are used.
    rankings : DataFrame, models × columns
        The run's ranks (1 = least biased); its metric columns are used.
    fixed : DataFrame, models × columns, optional
        Ranks that do not vary across draws (quality, external columns): the correlations
        also cover every metric × fixed pair (fixed × fixed pairs have no interval).
    level : float
        Coverage of the percentile intervals.
    ties : {"min", "average", "max", "dense", "first"}
        Tie rule of the per-draw ranks; the run's rule, so that ``share_same_rank``
        compares like with like.

    Returns
    -------
    aggregates_ci : DataFrame (model, metric, value, ci_low, ci_high)
    correlations_ci : DataFrame (metric_a, metric_b, rho, ci_low, ci_high), Spearman
        ``rho`` is :func:`correlations` on the run's rankings (scipy's ``spearmanr``); the
        interval is the percentile interval of the per-draw rho.
    rank_stability : DataFrame (model, metric, rank, share_same_rank, rank_ci_low, rank_ci_high)
        ``share_same_rank``: the share of draws in which the model keeps its rank.
    """
    names = [s.name for s in specs]
    models = list(observed.index)
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 3 or draws.shape[1:] != (len(models), len(names)):
        raise MetricError(f"draws must have shape (B, {len(models)} models, {len(names)} metrics); "
                          f"got {draws.shape}")
    if ties not in _SCIPY_TIES:
        raise MetricError(bad_parameter("ties", "summarize_draws", "one of " + ", ".join(_SCIPY_TIES), ties))
    low, high = _quiet_interval(draws, level)
    aggregates_ci = pd.DataFrame(
        [(m, n, observed.at[m, n], low[i, k], high[i, k]) for k, n in enumerate(names) for i, m in enumerate(models)],
        columns=["model", "metric", "value", "ci_low", "ci_high"])

    sign = np.array([-1.0 if s.order == "descending" else 1.0 for s in specs])
    oriented = draws * sign  # lower = less biased for every metric
    rank_draws = stats.rankdata(oriented, method=_SCIPY_TIES[ties], axis=1, nan_policy="omit")
    rlow, rhigh = _quiet_interval(rank_draws, level)
    rows = []
    for k, n in enumerate(names):
        for i, m in enumerate(models):
            r = rankings.at[m, n]
            share = float(np.mean(rank_draws[:, i, k] == float(r))) if not pd.isna(r) else np.nan
            rows.append((m, n, r, share, rlow[i, k], rhigh[i, k]))
    rank_stability = pd.DataFrame(rows, columns=["model", "metric", "rank", "share_same_rank",
                                                 "rank_ci_low", "rank_ci_high"])

    extra = [] if fixed is None else [c for c in fixed.columns if c not in names]
    fixed_values = (fixed[extra].reindex(models).astype("float64").to_numpy() if extra
                    else np.empty((len(models), 0)))
    columns = [*names, *extra]
    series = [oriented[:, :, k] for k in range(len(names))] + [
        np.broadcast_to(fixed_values[:, j], draws.shape[:2]) for j in range(len(extra))]
    point_table = rankings[names].join(fixed[extra].reindex(models)) if extra else rankings[names]
    point, _ = correlations(point_table, "spearman")
    corr_rows = []
    for i, a in enumerate(columns):
        for j in range(i + 1, len(columns)):
            if i >= len(names):  # fixed × fixed: nothing varies
                continue
            b = columns[j]
            clow, chigh = _quiet_interval(spearman_draws(series[i], series[j]), level)
            corr_rows.append((a, b, point.at[a, b], float(clow), float(chigh)))
    correlations_ci = pd.DataFrame(corr_rows, columns=["metric_a", "metric_b", "rho", "ci_low", "ci_high"])
    return aggregates_ci, correlations_ci, rank_stability


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
    fixed: pd.DataFrame | None = None,
    ties: Ties = "min",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Bootstrap over subqueries, resampled with replacement inside each query set.

    Each draw recomputes every metric's overall aggregate (the same weighting as the
    point estimate); :func:`summarize_draws` turns the draws into intervals of the
    aggregates, of Spearman's rho (metric × metric and metric × ``fixed`` column) and
    of each model's rank.

    Returns
    -------
    aggregates_ci, correlations_ci, rank_stability : see :func:`summarize_draws`
    """
    if not isinstance(draws, int) or draws < 1:
        raise MetricError(bad_parameter("bootstrap", "rank", "an integer >= 1", draws))
    return summarize_draws(subquery_draws(scores, specs, column_sets, weights, list(observed.index),
                                          draws=draws, random_state=random_state, nan_policy=nan_policy),
                           specs, observed, rankings, fixed=fixed, level=level, ties=ties)


def subquery_draws(
    scores: Mapping[str, pd.DataFrame],
    specs: Sequence[MetricSpec],
    column_sets: Mapping[str, Mapping[str, str]],
    weights: Mapping[str, Mapping[str, int]],
    models: Sequence[str],
    *,
    draws: int,
    random_state: int,
    nan_policy: NanPolicy = "skip",
) -> np.ndarray:
    """Overall aggregates with subqueries resampled inside each query set: (B, models, metrics)."""
    rng = np.random.default_rng(random_state)
    overall = np.empty((draws, len(models), len(specs)))
    for k, spec in enumerate(specs):
        frame = scores[spec.name].reindex(list(models))
        matrix = to_bias_scale(frame, spec).to_numpy(dtype=float)
        sets = list(dict.fromkeys(column_sets[spec.name].values()))
        cols = [np.array([i for i, c in enumerate(frame.columns) if column_sets[spec.name][c] == qs])
                for qs in sets]
        per_set = np.stack([_mean(matrix[:, idx], nan_policy) for idx in stratified_bootstrap(cols, draws, rng)],
                           axis=-1)  # (models, draws, sets)
        w = np.array([weights[spec.name][qs] for qs in sets], dtype=float)
        overall[:, :, k] = weighted_overall(per_set, w, nan_policy).T
    return overall


def robustness_table(point: pd.DataFrame, halves: np.ndarray) -> pd.DataFrame:
    """Schröder et al. 2021, §5.3.1 (Table 6): per model and metric, mean |b(W_i) − b(W)| over the halves.

    Parameters
    ----------
    point : DataFrame, models × metrics
        b(W): the overall aggregates on all the neutral words.
    halves : ndarray, shape (H, models, metrics)
        b(W_i): the same aggregates with each neutral set replaced by a random half W_i.

    Returns
    -------
    DataFrame (model, metric, halves, mean_abs_change, relative)
        ``halves``: the halves with a defined score; ``relative`` = mean_abs_change / |b(W)|
        (NaN when b(W) is 0 or NaN). Table 6 of Schröder et al. 2021 further averages over models and
        divides by the width of each score's range; this table keeps every model.

    >>> point = pd.DataFrame({"SAME": [0.2, 0.4]}, index=["a", "b"])
    >>> robustness_table(point, np.array([[[0.1], [0.4]], [[0.3], [0.5]]]))
      model metric  halves  mean_abs_change  relative
    0     a   SAME       2             0.10     0.500
    1     b   SAME       2             0.05     0.125
    """
    values = point.to_numpy(dtype=float)
    halves = np.asarray(halves, dtype=float)
    if halves.ndim != 3 or halves.shape[1:] != values.shape:
        raise MetricError(f"halves must have shape (H, {values.shape[0]} models, {values.shape[1]} metrics); "
                          f"got {halves.shape}")
    change = np.abs(halves - values)
    defined = (~np.isnan(change)).sum(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(change, axis=0)
    with np.errstate(all="ignore"):
        relative = np.where(np.abs(values) > 0, mean / np.abs(values), np.nan)
    models, metrics = list(point.index), list(point.columns)
    return pd.DataFrame(
        [(m, c, int(defined[i, k]), mean[i, k], relative[i, k])
         for k, c in enumerate(metrics) for i, m in enumerate(models)],
        columns=["model", "metric", "halves", "mean_abs_change", "relative"])


def _mean(resampled: np.ndarray, nan_policy: NanPolicy) -> np.ndarray:
    """Mean over the last axis of (models, draws, n) per the NaN policy → (models, draws)."""
    if nan_policy == "propagate":
        return resampled.mean(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(resampled, axis=-1)
