"""Each aggregate read against chance: the band of the 95 % most central values its metric
gives on the same model when the query carries no association, and where the real value
falls (the draws: :mod:`wefe_same.scoring.chance`)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError
from wefe_same.metrics.registry import MetricSpec

#: The band holds the central 95 % of the draws (the 2.5 % and 97.5 % quantiles).
LEVEL = 0.95
CHANCE_COLUMNS = ("model", "metric", "null", "draws", "value", "low", "median", "high", "p_chance", "reading",
                  "reason")
#: The reason of a model whose every draw was undefined (every subquery NaN, or none to permute).
NO_DRAW = "no defined draw: every subquery of the metric is undefined here or has a single set in each role"


def chance_reading(value: float, low: float, high: float, descending: bool) -> str:
    """"within chance", "more biased than chance" or "less biased than chance" (on the
    metric's bias scale: higher is more biased, except for a descending metric); "" when
    undefined."""
    if not (np.isfinite(value) and np.isfinite(low) and np.isfinite(high)):
        return ""
    if low <= value <= high:
        return "within chance"
    above = value > high
    return "more biased than chance" if above != descending else "less biased than chance"


def chance_table(aggregates: pd.DataFrame, draws: Mapping[str, np.ndarray], specs: Sequence[MetricSpec], *,
                 left_out: Mapping[tuple[str, str], str] | None = None) -> pd.DataFrame:
    """Per model, metric and null: the band of the null's draws and where the aggregate is.

    Parameters
    ----------
    aggregates : DataFrame, models × metrics
        The overall aggregates (on each metric's bias scale).
    draws : mapping null → ndarray of shape (draws, models, metrics)
        The same aggregates on each null's draws (NaN: a metric the null left out).
    specs : the metrics of the columns, in order
    left_out : mapping (null, metric) → reason
        Why a null has no draws of a metric (:func:`~wefe_same.scoring.chance.left_out_reason`).

    Returns
    -------
    DataFrame (model, metric, null, draws, value, low, median, high, p_chance, reading, reason)
        ``draws``: the defined draws; ``low``/``high``: their 2.5 % and 97.5 % quantiles
        (numpy's linear interpolation); ``p_chance`` = (1 + #draws at least as biased as
        ``value``) / (1 + draws), the one-sided permutation p-value of "more biased than
        chance" (at least as high, or as low for a descending metric); ``reading``: see
        :func:`chance_reading`; ``reason``: why there is no band (the metric left out, or
        :data:`NO_DRAW`), else "".

    >>> from wefe_same.metrics.registry import METRICS
    >>> agg = pd.DataFrame({"WEAT": [0.5, 3.0]}, index=["a", "b"])
    >>> null = np.linspace(0, 1, 101)[:, None, None] * np.ones((1, 2, 1))
    >>> chance_table(agg, {"permutation": null}, [METRICS["WEAT"]])[["model", "low", "high", "p_chance", "reading"]]
      model    low   high  p_chance                  reading
    0     a  0.025  0.975  0.509804            within chance
    1     b  0.025  0.975  0.009804  more biased than chance
    """
    values = aggregates[[s.name for s in specs]].to_numpy(dtype=float)
    rows = []
    for null, got in draws.items():
        got = np.asarray(got, dtype=float)
        if got.ndim != 3 or got.shape[1:] != values.shape:
            raise MetricError(f"the {null!r} chance draws must have shape (draws, {values.shape[0]} models, "
                              f"{values.shape[1]} metrics); got {got.shape}")
        defined = (~np.isnan(got)).sum(axis=0)
        with warnings.catch_warnings():  # a metric left out: all-NaN columns
            warnings.simplefilter("ignore", RuntimeWarning)
            low, median, high = np.nanquantile(got, [(1 - LEVEL) / 2, 0.5, (1 + LEVEL) / 2], axis=0)
        for k, spec in enumerate(specs):
            descending = spec.order == "descending"
            for i, model in enumerate(aggregates.index):
                n = int(defined[i, k])
                value = values[i, k]
                as_biased = got[:, i, k] <= value if descending else got[:, i, k] >= value
                p = (1 + int(as_biased.sum())) / (1 + n) if n and np.isfinite(value) else np.nan
                why = (left_out or {}).get((null, spec.name)) or ("" if n else NO_DRAW)
                rows.append((model, spec.name, null, n, value, low[i, k], median[i, k], high[i, k], p,
                             chance_reading(value, low[i, k], high[i, k], descending), why))
    return pd.DataFrame(rows, columns=list(CHANCE_COLUMNS)).astype(
        {"draws": "int64", "value": "float64", "low": "float64", "median": "float64", "high": "float64",
         "p_chance": "float64", "reading": "str", "reason": "str"})
