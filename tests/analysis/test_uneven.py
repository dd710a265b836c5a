"""Models scored on different subqueries of a metric: the "common" NaN policy against a hand
computation, and the warnings that name uneven metrics (issue 29, "comparable or flagged")."""

import numpy as np
import pandas as pd
import pytest

from wefe_same.analysis.intervals import subquery_draws
from wefe_same.analysis.ranking import aggregate, aggregate_run
from wefe_same.analysis.uneven import cell_note, find_uneven, uneven_metrics, uneven_warnings
from wefe_same.metrics.registry import get_metric
from wefe_same.scoring.aggregate import common_columns

NAN = np.nan
WEAT_ES = get_metric("WEAT-ES")  # ordered by |x|: the aggregate is a mean of |score|
COLUMNS = ["a1", "a2", "a3", "b1", "b2", "c1"]
COLUMN_SETS = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C"}
WEIGHTS = {"A": 3, "B": 2, "C": 1}


def hand_matrix() -> pd.DataFrame:
    """m1 defines every subquery; m2 lacks a2, b2 and c1; m3 defines none.

    Common to m1 and m2 (m3 is left out of "every model"): a1, a3, b1; query set C has no
    common subquery and drops out of both overall aggregates.
    """
    return pd.DataFrame(
        [[0.5, -0.9, 0.2, 0.4, -0.6, 0.1],
         [-0.1, NAN, 0.9, 0.2, NAN, NAN],
         [NAN] * 6],
        index=["m1", "m2", "m3"], columns=COLUMNS)


def test_common_aggregates_equal_a_hand_computation():
    agg = aggregate(hand_matrix(), WEAT_ES, COLUMN_SETS, WEIGHTS, nan_policy="common")
    # m1: A = (|0.5| + |0.2|) / 2 = 0.35, B = |0.4| = 0.4, overall = (3·0.35 + 2·0.4) / 5 = 0.37
    # m2: A = (|-0.1| + |0.9|) / 2 = 0.5, B = |0.2| = 0.2, overall = (3·0.5 + 2·0.2) / 5 = 0.38
    expected = pd.DataFrame({"A": [0.35, 0.5, NAN], "B": [0.4, 0.2, NAN], "C": [NAN, NAN, NAN],
                             "overall": [0.37, 0.38, NAN]}, index=["m1", "m2", "m3"])
    pd.testing.assert_frame_equal(agg, expected, rtol=0, atol=1e-15)


def test_skip_on_the_same_matrix_ranks_the_other_way():
    """The reason for the policy: under "skip" m1 averages subqueries m2 never had."""
    agg = aggregate(hand_matrix(), WEAT_ES, COLUMN_SETS, WEIGHTS, nan_policy="skip")
    # m1: A = (0.5 + 0.9 + 0.2) / 3, B = (0.4 + 0.6) / 2 = 0.5, C = 0.1: (1.6 + 1.0 + 0.1) / 6 = 0.45
    np.testing.assert_allclose(agg["overall"].to_numpy(), [0.45, 0.38, NAN], rtol=0, atol=1e-15)
    run = {policy: aggregate_run({"WEAT-ES": hand_matrix()}, [WEAT_ES], {"WEAT-ES": COLUMN_SETS},
                                 {"WEAT-ES": WEIGHTS}, nan_policy=policy) for policy in ("skip", "common")}
    assert run["skip"].rankings["WEAT-ES"].tolist() == [2, 1, pd.NA]
    assert run["common"].rankings["WEAT-ES"].tolist() == [1, 2, pd.NA]
    table = run["common"].by_query_set.set_index(["query_set", "model"])
    # The counts stay the facts of each model; the values are the common ones.
    assert table.loc[("overall", "m2"), ["n_subqueries", "n_defined", "fewer_defined"]].tolist() == [6, 3, True]
    assert table.loc[("A", "m1"), "value"] == pytest.approx(0.35, abs=1e-15)


def test_a_model_with_no_defined_subquery_is_left_out_of_every_model():
    assert common_columns(hand_matrix()) == ["a1", "a3", "b1"]
    assert common_columns(hand_matrix().loc[["m3"]]) == COLUMNS  # nobody ranked: nothing to restrict
    assert common_columns(hand_matrix().loc[["m2", "m3"]]) == COLUMNS  # what m2 lacks nobody defines
    assert common_columns(hand_matrix().loc[["m1", "m3"]]) == COLUMNS


def test_no_common_subquery_ranks_no_model():
    matrix = pd.DataFrame([[0.3, NAN], [NAN, 0.2]], index=["m1", "m2"], columns=["a1", "a2"])
    sets, weights = {"a1": "A", "a2": "A"}, {"A": 1}
    assert common_columns(matrix) == []
    run = aggregate_run({"WEAT-ES": matrix}, [WEAT_ES], {"WEAT-ES": sets}, {"WEAT-ES": weights},
                        nan_policy="common")
    assert run.aggregates["WEAT-ES"].isna().all()
    assert run.rankings["WEAT-ES"].isna().all()
    (u,) = uneven_metrics({"WEAT-ES": matrix}, ["WEAT-ES"])
    assert uneven_warnings([u], "common") == [
        "WEAT-ES: models 'm1', 'm2' are defined on 1 of 2 subqueries (not all the same ones): no subquery is "
        "defined by every ranked model, so under --nan-policy common WEAT-ES ranks no model"]
    assert uneven_warnings([u], "skip") == [
        "WEAT-ES: models 'm1', 'm2' are defined on 1 of 2 subqueries (not all the same ones): their aggregates "
        "are not comparable; no subquery is defined by every ranked model, so --nan-policy common would rank "
        "no model"]


def even_matrix(seed: int = 0) -> pd.DataFrame:
    values = np.random.default_rng(seed).normal(size=(4, 6))
    values[3] = NAN  # a model with nothing defined does not make the others uneven
    values[:, 4] = NAN  # nor a subquery that no model defines
    return pd.DataFrame(values, index=[f"m{i}" for i in range(4)], columns=COLUMNS)


def test_when_every_model_defines_every_subquery_common_is_skip_bit_for_bit():
    matrix = even_matrix()
    for spec in (WEAT_ES, get_metric("SAME"), get_metric("MAC"), get_metric("ECT")):
        pd.testing.assert_frame_equal(aggregate(matrix, spec, COLUMN_SETS, WEIGHTS, nan_policy="common"),
                                      aggregate(matrix, spec, COLUMN_SETS, WEIGHTS, nan_policy="skip"),
                                      rtol=0, atol=0)
    draws = {policy: subquery_draws({"WEAT-ES": matrix}, [WEAT_ES], {"WEAT-ES": COLUMN_SETS},
                                    {"WEAT-ES": WEIGHTS}, list(matrix.index), draws=50, random_state=4,
                                    nan_policy=policy) for policy in ("skip", "common")}
    np.testing.assert_array_equal(draws["common"], draws["skip"])
    assert find_uneven("WEAT-ES", matrix) is None


def test_the_subquery_bootstrap_resamples_the_common_subqueries_only():
    matrix = hand_matrix()
    common = matrix[["a1", "a3", "b1"]]
    kw = dict(draws=200, random_state=9)
    got = subquery_draws({"WEAT-ES": matrix}, [WEAT_ES], {"WEAT-ES": COLUMN_SETS}, {"WEAT-ES": WEIGHTS},
                         list(matrix.index), nan_policy="common", **kw)
    oracle = subquery_draws({"WEAT-ES": common}, [WEAT_ES], {"WEAT-ES": COLUMN_SETS}, {"WEAT-ES": WEIGHTS},
                            list(matrix.index), nan_policy="skip", **kw)
    np.testing.assert_array_equal(got, oracle)
    assert np.isnan(got[:, 2]).all() and not np.isnan(got[:, :2]).any()
    # m2 defines every common subquery: each draw is a mean of m2's own common scores.
    m2 = np.abs(common.loc["m2"].to_numpy())
    assert ((got[:, 1, 0] >= m2.min() - 1e-15) & (got[:, 1, 0] <= m2.max() + 1e-15)).all()


def test_the_warning_names_the_models_the_metric_and_the_counts():
    small_vs_glove = pd.DataFrame([[0.1] + [NAN] * 7, [0.2] * 8], index=["small", "glove-6b-50d"],
                                  columns=[f"s{i}" for i in range(8)])
    (u,) = uneven_metrics({"WEAT-ES": small_vs_glove, "RND": small_vs_glove.fillna(0.3)}, ["RND", "WEAT-ES"])
    assert (u.metric, u.short, u.unranked, u.n_common) == ("WEAT-ES", ("small",), (), 1)
    assert u.defined == {"small": 1, "glove-6b-50d": 8}
    said = ("WEAT-ES: model 'small' is defined on 1 of 8 subqueries, 'glove-6b-50d' on 8 of 8: their aggregates "
            "are not comparable; --nan-policy common ranks on the subqueries every model defines")
    assert uneven_warnings([u], "skip") == [said]
    assert uneven_warnings([u], "common") == [
        "WEAT-ES: model 'small' is defined on 1 of 8 subqueries, 'glove-6b-50d' on 8 of 8: every model is ranked "
        "on the 1 subquery they all define (--nan-policy common)"]
    assert uneven_warnings([u], "common", per_model_draws=True)[0].endswith(
        "; the --bootstrap-words and --halves draws still average each model's own defined subqueries")
    assert uneven_warnings([u], "propagate") == [
        "WEAT-ES: model 'small' is defined on 1 of 8 subqueries, 'glove-6b-50d' on 8 of 8: under --nan-policy "
        "propagate the models that lack a subquery are not ranked"]
    assert cell_note(u, "small", "skip") == ("defined on 1 of 8 subqueries (another model on 8): not comparable "
                                             "with the others' aggregates")
    assert cell_note(u, "small", "common") == ("defined on 1 of 8 subqueries (another model on 8): ranked with "
                                               "every model on the 1 they all define")


def test_metrics_uneven_alike_share_one_line_and_an_unranked_model_is_named():
    matrix = pd.DataFrame([[0.1, NAN, 0.3], [0.2, 0.2, 0.2], [NAN, NAN, NAN], [0.3, 0.1, 0.1]],
                          index=["small", "big", "empty", "big2"], columns=["x", "y", "z"])
    found = uneven_metrics({"WEAT": matrix, "WEAT-ES": matrix * 2, "RND": matrix.fillna(1.0)},
                           ["WEAT", "WEAT-ES", "RND"])
    assert [u.metric for u in found] == ["WEAT", "WEAT-ES"]
    assert found[0].unranked == ("empty",) and found[0].short == ("small",)
    assert uneven_warnings(found, "skip") == [
        "WEAT, WEAT-ES: model 'empty' is defined on none (not ranked), 'small' on 2 of 3, 'big', 'big2' on 3 of 3: "
        "their aggregates are not comparable; --nan-policy common ranks on the subqueries every model defines"]


def test_one_line_for_the_same_models_short_across_metrics():
    """The default run's case: the WEAT subset of word2vec lacks a few subqueries of most
    metrics; one line names the models once and each metric's counts."""
    short, full = [f"w{i}" for i in range(1, 5)], [f"g{i}" for i in range(1, 7)]

    def matrix(n, n_short, n_full):
        values = np.ones((10, n))
        values[:4, n_short:] = NAN
        values[4:, n_full:] = NAN
        return pd.DataFrame(values, index=short + full, columns=[f"s{i}" for i in range(n)])

    scores = {"WEAT": matrix(25, 23, 25), "WEAT-ES": matrix(25, 23, 25), "MAC": matrix(40, 36, 40),
              "DirectBias": matrix(49, 29, 31)}
    found = uneven_metrics(scores, list(scores))
    assert [u.short for u in found] == [tuple(short)] * 4
    assert uneven_warnings(found, "skip") == [
        "'w1', 'w2' and 2 more are defined on fewer subqueries than 'g1', 'g2' and 4 more: WEAT, WEAT-ES 23 vs 25 "
        "of 25; MAC 36 vs 40 of 40; DirectBias 29 vs 31 of 49: their aggregates are not comparable; --nan-policy "
        "common ranks on the subqueries every model defines"]
    assert uneven_warnings(found, "common") == [
        "'w1', 'w2' and 2 more are defined on fewer subqueries than 'g1', 'g2' and 4 more: WEAT, WEAT-ES 23 vs 25 "
        "of 25, 23 common; MAC 36 vs 40 of 40, 36 common; DirectBias 29 vs 31 of 49, 29 common: every model is "
        "ranked on the subqueries they all define (--nan-policy common)"]
