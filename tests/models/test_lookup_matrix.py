"""An encoder's vectors as one matrix (:meth:`EncoderSource.lookup_matrix`) and the table
built from it (:func:`wefe_same.scoring.vectors.build_table`): the same bytes as the
per-word path.

Two oracles: a word alone in the template ``{word}`` is the same text as the word itself,
so the general path (templates, a dict entry per text) must give the default path's bytes;
and a table built from a matrix must equal the one built from ``lookup``'s dict, statuses
included (NaN, inf, zero, an overflowing norm, a word without a vector).
"""

from __future__ import annotations

import numpy as np
import pytest
from tiny_transformers import KINDS

from wefe_same.models import LoadOptions, resolve_model
from wefe_same.models.base import ModelSource
from wefe_same.scoring.vectors import build_table

WORDS = sorted(["physician", "homemaker", "programmer", "ice cream", "naïve", "she", "nurse", "He", "a"])

pytestmark = pytest.mark.usefixtures("module_encoder_cache")


def _same_tables(a, b):
    assert a.words == b.words and a.lookups == b.lookups and a.model == b.model
    assert a.raw.dtype == b.raw.dtype == np.float64 and a.raw.shape == b.raw.shape
    assert a.raw.tobytes() == b.raw.tobytes() and a.unit.tobytes() == b.unit.tobytes()


class _PerWord(ModelSource):
    """The same source without ``lookup_matrix``: build_table takes the per-word path."""

    open_vocabulary = True

    def __init__(self, inner):
        self.inner, self.name = inner, inner.name

    def lookup(self, words):
        return self.inner.lookup(words)

    def describe(self):
        return {}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("pooling", ["mean", "word-mean"])
def test_a_word_alone_gives_the_bytes_of_the_word_in_the_template_word(tiny, kind, pooling):
    alone = resolve_model(f"hf:{tiny[kind]},pooling={pooling}", LoadOptions(cache=False))
    templated = resolve_model(f"hf:{tiny[kind]},pooling={pooling}", LoadOptions(cache=False, templates=["{word}"]))
    matrix, has = alone.lookup_matrix(WORDS)
    t_matrix, t_has = templated.lookup_matrix(WORDS)
    assert has.all() and np.array_equal(has, t_has)
    assert matrix.dtype == np.float64 and matrix.tobytes() == t_matrix.tobytes()
    found = alone.lookup(reversed(WORDS))  # any order, the same vectors
    assert list(found) == WORDS
    assert all(found[w].tobytes() == matrix[i].tobytes() for i, w in enumerate(WORDS))
    _same_tables(build_table(alone, WORDS), build_table(_PerWord(alone), WORDS))


def test_lookup_matrix_takes_sorted_distinct_words_only(tiny):
    source = resolve_model(f"hf:{tiny['bert']}", LoadOptions(cache=False))
    for words in (["she", "he"], ["he", "he"]):
        with pytest.raises(ValueError, match="sorted, distinct"):
            source.lookup_matrix(words)
    matrix, has = source.lookup_matrix([])
    assert matrix.shape == (0, 0) and has.shape == (0,)


class _Rows(ModelSource):
    """An open vocabulary with one vector per word from a dict, as rows or per word."""

    open_vocabulary = True
    name = "rows"

    def __init__(self, vectors, as_matrix):
        self.vectors, self.as_matrix = vectors, as_matrix

    def lookup(self, words):
        return {w: self.vectors[w] for w in words if w in self.vectors}

    def lookup_matrix(self, words):
        if not self.as_matrix:
            return None
        d = 4
        matrix = np.array([self.vectors.get(w, np.zeros(d)) for w in words], dtype=np.float64).reshape(len(words), d)
        return matrix, np.array([w in self.vectors for w in words], dtype=bool)

    def describe(self):
        return {}


@pytest.mark.parametrize("drop", [(), ("a", "b", "c", "d", "e", "f", "g"), ("a", "b", "c", "d", "e", "f", "g", "h")])
def test_a_table_from_rows_has_the_statuses_and_bytes_of_the_per_word_path(drop):
    rng = np.random.default_rng(3)
    vectors = {
        "a": rng.normal(size=4), "b": np.array([np.nan, 1.0, 2.0, 3.0]), "c": np.array([np.inf, 0.0, 0.0, 0.0]),
        "d": np.zeros(4), "e": np.full(4, 1e300),  # a norm past the plain sum of squares: usable
        "f": np.full(4, 1.5e308),  # finite entries, a norm past the largest float
        "g": -0.0 * np.ones(4), "h": rng.normal(size=4) * 1e-200,
    }
    vectors = {w: v for w, v in vectors.items() if w not in drop}
    words = ["a", "b", "c", "d", "e", "f", "g", "h", "missing"]
    rows = build_table(_Rows(vectors, as_matrix=True), words)
    _same_tables(rows, build_table(_Rows(vectors, as_matrix=False), words))
    expected = {"a": "exact", "b": "non-finite vector", "c": "non-finite vector", "d": "zero vector",
                "e": "exact", "f": "non-finite vector", "g": "zero vector", "h": "exact", "missing": "missing"}
    assert {lk.word: lk.status for lk in rows.lookups} == {w: "missing" if w in drop else s for w, s in expected.items()}
    assert rows.dim == (0 if set(drop) >= {"a", "e", "h"} else 4)
