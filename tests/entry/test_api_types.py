"""The Python API takes what a Python user passes (issue 27): NumPy scalars, ``Path``
objects, tuples and generators where lists are taken; a string where a list of words is
expected is refused, never split into letters; a wrong type is a ``TypeError`` naming the
parameter (and still a ``ValueError``, as every bad argument was before)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, write_glove

from wefe_same import Execution, Query, WordSet, export_vectors, load_model, rank
from wefe_same.errors import QueryError
from wefe_same.validation import InvalidParameterError, ParameterTypeError


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    for i in range(2):
        write_glove(tmp_path / f"m{i}.txt", GENDER_WORDS, np.random.default_rng(i).normal(size=(12, 5)))
    return tmp_path


FAST = dict(permutations=0, execution=Execution(cache=False, progress=False))


@pytest.mark.parametrize(("kwargs", "param"), [
    (dict(models=5), "models"),
    (dict(models=b"glove-6b-50d"), "models"),  # bytes are not split into numbers
    (dict(models={"a": "m0.txt"}), "models"),
    (dict(models=["m0.txt", 3.5]), "models"),
    (dict(queries=5), "queries"),
    (dict(queries=[Path("mini.toml"), 7]), "queries"),
    (dict(metrics=5), "metrics"),
    (dict(metrics=("WEAT", None)), "metrics"),
    (dict(quality=5), "quality"),
    (dict(seed="1"), "seed"),
    (dict(seed=1.0), "seed"),
    (dict(ties=5), "ties"),
    (dict(shared_words=1), "shared_words"),
    (dict(missing_threshold="0.2"), "missing_threshold"),
])
def test_a_wrong_type_is_a_type_error_naming_the_parameter(folder, kwargs, param):
    with pytest.raises(TypeError, match=f"^The '{param}' parameter of rank must be") as err:
        rank(**{"models": "m0.txt", "queries": "mini.toml", **kwargs}, **FAST)
    assert isinstance(err.value, ParameterTypeError) and isinstance(err.value, ValueError)
    assert "\n" not in str(err.value) and "not iterable" not in str(err.value)


def test_a_wrong_value_of_the_right_type_stays_a_value_error_only(folder):
    with pytest.raises(InvalidParameterError) as err:
        rank("m0.txt", queries="mini.toml", seed=-1, **FAST)
    assert not isinstance(err.value, TypeError)


def test_numpy_scalars_paths_tuples_and_generators_give_the_run_of_plain_values(folder):
    plain = rank(["m0.txt", "m1.txt"], queries="mini.toml", metrics=["WEAT", "SAME"], seed=3,
                 missing_threshold=0.3, bootstrap=4, shared_words=True, **FAST)
    given = rank((Path(f"m{i}.txt") for i in range(2)), queries=(Path("mini.toml"),),
                 metrics=iter(np.array(["WEAT", "SAME"])), seed=np.int64(3), missing_threshold=np.float64(0.3),
                 bootstrap=np.int32(4), shared_words=np.True_, permutations=np.int64(0),
                 execution=Execution(cache=False, progress=False))
    pd.testing.assert_frame_equal(plain.aggregates, given.aggregates)
    pd.testing.assert_frame_equal(plain.aggregates_ci, given.aggregates_ci)
    assert type(given.manifest["seed"]) is int and given.manifest["settings"]["bootstrap"] == 4
    assert type(given.manifest["settings"]["bootstrap"]) is int
    saved = json.loads((given.save(folder / "out", formats=["svg"]) / "manifest.json").read_text())
    assert saved["seed"] == 3 and saved["settings"]["shared_words"] is True


def test_a_tuple_of_models_with_a_models_file(folder):
    (folder / "zoo.csv").write_text("spec\nm1.txt\n")
    result = rank(("m0.txt",), queries="mini.toml", metrics="WEAT", models_file=Path("zoo.csv"), **FAST)
    assert list(result.rankings.index) == ["m0", "m1"]


def test_load_model_and_export_take_paths_and_any_iterable_of_words(folder):
    assert load_model(Path("m0.txt")).name == "m0"
    assert export_vectors(Path("m0.txt"), ("he", "she"), Path("a.txt")) == (2, [])
    assert export_vectors(folder / "m0.txt", (w for w in ["he", "qq"]), folder / "b.txt") == (1, ["qq"])
    assert (folder / "b.txt").read_text().startswith("1 5\nhe ")


@pytest.mark.parametrize(("call", "param"), [
    (lambda: load_model(5), "spec"),
    (lambda: load_model("m0.txt", seed="0"), "seed"),
    (lambda: export_vectors("m0.txt", ["he", 5], "c.txt"), "words"),
    (lambda: export_vectors("m0.txt", b"he", "c.txt"), "words"),
    (lambda: export_vectors("m0.txt", ["he"], 5), "out"),
    (lambda: export_vectors("m0.txt", ["he"], "c.txt", force="yes"), "force"),
])
def test_load_model_and_export_name_the_parameter(folder, call, param):
    with pytest.raises(TypeError, match=f"^The '{param}' parameter of (load_model|export_vectors) must be"):
        call()
    assert not (folder / "c.txt").exists()


def test_word_sets_take_any_iterable_and_refuse_one_string_or_a_number():
    assert WordSet("x", (w for w in ["a", "b"])).words == ("a", "b")
    assert all(type(w) is str for w in WordSet("x", np.array(["a", "b"])).words)
    with pytest.raises(QueryError, match="words must be a list of strings, not one string"):
        WordSet("x", "abc")
    with pytest.raises(TypeError, match="^The 'words' parameter of WordSet must be a list of strings. Got 5"):
        WordSet("x", 5)
    with pytest.raises(TypeError, match="^The 'targets' parameter of Query must be a sequence of WordSet"):
        Query(WordSet("a", ["x"]), [WordSet("c", ["z"])])
    query = Query((WordSet("a", ["x"]), WordSet("b", ["y"])), (s for s in [WordSet("c", ["z"])]))
    assert [s.name for s in query.attributes] == ["c"]
