"""Manzini et al. 2019 multiclass hard debiasing (``+debias-religion``, ``+debias-race``).

The oracle below is written from the paper's algorithm, independently of
wefe_same.models.debias: it rewrites a whole (small) matrix in place, with sklearn's PCA
for the subspace, and the lazy variant must agree with it word for word.
"""

import numpy as np
import pytest

from wefe_same import Execution, ModelError
from wefe_same.api import rank
from wefe_same.models import ArraySource, default_models, resolve_model
from wefe_same.models.debias import (
    MULTICLASS_VARIANTS,
    HardDebiasedSource,
    MulticlassHardDebiasedSource,
    manzini_debiased,
)
from wefe_same.query.files import load_queries
from wefe_same.validation import InvalidParameterError

FOLDS = (str.lower, str.title, str.upper)


def reference_multiclass_debias(words, matrix, defining, equalize_sets, specific, k):
    """Manzini et al.'s hard debiasing of every row of ``matrix``: normalise all rows; the
    bias subspace is the first k principal components of the defining sets, each centred
    on its own mean; neutralise every word that is not specific (specific = the given
    words, the defining and the equality words, each in lower, title and upper case);
    equalise each equality set (in each casing) over its words present in ``words``."""
    from sklearn.decomposition import PCA

    E = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    row = {w: i for i, w in enumerate(words)}
    centred = []
    for s in defining:
        vs = np.array([E[row[w]] for w in s if w in row])
        centred.extend(vs - vs.mean(axis=0))
    B = PCA(n_components=k).fit(np.array(centred)).components_
    P = B.T @ B  # projector on the bias subspace
    kept = set(specific) | {w for s in (*defining, *equalize_sets) for w in s}
    kept = {fold(w) for w in kept for fold in FOLDS} | kept
    for i, w in enumerate(words):
        if w not in kept:
            E[i] = E[i] - P @ E[i]
            E[i] /= np.linalg.norm(E[i])
    for s in equalize_sets:
        for fold in FOLDS:
            members = [row[fold(w)] for w in s if fold(w) in row]
            if len(members) < 2:
                continue
            mu = E[members].mean(axis=0)
            nu = mu - P @ mu
            for i in members:
                offset = P @ E[i] - P @ mu
                E[i] = nu + np.sqrt(1 - nu @ nu) * offset / np.linalg.norm(offset)
    return dict(zip(words, E)), B


# --- a small random embedding with planted classes ------------------------------------

DEFINING = [("judaism", "christianity", "islam"), ("jew", "christian", "muslim"),
            ("synagogue", "church", "mosque"), ("torah", "bible", "quran")]
SPECIFIC = ["pope", "jihad"]
NEUTRAL = ["doctor", "greedy", "peace", "violent", "table", "familial", "cheap", "love"]
# "Church" and "Mosque" form a title-case equality set (no "Synagogue" in the model).
TOY_WORDS = [w for s in DEFINING for w in s] + ["Church", "Mosque"] + SPECIFIC + NEUTRAL


def toy_matrix(d=12, seed=0):
    rng = np.random.default_rng(seed)
    classes = rng.normal(size=(3, d)) * 2.0  # a planted direction per class
    rows = []
    for w in TOY_WORDS:
        hit = [j for s in DEFINING for j, x in enumerate(s) if x == w.lower()]
        rows.append(rng.normal(size=d) + (classes[hit[0]] if hit else 0.3 * classes[rng.integers(3)]))
    return np.array(rows)


def toy_variant(matrix, **kwargs):
    options = dict(defining=DEFINING, equalize_sets=DEFINING, specific=SPECIFIC, variant="+debias-toy")
    return MulticlassHardDebiasedSource(ArraySource("toy", TOY_WORDS, matrix), **{**options, **kwargs})


def test_lazy_lookup_equals_the_full_matrix_oracle_on_a_planted_embedding():
    matrix = toy_matrix()
    expected, B = reference_multiclass_debias(TOY_WORDS, matrix.copy(), DEFINING, DEFINING, SPECIFIC, k=2)
    variant = toy_variant(matrix)
    assert variant.k == 2 and variant.subspace.shape == (2, 12)
    # The same subspace as the oracle's PCA (the projectors agree).
    np.testing.assert_allclose(variant.subspace.T @ variant.subspace, B.T @ B, atol=1e-12)
    # Whatever batch a run asks for: one neutral word, one equality word, everything.
    for batch in (["doctor"], ["islam"], ["Mosque", "table"], ["pope", "quran", "love"], TOY_WORDS):
        got = variant.lookup(batch + ["unknown"])
        assert sorted(got) == sorted(batch)
        for w, v in got.items():
            np.testing.assert_allclose(v, expected[w], atol=1e-10, rtol=0, err_msg=w)
    got = variant.lookup(TOY_WORDS)
    S = variant.subspace
    for w in NEUTRAL:  # neutralised: nothing left in the subspace
        assert np.abs(S @ got[w]).max() < 1e-12
        assert abs(np.linalg.norm(got[w]) - 1) < 1e-12
    for w in SPECIFIC:  # kept, only normalised
        np.testing.assert_allclose(got[w], matrix[TOY_WORDS.index(w)] / np.linalg.norm(matrix[TOY_WORDS.index(w)]))
    for s in (*DEFINING, ("Church", "Mosque")):  # equalised: one shared part off the subspace
        off = [got[w] - S.T @ (S @ got[w]) for w in s]
        for o, w in zip(off, s):
            np.testing.assert_allclose(o, off[0], atol=1e-12)
            assert abs(np.linalg.norm(got[w]) - 1) < 1e-12
        # ... so every neutral word is equally similar to every word of the set.
        sims = [got["doctor"] @ got[w] for w in s]
        assert max(sims) - min(sims) < 1e-12


def test_vocabulary_is_the_whole_matrix_and_agrees_with_lookup():
    matrix = toy_matrix(seed=1)
    expected, _ = reference_multiclass_debias(TOY_WORDS, matrix.copy(), DEFINING, DEFINING, SPECIFIC, k=2)
    variant = toy_variant(matrix)
    words, vectors = variant.vocabulary(None)
    assert words == TOY_WORDS and vectors.dtype == np.float32
    for w, v in zip(words, vectors):
        np.testing.assert_allclose(v, expected[w], atol=1e-6, err_msg=w)
    # A limit that cuts equality sets: the rows kept still equal lookup (the set's other
    # words are read from the base, not dropped).
    words, vectors = variant.vocabulary(5)
    assert words == TOY_WORDS[:5]
    lookup = variant.lookup(words)
    for w, v in zip(words, vectors):
        np.testing.assert_allclose(v, lookup[w], atol=1e-6, err_msg=w)


def test_the_binary_case_is_bolukbasi_hard_debiasing():
    """n = 2 classes and k = 1 give HardDebiasedSource's vectors (when the equalise words
    are specific, as Manzini's defining words always are)."""
    rng = np.random.default_rng(2)
    words = ["she", "he", "woman", "man", "queen", "king", "Queen", "King", "doctor", "nurse", "table"]
    matrix = rng.normal(size=(len(words), 7))
    definitional, pairs = [("she", "he"), ("woman", "man")], [("queen", "king")]
    specific = {"she", "he", "woman", "man", "queen", "king", "Queen", "King"}
    base = ArraySource("toy", words, matrix)
    bolukbasi = HardDebiasedSource(base, definitional=definitional, equalize_pairs=pairs, gender_specific=specific)
    manzini = MulticlassHardDebiasedSource(base, defining=definitional, equalize_sets=pairs, specific=specific)
    assert manzini.k == 1
    np.testing.assert_allclose(manzini.subspace[0], bolukbasi.direction, atol=1e-15)
    expected = bolukbasi.lookup(words)
    for w, v in manzini.lookup(words).items():
        np.testing.assert_allclose(v, expected[w], atol=1e-12, err_msg=w)


def test_signs_are_fixed_and_runs_byte_identical():
    matrix = toy_matrix(seed=3)
    a, b = toy_variant(matrix), toy_variant(matrix.copy())
    for row in a.subspace:
        assert row[np.argmax(np.abs(row))] > 0
    assert a.subspace.tobytes() == b.subspace.tobytes()
    va, vb = a.lookup(TOY_WORDS), b.lookup(list(reversed(TOY_WORDS)))
    assert all(va[w].tobytes() == vb[w].tobytes() for w in TOY_WORDS)


def test_bad_lists_and_a_model_without_the_defining_words():
    base = ArraySource("tiny", ["doctor", "table", "islam"], np.eye(3))
    variant = MulticlassHardDebiasedSource(base, defining=DEFINING, equalize_sets=DEFINING,
                                           variant="+debias-religion")
    with pytest.raises(ModelError) as err:
        variant.lookup(["doctor"])
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("model 'tiny' lacks the defining words of the +debias-religion variant")
    assert "'tiny+debias-religion'" in message
    with pytest.raises(ModelError, match="model 'tiny' lacks"):
        manzini_debiased(base, "race").lookup(["doctor"])
    with pytest.raises(InvalidParameterError, match="'equalize_sets' parameter .* disjoint .*'asian'"):
        MulticlassHardDebiasedSource(base, defining=DEFINING, equalize_sets=[("black", "asian"), ("asian", "white")])
    with pytest.raises(InvalidParameterError, match="'defining' parameter"):
        MulticlassHardDebiasedSource(base, defining=[("a", "b"), ("c", "d", "e")], equalize_sets=[])
    with pytest.raises(InvalidParameterError, match="'k' parameter .* Got 0 instead"):
        MulticlassHardDebiasedSource(base, defining=DEFINING, equalize_sets=[], k=0)
    with pytest.raises(InvalidParameterError, match="'group' parameter of manzini_debiased"):
        manzini_debiased(base, "gender")  # type: ignore[arg-type]


class IdentifiedSource(ArraySource):
    def identity(self):
        return {"kind": "toy", "version": 1}


def test_describe_and_identity_for_the_cache():
    matrix = toy_matrix()
    plain = toy_variant(matrix)
    assert plain.identity() is None  # the base has no identity: never cached
    described = plain.describe()
    assert described["kind"] == "multiclass-hard-debias" and described["base"] == "toy"
    assert (described["k"], described["classes"], described["defining_sets"]) == ("2", "3", "4")
    base = IdentifiedSource("toy", TOY_WORDS, matrix)
    one = MulticlassHardDebiasedSource(base, defining=DEFINING, equalize_sets=DEFINING, variant="+debias-toy")
    ident = one.identity()
    assert ident["base"] == {"kind": "toy", "version": 1} and ident["variant"] == "+debias-toy"
    assert ident["k"] == 2 and len(ident["lists_sha256"]) == 64
    fewer = MulticlassHardDebiasedSource(base, defining=DEFINING[:3], equalize_sets=DEFINING, variant="+debias-toy")
    assert fewer.identity()["lists_sha256"] != ident["lists_sha256"]
    assert MulticlassHardDebiasedSource(base, defining=DEFINING, equalize_sets=DEFINING, variant="+debias-toy",
                                        k=1).identity() != ident


# --- the catalog variants on the real GloVe 6B 50d --------------------------------------


def test_catalog_ranks_a_debiased_variant_per_bias_dimension():
    assert set(MULTICLASS_VARIANTS) == {"+debias-religion", "+debias-race"}
    models = default_models()
    for base in ("glove-6b-50d", "word2vec-gnews-weat"):
        for suffix in ("+hard-debias", "+debias-religion", "+debias-race"):
            assert base + suffix in models
    race = resolve_model("mine=glove-6b-50d+debias-race")
    assert isinstance(race, MulticlassHardDebiasedSource) and race.name == "mine"
    assert race.describe()["equalize_sets"] == "2" and race.describe()["defining_sets"] == "6"
    religion = resolve_model("glove-6b-50d+debias-religion")
    assert religion.name == "glove-6b-50d+debias-religion"
    assert "pope" in religion.specific and "Church" in religion.specific and "doctor" not in religion.specific


def test_real_glove_restricted_to_the_religion_query_words_equals_the_oracle():
    (religion,) = load_queries("religion")
    (lists,) = load_queries("manzini")
    sets = {s.name: s.words for s in lists.sets}
    defining = [sets[f"religion_defining_{i}"] for i in range(1, 6)]
    equalize_sets = [sets[f"religion_equalize_{i}"] for i in range(1, 6)]
    variant = resolve_model("glove-6b-50d+debias-religion")
    base = resolve_model("glove-6b-50d")
    found = base.lookup(religion.words)
    words = sorted(found)
    assert len(words) > 3000
    expected, _ = reference_multiclass_debias(
        words, np.array([found[w] for w in words]), defining, equalize_sets, sets["religion_specific"], k=2)
    got = variant.lookup(religion.words)
    assert sorted(got) == words
    diff = max(float(np.abs(got[w] - expected[w]).max()) for w in words)
    assert diff < 1e-10, diff
    S = variant.subspace
    neutral = [w for w in words if w not in variant.specific]
    assert len(neutral) > 3000
    assert max(float(np.abs(S @ got[w]).max()) for w in neutral) < 1e-12
    # Before debiasing the neutral words did lean on the subspace.
    assert max(float(np.linalg.norm(S @ (found[w] / np.linalg.norm(found[w])))) for w in neutral) > 0.3


def test_same_on_the_religion_queries_drops_after_religion_debiasing():
    result = rank(["glove-6b-50d", "glove-6b-50d+debias-religion"], queries="religion", metrics=["SAME"],
                  execution=Execution(progress=False))
    before, after = result.aggregates["SAME"]
    # 0.1359 before; about 2e-16 after: the religion queries' target sets are Manzini's
    # equality sets and every attribute word is neutralised, so each attribute word is
    # equally similar to every religion's terms.
    assert before == pytest.approx(0.1359, abs=1e-4)
    assert after < 1e-12


def test_race_vocabulary_cut_inside_an_equality_set_agrees_with_lookup():
    variant = resolve_model("glove-6b-50d+debias-race")
    words, vectors = variant.vocabulary(20_000)  # "caucasian" is GloVe's word 23 353
    assert "black" in words and "asian" in words and "caucasian" not in words
    probe = ["black", "asian", "white", "africa", "america", "asia", "doctor", "criminal", "the"]
    expected = variant.lookup(probe)
    index = {w: i for i, w in reversed(list(enumerate(words)))}
    for w in probe:
        np.testing.assert_allclose(vectors[index[w]], expected[w], atol=2e-7, err_msg=w)
    assert np.abs(variant.subspace @ vectors[index["criminal"]]).max() < 1e-6
