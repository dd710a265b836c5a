"""Agreement of all metrics at once: Kendall's W with the Friedman test, a consensus
ranking with how far each model's rank spreads and moves, and redundant metric columns.

The pairwise table (Spearman's or Kendall's coefficient with exact p-values) says how two
metrics agree; Kendall's W (Kendall & Babington Smith 1939) says how all of them do: the
metrics are the raters, the models the objects, and W = 12 S / (m²(n³ − n) − m ΣT) with the
rank sums' squared deviations S, m metrics, n models and the tie correction ΣT = Σ(t³ − t)
over the ties of every metric. W = 1 when every metric orders the models alike, 0 when
their rank sums are all equal. Friedman's χ² = m (n − 1) W is its test (Friedman 1937), with
the χ² p-value (n − 1 degrees of freedom) and, unless p-values are asked asymptotic, a
permutation p-value that permutes the models within each metric (the exact null: every
enumerated when (n!)^m orders are at most the run's resamples), so a run of four models
is not read off an asymptote.

Only metrics that rank every model enter (a metric with an unranked model is named in
``left_out``): Friedman's test needs complete blocks. Descending metrics are already
ranked the other way round in a run's rankings (1 = least biased throughout).

Written by hand: W on many resampled tables at once (a stack of rankings) and the tie sums;
scipy gives the ranks, the χ² tail, the permutation test and the quantiles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

#: |rho| at least this close to 1 makes two metric columns redundant in a run.
REDUNDANT_TOLERANCE = 1e-9
#: Permutation draws per batch of the W test (memory: batch × models × metrics floats).
_BATCH = 20_000


def tie_sums(ranks: np.ndarray) -> np.ndarray:
    """Σ (t³ − t) over the tie groups of each column of ``ranks`` (..., n, m) → (..., m).

    Each value in a group of t equal values adds t² − 1, so a group adds t³ − t.

    >>> tie_sums(np.array([[1.5, 1.0], [1.5, 2.0], [3.0, 3.0]])).tolist()
    [6.0, 0.0]
    """
    counts = (ranks[..., :, None, :] == ranks[..., None, :, :]).sum(axis=-2)
    return (counts.astype(float) ** 2 - 1.0).sum(axis=-2)


def kendalls_w(ranks: np.ndarray) -> np.ndarray:
    """Tie-corrected Kendall's W of rankings (..., n objects, m raters), each column ranked
    (average ranks for ties); NaN where every rater ties every object.

    >>> float(kendalls_w(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])))
    1.0
    >>> float(kendalls_w(np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])))
    0.0
    """
    ranks = np.asarray(ranks, dtype=float)
    n, m = ranks.shape[-2:]
    sums = ranks.sum(axis=-1)
    s = ((sums - sums.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    denominator = m ** 2 * (n ** 3 - n) - m * tie_sums(ranks).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 12.0 * s / np.where(denominator > 0, denominator, 1.0), np.nan)


def complete_metrics(values: pd.DataFrame, metrics: Sequence[str]) -> tuple[list[str], list[str]]:
    """(metrics that rank every model, metrics left out because they leave one unranked)."""
    kept = [m for m in metrics if m in values and values[m].notna().all()]
    return kept, [m for m in metrics if m not in kept]


def oriented(aggregates: pd.DataFrame, specs: Sequence[Any]) -> pd.DataFrame:
    """A run's aggregates of ``specs`` with lower = less biased throughout (a descending
    metric negated): what W and the consensus rank."""
    return pd.DataFrame({s.name: -aggregates[s.name] if s.order == "descending" else aggregates[s.name]
                         for s in specs}, index=aggregates.index)


def average_ranks(values: pd.DataFrame) -> pd.DataFrame:
    """Average ranks per column (ties share the mean of their places), whatever tie rule
    made a run's rankings: a "first" ranking has broken ties that no re-ranking restores,
    so W and the consensus rank the values themselves."""
    return pd.DataFrame(stats.rankdata(values.to_numpy(dtype=float), axis=0), index=values.index,
                        columns=values.columns)


def agreement_test(values: pd.DataFrame, metrics: Sequence[str], *, pvalues: str = "exact",
                   resamples: int = 100_000, random_state: int = 0,
                   draws: np.ndarray | None = None, level: float = 0.95) -> pd.DataFrame:
    """Kendall's W of the metrics' rankings with Friedman's test: one row.

    Parameters
    ----------
    values : DataFrame, models × columns, lower = less biased
        A run's aggregates with descending metrics negated (:func:`oriented`), or rankings
        (1 = least biased); ranked here by average ranks.
    metrics : the metric columns to compare (the others, quality or external, are not raters)
    pvalues : "exact" (a permutation p-value beside the χ² one) or "asymptotic" (χ² only)
    draws : ndarray (B, models, metrics), optional
        Resampled aggregates on the bias scale, oriented so that lower is less biased (a
        descending metric negated), in the order of ``metrics``: their W give the interval.

    Returns
    -------
    DataFrame with one row: ``w``, ``chi2``, ``df``, ``p_chi2``, ``p_value``, ``p_method``,
    ``mc_error``, ``n_models``, ``n_metrics``, ``ci_low``, ``ci_high``, ``n_draws`` (draws
    with a defined W; a draw where a metric leaves a model unranked has none), ``left_out``
    ("; "-separated), ``reason``.
    """
    kept, left_out = complete_metrics(values, metrics)
    n, m = len(values), len(kept)
    row: dict[str, object] = {"w": np.nan, "chi2": np.nan, "df": max(n - 1, 0), "p_chi2": np.nan,
                              "p_value": np.nan, "p_method": "", "mc_error": np.nan, "n_models": n,
                              "n_metrics": m, "ci_low": np.nan, "ci_high": np.nan, "n_draws": 0,
                              "left_out": "; ".join(left_out), "reason": ""}
    if n < 2 or m < 2:
        row["reason"] = (f"{n} model(s) ranked: W compares at least 2" if n < 2
                         else f"{m} metric(s) rank every model: W needs at least 2")
        return pd.DataFrame([row])
    ranks = average_ranks(values[kept]).to_numpy()
    w = float(kendalls_w(ranks))
    if np.isnan(w):
        row["reason"] = "every metric ties every model: no order to agree on"
        return pd.DataFrame([row])
    chi2 = m * (n - 1) * w
    row.update(w=w, chi2=chi2, p_chi2=float(stats.chi2.sf(chi2, n - 1)), p_value=float(stats.chi2.sf(chi2, n - 1)),
               p_method="asymptotic")
    if pvalues != "asymptotic":
        row.update(_permutation_pvalue(ranks, resamples, random_state))
    if draws is not None:
        columns = [list(metrics).index(k) for k in kept]
        drawn = kendalls_w(stats.rankdata(draws[:, :, columns], axis=1, nan_policy="omit"))
        drawn = drawn[~np.isnan(drawn)]
        row["n_draws"] = len(drawn)
        if len(drawn):
            row["ci_low"], row["ci_high"] = np.quantile(drawn, [(1 - level) / 2, (1 + level) / 2]).tolist()
    return pd.DataFrame([row])


def _permutation_pvalue(ranks: np.ndarray, resamples: int, random_state: int) -> dict[str, object]:
    """P(W* ≥ W) with the models permuted within each metric (scipy.stats.permutation_test,
    ``permutation_type="samples"``: each metric's values reassigned among the models).

    Permuting a metric's values keeps its ties, so W's denominator is the same in every
    table and the test compares S, the rank sums' squared deviations, alone."""
    def spread(*models: np.ndarray, axis: int = -1) -> np.ndarray:
        sums = np.sum([np.moveaxis(x, axis, -1) for x in models], axis=-1)  # (n, ...): each model's rank sum
        return ((sums - sums.mean(axis=0)) ** 2).sum(axis=0)

    result = stats.permutation_test(tuple(ranks), spread, permutation_type="samples", vectorized=True,
                                    n_resamples=resamples, alternative="greater", batch=_BATCH,
                                    random_state=np.random.default_rng(random_state))
    n, m = ranks.shape
    exact = _enumerable(n, m, resamples)  # scipy then enumerates every table
    p = float(result.pvalue)
    return {"p_value": p, "p_method": "exact" if exact else "permutation",
            "mc_error": 0.0 if exact else float(np.sqrt(p * (1 - p) / resamples))}


def _enumerable(n: int, m: int, resamples: int) -> bool:
    """Whether the permutation null's (n!)^m tables are at most ``resamples`` (in logs: the
    count overflows a float from 171 models on)."""
    return m * math.lgamma(n + 1) <= math.log(resamples) + 1e-9


def consensus(values: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Per model: the consensus rank (by the mean of its average ranks over the metrics that
    rank every model; tied means share the lowest place), the spread of its ranks across
    metrics and how far its consensus rank moves when one metric is left out. ``values`` as
    for :func:`agreement_test` (lower = less biased); the ranks are average ranks, so every
    metric weighs alike whatever tie rule the run's rankings use.

    Columns: ``consensus_rank``, ``mean_rank``, ``rank_min``, ``rank_max``, ``rank_iqr``,
    ``loo_max_shift`` (the largest |change| of the consensus rank with one metric left
    out) and ``loo_metric`` (the metric whose removal moves it most; "" when none does).
    """
    kept, _ = complete_metrics(values, metrics)
    frame = average_ranks(values[kept])
    mean = frame.mean(axis=1)
    table = pd.DataFrame({"consensus_rank": mean.rank(method="min"), "mean_rank": mean,
                          "rank_min": frame.min(axis=1), "rank_max": frame.max(axis=1),
                          "rank_iqr": frame.quantile(0.75, axis=1) - frame.quantile(0.25, axis=1)})
    shifts = pd.DataFrame({k: (frame.drop(columns=k).mean(axis=1).rank(method="min") - table["consensus_rank"]).abs()
                           for k in kept}, index=frame.index) if len(kept) > 1 else pd.DataFrame(index=frame.index)
    table["loo_max_shift"] = shifts.max(axis=1) if len(shifts.columns) else np.nan
    table["loo_metric"] = [str(shifts.loc[i].idxmax()) if len(shifts.columns) and shifts.loc[i].max() > 0 else ""
                           for i in frame.index]
    # integer ranks stay integers (Int64); a tie's halves stay
    integers = [c for c in ("consensus_rank", "rank_min", "rank_max")
                if np.all(np.isnan(table[c]) | (table[c] == np.round(table[c])))]
    table[integers] = table[integers].astype("Int64")
    return table.rename_axis(index="model").reset_index()


def redundant_metrics(correlations: pd.DataFrame, metrics: Sequence[str], tests: pd.DataFrame | None = None,
                      tolerance: float = REDUNDANT_TOLERANCE) -> pd.DataFrame:
    """Pairs of metric columns whose rank correlation is ±1 within ``tolerance``: in this
    run one of them carries no information the other does not.

    Columns ``metric_a``, ``metric_b``, ``rho``, ``same_order``, ``p_value`` and ``p_method``:
    how likely ±1 is by chance. With few models it is likely (three untied models: 2/3! =
    0.33): the pair's exact or permutation p-value from ``tests`` (a run's
    correlation_tests), or, where those are asymptotic (which gives 0 at ±1 whatever the
    number of models), 2/n!, the exact p of an untied pair of n models ("untied exact").
    NaN without ``tests``.
    """
    names = [m for m in metrics if m in correlations.columns]
    chance: dict[frozenset[str], tuple[float, str]] = {}
    if tests is not None:
        for a, b, p, method, n in zip(tests["metric_a"], tests["metric_b"], tests["p_value"], tests["p_method"],
                                      tests["n_models"]):
            chance[frozenset((a, b))] = ((float(p), str(method)) if method != "asymptotic"
                                         else (math.exp(math.log(2.0) - math.lgamma(int(n) + 1)), "untied exact"))
    rows = [{"metric_a": a, "metric_b": b, "rho": float(correlations.loc[a, b]),
             "same_order": bool(correlations.loc[a, b] > 0),
             "p_value": chance.get(frozenset((a, b)), (np.nan, ""))[0],
             "p_method": chance.get(frozenset((a, b)), (np.nan, ""))[1]}
            for i, a in enumerate(names) for b in names[i + 1:]
            if abs(float(correlations.loc[a, b])) >= 1.0 - tolerance]
    return pd.DataFrame(rows, columns=["metric_a", "metric_b", "rho", "same_order", "p_value", "p_method"])


def alike_groups(redundant: pd.DataFrame, alpha: float = 0.05) -> list[list[str]]:
    """Groups of metrics that rank the models in the same order, linked by the pairs of
    ``redundant`` with a p-value at most ``alpha`` (or none given), each in first-seen order.

    >>> pairs = pd.DataFrame({"metric_a": ["A", "B", "C"], "metric_b": ["B", "D", "E"],
    ...                       "same_order": [True, True, False], "p_value": [0.001, 0.01, 0.001]})
    >>> alike_groups(pairs)
    [['A', 'B', 'D']]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    kept = redundant[redundant["same_order"].astype(bool) & ~(redundant["p_value"].astype(float) > alpha)]
    names = list(dict.fromkeys([*kept["metric_a"], *kept["metric_b"]]))
    if not names:
        return []
    index = {n: i for i, n in enumerate(names)}
    rows, cols = [index[a] for a in kept["metric_a"]], [index[b] for b in kept["metric_b"]]
    edges = coo_matrix((np.ones(len(kept)), (rows, cols)), shape=(len(names), len(names)))
    _, labels = connected_components(edges, directed=False)
    return [[n for n, label in zip(names, labels) if label == group] for group in dict.fromkeys(labels)]
