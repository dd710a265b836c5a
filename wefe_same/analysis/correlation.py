"""Agreement between rankings: Spearman's rho or Kendall's tau with exact p-values
(:mod:`.significance`), adjusted for the tests of a table, and Spearman's rho per
resampled draw (for the intervals of :mod:`wefe_same.analysis.intervals`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd

from wefe_same.analysis.significance import (
    CorrelationMethod,
    NullCache,
    PAdjust,
    PValue,
    PValueMethod,
    adjust_pvalues,
    correlation_pvalue,
)
from wefe_same.errors import MetricError, bad_parameter

#: Columns of :func:`correlation_tests`.
TEST_COLUMNS = ("metric_a", "metric_b", "n_models", "rho", "p_value", "p_method", "mc_error", "p_adjusted",
                "adjustment")


def correlations(rankings: pd.DataFrame, method: CorrelationMethod = "spearman", *,
                 pvalues: PValueMethod | None = "exact",
                 cache: NullCache | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairwise rank correlation between the columns of ``rankings``, with raw p-values.

    Models where either column is NaN are left out of that pair. A pair with fewer than
    3 models, or a constant column, has NaN rho and p-value. The p-values are those of
    :func:`~wefe_same.analysis.significance.correlation_pvalue` (exact up to 10 models);
    which method made each, and the adjusted ones, are in :func:`correlation_tests`.
    ``pvalues=None``: rho only (the p-values NaN), for callers that use no p-value.

    Returns
    -------
    rho, p_value : DataFrame, columns × columns

    >>> r = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> rho, p = correlations(r)
    >>> rho.round(2)
    metric    a    b    c
    metric
    a       1.0  0.8 -1.0
    b       0.8  1.0 -0.8
    c      -1.0 -0.8  1.0
    >>> p.round(3)  # 4 models: exact, 2/4! for a perfect (anti-)agreement
    metric      a      b      c
    metric
    a       0.083  0.333  0.083
    b       0.333  0.083  0.333
    c       0.083  0.333  0.083
    """
    cols = list(rankings.columns)
    rho, pval = np.full((len(cols), len(cols)), np.nan), np.full((len(cols), len(cols)), np.nan)
    for i, j, _, r, p in _pairs(rankings, method, pvalues, cache, diagonal=True):
        rho[i, j] = rho[j, i] = r
        pval[i, j] = pval[j, i] = p.p_value
    return _square(rho, cols), _square(pval, cols)


def correlation_tests(rankings: pd.DataFrame, method: CorrelationMethod = "spearman", *,
                      pvalues: PValueMethod = "exact", p_adjust: PAdjust = "holm",
                      cache: NullCache | None = None) -> pd.DataFrame:
    """Every test of a correlation table, one row per pair of distinct columns.

    The family adjusted together is every defined pair of the table (metrics and the
    quality, likelihood and external columns alike): k columns make k(k−1)/2 tests.

    Returns
    -------
    DataFrame with :data:`TEST_COLUMNS`
        metric_a, metric_b (in the table's order), n_models (defined in both), rho,
        p_value (raw), p_method ("exact", "permutation", "asymptotic"; "" where undefined),
        mc_error (the Monte Carlo standard error of a permutation p-value, else NaN),
        p_adjusted, adjustment ("holm" or "bh").

    >>> r = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> correlation_tests(r)[["metric_a", "metric_b", "p_value", "p_method", "p_adjusted"]].round(3)
      metric_a metric_b  p_value p_method  p_adjusted
    0        a        b    0.333    exact       0.667
    1        a        c    0.083    exact       0.250
    2        b        c    0.333    exact       0.667
    """
    cols = list(rankings.columns)
    rows = [(cols[i], cols[j], n, r, p.p_value, p.method, p.mc_error)
            for i, j, n, r, p in _pairs(rankings, method, pvalues, cache, diagonal=False)]
    table = pd.DataFrame(rows, columns=list(TEST_COLUMNS[:7])).astype(
        {"n_models": "int64", "rho": "float64", "p_value": "float64", "mc_error": "float64"})
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), p_adjust)
    table["adjustment"] = p_adjust
    return table


def adjusted_matrix(tests: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The adjusted p-values of :func:`correlation_tests` as a columns × columns table (NaN
    on the diagonal: a column against itself is not one of the family's tests)."""
    index = {c: k for k, c in enumerate(columns)}
    out = np.full((len(columns), len(columns)), np.nan)
    for a, b, p in zip(tests["metric_a"], tests["metric_b"], tests["p_adjusted"]):
        out[index[a], index[b]] = out[index[b], index[a]] = p
    return _square(out, columns)


def _pairs(rankings: pd.DataFrame, method: CorrelationMethod, pvalues: PValueMethod | None, cache: NullCache | None,
           *, diagonal: bool) -> Iterator[tuple[int, int, int, float, PValue]]:
    """(i, j, n_models, rho, p-value) for every pair i ≤ j (i < j without ``diagonal``)."""
    if method not in ("spearman", "kendall"):
        raise MetricError(bad_parameter("method", "correlations", "'spearman' or 'kendall'", method))
    if pvalues not in ("exact", "asymptotic", None):
        raise MetricError(bad_parameter("pvalues", "correlations", "'exact' or 'asymptotic'", pvalues))
    from scipy import stats  # lazily: importing scipy.stats takes ~1 s; importing this module need not

    test = stats.spearmanr if method == "spearman" else stats.kendalltau
    cache = NullCache() if cache is None else cache
    values = rankings.astype(float).to_numpy()  # numpy per pair: pandas indexing cost more than the test
    undefined = PValue(float("nan"), "")
    for i in range(values.shape[1]):
        for j in range(i if diagonal else i + 1, values.shape[1]):
            pair = values[:, [i, j]]
            pair = pair[~np.isnan(pair).any(axis=1)]
            if len(pair) < 3 or min(len(np.unique(pair[:, 0])), len(np.unique(pair[:, 1]))) < 2:
                yield i, j, len(pair), float("nan"), undefined
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", stats.ConstantInputWarning)
                rho = float(test(pair[:, 0], pair[:, 1]).statistic)
            if pvalues is None:
                yield i, j, len(pair), rho, undefined
                continue
            yield i, j, len(pair), rho, correlation_pvalue(pair[:, 0], pair[:, 1], method, pvalues=pvalues,
                                                           cache=cache)


def _square(values: np.ndarray, columns: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(values, index=columns, columns=columns)
    df.index.name, df.columns.name = "metric", "metric"
    return df


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
