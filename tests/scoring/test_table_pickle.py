"""A VectorTable travels between processes (the encoders' worker sends each model's table
back) with its lookups as columns; what arrives is the same table."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from wefe_same.scoring.vectors import Lookup, VectorTable


def tables():
    rng = np.random.default_rng(3)
    found = {w: rng.normal(size=4) for w in ("he", "she", "Nurse", "ice cream")}
    lookups = [Lookup("he", "he", "exact"), Lookup("she", "she", "exact"), Lookup("nurse", "Nurse", "title"),
               Lookup("ice cream", "ice cream", "subword"), Lookup("xyzzy", None, "missing"),
               Lookup("zero", None, "zero vector")]
    yield VectorTable("m", found, lookups)
    yield VectorTable("all missing", {}, [Lookup("a", None, "missing"), Lookup("b", None, "missing")])
    yield VectorTable("empty", {}, [])


def old_frame(table):  # the construction it replaced: one tuple per lookup
    return pd.DataFrame([(table.model, lk.word, lk.found_as, lk.status) for lk in table.lookups],
                        columns=["model", "word", "found_as", "status"])


@pytest.mark.parametrize("table", list(tables()), ids=lambda t: t.model)
def test_a_pickled_table_is_the_same_table(table):
    back = pickle.loads(pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    assert back.model == table.model and back.words == table.words and back.dim == table.dim
    assert np.array_equal(back.raw, table.raw) and np.array_equal(back.unit, table.unit)
    assert back.lookups == table.lookups and back.fingerprint() == table.fingerprint()
    assert [w in back for w in ("he", "xyzzy", "nurse")] == [w in table for w in ("he", "xyzzy", "nurse")]
    if table.words:
        assert np.array_equal(back.unit_vectors(table.words[::-1]), table.unit_vectors(table.words[::-1]))


@pytest.mark.parametrize("table", list(tables()), ids=lambda t: t.model)
def test_the_lookup_frame_is_the_one_row_per_lookup_frame(table):
    for t in (table, pickle.loads(pickle.dumps(table))):
        pd.testing.assert_frame_equal(t.lookup_frame(), old_frame(table), check_exact=True)


def test_the_fingerprint_is_the_hash_of_words_and_vectors_and_travels_with_the_table():
    import hashlib

    table = next(tables())
    h = hashlib.sha256()
    for w in table.words:
        h.update(w.encode("utf-8") + b"\0")
    h.update(np.ascontiguousarray(table.raw, dtype="<f8").tobytes())
    unsent = pickle.loads(pickle.dumps(table))  # not computed yet: computed where it is asked for
    assert unsent.fingerprint() == h.hexdigest()
    assert table.fingerprint() == h.hexdigest()
    sent = pickle.loads(pickle.dumps(table))
    assert sent._fingerprint == h.hexdigest()  # computed by the sender, not again here


def test_unit_vectors_are_made_where_first_asked_for_and_equal_bit_for_bit():
    table = VectorTable("m", {"a": np.array([3.0, 4.0]), "b": np.array([1e-200, 0.0])}, [])
    sent = pickle.loads(pickle.dumps(table))
    assert sent._unit is None  # not computed by the sender, so not sent
    assert np.array_equal(sent.unit, table.unit) and table.unit.tolist() == [[0.6, 0.8], [1.0, 0.0]]


def test_unit_vectors_stay_behind_even_when_made_and_come_back_the_same_bits():
    """A table whose unit vectors were made travels without them (half the bytes at any
    width); the receiver makes the same bits from ``raw``."""
    rng = np.random.default_rng(5)
    table = VectorTable("m", {f"w{i}": rng.normal(size=32) * 10.0 ** rng.integers(-150, 150) for i in range(50)}, [])
    unit = table.unit.copy()
    data = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(data) < table.raw.nbytes + unit.nbytes // 2
    sent = pickle.loads(data)
    assert sent._unit is None
    assert np.array_equal(sent.unit, unit) and sent.unit.tobytes() == unit.tobytes()


def test_the_fingerprint_of_unicode_words_and_a_strided_matrix_is_the_per_word_hash():
    """Fed in two updates and read in place, the digest is the one of the per-word updates
    (what the cache and the manifests of earlier runs hold)."""
    import hashlib

    rng = np.random.default_rng(7)
    words = ["café", "naïve", "日本", "ice cream", "a\u00a0b", "😀"]
    wide = rng.normal(size=(len(words), 10))
    table = VectorTable.from_rows("m", sorted(words), wide[:, ::2], [])  # a strided view, not contiguous
    assert not table.raw.flags.c_contiguous
    h = hashlib.sha256()
    for w in table.words:
        h.update(w.encode("utf-8") + b"\0")
    h.update(np.ascontiguousarray(table.raw, dtype="<f8").tobytes())
    assert table.fingerprint() == h.hexdigest()
    assert VectorTable("e", {}, []).fingerprint() == hashlib.sha256(b"").hexdigest()
