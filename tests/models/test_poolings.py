"""Every ``hf:`` pooling and layer choice equals a reference computed with transformers
directly, on tiny random BERT, RoBERTa and GPT-2 models built by the tests
(:mod:`tiny_transformers` (tests/tiny_transformers.py, the `tiny` fixture); nothing is downloaded).

The oracle encodes each text alone (no padding, batch of one) and reads
``hidden_states``; the word's token positions are the tokens whose character offsets
overlap the word, checked on their own: the tokens' strings put together spell the word.
The source encodes all texts together in padded batches sorted by length, so the two
agree only if padding, masks, positions and the pad token of GPT-2 (which has none) are
handled. Tolerance 1e-5 (float32 matrix products of other shapes round differently).
"""

from __future__ import annotations

import unicodedata
import warnings

import numpy as np
import pytest
from tiny_transformers import KINDS, MAX_POSITIONS, N_LAYERS

from wefe_same import ModelError
from wefe_same.errors import WefeSameWarning
from wefe_same.models import LoadOptions, resolve_model
from wefe_same.models.encoders.contexts import fill_spans

#: Words that split into several subword tokens in every tiny vocabulary, a multi-word
#: term, a word with a non-ASCII letter, and short words.
WORDS = ["physician", "homemaker", "programmer", "engineer", "ice cream", "naïve", "she", "nurse"]
TEMPLATES = ("This is {a} {word}.", "The {word} is here and there.")
POOLINGS = ("mean", "cls", "last", "word-mean", "word-first", "word-last")
LAYERS = ("-1", "0", "-4:-1", "1:2")
ATOL = 1e-5
#: kind → a loaded backend, shared by the pooling × layer loop.
LOADED: dict = {}


# module-scoped encoder fixtures read and hash into one temporary cache
pytestmark = pytest.mark.usefixtures("module_encoder_cache")


class Oracle:
    """transformers itself, one text at a time."""

    def __init__(self, folder):
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()
        self._cache = {}

    def run(self, text):
        import torch

        if text not in self._cache:
            batch = self.tokenizer([text], return_offsets_mapping=True, return_tensors="pt")
            offsets = batch.pop("offset_mapping")[0].tolist()
            with torch.inference_mode():
                hidden = self.model(**batch, output_hidden_states=True).hidden_states
            ids = batch["input_ids"][0].tolist()
            self._cache[text] = ([h[0].numpy().astype(np.float64) for h in hidden], offsets, ids)
        return self._cache[text]

    def word_positions(self, text, spans):
        _, offsets, ids = self.run(text)
        positions = [i for i, (s, e) in enumerate(offsets) if e > s and any(s < b and e > a for a, b in spans)]
        # Checked on their own: the tokens spell the word (BERT's tokenizer lower-cases and
        # strips accents; byte-level BPE writes the space before a word as part of its token).
        spelled = self.tokenizer.convert_tokens_to_string(
            self.tokenizer.convert_ids_to_tokens([ids[i] for i in positions])).strip()
        word = text[spans[0][0]:spans[0][1]]
        if self.model.config.model_type == "bert":
            word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        assert spelled.replace(" ", "") == word.replace(" ", ""), (text, spelled)
        return positions

    def vector(self, text, spans, pooling, layer):
        hidden, _, _ = self.run(text)
        if ":" in layer:
            first, last = (int(x) % len(hidden) for x in layer.split(":"))
            h = np.mean(hidden[first:last + 1], axis=0)
        else:
            h = hidden[int(layer)]
        if pooling == "mean":
            return h.mean(axis=0)
        if pooling == "cls":
            return h[0]
        if pooling == "last":
            return h[-1]
        positions = self.word_positions(text, spans)
        assert len(positions) >= 1
        return {"word-mean": h[positions].mean(axis=0), "word-first": h[positions[0]],
                "word-last": h[positions[-1]]}[pooling]


@pytest.fixture(scope="module")
def oracles(tiny):
    return {kind: Oracle(folder) for kind, folder in tiny.items()}


def test_the_test_words_split_into_several_subwords(oracles):
    for kind, oracle in oracles.items():
        for word in ("physician", "homemaker", "programmer"):
            positions = oracle.word_positions(word, [(0, len(word))])
            assert len(positions) >= 2, (kind, word)
        text, spans = fill_spans(TEMPLATES[0], "engineer")
        assert len(oracle.word_positions(text, spans)) >= 2, kind


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("templates", [(), TEMPLATES], ids=["alone", "templates"])
def test_every_pooling_and_layer_equals_transformers(tiny, oracles, kind, templates):
    oracle = oracles[kind]
    for pooling in POOLINGS:
        for layer in LAYERS:
            source = resolve_model(f"hf:{tiny[kind]},pooling={pooling},layer={layer}",
                                   LoadOptions(templates=templates))
            # One loaded model per kind (loading dominates the time on tiny models); the
            # backend reads the pooling and layer from its settings on every call.
            if kind not in LOADED:
                LOADED[kind] = source._load()
            LOADED[kind].settings = source.settings
            source._backend = LOADED[kind]
            got = source.lookup(WORDS)
            assert sorted(got) == sorted(WORDS)
            for word in WORDS:
                texts = [fill_spans(t, word) for t in templates] if templates else [(word, ((0, len(word)),))]
                expected = np.mean([oracle.vector(text, spans, pooling, layer) for text, spans in texts], axis=0)
                np.testing.assert_allclose(got[word], expected, atol=ATOL, rtol=0,
                                           err_msg=f"{kind} {pooling} layer={layer} {word!r}")


def test_decoders_default_to_the_last_token_and_names_say_non_defaults(tiny, oracles):
    gpt2 = resolve_model(f"hf:{tiny['gpt2']}")
    assert gpt2.settings.pooling == "last" and gpt2.name == "gpt2"
    assert resolve_model(f"hf:{tiny['bert']}").settings.pooling == "mean"
    assert resolve_model(f"hf:{tiny['gpt2']},pooling=mean").name == "gpt2[pooling=mean]"
    assert resolve_model(f"hf:{tiny['bert']},pooling=last,layer=-4:-1").name == "bert[pooling=last,layer=-4:-1]"
    got = gpt2.lookup(["nurse"])["nurse"]
    np.testing.assert_allclose(got, oracles["gpt2"].vector("nurse", [(0, 5)], "last", "-1"), atol=ATOL)


def test_gpt2_without_a_pad_token_batches_texts_of_different_lengths(tiny, oracles):
    """Padding (eos as pad, right side, masked) changes no vector: each equals the text alone."""
    source = resolve_model(f"hf:{tiny['gpt2']},pooling=mean")
    words = ["a", "physician and nurse", "ice cream"]
    got = source.lookup(words)
    for w in words:
        np.testing.assert_allclose(got[w], oracles["gpt2"].vector(w, [(0, len(w))], "mean", "-1"), atol=ATOL)
    assert source._load().tokenizer.pad_token == "<|endoftext|>"


@pytest.mark.parametrize("spec, fragment", [
    (",layer=-1:-4", "layer=-1:-4 is an empty range"),
    (",layer=-5:-1", f"layer=-5:-1 is out of range: the model has {N_LAYERS} layers"),
    (",layer=1:x", "layer='1:x' is not an integer in [-1000, 1000] or a range FIRST:LAST"),
    (",layer=99999999999999999999", "layer='99999999999999999999' is not an integer in [-1000, 1000]"),
    (",pooling=max", "option pooling='max' must be one of mean, cls, last, word-mean, word-first, word-last"),
])
def test_bad_layers_and_poolings_are_one_line_errors(tiny, spec, fragment):
    with pytest.raises(ModelError) as err:
        resolve_model(f"hf:{tiny['bert']}{spec}")
    assert fragment in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_word_past_the_models_positions_is_missing_for_every_pooling(tiny, oracles, kind):
    """The tiny models take 40 positions. Truncation keeps a text's start, so a template that
    puts the word past them gave every word the same vector with ``mean``, ``cls`` and ``last``
    (marked exact, WEAT 0.0): the word is missing for every pooling, with one warning per
    model naming how many words and the first, and the manifest lists them (issue 27)."""
    long = "Here " * 60 + "{word}."
    for pooling in POOLINGS:
        source = resolve_model(f"hf:{tiny[kind]},pooling={pooling}", LoadOptions(templates=(long,)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = source.lookup(["nurse", "doctor", "she"])
        assert got == {}, pooling
        messages = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
        assert len(messages) == 1, (pooling, messages)
        assert (f"3 word(s) lie past the model's {MAX_POSITIONS} positions in every text they are encoded in and "
                "are marked missing (first: 'doctor')") in messages[0]
        assert source.describe()["cut_off_words"] == '["doctor", "nurse", "she"]'
        # With a second, short template the word keeps the vector of the texts that hold it.
        both = resolve_model(f"hf:{tiny[kind]},pooling={pooling}", LoadOptions(templates=(long, TEMPLATES[0])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vector = both.lookup(["nurse"])["nurse"]
        text, spans = fill_spans(TEMPLATES[0], "nurse")
        np.testing.assert_allclose(vector, oracles[kind].vector(text, spans, pooling, "-1"), atol=ATOL)


def test_a_word_just_inside_the_positions_keeps_its_vector(tiny, oracles):
    """The boundary: a word whose first token is the last position the model reads is kept."""
    fits = " ".join(["Here"] * (MAX_POSITIONS - 3)) + " {word}"  # [CLS], 37 x Here, the word's first token, [SEP]
    past = "Here " + fits  # one more: [SEP] takes the last position, the word none
    for template, expected in ((fits, ["she"]), (past, [])):
        source = resolve_model(f"hf:{tiny['bert']},pooling=cls", LoadOptions(templates=(template,)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert sorted(source.lookup(["she"])) == expected


def test_pickled_weights_need_trust_and_safetensors_are_always_loaded(tiny, tmp_path):
    import shutil

    import torch
    from transformers import AutoModel

    folder = tmp_path / "pickled"
    shutil.copytree(tiny["bert"], folder)
    (folder / "model.safetensors").unlink()
    model = AutoModel.from_pretrained(str(tiny["bert"]))
    torch.save(model.state_dict(), folder / "pytorch_model.bin")
    with pytest.raises(ModelError) as err:
        resolve_model(f"hf:{folder}")
    message = str(err.value)
    assert "pytorch_model.bin holds pickled weights" in message and "--trust-pickle" in message
    assert "\n" not in message
    trusted = resolve_model(f"hf:{folder}", LoadOptions(trust_pickle=True)).lookup(["nurse"])["nurse"]
    safe = resolve_model(f"hf:{tiny['bert']}").lookup(["nurse"])["nurse"]
    np.testing.assert_allclose(trusted, safe, atol=1e-6)
    # Beside a safetensors file the pickle is never opened: a broken one does no harm.
    both = tmp_path / "both"
    shutil.copytree(tiny["bert"], both)
    (both / "pytorch_model.bin").write_bytes(b"\x80\x04not a real pickle")
    np.testing.assert_allclose(resolve_model(f"hf:{both}").lookup(["nurse"])["nurse"], safe, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_batches_hold_texts_of_like_token_counts_and_rows_come_back_in_order(tiny, oracles, kind, monkeypatch):
    """Texts are batched by their number of tokens (least padding), not by characters; each
    word's vector is still its own (the oracle's, one text at a time)."""
    oracle = oracles[kind]
    words = [*WORDS, "a", "an", "tiny", "physicians", "x y z"]
    count = {w: len(oracle.tokenizer(w)["input_ids"]) for w in words}
    by_chars = [count[w] for w in sorted(words, key=lambda w: (len(w), w))]
    assert by_chars != sorted(by_chars), "the words must order differently by characters and by tokens"
    source = resolve_model(f"hf:{tiny[kind]}")
    source.batch_size = 3
    backend = source._load()
    chunks = []
    encode = backend.encode
    monkeypatch.setattr(backend, "encode", lambda texts, spans=None: chunks.append(list(texts)) or encode(texts, spans))
    got = source.lookup(words)
    encoded = [t for chunk in chunks for t in chunk]
    seen = [count[t] for t in encoded]
    assert seen == sorted(seen) and sorted(encoded) == sorted(words)
    assert all(len(c) <= 3 for c in chunks)
    pooling = source.settings.pooling
    for word in words:
        np.testing.assert_allclose(got[word], oracle.vector(word, [(0, len(word))], pooling, "-1"), atol=ATOL, rtol=0)
