"""``load_model`` and ``wefe-same export``: vectors of any variant as word2vec text, never
overwriting a file without --force, never half-written."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from wefe_same import export_vectors, load_model
from wefe_same.cli import main
from wefe_same.errors import ExportError, OutputError
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


# ----------------------------------------------------------------------------- what stands at --out
def _target(tmp_path, kind):
    """A destination of ``kind`` and a function that says it is untouched."""
    out = tmp_path / "out.txt"
    mine = tmp_path / "mine.txt"
    mine.write_text("my notes\n", encoding="utf-8")
    if kind == "fifo":
        os.mkfifo(out)
        return out, lambda: stat.S_ISFIFO(os.lstat(out).st_mode)
    if kind == "directory":
        out.mkdir()
        return out, lambda: out.is_dir() and not out.is_symlink() and list(out.iterdir()) == []
    if kind == "dangling symlink":
        out.symlink_to(tmp_path / "nowhere.txt")
        return out, lambda: out.is_symlink() and not (tmp_path / "nowhere.txt").exists()
    out.symlink_to(mine)  # a symlink to a file
    return out, lambda: out.is_symlink() and mine.read_text(encoding="utf-8") == "my notes\n"


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("kind", ["fifo", "directory", "dangling symlink", "symlink to a file"])
def test_export_refuses_anything_but_a_regular_file(tmp_path, capsys, kind, force):
    words = tmp_path / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    out, untouched = _target(tmp_path, kind)
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(["export", SPEC, "--words", str(words), "--out", str(out), *(["--force"] if force else [])])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    expected = "a symbolic link" if "symlink" in kind else "a FIFO" if kind == "fifo" else "a directory"
    assert err.startswith("wefe-same: ") and f"{out}: is {expected}" in err and "replaces nothing else" in err
    assert untouched() and sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("force", [False, True])
def test_export_onto_a_device_is_refused_and_the_device_stays(tmp_path, capsys, force):
    words = tmp_path / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    with pytest.raises(OutputError, match="/dev/null: is a character device"):
        export_vectors(SPEC, words, "/dev/null", force=force)
    assert main(["export", SPEC, "--words", str(words), "--out", "/dev/null", *(["--force"] if force else [])]) == 2
    assert "is a character device" in capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_force_replaces_a_regular_file_reached_by_a_plain_path(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    out = tmp_path / "v.txt"
    out.write_text("old\n", encoding="utf-8")
    assert export_vectors(SPEC, words, out, force=True) == (1, [])
    assert out.read_text(encoding="utf-8").startswith("1 50\nnurse ") and not out.is_symlink()
