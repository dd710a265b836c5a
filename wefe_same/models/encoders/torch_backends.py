"""The torch backends: sentence-transformers (``sbert:``) and transformers ``AutoModel``
(``hf:``). torch and transformers are imported when a backend is made, never at import."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from wefe_same.cachedir import encoders_dir
from wefe_same.errors import ModelError, model_warning
from wefe_same.models.encoders.settings import (
    DOWNLOAD_FAILED,
    WORD_POOLINGS,
    EncoderSettings,
    Layer,
    Location,
    _check_layer,
    cuda_batch_size,
    require,
    torch_device,
)
from wefe_same.models.encoders.tokens import TOKENIZER_LOCK, TextTokens, direct, shared_tokenizer, tokenizer_key
from wefe_same.models.encoders.weights import safetensors_only


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence transformers' weight-loading bar and info logs while a model loads."""
    from transformers.utils import logging as hf_logging

    bar = hf_logging.is_progress_bar_enabled()
    verbosity = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bar:
            hf_logging.enable_progress_bar()


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@contextmanager
def _loading(spec: str, loc: Location) -> Iterator[None]:
    """One-line :class:`ModelError` for a folder that cannot be read or a failed download.

    A download can fail in many ways (DNS, HTTP, offline mode, a gated repository), each
    with its own exception type, so every exception is turned into a message there.
    """
    try:
        with _quiet_transformers():
            yield
    except (OSError, ValueError, KeyError) as err:
        if loc.folder is not None:
            raise ModelError(f"model spec {spec!r}: cannot load {loc.folder} ({_first_line(err)})") from None
        raise ModelError(DOWNLOAD_FAILED.format(spec=spec, location=loc.hub_id, error=_first_line(err))) from None
    except Exception as err:
        if loc.folder is not None and _unreadable_weights(err):  # a cut or corrupt model.safetensors
            raise ModelError(f"model spec {spec!r}: cannot load {loc.folder}: a weights file is damaged "
                             f"({_first_line(err)})") from None
        if loc.folder is not None:
            raise
        raise ModelError(DOWNLOAD_FAILED.format(spec=spec, location=loc.hub_id, error=_first_line(err))) from None


def _unreadable_weights(err: BaseException) -> bool:
    """safetensors' own error (a header or data that does not parse), which is no OSError."""
    return type(err).__name__ == "SafetensorError" and type(err).__module__.startswith("safetensors")


class _SbertBackend:
    """sentence-transformers: ``SentenceTransformer(folder).encode`` in eval mode."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("sentence_transformers", f"model spec {s.spec!r}")
        from sentence_transformers import SentenceTransformer

        self.device = torch_device(s.device)
        target = loc.target
        with _loading(s.spec, loc):
            self.model = SentenceTransformer(
                target, device=self.device, revision=None if loc.folder is not None else s.revision,
                local_files_only=loc.folder is not None or not s.allow_download,
                model_kwargs=safetensors_only(s),
            )
        self.model.eval()
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = dimension()

    def batch_size(self, texts: Sequence[str], default: int) -> int:
        """``default`` on the CPU; on CUDA as many texts as its free memory holds."""
        if self.device != "cuda" or not texts:
            return default
        return _cuda_batch(self.dim or 768, 12, max(self.token_counts(texts)), default)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's number of tokens, as the model's tokenizer makes them (batch order)."""
        tokenizer = self.model.tokenizer
        with TOKENIZER_LOCK:
            ids = tokenizer(list(texts), truncation=True, verbose=False,
                            max_length=int(getattr(self.model, "max_seq_length", None) or 512))["input_ids"]
        return [len(i) for i in ids]

    def kept_chars(self, texts: Sequence[str]) -> list[int] | None:
        """Per text, the characters its tokens within the model's positions cover (:func:`kept_chars`)."""
        return kept_chars(self.model.tokenizer, texts, int(getattr(self.model, "max_seq_length", None) or 512))

    def encode(self, texts: list[str], spans: Sequence[Sequence[tuple[int, int]]] | None = None) -> np.ndarray:
        """The model's own sentence embedding (its Pooling module); ``spans`` are not used."""
        import torch

        with torch.inference_mode():
            return self.model.encode(texts, batch_size=len(texts), show_progress_bar=False,
                                     convert_to_numpy=True)


class _HfBackend:
    """transformers ``AutoModel`` + ``AutoTokenizer``: one hidden layer (or the mean of a range),
    pooled over every token, the first, the last non-padding one, or the target word's own."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("transformers", f"model spec {s.spec!r}")
        from transformers import AutoModel, AutoTokenizer

        self.settings = s
        self.device = torch_device(s.device)
        target = loc.target
        kwargs: dict[str, bool | str] = {"local_files_only": loc.folder is not None or not s.allow_download}
        if loc.folder is None and s.revision:
            kwargs["revision"] = s.revision
        # One tokenizer object per identical tokenizer files in this process (a zoo shares them).
        key = None if loc.folder is None else tokenizer_key(loc.folder, encoders_dir(s.cache))
        with _loading(s.spec, loc):
            self.tokenizer = shared_tokenizer(key, lambda: AutoTokenizer.from_pretrained(target, **kwargs))
            self.model = AutoModel.from_pretrained(target, **kwargs, **safetensors_only(s))
        self.model.eval().to(self.device)
        n_layers = getattr(self.model.config, "num_hidden_layers", None)
        if n_layers is not None:
            _check_layer(s.spec, s.layer, int(n_layers))
        # Right padding: a causal model's positions stay those of the unpadded text, and the
        # attention mask keeps the padding out of every token and every pooling.
        self.tokenizer.padding_side = "right"
        if self.tokenizer.pad_token is None:  # GPT-2 style: eos as pad (masked, never pooled)
            fallback = self.tokenizer.eos_token or self.tokenizer.unk_token or self.tokenizer.bos_token
            if fallback is None:
                raise ModelError(f"model spec {s.spec!r}: the tokenizer has no pad, end-of-sequence, unknown "
                                 "or beginning-of-sequence token to pad batches with")
            self.tokenizer.pad_token = fallback
        if s.pooling in WORD_POOLINGS and not getattr(self.tokenizer, "is_fast", False):
            raise ModelError(f"model spec {s.spec!r}: pooling={s.pooling} finds the word's tokens with the offset "
                             "mapping of a fast (Rust) tokenizer, and this model has none (no tokenizer.json)")
        self.max_length = max_positions(self.model, self.tokenizer)
        if s.max_length is not None:  # a catalog entry's own limit (sentence-transformers' max_seq_length)
            self.max_length = min(self.max_length, s.max_length)
        self.dim = int(getattr(self.model.config, "hidden_size", 0)) or None
        # Texts tokenized once per process and tokenizer (tokens.py), when the tokenizer's
        # encoding steps are transformers' own; else the tokenizer is called per batch.
        self.tokens = TextTokens(self.tokenizer, key, self.max_length) if direct(self.tokenizer) else None

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's number of tokens (cut to the model's positions).

        Every text is tokenized here, before the first batch runs the model: the tokens
        remembered for the next model (tokens.py) are then allocated before the model's
        large temporary buffers, not between them, where they held glibc's heap apart
        (the default run's worker peaked at 690-760 MB instead of 590-630 MB)."""
        if self.tokens is not None:
            return [len(r) for r in self.tokens.rows(texts)]
        with TOKENIZER_LOCK:  # a shared tokenizer's truncation is set per call
            ids = self.tokenizer(list(texts), truncation=True, max_length=self.max_length,
                                 verbose=False)["input_ids"]
        return [len(i) for i in ids]

    def batch_size(self, texts: Sequence[str], default: int) -> int:
        """``default`` on the CPU; on CUDA as many texts as its free memory holds
        (:func:`~wefe_same.models.encoders.settings.cuda_batch_size`)."""
        if self.device != "cuda" or not texts:
            return default
        tokens = max(self.token_counts(texts))
        n_layers = int(getattr(self.model.config, "num_hidden_layers", 0) or 12)
        return _cuda_batch(self.dim or 768, n_layers, tokens, default)

    def kept_chars(self, texts: Sequence[str]) -> list[int] | None:
        """Per text, the characters its tokens within the model's positions cover (:func:`kept_chars`)."""
        if self.tokens is not None:  # tokenized once per process: the rows are there already
            return [int(r[:, 3].max()) if len(r) else 0 for r in self.tokens.rows(texts)]
        return kept_chars(self.tokenizer, texts, self.max_length)

    def _warn_cut(self, long: Sequence[str]) -> None:
        warnings.warn(model_warning(
            f"model spec {self.settings.spec!r}: {len(long)} text(s) are longer than the model's "
            f"{self.max_length} positions and are cut to them (first: {long[0][:80]!r}); a word cut off "
            "gets no vector from that text", kind="texts cut"), stacklevel=3)

    def _tokenize(self, texts: list[str], offsets: bool) -> dict[str, Any]:
        """Padded to the longest text; texts longer than the model's positions are cut to them
        (with a warning naming how many, and the first)."""
        import torch

        if self.tokens is not None:
            batch = self.tokens.batch(texts, offsets)
            if batch.cut:
                self._warn_cut(batch.cut)
            return {k: torch.from_numpy(v) for k, v in batch.arrays.items()}
        with TOKENIZER_LOCK:  # a shared tokenizer's padding and truncation are set per call
            encoded = self.tokenizer(texts, padding=True, return_offsets_mapping=offsets, return_tensors="pt",
                                     verbose=False)
            if encoded["input_ids"].shape[1] <= self.max_length:
                return dict(encoded)
            lengths = encoded["attention_mask"].sum(dim=1)
            long = [t for t, n in zip(texts, lengths.tolist()) if n > self.max_length]
            encoded = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                                     return_offsets_mapping=offsets, return_tensors="pt", verbose=False)
        self._warn_cut(long)
        return dict(encoded)

    def encode(self, texts: list[str], spans: Sequence[Sequence[tuple[int, int]]] | None = None) -> np.ndarray:
        """One row per text: the pooled vectors (NaN rows where a word pooling finds no token)."""
        import torch

        s = self.settings
        word = s.pooling in WORD_POOLINGS
        batch = self._tokenize(texts, offsets=word)
        selected = None
        if word:  # alone (no spans), every character of a text is the word
            selected = word_tokens(batch.pop("offset_mapping"),
                                   spans if spans is not None else [[(0, len(t))] for t in texts])
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.inference_mode():
            out = self.model(**batch, output_hidden_states=s.layer != -1, return_dict=True)
            hidden = select_layers(out, s.layer)
            pooled = pool(hidden, batch["attention_mask"], s.pooling,
                          None if selected is None else selected.to(self.device))
            if s.normalize:  # a model that ends in sentence-transformers' Normalize module
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
            return pooled.float().cpu().numpy()


def kept_chars(tokenizer: Any, texts: Sequence[str], max_length: int) -> list[int] | None:
    """Per text, the end of the last character that a token within ``max_length`` covers: a
    word that starts at or after it is cut off (truncation keeps the start of a text). None
    for a tokenizer without an offset mapping (not a fast one): then nothing is known cut."""
    if not getattr(tokenizer, "is_fast", False):
        return None
    with TOKENIZER_LOCK:  # a shared tokenizer's truncation is set per call
        offsets = tokenizer(list(texts), truncation=True, max_length=max_length, return_offsets_mapping=True,
                            verbose=False)["offset_mapping"]
    return [max((int(end) for _, end in row), default=0) for row in offsets]


def _cuda_batch(hidden_size: int, n_layers: int, tokens: int, default: int) -> int:
    import torch

    free, _ = torch.cuda.mem_get_info()
    return max(default, cuda_batch_size(free, hidden_size, n_layers, tokens))


def max_positions(model: Any, tokenizer: Any) -> int:
    """The longest input the model takes, in tokens: its position table (less RoBERTa's offset
    of ``padding_idx + 1``) and the tokenizer's ``model_max_length``; 512 when neither says."""
    config = model.config
    limits = []
    for key in ("max_position_embeddings", "n_positions"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            offset = getattr(getattr(model, "embeddings", None), "padding_idx", None)
            limits.append(value - (offset + 1 if isinstance(offset, int) else 0))
            break
    tokenizer_limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(tokenizer_limit, int) and 0 < tokenizer_limit < 1_000_000:  # a huge value means unset
        limits.append(tokenizer_limit)
    return min(limits) if limits else 512


def select_layers(out: Any, layer: Layer) -> Any:
    """The hidden states of one layer, or the mean of an inclusive range of layers."""
    import torch

    if layer == -1:
        return out.last_hidden_state
    states = out.hidden_states
    if isinstance(layer, tuple):
        first, last = (end % len(states) for end in layer)
        return torch.stack(states[first:last + 1]).mean(dim=0)
    return states[layer]


def word_tokens(offsets: Any, spans: Sequence[Sequence[tuple[int, int]]]) -> Any:
    """(batch, tokens) bool: the tokens whose characters overlap one of the text's word spans.

    Special and padding tokens have the empty offset (0, 0) and never overlap; a byte-level
    token that carries the space before the word (GPT-2's ``Ġword``) overlaps the word and
    counts, a token of the space alone does not.
    """
    import torch

    start, end = offsets[..., 0], offsets[..., 1]
    out = torch.zeros(start.shape, dtype=torch.bool)
    for i, text_spans in enumerate(spans):
        for a, b in text_spans:
            out[i] |= (start[i] < b) & (end[i] > a) & (end[i] > start[i])
    return out


def pool(hidden: Any, mask: Any, pooling: str, selected: Any = None) -> Any:
    """(batch, tokens, d) → (batch, d) by ``pooling`` (see :mod:`wefe_same.models.encoders`).

    ``mean`` over the attention mask (special tokens included), ``cls`` the first token,
    ``last`` the last token the mask keeps; the ``word-*`` poolings over ``selected``
    (mean, first, last of the word's tokens), NaN where a text has none.
    """
    import torch

    positions = torch.arange(hidden.shape[1], device=hidden.device)
    if pooling == "cls":
        return hidden[:, 0]
    if pooling == "mean":
        m = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * m).sum(dim=1) / torch.clamp(m.sum(dim=1), min=1e-9)
    if pooling == "last":  # works for either padding side
        index = torch.where(mask.bool(), positions, -1).max(dim=1).values
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), index]
    keep = selected & mask.bool()
    if pooling == "word-mean":
        m = keep.unsqueeze(-1).to(hidden.dtype)
        out = (hidden * m).sum(dim=1) / m.sum(dim=1)  # 0/0 = NaN: no token of the word
    else:
        pick = (torch.where(keep, positions, hidden.shape[1]).min(dim=1).values if pooling == "word-first"
                else torch.where(keep, positions, -1).max(dim=1).values)
        rows = torch.arange(hidden.shape[0], device=hidden.device)
        out = hidden[rows, pick.clamp(0, hidden.shape[1] - 1)].clone()
        out[~keep.any(dim=1)] = float("nan")
    return out
