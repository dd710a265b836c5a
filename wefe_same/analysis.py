"""Agreement between rankings: Spearman's rho (or Kendall's tau) with p-values."""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from .errors import MetricError, bad_parameter

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
