"""The lipstick tests (Gonen & Goldberg 2019) in the run cache (wefe_same.run.evaluators.lipstick):
a second run reads each (base, variant) pair's rows and computes no test; a model without
an identity is never cached; ``cache=False`` neither reads nor writes."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, write_glove

from wefe_same import Execution, rank
from wefe_same.analysis import lipstick as analysis_lipstick
from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.errors import WefeSameWarning
from wefe_same.models.base import ModelSource
from wefe_same.run.cache import ModelCache, lipstick_key
from wefe_same.run.evaluators import lipstick as run_lipstick
from wefe_same.run.evaluators.lipstick import lipstick_rows

SETTINGS = {"words": 20, "train": 20, "test": 60, "neighbours": 5, "neighbour_words": 40, "seeds": 2}
SMALL = LipstickSettings(**SETTINGS, vocab=1000)
WARNED = "v: 3 of the lists' words are not in the model"


def _space(n: int = 700, d: int = 8, seed: int = 3) -> tuple[list[str], np.ndarray]:
    """``n`` words whose gender runs along the first axis (he and she first)."""
    rng = np.random.default_rng(seed)
    made = ["".join(t) for t in itertools.islice(itertools.product("abcdefgh", repeat=4), n - len(GENDER_WORDS))]
    words = [*GENDER_WORDS, *made]
    return words, rng.normal(size=(n, d)) + np.outer(rng.uniform(-1, 1, n), np.eye(d)[0]) * 2


class Table(ModelSource):
    """An in-memory model that lists its vocabulary; ``identity`` None: never cached."""

    has_vocabulary = True

    def __init__(self, name: str, words: list[str], vectors: np.ndarray, identity: dict | None = None,
                 warn: str | None = None) -> None:
        self.name, self.words, self.vectors, self._identity, self._warn = name, words, vectors, identity, warn

    def lookup(self, words):
        index = {w: i for i, w in enumerate(self.words)}
        return {w: self.vectors[index[w]] for w in words if w in index}

    def describe(self):
        return {"kind": "test"}

    def identity(self):
        return self._identity

    def vocabulary(self, limit):
        if self._warn:
            warnings.warn(self._warn, WefeSameWarning, stacklevel=2)
        return self.words[:limit], self.vectors[:limit]


@pytest.fixture(scope="module")
def sources() -> dict[str, Table]:
    words, base = _space()
    unit = base / np.linalg.norm(base, axis=1, keepdims=True)
    debiased = unit - np.outer(unit[:, 0], np.eye(8)[0]) + 0.3 * np.outer(unit[:, 0], np.eye(8)[1])
    return {"m": Table("m", words, base, {"kind": "test", "model": "m"}),
            "v": Table("v", words, debiased, {"kind": "test", "model": "v"}, warn=WARNED),
            "r": Table("r", words, debiased, {"kind": "test", "model": "r"}),
            "anon": Table("anon", words, debiased)}


def _refuse(*args, **kwargs):
    raise AssertionError("a lipstick test was computed: the cache should have answered")


def test_a_second_call_reads_every_pair_and_computes_nothing(sources, tmp_path, monkeypatch):
    pairs = [("m", "v", "+hard-debias"), ("m", "r", "+debias-religion")]
    cache = ModelCache(tmp_path / "cache")
    with pytest.warns(WefeSameWarning, match=WARNED):
        first = lipstick_rows(pairs, sources, SMALL, seed=4, cache=cache)
    # The same table as the uncached function's, with the variant's warning given once.
    with pytest.warns(WefeSameWarning, match=WARNED):
        plain = analysis_lipstick.lipstick_table(pairs, sources, SMALL, seed=4)
    pd.testing.assert_frame_equal(first, plain, check_exact=True)
    assert first["value"].notna().sum() == 4 and first["reason"].notna().sum() == 4
    entries = cache.entries()
    assert [p.parent.parent.name for p in entries] == ["lipstick", "lipstick"]
    monkeypatch.setattr(run_lipstick, "lipstick_table", _refuse)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        second = lipstick_rows(pairs, sources, SMALL, seed=4, cache=cache)
    pd.testing.assert_frame_equal(second, first, check_exact=True)
    assert [str(w.message) for w in caught] == [WARNED]  # stored with the rows, given again
    assert cache.entries() == entries
    # Another seed, other settings: other keys, so computed (and the refusal says so).
    for seed, settings in ((5, SMALL), (4, LipstickSettings(**{**SETTINGS, "seeds": 1}, vocab=1000))):
        with pytest.raises(AssertionError, match="a lipstick test was computed"):
            lipstick_rows(pairs[:1], sources, settings, seed=seed, cache=cache)


def test_a_pair_with_a_model_without_identity_is_computed_every_time(sources, tmp_path, monkeypatch):
    pairs = [("m", "anon", "+hard-debias"), ("m", "r", "+hard-debias")]
    cache = ModelCache(tmp_path / "cache")
    asked: list[list[tuple[str, str, str]]] = []

    def counted(group, *args, **kwargs):
        asked.append(list(group))
        return analysis_lipstick.lipstick_table(group, *args, **kwargs)

    monkeypatch.setattr(run_lipstick, "lipstick_table", counted)
    first = lipstick_rows(pairs, sources, SMALL, seed=0, cache=cache)
    second = lipstick_rows(pairs, sources, SMALL, seed=0, cache=cache)
    assert asked == [pairs, pairs[:1]]  # the anonymous variant's pair again, the other from the cache
    assert len(cache.entries()) == 1
    pd.testing.assert_frame_equal(second, first, check_exact=True)
    assert list(first["variant"]) == ["anon"] * 4 + ["r"] * 4 and first["value"].notna().all()


def test_lipstick_key_holds_every_input():
    args = ({"kind": "a"}, {"kind": "b"}, ("m", "v", "+x"), SMALL.to_dict(), 0, ["he"], {"scikit-learn": "1"})
    key = lipstick_key(*args)
    assert lipstick_key(*args) == key and len(key) == 64
    assert lipstick_key(*args[:5], ["he", "he"], args[6]) == key  # the words as a set
    changed = [({"kind": "a2"}, 0), ({"kind": "b2"}, 1), (("m", "v2", "+x"), 2),
               ({**SMALL.to_dict(), "gamma": "scale"}, 3), (1, 4), (["she"], 5), ({"scikit-learn": "2"}, 6)]
    for value, at in changed:
        other = list(args)
        other[at] = value
        assert lipstick_key(*other) != key, at


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    words, vectors = _space()
    return write_glove(tmp_path_factory.mktemp("model") / "m.txt", words, vectors)


def _rank(model_file, toy_query, cache):
    models = [f"glove:{model_file}", f"glove:{model_file}+hard-debias"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the hard-debias lists' words the small model lacks
        return rank(models, [toy_query], metrics=["WEAT"], permutations=0, lipstick=SETTINGS,
                    execution=Execution(cache=cache, progress=False)).debias_lipstick


def _state(folder) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_cached_rerun_computes_no_lipstick_test_and_no_cache_neither_reads_nor_writes(
        model_file, toy_query, tmp_path, monkeypatch):
    root = tmp_path / "cache"
    first = _rank(model_file, toy_query, cache=root)
    assert len(list(root.rglob("lipstick/*/*.entry"))) == 1
    monkeypatch.setattr(run_lipstick, "lipstick_table", _refuse)
    pd.testing.assert_frame_equal(_rank(model_file, toy_query, cache=root), first, check_exact=True)
    # cache=False (--no-cache): computed, though the default cache directory holds the entry.
    asked = []

    def counted(group, *args, **kwargs):
        asked.append(list(group))
        return analysis_lipstick.lipstick_table(group, *args, **kwargs)

    monkeypatch.setattr(run_lipstick, "lipstick_table", counted)
    monkeypatch.setenv("WEFE_SAME_CACHE", str(root))
    os.utime(next(root.rglob("lipstick/*/*.entry")), ns=(1, 1))  # a read would set the time of use
    before = _state(root)
    pd.testing.assert_frame_equal(_rank(model_file, toy_query, cache=False), first, check_exact=True)
    assert asked == [[("m", "m+hard-debias", "+hard-debias")]]
    assert _state(root) == before
