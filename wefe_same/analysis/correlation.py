"""Agreement between rankings: Spearman's rho or Kendall's tau with p-values, and
Spearman's rho per resampled draw (for the intervals of :mod:`wefe_same.analysis.intervals`)."""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError, bad_parameter

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
    from scipy import stats  # lazily: importing scipy.stats takes ~1 s; importing this module need not

    test = stats.spearmanr if method == "spearman" else stats.kendalltau
    cols = list(rankings.columns)
    values = rankings.astype(float).to_numpy()  # numpy per pair: pandas indexing cost more than the test
    rho, pval = np.full((len(cols), len(cols)), np.nan), np.full((len(cols), len(cols)), np.nan)
    for i in range(len(cols)):
        for j in range(i, len(cols)):
            pair = values[:, [i, j]]
            pair = pair[~np.isnan(pair).any(axis=1)]
            if len(pair) < 3 or min(len(np.unique(pair[:, 0])), len(np.unique(pair[:, 1]))) < 2:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", stats.ConstantInputWarning)
                res = test(pair[:, 0], pair[:, 1])
            rho[i, j] = rho[j, i] = res.statistic
            pval[i, j] = pval[j, i] = res.pvalue
    rho, pval = (pd.DataFrame(m, index=cols, columns=cols) for m in (rho, pval))
    for df in (rho, pval):
        df.index.name, df.columns.name = "metric", "metric"
    return rho, pval


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
    from scipy import stats  # lazily, as in correlations()

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
