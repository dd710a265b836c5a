"""Tokenizers shared by ``hf:`` encoders, texts tokenized once, and ``--device``.

Oracle for the tokens: transformers' own ``tokenizer(texts, padding=True, ...)`` (and with
``truncation=True, max_length=...``), on the tiny BERT (WordPiece), RoBERTa (byte-level
BPE with ``<s>``/``</s>``) and GPT-2 (no pad token) tokenizers, and all-MiniLM-L6-v2's.
The device tests need no GPU: torch's ``cuda.is_available`` is replaced.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from tiny_transformers import KINDS

from wefe_same import Execution, ModelError
from wefe_same.models import LoadOptions, resolve_model
from wefe_same.models.encoders import tokens
from wefe_same.models.encoders.settings import check_device, cuda_batch_size, torch_device
from wefe_same.validation import InvalidParameterError

pytestmark = pytest.mark.usefixtures("module_encoder_cache")

TEXTS = ["she", "ice cream", "The physician is here and there.", "naïve", "a", "He is a programmer.",
         "homemaker, engineer; nurse!", " leading space", "ümlaut ß", "she"]


@pytest.fixture(autouse=True)
def _fresh():
    tokens.forget()
    yield
    tokens.forget()


def _backend(folder):
    source = resolve_model(f"hf:{folder}")
    return source, source._load()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("offsets", [False, True])
def test_direct_batches_equal_the_tokenizers_own_call(tiny, kind, offsets):
    _, backend = _backend(tiny[kind])
    assert backend.tokens is not None  # the direct path is taken
    for texts in (TEXTS, TEXTS[:3], ["a"]):
        got = backend._tokenize(list(texts), offsets)
        expected = backend.tokenizer(list(texts), padding=True, return_offsets_mapping=offsets,
                                     return_tensors="pt", verbose=False)
        assert sorted(got) == sorted(expected.keys())
        for key in expected.keys():
            assert got[key].dtype == expected[key].dtype and np.array_equal(got[key].numpy(), expected[key].numpy()), key


@pytest.mark.parametrize("kind", KINDS)
def test_direct_truncation_equals_the_tokenizers_own_and_warns_per_model(tiny, kind):
    _, backend = _backend(tiny[kind])
    texts = ["nurse", "Here " * 60 + "nurse.", "The physician is here."]
    with pytest.warns(UserWarning, match=r"1 text\(s\) are longer"):
        got = backend._tokenize(texts, True)
    expected = backend.tokenizer(texts, padding=True, truncation=True, max_length=backend.max_length,
                                 return_offsets_mapping=True, return_tensors="pt", verbose=False)
    for key in expected.keys():
        assert np.array_equal(got[key].numpy(), expected[key].numpy()), key
    _, again = _backend(tiny[kind])  # a second model with the same tokenizer: remembered, warned again
    with pytest.warns(UserWarning, match=r"1 text\(s\) are longer"):
        again._tokenize(texts, True)


def test_minilm_tokens_equal_its_tokenizer():
    source = resolve_model("minilm-l6-v2")
    backend = source._load()
    got = backend._tokenize(TEXTS, False)
    expected = backend.tokenizer(TEXTS, padding=True, return_tensors="pt", verbose=False)
    for key in expected.keys():
        assert np.array_equal(got[key].numpy(), expected[key].numpy()), key


def test_models_with_the_same_tokenizer_files_share_one_tokenizer_and_its_tokens(tiny, tmp_path):
    """Two BERTs with other weights and config, the same tokenizer files: one tokenizer,
    each text tokenized once; a different vocabulary is not shared; vectors as unshared."""
    other = tmp_path / "other"
    shutil.copytree(tiny["bert"], other)
    config = (other / "config.json").read_text().replace('"hidden_dropout_prob": 0.1', '"hidden_dropout_prob": 0.2')
    (other / "config.json").write_text(config)
    _, first = _backend(tiny["bert"])
    _, second = _backend(other)
    assert second.tokenizer is first.tokenizer
    calls = []
    real = tokens.TextTokens._encode

    def spy(self, texts, truncate):
        calls.append(list(texts))
        return real(self, texts, truncate)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokens.TextTokens, "_encode", spy)
        first._tokenize(TEXTS, False)
        second._tokenize(TEXTS, False)
    assert len(calls) == 1 and sorted(calls[0]) == sorted(set(TEXTS))
    changed = tmp_path / "changed"
    shutil.copytree(tiny["bert"], changed)
    vocab = changed / "tokenizer.json"
    vocab.write_text(vocab.read_text().replace('"nurse"', '"nurze"'))
    assert _backend(changed)[1].tokenizer is not first.tokenizer
    shared = resolve_model(f"hf:{other}").lookup(TEXTS)
    tokens.forget()
    alone = resolve_model(f"hf:{other}").lookup(TEXTS)
    assert all(shared[w].tobytes() == alone[w].tobytes() for w in alone)


def test_the_remembered_texts_are_bounded(tiny, monkeypatch):
    """Beyond MAX_BYTES the least recently used tokenizer's texts go first; the one in
    use keeps its texts while they fit, and none stays above the bound."""
    tokens.forget()
    _, bert = _backend(tiny["bert"])
    _, roberta = _backend(tiny["roberta"])
    bert._tokenize(TEXTS, False)
    roberta._tokenize(TEXTS, False)
    sizes = [tokens._BYTES[b.tokens.key] for b in (bert, roberta)]
    assert sizes[0] == sum(a.nbytes + 112 for a in tokens._TOKENS[bert.tokens.key].values()) > 0
    tokens.forget()
    bert._tokenize(TEXTS, False)
    monkeypatch.setattr(tokens, "MAX_BYTES", max(sizes) + 1)  # room for one tokenizer's texts, not two
    roberta._tokenize(TEXTS, False)
    assert list(tokens._TOKENS) == [roberta.tokens.key] and bert.tokens.key not in tokens._BYTES
    assert len(tokens._TOKENS[roberta.tokens.key]) == len(set(TEXTS))
    monkeypatch.setattr(tokens, "MAX_BYTES", 1)  # not even one: the texts are let go
    roberta._tokenize(["a text not seen before"], False)  # the bound is kept as texts come in
    assert sum(tokens._BYTES.values()) == 0 and not tokens._TOKENS[roberta.tokens.key]


# ----------------------------------------------------------------------------- device
def test_device_choice_follows_what_torch_sees(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert torch_device("auto") == "cpu" and torch_device("cpu") == "cpu"
    with pytest.raises(ModelError, match="torch sees no CUDA device") as err:
        torch_device("cuda")
    assert "\n" not in str(err.value) and "--device cpu" in str(err.value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert torch_device("auto") == "cuda" and torch_device("cuda") == "cuda" and torch_device("cpu") == "cpu"


def test_a_bad_device_name_is_refused_naming_the_parameter():
    with pytest.raises(InvalidParameterError, match="The 'device' parameter of rank must be one of 'auto', 'cpu'"):
        check_device("gpu", "rank")
    # LoadOptions built by hand reach torch_device unchecked: refused there, not run as "auto"
    with pytest.raises(ModelError, match="device 'gpu': choose one of auto, cpu, cuda"):
        torch_device("gpu")


def test_cpu_and_auto_give_the_same_vectors_and_the_same_cache_key(tiny, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    on_cpu = resolve_model(f"hf:{tiny['bert']}", LoadOptions(device="cpu"))
    auto = resolve_model(f"hf:{tiny['bert']}", LoadOptions(device="auto"))
    assert on_cpu.identity() == auto.identity()
    got, expected = on_cpu.lookup(TEXTS), auto.lookup(TEXTS)
    assert all(got[w].tobytes() == expected[w].tobytes() for w in expected)
    assert on_cpu.describe()["device"] == "cpu" and on_cpu.describe()["batch_size"] == "256"


def test_cuda_batches_grow_with_free_memory_and_cpu_batches_do_not():
    assert cuda_batch_size(80 * 2**30, 768, 12, 10) == 8192
    small = cuda_batch_size(4 * 2**30, 768, 12, 128)
    assert 256 <= small < cuda_batch_size(40 * 2**30, 768, 12, 128)
    assert cuda_batch_size(1, 4096, 80, 4096) == 256  # never below the CPU's batch


def test_rank_with_cuda_and_no_cuda_device_is_one_line_before_any_work(monkeypatch, tmp_path, capsys):
    import torch

    from wefe_same import rank
    from wefe_same.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ModelError, match="torch sees no CUDA device"):
        rank(["glove-6b-50d"], execution=Execution(device="cuda"))
    out = tmp_path / "results"
    assert main(["rank", "--models", "glove-6b-50d", "--device", "cuda", "--out", str(out), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "torch sees no CUDA device" in err and not out.exists()


def test_one_torch_thread_gives_the_same_bytes_and_the_setting_is_restored(tiny):
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)  # so that asking for 1 changes something even on a 1-core runner
    try:
        default = resolve_model(f"hf:{tiny['bert']}").lookup(TEXTS)
        one = resolve_model(f"hf:{tiny['bert']}")
        one.threads = 1
        seen = []
        forward = torch.nn.Module.__call__

        def spy(module, *args, **kwargs):
            seen.append(torch.get_num_threads())
            return forward(module, *args, **kwargs)

        torch.nn.Module.__call__ = spy
        try:
            got = one.lookup(TEXTS)
        finally:
            torch.nn.Module.__call__ = forward
        assert seen and set(seen) == {1}  # the forward passes ran with one thread
        assert torch.get_num_threads() == 2  # and the setting came back
        assert all(got[w].tobytes() == default[w].tobytes() for w in default)
    finally:
        torch.set_num_threads(before)
