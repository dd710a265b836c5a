"""Intervals from resampled draws of the overall aggregates, whatever was resampled:
subqueries inside each query set (:func:`subquery_bootstrap`), or the words inside the
sets (the word bootstrap, drawn per model in scoring); :func:`summarize_draws` turns
either into intervals of the aggregates, of Spearman's rho and of each model's rank."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wefe_same.analysis.correlation import correlations, spearman_draws
from wefe_same.analysis.ranking import NanPolicy, Ties, to_bias_scale, weighted_overall
from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec
from wefe_same.scoring.aggregate import common_columns


def resample_within_strata(strata: list[np.ndarray], draws: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Per stratum, ``draws`` resamples of its items with replacement: arrays (draws, len)."""
    return [rng.choice(items, size=(draws, len(items)), replace=True) for items in strata]


def percentile_interval(samples: np.ndarray, level: float, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval, ignoring NaN draws."""
    tail = (1.0 - level) / 2 * 100
    with np.errstate(all="ignore"):
        low, high = np.nanpercentile(samples, [tail, 100 - tail], axis=axis)
    return low, high



#: pandas tie rules → scipy.stats.rankdata methods.
_SCIPY_TIES = {"min": "min", "average": "average", "max": "max", "dense": "dense", "first": "ordinal"}


def _quiet_interval(samples: np.ndarray, level: float, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`percentile_interval` without the warning for cells whose every draw is NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return percentile_interval(samples, level, axis=axis)


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
    from scipy import stats  # lazily: importing scipy.stats takes ~1 s

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
    fixed_part = fixed[extra].reindex(models) if fixed is not None and extra else None
    fixed_values = (fixed_part.astype("float64").to_numpy() if fixed_part is not None
                    else np.empty((len(models), 0)))
    columns = [*names, *extra]
    series = [oriented[:, :, k] for k in range(len(names))] + [
        np.broadcast_to(fixed_values[:, j], draws.shape[:2]) for j in range(len(extra))]
    point_table = rankings[names].join(fixed_part) if fixed_part is not None else rankings[names]
    point, _ = correlations(point_table, "spearman", pvalues=None)
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


def subquery_bootstrap(
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
        if nan_policy == "common":  # every draw resamples the subqueries every ranked model defines
            frame = frame[common_columns(frame)]
        matrix = to_bias_scale(frame, spec).to_numpy(dtype=float)
        sets = list(dict.fromkeys(column_sets[spec.name].values()))
        cols = [np.array([i for i, c in enumerate(frame.columns) if column_sets[spec.name][c] == qs], dtype=np.intp)
                for qs in sets]
        per_set = np.stack([_mean(matrix[:, idx], nan_policy) for idx in resample_within_strata(cols, draws, rng)],
                           axis=-1)  # (models, draws, sets)
        w = np.array([weights[spec.name][qs] for qs in sets], dtype=float)
        overall[:, :, k] = weighted_overall(per_set, w, nan_policy).T
    return overall


def _mean(resampled: np.ndarray, nan_policy: NanPolicy) -> np.ndarray:
    """Mean over the last axis of (models, draws, n) per the NaN policy → (models, draws)."""
    if nan_policy == "propagate":
        return resampled.mean(axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(resampled, axis=-1)

