"""A word that some models have and others lack, within --missing-threshold: warned once per
set, naming the words and the models that lack them, and marked in the report's coverage
table (issue 39 item 5)."""

from __future__ import annotations

import warnings
from html.parser import HTMLParser

import numpy as np
import pytest
from conftest import GENDER_WORDS

from wefe_same import Execution
from wefe_same.api import rank
from wefe_same.errors import WefeSameWarning
from wefe_same.models import ArraySource
from wefe_same.query.sets import Query, WordSet

CAREER = ["doctor", "engineer", "good", "happy", "managment"]  # the typo: in one model only


class Page(HTMLParser):
    """The text nodes of a piece of HTML."""

    def __init__(self, html: str):
        super().__init__()
        self.text: list[str] = []
        self.feed(html)

    def handle_data(self, data):
        self.text.append(data)


def _source(name: str, seed: int, extra: tuple[str, ...] = ()) -> ArraySource:
    words = [*GENDER_WORDS, *extra]
    return ArraySource(name, words, np.random.default_rng(seed).normal(size=(len(words), 8)))


def _query(career=CAREER) -> Query:
    return Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                 [WordSet("career", career), WordSet("care", ["nurse", "teacher", "bad", "sad", "happy"])],
                 name="typo")


def _rank(tmp_path, query, **options):
    models = [_source("has-it", 1, ("managment",)), _source("lacks-1", 2), _source("lacks-2", 3)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WefeSameWarning)
        result = rank(models, [query], metrics=["WEAT", "RND", "SAME"], permutations=0, **options,
                      execution=Execution(progress=False, cache=False))
    said = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
    return result, said


def test_a_word_in_one_model_only_is_warned_once_per_set(tmp_path):
    result, said = _rank(tmp_path, _query())
    about = [m for m in said if m.startswith("set 'career':")]
    # once for the set, though three metrics (four subqueries) score it
    assert about == [
        "set 'career': 'managment' is not in 'lacks-1', 'lacks-2' (2 of 3 models), which score the set without it "
        "(within --missing-threshold 0.2): the models are scored on different words (--shared-words: on the "
        "words all have)"]
    assert not any(m.startswith("set 'care':") for m in said)  # every model has every word of it
    assert about[0] in result.warnings and about[0] in result.manifest["warnings"]
    # the models really were scored on different words: 'managment' is used in has-it only
    lookups = result.lookups[result.lookups["word"] == "managment"].set_index("model")["status"]
    assert lookups.to_dict() == {"has-it": "exact", "lacks-1": "missing", "lacks-2": "missing"}


def test_the_coverage_table_marks_the_uneven_word(tmp_path):
    result, _ = _rank(tmp_path, _query())
    out = result.save(tmp_path / "r", formats=())
    text = (out / "report.html").read_text(encoding="utf-8")
    coverage = text[text.index('<section id="coverage">'):text.index('<section id="warnings">')]
    rows = {Page(row).text[0]: Page(row).text for row in coverage.split("<tr>")[2:]}
    assert rows["has-it"][-2:] == ["1‡", "has, another model lacks: managment"]
    for model in ("lacks-1", "lacks-2"):
        assert "managment‡" in rows[model]  # its list of words not found marks the uneven word
        assert rows[model][-2:] == ["1‡", "lacks, another model has: managment"]
    assert "--shared-words" in Page(coverage).text[1]


def test_shared_words_evens_them_out(tmp_path):
    _, said = _rank(tmp_path, _query(), shared_words=True)
    assert not any(m.startswith("set 'career':") for m in said)


def test_beyond_the_threshold_the_model_is_not_named(tmp_path):
    """A set that loses more than the threshold is NaN in that model (another warning says so)."""
    _, said = _rank(tmp_path, _query(), missing_threshold=0.1)
    assert not any(m.startswith("set 'career':") for m in said)
    _, said = _rank(tmp_path, _query(["doctor", "engineer", "managment", "typo2"]), missing_threshold=0.3)
    assert not any(m.startswith("set 'career':") for m in said)  # lacks-* lose 2 of 4 > 30%; has-it 1 of 4 alone


@pytest.mark.parametrize("career", [["doctor", "engineer", "good", "happy", "nowhere"], CAREER[:-1]])
def test_a_word_no_model_has_or_every_model_has_is_not_uneven(tmp_path, career):
    _, said = _rank(tmp_path, _query(career))
    assert not any(m.startswith("set 'career':") for m in said)
