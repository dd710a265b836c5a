"""The option groups: frozen, checked when built, built from a shorthand or a mapping."""

from __future__ import annotations

import dataclasses

import pytest

from wefe_same import Bootstrap, Execution, External, Quality
from wefe_same.options.groups import GROUPS, coerce
from wefe_same.validation import InvalidParameterError


@pytest.mark.parametrize("name", GROUPS)
def test_a_group_is_frozen_and_comes_back_as_itself(name):
    group = GROUPS[name]()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(group, dataclasses.fields(group)[0].name, 1)
    assert coerce(GROUPS[name], group, name) is group
    assert coerce(GROUPS[name], None, name) == group
    assert coerce(GROUPS[name], {}, name) == group


def test_shorthands_and_mappings_make_the_same_group():
    assert coerce(Bootstrap, 200, "bootstrap") == Bootstrap(subqueries=200) == coerce(
        Bootstrap, {"subqueries": 200}, "bootstrap")
    assert coerce(Quality, "ws353", "quality") == Quality(benchmarks=("ws353",))
    assert coerce(External, "e.csv", "external").table == "e.csv"
    with pytest.raises(InvalidParameterError, match="The 'execution' parameter of rank must be an Execution, a "
                                                    "mapping of its settings or None. Got 2 instead"):
        coerce(Execution, 2, "execution")


def test_a_bad_shorthand_is_named_as_the_caller_spelled_it():
    with pytest.raises(InvalidParameterError, match="^The 'bootstrap' parameter of rank must be an integer >= 0"):
        coerce(Bootstrap, -1, "bootstrap")
    with pytest.raises(InvalidParameterError, match="^The 'subqueries' parameter of Bootstrap must be an integer"):
        Bootstrap(subqueries=-1)
    with pytest.raises(InvalidParameterError, match="^The 'words' parameter of Bootstrap"):
        coerce(Bootstrap, {"words": -1}, "bootstrap")  # a mapping spells the fields: they are named
