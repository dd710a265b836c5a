"""P-values of the agreement between rankings (issue 39, item 1): exact by enumeration up
to 10 models, a seeded permutation test above, the asymptotic value only on request, and
the adjustment for a table's many tests.

The oracle is the definition itself, written here the slow way: every order of one column
(``itertools.permutations``), scipy's statistic on each, two-sided P(|r*| >= |r|) with a
1e-12 tolerance for float ties.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import random_source
from scipy import stats

from wefe_same import Execution, rank
from wefe_same.analysis.correlation import correlation_tests, correlations
from wefe_same.analysis.sensitivity import aggregation_sensitivity
from wefe_same.analysis.significance import EXACT_MAX_MODELS, NullCache, adjust_pvalues, correlation_pvalue
from wefe_same.cli import main
from wefe_same.metrics.registry import METRICS
from wefe_same.options.choices import P_ADJUSTMENTS, PVALUE_METHODS

TESTS = {"spearman": stats.spearmanr, "kendall": stats.kendalltau}


def enumerated_pvalue(x: np.ndarray, y: np.ndarray, method: str) -> float:
    """P(|r*| >= |r|) over every order of ``y`` against ``x``: the definition, by brute force."""
    test = TESTS[method]
    observed = abs(test(x, y).statistic)
    null = np.array([abs(test(x, np.array(order)).statistic) for order in itertools.permutations(y)])
    return float(np.mean(null >= observed - 1e-12))


@pytest.mark.parametrize("method", TESTS)
@pytest.mark.parametrize("case", range(12))
def test_exact_pvalue_equals_enumeration_with_ties(method, case):
    rng = np.random.default_rng(case)
    n = 3 + case % 5  # 3..7 models
    while True:  # ties on purpose: a few distinct values per column
        x, y = (rng.integers(0, 3 + case % 3, n).astype(float) for _ in range(2))
        if len(np.unique(x)) > 1 and len(np.unique(y)) > 1:
            break
    got = correlation_pvalue(x, y, method)
    assert got.method == "exact"
    assert got.p_value == pytest.approx(enumerated_pvalue(x, y, method), abs=1e-15)


@pytest.mark.parametrize(("x", "y", "expected"), [
    ([1, 2, 3], [1, 2, 3], 2 / math.factorial(3)),  # the issue: asymptotic 0.0
    ([1, 2, 3, 4], [1, 2, 3, 4], 2 / math.factorial(4)),  # 0.083, asymptotic 0.0
    ([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], 10 / math.factorial(5)),  # rho 0.9: 0.083, asymptotic 0.037
])
def test_the_issues_examples(x, y, expected):
    assert stats.spearmanr(x, y).statistic == pytest.approx(1.0 if x == y else 0.9)
    got = correlation_pvalue(np.array(x), np.array(y), "spearman")
    assert (got.p_value, got.method) == (pytest.approx(expected, abs=1e-15), "exact")
    asymptotic = correlation_pvalue(np.array(x), np.array(y), "spearman", pvalues="asymptotic")
    assert asymptotic == type(got)(pytest.approx(stats.spearmanr(x, y).pvalue), "asymptotic")
    assert asymptotic.p_value < expected / 2  # what the tool printed before: far too small


def test_kendall_without_ties_is_scipys_exact_distribution():
    x, y = np.arange(12.0), np.array([1, 0, 2, 3, 5, 4, 6, 8, 7, 9, 11, 10.0])  # 12 models: past enumeration
    got = correlation_pvalue(x, y, "kendall")
    assert got.method == "exact"
    assert got.p_value == stats.kendalltau(x, y, method="exact").pvalue


@pytest.mark.parametrize("method", TESTS)
def test_above_ten_models_a_seeded_permutation_test_within_its_error(method):
    """12 models with ties: 12! orders are too many; the sampled p-value is within 4 Monte
    Carlo errors of the exact one, computed here from 200,000 seeded orders (a far larger
    sample than the 20,000 resamples under test, so its own error is small)."""
    rng = np.random.default_rng(3)
    x = np.array([1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10.0])
    y = x + rng.normal(0, 3, len(x))
    y[2] = y[3]
    got = correlation_pvalue(x, y, method, cache=NullCache(resamples=20_000, random_state=5))
    assert got.method == "permutation"
    assert got.mc_error == pytest.approx(math.sqrt(got.p_value * (1 - got.p_value) / 20_000))
    # the reference: 200,000 other seeded orders, the statistic vectorised from its definition
    orders = np.argsort(np.random.default_rng(11).random((200_000, len(y))), axis=1)
    if method == "spearman":
        rx, ry = stats.rankdata(x), stats.rankdata(y)[orders]
        rx, ry = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
        null = np.abs(ry @ rx) / np.sqrt((rx @ rx) * (ry**2).sum(axis=1))
    else:  # tau-b: its denominator (the tie counts) is the same under every order
        i, j = np.triu_indices(len(x), k=1)
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[orders][:, i] - y[orders][:, j])
        null = np.abs(sy @ sx) / np.sqrt(np.count_nonzero(sx) * np.count_nonzero(sy, axis=1))
    observed = abs(TESTS[method](x, y).statistic)
    reference = float(np.mean(null >= observed - 1e-12))
    error = math.sqrt(reference * (1 - reference) / len(null))
    assert abs(got.p_value - reference) < 4 * math.hypot(got.mc_error, error)
    # seeded: the same cache seed gives the same value
    assert correlation_pvalue(x, y, method, cache=NullCache(resamples=20_000, random_state=5)) == got


def test_a_null_is_computed_once_per_tie_pattern():
    cache = NullCache()
    a, b, c = np.array([1, 2, 3, 4, 5.0]), np.array([2, 1, 3, 5, 4.0]), np.array([5, 3, 4, 1, 2.0])
    correlation_pvalue(a, b, "spearman", cache=cache)
    correlation_pvalue(a, c, "spearman", cache=cache)
    correlation_pvalue(b, c, "spearman", cache=cache)
    assert len(cache.nulls) == 1
    correlation_pvalue(a, np.array([1, 1, 3, 4, 5.0]), "spearman", cache=cache)  # a tie: another pattern
    assert len(cache.nulls) == 2


def test_undefined_pairs_have_no_pvalue():
    for x, y in [([1.0], [2.0]), ([1, 2, 3.0], [4, 4, 4.0])]:
        got = correlation_pvalue(np.array(x), np.array(y), "spearman")
        assert math.isnan(got.p_value) and got.method == ""


# ---------------------------------------------------------------- multiple tests

def test_holm_by_hand():
    """Holm (1979): sorted p (0.01, 0.02, 0.03, 0.04) times (4, 3, 2, 1) = (0.04, 0.06, 0.06,
    0.04), made monotone: (0.04, 0.06, 0.06, 0.06)."""
    got = adjust_pvalues(np.array([0.03, 0.01, np.nan, 0.04, 0.02]), "holm")
    np.testing.assert_allclose(got, [0.06, 0.04, np.nan, 0.06, 0.06], rtol=1e-12)
    assert adjust_pvalues(np.array([0.5, 0.9]), "holm").tolist() == [1.0, 1.0]  # capped at 1


def test_bh_is_scipys():
    p = np.array([0.01, 0.2, 0.03, 0.04, 0.5])
    np.testing.assert_array_equal(adjust_pvalues(p, "bh"), stats.false_discovery_control(p, method="bh"))


def test_the_tests_table_adjusts_the_off_diagonal_pairs_once():
    r = pd.DataFrame({"a": [1, 2, 3, 4, 5], "b": [2, 1, 3, 5, 4], "c": [5, 4, 3, 1, 2], "d": [1, 1, 1, 1, 1]})
    tests = correlation_tests(r, p_adjust="holm")
    assert list(zip(tests.metric_a, tests.metric_b)) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"),
                                                          ("b", "d"), ("c", "d")]
    defined = tests[tests.p_method == "exact"]
    assert len(defined) == 3 and tests[tests.metric_b == "d"].p_value.isna().all()  # constant column
    np.testing.assert_allclose(defined.p_adjusted, adjust_pvalues(defined.p_value.to_numpy(), "holm"))
    _, square = correlations(r)
    for a, b, p in zip(tests.metric_a, tests.metric_b, tests.p_value):
        assert square.loc[a, b] == square.loc[b, a] == p or (math.isnan(p) and math.isnan(square.loc[a, b]))


def test_the_command_lines_choices_are_the_libraries():
    from typing import get_args

    from wefe_same.analysis import significance

    assert PVALUE_METHODS == get_args(significance.PValueMethod)
    assert P_ADJUSTMENTS == get_args(significance.PAdjust)


# ---------------------------------------------------------------- through rank()

def _tied_models(n: int) -> list:
    """n models, the last a copy of the first under another name: ties in every ranking."""
    models = [random_source(f"m{i}", seed=i) for i in range(n - 1)]
    copy = random_source("copy-of-m0", seed=0)
    return [*models, copy]


@pytest.mark.parametrize("n_models", [4, 5])
def test_every_pvalue_of_a_run_is_the_exact_permutation_pvalue(tmp_path, toy_query, n_models):
    """The issue's acceptance test: correlation_pvalues.csv of a 4- and a 5-model run (ties
    included) against the enumeration, pair by pair, off the diagonal and on it."""
    result = rank(_tied_models(n_models), [toy_query], permutations=0,
                  execution=Execution(cache=False, progress=False))
    folder = result.save(tmp_path / "out")
    table = pd.read_csv(folder / "correlation_pvalues.csv", index_col=0)
    rankings = pd.read_csv(folder / "rankings.csv", index_col=0)
    tests = pd.read_csv(folder / "correlation_tests.csv", keep_default_na=False, na_values=[""])
    assert rankings.duplicated().any()  # the copy ties with its original
    checked = 0
    for a in table.index:
        for b in table.columns:
            pair = rankings[[a, b]].dropna().to_numpy(float)
            if len(pair) < 3 or min(len(np.unique(pair[:, 0])), len(np.unique(pair[:, 1]))) < 2:
                assert math.isnan(table.loc[a, b])
                continue
            assert table.loc[a, b] == pytest.approx(enumerated_pvalue(pair[:, 0], pair[:, 1], "spearman"),
                                                    abs=1e-15), (a, b)
            checked += 1
    assert checked > 10
    assert set(tests.p_method.dropna()) == {"exact"}
    adjusted = pd.read_csv(folder / "correlation_pvalues_adjusted.csv", index_col=0)
    for a, b, p in zip(tests.metric_a, tests.metric_b, tests.p_adjusted):
        assert adjusted.loc[a, b] == pytest.approx(p, nan_ok=True)
    assert np.isnan(np.diag(adjusted.to_numpy(float))).all()
    # the report's hover says which is which, written with the run and rebuilt from the folder
    a, b, p, q = tests.dropna(subset=["p_value"]).iloc[0][["metric_a", "metric_b", "p_value", "p_adjusted"]]
    hover = f"{a} × {b}: Spearman "
    for _ in range(2):
        html = (folder / "report.html").read_text(encoding="utf-8")
        tip = next(t for t in html.split("<title>")[1:] if t.startswith(hover)).split("</title>")[0]
        assert f"p = {p:.3g} (exact); Holm-adjusted {q:.3g}" in tip
        (folder / "report.html").unlink()
        assert main(["report", str(folder)]) == 0


def test_asymptotic_only_where_asked(toy_query):
    models = _tied_models(5)
    exact = rank(models, [toy_query], ["WEAT", "SAME"], permutations=0,
                 execution=Execution(cache=False, progress=False))
    asym = rank(models, [toy_query], ["WEAT", "SAME"], permutations=0, correlation_pvalues="asymptotic",
                p_adjust="bh", execution=Execution(cache=False, progress=False))
    assert set(asym.correlation_tests.p_method) == {"asymptotic"}
    assert set(asym.correlation_tests.adjustment) == {"bh"}
    x, y = (asym.rankings[c].astype(float) for c in ("WEAT", "SAME"))
    assert asym.correlation_pvalues.loc["WEAT", "SAME"] == pytest.approx(stats.spearmanr(x, y).pvalue)
    assert exact.manifest["settings"]["correlation_pvalues"] == "exact"
    assert asym.manifest["settings"]["p_adjust"] == "bh"


def test_aggregation_agreement_pvalues_are_exact():
    aggregates = pd.DataFrame({"WEAT": [0.9, 0.1, 0.5, 0.3, 0.7], "ECT": [0.2, 0.6, 0.9, 0.1, 0.5]},
                              index=list("abcde"))
    specs = [METRICS["WEAT"], METRICS["ECT"]]
    rankings = pd.DataFrame({s.name: aggregates[s.name].abs().rank(method="min", ascending=s.order != "descending")
                             for s in specs}).astype("Int64")
    table, agreement = aggregation_sensitivity(aggregates, rankings, specs)
    for row in agreement.itertuples():
        x, y = (table[f"{m}_score"].to_numpy(float) for m in (row.method_a, row.method_b))
        if math.isnan(row.p_value):
            continue
        assert row.p_value == pytest.approx(enumerated_pvalue(x, y, "kendall"), abs=1e-15)
        assert row.p_method == "exact"


def test_enumeration_reaches_ten_models():
    """Ten models (the default run's number): exact, with answers known by hand. A perfect
    agreement is matched only by itself and its reverse: 2/10!. With a tied pair at each end
    of both columns, swapping the two models of either pair keeps each of those: 8/10!."""
    assert EXACT_MAX_MODELS == 10
    x = np.arange(10.0)
    got = correlation_pvalue(x, x, "spearman")
    assert (got.p_value, got.method) == (pytest.approx(2 / math.factorial(10), rel=1e-12), "exact")
    tied = np.array([0, 0, 2, 3, 4, 5, 6, 7, 9, 9.0])
    for method in TESTS:
        got = correlation_pvalue(tied, tied, method)
        assert (got.p_value, got.method) == (pytest.approx(8 / math.factorial(10), rel=1e-12), "exact")


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_kendall_with_one_untied_column_equals_enumeration(n):
    """One column without ties takes the q-multinomial count of Kendall's null (no enumeration):
    the same p-value as every order, either column tied."""
    rng = np.random.default_rng(n)
    untied = rng.permutation(n).astype(float)
    tied = np.array([0, 0, 1, 2, 2, 2, 3][:n], dtype=float)
    for x, y in [(untied, tied), (tied, untied), (untied, rng.permutation(tied))]:
        got = correlation_pvalue(x, y, "kendall")
        assert got.method == "exact"
        assert got.p_value == pytest.approx(enumerated_pvalue(x, y, "kendall"), abs=1e-15)


def test_kendall_q_multinomial_null_equals_the_enumerated_one_at_ten_models():
    from wefe_same.analysis.significance import _kendall_one_tied, _kendall_statistic, _null

    a = np.arange(2, 22, 2)  # doubled ranks, no ties
    b = np.array([3, 3, 6, 9, 9, 9, 14, 16, 19, 19])  # doubled average ranks with three tie groups
    fast, slow = _kendall_one_tied(a, b), _null(a, b, _kendall_statistic, NullCache())
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])
