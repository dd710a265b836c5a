"""Double-hard debias, half-sibling regression and RAN-Debias against WEFE 0.4.1 (``wefe.debias``).

Both sides run on the same vectors (a 3,000-word slice of the word2vec WEAT subset that
wefe bundles, plus the list words) and the same word lists (queries/bolukbasi.toml).

wefe 0.4.1 under the libraries installed here needs three shims, all in ``_wefe``:
``np.float_`` (removed by numpy 2) while importing; ``check_is_fitted`` replaced by a no-op
(sklearn ≥ 1.6 asks every estimator for ``__sklearn_tags__``, which wefe's classes lack);
and for the comparisons below, the choices that are WEFE's own and not the paper's:

- Double-hard: ``flavour="wefe"`` is WEFE's own output (issue 39 item 8). WEFE's k-means
  is unseeded with one initialisation; ``seed=s`` draws the same numbers as WEFE after
  ``numpy.random.seed(s)``, so the test seeds numpy as a user would and compares every word
  (WEFE rewrites only its 2n test words; the others keep their raw vectors).
- RAN: WEFE's ``RAN.__init__`` passes (w, w_b) to ``RAN_Loss(w_b, w, ...)`` in swapped
  order, so the vector it returns is only attracted to a second copy that does the
  repelling and neutralising. The test repairs the order; WEFE's neutralisation term is
  |w_b·g| (the paper: |cos(w_b, g)|), as in both our flavours.

Double-hard and RAN run with ``flavour="wefe"`` (WEFE 0.4.1's parameters); the authors'
flavour, our default, is checked against the authors' code in test_debias_authors.py.
  Tolerance: per-word cosine ≥ 0.999. Both sides run the same 300 Adam steps from the
  same start, WEFE in float32 (torch) and we in float64; the |·| terms are not smooth, so
  rounding can flip a sign near 0 and move a step. On these words the two agree to
  cosine 0.99999995 (measured; double-hard 0.99999992, HSR 0.99999989, float32 against
  float64); 0.999 leaves room for other BLAS and for a sign flip on other data.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from conftest import numpy_float_alias

from wefe_same.errors import ModelError
from wefe_same.models import ArraySource, resolve_model
from wefe_same.models.debias.double_hard import DoubleHardDebiasedSource
from wefe_same.models.debias.hsr import HSRDebiasedSource
from wefe_same.models.debias.methods import method_parameters
from wefe_same.models.debias.ran import RANDebiasedSource
from wefe_same.query.files import load_queries

(BOLUKBASI,) = load_queries("bolukbasi")
PAIRS = list(zip(BOLUKBASI.word_set("definitional_female").words, BOLUKBASI.word_set("definitional_male").words))
EQUALIZE = list(zip(BOLUKBASI.word_set("equalize_female").words, BOLUKBASI.word_set("equalize_male").words))
SPECIFIC = list(BOLUKBASI.word_set("gender_specific").words)
(DEBIASING,) = load_queries("debiasing")
WEFE_SPECIFIC = list(DEBIASING.word_set("double_hard_wefe_gender_specific").words)
COS = 0.999
#: Double-hard: the same arithmetic, WEFE in float32 and we in float64 (issue 39 item 8).
COS_DHD = 0.9999


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


@pytest.fixture(scope="module")
def wefe():
    with numpy_float_alias():
        import wefe.debias.double_hard_debias as dhd
        import wefe.debias.half_sibling_regression as hsr
        import wefe.debias.repulsion_attraction_neutralization as ran
        from wefe.word_embedding_model import WordEmbeddingModel
    saved = {m: m.check_is_fitted for m in (dhd, hsr, ran)}
    for m in saved:
        m.check_is_fitted = lambda *a, **k: None
    yield dhd, hsr, ran, WordEmbeddingModel
    for m, f in saved.items():
        m.check_is_fitted = f


@pytest.fixture(scope="module")
def vectors():
    """A 3,000-word slice of the word2vec WEAT subset plus the words of the lists, raw float32."""
    from gensim.models import KeyedVectors

    root = Path(importlib.util.find_spec("wefe").submodule_search_locations[0])
    kv = KeyedVectors.load(str(root / "datasets" / "data" / "test_model.kv"))
    extra = [w for p in (*PAIRS, *EQUALIZE) for w in p] + SPECIFIC + ["he", "she", "doctor", "nurse", "boss"]
    words = list(dict.fromkeys([w for w in extra if w in kv] + list(kv.index_to_key[3000:6000])))
    return words, np.array([kv[w] for w in words], dtype=np.float32)


def _wefe_model(wefe, words, matrix):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(matrix.shape[1])
    kv.add_vectors(words, matrix.copy())
    return wefe[3](kv, "slice")


def test_double_hard_equals_wefe(wefe, vectors):
    """flavour=wefe is WEFE's output, run as a user runs it (unseeded k-means after
    ``numpy.random.seed(s)``, its own ignore list): every word. Seeds 0, 2 and 5 make WEFE
    remove components 0, 2 and 1 on this slice (tests/oracles/double_hard_wefe.py runs 0-9 on
    glove-6b-50d)."""
    dhd_module = wefe[0]
    words, matrix = vectors
    model = _wefe_model(wefe, words, matrix)
    theirs = dhd_module.DoubleHardDebias(n_words=100, n_components=4).fit(
        model, definitional_pairs=[list(p) for p in PAIRS], bias_representation=["he", "she"])
    chosen = set()
    for seed in (0, 2, 5):
        np.random.seed(seed)
        out = theirs.transform(model, ignore=WEFE_SPECIFIC)
        np.random.seed(seed)  # WEFE's search again from the same state: its accuracies, in its order
        accuracies = [theirs._kmeans_eval(theirs._debias(theirs._drop_frecuency_features(d, model)),
                                          [0] * 100 + [1] * 100, 100) for d in range(4)]
        k = int(np.argmin(accuracies))
        ours = DoubleHardDebiasedSource(ArraySource("slice", words, matrix), definitional=PAIRS, equalize_pairs=[],
                                        gender_specific=WEFE_SPECIFIC, words=100, components=4, flavour="wefe",
                                        random_state=seed)
        fit = ours.fit
        assert [*fit.female, *fit.male] == theirs.target_words
        assert list(fit.alignments) == accuracies and fit.chosen == k, (seed, fit.alignments, accuracies)
        chosen.add(k)
        found = ours.lookup(words)
        cos = _cos(np.array([found[w] for w in words]), np.array([out[w] for w in words], dtype=np.float64))
        assert cos.min() >= COS_DHD, (seed, words[int(np.argmin(cos))], cos.min())
        # Words outside the test words keep their raw vectors, as in WEFE.
        other = [i for i, w in enumerate(words) if w not in set(theirs.target_words)]
        assert np.array_equal(np.array([found[words[i]] for i in other]), matrix[other].astype(np.float64))
    # The seeds reach different components: the test sees the k-means stream, not one lucky draw.
    assert len(chosen) > 1, chosen
    # The whole-vocabulary path equals the lookups.
    vocab_words, vocab = ours.vocabulary(None)
    assert vocab_words == words
    assert np.allclose(vocab, np.array([found[w] for w in words]), atol=1e-6)


def test_double_hard_wefe_ignore_list_is_fetch_debiaswe():
    """WEFE's users pass ``fetch_debiaswe()["gender_specific"]`` (debiaswe's
    gender_specific_full.json, which it downloads) as ``ignore``; flavour=wefe uses that
    list, not bolukbasi.toml's 218-word seed list. The list's first words and size as
    debiaswe@6bb03ee holds them; its capitalised words and phrases are kept."""
    from wefe_same.models.debias.methods import double_hard_debiased

    source = double_hard_debiased(ArraySource("x", ["he", "she"], np.eye(2)), "x+dhd", "flavour=wefe")
    assert source.inner.specific == frozenset(WEFE_SPECIFIC)
    assert len(WEFE_SPECIFIC) == 1441 and WEFE_SPECIFIC[:5] == ["he", "his", "He", "her", "she"]


def test_hsr_equals_wefe(wefe, vectors):
    words, matrix = vectors
    model = _wefe_model(wefe, words, matrix)
    alpha = method_parameters("+hsr-debias")["alpha"]
    out = wefe[1].HalfSiblingRegression().fit(model, definitional_words=SPECIFIC, alpha=alpha).transform(model)
    ours = HSRDebiasedSource(ArraySource("slice", words, matrix), definitional=SPECIFIC, alpha=alpha)
    found = ours.lookup(words)
    assert _cos(np.array([found[w] for w in words]), np.array([out[w] for w in words])).min() >= COS
    changed = [w for w in words if w not in set(SPECIFIC)]
    assert np.allclose([found[w] for w in changed], [out[w] for w in changed], rtol=1e-4, atol=1e-5)
    assert all(np.array_equal(found[w], matrix[words.index(w)]) for w in SPECIFIC if w in found)


def test_ran_equals_repaired_wefe(wefe, vectors, monkeypatch):
    import torch

    ran_module = wefe[2]
    init = ran_module.RAN.__init__

    def repaired(self, *args, **kwargs):  # the loss gets (w_b, w) in its own order
        init(self, *args, **kwargs)
        del self.loss.w
        self.loss.w = self.w.detach()
        self.loss.w_b = self.w_b

    monkeypatch.setattr(ran_module.RAN, "__init__", repaired)
    torch.manual_seed(0)
    words, matrix = vectors
    targets = ["doctor", "nurse", "boss", *words[400:403]]
    model = _wefe_model(wefe, words, matrix)
    out = ran_module.RepulsionAttractionNeutralization(epochs=300).fit(
        model, definitional_pairs=[list(p) for p in PAIRS]).transform(model, target=targets, ignore=SPECIFIC)
    wefe_flavour = {k: v for k, v in method_parameters("+ran-debias", "flavour=wefe").items() if k != "epochs"}
    ours = RANDebiasedSource(ArraySource("slice", words, matrix), definitional=PAIRS, preserve=SPECIFIC,
                             **wefe_flavour)
    found = ours.lookup(targets)
    cos = _cos(np.array([found[w] for w in targets]), np.array([out[w] for w in targets]))
    assert cos.min() >= COS
    unit = matrix[[words.index(w) for w in targets]]
    assert _cos(np.array([found[w] for w in targets]), unit).min() < 0.999  # it did move them
    # The paper's neutralisation (cosine) brings every word closer to orthogonal to g.
    paper = RANDebiasedSource(ArraySource("slice", words, matrix), definitional=PAIRS, preserve=SPECIFIC,
                              **wefe_flavour, neutralization="cosine").lookup(targets)
    g = ours.direction
    assert max(abs(paper[w] @ g) for w in targets) < np.abs(_cos(unit, np.tile(g, (len(targets), 1)))).max()


def test_specs_options_and_identity():
    a = resolve_model("glove-6b-50d+hsr-debias")
    b = resolve_model("glove-6b-50d+hsr-debias[alpha=10]")
    assert (a.name, b.name) == ("glove-6b-50d+hsr-debias", "glove-6b-50d+hsr-debias[alpha=10]")
    assert a.identity() != b.identity() and b.identity()["alpha"] == 10.0
    ran = resolve_model("mine=glove-6b-50d+ran-debias[epochs=5,weights=0.5/0.25/0.25]")
    assert ran.name == "mine" and ran.epochs == 5 and ran.weights == (0.5, 0.25, 0.25)
    dhd = resolve_model("word2vec-gnews-weat+double-hard-debias[words=50,components=2,vocab=4000]")
    assert (dhd.n_words, dhd.n_components, dhd.vocab) == (50, 2, 4000)
    for spec, fragment in [("glove-6b-50d+hsr-debias[beta=1]", "no option 'beta'; its options: alpha"),
                           ("glove-6b-50d+ran-debias[epochs=0]", r"epochs='0' must be an integer in \[1, 10000\]"),
                           ("glove-6b-50d+hsr-debias[alpha]", "'alpha' is not KEY=VALUE")]:
        with pytest.raises(ModelError, match=fragment):
            resolve_model(spec)


def test_methods_need_their_words():
    base = ArraySource("tiny", ["x", "y", "z"], np.eye(3))
    with pytest.raises(ModelError, match="lacks the representation word 'he'"):
        DoubleHardDebiasedSource(base, definitional=PAIRS, equalize_pairs=[], gender_specific=[]).lookup(["x"])
    with pytest.raises(ModelError, match="knows none of the"):
        HSRDebiasedSource(base, definitional=SPECIFIC).lookup(["x"])
    with pytest.raises(ModelError, match="knows no definitional pair"):
        RANDebiasedSource(base, definitional=PAIRS, preserve=[]).lookup(["x"])
