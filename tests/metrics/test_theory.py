"""The seeds' theorems and counterexamples, computed (seed 000 §3.4, §4.4; seed 001 Thms 1–2; seed 004)."""

import math

import numpy as np
import pytest

from wefe_same.metrics.direct_bias import direct_bias
from wefe_same.metrics.same import bias_basis, same, same_skew, same_stereotype
from wefe_same.metrics.weat import association, weat
from wefe_same.metrics.weat_es import weat_effect_size

e1, e2, e3, e4 = np.eye(4)
A, B = e1[None], e2[None]


def w(t, perp=e3):
    """A unit word with s(w, {e1}, {e2}) = t: (t/2, −t/2, √(1 − t²/2)) (seed notes §3)."""
    return t / 2 * e1 - t / 2 * e2 + math.sqrt(1 - t * t / 2) * perp


def rows(*vs):
    return np.array(vs)


def test_word_builder_gives_the_asked_association():
    np.testing.assert_allclose(association(rows(w(0.3), w(-0.6, e4)), A, B), [0.3, -0.6])


def test_weat_reports_no_bias_for_biased_words():
    # Seed 000 Theorem 2 (§3.4.1): X = {w1, w2}, Y = {w3, w4} with s(w1) = s(w3), s(w2) = s(w4):
    # every word is biased, yet the statistic and the effect size are exactly 0.
    X, Y = rows(w(0.6), w(0.0)), rows(w(0.6, e4), w(0.0, e4))
    assert np.all(np.abs(association(np.vstack([X, Y]), A, B)[[0, 2]]) > 0.5)
    assert weat(X, Y, A, B).value == pytest.approx(0, abs=1e-15)
    assert weat_effect_size(X, Y, A, B).value == pytest.approx(0, abs=1e-14)
    # The seed's verified instance: a = e1, b = e2, w1 = (0.8, 0.2, √0.32), w3 = (0.6, 0, 0.8).
    X = rows(np.r_[0.8, 0.2, math.sqrt(0.32), 0], e3)
    Y = rows(np.r_[0.6, 0, 0.8, 0], np.r_[1, 1, 0.5, 0] / 1.5)
    assert weat_effect_size(X, Y, A, B).value == pytest.approx(0, abs=1e-14)


def test_effect_size_reaches_its_extremes_only_through_the_variance():
    # Seed 004 (proof of Theorem 4): |d| = 2 (population std) iff all x share one score and
    # every y its negative; more bias with more spread gives a *smaller* effect size.
    small = weat_effect_size(rows(w(0.1), w(0.1, e4)), rows(w(-0.1), w(-0.1, e4)), A, B, ddof=0)
    large = weat_effect_size(rows(w(0.1), w(0.9, e4)), rows(w(-0.1), w(-0.9, e4)), A, B, ddof=0)
    assert small.value == pytest.approx(2.0)
    # Scores ±0.1, ±0.9: mean difference 1, population std √0.41 → d = 1.56.
    assert large.value == pytest.approx(1 / math.sqrt(0.41))
    assert large.value < small.value
    # With the sample std the ceiling is 2·√((2m−1)/(2m)) = √3 for m = 2, still only at zero variance.
    assert weat_effect_size(rows(w(0.1), w(0.1, e4)), rows(w(-0.1), w(-0.1, e4)), A, B).value == pytest.approx(math.sqrt(3))


@pytest.mark.parametrize("r", [1.5, 2.0, 4.0])
def test_direct_bias_pca_counterexample(r):
    # Seed 004 Theorem 6: a1 = (−x, r·x), c1 = −a1, a2 = (−x, −r·x), c2 = −a2, r > 1. The first PC
    # is (0, 1): the neutral word (0, 1) scores 1 and the maximally biased word (1, 0) scores 0.
    x = 1.0
    a = np.array([[-x, r * x], [-x, -r * x]])
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    group_a, group_c = a, -a
    neutral, biased = np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])
    # Ground truth from the definition: s(w, A) − s(w, C).
    assert association(neutral, group_a, group_c)[0] == pytest.approx(0)
    assert abs(association(biased, group_a, group_c)[0]) == pytest.approx(2 / math.sqrt(1 + r * r))
    assert direct_bias(neutral, group_a, group_c).value == pytest.approx(1.0)
    assert direct_bias(biased, group_a, group_c).value == pytest.approx(0.0, abs=1e-15)
    # SAME gets both right.
    assert same(neutral, group_a, group_c).value == pytest.approx(0.0, abs=1e-15)
    assert same(biased, group_a, group_c).value == pytest.approx(1.0)


@pytest.mark.parametrize("n_groups", [2, 3, 5])
def test_same_bounds_and_trustworthiness(n_groups):
    # Seed 001 Theorems 1–2: b(t, A) ∈ [0, 1]; 0 exactly for t ⟂ the bias space (unbiased
    # words), 1 for t inside it, whatever the group sets (n ≤ d).
    rng = np.random.default_rng(n_groups)
    for _ in range(10):
        groups = [rng.normal(size=(3, 8)) for _ in range(n_groups)]
        groups = [G / np.linalg.norm(G, axis=1, keepdims=True) for G in groups]
        basis = bias_basis(np.array([G.mean(0) for G in groups]))
        t = rng.normal(size=8)
        unbiased = t - basis.T @ (basis @ t)
        unbiased /= np.linalg.norm(unbiased)
        means = np.array([G.mean(0) for G in groups])
        assert np.ptp(means @ unbiased) == pytest.approx(0, abs=1e-12)  # equidistant to all groups
        assert same(unbiased[None], *groups).value == pytest.approx(0, abs=1e-12)
        assert same(basis[:1], *groups).value == pytest.approx(1.0)
        biased = unbiased + 0.01 * basis[0]
        assert same(np.vstack([unbiased, biased / np.linalg.norm(biased)]), *groups).value > 1e-4


def test_skew_is_not_stereotype_sensitive_and_stereotype_not_skew_sensitive():
    # Seed 000 §4.4.3: W = {g + n, −g + n} is stereotyped but has skew 0; words with identical
    # positive bias are skewed but have stereotype 0.
    g = (e1 - e2) / math.sqrt(2)
    n = e3
    stereo_only = np.array([g + n, -g + n]) / math.sqrt(2)
    skew_only = np.array([g + 0.2 * e3, g - 0.2 * e3]) / math.sqrt(1.04)
    assert same_skew(stereo_only, A, B).value == pytest.approx(0, abs=1e-15)
    assert same_stereotype(stereo_only, A, B).value == pytest.approx(1 / math.sqrt(2))
    assert same_stereotype(skew_only, A, B).value == pytest.approx(0, abs=1e-15)
    assert same_skew(skew_only, A, B).value == pytest.approx(1 / math.sqrt(1.04))
    # SAME itself sees both.
    assert same(stereo_only, A, B).value > 0.5 and same(skew_only, A, B).value > 0.5


def test_skew_and_stereotype_for_three_groups_are_pairwise():
    groups = (e1[None], e2[None], e3[None])
    W = np.array([e1, e4])
    skew = same_skew(W, *groups)
    # Pair (0,1): cos(e1, e1 − e2) = 1/√2 for e1 and 0 for e4 → skew 1/(2√2); same for (0,2); (1,2): 0.
    assert skew.details["pair_0_1"] == pytest.approx(1 / (2 * math.sqrt(2)))
    assert skew.details["pair_1_2"] == pytest.approx(0)
    assert skew.value == pytest.approx((2 / (2 * math.sqrt(2))) / 3)
    stereo = same_stereotype(W, *groups)
    assert stereo.details["pair_0_1"] == pytest.approx(1 / (2 * math.sqrt(2)))  # population std
