"""Did debiasing work, and by which metric: each debiased variant in a run beside its base.

A model named ``BASE+SUFFIX`` (or ``BASE+SUFFIX[options]``) with SUFFIX one of the
debiasing variants of :mod:`wefe_same.models.catalog` is paired with the model named BASE
when the run holds both (a variant renamed with ``NAME=`` is not recognised). For every
pair and fairness metric, :func:`debias_effect` reads the run's own overall aggregates
(on the bias scale: mean |x| for |x|-ordered metrics, distance to the ideal value for MAC)
and ranks, so its differences are those of ``aggregates.csv`` exactly. A metric says the
method *reduced* bias when the debiased aggregate is less biased by the metric's order
(lower, or higher for the descending ECT), *increased* when it is more biased.

With the word-level bootstrap (``bootstrap_words=B``), every draw resamples the same words
for every model, so the difference of the two models' draws is a paired draw of the
difference: its percentile interval is reported, and a summary counts the metrics whose
interval excludes 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from wefe_same.analysis.intervals import _quiet_interval
from wefe_same.metrics.registry import MetricSpec
from wefe_same.models.catalog import VARIANTS
from wefe_same.models.debias.methods import METHOD_VARIANTS

#: Every variant suffix that debiases (``+hard-debias``, ``+debias-race``, ``+ran-debias``, …).
DEBIAS_SUFFIXES = (*VARIANTS, *METHOD_VARIANTS)
_VARIANT = re.compile(r"^(?P<base>.+?)(?P<method>(?:" + "|".join(re.escape(s) for s in DEBIAS_SUFFIXES)
                      + r")(?:\[[^\[\]]*\])?)$")

EFFECT_COLUMNS = ["base", "variant", "method", "metric", "order", "base_score", "debiased_score", "difference",
                  "relative_change", "base_rank", "debiased_rank", "rank_change", "effect"]
SUMMARY_COLUMNS = ["base", "variant", "method", "metrics", "reduced", "increased", "unchanged", "undefined"]


def debias_pairs(models: Sequence[str]) -> list[tuple[str, str, str]]:
    """(base, variant, method) for each model that is a debiased variant of another model of the run.

    >>> debias_pairs(["g", "g+hard-debias", "g+ran-debias[epochs=5]", "h+hsr-debias", "g+debias-race"])
    [('g', 'g+hard-debias', '+hard-debias'), ('g', 'g+ran-debias[epochs=5]', '+ran-debias[epochs=5]'), \
('g', 'g+debias-race', '+debias-race')]
    """
    present = set(models)
    out = []
    for name in models:
        match = _VARIANT.match(name)
        # The remainder must be one suffix: "a+hard-debias+hsr-debias" pairs with "a+hard-debias".
        if match and match["base"] in present:
            out.append((match["base"], name, match["method"]))
    return out


def _effect(order: str, difference: float) -> str:
    if not np.isfinite(difference):
        return "undefined"
    if difference == 0:
        return "unchanged"
    less = difference < 0 if order != "descending" else difference > 0
    return "reduced" if less else "increased"


def _ranks(column: pd.Series) -> pd.Series:
    """Ranks as nullable integers, or nullable floats where a tie rule gave halves
    (``ties="average"``: 1.5).

    >>> _ranks(pd.Series([1, pd.NA])).dtype, _ranks(pd.Series([1.5, 2.0])).dtype
    (Int64Dtype(), Float64Dtype())
    """
    values = pd.to_numeric(column, errors="coerce").astype("Float64")
    whole = values.dropna()
    return values.astype("Int64") if bool((whole == whole.round()).all()) else values


def debias_effect(aggregates: pd.DataFrame, rankings: pd.DataFrame, specs: Sequence[MetricSpec], *,
                  draws: np.ndarray | None = None, level: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The before/after table and its per-method summary; None when no base–variant pair is in the run.

    Parameters
    ----------
    aggregates, rankings : DataFrame, models × columns
        The run's overall aggregates (bias scale) and ranks (1 = least biased).
    specs : the fairness metrics, in the order of ``draws``' last axis
    draws : ndarray, shape (B, models, metrics), optional
        Word-bootstrap draws of the overall aggregates, models in ``aggregates.index`` order.

    Returns
    -------
    effect : DataFrame
        One row per (base, variant, metric): :data:`EFFECT_COLUMNS`, plus ``diff_low``,
        ``diff_high`` (and ``level``) with draws.
    summary : DataFrame
        One row per variant: how many metrics say reduced, increased, unchanged, undefined
        (and, with draws, how many intervals lie below or above 0 in the less-biased sense).
    """
    models = list(aggregates.index)
    pairs = debias_pairs(models)
    if not pairs:
        return None
    row = {m: i for i, m in enumerate(models)}
    rows = []
    for base, variant, method in pairs:
        for j, spec in enumerate(specs):
            before, after = float(aggregates.at[base, spec.name]), float(aggregates.at[variant, spec.name])
            difference = after - before
            with np.errstate(invalid="ignore", divide="ignore"):
                relative = difference / abs(before) if before != 0 else np.nan
            r0, r1 = rankings.at[base, spec.name], rankings.at[variant, spec.name]
            entry = {"base": base, "variant": variant, "method": method, "metric": spec.name, "order": spec.order,
                     "base_score": before, "debiased_score": after, "difference": difference,
                     "relative_change": relative, "base_rank": r0, "debiased_rank": r1,
                     "rank_change": r1 - r0 if not (pd.isna(r0) or pd.isna(r1)) else pd.NA,
                     "effect": _effect(spec.order, difference)}
            if draws is not None:
                low, high = _quiet_interval(draws[:, row[variant], j] - draws[:, row[base], j], level)
                entry.update(diff_low=float(low), diff_high=float(high), level=level)
            rows.append(entry)
    effect = pd.DataFrame(rows)
    for column in ("base_rank", "debiased_rank", "rank_change"):
        effect[column] = _ranks(effect[column])
    summary = []
    for (base, variant, method), group in effect.groupby(["base", "variant", "method"], sort=False):
        counts = group["effect"].value_counts()
        entry = {"base": base, "variant": variant, "method": method, "metrics": len(group),
                 **{k: int(counts.get(k, 0)) for k in ("reduced", "increased", "unchanged", "undefined")}}
        if draws is not None:
            descending = group["order"] == "descending"
            below, above = group["diff_high"] < 0, group["diff_low"] > 0
            entry["reduced_interval"] = int(((below & ~descending) | (above & descending)).sum())
            entry["increased_interval"] = int(((above & ~descending) | (below & descending)).sum())
        summary.append(entry)
    return effect, pd.DataFrame(summary)
