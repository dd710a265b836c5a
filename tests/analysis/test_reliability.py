"""Reliability coefficients (wefe_same.analysis.reliability) against Du, Fang & Nguyen's 2021
own ReliabilityEstimator (its outputs made by tests/oracles/make_reliability_fixture.py, which
runs their code unedited on seeded arrays and on the word-level array the tool builds for a
hand-built family of seeds), hand-built data with known answers (perfectly reliable, pure
noise, and in between, from the population values of a simulated two-way model), and the
coverage of the F-based intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from oracles.make_reliability_fixture import tool_array

from wefe_same.analysis.reliability import coefficient_reading, cronbach_alpha, icc

FIXTURE = json.loads((Path(__file__).parent / "data" / "reliability_authors.json").read_text())
CASES = list(FIXTURE["cases"])


def test_the_tool_still_builds_the_array_their_estimator_read():
    built, measures, words, pairs = tool_array()
    stored = FIXTURE["cases"]["tool"]
    np.testing.assert_allclose(built, np.array(stored["scores"]), rtol=1e-12, atol=1e-15)
    assert measures == list(stored["test_retest_target_words"]) == ["WEAT", "SAME", "DirectBias", "RIPA"]
    assert words == list(stored["inter_rater_consistency_target_words"])
    assert ["-".join(p) for p in pairs] == list(stored["inter_rater_consistency_gender_base_pairs"])


@pytest.mark.parametrize("case", CASES)
def test_every_coefficient_equals_du_et_als_estimator(case):
    got = FIXTURE["cases"][case]
    scores = np.array(got["scores"])  # measures × target words × base pairs × embeddings
    measures = list(got["test_retest_target_words"])
    pairs = list(got["inter_rater_consistency_gender_base_pairs"])
    seed_mean = scores.mean(axis=-1)
    for m, measure in enumerate(measures):
        # test-retest: the embeddings (seeds) rate each word's base pairs, and each pair's words
        words = np.array(list(got["test_retest_target_words"][measure].values()))
        np.testing.assert_allclose(icc(scores[m], "icc2")[0], words, rtol=1e-12)
        by_pair = np.array(list(got["test_retest_gender_base_pairs"][measure].values()))
        np.testing.assert_allclose(icc(np.moveaxis(scores[m], 1, 0), "icc2")[0], by_pair, rtol=1e-12)
        # internal consistency after seed averaging: their alpha takes (items, subjects)
        internal = got["internal_consistency"]
        assert cronbach_alpha(seed_mean[m])[0] == pytest.approx(internal["gender base pairs"][measure], rel=1e-12)
        assert cronbach_alpha(seed_mean[m].T)[0] == pytest.approx(internal["target words"][measure], rel=1e-12)
    # inter-rater: the measures rate each word's base pairs, and each pair's words
    by_word = np.array(list(got["inter_rater_consistency_target_words"].values()))
    np.testing.assert_allclose(icc(np.moveaxis(seed_mean, 0, -1), "icc3")[0], by_word, rtol=1e-12)
    by_pair = np.array([got["inter_rater_consistency_gender_base_pairs"][p] for p in pairs])
    np.testing.assert_allclose(icc(np.moveaxis(seed_mean, 0, -1).transpose(1, 0, 2), "icc3")[0], by_pair,
                               rtol=1e-12)


def test_perfect_raters_give_one_and_shifted_raters_lose_only_absolute_agreement():
    subjects = np.arange(6.0)[:, None]
    same, shifted = np.repeat(subjects, 3, axis=1), subjects + np.array([0.0, 1.0, 2.0])
    for kind in ("icc2", "icc3"):
        assert icc(same, kind)[0] == pytest.approx(1.0, abs=1e-12)
    assert icc(shifted, "icc3")[0] == pytest.approx(1.0, abs=1e-12)
    # ICC(2,1) = (MSR − MSE) / (MSR + (k − 1) MSE + k (MSC − MSE) / n) with MSE = 0, MSR = 3 · 3.5
    # (k times the variance of the subjects' means) and MSC = 6 · 1 (n times the raters'): 10.5 / 13.5
    assert icc(shifted, "icc2")[0] == pytest.approx(10.5 / 13.5, rel=1e-12)
    assert cronbach_alpha(same)[0] == pytest.approx(1.0, abs=1e-12)


def population(rng, n, k, rater_sd=0.0, noise_sd=1.0):
    """Scores of a two-way model: subject variance 1, rater effects and noise as given."""
    return rng.normal(size=(n, 1)) + rater_sd * rng.normal(size=(1, k)) + noise_sd * rng.normal(size=(n, k))


def test_in_between_recovers_the_population_coefficients():
    rng = np.random.default_rng(7)
    # ICC(3,1) = σ_s² / (σ_s² + σ_e²) = 0.5; ICC(2,1) adds the raters' variance: 1 / (1 + 0.5 + 1) = 0.4
    assert icc(population(rng, 20_000, 4), "icc3")[0] == pytest.approx(0.5, abs=0.01)
    assert icc(population(rng, 4_000, 300, rater_sd=np.sqrt(0.5)), "icc2")[0] == pytest.approx(0.4, abs=0.02)
    # alpha of k parallel items of reliability ρ: k ρ / (1 + (k − 1) ρ) = 0.8 for k = 4, ρ = 0.5
    assert cronbach_alpha(population(rng, 20_000, 4))[0] == pytest.approx(0.8, abs=0.01)


def test_pure_noise_is_near_zero_and_read_poor():
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(2_000, 50, 4))  # 2,000 data sets of 50 subjects × 4 raters, no subject effect
    for kind in ("icc2", "icc3"):
        value = icc(noise, kind)[0]
        assert abs(value.mean()) < 0.01 and coefficient_reading(float(value.mean()), kind) == "poor"
    assert abs(np.median(cronbach_alpha(noise)[0])) < 0.05


@pytest.mark.parametrize("kind", ["icc2", "icc3", "alpha"])
def test_the_95_percent_intervals_hold_the_population_value_in_95_percent_of_data_sets(kind):
    rng = np.random.default_rng({"icc2": 1, "icc3": 2, "alpha": 3}[kind])
    trials, n, k = 4_000, 30, 3
    subjects = rng.normal(size=(trials, n, 1))
    raters = (np.sqrt(0.5) if kind == "icc2" else 0.0) * rng.normal(size=(trials, 1, k))
    scores = subjects + raters + rng.normal(size=(trials, n, k))
    truth = {"icc2": 1 / 2.5, "icc3": 0.5, "alpha": k * 0.5 / (1 + (k - 1) * 0.5)}[kind]
    _, low, high = cronbach_alpha(scores) if kind == "alpha" else icc(scores, kind)
    coverage = np.mean((low <= truth) & (truth <= high))
    assert 0.93 <= coverage <= 0.97, coverage  # Monte Carlo standard error ≈ 0.34 %


def test_the_leading_axes_are_independent_data_sets():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(3, 4, 10, 5))
    for kind in ("icc2", "icc3"):
        batch = icc(scores, kind)
        one = [icc(scores[i, j], kind) for i in range(3) for j in range(4)]
        for part, column in zip(batch, zip(*one)):
            np.testing.assert_allclose(part.ravel(), np.array(column), rtol=1e-13)
    with pytest.raises(ValueError, match="at least 2 subjects and 2 raters"):
        icc(np.ones((1, 3)))
