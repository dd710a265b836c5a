"""Extreme but finite vectors (issue 15, item 1): a model scaled by 1e200 or 1e-200 gets
the unscaled model's scores. Before, the squared norms overflowed (WEAT, Direct Bias and
MAC became 0 and the model ranked first) or underflowed (a "zero vector" everywhere)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GENDER_WORDS

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.metrics import METRICS
from wefe_same.models import ArraySource
from wefe_same.scoring.vectors import build_table

QUERY = Query(
    [WordSet("male", ["he", "man"], aligned=True), WordSet("female", ["she", "woman"], aligned=True)],
    [WordSet("career", ["doctor", "engineer", "good", "happy"]), WordSet("care", ["nurse", "teacher", "bad", "sad"])],
    name="toy",
)
#: Metrics on raw vectors whose score is proportional to the vectors' scale (the rest are cosine-based).
SCALE_EQUIVARIANT = {"RIPA"}
MATRIX = np.random.default_rng(0).normal(size=(len(GENDER_WORDS), 8))


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_every_metric_scores_a_scaled_model_as_the_unscaled_one(scale):
    sources = [ArraySource("base", GENDER_WORDS, MATRIX), ArraySource("scaled", GENDER_WORDS, MATRIX * scale)]
    result = rank(sources, [QUERY], metrics=list(METRICS), permutations=0,
                  metric_options={"RND": {"normalize": True}}, execution=Execution(cache=False, progress=False))
    assert set(result.scores) == set(METRICS)
    for name, matrix in result.scores.items():
        base, scaled = matrix.loc["base"].to_numpy(), matrix.loc["scaled"].to_numpy()
        if name in SCALE_EQUIVARIANT:
            scaled = scaled / scale
        assert np.all(np.isfinite(base)), name
        np.testing.assert_allclose(scaled, base, rtol=1e-12, atol=0, err_msg=name)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_rnd_on_raw_vectors_scales_with_the_model(scale):
    sources = [ArraySource("base", GENDER_WORDS, MATRIX), ArraySource("scaled", GENDER_WORDS, MATRIX * scale)]
    result = rank(sources, [QUERY], metrics=["RND"], permutations=0, metric_options={"RND": {"normalize": False}},
                  execution=Execution(cache=False, progress=False))
    matrix = result.scores["RND"]
    np.testing.assert_allclose(matrix.loc["scaled"] / scale, matrix.loc["base"], rtol=1e-12, atol=0)


def test_unit_vectors_of_extreme_rows_match_the_unscaled_ones():
    words = ["big", "small", "plain"]
    src = ArraySource("m", words, np.array([[3e300, 4e300], [3e-310, 4e-310], [3.0, 4.0]]))
    table = build_table(src, words)
    np.testing.assert_allclose(table.unit_vectors(words), [[0.6, 0.8]] * 3, rtol=1e-12)


def test_a_vector_whose_norm_exceeds_the_largest_float_is_non_finite():
    src = ArraySource("m", ["huge", "he"], np.array([[1.5e308, 1.5e308], [1.0, 0.0]]))
    table = build_table(src, ["huge", "he"])
    status = {lk.word: lk.status for lk in table.lookups}
    assert status == {"huge": "non-finite vector", "he": "exact"}
    assert table.words == ("he",)
