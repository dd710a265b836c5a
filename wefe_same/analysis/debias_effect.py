"""Did debiasing work, and by which metric: each debiased variant in a run beside its base.

A model whose spec is ``BASE+SUFFIX`` (or ``BASE+SUFFIX[options]``), SUFFIX one of the
debiasing variants of :mod:`wefe_same.models.catalog`, is paired with the model of the run
whose spec is BASE: pairs come from the specs the models were made from (the grammar of
:func:`wefe_same.models.specs.parse_spec`), never from their names, so a variant renamed
with ``NAME=`` is still paired and a model merely named like a variant
(``glove-6b-50d+hard-debias=word2vec-gnews-weat``, a file ``c+hard-debias.txt``) is not. For every
pair and fairness metric, :func:`debias_effect` reads the run's own overall aggregates
(on the bias scale: mean |x| for |x|-ordered metrics, distance to the ideal value for MAC)
and ranks, so its differences are those of ``aggregates.csv`` exactly.

A verdict is *reduced*, *increased* or *no change* (*undefined* where an aggregate is NaN),
never a bare sign:

- With the word-level bootstrap (``bootstrap_words=B``), every draw resamples the same words
  for every model, so the difference of the two models' draws is a paired draw of the
  difference. The verdict is *reduced* when its percentile interval lies wholly on the
  less-biased side of 0 (below 0, or above it for the descending ECT), *increased* when it
  lies wholly on the other side, *no change* when it holds 0. The paired interval of the
  difference is used rather than the overlap of the two models' own intervals: the two
  aggregates are computed on the same resampled words and are correlated, which the overlap
  rule ignores (two overlapping intervals can still have a difference whose interval
  excludes 0; Schenker & Gentleman 2001, "On judging the significance of differences by
  examining the overlap between confidence intervals").
- Without it, the verdict compares |difference| with the metric's declared
  ``change_tolerance`` (:class:`~wefe_same.metrics.spec.MetricSpec`, in the metric's own
  units, listed in docs/guide/metrics/index.md): a difference within it is *no change*
  (a WEAT difference of −1.3e-5 is not a reduction).

``effect`` holds the verdict, ``tolerance`` the metric's tolerance and ``basis`` what decided
it (``interval`` or ``tolerance``); the summary counts only the verdicts that cleared it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wefe_same.analysis.intervals import _quiet_interval
from wefe_same.errors import ModelError
from wefe_same.metrics.registry import MetricSpec
from wefe_same.models.base import ModelSource
from wefe_same.models.debias.methods import made_from
from wefe_same.models.specs import ModelSpec, parse_spec

EFFECT_COLUMNS = ["base", "variant", "method", "metric", "order", "base_score", "debiased_score", "difference",
                  "relative_change", "base_rank", "debiased_rank", "rank_change", "effect", "tolerance", "basis"]
SUMMARY_COLUMNS = ["base", "variant", "method", "metrics", "reduced", "increased", "no_change", "undefined", "basis"]
#: The verdicts, in the summary's column order (``no change`` is the column ``no_change``).
VERDICTS = ("reduced", "increased", "no change", "undefined")
#: What decided a verdict, in words (the report's note).
VERDICT_RULE = {
    "interval": "the verdict comes from the paired word-bootstrap interval of the difference: 'reduced' or "
                "'increased' when it excludes 0 on that side, 'no change' when it holds 0",
    "tolerance": "the verdict counts a difference as a change only beyond the metric's declared tolerance "
                 "(its own units, in the tolerance column); within it, 'no change'",
}


def debias_pairs(models: Mapping[str, str | ModelSource]) -> list[tuple[str, str, str]]:
    """(base, variant, method) for each model of the run that is a debiased variant of another.

    ``models`` maps each model's name to what it was made from: a spec string, paired by
    the grammar (the variant's spec without its last ``+METHOD[…]`` is the base's spec,
    whatever either is named), or a source object, paired when it is a debiased source
    whose ``base`` is another of the run's objects. Names are never read.

    >>> debias_pairs({"g": "g", "g+hard-debias": "g+hard-debias", "mine": "mine=g+ran-debias[epochs=5]",
    ...               "h+hsr-debias": "h+hsr-debias", "w": "g+hard-debias=w"})
    [('g', 'g+hard-debias', '+hard-debias'), ('g', 'mine', '+ran-debias[epochs=5]')]
    """
    parsed: dict[str, ModelSpec] = {}
    for name, spec in models.items():
        if isinstance(spec, str):
            try:
                parsed[name] = parse_spec(spec)
            except ModelError:  # not a spec of the grammar (a run resolves every spec first)
                pass
    by_body = {p.body: name for name, p in parsed.items()}
    by_object = {id(obj): name for name, obj in models.items() if not isinstance(obj, str)}
    out = []
    for name, made in models.items():
        if name in parsed:
            p = parsed[name]
            # The base is the spec without the last variant: "a+hard-debias+hsr-debias" pairs with "a+hard-debias".
            if p.parent is not None and by_body.get(p.parent.body, name) != name:
                last = p.variants[-1]
                out.append((by_body[p.parent.body], name, last.suffix + (f"[{last.options}]" if last.options else "")))
        elif (lineage := _lineage(made)) is not None and by_object.get(id(lineage[0]), name) != name:
            out.append((by_object[id(lineage[0])], name, lineage[1]))
    return out


def _lineage(source: str | ModelSource) -> tuple[ModelSource, str] | None:
    """The base and the variant suffix of a debiased source object (the method that makes
    its class: :func:`~wefe_same.models.debias.methods.made_from`); None for any other."""
    return None if isinstance(source, str) else made_from(source)


def _less_biased(order: str, value: float) -> bool:
    """A change of ``value`` means less bias by the metric's order."""
    return value > 0 if order == "descending" else value < 0


def verdict(order: str, difference: float, tolerance: float, interval: tuple[float, float] | None = None) -> str:
    """reduced, increased, no change or undefined: from the paired interval where given, else
    from the tolerance.

    >>> verdict("abs", -1.3e-5, 0.01), verdict("abs", -0.02, 0.01), verdict("descending", -0.02, 0.01)
    ('no change', 'reduced', 'increased')
    >>> verdict("abs", -0.5, 0.01, (-0.7, 0.1)), verdict("abs", -1e-5, 0.01, (-2e-5, -1e-6))
    ('no change', 'reduced')
    """
    if not np.isfinite(difference):
        return "undefined"
    if interval is not None:
        low, high = interval
        if not (np.isfinite(low) and np.isfinite(high)):
            return "undefined"
        if low <= 0 <= high:
            return "no change"
        return "reduced" if _less_biased(order, high if high < 0 else low) else "increased"
    if abs(difference) <= tolerance:
        return "no change"
    return "reduced" if _less_biased(order, difference) else "increased"


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
                  pairs: Sequence[tuple[str, str, str]] = (), draws: np.ndarray | None = None,
                  level: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The before/after table and its per-method summary; None when no base–variant pair is in the run.

    Parameters
    ----------
    aggregates, rankings : DataFrame, models × columns
        The run's overall aggregates (bias scale) and ranks (1 = least biased).
    specs : the fairness metrics, in the order of ``draws``' last axis
    pairs : (base, variant, method) of :func:`debias_pairs`, the models' names
    draws : ndarray, shape (B, models, metrics), optional
        Word-bootstrap draws of the overall aggregates, models in ``aggregates.index`` order.

    Returns
    -------
    effect : DataFrame
        One row per (base, variant, metric): :data:`EFFECT_COLUMNS`, plus ``diff_low``,
        ``diff_high`` (and ``level``) with draws; ``effect`` is the :func:`verdict`.
    summary : DataFrame
        One row per variant: how many metrics say reduced, increased, no change (column
        ``no_change``) and undefined, and the ``basis`` of those verdicts.
    """
    models = list(aggregates.index)
    pairs = [p for p in pairs if p[0] in aggregates.index and p[1] in aggregates.index]
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
                     "tolerance": float(spec.change_tolerance)}
            interval = None
            if draws is not None:
                low, high = _quiet_interval(draws[:, row[variant], j] - draws[:, row[base], j], level)
                interval = (float(low), float(high))
                entry.update(diff_low=interval[0], diff_high=interval[1], level=level)
            entry.update(effect=verdict(spec.order, difference, spec.change_tolerance, interval),
                         basis="tolerance" if interval is None else "interval")
            rows.append(entry)
    effect = pd.DataFrame(rows)[[*EFFECT_COLUMNS, *(["diff_low", "diff_high", "level"] if draws is not None else [])]]
    for column in ("base_rank", "debiased_rank", "rank_change"):
        effect[column] = _ranks(effect[column])
    summary = []
    for (base, variant, method), group in effect.groupby(["base", "variant", "method"], sort=False):
        counts = group["effect"].value_counts()
        entry = {"base": base, "variant": variant, "method": method, "metrics": len(group),
                 **{k.replace(" ", "_"): int(counts.get(k, 0)) for k in VERDICTS},
                 "basis": "interval" if draws is not None else "tolerance"}
        summary.append(entry)
    return effect, pd.DataFrame(summary)
