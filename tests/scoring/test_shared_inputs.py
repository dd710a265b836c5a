"""A model's word arrays are gathered once and shared by every metric (read-only), and
RND's ``normalize`` reads the table's unit vectors: the same bits as before."""

from __future__ import annotations

import numpy as np
import pytest

from wefe_same import Query, WordSet
from wefe_same.metrics import METRICS
from wefe_same.metrics.rnd import rnd
from wefe_same.models import ArraySource
from wefe_same.scoring.layout import WordVectors, subquery_arrays
from wefe_same.scoring.vectors import build_table

WORDS = [f"w{i}" for i in range(60)]


def _table():
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((len(WORDS), 40))
    matrix[:10] *= 2.0 ** rng.integers(-900, 900, size=(10, 1))  # extreme rows: the scaled norm
    matrix[10:20, :5] = 0.0  # zero entries
    matrix[20, 3] = 1e-170  # an entry whose square underflows
    return build_table(ArraySource("m", WORDS, matrix), WORDS)


def test_rnd_on_unit_vectors_is_rnd_normalising_raw_ones_bit_for_bit():
    table, spec = _table(), METRICS["RND"]
    query = Query([WordSet("t1", WORDS[:25]), WordSet("t2", WORDS[25:45])], [WordSet("a", WORDS[45:])])
    kind, options = spec.inputs({})
    assert (kind, options) == ("unit", {"normalize": False})
    unit = subquery_arrays(table, query, spec, 0.2, vectors=kind)
    raw = subquery_arrays(table, query, spec, 0.2)
    fast = spec.compute(unit.targets, unit.attributes, options)
    slow = rnd(*raw.targets, *raw.attributes, normalize=True)
    assert fast.value == slow.value and fast.details == slow.details


def test_shared_arrays_are_read_only_and_gathered_once():
    table = _table()
    memo = WordVectors(table)
    query = Query([WordSet("t1", WORDS[:5]), WordSet("t2", WORDS[5:10])], [WordSet("a", WORDS[10:20])])
    first = subquery_arrays(table, query, METRICS["RND"], 0.2, word_vectors=memo, vectors="unit")
    again = subquery_arrays(table, Query(query.targets, query.attributes), METRICS["ECT"], 0.2, word_vectors=memo)
    assert all(a is b for a, b in zip(first.targets + first.attributes, again.targets + again.attributes))
    with pytest.raises(ValueError, match="read-only"):
        first.targets[0][0, 0] = 1.0
