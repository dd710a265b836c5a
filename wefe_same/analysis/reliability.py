"""Reliability coefficients of bias scores, by the definitions of Du, Fang & Nguyen 2021
("Assessing the Reliability of Word Embedding Gender Bias Measures", EMNLP; code
nlpsoc/reliability_bias @ c88f51bd8fa0363a6f0ceba4fc6b1621339893ff, ``reliability_metrics.py``):

- test-retest reliability, ICC(2,1) (two-way random effects, absolute agreement, one
  rater): subjects scored by raters that are a random sample (the seeds of one family);
- inter-rater consistency, ICC(3,1) (two-way mixed effects, consistency): subjects scored
  by fixed raters (the bias measures);
- internal consistency, Cronbach's alpha: subjects answering items (target words over
  the base pairs of a query).

Each coefficient comes with its F-based 95 % interval (Shrout & Fleiss 1979 and McGraw &
Wong 1996 for the ICCs, Feldt 1965 for alpha) and a reading (Koo & Li 2016 for the ICCs,
George & Mallery 2003 for alpha). Written here because no well-kept library with a
licence this package can depend on computes them (pingouin's are GPL-3.0); every function
takes arrays of any leading shape, ``(..., subjects, raters)``, and computes them all at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

#: Koo & Li (2016), "A guideline of selecting and reporting intraclass correlation
#: coefficients": below 0.5 poor, 0.5–0.75 moderate, 0.75–0.9 good, above 0.9 excellent.
ICC_READINGS = ((0.5, "poor"), (0.75, "moderate"), (0.9, "good"), (np.inf, "excellent"))
#: George & Mallery (2003)'s rule of thumb for Cronbach's alpha.
ALPHA_READINGS = ((0.5, "unacceptable"), (0.6, "poor"), (0.7, "questionable"), (0.8, "acceptable"),
                  (0.9, "good"), (np.inf, "excellent"))


def _mean_squares(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The two-way ANOVA of ``scores`` (..., n subjects, k raters): mean squares of the
    subjects (rows), the raters (columns) and the residual, n and k."""
    x = np.asarray(scores, dtype=float)
    if x.ndim < 2:
        raise ValueError(f"scores must have shape (..., subjects, raters); got {x.shape}")
    n, k = x.shape[-2:]
    if n < 2 or k < 2:
        raise ValueError(f"reliability needs at least 2 subjects and 2 raters; got {n} and {k}")
    grand = x.mean(axis=(-2, -1), keepdims=True)
    ss_rows = k * ((x.mean(axis=-1, keepdims=True) - grand) ** 2).sum(axis=(-2, -1))
    ss_cols = n * ((x.mean(axis=-2, keepdims=True) - grand) ** 2).sum(axis=(-2, -1))
    ss_total = ((x - grand) ** 2).sum(axis=(-2, -1))
    ms_rows, ms_cols = ss_rows / (n - 1), ss_cols / (k - 1)
    ms_error = (ss_total - ss_rows - ss_cols) / ((n - 1) * (k - 1))
    return ms_rows, ms_cols, ms_error, n, k


def icc(scores: np.ndarray, kind: str = "icc2", level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ICC(2,1) (``kind="icc2"``) or ICC(3,1) (``"icc3"``) of ``scores`` (..., subjects,
    raters), with its F-based interval: (icc, low, high), each of the leading shape.

    >>> icc([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])[0].round(6).item()  # raters agree exactly
    1.0
    >>> icc([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]], "icc3")[0].round(6).item()  # consistent, shifted
    1.0
    >>> icc([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]], "icc2")[0].round(6).item()  # the shift is disagreement
    0.666667
    """
    if kind not in ("icc2", "icc3"):
        raise ValueError(f"kind must be 'icc2' or 'icc3', not {kind!r}")
    msr, msc, mse, n, k = _mean_squares(scores)
    tail = (1 - level) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "icc3":
            value = (msr - mse) / (msr + (k - 1) * mse)
            f = msr / mse
            df1, df2 = n - 1, (n - 1) * (k - 1)
            f_low, f_high = f / stats.f.isf(tail, df1, df2), f * stats.f.isf(tail, df2, df1)
            return value, (f_low - 1) / (f_low + k - 1), (f_high - 1) / (f_high + k - 1)
        value = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        # Satterthwaite's degrees of freedom (Shrout & Fleiss 1979, eq. 7; McGraw & Wong 1996)
        a = k * value / (n * (1 - value))
        b = 1 + k * value * (n - 1) / (n * (1 - value))
        v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
        f_upper, f_lower = stats.f.isf(tail, n - 1, v), stats.f.isf(tail, v, n - 1)
        low = n * (msr - f_upper * mse) / (f_upper * (k * msc + (k * n - k - n) * mse) + n * msr)
        high = n * (f_lower * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_lower * msr)
    return value, low, high


def cronbach_alpha(scores: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cronbach's alpha of ``scores`` (..., subjects, items), with Feldt's (1965) F-based
    interval: (alpha, low, high).

    >>> cronbach_alpha([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])[0].round(6).item()
    1.0
    """
    x = np.asarray(scores, dtype=float)
    _, _, _, n, k = _mean_squares(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        item_variance = x.var(axis=-2, ddof=1).sum(axis=-1)
        total_variance = x.sum(axis=-1).var(axis=-1, ddof=1)
        alpha = k / (k - 1) * (1 - item_variance / total_variance)
        tail = (1 - level) / 2
        df1, df2 = n - 1, (n - 1) * (k - 1)
        low = 1 - (1 - alpha) * stats.f.isf(tail, df1, df2)
        high = 1 - (1 - alpha) * stats.f.isf(1 - tail, df1, df2)
    return alpha, low, high


def coefficient_reading(value: float, kind: str) -> str:
    """The reading of a coefficient: Koo & Li (2016) for an ICC (``kind`` "icc2" or
    "icc3"), George & Mallery (2003) for alpha (``"alpha"``); "" for NaN.

    >>> [coefficient_reading(v, k) for v, k in ((0.8, "icc2"), (0.95, "icc3"), (0.65, "alpha"), (0.3, "icc3"))]
    ['good', 'excellent', 'questionable', 'poor']
    """
    if not np.isfinite(value):
        return ""
    for bound, name in ALPHA_READINGS if kind == "alpha" else ICC_READINGS:
        if value < bound:
            return name
    return ""


RELIABILITY_COLUMNS = ("kind", "family", "model", "unit", "measure", "coefficient", "value", "low", "high",
                       "n_subjects", "n_raters", "reading", "reason")


def _complete(x: np.ndarray) -> np.ndarray:
    """``x`` (subjects × raters) without the raters no subject has, then the subjects that
    lack a rater (listwise, as the coefficients need complete data)."""
    x = x[:, ~np.isnan(x).all(axis=0)]
    return x[~np.isnan(x).any(axis=1)]


def _row(kind: str, coefficient: str, x: np.ndarray, *, family: str = "", model: str = "", unit: str = "",
         measure: str = "", reason: str = "") -> tuple:
    """One row of the table: the coefficient of ``x`` (subjects × raters or items) after
    :func:`_complete`, or NaN with the reason."""
    x = _complete(np.asarray(x, dtype=float)) if not reason else np.zeros((0, 0))
    n, k = x.shape
    if not reason and (n < 2 or k < 2):
        reason = f"{n} complete subject(s) and {k} rater(s): at least 2 of each are needed"
    if not reason and np.allclose(x, x.flat[0], rtol=0, atol=0):
        reason = "every score is the same: no variance to apportion"
    if reason:
        return (kind, family, model, unit, measure, coefficient, np.nan, np.nan, np.nan, n, k, "", reason)
    value, low, high = cronbach_alpha(x) if coefficient == "alpha" else icc(x, coefficient)
    v = float(value)
    return (kind, family, model, unit, measure, coefficient, v, float(low), float(high), n, k,
            coefficient_reading(v, coefficient), "")


def _zscores(y: np.ndarray) -> np.ndarray:
    """Each row of ``y`` (measures × words) as z-scores over its defined words (NaN for a constant row)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.nanmean(y, axis=1, keepdims=True)
        sd = np.nanstd(y, axis=1, ddof=1, keepdims=True)
        return np.where(sd > 0, (y - mean) / sd, np.nan)


def consistency_rows(arrays: Mapping[str, np.ndarray], measures: Sequence[str], *, family: str = "",
              model: str = "") -> list[tuple]:
    """Internal and inter-rater consistency of one model's (or a family's seed-averaged)
    word-level arrays, unit id → (measures × words × base pairs)."""
    rows = []
    for unit, array in arrays.items():
        for k, measure in enumerate(measures):  # items = base pairs, subjects = the attribute words
            rows.append(_row("internal consistency", "alpha", array[k], family=family, model=model, unit=unit,
                             measure=measure))
        raters = _zscores(np.nanmean(array, axis=2)).T if array.size else np.zeros((0, len(measures)))
        why = "" if len(measures) > 1 else "one word-level measure in this run: no raters to compare"
        rows.append(_row("inter-rater consistency", "icc3", raters, family=family, model=model, unit=unit,
                         measure=" + ".join(measures), reason=why))
    return rows


def family_rows(family: str, members: Sequence[str], per_model: Mapping[str, Mapping[str, np.ndarray]],
                scores: Mapping[str, pd.DataFrame], by_query_set: pd.DataFrame,
                measures: Sequence[str]) -> list[tuple]:
    """Test-retest reliability of one family's seeds (ICC(2,1), the seeds as raters): of
    the word-level scores (subjects = attribute words, base pairs averaged), of each
    metric's subquery scores (subjects = subqueries) and of its query-set aggregates
    (subjects = query sets); then the family's seed-averaged internal and inter-rater rows."""
    few = "" if len(members) > 1 else f"family {family!r} has {len(members)} seed in this run: at least 2 are needed"
    rows = []
    units = per_model[members[0]] if members else {}
    for unit in units:
        stacked = np.stack([per_model[m][unit] for m in members])  # seeds × measures × words × pairs
        for k, measure in enumerate(measures):
            rows.append(_row("test-retest (words)", "icc2", np.nanmean(stacked[:, k], axis=2).T, family=family,
                             unit=unit, measure=measure, reason=few))
    for metric, matrix in scores.items():
        rows.append(_row("test-retest (scores)", "icc2", matrix.reindex(members).to_numpy(float).T,
                         family=family, measure=metric, reason=few))
        sets = by_query_set[(by_query_set["metric"] == metric) & (by_query_set["query_set"] != "overall")]
        table = sets.pivot(index="query_set", columns="model", values="value").reindex(columns=members)
        rows.append(_row("test-retest (aggregates)", "icc2", table.to_numpy(float), family=family, measure=metric,
                         reason=few))
    if len(members) > 1 and units:
        averaged = {u: np.nanmean(np.stack([per_model[m][u] for m in members]), axis=0) for u in units}
        rows += consistency_rows(averaged, measures, family=family)
    return rows


def spearman_brown(rho: np.ndarray) -> np.ndarray:
    """The Spearman–Brown prophecy for a test twice as long as each half: 2ρ / (1 + ρ).

    >>> spearman_brown(np.array([1.0, 0.5, 0.0, -0.5, -1.0])).round(4).tolist()
    [1.0, 0.6667, 0.0, -2.0, -inf]
    """
    rho = np.where(rho > -1 + 1e-12, rho, -1.0)  # −1 up to rounding: the halves in reverse order
    return np.where(rho > -1, 2 * rho / np.where(rho > -1, 1 + rho, 1.0), -np.inf)


def split_half_rows(draws: np.ndarray, models: Sequence[str], specs: Sequence[Any]) -> list[tuple]:
    """Split-half reliability of each metric's ranking: Spearman's rho between the models'
    aggregates on the two halves of each split (draws 2h and 2h + 1, shape (2H, models,
    metrics)), Spearman–Brown corrected, 2ρ / (1 + ρ): the value is that of the mean rho,
    the interval the 2.5 % and 97.5 % quantiles over the splits."""
    rows = []
    halves = np.asarray(draws, dtype=float)
    for k, spec in enumerate(specs):
        a, b = halves[0::2, :, k], halves[1::2, :, k]
        rhos = []
        for x, y in zip(a, b):
            keep = np.isfinite(x) & np.isfinite(y)
            if keep.sum() >= 3 and np.ptp(x[keep]) > 0 and np.ptp(y[keep]) > 0:
                rhos.append(stats.spearmanr(x[keep], y[keep]).statistic)  # the order is the same either way
        if not rhos:
            rows.append(("split-half", "", "", "", spec.name, "spearman_brown", np.nan, np.nan, np.nan,
                         len(models), 2, "", "no split ranks three models on both halves"))
            continue
        rho = np.array(rhos)
        with np.errstate(divide="ignore"):  # rho = −1 (halves in reverse order): −inf
            brown, value = spearman_brown(rho), float(spearman_brown(np.array(rho.mean())))
        # quantiles that are draws (inverted CDF): an interpolation with −inf would be NaN
        low, high = (float(np.quantile(brown, q, method="inverted_cdf")) for q in (0.025, 0.975))
        rows.append(("split-half", "", "", "", spec.name, "spearman_brown", value, low, high, len(models), 2,
                     coefficient_reading(value, "alpha"),
                     "" if len(rho) == len(a) else f"{len(a) - len(rho)} of {len(a)} splits left out (under 3 "
                     "models ranked)"))
    return rows


def reliability_table(rows: Sequence[tuple]) -> pd.DataFrame:
    """The rows of :func:`consistency_rows`, :func:`family_rows` and :func:`split_half_rows` as one tidy table."""
    return pd.DataFrame(list(rows), columns=list(RELIABILITY_COLUMNS)).astype(
        {"value": "float64", "low": "float64", "high": "float64", "n_subjects": "int64", "n_raters": "int64"})
