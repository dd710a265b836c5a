"""Gonen & Goldberg's 2019 lipstick tests (wefe_same.analysis.lipstick): known answers on
hand-built spaces, and equality with the oracle rebuilt from the authors' procedure
(tests/oracles/lipstick_authors.py) on a small model."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracles import lipstick_authors
from threadpoolctl import threadpool_limits

from wefe_same.analysis.lipstick import (
    LIPSTICK_COLUMNS,
    LipstickSettings,
    base_space,
    lipstick_table,
    most_biased,
    restrict_vocabulary,
)
from wefe_same.models.base import ModelSource
from wefe_same.validation import InvalidParameterError

#: Small enough for a fast test, large enough that every test has its words.
SMALL = LipstickSettings(words=40, train=30, test=90, neighbours=10, neighbour_words=150, vocab=1500, seeds=3)
EXCLUDE = {"king", "queen", "mother"}


class Table(ModelSource):
    """A model held as a word list and a matrix, listing its vocabulary in order."""

    has_vocabulary = True

    def __init__(self, name: str, words: list[str], vectors: np.ndarray) -> None:
        self.name, self.words, self.vectors = name, words, vectors

    def lookup(self, words):
        index = {w: i for i, w in enumerate(self.words)}
        return {w: self.vectors[index[w]] for w in words if w in index}

    def describe(self):
        return {"kind": "test"}

    def vocabulary(self, limit):
        return self.words[:limit], self.vectors[:limit]


class NoVocabulary(Table):
    has_vocabulary = False


def _words(n: int) -> list[str]:
    letters = "abcdefghijklmnop"
    made = ("".join(t) for t in itertools.product(letters, repeat=3))
    # Words the restriction drops (case, digits, punctuation, length, the excluded list)
    # among the ones it keeps, and a kept underscore phrase.
    odd = ["The", "x1", "a-b", "it's", "new_york", "king", "queen", "mother", "z" * 20]
    return ["he", "she", *odd, *itertools.islice(made, n - 2 - len(odd))]


@pytest.fixture(autouse=True)
def one_thread():
    """The oracle's k-means on one thread too, as the library runs it (and fast on busy cores)."""
    import sklearn.cluster  # noqa: F401  (loaded before the limit, so that it reaches its OpenMP)

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def small_model() -> tuple[list[str], np.ndarray, np.ndarray]:
    """A 1,600-word base whose gender sits along g and, more weakly, along h; the "debiased"
    space removes g only (hard debiasing's neutralise step), so h still carries it."""
    rng = np.random.default_rng(7)
    n, d = 1600, 16
    words = _words(n)
    g, h = np.eye(d)[0], np.eye(d)[1]
    t = rng.uniform(-1, 1, n)
    base = rng.normal(size=(n, d)) * 0.5 + np.outer(t, g) + 0.6 * np.outer(t, h)
    base[0], base[1] = 2 * g + 0.3 * rng.normal(size=d), -2 * g + 0.3 * rng.normal(size=d)
    unit = base / np.linalg.norm(base, axis=1, keepdims=True)
    debiased = unit - np.outer(unit @ g, g)
    return words, base, debiased


def test_restriction_keeps_the_authors_words():
    words = ["the", "The", "he's", "new_york", "new_york's", "1990", "she", "the", "a" * 19, "a" * 20]
    kept = restrict_vocabulary(words, {"she"}, limit=9)
    assert [words[i] for i in kept] == ["the", "new_york", "a" * 19]


def test_most_biased_in_the_authors_order():
    male, female = most_biased(np.array([0.3, -0.2, 0.1, -0.5, 0.9, -0.1]), 2)
    assert male.tolist() == [0, 4] and female.tolist() == [3, 1]


def test_equals_the_authors_procedure(small_model):
    words, base, debiased = small_model
    sources = {"m": Table("m", words, base), "m+hard-debias": Table("m+hard-debias", words, debiased)}
    table = lipstick_table([("m", "m+hard-debias", "+hard-debias")], sources, SMALL, seed=2, exclude=EXCLUDE)
    assert list(table.columns) == LIPSTICK_COLUMNS
    got = table.set_index("test")
    kw = dict(size=SMALL.words, size_train=SMALL.train, size_test=SMALL.test, neighbour_size=SMALL.neighbour_words,
              neighbours=SMALL.neighbours, limit=SMALL.vocab)
    want = lipstick_authors.oracle(words, base, words, debiased, EXCLUDE, random_state=2, **kw)
    want_base = lipstick_authors.oracle(words, base, words, base, EXCLUDE, random_state=2, **kw)
    for test in ("clustering", "classification"):
        assert got.at[test, "value"] == want[test]
        assert got.at[test, "base_value"] == want_base[test]
    for test in ("neighbours", "agreement"):
        assert got.at[test, "value"] == pytest.approx(want[test], abs=1e-12)
        assert got.at[test, "base_value"] == pytest.approx(want_base[test], abs=1e-12)
    # The spread columns hold the seeds 2, 3, 4: each the oracle's at that seed.
    before = lipstick_authors.Space(words, base)
    kept = lipstick_authors.limit_vocab(before.vocab, EXCLUDE, SMALL.vocab)
    bias = lipstick_authors.compute_bias_by_projection(before.limited(kept), before)
    after = lipstick_authors.Space(words, debiased).limited(kept)
    spread = [want["clustering"], *(lipstick_authors.clustering(bias, after, SMALL.words, s) for s in (3, 4))]
    assert got.at["clustering", "spread_min"] == min(spread) and got.at["clustering", "spread_max"] == max(spread)
    assert got.at["clustering", "vocabulary"] == 1500 - 8  # the first 1,500 words less 8 of the odd ones
    # The debiased space keeps the gender that h carries: far from chance, below the base.
    assert 0.75 < got.at["clustering", "value"] <= got.at["clustering", "base_value"] == 1.0


def test_known_answers_of_a_space_split_by_gender(small_model):
    """Male-biased words at e1 and female-biased ones at e2 (plus tiny noise): both clusters
    and the classifier are exact, every neighbour is biased the word's way, and Pearson's r
    is that of the bias with its sign."""
    words, base, _ = small_model
    space = base_space(words, base, EXCLUDE, limit=SMALL.vocab)
    rng = np.random.default_rng(1)
    split = np.where((space.bias > 0)[:, None], np.eye(16)[0], np.eye(16)[1]) + 1e-3 * rng.normal(size=(len(space.words), 16))
    index = {w: i for i, w in enumerate(space.words)}
    full = np.array([split[index[w]] if w in index else np.ones(16) for w in words])
    sources = {"m": Table("m", words, base), "v": Table("v", words, full)}
    got = lipstick_table([("m", "v", "+x")], sources, SMALL, seed=0, exclude=EXCLUDE).set_index("test")["value"]
    assert got["clustering"] == 1.0 and got["classification"] == 1.0 and got["agreement"] == 1.0
    male, female = most_biased(space.bias, SMALL.neighbour_words)
    chosen = space.bias[np.concatenate([male, female])]
    assert got["neighbours"] == pytest.approx(np.corrcoef(chosen, chosen > 0)[0, 1], abs=1e-12)


def test_too_few_words_and_no_vocabulary_give_reasons(small_model):
    words, base, debiased = small_model
    sources = {"m": Table("m", words, base), "v": Table("v", words, debiased), "r": NoVocabulary("r", words, base)}
    big = LipstickSettings(words=5000, train=5000, test=10, neighbour_words=5000, vocab=1500, seeds=1)
    table = lipstick_table([("m", "v", "+x"), ("m", "r", "+ran-debias")], sources, big, seed=0, exclude=EXCLUDE)
    assert table["value"].isna().all()
    reasons = table.set_index(["variant", "test"])["reason"]
    n_male = int((base_space(words, base, EXCLUDE, limit=1500).bias > 0).sum())
    assert reasons["v", "clustering"].startswith(f"needs 5000 male- and 5000 female-biased words; "
                                                 f"the restricted vocabulary has {n_male} and ")
    assert reasons["r", "neighbours"] == ("r (NoVocabulary) cannot list its vocabulary: the tests need the "
                                          "debiased vectors of the base's restricted vocabulary")


def test_a_variant_with_missing_or_non_finite_vectors_gives_a_reason(small_model):
    words, base, debiased = small_model
    broken = debiased.copy()
    broken[5] = np.nan  # "x1"'s row is outside the restricted vocabulary: only row 20 counts
    broken[20] = np.nan
    sources = {"m": Table("m", words, base), "nan": Table("nan", words, broken),
               "short": Table("short", words[:-200], debiased[:-200])}
    table = lipstick_table([("m", "nan", "+x"), ("m", "short", "+x")], sources, SMALL, seed=0, exclude=EXCLUDE)
    assert table["value"].isna().all()
    reasons = table.groupby("variant")["reason"].unique()
    assert list(reasons["nan"]) == [f"nan has non-finite vectors for 1 words (first: {words[20]!r})"]
    assert list(reasons["short"]) == [f"short lacks 100 of the base's words (first: {words[1400]!r})"]


def test_religion_and_race_variants_are_not_tested(small_model):
    words, base, debiased = small_model
    sources = {"m": Table("m", words, base), "v": Table("v", words, debiased)}
    table = lipstick_table([("m", "v", "+debias-religion")], sources, SMALL, seed=0, exclude=EXCLUDE)
    assert table["value"].isna().all() and list(table["test"]) == ["clustering", "classification", "neighbours",
                                                                   "agreement"]
    assert set(table["reason"]) == {"+debias-religion debiases religion; the tests read gender (he - she), "
                                    "so they are not run"}


def test_base_without_he_gives_a_reason(small_model):
    words, base, debiased = small_model
    renamed = ["hee", *words[1:]]
    sources = {"m": Table("m", renamed, base), "v": Table("v", renamed, debiased)}
    table = lipstick_table([("m", "v", "+x")], sources, SMALL, seed=0, exclude=EXCLUDE)
    assert set(table["reason"]) == {"m: the model has no vector for 'he': the lipstick tests need 'he' and 'she'"}


@pytest.mark.parametrize(("option", "message"), [
    ({"word": 3}, "The 'lipstick' parameter of rank has no setting 'word'; valid: words, train, test, neighbours, "
                  "neighbour_words, vocab, gamma, n_init, seeds."),
    ({"words": 1}, "The 'lipstick' setting 'words' of rank must be an integer >= 2. Got 1 instead."),
    ({"neighbours": True}, "The 'lipstick' setting 'neighbours' of rank must be an integer >= 1. Got True instead."),
    ({"gamma": "rbf"}, "The 'lipstick' setting 'gamma' of rank must be 'auto' or 'scale'. Got 'rbf' instead."),
])
def test_bad_settings_name_themselves(option, message):
    with pytest.raises(InvalidParameterError) as caught:
        LipstickSettings.from_option(option, "rank")
    assert str(caught.value) == message
