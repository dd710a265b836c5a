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

import numpy as np
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
