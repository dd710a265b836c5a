"""Validity of the metrics as a multitrait–multimethod table (Campbell & Fiske 1959).

Traits are a run's query sets (gender, ethnicity, religion, or the user's), methods its
metrics, and each (metric, query set) pair is one ranking of the models. The metrics
measure a trait validly when they agree with each other on it (convergent:
monotrait–heteromethod correlations) more than a metric agrees with itself across traits
(heterotrait–monomethod) and more than different metrics on different traits agree
(heterotrait–heteromethod); :func:`mtmm_summary` judges this per trait, pooled over its
metrics. Correlations are Spearman's rho between the rankings (average
ranks; the models both rank).

Written by hand: the grouping of the pairs into the three kinds; pandas' Spearman
correlation gives the coefficients.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The kinds of a pair of (metric, trait) rankings, as Campbell & Fiske name them.
KINDS = ("monotrait-heteromethod", "heterotrait-monomethod", "heterotrait-heteromethod")


def mtmm_table(by_query_set: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Every pair of (metric, query set) rankings with its rho and kind.

    ``by_query_set`` is a run's long table (query_set, metric, model, rank, …); the
    ``overall`` rows are not a trait. Columns: ``metric_a``, ``trait_a``, ``metric_b``,
    ``trait_b``, ``kind``, ``rho``, ``n_models``.
    """
    rows = by_query_set[(by_query_set["query_set"] != "overall") & by_query_set["metric"].isin(list(metrics))]
    wide = rows.astype({"rank": "float64"}).pivot_table(index="model", columns=["metric", "query_set"], values="rank",
                                                         aggfunc="first", dropna=False)
    order = [m for m in metrics if m in wide.columns.get_level_values(0)]
    traits = list(dict.fromkeys(rows["query_set"]))
    # a metric that ranks no model on a trait (its template does not fit that query set) is not a method there
    columns = [(m, t) for m in order for t in traits if (m, t) in wide.columns and wide[(m, t)].notna().any()]
    ranks = wide[columns]
    rho = ranks.corr(method="spearman", min_periods=3).to_numpy()
    present = ranks.notna().to_numpy(dtype=np.int64)
    both = present.T @ present
    i, j = np.triu_indices(len(columns), k=1)
    metric = np.array([m for m, _ in columns], dtype=object)
    trait = np.array([t for _, t in columns], dtype=object)
    same_trait, same_metric = trait[i] == trait[j], metric[i] == metric[j]
    kind = np.where(same_trait, KINDS[0], np.where(same_metric, KINDS[1], KINDS[2]))
    out = {"metric_a": metric[i], "trait_a": trait[i], "metric_b": metric[j], "trait_b": trait[j], "kind": kind,
           "rho": rho[i, j], "n_models": both[i, j]}
    return pd.DataFrame(out, columns=["metric_a", "trait_a", "metric_b", "trait_b", "kind", "rho", "n_models"])


def mtmm_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per trait: the mean rho of each kind of pair that touches it, and Campbell & Fiske's
    criterion (convergent above both discriminant means).

    Columns: ``trait``, ``convergent`` (monotrait–heteromethod: different metrics, this
    trait), ``heterotrait_monomethod`` (one metric, this trait against another),
    ``heterotrait_heteromethod``, ``n_convergent`` (pairs with a defined rho), ``valid``
    (True, False, or NA where a mean is undefined).
    """
    rows = []
    traits = list(dict.fromkeys([*table["trait_a"], *table["trait_b"]]))
    for trait in traits:
        touches = table[(table["trait_a"] == trait) | (table["trait_b"] == trait)]
        means = {kind: touches.loc[touches["kind"] == kind, "rho"].mean() for kind in KINDS}
        convergent = touches.loc[touches["kind"] == KINDS[0], "rho"]
        defined = all(np.isfinite(v) for v in means.values())
        rows.append({"trait": trait, "convergent": means[KINDS[0]], "heterotrait_monomethod": means[KINDS[1]],
                     "heterotrait_heteromethod": means[KINDS[2]], "n_convergent": int(convergent.notna().sum()),
                     "valid": (bool(means[KINDS[0]] > max(means[KINDS[1]], means[KINDS[2]])) if defined
                               else pd.NA)})
    return pd.DataFrame(rows, columns=["trait", "convergent", "heterotrait_monomethod", "heterotrait_heteromethod",
                                       "n_convergent", "valid"]).astype({"valid": "boolean"})
