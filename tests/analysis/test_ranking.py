"""Scoring, the out-of-vocabulary policy, aggregation by order relation, ranks and correlations."""

import math

import numpy as np
import pandas as pd
import pytest

from wefe_same import METRICS, Execution, Query, WordSet, rank
from wefe_same.analysis.correlation import correlations
from wefe_same.analysis.ranking import aggregate, rank_column
from wefe_same.metrics.registry import get_metric
from wefe_same.models import ArraySource


def test_rank_api_tables_have_stable_keys(toy_sources, toy_query):
    result = rank(toy_sources, [toy_query], execution=Execution(progress=False))
    names = [s.name for s in toy_sources]
    assert list(result.rankings.index) == names and list(result.aggregates.index) == names
    assert list(result.rankings.columns) == list(result.scores) == list(METRICS)
    assert list(result.scores["RND"].columns) == ["queries:male+female|career", "queries:male+female|care"]
    assert list(result.scores["MAC"].columns) == ["queries:male|career+care", "queries:female|career+care"]
    for metric, matrix in result.scores.items():
        if metric == "ECT":  # 2 attribute words: a rank correlation needs 3
            assert result.details.query("metric == 'ECT'")["reason"].str.contains("needs 3").all()
            continue
        assert matrix.notna().all().all(), metric
        ranks = result.rankings[metric]
        assert sorted(ranks) == [1, 2, 3, 4]
    diagonal = pd.Series(np.diag(result.correlations), index=result.correlations.index)
    assert math.isnan(diagonal["ECT"])  # an all-NaN ranking correlates with nothing
    np.testing.assert_allclose(diagonal.drop("ECT"), 1.0)
    assert len(result.details) == sum(m.size for m in result.scores.values())


def test_aggregates_follow_each_order_relation(toy_sources, toy_query):
    result = rank(toy_sources, [toy_query], execution=Execution(progress=False))
    s = result.scores
    pd.testing.assert_series_equal(result.aggregates["WEAT"], s["WEAT"].abs().mean(axis=1),
                                   check_names=False)
    pd.testing.assert_series_equal(result.aggregates["MAC"], (s["MAC"] - 1).abs().mean(axis=1),
                                   check_names=False)
    pd.testing.assert_series_equal(result.aggregates["SAME"], s["SAME"].mean(axis=1), check_names=False)
    expected = result.aggregates["WEAT-ES"].rank(method="min").astype("Int64")
    pd.testing.assert_series_equal(result.rankings["WEAT-ES"], expected, check_names=False)


def test_missing_words_make_a_subquery_nan_with_reason_not_a_crash(toy_query):
    words = ["he", "man", "she", "woman", "doctor", "nurse", "teacher"]  # no "engineer"
    src = ArraySource("gappy", words, np.random.default_rng(0).normal(size=(len(words), 5)))
    full = ArraySource("full", words + ["engineer"], np.random.default_rng(1).normal(size=(8, 5)))
    result = rank([src, full], [toy_query], metrics=["WEAT", "RND"], execution=Execution(progress=False))
    row = result.details.query("model == 'gappy' and metric == 'RND' and subquery.str.endswith('|career')")
    assert math.isnan(row["value"].item())
    assert row["reason"].item() == "set 'career' lost 1 of 2 words (50% > 20%)"
    assert row["missing_words"].item() == "engineer"
    assert not math.isnan(result.scores["RND"].loc["gappy", "queries:male+female|care"])
    # A looser threshold keeps the subquery and scores it on the words that are left.
    loose = rank([src, full], [toy_query], metrics=["RND"], missing_threshold=0.5,
                 execution=Execution(progress=False))
    assert loose.scores["RND"].notna().all().all()
    assert result.lookups.query("model == 'gappy' and word == 'engineer'")["status"].item() == "missing"


def test_direct_bias_drops_whole_tuples():
    words = ["he", "she", "man", "woman", "king", "doctor"]  # "queen" missing
    src = ArraySource("m", words, np.random.default_rng(2).normal(size=(6, 5)))
    q = Query([WordSet("male", ["he", "man", "king"], aligned=True),
               WordSet("female", ["she", "woman", "queen"], aligned=True)],
              [WordSet("jobs", ["doctor"])])
    result = rank([src], [q], metrics=["DirectBias"], missing_threshold=0.4,
                  execution=Execution(progress=False, cache=False))
    row = result.details.iloc[0]
    assert row["words_found"] == 5  # 2 tuples × 2 + "doctor"
    assert row["missing_words"] == "queen" and '"n_tuples": 2' in row["metric_details"]
    strict = rank([src], [q], metrics=["DirectBias"], execution=Execution(progress=False, cache=False)).details.iloc[0]
    assert strict["reason"] == "the target sets lost 1 of 3 tuples (33% > 20%)"


def test_pair_metrics_need_target_sets_declared_aligned():
    """Direct Bias and RIPA pair words by position: only on sets declared aligned."""
    words = ["he", "she", "man", "woman", "doctor", "nurse"]
    src = ArraySource("m", words, np.random.default_rng(3).normal(size=(6, 5)))
    loose = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                  [WordSet("jobs", ["doctor", "nurse"])])
    result = rank([src], [loose], metrics=["DirectBias", "RIPA", "SAME"],
                  execution=Execution(progress=False, cache=False))
    details = result.details.set_index("metric")
    for metric in ("DirectBias", "RIPA"):
        assert np.isnan(details.at[metric, "value"])
        assert details.at[metric, "reason"] == ("target sets 'male', 'female' are not declared aligned "
                                                "(aligned = true in the query file), so their words cannot "
                                                "be paired by position")
    assert not np.isnan(details.at["SAME", "value"])  # SAME takes the groups as sets, not pairs


def test_ties_and_nan_stay_visible():
    spec = get_metric("WEAT")
    values = pd.Series({"a": 0.5, "b": -0.5, "c": 0.1, "d": np.nan})
    ranks = rank_column(values.abs(), spec, "min")
    assert ranks.tolist()[:3] == [2, 2, 1] and ranks.isna().tolist() == [False, False, False, True]
    assert rank_column(values.abs(), spec, "dense")["a"] == 2
    ect_like = rank_column(pd.Series({"a": 0.9, "b": 0.1}), get_metric("WEAT"), "min")
    assert ect_like.tolist() == [2, 1]


def test_overall_is_weighted_by_query_set_size():
    spec = get_metric("SAME")
    scores = pd.DataFrame({"g:q1": [1.0], "g:q2": [1.0], "r:q1": [4.0]}, index=["m"])
    out = aggregate(scores, spec, {"g:q1": "g", "g:q2": "g", "r:q1": "r"}, {"g": 3, "r": 1})
    assert out.loc["m", "g"] == 1.0 and out.loc["m", "r"] == 4.0
    assert out.loc["m", "overall"] == pytest.approx((3 * 1 + 1 * 4) / 4)
    nan = scores.assign(**{"r:q1": [np.nan]})
    assert aggregate(nan, spec, {"g:q1": "g", "g:q2": "g", "r:q1": "r"}, {"g": 3, "r": 1}
                     ).loc["m", "overall"] == 1.0
    assert math.isnan(aggregate(nan, spec, {"g:q1": "g", "g:q2": "g", "r:q1": "r"}, {"g": 3, "r": 1},
                                nan_policy="propagate").loc["m", "overall"])


def test_correlations_kendall_and_undefined_pairs():
    r = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "flat": [1, 1, 1, 1]})
    rho, p = correlations(r, "kendall")
    assert rho.loc["a", "b"] == pytest.approx(4 / 6)
    assert math.isnan(rho.loc["a", "flat"]) and math.isnan(p.loc["a", "flat"])


def test_same_seed_same_result_bytes(toy_sources, toy_query, tmp_path):
    # Only the PDF figure is compared below: the other formats would be drawn for nothing.
    first = rank(toy_sources, [toy_query], seed=5, execution=Execution(progress=False)).save(tmp_path / "a", formats=["pdf"])
    second = rank(toy_sources[::-1], [toy_query], seed=5, execution=Execution(progress=False))
    # Every model gets the same random draws whatever the model order.
    pd.testing.assert_frame_equal(second.scores["RNSB"].loc[[s.name for s in toy_sources]],
                                  pd.read_csv(first / "scores" / "RNSB.csv", index_col="model"),
                                  check_names=False, check_exact=True)
    third = rank(toy_sources, [toy_query], seed=5, execution=Execution(progress=False)).save(tmp_path / "c", formats=["pdf"])
    for name in ("scores/RNSB.csv", "details.csv.gz", "rankings.csv", "figures/correlations.pdf"):
        assert (first / name).read_bytes() == (third / name).read_bytes(), name
