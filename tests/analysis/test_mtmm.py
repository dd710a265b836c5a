"""The multitrait–multimethod table: the kinds of pairs, rho against scipy, and hand-built
runs whose validity is known (metrics that agree on each trait; a method effect)."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wefe_same.analysis.mtmm import KINDS, mtmm_summary, mtmm_table

MODELS = [f"m{i}" for i in range(8)]


def long_table(ranks: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """A run's by_query_set rows from {(metric, trait): ranks of MODELS}, with an overall row set."""
    rows = [{"query_set": t, "metric": m, "model": model, "rank": r}
            for (m, t), values in ranks.items() for model, r in zip(MODELS, values)]
    rows += [{"query_set": "overall", "metric": m, "model": model, "rank": 1.0}
             for m in {m for m, _ in ranks} for model in MODELS]
    return pd.DataFrame(rows)


def shuffled(seed: int) -> list[float]:
    return list(np.random.default_rng(seed).permutation(len(MODELS)) + 1.0)


def test_the_pairs_of_each_kind_and_their_rho():
    metrics, traits = ["A", "B", "C"], ["gender", "religion"]
    ranks = {(m, t): shuffled(10 * i + j) for i, m in enumerate(metrics) for j, t in enumerate(traits)}
    table = mtmm_table(long_table(ranks), metrics)
    counts = table["kind"].value_counts()
    assert counts["monotrait-heteromethod"] == len(traits) * comb(len(metrics), 2)
    assert counts["heterotrait-monomethod"] == len(metrics) * comb(len(traits), 2)
    assert counts["heterotrait-heteromethod"] == comb(len(metrics), 2) * len(traits) * (len(traits) - 1)
    row = table[(table.metric_a == "A") & (table.trait_a == "gender") & (table.metric_b == "C")
                & (table.trait_b == "religion")].iloc[0]
    assert row["rho"] == pytest.approx(stats.spearmanr(ranks["A", "gender"], ranks["C", "religion"])[0], rel=1e-12)
    assert row["n_models"] == len(MODELS) and "overall" not in set(table.trait_a) | set(table.trait_b)


def test_metrics_that_agree_on_each_trait_and_not_across_traits_are_valid():
    gender, religion = shuffled(1), shuffled(2)
    ranks = {(m, "gender"): gender for m in "AB"} | {(m, "religion"): religion for m in "AB"}
    summary = mtmm_summary(mtmm_table(long_table(ranks), ["A", "B"])).set_index("trait")
    rho = stats.spearmanr(gender, religion)[0]
    assert summary.loc["gender", "convergent"] == pytest.approx(1.0)
    assert summary.loc["gender", "heterotrait_monomethod"] == pytest.approx(rho)
    assert summary.loc["gender", "heterotrait_heteromethod"] == pytest.approx(rho)
    assert summary["valid"].tolist() == [True, True]


def test_a_method_effect_is_not_validity():
    # each metric ranks the models its own way whatever the trait: it measures itself
    a, b = shuffled(3), shuffled(4)
    ranks = {("A", t): a for t in ("gender", "religion")} | {("B", t): b for t in ("gender", "religion")}
    summary = mtmm_summary(mtmm_table(long_table(ranks), ["A", "B"])).set_index("trait")
    assert summary.loc["gender", "heterotrait_monomethod"] == pytest.approx(1.0)
    assert summary["valid"].tolist() == [False, False]


def test_a_metric_without_a_trait_is_not_a_method_there_and_few_models_give_na():
    ranks = {("A", "gender"): shuffled(1), ("B", "gender"): shuffled(2), ("A", "religion"): shuffled(3),
             ("B", "religion"): [np.nan] * len(MODELS)}
    table = mtmm_table(long_table(ranks), ["A", "B"])
    assert ("B", "religion") not in set(zip(table.metric_a, table.trait_a)) | set(zip(table.metric_b, table.trait_b))
    summary = mtmm_summary(table).set_index("trait")
    assert summary.loc["religion", "n_convergent"] == 0 and pd.isna(summary.loc["religion", "valid"])
    assert set(KINDS) >= set(table["kind"])
