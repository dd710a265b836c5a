"""Subquery ids are unique for any set names (issue 15, item 2). Ids are built from set
names joined by ``+``, ``|`` and ``:``; a name holding a separator once made two different
subqueries share an id, and one of them was silently dropped from the score matrix."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GENDER_WORDS

from wefe_same import Execution, Query, QueryError, WordSet, rank
from wefe_same.metrics import get_metric
from wefe_same.models import ArraySource
from wefe_same.query import QuerySet
from wefe_same.query.expand import expand_query
from wefe_same.query.files import load_query_file

A_PLUS_B = WordSet("a+b", ["he", "man"])
C = WordSet("c", ["she", "woman"])
A = WordSet("a", ["doctor", "engineer"])
B_PLUS_C = WordSet("b+c", ["nurse", "teacher"])
NEUTRAL = WordSet("n", ["good", "happy", "bad", "sad"])


def test_names_with_separators_give_distinct_ids():
    first, second = Query([A_PLUS_B, C], [NEUTRAL]), Query([A, B_PLUS_C], [NEUTRAL])
    assert first.id == "a%2Bb+c|n" and second.id == "a+b%2Bc|n"
    assert Query([WordSet("x|y", ["he"]), WordSet("z", ["she"])], [NEUTRAL]).id == "x%7Cy+z|n"


def test_both_colliding_subqueries_are_scored():
    """Before the fix, both ids read "q:a+b+c|n" and the score matrix had one column."""
    qs = QuerySet("q", (Query([A_PLUS_B, C], [NEUTRAL]), Query([A, B_PLUS_C], [NEUTRAL])))
    assert [s.column for s in expand_query([qs], get_metric("SAME"))] == ["q:a%2Bb+c|n", "q:a+b%2Bc|n"]
    source = ArraySource("m", GENDER_WORDS, np.random.default_rng(0).normal(size=(len(GENDER_WORDS), 6)))
    result = rank([source], [qs], metrics=["SAME"], execution=Execution(cache=False, progress=False))
    assert list(result.scores["SAME"].columns) == ["q:a%2Bb+c|n", "q:a+b%2Bc|n"]
    assert result.scores["SAME"].notna().all(axis=None)


def test_query_set_name_with_a_colon_is_escaped():
    qs = QuerySet("gender:v2", (Query([A, C], [NEUTRAL]),))
    assert [s.column for s in expand_query([qs], get_metric("SAME"))] == ["gender%3Av2:a+c|n"]


def test_ordinary_names_are_unchanged():
    qs = QuerySet("gender", (Query([WordSet("male", ["he"]), WordSet("female", ["she"])], [NEUTRAL]),))
    assert [s.column for s in expand_query([qs], get_metric("SAME"))] == ["gender:male+female|n"]


def test_two_different_sets_under_one_name_are_refused():
    other_a = WordSet("a", ["good", "happy"])
    with pytest.raises(QueryError, match="two different sets are called 'a'"):
        QuerySet("q", (Query([A, C], [NEUTRAL]), Query([other_a, C], [NEUTRAL])))


def test_a_file_with_separators_in_set_names_loads_and_keeps_both(tmp_path):
    path = tmp_path / "sep.toml"
    path.write_text(
        '[sets."a+b"]\nwords = ["he", "man"]\n[sets.c]\nwords = ["she", "woman"]\n'
        '[sets.a]\nwords = ["doctor"]\n[sets."b+c"]\nwords = ["nurse"]\n[sets.n]\nwords = ["good"]\n'
        '[[queries]]\ntargets = ["a+b", "c"]\nattributes = ["n"]\n'
        '[[queries]]\ntargets = ["a", "b+c"]\nattributes = ["n"]\n'
    )
    qs = load_query_file(path)
    assert len({s.column for s in expand_query([qs], get_metric("SAME"))}) == 2
