"""Measurement sensitivity: does the ranking of the models survive how their vectors are
taken out of them? (``--vary``; Seshadri et al. 2022 and Delobelle et al. 2022 show that
bias scores of language models change with templates, pooling and layer.)

Each varied model appears once per setting (``BASE[pooling=P,layer=L]``); models that are
not varied are the same under every setting. Under each setting the models are ranked
among themselves by each metric's overall aggregate and order; for every pair of
settings the table gives Spearman's rho between the two rankings of the same models and
how many models change rank.

The likelihood columns (:mod:`wefe_same.likelihood`) add rows of the same form when a run
scores masked language models under several ``likelihood_scoring`` options
(:func:`setting_sensitivity`, settings ``scoring=authors``, ``scoring=pll``, …): the
versions of pseudo-log-likelihood that differ between papers (Nangia et al. 2020, Meade
et al. 2022, Salazar et al. 2020, Kaneko & Bollegala 2022).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from wefe_same.analysis.ranking import Ties, rank_column
from wefe_same.metrics.registry import MetricSpec

COLUMNS = ["metric", "setting_a", "setting_b", "models", "spearman", "models_changing_rank", "max_rank_shift"]


class VariedModelLike(Protocol):
    """A model under one setting (:class:`wefe_same.models.encoders.vary.VariedModel`)."""

    @property
    def name(self) -> str: ...
    @property
    def base(self) -> str: ...
    @property
    def setting(self) -> str: ...


def rankings_by_setting(aggregates: pd.DataFrame, spec: MetricSpec, varied: Sequence[VariedModelLike],
                        ties: Ties = "min") -> pd.DataFrame:
    """Models (bases and unvaried models) × settings: each model's rank under each setting."""
    names = {v.name for v in varied}
    fixed = [m for m in aggregates.index if m not in names]
    settings = list(dict.fromkeys(v.setting for v in varied))
    columns = {}
    for setting in settings:
        members = {v.base: v.name for v in varied if v.setting == setting}
        values = pd.concat([aggregates.loc[list(members.values()), spec.name].set_axis(list(members)),
                            aggregates.loc[fixed, spec.name]])
        columns[setting] = rank_column(values, spec, ties)
    return pd.DataFrame(columns).rename_axis(index="model", columns="setting")


def measurement_sensitivity(aggregates: pd.DataFrame, specs: Sequence[MetricSpec], varied: Sequence[VariedModelLike],
                            ties: Ties = "min") -> pd.DataFrame:
    """One row per metric and pair of settings (see the module docstring).

    ``models`` counts the models ranked under both settings; ``spearman`` is NaN when
    fewer than two are (or a ranking is constant).

    >>> from types import SimpleNamespace as V
    >>> from wefe_same.metrics.registry import METRICS
    >>> agg = pd.DataFrame({"SAME": [0.1, 0.3, 0.2, 0.05, 0.15]},
    ...                    index=["a[p=x]", "a[p=y]", "b[p=x]", "b[p=y]", "static"])
    >>> vs = [V(name=n, base=n[0], setting=n[2:-1]) for n in agg.index[:4]]
    >>> row = measurement_sensitivity(agg, [METRICS["SAME"]], vs).iloc[0]
    >>> row.setting_a, row.setting_b, int(row.models), float(row.spearman), int(row.models_changing_rank)
    ('p=x', 'p=y', 3, -1.0, 2)
    """
    rows = []
    for spec in specs:
        if spec.name not in aggregates.columns:
            continue
        rows += _pair_rows(spec.name, rankings_by_setting(aggregates, spec, varied, ties), ties)
    return pd.DataFrame(rows, columns=COLUMNS)


def setting_sensitivity(ranks: Mapping[str, pd.DataFrame], ties: Ties = "min") -> pd.DataFrame:
    """The rows of :func:`measurement_sensitivity` for columns that the run computes once per
    setting over the same models (the likelihood columns under each ``likelihood_scoring``).

    ``ranks``: setting → models × columns, each model's rank (1 = least biased) by each
    column under that setting; a column is compared across the settings that all have it.

    >>> a = pd.DataFrame({"x": [1, 2, 3]}, index=["m", "n", "o"])
    >>> b = pd.DataFrame({"x": [2, 1, 3]}, index=["m", "n", "o"])
    >>> row = setting_sensitivity({"s=a": a, "s=b": b}).iloc[0]
    >>> row.metric, int(row.models), float(row.spearman), int(row.models_changing_rank), int(row.max_rank_shift)
    ('x', 3, 0.5, 2, 1)
    """
    settings = list(ranks)
    columns = [c for c in dict.fromkeys(c for frame in ranks.values() for c in frame.columns)
               if all(c in ranks[s].columns for s in settings)]
    rows = []
    for column in columns:
        table = pd.DataFrame({s: ranks[s][column] for s in settings}).rename_axis(index="model", columns="setting")
        rows += _pair_rows(column, table, ties)
    return pd.DataFrame(rows, columns=COLUMNS)


def _pair_rows(metric: str, ranks: pd.DataFrame, ties: Ties) -> list[tuple]:
    """One row per pair of settings (the columns of ``ranks``: models × settings)."""
    rows = []
    for a, b in itertools.combinations(ranks.columns, 2):
        both = ranks[[a, b]].dropna().astype("float64")
        # Ranks are recomputed on the models that both settings rank, so that a model
        # undefined under one setting does not shift the others.
        ra, rb = both[a].rank(method=ties), both[b].rank(method=ties)
        rho = ra.corr(rb, method="spearman") if len(both) >= 2 else np.nan
        shift = (ra - rb).abs()
        rows.append((metric, a, b, len(both), float(rho) if pd.notna(rho) else np.nan,
                     int((shift > 0).sum()), int(shift.max()) if len(both) else 0))
    return rows
