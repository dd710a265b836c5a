"""Comparisons beyond the metrics: external columns, intervals from draws (with fixed
columns), and how the overall ranking depends on the aggregation."""

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wefe_same import Execution, External, rank
from wefe_same.analysis.correlation import correlations, spearman_draws
from wefe_same.analysis.external import (
    EXTERNAL_PREFIX,
    ExternalError,
    load_external,
    rank_external,
)
from wefe_same.analysis.intervals import (
    subquery_bootstrap,
    subquery_draws,
    summarize_draws,
)
from wefe_same.analysis.ranking import aggregate
from wefe_same.analysis.sensitivity import (
    aggregation_sensitivity,
    normalized_aggregates,
)
from wefe_same.errors import WefeSameError, WefeSameWarning
from wefe_same.metrics.registry import METRICS

MODELS = ["glove", "w2v", "fasttext", "lexvec", "conceptnet"]
SPECS = [METRICS["WEAT"], METRICS["ECT"]]  # |x| ascending and descending


def _rankings(aggregates: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({s.name: aggregates[s.name].rank(method="min", ascending=s.order != "descending")
                         for s in SPECS}).astype("Int64")


AGGREGATES = pd.DataFrame({"WEAT": [0.9, 0.1, 0.5, 0.3, 0.7], "ECT": [0.2, 0.6, 0.9, 0.1, 0.5]}, index=MODELS)
RANKINGS = _rankings(AGGREGATES)


# ---------------------------------------------------------------- external columns

def test_external_correlations_equal_scipy_spearman(tmp_path):
    path = tmp_path / "downstream.csv"
    path.write_text("model,tpr_gap,crows_fair\nglove,0.30,0.52\nw2v,0.10,0.61\nfasttext,0.22,\n"
                    "lexvec,0.05,0.70\nconceptnet,0.18,0.49\n")
    external = load_external(path, MODELS, higher_is_better=["crows_fair"])
    assert list(external.columns) == ["external:tpr_gap", "external:crows_fair"]
    assert list(external.index) == MODELS and np.isnan(external.at["fasttext", "external:crows_fair"])
    ranks = rank_external(external, ["crows_fair"])
    table = RANKINGS.join(ranks)
    rho, pval = correlations(table, pvalues="asymptotic")  # scipy's own p-values, on request
    for a in table.columns:
        for b in table.columns:
            pair = table[[a, b]].astype(float).dropna()
            expected = stats.spearmanr(pair[a], pair[b])
            assert rho.at[a, b] == pytest.approx(expected.statistic)
            assert pval.at[a, b] == pytest.approx(expected.pvalue)
    # the column with a missing model is correlated over the 4 others
    pair = table[["WEAT", "external:crows_fair"]].astype(float).dropna()
    assert len(pair) == 4


def test_higher_is_better_flips_the_ranks():
    frame = pd.DataFrame({"model": MODELS, "score": [3.0, 1.0, 2.0, 5.0, 4.0]})
    lower = rank_external(load_external(frame, MODELS))
    higher = rank_external(load_external(frame, MODELS, higher_is_better=["score"]), ["external:score"])
    assert lower["external:score"].tolist() == [3, 1, 2, 5, 4]
    assert higher["external:score"].tolist() == [3, 5, 4, 1, 2]
    assert (lower["external:score"] + higher["external:score"] == len(MODELS) + 1).all()
    avg = rank_external(pd.DataFrame({"external:s": [1.0, 1.0, 2.0]}), ties="average")
    assert avg["external:s"].tolist() == [1.5, 1.5, 3.0]


def test_external_from_a_frame_indexed_by_model_and_missing_models_warn():
    frame = pd.DataFrame({"gap": [0.1, 0.2]}, index=pd.Index(["w2v", "glove"], name="model"))
    with pytest.warns(WefeSameWarning, match="no row for models fasttext, lexvec, conceptnet"):
        external = load_external(frame, MODELS)
    assert external["external:gap"].tolist()[:2] == [0.2, 0.1]
    assert external["external:gap"].isna().sum() == 3


BAD = [
    ("name,gap\nglove,0.1\n", r"no 'model' column; columns: name, gap"),
    ("model,gap\nglove,0.1\nw2v,0.2\nglove,0.3\n", r"model 'glove' appears twice \(line 2 and line 4\)"),
    ("model,gap\nglove,0.1\nw2v,high\n", r"column 'gap', line 3 \(model 'w2v'\): 'high' is not a number"),
    ("model,gap\nglove,inf\n", r"column 'gap', line 2 \(model 'glove'\): 'inf' is not a finite number"),
    ("model,gap\nglove,0.1\nbert,0.2\nelmo,0.3\n", r"models not in this run: bert, elmo; the run's models: glove"),
    ("model,WEAT\nglove,0.1\n", r"column 'WEAT' has the name of a metric or quality column"),
    ("model,quality:ws353\nglove,0.1\n", r"column 'quality:ws353' has the name of a metric or quality column"),
    ("model,gap,gap\nglove,0.1,0.2\n", r"column 'gap' appears twice"),
    ("model,gap\nglove,0.1,7\n", r"line 2 has 3 cells, the header has 2"),
    ("model,gap\n,0.1\n", r"line 2: column 'model' is empty"),
    ("model\nglove\n", r"no column besides 'model'"),
    ("", r"external table is empty"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_external_files_fail_with_one_line_and_stay_untouched(tmp_path, text, message):
    path = tmp_path / "external.csv"
    path.write_text(text)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path)))
    with pytest.raises(ExternalError) as info:
        load_external(path, MODELS)
    text_of = str(info.value)
    assert isinstance(info.value, WefeSameError) and "\n" not in text_of
    assert text_of.startswith(str(path) + ": ")
    assert re.search(message, text_of), text_of
    assert (path.read_bytes(), os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path))) == before


def test_bad_higher_is_better_and_unreadable_files(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("model,gap\nglove,0.1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WefeSameWarning)
        with pytest.raises(ExternalError, match=r"higher_is_better names 'acc', which is not a column; columns: gap"):
            load_external(path, MODELS, higher_is_better=["acc"])
    with pytest.raises(ExternalError, match=r"missing\.csv: cannot read external table"):
        load_external(tmp_path / "missing.csv", MODELS)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("model,gap\nglöve,0.1\n".encode("latin-1"))
    with pytest.raises(ExternalError, match=r"latin\.csv: external table is not UTF-8 text"):
        load_external(latin, MODELS)
    with pytest.raises(ExternalError, match=r"external DataFrame: column 'gap', row 0 \(model 'glove'\): True"):
        load_external(pd.DataFrame({"model": ["glove"], "gap": [True]}), MODELS)
    assert sorted(os.listdir(tmp_path)) == ["e.csv", "latin.csv"]


# ---------------------------------------------------------------- intervals with fixed columns

def test_spearman_draws_matches_scipy_per_draw():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(30, 7)), rng.normal(size=(30, 7))
    x[rng.random(x.shape) < 0.2] = np.nan
    y[:, 0] = np.nan
    y[3, :5] = np.nan  # 2 models left: undefined
    got = spearman_draws(x, y)
    for b in range(30):
        both = ~(np.isnan(x[b]) | np.isnan(y[b]))
        if both.sum() < 3:
            assert np.isnan(got[b])
        else:
            assert got[b] == pytest.approx(stats.spearmanr(x[b, both], y[b, both]).statistic)


def test_summarize_draws_covers_metric_by_fixed_pairs():
    external = rank_external(pd.DataFrame({"external:gap": [0.3, 0.1, 0.22, 0.05, np.nan]}, index=MODELS))
    # draws equal to the estimate: every interval collapses onto the point
    same = np.broadcast_to(AGGREGATES.to_numpy(), (20, 5, 2))
    ci, corr, stability = summarize_draws(same, SPECS, AGGREGATES, RANKINGS, fixed=external)
    assert list(zip(corr["metric_a"], corr["metric_b"])) == [("WEAT", "ECT"), ("WEAT", "external:gap"),
                                                            ("ECT", "external:gap")]
    for a, b, rho, low, high in corr.itertuples(index=False):
        pair = RANKINGS.join(external)[[a, b]].astype(float).dropna()
        assert rho == pytest.approx(stats.spearmanr(pair[a], pair[b]).statistic)
        assert low == pytest.approx(rho) and high == pytest.approx(rho)
    np.testing.assert_allclose(ci["ci_low"], ci["value"])
    assert (stability["share_same_rank"] == 1).all()
    # noisy draws: intervals widen around the estimate, fixed × fixed pairs are left out
    noisy = same + np.random.default_rng(1).normal(scale=0.3, size=same.shape)
    two = external.assign(**{"external:other": [1, 2, 3, 4, 5]})
    _, corr, stability = summarize_draws(noisy, SPECS, AGGREGATES, RANKINGS, fixed=two)
    assert len(corr) == 1 + 2 * 2 and (corr["ci_high"] > corr["ci_low"]).all()
    assert not ((corr["metric_a"] == "external:gap") & (corr["metric_b"] == "external:other")).any()
    assert (stability["share_same_rank"] < 1).any()
    with pytest.raises(WefeSameError, match=r"draws must have shape \(B, 5 models, 2 metrics\)"):
        summarize_draws(noisy[:, :3], SPECS, AGGREGATES, RANKINGS)


def test_subquery_bootstrap_uses_the_same_summary():
    rng = np.random.default_rng(2)
    scores = {s.name: pd.DataFrame(rng.normal(size=(5, 4)), index=MODELS, columns=["q:a", "q:b", "r:c", "r:d"])
              for s in SPECS}
    column_sets = {s.name: {"q:a": "q", "q:b": "q", "r:c": "r", "r:d": "r"} for s in SPECS}
    weights = {s.name: {"q": 1, "r": 1} for s in SPECS}
    fixed = pd.DataFrame({"quality": [1, 2, 3, 4, 5]}, index=MODELS).astype("Int64")
    out = subquery_bootstrap(scores, SPECS, column_sets, weights, AGGREGATES, RANKINGS, draws=50, random_state=0, fixed=fixed)
    again = subquery_bootstrap(scores, SPECS, column_sets, weights, AGGREGATES, RANKINGS, draws=50, random_state=0, fixed=fixed)
    for a, b in zip(out, again):
        pd.testing.assert_frame_equal(a, b)
    pairs = set(zip(out[1]["metric_a"], out[1]["metric_b"]))
    assert pairs == {("WEAT", "ECT"), ("WEAT", "quality"), ("ECT", "quality")}


@pytest.mark.parametrize("nan_policy", ["skip", "propagate"])
def test_subquery_draws_weight_like_the_point_aggregate(nan_policy):
    """Equal subqueries inside each set: every draw is the point estimate of ranking.aggregate."""
    rng = np.random.default_rng(3)
    per_set = rng.normal(size=(5, 2))
    per_set[1, 1] = np.nan  # w2v has no defined score in set r
    columns = ["q:a", "q:b", "r:c", "r:d"]
    frame = pd.DataFrame(per_set[:, [0, 0, 1, 1]], index=MODELS, columns=columns)
    scores = {s.name: frame * (1 if s.name == "WEAT" else -1) for s in SPECS}
    column_sets = {s.name: {"q:a": "q", "q:b": "q", "r:c": "r", "r:d": "r"} for s in SPECS}
    weights = {s.name: {"q": 2, "r": 1} for s in SPECS}
    draws = subquery_draws(scores, SPECS, column_sets, weights, MODELS[::-1], draws=7, random_state=0,
                           nan_policy=nan_policy)
    expected = np.column_stack([
        aggregate(scores[s.name], s, column_sets[s.name], weights[s.name], nan_policy=nan_policy)["overall"]
        .reindex(MODELS[::-1]).to_numpy() for s in SPECS])
    assert draws.shape == (7, 5, 2)
    for b in range(7):
        np.testing.assert_allclose(draws[b], expected, rtol=1e-12, equal_nan=True)
    assert np.isnan(expected[3, 0]) == (nan_policy == "propagate")  # w2v, reversed order


# ---------------------------------------------------------------- aggregation sensitivity

# w is best on two metrics and far worst on the third; x is second on two and best on one.
SENS_SPECS = [METRICS["WEAT"], METRICS["SAME"], METRICS["ECT"]]  # abs, ascending, descending
SENS_AGG = pd.DataFrame({"WEAT": [0.0, 0.9, 1.0, 0.95], "SAME": [0.0, 0.9, 0.95, 1.0],
                         "ECT": [0.0, 1.0, 0.95, 0.9]}, index=["w", "x", "y", "z"])
SENS_RANKS = pd.DataFrame({"WEAT": [1, 2, 4, 3], "SAME": [1, 2, 3, 4], "ECT": [4, 1, 2, 3]},
                          index=SENS_AGG.index).astype("Int64")


def test_normalized_aggregates_flip_descending_metrics():
    norm = normalized_aggregates(SENS_AGG, SENS_SPECS)
    assert norm["ECT"].tolist() == pytest.approx([1.0, 0.0, 0.05, 0.1])
    assert norm["WEAT"].tolist() == pytest.approx([0.0, 0.9, 1.0, 0.95])


def test_borda_and_mean_disagree_and_tau_is_scipys():
    table, agreement = aggregation_sensitivity(SENS_AGG, SENS_RANKS, SENS_SPECS, "min", pvalues="asymptotic")
    table = table.set_index("model")
    # mean of normalised aggregates: w (0+0+1)/3 = 0.33 < x (0.9+0.9+0)/3 = 0.6 → w first
    assert table["mean_score"].tolist() == pytest.approx([1 / 3, 0.6, (1 + 0.95 + 0.05) / 3, (0.95 + 1 + 0.1) / 3])
    assert table["mean_rank"].tolist() == [1, 2, 3, 4]
    # Borda: w 1+1+4 = 6 > x 2+2+1 = 5 → x first
    assert table["borda_score"].tolist() == [6, 5, 9, 10] and table["borda_rank"].tolist() == [2, 1, 3, 4]
    assert table["median_score"].tolist() == [1, 2, 3, 3] and table["median_rank"].tolist() == [1, 2, 3, 3]
    assert table["changes"].tolist() == [True, True, False, True]
    rows = agreement.set_index(["method_a", "method_b"])
    for (a, b), row in rows.iterrows():
        expected = stats.kendalltau(table[f"{a}_score"], table[f"{b}_score"])
        assert row["kendall_tau"] == pytest.approx(expected.statistic)
        assert row["p_value"] == pytest.approx(expected.pvalue)
        assert row["n_models"] == 4
    assert rows.loc[("mean", "borda"), "kendall_tau"] == pytest.approx(2 / 3)
    assert rows.loc[("mean", "borda"), "moved"] == "w; x"
    assert rows.loc[("mean", "median"), "moved"] == "z"
    assert rows.loc[("borda", "median"), "moved"] == "w; x; z"


def test_aggregation_sensitivity_keeps_nan_visible():
    agg = SENS_AGG.assign(RND=np.nan)
    ranks = SENS_RANKS.assign(RND=pd.array([pd.NA] * 4, dtype="Int64"))
    ranks.loc["z", "SAME"] = pd.NA
    agg.loc["z", "SAME"] = np.nan
    table, agreement = aggregation_sensitivity(agg, ranks, [*SENS_SPECS, METRICS["RND"]], "min")
    table = table.set_index("model")
    assert np.isnan(table.at["z", "borda_score"]) and pd.isna(table.at["z", "borda_rank"])
    assert table.at["z", "metrics_used"] == 2 and table.at["w", "metrics_used"] == 3  # RND ranks nobody: left out
    assert agreement.set_index(["method_a", "method_b"]).loc[("mean", "borda"), "n_models"] == 3
    with pytest.raises(WefeSameError, match="has no column for metric 'MAC'"):
        aggregation_sensitivity(SENS_AGG, SENS_RANKS, [METRICS["MAC"]])
    assert EXTERNAL_PREFIX == "external:"


def test_rank_joins_an_external_file_ranks_it_and_correlates_it_like_scipy(tmp_path, toy_sources, toy_query):
    """Through rank(): lower external value = rank 1 unless higher_is_better; the
    correlation with each metric is scipy's Spearman on the two rank columns."""
    names = [s.name for s in toy_sources]
    path = tmp_path / "downstream.csv"
    pd.DataFrame({"model": names, "tpr_gap": [0.3, 0.1, 0.4, 0.2], "accuracy": [0.9, 0.7, 0.8, 0.6]}).to_csv(
        path, index=False)
    before = path.read_bytes()
    result = rank(toy_sources, [toy_query], metrics=["WEAT", "SAME"], permutations=0,
                  execution=Execution(cache=False), external=External(table=str(path), higher_is_better=["accuracy"]))
    assert path.read_bytes() == before
    assert result.rankings["external:tpr_gap"].tolist() == [3, 1, 4, 2]
    assert result.rankings["external:accuracy"].tolist() == [1, 3, 2, 4]
    assert result.aggregates["external:tpr_gap"].tolist() == [0.3, 0.1, 0.4, 0.2]
    for metric in ("WEAT", "SAME"):
        expected = stats.spearmanr(result.rankings[metric].astype(float),
                                   result.rankings["external:tpr_gap"].astype(float)).statistic
        assert result.correlations.at[metric, "external:tpr_gap"] == pytest.approx(expected, abs=1e-12)
    assert {"external:tpr_gap", "external:accuracy"} <= set(result.set_apart)
