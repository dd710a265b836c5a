"""The WEAT permutation test and the bootstrap."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from wefe_same import Execution, rank
from wefe_same.metrics._permutation import weat_permutation_test
from wefe_same.metrics.weat import association, weat
from wefe_same.metrics.weat_es import weat_effect_size


def unit(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def make_query(rng, n_x, n_y, dim=10, shift=0.3):
    A, B = unit(rng.normal(size=(6, dim))), unit(rng.normal(size=(6, dim)))
    direction = A.mean(0) - B.mean(0)
    X = unit(rng.normal(size=(n_x, dim)) + shift * direction)
    Y = unit(rng.normal(size=(n_y, dim)) - shift * direction)
    return X, Y, A, B


def brute_force_p(X, Y, A, B, alternative="greater"):
    """The share of splits at least as extreme as the observed one, the observed split
    included, by enumeration from the vectors, without wefe_same.metrics._permutation."""
    W = np.vstack([X, Y])
    observed = weat(X, Y, A, B).value
    at_least = 0
    splits = list(itertools.combinations(range(len(W)), len(X)))
    for xs in splits:
        ys = [i for i in range(len(W)) if i not in xs]
        stat = weat(W[list(xs)], W[ys], A, B).value
        if alternative == "two-sided":
            at_least += abs(stat) >= abs(observed) - 1e-12
        else:
            at_least += stat >= observed - 1e-12
    return at_least / len(splits), len(splits)


@pytest.mark.parametrize(("n_x", "n_y", "seed"), [(4, 4, 0), (5, 3, 1), (6, 6, 2), (3, 7, 3)])
@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_exact_p_value_equals_brute_force_enumeration(n_x, n_y, seed, alternative):
    X, Y, A, B = make_query(np.random.default_rng(seed), n_x, n_y, shift=0.05)
    expected, n_splits = brute_force_p(X, Y, A, B, alternative)
    got = weat(X, Y, A, B, permutations=1, alternative=alternative).details
    assert got["p_method"] == "exact" and got["n_splits"] == n_splits == math.comb(n_x + n_y, n_x)
    assert got["p_value"] == expected


def binomial_agreement(exact, sampled, n):
    """|sampled − exact| within 4 binomial standard errors (+ the 1/(n+1) offset of (k+1)/(n+1))."""
    sigma = math.sqrt(max(exact * (1 - exact), 1e-4) / n)
    return abs(sampled - exact) < 4 * sigma + 1 / n


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_p_value_within_binomial_error_of_exact(seed):
    X, Y, A, B = make_query(np.random.default_rng(seed), 8, 8, shift=0.04)
    s = np.concatenate([association(X, A, B), association(Y, A, B)])
    exact = weat_permutation_test(s, 8, permutations=1)
    assert exact.method == "exact" and exact.n_splits == 12870
    n = 20_000
    sampled = weat_permutation_test(s, 8, permutations=n, exact_limit=0, random_state=seed)
    assert sampled.method == "sampled" and sampled.n_splits == n
    # Both estimate P[stat ≥ observed], the observed split counted: one tie rule.
    assert binomial_agreement(exact.p_value, sampled.p_value, n)


# s(w, A, B) ∈ {1, 0, −1} from hand-built vectors: A = {e1}, B = {e2}; e1 → 1, e2 → −1,
# (e1 + e2)/√2 and e3 → 0 exactly. Most of the 12 870 splits of 16 words tie with another.
E = np.eye(4)
TIED_WORDS = np.array([E[0]] * 5 + [(E[0] + E[1]) / math.sqrt(2)] * 3 + [E[2]] * 3 + [E[1]] * 5)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("order", [0, 1, 2])
def test_tied_statistics_exact_and_sampled_agree(alternative, order):
    words = TIED_WORDS[np.random.default_rng(order).permutation(16)]
    X, Y, A, B = words[:8], words[8:], E[:1], E[1:2]
    s = np.concatenate([association(X, A, B), association(Y, A, B)])
    assert set(np.round(s, 12)) <= {-1.0, 0.0, 1.0}
    stats = [2 * s[list(xs)].sum() - s.sum() for xs in itertools.combinations(range(16), 8)]
    observed = 2 * s[:8].sum() - s.sum()
    # Ties with the observed statistic: P(tie) ≈ 0.05 ≫ the sampled test's standard error
    # (≈ 0.003), so counting them in one test and not in the other would fail below.
    assert np.mean(np.isclose(stats, observed)) > 0.02
    kw = {"permutations": 20_000, "alternative": alternative, "random_state": order}
    exact = weat(X, Y, A, B, **kw).details
    sampled = weat(X, Y, A, B, exact_limit=0, **kw).details
    assert exact["p_method"] == "exact" and sampled["p_method"] == "sampled"
    # |X| = |Y|: the lower tail of (X, Y) is the upper tail of (Y, X).
    by_hand = brute_force_p(Y, X, A, B)[0] if alternative == "less" else brute_force_p(X, Y, A, B, alternative)[0]
    assert exact["p_value"] == by_hand
    assert binomial_agreement(exact["p_value"], sampled["p_value"], kw["permutations"])


def test_floating_point_ties_count_as_ties():
    # 0.1 + 0.2 and 0.3 + 0.0 are equal in exact arithmetic, not in floating point.
    s = np.array([0.1, 0.2, 0.3, 0.0])
    assert (0.1 + 0.2) + 0.0 + 0.0 > 0.3
    # splits ≥ {0.1, 0.2}: itself, {0.3, 0.0} (tie), {0.1, 0.3}, {0.2, 0.3} → 4/6
    assert weat_permutation_test(s, 2, permutations=1).p_value == 4 / 6
    assert weat_permutation_test(s, 2, permutations=4000, exact_limit=0, random_state=0).p_value == pytest.approx(
        4 / 6, abs=0.03)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_p_value_is_never_zero(alternative):
    rng = np.random.default_rng(8)
    for n_x, n_y in [(2, 2), (4, 4), (6, 9), (20, 20)]:
        s = np.sort(rng.normal(size=n_x + n_y))[::-1]  # X holds the largest: the most extreme split
        kw = {"permutations": 500, "alternative": alternative, "random_state": 1}
        for test in (weat_permutation_test(s, n_x, **kw), weat_permutation_test(s, n_x, exact_limit=0, **kw)):
            floor = 1 / (test.n_splits + 1) if test.method == "sampled" else 1 / test.n_splits
            assert floor <= test.p_value <= 1
    # The most extreme of the 6 splits of {3, 2} vs {1, 0}: 1/6, where the strict rule gave 0.
    assert weat_permutation_test(np.array([3.0, 2.0, 1.0, 0.0]), 2, permutations=1).p_value == 1 / 6


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_exact_test_is_valid_with_ties(alternative):
    # Under H0 each split of X ∪ Y is equally likely to be the observed one. Taking every
    # split in turn as the observed one gives the exact null distribution of p:
    # P(p ≤ α) ≤ α must hold for every α, ties included.
    s_all = np.array([1.0] * 4 + [0.0] * 4 + [-1.0] * 2)
    ps, strict = [], []
    for xs in itertools.combinations(range(10), 5):
        ys = [i for i in range(10) if i not in xs]
        s = s_all[list(xs) + ys]
        ps.append(weat_permutation_test(s, 5, permutations=1, alternative=alternative).p_value)
        # Caliskan et al.'s strict ">" on the same splits, for contrast.
        stats = np.array([2 * s[list(c)].sum() - s.sum() for c in itertools.combinations(range(10), 5)])
        obs = 2 * s[:5].sum() - s.sum()
        if alternative == "two-sided":
            stats, obs = np.abs(stats), abs(obs)
        strict.append(np.mean(stats > obs + 1e-12))
    ps, strict = np.array(ps), np.array(strict)
    for alpha in np.unique(np.r_[ps, strict, 0.01, 0.05, 0.1]):
        assert np.mean(ps <= alpha) <= alpha + 1e-12
    assert ps.min() > 0
    # The strict rule is anti-conservative here: some α has P(p ≤ α) > α, and p = 0 occurs.
    assert any(np.mean(strict <= a) > a for a in np.unique(strict)) and strict.min() == 0


def test_same_seed_same_p_value_other_seed_differs():
    X, Y, A, B = make_query(np.random.default_rng(5), 25, 25, shift=0.02)
    run = lambda seed: weat(X, Y, A, B, permutations=2000, random_state=seed).details["p_value"]  # noqa: E731
    assert run(1) == run(1)
    assert run(1) != run(2)


def test_two_sided_is_right_for_negative_statistics():
    X, Y, A, B = make_query(np.random.default_rng(6), 6, 6, shift=4.0)
    forward = weat(X, Y, A, B, permutations=1, alternative="two-sided").details["p_value"]
    swapped = weat(Y, X, A, B, permutations=1, alternative="two-sided")
    assert swapped.value < 0
    assert swapped.details["p_value"] == forward < 0.05
    # One-sided "greater" on the negative statistic says nothing is there; "less" sees it.
    assert weat(Y, X, A, B, permutations=1).details["p_value"] > 0.9
    assert weat(Y, X, A, B, permutations=1, alternative="less").details["p_value"] < 0.05


def test_effect_size_shares_the_statistic_p_value():
    X, Y, A, B = make_query(np.random.default_rng(7), 20, 20)
    kw = {"permutations": 500, "random_state": 3}
    assert weat(X, Y, A, B, **kw).details["p_value"] == weat_effect_size(X, Y, A, B, **kw).details["p_value"]


def test_rank_reports_p_values_in_details(toy_sources, toy_query):
    result = rank(toy_sources, [toy_query], metrics=["WEAT", "WEAT-ES", "SAME"], permutations=100,
                  execution=Execution(progress=False))
    weat_rows = result.details[result.details["metric"] != "SAME"]
    assert (weat_rows["p_method"] == "exact").all() and (weat_rows["n_splits"] == 6).all()
    assert weat_rows["p_value"].between(0, 1).all()
    assert result.details.loc[result.details["metric"] == "SAME", "p_value"].isna().all()
    # WEAT and WEAT-ES share their random stream: identical p-values per subquery.
    by_metric = weat_rows.pivot(index=["model", "subquery"], columns="metric", values="p_value")
    assert (by_metric["WEAT"] == by_metric["WEAT-ES"]).all()


def test_word_bias_holds_the_per_word_scores(toy_sources, toy_query):
    result = rank(toy_sources[:1], [toy_query], metrics=["WEAT", "SAME", "DirectBias"],
                  execution=Execution(progress=False))
    wb = result.word_bias
    weat_s = wb.query("metric == 'WEAT' and subquery.str.endswith('career+care')")
    assert list(weat_s["word"]) == ["he", "man", "she", "woman"] and set(weat_s["component"]) == {"s"}
    # Σ_X s − Σ_Y s rebuilds the statistic.
    s = weat_s.set_index("word")["value"]
    stat = result.scores["WEAT"].iloc[0, 0]
    assert stat == pytest.approx(s[["he", "man"]].sum() - s[["she", "woman"]].sum())
    same = wb.query("metric == 'SAME' and subquery.str.endswith('|career')")
    assert set(same["component"]) == {"b", "signed:male-female"}
    b = same[same["component"] == "b"]["value"].to_numpy()
    signed = same[same["component"] == "signed:male-female"]["value"].to_numpy()
    np.testing.assert_allclose(b, np.abs(signed))  # binary SAME: b = |signed|
    assert result.scores["SAME"].iloc[0, 0] == pytest.approx(b.mean())


def test_bootstrap_intervals_are_seeded_and_cover_the_estimate(toy_sources, toy_query, tmp_path):
    run = lambda seed: rank(toy_sources, [toy_query], metrics=["WEAT", "SAME", "RND"],  # noqa: E731
                            bootstrap=200, seed=seed, execution=Execution(progress=False))
    a, b, c = run(1), run(1), run(2)
    pd.testing.assert_frame_equal(a.aggregates_ci, b.aggregates_ci)
    pd.testing.assert_frame_equal(a.correlations_ci, b.correlations_ci)
    # With two subqueries the percentile bounds are the two values whatever the seed;
    # the share of draws that keep a rank does move with the seed.
    assert not a.rank_stability.equals(c.rank_stability)
    ci = a.aggregates_ci
    assert (ci["ci_low"] <= ci["value"] + 1e-12).all() and (ci["value"] <= ci["ci_high"] + 1e-12).all()
    stab = a.rank_stability
    assert stab["share_same_rank"].between(0, 1).all()
    assert ((stab["rank_ci_low"] <= stab["rank"]) & (stab["rank"] <= stab["rank_ci_high"])).all()
    corr = a.correlations_ci
    assert len(corr) == 3 and corr["ci_low"].between(-1, 1).all() and corr["ci_high"].between(-1, 1).all()
    out = a.save(tmp_path / "r")
    for name in ("aggregates_ci.csv", "correlations_ci.csv", "rank_stability.csv", "word_bias.parquet"):
        assert (out / name).is_file()
    assert (out / "aggregates_ci.csv").read_bytes() == (b.save(tmp_path / "s") / "aggregates_ci.csv").read_bytes()


def test_bootstrap_of_identical_subqueries_has_no_spread():
    from wefe_same import Query, WordSet
    from wefe_same.models import ArraySource

    rng = np.random.default_rng(0)
    words = ["a", "b", "c", "d", "e", "f"]
    sources = [ArraySource(f"m{i}", words, rng.normal(size=(6, 5))) for i in range(3)]
    q = Query([WordSet("g1", ["a", "b"]), WordSet("g2", ["c", "d"])], [WordSet("w", ["e", "f"])])
    result = rank(sources, [q], metrics=["SAME"], bootstrap=50, execution=Execution(progress=False))
    ci = result.aggregates_ci  # one subquery: every draw is the estimate itself
    np.testing.assert_allclose(ci["ci_low"], ci["value"])
    np.testing.assert_allclose(ci["ci_high"], ci["value"])
    assert (result.rank_stability["share_same_rank"] == 1).all()
