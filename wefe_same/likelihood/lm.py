"""A language model with its head, and the one batched primitive every score is built on:
the log-probability of given tokens at given positions of given token sequences.

A masked model (``*ForMaskedLM``, ``*ForPreTraining``) and a causal one
(``*ForCausalLM``, ``*LMHeadModel``) are told apart by the ``architectures`` of their
config, never by loading a head that is not there: an encoder saved without its head
(a sentence-transformers model) is :class:`NoLanguageModelHead`, and its likelihood scores
are NaN with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError, NoLanguageModelHead

Kind = Literal["masked", "causal"]

#: ``architectures`` suffixes of the two kinds of heads.
MASKED_HEADS = ("ForMaskedLM", "ForPreTraining")
CAUSAL_HEADS = ("ForCausalLM", "LMHeadModel")
#: Token sequences per forward pass on the CPU.
BATCH_SIZE = 32


@dataclass(frozen=True)
class LanguageModel:
    """A Hugging Face model with its language-model head and its tokenizer.

    Attributes
    ----------
    model : transformers.PreTrainedModel
        In eval mode, on ``device``.
    tokenizer : transformers.PreTrainedTokenizerBase
    kind : {"masked", "causal"}
    device : str
        ``cpu`` or ``cuda``.
    batch_size : int
        Sequences per forward pass.
    """

    model: Any
    tokenizer: Any
    kind: Kind
    device: str = "cpu"
    batch_size: int = BATCH_SIZE

    @property
    def uncased(self) -> bool:
        """Whether the tokenizer lower-cases its input (BERT uncased, ALBERT)."""
        return bool(getattr(self.tokenizer, "do_lower_case", False))

    @property
    def start_id(self) -> int:
        """The token a causal model's first token is conditioned on (GPT-2's ``<|endoftext|>``)."""
        for token_id in (self.tokenizer.bos_token_id, self.tokenizer.eos_token_id):
            if token_id is not None:
                return int(token_id)
        raise ModelError(f"{type(self.tokenizer).__name__}: a causal model's tokenizer needs a BOS or EOS token")


def head_kind(architectures: Sequence[str] | None) -> Kind | None:
    """``masked``, ``causal`` or None from a config's ``architectures``.

    >>> head_kind(["BertForMaskedLM"]), head_kind(["GPT2LMHeadModel"]), head_kind(["BertModel"])
    ('masked', 'causal', None)
    """
    for name in architectures or ():
        if name.endswith(MASKED_HEADS):
            return "masked"
        if name.endswith(CAUSAL_HEADS):
            return "causal"
    return None


def load_language_model(folder: str | Path, *, device: str = "cpu", batch_size: int = BATCH_SIZE,
                        trust_pickle: bool = False, dtype: Any = None) -> LanguageModel:
    """The language model saved in ``folder`` (a Hugging Face model folder), offline.

    Raises :class:`NoLanguageModelHead` when its config names no masked or causal head.
    """
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    except (OSError, ValueError) as err:
        raise ModelError(f"{folder}: not a Hugging Face model folder ({str(err).splitlines()[0]})") from None
    kind = head_kind(getattr(config, "architectures", None))
    if kind is None:
        names = ", ".join(getattr(config, "architectures", None) or ["none"])
        raise NoLanguageModelHead(str(folder), names)
    cls = AutoModelForMaskedLM if kind == "masked" else AutoModelForCausalLM
    options: dict[str, Any] = {} if trust_pickle else {"use_safetensors": True}
    if dtype is not None:
        options["torch_dtype"] = dtype
    try:
        model: Any = cls.from_pretrained(str(folder), local_files_only=True, **options)
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except (OSError, ValueError) as err:
        raise ModelError(f"{folder}: cannot load its language model ({str(err).splitlines()[0]})") from None
    model.eval()
    model.to(device)
    return LanguageModel(model, tokenizer, kind, device=device, batch_size=batch_size)


def max_positions(lm: LanguageModel) -> int | None:
    """The longest token sequence the model takes (its config's position embeddings), or None."""
    config = lm.model.config
    for key in ("max_position_embeddings", "n_positions"):
        value = getattr(config, key, None)
        if isinstance(value, int):
            return value - (2 if getattr(config, "model_type", "") in ("roberta", "xlm-roberta") else 0)
    return None


#: One request: a token sequence, the positions read and the token whose log-probability is read at each.
Request = tuple[Sequence[int], Sequence[int], Sequence[int]]


def token_log_probs(lm: LanguageModel, requests: Sequence[Request]) -> list[np.ndarray]:
    """``log p(target | sequence)`` at each requested position, one array per request.

    The sequences run in batches of ``lm.batch_size``, shortest first, right-padded with an
    attention mask (a padded position takes no part in the others' attention, so each
    value equals the unbatched one up to rounding). The log-softmax is taken in the
    model's dtype over the whole vocabulary at the requested positions only.
    """
    import torch

    out: list[np.ndarray] = [np.empty(0)] * len(requests)
    order = sorted(range(len(requests)), key=lambda i: len(requests[i][0]))
    limit = max_positions(lm)
    if order and limit is not None and len(requests[order[-1]][0]) > limit:
        raise ModelError(f"a sentence of {len(requests[order[-1]][0])} tokens is longer than the "
                         f"{limit} positions of the model; shorten it or leave it out of the dataset file")
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    for start in range(0, len(order), lm.batch_size):
        chunk = order[start:start + lm.batch_size]
        width = max(len(requests[i][0]) for i in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, i in enumerate(chunk):
            seq = list(requests[i][0])
            ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        with torch.no_grad():
            logits = lm.model(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device)).logits
            for row, i in enumerate(chunk):
                _, positions, targets = requests[i]
                picked = torch.log_softmax(logits[row, list(positions)], dim=-1)
                got = picked[torch.arange(len(positions)), torch.tensor(list(targets), dtype=torch.long)]
                out[i] = got.double().cpu().numpy()
    return out
