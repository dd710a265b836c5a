"""Agreement of all metrics at once: Kendall's W and Friedman's test against scipy, known
answers, a brute-force permutation null, the consensus table and redundant columns."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wefe_same.analysis.agreement import (
    agreement_test,
    alike_groups,
    consensus,
    kendalls_w,
    oriented,
    redundant_metrics,
    tie_sums,
)


def ranked(values: np.ndarray, models: str = "abcdefghijklmnopqrstuvwxyz", metrics: str = "MNOPQRSTUVWXYZ") -> pd.DataFrame:
    n, m = values.shape
    return pd.DataFrame(stats.rankdata(values, axis=0), index=list(models[:n]), columns=list(metrics[:m]))


@pytest.mark.parametrize("n, m, levels", [(4, 12, 3), (6, 3, 100), (10, 5, 2), (3, 7, 2), (15, 4, 4)])
def test_w_times_m_n_minus_1_is_scipys_tie_corrected_friedman_statistic(n, m, levels):
    values = np.random.default_rng(n * 100 + m).integers(0, levels, size=(n, m)).astype(float)
    friedman = stats.friedmanchisquare(*values)  # one sample per model, measured in every metric
    row = agreement_test(ranked(values), list("MNOPQRSTUVWXYZ"[:m]), pvalues="asymptotic").iloc[0]
    assert row["chi2"] == pytest.approx(friedman.statistic, rel=1e-12)
    assert row["p_chi2"] == pytest.approx(friedman.pvalue, rel=1e-9)
    assert row["w"] == pytest.approx(friedman.statistic / (m * (n - 1)), rel=1e-12)


def test_w_by_its_textbook_formula_with_ties():
    # Kendall's W with the tie correction, written out: 3 raters, 4 objects, one tie in rater 2
    ranks = np.array([[1, 1.5, 2], [2, 1.5, 1], [3, 3, 3], [4, 4, 4]])
    sums = ranks.sum(axis=1)
    s = ((sums - sums.mean()) ** 2).sum()
    expected = 12 * s / (3 ** 2 * (4 ** 3 - 4) - 3 * (2 ** 3 - 2))
    assert float(kendalls_w(ranks)) == pytest.approx(expected, rel=1e-15)
    assert tie_sums(ranks).tolist() == [0.0, 6.0, 0.0]


def test_known_answers_perfect_agreement_reversal_and_all_ties():
    same = np.tile(np.arange(1.0, 6.0)[:, None], (1, 4))
    assert float(kendalls_w(same)) == 1.0
    assert float(kendalls_w(np.stack([np.arange(1.0, 6.0), np.arange(5.0, 0.0, -1)], axis=1))) == 0.0
    assert np.isnan(kendalls_w(np.full((4, 3), 2.5)))
    row = agreement_test(ranked(np.zeros((4, 3))), list("MNO")).iloc[0]
    assert np.isnan(row["w"]) and row["reason"] == "every metric ties every model: no order to agree on"


def test_the_permutation_pvalue_is_the_brute_force_exact_one():
    values = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])  # 3 models, 2 metrics: (3!)^2 = 36 tables
    observed = float(kendalls_w(values))
    tables = [np.stack([values[list(p), 0], values[list(q), 1]], axis=1)
              for p in itertools.permutations(range(3)) for q in itertools.permutations(range(3))]
    brute = np.mean([float(kendalls_w(t)) >= observed - 1e-12 for t in tables])
    row = agreement_test(ranked(values), ["M", "N"], resamples=1000).iloc[0]
    assert row["p_method"] == "exact" and row["mc_error"] == 0.0
    assert row["p_value"] == pytest.approx(brute, abs=1e-12)


def test_four_models_that_all_metrics_order_alike_are_not_read_off_the_asymptote():
    values = np.tile(np.arange(4.0)[:, None], (1, 3))
    row = agreement_test(ranked(values), list("MNO"), resamples=20_000, random_state=1).iloc[0]
    # exact: P(W* = 1) = (number of orders)^-(m-1) = 24^-2; chi2's tail is another number
    assert row["p_method"] == "exact" and row["p_value"] == pytest.approx(24.0 ** -2, rel=1e-9)
    assert row["p_chi2"] == pytest.approx(stats.chi2.sf(9.0, 3), rel=1e-12) and row["p_chi2"] != row["p_value"]


def test_a_sampled_pvalue_is_seeded_and_reports_its_monte_carlo_error():
    values = np.random.default_rng(3).normal(size=(8, 5))
    a = agreement_test(ranked(values), list("MNOPQ"), resamples=2000, random_state=7).iloc[0]
    b = agreement_test(ranked(values), list("MNOPQ"), resamples=2000, random_state=7).iloc[0]
    assert a["p_method"] == "permutation" and a["p_value"] == b["p_value"]
    assert a["mc_error"] == pytest.approx(np.sqrt(a["p_value"] * (1 - a["p_value"]) / 2000))
    assert abs(a["p_value"] - a["p_chi2"]) < 0.1  # 8 models: the asymptote is near


def test_a_metric_that_leaves_a_model_unranked_is_left_out_by_name():
    frame = ranked(np.random.default_rng(0).normal(size=(5, 3)))
    frame.loc["c", "O"] = np.nan
    row = agreement_test(frame, list("MNO")).iloc[0]
    assert row["n_metrics"] == 2 and row["left_out"] == "O"
    one = agreement_test(frame, ["M", "O"]).iloc[0]
    assert np.isnan(one["w"]) and one["reason"] == "1 metric(s) rank every model: W needs at least 2"


def test_the_interval_comes_from_the_draws_in_the_metrics_order():
    rng = np.random.default_rng(0)
    observed = rng.normal(size=(6, 3))
    draws = observed[None] + rng.normal(scale=0.3, size=(200, 6, 3))
    row = agreement_test(ranked(observed), list("MNO"), pvalues="asymptotic", draws=draws).iloc[0]
    drawn = kendalls_w(stats.rankdata(draws, axis=1))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(drawn, [0.025, 0.975])))
    assert row["ci_low"] <= row["w"] <= row["ci_high"] and row["n_draws"] == 200


def test_the_interval_reads_the_kept_metrics_columns_of_the_draws():
    rng = np.random.default_rng(1)
    observed = pd.DataFrame(rng.normal(size=(6, 3)), index=list("abcdef"), columns=list("MNO"))
    observed.loc["c", "M"] = np.nan  # M leaves a model unranked: out of W, and out of the draws' columns
    draws = rng.normal(size=(100, 6, 3))
    row = agreement_test(observed, list("MNO"), pvalues="asymptotic", draws=draws).iloc[0]
    drawn = kendalls_w(stats.rankdata(draws[:, :, [1, 2]], axis=1))
    assert row["left_out"] == "M" and row["n_metrics"] == 2
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(drawn, [0.025, 0.975])))


def test_values_are_ranked_by_average_ranks_whatever_made_them():
    # the run's "first" rankings break the tie of a and b; W and the consensus rank the values
    values = pd.DataFrame({"M": [0.1, 0.1, 0.1, 0.5], "N": [0.3, 0.2, 0.1, 0.4]}, index=list("abcd"))
    first = values.rank(method="first")
    assert agreement_test(values, ["M", "N"]).iloc[0]["w"] == pytest.approx(0.875)
    assert agreement_test(first, ["M", "N"]).iloc[0]["w"] == pytest.approx(0.6)  # what "first" ranks would say
    assert consensus(values, ["M", "N"])["mean_rank"].tolist() == pytest.approx([2.5, 2.0, 1.5, 4.0])


def test_oriented_flips_descending_metrics_only():
    class Spec:
        def __init__(self, name, order):
            self.name, self.order = name, order

    aggregates = pd.DataFrame({"A": [1.0, 2.0], "D": [1.0, 2.0]}, index=["x", "y"])
    out = oriented(aggregates, [Spec("A", "abs"), Spec("D", "descending")])
    assert out["A"].tolist() == [1.0, 2.0] and out["D"].tolist() == [-1.0, -2.0]


def test_chance_of_plus_or_minus_one_is_not_read_off_an_asymptotic_pvalue():
    rho = pd.DataFrame([[1.0, 1.0], [1.0, 1.0]], index=list("MN"), columns=list("MN"))
    tests = pd.DataFrame({"metric_a": ["M"], "metric_b": ["N"], "n_models": [3], "p_value": [0.0],
                          "p_method": ["asymptotic"]})
    row = redundant_metrics(rho, ["M", "N"], tests).iloc[0]
    assert row["p_value"] == pytest.approx(2 / 6) and row["p_method"] == "untied exact"
    assert alike_groups(redundant_metrics(rho, ["M", "N"], tests)) == []


def test_consensus_spread_and_leave_one_out():
    frame = pd.DataFrame({"M": [1, 2, 3, 4], "N": [1, 2, 3, 4], "O": [4, 3, 2, 1]}, index=list("abcd"))
    table = consensus(frame, ["M", "N", "O"]).set_index("model")
    assert table["mean_rank"].tolist() == pytest.approx([2.0, 7 / 3, 8 / 3, 3.0])
    assert table["consensus_rank"].tolist() == [1, 2, 3, 4]
    assert table.loc["a", ["rank_min", "rank_max"]].tolist() == [1, 4] and table.loc["a", "rank_iqr"] == 1.5
    # without O, every model keeps its place; without M (or N), all four tie at a mean of 2.5 → rank 1
    assert table.loc["d", "loo_max_shift"] == 3 and table.loc["d", "loo_metric"] == "M"
    assert table.loc["b", "loo_max_shift"] == 1


def test_redundant_columns_are_the_pairs_at_plus_or_minus_one():
    rho = pd.DataFrame([[1.0, 1.0, -1.0, 0.4], [1.0, 1.0, -1.0, 0.4], [-1.0, -1.0, 1.0, -0.4],
                        [0.4, 0.4, -0.4, 1.0]], index=list("MNOP"), columns=list("MNOP"))
    table = redundant_metrics(rho, list("MNOP"))
    assert table[["metric_a", "metric_b"]].values.tolist() == [["M", "N"], ["M", "O"], ["N", "O"]]
    assert table["same_order"].tolist() == [True, False, False] and table["p_value"].isna().all()
    assert redundant_metrics(rho, list("MP")).empty


def test_redundant_pairs_carry_their_pvalue_and_chance_pairs_are_not_grouped():
    rho = pd.DataFrame([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], index=list("MNO"), columns=list("MNO"))
    tests = pd.DataFrame({"metric_a": ["M", "M", "N"], "metric_b": ["N", "O", "O"], "n_models": [8, 3, 3],
                          "p_value": [0.001, 0.33, 0.33], "p_method": ["exact"] * 3})
    table = redundant_metrics(rho, list("MNO"), tests)
    assert table["p_value"].tolist() == [0.001, 0.33, 0.33]
    assert alike_groups(table) == [["M", "N"]]  # O's ±1 is what three models give by chance
