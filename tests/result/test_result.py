"""A result composes its stages (issue 40 item 3): RankResult and Analysis are frozen, what the
run computes beside the analysis is passed in, the per-word rows are read from the run's
table on first use, and ``to_frame()`` is a long view of the aggregates and rankings."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pandas as pd
import pytest

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.analysis.analyse import EXTRA_TABLES, Analysis
from wefe_same.models import ArraySource

WORDS = ["he", "she", "man", "woman", "doctor", "nurse", "table", "cloud"]
QUERY = Query([WordSet("m", ["he", "man"]), WordSet("f", ["she", "woman"])],
              [WordSet("c", ["doctor", "table"]), WordSet("k", ["nurse", "cloud"])], name="toy")


@pytest.fixture(scope="module")
def result():
    return _run()


def test_a_result_is_never_changed_in_place(result):
    for name in ("rankings", "word_bias", "debias_lipstick", "set_apart"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, name, None)
    changed = dataclasses.replace(result, warnings=["x"])
    assert changed.warnings == ["x"] and result.warnings != ["x"]
    assert changed.word_table is result.word_table  # the same rows go on
    pd.testing.assert_frame_equal(changed.word_bias, result.word_bias)


def test_the_analysis_is_frozen_and_holds_only_its_own_tables():
    fields = {f.name for f in dataclasses.fields(Analysis)}
    assert dataclasses.fields(Analysis) and Analysis.__dataclass_params__.frozen
    assert {"debias_lipstick", "measurement_sensitivity"} <= set(EXTRA_TABLES) - fields  # the run's, passed to the result


def _run():
    models = [ArraySource(f"m{i}", WORDS, np.random.default_rng(i).normal(size=(len(WORDS), 5))) for i in range(4)]
    return rank(models, queries=[QUERY], metrics=["WEAT", "SAME", "RND"], permutations=0,
                external=pd.DataFrame({"model": ["m0", "m1", "m2", "m3"], "gap": [1.0, 3.0, 2.0, 0.5]}),
                execution=Execution(cache=False, progress=False))


def test_word_bias_is_read_from_the_runs_table_on_first_use_and_kept():
    fresh = _run()
    assert "word_bias" not in fresh.__dict__  # not read yet: the rows are in the run's table
    first = fresh.word_bias
    assert "word_bias" in fresh.__dict__ and fresh.word_bias is first and len(first) > 0
    copy = pickle.loads(pickle.dumps(_run()))  # unread, pickled: read in the copy
    pd.testing.assert_frame_equal(copy.word_bias, first)
    with pytest.raises(AttributeError, match="no attribute 'not_a_table'"):
        result.not_a_table  # noqa: B018


def test_to_frame_is_a_long_view_of_the_aggregates_and_the_rankings(result):
    frame = result.to_frame()
    assert list(frame.columns) == ["model", "column", "kind", "value", "rank"]
    assert len(frame) == result.rankings.size
    assert dict(zip(frame["column"], frame["kind"])) == {"WEAT": "metric", "SAME": "metric", "RND": "metric",
                                                         "external:gap": "external"}
    for row in frame.itertuples():
        assert row.rank == result.rankings.loc[row.model, row.column]
        assert row.value == result.aggregates.loc[row.model, row.column]
    assert str(frame["rank"].dtype) == "Int64"
