"""A run that explains itself: why a metric ranks no model, why a correlation is undefined.

Each function returns warning lines in the run's words; the analysis stage warns them and
keeps them for :attr:`~wefe_same.result.RankResult.warnings`, the manifest and the report.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Reasons a warning names for a metric that ranks no model (the rest: details.csv).
SHOWN_REASONS = 3
#: Models a rank correlation needs (Spearman's rho and Kendall's tau alike).
CORRELATION_MODELS = 3


def unranked_metrics(rankings: pd.DataFrame, details: Sequence[pd.DataFrame], metrics: Sequence[str]) -> list[str]:
    """One line per metric of ``metrics`` that ranks no model, naming its most common
    reasons (from the ``reason`` column of ``details``) with their counts.

    >>> r = pd.DataFrame({"WEAT": [pd.NA, pd.NA], "RND": [1, 2]}, index=["a", "b"])
    >>> d = pd.DataFrame({"metric": ["WEAT"] * 3, "reason": ["set 'x' lost 3 of 4 words (75% > 20%)"] * 2 + ["y"]})
    >>> unranked_metrics(r, [d], ["WEAT", "RND"])
    ["WEAT ranks no model: every aggregate is undefined; most common reasons: set 'x' lost 3 of 4 words \
(75% > 20%) (×2), y (×1); every reason is in details.csv"]
    """
    frames = [d[["metric", "reason"]] for d in details if len(d)]
    reasons = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"metric": [], "reason": []})
    lines = []
    for metric in metrics:
        if metric not in rankings.columns or rankings[metric].notna().any() or not len(rankings):
            continue
        counts = reasons.loc[reasons["metric"] == metric, "reason"].dropna().value_counts(sort=True)
        if len(counts):
            top = ", ".join(f"{reason} (×{n})" for reason, n in counts.head(SHOWN_REASONS).items())
            more = f" and {len(counts) - SHOWN_REASONS} other reasons" if len(counts) > SHOWN_REASONS else ""
            why = f"most common reasons: {top}{more}; every reason is in details.csv"
        else:
            why = ("no subquery score gives a reason (with nan_policy='propagate' one undefined subquery score "
                   "makes a model's aggregate undefined)")
        lines.append(f"{metric} ranks no model: every aggregate is undefined; {why}")
    return lines


def undefined_correlations(rankings: pd.DataFrame, method: str) -> list[str]:
    """Why correlations between the ranking columns are undefined when too few models are
    ranked: a rank correlation needs :data:`CORRELATION_MODELS` models ranked by both
    columns. Columns that rank no model are left to :func:`unranked_metrics`.

    >>> r = pd.DataFrame({"WEAT": [1, 2], "RND": [2, 1]}, index=["a", "b"])
    >>> undefined_correlations(r, "spearman")
    ['Spearman needs at least three ranked models; this run ranked 2: every correlation is undefined (NaN)']
    >>> r = pd.DataFrame({"WEAT": [1, 2, 3], "RND": [2, 1, pd.NA], "MAC": [1, 2, 3]}, index=list("abc"))
    >>> undefined_correlations(r, "kendall")
    ['Kendall needs at least three models ranked by both columns: 2 of 3 pairs have fewer \
(WEAT and RND: 2, RND and MAC: 2); their correlations are undefined (NaN)']
    """
    name = method.capitalize()
    ranked = rankings.notna()
    used = [c for c in rankings.columns if ranked[c].any()]
    if len(used) < 2:
        return []
    n = int(ranked[used].any(axis=1).sum())
    if n < CORRELATION_MODELS:
        return [f"{name} needs at least three ranked models; this run ranked {n}: every correlation is "
                "undefined (NaN)"]
    both = ranked[used].to_numpy(dtype=np.int64)
    common = both.T @ both  # models ranked by both columns of each pair
    short = [(used[i], used[j], int(common[i, j])) for i in range(len(used)) for j in range(i + 1, len(used))
             if common[i, j] < CORRELATION_MODELS]
    if not short:
        return []
    pairs = len(used) * (len(used) - 1) // 2
    shown = ", ".join(f"{a} and {b}: {k}" for a, b, k in short[:SHOWN_REASONS])
    more = f", and {len(short) - SHOWN_REASONS} more" if len(short) > SHOWN_REASONS else ""
    return [f"{name} needs at least three models ranked by both columns: {len(short)} of {pairs} pairs have "
            f"fewer ({shown}{more}); their correlations are undefined (NaN)"]
