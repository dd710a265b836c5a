"""Robustness to the choice of neutral words: how far the overall aggregates move when
each neutral set is replaced by a random half of its words (Schröder et al. 2021, §5.3.1)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError


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
        (NaN when b(W) is 0 or NaN). Their Table 6 further averages over models and
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
