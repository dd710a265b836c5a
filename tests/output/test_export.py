"""``load_model`` and ``wefe-same export``: vectors of any variant as word2vec text, never
overwriting a file without --force, never half-written."""

from __future__ import annotations

import numpy as np
import pytest

from wefe_same import export_vectors, load_model
from wefe_same.cli import main
from wefe_same.errors import ExportError
from wefe_same.models.debias import HardDebiasedSource

SPEC = "glove-6b-50d+hard-debias"


def test_load_model_is_the_variant_a_run_resolves():
    model = load_model(SPEC)
    assert isinstance(model, HardDebiasedSource) and model.name == SPEC
    found = model.lookup(["nurse", "doctor", "not-a-word-xq"])
    assert sorted(found) == ["doctor", "nurse"]
    assert abs(found["nurse"] @ model.direction) < 1e-9  # neutralised: no component along the gender direction


def test_export_round_trips_through_gensim(tmp_path):
    from gensim.models import KeyedVectors

    words = tmp_path / "words.txt"
    words.write_text("nurse\ndoctor\n\nnurse\nnot-a-word-xq\n", encoding="utf-8")
    out = tmp_path / "v.txt"
    written, missing = export_vectors(SPEC, words, out)
    assert (written, missing) == (2, ["not-a-word-xq"])
    kv = KeyedVectors.load_word2vec_format(str(out))
    expected = load_model(SPEC).lookup(["nurse", "doctor"])
    assert kv.index_to_key == ["nurse", "doctor"]
    for w in ("nurse", "doctor"):
        assert np.array_equal(kv[w], expected[w].astype(np.float32))  # float32 values read back exactly


def test_an_existing_file_is_left_alone_without_force(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    mine = tmp_path / "mine.txt"
    mine.write_text("my notes\n", encoding="utf-8")
    assert main(["export", SPEC, "--words", str(words), "--out", str(mine)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists; not overwritten" in err
    assert mine.read_text(encoding="utf-8") == "my notes\n"
    assert main(["export", SPEC, "--words", str(words), "--out", str(mine), "--force"]) == 0
    assert mine.read_text(encoding="utf-8").startswith("1 50\nnurse ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt", "words.txt"]  # no leftover part file


def test_a_word_with_a_space_given_as_a_list_is_refused_and_nothing_written(tmp_path):
    from wefe_same.models import ArraySource

    source = ArraySource("m", ["new york", "paris"], np.eye(2))
    with pytest.raises(ExportError, match="'new york' is empty or holds a space"):
        export_vectors(source, ["paris", "new york"], tmp_path / "v.txt")
    assert list(tmp_path.iterdir()) == []


def test_hsr_leaves_the_base_models_own_matrix_alone():
    from wefe_same.models.debias.hsr import HSRDebiasedSource

    rng = np.random.default_rng(0)
    words = ["he", "she", "man", "woman", "doctor", "nurse"]
    matrix = rng.normal(size=(len(words), 4))
    before = matrix.copy()

    from wefe_same.models import ArraySource

    class Mine(ArraySource):  # a user's source that hands out its own float64 matrix
        def vocabulary(self, limit):
            return list(words), matrix

    base = Mine("base", words, matrix)
    debiased = HSRDebiasedSource(base, definitional=["he", "she", "man", "woman"])
    vocab_words, rows = debiased.vocabulary(None)
    assert not np.array_equal(rows[vocab_words.index("doctor")], before[words.index("doctor")])  # it did debias
    np.testing.assert_array_equal(matrix, before)  # on a copy


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such words file"),
    ("a b\n", "holds a space"),
    ("\n\n", "no words"),
    ("qqqxz-none\n", "knows none of the words"),
])
def test_bad_words_files(tmp_path, content, message):
    words = tmp_path / "words.txt"
    if content is not None:
        words.write_text(content, encoding="utf-8")
    with pytest.raises(ExportError, match=message):
        export_vectors("glove-6b-50d", words, tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
