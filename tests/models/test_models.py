"""Model loaders, casing fallback, the catalog and the hard-debiased variants."""

import numpy as np
import pytest
from conftest import write_glove

from wefe_same import ModelError
from wefe_same.models import ArraySource, catalog_names, default_models, resolve_model, resolve_models
from wefe_same.models.debias import HardDebiasedSource, equalize, gender_direction, neutralize
from wefe_same.scoring.vectors import build_table

WORDS = ["he", "she", "Paris", "doctor"]
MATRIX = np.arange(1, 4 * 5 + 1, dtype=float).reshape(4, 5) / 10


def check(source, expect_words=WORDS):
    found = source.lookup(set(expect_words) | {"unknown"})
    assert sorted(found) == sorted(expect_words)
    for w in expect_words:
        np.testing.assert_allclose(found[w], MATRIX[WORDS.index(w)], atol=1e-6)


def test_glove_text(tmp_path):
    check(resolve_model(f"glove:{write_glove(tmp_path / 'g.txt', WORDS, MATRIX)}"))


def test_guessed_formats(tmp_path):
    glove = write_glove(tmp_path / "plain.txt", WORDS, MATRIX)
    check(resolve_model(str(glove)))
    vec = tmp_path / "ft.vec"
    vec.write_text(f"{len(WORDS)} 5\n" + glove.read_text())
    source = resolve_model(str(vec))
    assert source.name == "ft"
    check(source)
    w2v_txt = tmp_path / "w2v.txt"
    w2v_txt.write_text(f"{len(WORDS)} 5\n" + glove.read_text())
    check(resolve_model(str(w2v_txt)))


def test_word2vec_binary_and_gensim_pickle(tmp_path):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=5)
    kv.add_vectors(WORDS, MATRIX)
    kv.save_word2vec_format(str(tmp_path / "m.bin"), binary=True)
    check(resolve_model(f"word2vec:{tmp_path / 'm.bin'}"))
    kv.save(str(tmp_path / "m.kv"))
    with pytest.raises(ModelError, match="m.kv: gensim .kv/.model files are pickles.*--trust-pickle"):
        resolve_model(str(tmp_path / "m.kv"))
    check(resolve_model(str(tmp_path / "m.kv"), trust_pickle=True))



def _with_ctrl_c_before(data: bytes, scalar: np.str_) -> bytes:
    """The pickle ``data`` with a simulated Ctrl-C (``_thread.interrupt_main()``) injected
    just before the ``numpy.str_`` scalar is rebuilt (its REDUCE, the first after its bytes)."""
    import pickletools

    payload = scalar.encode("utf-32-le")
    at = data.index(payload)
    reduce = next(pos for op, _, pos in pickletools.genops(data) if op.name == "REDUCE" and pos > at)
    return data[:reduce] + b"c_thread\ninterrupt_main\n)R0" + data[reduce:]


def test_ctrl_c_while_a_gensim_pickle_with_numpy_strings_loads_is_not_lost(tmp_path, ctrl_c_raises):
    """numpy's str_ constructor clears a KeyboardInterrupt raised while it runs (the WEAT
    word2vec .kv holds such scalars): the load defers Ctrl-C and delivers it afterwards."""
    import pickle

    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=5)
    kv.add_vectors(WORDS, MATRIX)
    kv.note = np.str_("ctrl-c lands here")
    path = tmp_path / "m.kv"
    path.write_bytes(_with_ctrl_c_before(pickle.dumps(kv, protocol=4), kv.note))
    # The premise: unpickled bare, the Ctrl-C is consumed and nothing is raised.
    assert pickle.loads(path.read_bytes()).note == kv.note, "numpy changed: revisit interrupts.py"
    with pytest.raises(KeyboardInterrupt):
        resolve_model(str(path), trust_pickle=True).lookup(WORDS)  # read on first use

def test_npy_with_vocabulary(tmp_path):
    np.save(tmp_path / "e.npy", MATRIX)
    (tmp_path / "v.txt").write_text("\n".join(WORDS) + "\n")
    source = resolve_model(f"mine=npy:{tmp_path / 'e.npy'},{tmp_path / 'v.txt'}")
    assert source.name == "mine"
    check(source)
    (tmp_path / "short.txt").write_text("he\n")
    with pytest.raises(ModelError, match="short.txt has 1 words but .*e.npy has shape \\(4, 5\\)"):
        resolve_model(f"npy:{tmp_path / 'e.npy'},{tmp_path / 'short.txt'}").lookup(["he"])


def test_bad_specs_name_the_culprit(tmp_path):
    with pytest.raises(ModelError, match="unknown model 'glove-6b-5d'; valid models are: .*glove-6b-50d"):
        resolve_model("glove-6b-5d")
    with pytest.raises(ModelError, match="no such file .*missing.txt"):
        resolve_model(f"glove:{tmp_path / 'missing.txt'}")
    weird = tmp_path / "m.xyz"
    weird.write_text("x")
    with pytest.raises(ModelError, match="m.xyz: cannot guess the format"):
        resolve_model(str(weird))
    bad = tmp_path / "bad.txt"
    bad.write_text("he 0.1 0.2\nshe 0.1 oops\n")
    with pytest.raises(ModelError, match="bad.txt:2: cannot parse the vector of word 'she'"):
        resolve_model(f"glove:{bad}").lookup(["she"])
    with pytest.raises(ModelError, match="model name 'a' is used twice"):
        resolve_models([ArraySource("a", ["x"], np.ones((1, 2))), ArraySource("a", ["x"], np.ones((1, 2)))])


def test_casing_fallback_and_zero_vectors_are_recorded():
    src = ArraySource("t", ["paris", "London", "nil"], np.array([[1.0, 0], [0, 1.0], [0, 0]]))
    table = build_table(src, ["Paris", "london", "nil", "nowhere"])
    status = {lk.word: (lk.found_as, lk.status) for lk in table.lookups}
    assert status == {"Paris": ("paris", "lower"), "london": ("London", "title"),
                      "nil": ("nil", "zero vector"), "nowhere": (None, "missing")}
    assert table.words == ("Paris", "london")
    np.testing.assert_allclose(np.linalg.norm(table.unit, axis=1), 1.0)


def test_catalog_lists_the_static_models_and_the_installed_ones_load():
    # Other entries (encoders) and variants are tested with them; the static pair and its
    # hard-debiased variants are always listed, and installed (both packages are dependencies).
    static = ["glove-6b-50d", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", "word2vec-gnews-weat+hard-debias"]
    assert [n for n in catalog_names() if n in static] == static
    assert set(static) <= set(default_models()) <= set(catalog_names())
    glove = resolve_model("glove-6b-50d").lookup(["king", "queen"])
    assert glove["king"].shape == (50,)
    w2v = resolve_model("word2vec-gnews-weat").lookup(["king", "zzzqqq"])
    assert set(w2v) == {"king"} and w2v["king"].shape == (300,)


# --- hard debiasing (Bolukbasi et al. 2016) ------------------------------------------


def reference_hard_debias(words, matrix, definitional, equalize_pairs, specific):
    """Bolukbasi et al.'s algorithm on a whole (small) matrix, written independently of
    wefe_same.debias as an oracle: normalise, PCA direction, neutralise every word
    outside ``specific``, renormalise, equalise each casing of each pair."""
    from sklearn.decomposition import PCA

    E = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    idx = {w: i for i, w in enumerate(words)}
    centred = []
    for a, b in definitional:
        c = (E[idx[a]] + E[idx[b]]) / 2
        centred += [E[idx[a]] - c, E[idx[b]] - c]
    g = PCA(n_components=1).fit(np.array(centred)).components_[0]
    for i, w in enumerate(words):
        if w not in specific:
            E[i] = E[i] - g * E[i].dot(g) / g.dot(g)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    for a0, b0 in equalize_pairs:
        for a, b in [(a0.lower(), b0.lower()), (a0.title(), b0.title()), (a0.upper(), b0.upper())]:
            if a in idx and b in idx:
                y = (E[idx[a]] + E[idx[b]]) / 2
                y = y - g * y.dot(g) / g.dot(g)
                z = np.sqrt(1 - np.linalg.norm(y) ** 2)
                if (E[idx[a]] - E[idx[b]]).dot(g) < 0:
                    z = -z
                E[idx[a]], E[idx[b]] = z * g + y, -z * g + y
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    return dict(zip(words, E))


def test_hard_debias_matches_an_independent_full_matrix_implementation():
    rng = np.random.default_rng(0)
    words = ["she", "he", "woman", "man", "queen", "king", "Queen", "King", "doctor", "nurse", "table"]
    matrix = rng.normal(size=(len(words), 7))
    definitional = [("she", "he"), ("woman", "man")]
    pairs = [("queen", "king")]
    specific = {"she", "he", "woman", "man"}
    expected = reference_hard_debias(words, matrix.copy(), definitional, pairs, specific)
    variant = HardDebiasedSource(ArraySource("toy", words, matrix), definitional=definitional,
                                 equalize_pairs=pairs, gender_specific=specific)
    got = variant.lookup(["doctor", "nurse", "queen", "King", "she", "table"])
    for w, v in got.items():
        np.testing.assert_allclose(v, expected[w], atol=1e-12, err_msg=w)
    g = variant.direction
    assert abs(got["doctor"] @ g) < 1e-12  # neutralised
    assert got["queen"] @ g == pytest.approx(-(expected["king"] @ g))  # equalised


def test_neutralize_and_equalize_pieces():
    g = np.array([1.0, 0, 0])
    v = neutralize(np.array([0.6, 0.8, 0]), g)
    np.testing.assert_allclose(v, [0, 1, 0])
    a, b = equalize(np.array([0.8, 0.6, 0]), np.array([-0.6, 0.8, 0]), g)
    assert a @ g == pytest.approx(-(b @ g)) and np.linalg.norm(a) == pytest.approx(1)
    np.testing.assert_allclose(a - (a @ g) * g, b - (b @ g) * g)
    pairs = np.array([[[1.0, 0.2], [-1.0, 0.2]]])
    np.testing.assert_allclose(gender_direction(pairs), [1.0, 0.0])


def test_catalog_hard_debias_neutralises_query_words_in_the_real_model():
    base = resolve_model("glove-6b-50d")
    variant = resolve_model("glove-6b-50d+hard-debias")
    assert variant.name == "glove-6b-50d+hard-debias"
    g = variant.direction
    debiased = variant.lookup(["nurse", "engineer", "he", "she"])
    for w in ("nurse", "engineer"):
        assert abs(debiased[w] @ g) < 1e-12
        original = base.lookup([w])[w]
        assert abs(original @ g / np.linalg.norm(original)) > 1e-3  # it was not neutral before
    # "he"/"she" are a definitional (and equalise) pair: symmetric about the direction.
    assert debiased["he"] @ g == pytest.approx(-(debiased["she"] @ g))


def test_models_command_lists_the_catalog_with_variants_and_the_gensim_data_names(tmp_path, monkeypatch, capsys):
    from wefe_same.cli import main
    from wefe_same.models.catalog import CATALOG
    from wefe_same.models.gensim_data import CASE_STUDY

    root = tmp_path / "gensim-data"
    (root / "glove-twitter-200").mkdir(parents=True)
    (root / "glove-twitter-200" / "glove-twitter-200.gz").write_bytes(b"")  # os.stat only: never read
    monkeypatch.setenv("GENSIM_DATA_DIR", str(root))
    assert main(["models"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split() for line in out if line.strip()}
    for name, entry in CATALOG.items():
        assert rows[name][1] == ("yes" if entry.installed else "no")
        for suffix in entry.variants:
            assert name + suffix in rows
    assert rows["glove-6b-50d"][1] == "yes" and "glove-6b-50d+debias-race" in rows
    assert rows["glove-6b-50d+debias-religion"][1:3] == ["religion", "multiclass"]
    for name in CASE_STUDY:
        status = rows[f"gensim-data:{name}"][1]
        assert status == ("present" if name == "glove-twitter-200" else "absent")
    assert "python -m gensim.downloader --download word2vec-google-news-300" in "\n".join(out)
    assert any(str(root) in line for line in out)


# ---------------------------------------------------------------- the ModelSource base class


def test_a_source_without_lookup_cannot_be_made():
    from wefe_same.models.base import ModelSource

    class NoLookup(ModelSource):
        name = "no-lookup"

        def describe(self):
            return {}

    with pytest.raises(TypeError, match="lookup"):
        NoLookup()


def test_declared_capabilities_have_defaults_and_are_what_the_framework_reads():
    from wefe_same.models.base import ModelSource, as_source
    from wefe_same.models.encoders import EncoderSource
    from wefe_same.models.sources import LazySource

    class Minimal(ModelSource):
        name = "minimal"

        def lookup(self, words):
            return {w: np.ones(2) for w in words if w == "he"}

        def describe(self):
            return {"kind": "minimal"}

    src = Minimal()
    assert (src.spec, src.open_vocabulary, src.has_vocabulary, src.identity(), list(src.decode_warnings)) == (
        None, False, False, None, [])
    found, subword = src.lookup_with_status(["he", "she"])
    assert sorted(found) == ["he"] and subword == frozenset()
    with pytest.raises(ModelError, match=r"model 'minimal' \(Minimal\) cannot list its vocabulary"):
        src.vocabulary(3)
    assert ArraySource("a", ["x"], np.ones((1, 2))).has_vocabulary and EncoderSource.open_vocabulary
    assert LazySource("l", src.__class__, {}).has_vocabulary

    # A declared capability decides, not the presence of a method: an open-vocabulary
    # source is asked for the words as written only.
    class Open(Minimal):
        open_vocabulary = True

    asked = []
    Open.lookup = lambda self, words: asked.append(sorted(words)) or {w: np.ones(2) for w in words}
    build_table(Open(), ["He"])
    assert asked == [["He"]]
    # resolve_model sets the declared spec; a ModelSource object is kept as it is.
    assert resolve_model(src) is src and as_source(src) is src


def test_duck_typed_user_objects_are_adapted_once():
    from wefe_same.models.base import UserSource

    class Mine:
        name = "mine"

        def lookup(self, words):
            return {w: np.ones(2) for w in words if w == "he"}

        def describe(self):
            return {"kind": "user"}

        def identity(self):
            return {"kind": "mine", "version": 1}

    [source] = resolve_models(Mine())
    assert isinstance(source, UserSource) and source.name == "mine" and source.type_name == "Mine"
    assert source.identity() == {"kind": "mine", "version": 1} and not source.has_vocabulary
    with pytest.raises(ModelError, match=r"\(Mine\) cannot list its vocabulary"):
        source.vocabulary(2)
    with pytest.raises(ModelError, match="a model must be a name, a path or a ModelSource, not int"):
        resolve_model(3)
