"""Shared words: every model scored on the words all models have (issue: fair comparisons)."""

import numpy as np

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.models import ArraySource

WORDS = ["he", "man", "boy", "she", "woman", "girl", "doctor", "engineer", "pilot", "nurse", "teacher", "dancer"]
METRICS = ["WEAT", "WEAT-ES", "RND", "MAC", "SAME", "DirectBias", "RIPA", "gWEAT"]


def query(drop=()):
    def ws(name, words, aligned=False):
        return WordSet(name, [w for w in words if w not in drop], aligned=aligned)

    return Query([ws("male", ["he", "man", "boy"], True), ws("female", ["she", "woman", "girl"], True)],
                 [ws("career", ["doctor", "engineer", "pilot"]), ws("care", ["nurse", "teacher", "dancer"])],
                 name="q")


def sources(lacking=None):
    rng = np.random.default_rng(7)
    out = []
    for i in range(3):
        matrix = rng.normal(size=(len(WORDS), 6))
        keep = [j for j, w in enumerate(WORDS) if not (i == 2 and w == lacking)]
        out.append(ArraySource(f"m{i}", [WORDS[j] for j in keep], matrix[keep]))
    return out


def test_shared_words_equal_the_query_without_the_missing_word():
    shared = rank(sources(lacking="engineer"), [query()], METRICS, shared_words=True, permutations=0,
                  missing_threshold=0.5, execution=Execution(cache=False))
    removed = rank(sources(), [query(drop=("engineer",))], METRICS, permutations=0, missing_threshold=0.5,
                   execution=Execution(cache=False))
    for metric in METRICS:
        np.testing.assert_allclose(shared.scores[metric].to_numpy(), removed.scores[metric].to_numpy(),
                                   rtol=0, atol=1e-15, err_msg=metric)
    lookups = shared.lookups.set_index(["model", "word"])["status"]
    assert lookups[("m0", "engineer")] == "not shared" and lookups[("m2", "engineer")] == "missing"
    assert [m["words_not_shared"] for m in shared.manifest["models"]] == [1, 1, 0]
    assert shared.manifest["settings"]["shared_words"] is True


def test_an_aligned_tuple_goes_whole():
    """m2 lacks "girl": "boy" goes too, for every metric and every model."""
    shared = rank(sources(lacking="girl"), [query()], METRICS, shared_words=True, permutations=0,
                  missing_threshold=0.5, execution=Execution(cache=False))
    removed = rank(sources(), [query(drop=("boy", "girl"))], METRICS, permutations=0, missing_threshold=0.5,
                   execution=Execution(cache=False))
    for metric in METRICS:
        np.testing.assert_allclose(shared.scores[metric].to_numpy(), removed.scores[metric].to_numpy(),
                                   rtol=0, atol=1e-15, err_msg=metric)


def test_without_shared_words_a_model_on_fewer_subqueries_is_flagged():
    # m2 lacks "engineer"; a strict threshold makes its subqueries with "career" NaN.
    result = rank(sources(lacking="engineer"), [query()], ["WEAT", "RND"], permutations=0, missing_threshold=0.0,
                  execution=Execution(cache=False))
    table = result.by_query_set.set_index(["metric", "model", "query_set"])
    assert table.at[("RND", "m2", "overall"), "n_defined"] < table.at[("RND", "m0", "overall"), "n_defined"]
    assert bool(table.at[("RND", "m2", "overall"), "fewer_defined"])
    assert not table.loc[(slice(None), ["m0", "m1"], slice(None)), "fewer_defined"].any()
