"""Caliskan et al.'s published WEAT effect sizes on word2vec GoogleNews.

The model is the WEAT subset of word2vec GoogleNews bundled with wefe (`word2vec-gnews-weat`),
the lists are `queries/weat.toml` in Caliskan's roles. Tolerance 0.005: the published values
are rounded to two decimals, so the exact value lies within half a unit of the last digit.
WEAT 2 is computed without "axe", which the bundled subset lacks.
"""

import pytest

from wefe_same import Execution, rank

PUBLISHED = {
    "weat:flowers+insects|pleasant+unpleasant": 1.54,
    "weat:instruments+weapons|pleasant+unpleasant": 1.63,
    "weat:math+arts|male_terms+female_terms": 0.97,
    "weat:science+arts_2|male_terms_2+female_terms_2": 1.24,
}


@pytest.fixture(scope="module")
def result():
    return rank(["word2vec-gnews-weat"], "weat", metrics=["WEAT-ES"], permutations=1000,
                execution=Execution(progress=False))


@pytest.mark.parametrize("subquery", list(PUBLISHED))
def test_published_effect_size(result, subquery):
    value = result.scores["WEAT-ES"].loc["word2vec-gnews-weat", subquery]
    assert value == pytest.approx(PUBLISHED[subquery], abs=0.005)


def test_published_tests_are_significant(result):
    rows = result.details.set_index("subquery").loc[list(PUBLISHED)]
    assert (rows["p_value"] < 0.05).all()
