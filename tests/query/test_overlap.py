"""Sets of one query that share words are named when the queries are loaded (issue 15,
item 6): such a query's scores are meaningless. The bundled ethnicity file's white and
black surname lists share 19 of 20 words in their source (Garg et al. 2018's data)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import GENDER_WORDS

from wefe_same import Execution, Query, WordSet, load_queries, rank
from wefe_same.errors import WefeSameWarning
from wefe_same.models import ArraySource

FILE = """
[sets.a]
words = ["he", "man", "boy"]
[sets.b]
words = ["she", "man", "boy"]
[sets.good]
words = ["happy", "kind"]
[sets.bad]
words = ["sad", "kind"]
[[queries]]
name = "q1"
targets = ["a", "b"]
attributes = ["good", "bad"]
"""


def overlap_messages(spec) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_queries(spec)
    return [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]


def test_shared_target_and_attribute_words_are_named_with_the_file(tmp_path):
    path = tmp_path / "overlap.toml"
    path.write_text(FILE)
    assert overlap_messages(str(path)) == [
        f"{path}: target sets 'a' and 'b' share 2 words: man, boy (query 'q1')",
        f"{path}: attribute sets 'good' and 'bad' share 1 word: kind (query 'q1')",
    ]


def test_a_target_word_that_is_also_an_attribute_word_is_named():
    query = Query([WordSet("m", ["he"]), WordSet("f", ["she"])], [WordSet("x", ["he", "doctor"])], name="q")
    assert overlap_messages([query]) == ["queries: target set 'm' and attribute set 'x' share 1 word: he (query 'q')"]


def test_disjoint_sets_give_no_warning():
    query = Query([WordSet("m", ["he"]), WordSet("f", ["she"])], [WordSet("x", ["doctor"])])
    assert overlap_messages([query]) == []


def test_a_long_overlap_stays_short():
    words = [f"w{i}" for i in range(50_000)]
    query = Query([WordSet("m", words), WordSet("f", words)], [WordSet("x", ["doctor"])], name="q")
    (message,) = overlap_messages([query])
    assert "share 50000 words: w0, w1," in message and "… and 49990 more (50000 in all)" in message
    assert len(message) < 300


def test_the_bundled_ethnicity_file_names_the_shared_surnames():
    messages = overlap_messages("ethnicity")
    (surnames,) = [m for m in messages if "'names_white' and 'names_black'" in m]
    assert "share 19 words: harris, robinson" in surnames and "eth_1" in surnames and "eth_4" in surnames


def test_rank_records_the_warning_in_the_manifest():
    query = Query([WordSet("m", ["he", "man"]), WordSet("f", ["she", "man"])], [WordSet("x", ["doctor", "nurse"])],
                  name="q")
    source = ArraySource("s", GENDER_WORDS, np.random.default_rng(0).normal(size=(len(GENDER_WORDS), 4)))
    with pytest.warns(WefeSameWarning, match="share 1 word: man"):
        result = rank([source], [query], metrics=["SAME"], execution=Execution(cache=False, progress=False))
    assert "queries: target sets 'm' and 'f' share 1 word: man (query 'q')" in result.manifest["warnings"]
