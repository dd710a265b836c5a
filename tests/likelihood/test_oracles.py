"""Per-sentence scores equal the authors' code (rewritten in tests/oracles/likelihood_authors.py) to 1e-6 on tiny
random float64 models, batched with padding; and the figures equal the authors' evaluation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from oracles.likelihood_authors import (
    aul,
    causal_probability,
    crows_authors,
    crows_bias_bench,
    crows_metric,
    pll,
    stereoset_evaluate,
    stereoset_masked,
)

from wefe_same.likelihood import LanguageModel, crows_scores, score_crows, score_stereoset, stereoset_scores

TOL = 1e-6


def _lm(pair, kind, batch_size=7):
    model, tokenizer = pair
    return LanguageModel(model, tokenizer, kind, batch_size=batch_size)


@pytest.fixture(scope="module")
def pairs(crows_pairs):
    """3 short pairs of two bias types and both directions (of the CSV's first pairs of at
    most 9 words: every masked position is a forward pass of the oracle)."""
    short = crows_pairs[crows_pairs["sent_more"].str.split().str.len() <= 9].iloc[[0, 3, 4]]
    assert short["bias_type"].nunique() == 2 and short["direction"].nunique() == 2
    return short.reset_index(drop=True)


def _sent12(row):
    """metric.py's sent1/sent2: sent_more first for 'stereo', sent_less first for 'antistereo'."""
    return (row.sent_more, row.sent_less) if row.direction == "stereo" else (row.sent_less, row.sent_more)


def test_crows_authors_masked_equals_metric_py(tiny_mlm, pairs):
    lm = _lm(tiny_mlm, "masked")
    assert lm.uncased
    more, less = crows_scores(lm, list(zip(pairs.sent_more, pairs.sent_less)), "authors")
    want_more, want_less, triples = [], [], []
    for row in pairs.itertuples():
        s1, s2 = crows_authors(*tiny_mlm, *_sent12(row), uncased=True)
        m, l_ = (s1, s2) if row.direction == "stereo" else (s2, s1)
        want_more.append(m)
        want_less.append(l_)
        triples.append((row.direction, s1, s2))
    np.testing.assert_allclose(more, want_more, rtol=0, atol=TOL)
    np.testing.assert_allclose(less, want_less, rtol=0, atol=TOL)
    assert np.all(np.asarray(want_more) < -1.0)  # real sums of log-probabilities, not zeros
    _, summary = score_crows(lm, pairs, "authors")
    assert summary.loc["overall", "metric_score"] == pytest.approx(crows_metric(triples), abs=1e-12)
    assert summary.loc["overall", "n_pairs"] == len(pairs)


def test_crows_bias_bench_masked_equals_crows_runner(tiny_mlm, pairs):
    lm = _lm(tiny_mlm, "masked", batch_size=3)
    more, less = crows_scores(lm, list(zip(pairs.sent_more, pairs.sent_less)), "bias-bench")
    for row, m, l_ in zip(pairs.itertuples(), more, less):
        got = crows_bias_bench(*tiny_mlm, *_sent12(row))
        s1, s2 = got
        want = (s1, s2) if row.direction == "stereo" else (s2, s1)
        assert (m, l_) == pytest.approx(want, abs=TOL)


def test_bias_bench_skips_a_pair_without_differing_tokens(tiny_mlm):
    lm = _lm(tiny_mlm, "masked")
    more, less = crows_scores(lm, [("The man is here.", "The man is here.")], "bias-bench")
    assert np.isnan(more[0]) and np.isnan(less[0])
    assert crows_bias_bench(*tiny_mlm, "The man is here.", "The man is here.") is None


def test_crows_causal_equals_joint_log_probability(tiny_clm, pairs):
    lm = _lm(tiny_clm, "causal", batch_size=5)
    more, less = crows_scores(lm, list(zip(pairs.sent_more, pairs.sent_less)), "authors")
    want_more = [math.log(causal_probability(*tiny_clm, s)) for s in pairs.sent_more]
    want_less = [math.log(causal_probability(*tiny_clm, s)) for s in pairs.sent_less]
    np.testing.assert_allclose(more, want_more, rtol=0, atol=TOL)
    np.testing.assert_allclose(less, want_less, rtol=0, atol=TOL)
    # the scoring option does not change a causal model's scores
    again, _ = crows_scores(lm, list(zip(pairs.sent_more[:3], pairs.sent_less[:3])), "pll")
    np.testing.assert_allclose(again, more[:3], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("scoring", "oracle"), [("pll", pll), ("aul", aul)])
def test_pll_and_aul_equal_their_definitions(tiny_mlm, pairs, scoring, oracle):
    lm = _lm(tiny_mlm, "masked", batch_size=16)
    more, less = crows_scores(lm, list(zip(pairs.sent_more[:2], pairs.sent_less[:2])), scoring)
    np.testing.assert_allclose(more, [oracle(*tiny_mlm, s) for s in pairs.sent_more[:2]], rtol=0, atol=TOL)
    np.testing.assert_allclose(less, [oracle(*tiny_mlm, s) for s in pairs.sent_less[:2]], rtol=0, atol=TOL)


@pytest.fixture(scope="module")
def examples(stereoset_examples):
    """5 examples of 3 bias types, and the one context with two BLANKs."""
    head = stereoset_examples.head(5)
    two = stereoset_examples[stereoset_examples["context"].str.count("BLANK") == 2]
    assert len(two) == 1
    return pd.concat([head, two]).reset_index(drop=True)


def test_stereoset_masked_equals_intrasentence_runner(tiny_mlm, examples):
    lm = _lm(tiny_mlm, "masked", batch_size=8)
    labels = ("stereotype", "anti-stereotype", "unrelated")
    flat = [(row["context"], row[g]) for _, row in examples.iterrows() for g in labels]
    got = stereoset_scores(lm, flat, "authors")
    want = [stereoset_masked(*tiny_mlm, c, s) for c, s in flat]
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    assert np.all((0 < np.asarray(want)) & (np.asarray(want) < 1))


def test_stereoset_causal_equals_generative_runner(tiny_clm, examples):
    lm = _lm(tiny_clm, "causal", batch_size=4)
    flat = [(row["context"], row[g]) for _, row in examples.iterrows()
            for g in ("stereotype", "anti-stereotype", "unrelated")]
    np.testing.assert_allclose(stereoset_scores(lm, flat), [causal_probability(*tiny_clm, s) for _, s in flat],
                               rtol=0, atol=TOL)


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_stereoset_figures_equal_score_evaluator(tiny_mlm, tiny_clm, examples, kind):
    lm = _lm(tiny_mlm if kind == "masked" else tiny_clm, kind)
    items, summary = score_stereoset(lm, examples)
    scores = {}
    evaluated = []
    for (_, row), item in zip(examples.iterrows(), items.itertuples(index=False)):
        ids = {g: row[g + "_id"] for g in ("stereotype", "anti-stereotype", "unrelated")}
        scores.update({ids["stereotype"]: item.stereotype_score, ids["anti-stereotype"]: item.anti_stereotype_score,
                       ids["unrelated"]: item.unrelated_score})
        evaluated.append((row["target"], ids, row["bias_type"]))
    want = stereoset_evaluate([(t, i) for t, i, _ in evaluated], scores)
    for measure in ("ss", "lms", "icat"):
        assert summary.loc["overall", measure] == pytest.approx(want[measure], abs=1e-9)
    race = [(t, i) for t, i, b in evaluated if b == "race"]
    assert summary.loc["race", "ss"] == pytest.approx(stereoset_evaluate(race, scores)["ss"], abs=1e-9)
    assert summary.loc["overall", "n_items"] == len(examples)
