"""Tiny random BERT, RoBERTa and GPT-2 models with their own tiny tokenizers, built from
configs in a few hundred milliseconds (nothing is downloaded): the oracle tests of the
``hf:`` poolings run on them.

The tokenizers are trained here on a few sentences with vocabularies small enough that
the test words split into several subword tokens (WordPiece ``##`` pieces for BERT,
byte-level BPE pieces for RoBERTa and GPT-2). The GPT-2 tokenizer has no pad token, as
GPT-2's own has none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = [
    "This is a person.", "That is a doctor.", "There is a nurse here.", "Here is an engineer.",
    "The physician is there.", "She is a homemaker.", "He is a programmer.", "They ate ice cream.",
    "The naïve man is here.", "The person is a nurse and a doctor.",
] * 3
KINDS = ("bert", "roberta", "gpt2")
#: Transformer layers of every tiny model (hidden_states has one more: the embeddings).
N_LAYERS = 3
MAX_POSITIONS = 40


def _bpe() -> tuple[dict[str, int], list[tuple[str, str]]]:
    from tokenizers.implementations import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS, vocab_size=300, min_frequency=2, show_progress=False,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>", "<|endoftext|>"])
    model = json.loads(bpe._tokenizer.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return model["vocab"], merges


def build(kind: str, folder: Path, *, seed: int = 0) -> Path:
    """Save a tiny random ``kind`` model and its tokenizer in ``folder`` (safetensors)."""
    import torch
    from transformers import (
        BertConfig,
        BertModel,
        BertTokenizerFast,
        GPT2Config,
        GPT2Model,
        GPT2TokenizerFast,
        RobertaConfig,
        RobertaModel,
        RobertaTokenizerFast,
    )

    torch.manual_seed(seed)
    size = {"hidden_size": 32, "num_hidden_layers": N_LAYERS, "num_attention_heads": 2, "intermediate_size": 48}
    if kind == "bert":
        from tokenizers.implementations import BertWordPieceTokenizer

        wp = BertWordPieceTokenizer(lowercase=True)
        wp.train_from_iterator(CORPUS, vocab_size=90, min_frequency=2, show_progress=False,
                               special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
        tokenizer = BertTokenizerFast(vocab=wp.get_vocab())
        model = BertModel(BertConfig(vocab_size=len(wp.get_vocab()), max_position_embeddings=MAX_POSITIONS, **size))
    elif kind == "roberta":
        vocab, merges = _bpe()
        tokenizer = RobertaTokenizerFast(vocab=vocab, merges=merges)
        model = RobertaModel(RobertaConfig(vocab_size=len(vocab), pad_token_id=1, bos_token_id=0, eos_token_id=2,
                                           max_position_embeddings=MAX_POSITIONS + 2, **size))
    elif kind == "gpt2":
        vocab, merges = _bpe()
        tokenizer = GPT2TokenizerFast(vocab=vocab, merges=merges)
        assert tokenizer.pad_token is None  # as GPT-2's own tokenizer
        model = GPT2Model(GPT2Config(vocab_size=len(vocab), n_embd=32, n_layer=N_LAYERS, n_head=2,
                                     n_positions=MAX_POSITIONS, bos_token_id=vocab["<|endoftext|>"],
                                     eos_token_id=vocab["<|endoftext|>"]))
    else:
        raise ValueError(kind)
    model.eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """{"bert" | "roberta" | "gpt2": folder}, built once per test process (import it into a test module)."""
    root = tmp_path_factory.mktemp("tiny")
    return {kind: build(kind, root / kind, seed=i) for i, kind in enumerate(KINDS)}
