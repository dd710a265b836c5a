"""One model's per-word table is built from codes with the labels pandas' own
``astype("category")`` gives, and what depends on a model's words only (each query's
layout, the row of each word) is shared by the models that have the same words without
changing any score: a model scored after others equals the model scored alone."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS

from wefe_same import Query, WordSet
from wefe_same.models import ArraySource
from wefe_same.run.cache import ModelCache
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import make_plan
from wefe_same.scoring.context import ScoringContext
from wefe_same.scoring.model import score_table
from wefe_same.scoring.scores import WORD_LABELS, compact, expand_scores
from wefe_same.scoring.vectors import build_table

#: Aligned targets (Direct Bias and RIPA rows), and attribute words a model may miss.
QUERY = Query(
    [WordSet("male", ["he", "man", "boy"], aligned=True), WordSet("female", ["she", "woman", "girl"], aligned=True)],
    [WordSet("career", ["doctor", "engineer", "pilot"]), WordSet("care", ["nurse", "teacher", "nanny"])],
    name="toy",
)
ALL = [*GENDER_WORDS, "boy", "girl", "pilot", "nanny"]


@pytest.fixture()
def plan():
    return make_plan(RankConfig(queries=QUERY, seed=3, permutations=20))


def table(name: str, seed: int, words=ALL):
    source = ArraySource(name, list(words), np.random.default_rng(seed).normal(size=(len(words), 6)))
    return build_table(source, ALL)


def alone(table_, plan_):
    """Scores with nothing kept from an earlier model (a context of its own)."""
    return score_table(table_, plan_, context=ScoringContext(plan_))


def assert_same_scores(a, b):
    for name in ("details", "lookups", "word_bias"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    for column in WORD_LABELS:
        assert list(a.word_bias[column].cat.categories) == list(b.word_bias[column].cat.categories)


def test_word_labels_are_the_categories_pandas_makes_of_the_strings(plan):
    got = alone(table("m", 0), plan).word_bias
    assert len(got) and set(got["metric"]) >= {"WEAT", "SAME", "DirectBias"}
    strings = got.astype({c: pd.Series(["x"]).dtype for c in WORD_LABELS})
    assert all(pd.api.types.is_string_dtype(strings[c]) for c in WORD_LABELS)
    expected = strings.astype({c: "category" for c in WORD_LABELS})  # what compact() made of strings
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    for column in WORD_LABELS:
        assert list(got[column].cat.categories) == list(expected[column].cat.categories)
        assert got[column].cat.codes.dtype == expected[column].cat.codes.dtype


def test_the_cache_stores_strings_and_gives_back_the_same_compact_table(plan, tmp_path):
    scores = alone(table("m", 0), plan)
    assert compact(scores) is scores  # already compact: nothing copied
    cache = ModelCache(tmp_path / "cache")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a table the entry format cannot hold would warn
        cache.put_scores("0" * 64, expand_scores(scores))
    back = cache.get_scores("0" * 64)
    assert back is not None and pd.api.types.is_string_dtype(back.word_bias["word"])
    assert_same_scores(compact(back), scores)


def test_models_with_the_same_words_share_layouts_and_score_as_alone(plan):
    same_a, same_b = table("a", 1), table("b", 2)
    fewer = table("c", 3, words=[w for w in ALL if w != "nanny"])
    expected = {t.model: alone(t, plan) for t in (same_a, same_b, fewer)}
    context = ScoringContext(plan)  # one run's: kept across its models
    for t in (same_a, same_b, fewer, same_a, fewer, same_b):
        assert_same_scores(score_table(t, plan, context=context), expected[t.model])
    # a model missing words was not read with another model's layouts
    assert "nanny" in expected["c"].details["missing_words"].str.cat(sep=" ") and len(expected["c"].word_bias)
    assert context.query_layouts(same_a) is context.query_layouts(same_b)
    assert context.query_layouts(fewer) is not context.query_layouts(same_b)


def test_two_runs_in_one_process_share_nothing(plan):
    # Per-run state lives in each run's context: another run's models leave it untouched.
    first, second = ScoringContext(plan), ScoringContext(plan)
    a, c = table("a", 1), table("c", 3, words=[w for w in ALL if w != "nanny"])
    score_table(a, plan, context=first)
    kept = first.query_layouts(a)
    score_table(c, plan, context=second)
    assert first.query_layouts(a) is kept and second.query_layouts(a) is not kept
    assert kept.by_position and len(kept.by_position) == len(plan.subqueries)


def test_a_worker_gets_the_context_without_the_last_query_layouts(plan):
    import pickle

    context = ScoringContext(plan)
    first = table("a", 1)
    expected = score_table(first, plan, context=context)
    copy = pickle.loads(pickle.dumps(context))
    assert copy._layouts is None and context._layouts is not None
    assert [k.columns for k in copy.keys] == [k.columns for k in context.keys]
    assert_same_scores(score_table(first, copy.plan, context=copy), expected)
