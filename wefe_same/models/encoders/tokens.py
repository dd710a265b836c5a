"""Tokenizers and tokenized texts shared by the ``hf:`` encoders of one process.

A zoo of models often shares one tokenizer (every BERT-base fine-tune has the same
vocabulary files), and the encoders' worker reads a run's encoders one after another in
one process (:mod:`wefe_same.run.score`), each for the same texts. So a tokenizer is
loaded once per identical tokenizer files, and each text is tokenized once per
tokenizer and truncation length; the next model with that tokenizer assembles its
padded batches from the remembered tokens.

The key of a tokenizer is the sha256 of its files (every file of the folder but the
weights, ``config.json`` and READMEs: a file missed would be a wrong share, a file too
many only a missed one) and the few ``config.json`` entries that ``AutoTokenizer`` reads
to pick the tokenizer class. Same key, same tokenizer object: the backend's settings on
it (right padding, a fallback pad token) depend on the files only.

Texts are tokenized with the Rust ``tokenizers`` backend directly (``encode_batch``),
with padding and truncation as transformers' ``PreTrainedTokenizerFast.__call__`` sets
them (pad to the longest text of the batch, on the right, with the pad token's id and
type id; ``longest_first`` truncation to the model's positions, only when a text is
longer), and the batch built with NumPy: the same ids, masks and offsets as
``tokenizer(texts, padding=True, ...)`` (tests/models/test_tokens.py checks it), about
half the time, and none of it again for the next model. A tokenizer class that
overrides transformers' encoding steps is called as before, batch by batch.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wefe_same.models.encoders.hashing import file_sha256

#: Files of a model folder that are not read by its tokenizer (weights, the model config).
_NOT_TOKENIZER_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".onnx", ".gguf",
                           ".pkl", ".md")
_NOT_TOKENIZER_NAMES = {"config.json", "generation_config.json", ".gitattributes", "desktop.ini"}
#: ``config.json`` entries ``AutoTokenizer`` reads to choose the tokenizer class.
_CONFIG_KEYS = ("model_type", "tokenizer_class", "model_name", "_name_or_path")
#: Tokenizers kept loaded, and the bytes of tokenized texts kept (all tokenizers together:
#: a text of 40 tokens is ~0.7 KB with its array's overhead, so ~90,000 such texts).
MAX_TOKENIZERS = 4
MAX_BYTES = 64 << 20
#: The transformers methods whose default behaviour the direct path reproduces.
_ENCODING_STEPS = ("__call__", "_call_one", "_encode_plus", "set_truncation_and_padding", "_convert_encoding",
                   "_get_padding_truncation_strategies", "_switch_to_input_mode")

#: Held while a shared tokenizer is set up and called: Dask may read two models in threads of one process.
TOKENIZER_LOCK = _LOCK = threading.RLock()
_TOKENIZERS: OrderedDict[str, Any] = OrderedDict()
#: (tokenizer key, max_length) → {text: (n, 4) int32 rows of id, type id, start, end}
_TOKENS: OrderedDict[tuple[str, int], dict[str, np.ndarray]] = OrderedDict()
#: (tokenizer key, max_length) → bytes of its rows (arrays and their overhead)
_BYTES: dict[tuple[str, int], int] = {}
#: (tokenizer key, max_length) → the texts that were cut to max_length
_CUT: dict[tuple[str, int], set[str]] = {}


def tokenizer_key(folder: Path, store_dir: Path) -> str:
    """sha256 over the tokenizer's files (names and contents) and the config entries that choose its class."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name not in _NOT_TOKENIZER_NAMES
                   and not p.name.startswith(".") and not p.name.lower().endswith(_NOT_TOKENIZER_SUFFIXES))
    config: dict = {}
    try:
        loaded = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        config = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    chosen = {k: config.get(k) for k in _CONFIG_KEYS}
    for part in ("encoder", "decoder"):
        if isinstance(config.get(part), dict):
            chosen[part] = config[part].get("model_type")
    h = hashlib.sha256(json.dumps(chosen, sort_keys=True, default=str).encode("utf-8"))
    for path, digest in zip(files, file_sha256(files, store_dir)):
        h.update(f"{path.name}\0{digest}\0".encode())
    return h.hexdigest()


def shared_tokenizer(key: str | None, load: Callable[[], Any]) -> Any:
    """The tokenizer of ``key``, loaded by ``load`` the first time (``key`` None: not shared)."""
    if key is None:
        return load()
    with _LOCK:
        if key in _TOKENIZERS:
            _TOKENIZERS.move_to_end(key)
            return _TOKENIZERS[key]
    tokenizer = load()
    with _LOCK:
        tokenizer = _TOKENIZERS.setdefault(key, tokenizer)
        while len(_TOKENIZERS) > MAX_TOKENIZERS:
            _TOKENIZERS.popitem(last=False)
    return tokenizer


def direct(tokenizer: Any) -> bool:
    """Whether the tokenizer's encoding steps are transformers' own (the direct path gives the same)."""
    try:
        from transformers.tokenization_utils_tokenizers import TokenizersBackend
    except ImportError:
        return False
    if not isinstance(tokenizer, TokenizersBackend):
        return False
    cls = type(tokenizer)
    return all(getattr(cls, name, None) is getattr(TokenizersBackend, name, None) for name in _ENCODING_STEPS)


@dataclass
class Batch:
    """A padded batch as NumPy arrays (right padding), and the texts that were cut."""

    arrays: dict[str, np.ndarray]
    cut: list[str]


class TextTokens:
    """Tokenize texts with one tokenizer at one truncation length, each text once per process.

    Parameters
    ----------
    tokenizer : transformers fast tokenizer (:func:`direct` is True)
    key : str or None
        :func:`tokenizer_key`; None: remembered for this object only.
    max_length : int
        Texts longer than this many tokens are cut to it (``longest_first``).
    """

    def __init__(self, tokenizer: Any, key: str | None, max_length: int) -> None:
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.key = (key if key is not None else f"private:{uuid.uuid4().hex}", self.max_length)
        self.names = [n for n in ("input_ids", "token_type_ids", "attention_mask")
                      if n == "input_ids" or n in tokenizer.model_input_names]

    def _encode(self, texts: list[str], truncate: bool) -> list[np.ndarray]:
        """(n, 4) rows per text: id, type id, start, end; padding and truncation as transformers sets them."""
        tk = self.tokenizer
        backend = tk._tokenizer
        backend.no_padding()
        if truncate:
            backend.enable_truncation(max_length=self.max_length, stride=0, strategy="longest_first",
                                      direction=tk.truncation_side)
        else:
            backend.no_truncation()
        if backend.encode_special_tokens != tk.split_special_tokens:
            backend.encode_special_tokens = tk.split_special_tokens
        out = []
        for e in backend.encode_batch(texts, add_special_tokens=True, is_pretokenized=False):
            rows = np.empty((len(e.ids), 4), dtype=np.int32)  # ids, types and offsets fit: half the memory
            rows[:, 0] = e.ids
            rows[:, 1] = e.type_ids
            rows[:, 2:] = np.asarray(e.offsets, dtype=np.int64).reshape(-1, 2)
            out.append(rows)
        return out

    def rows(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per text, its (n, 4) rows (id, type id, start, end), tokenized once per process."""
        return self._rows(list(texts))[0]

    def batch(self, texts: Sequence[str], offsets: bool) -> Batch:
        """The padded batch of ``texts`` (``offset_mapping`` too when ``offsets``)."""
        rows, cut = self._rows(list(texts))
        return Batch(self._pad(rows, offsets), cut)

    def _rows(self, texts: list[str]) -> tuple[list[np.ndarray], list[str]]:
        with _LOCK:
            known = _TOKENS.get(self.key)
            if known is None:
                known = _TOKENS[self.key] = {}
            _TOKENS.move_to_end(self.key)
            cut = _CUT.setdefault(self.key, set())
            new = list(dict.fromkeys(t for t in texts if t not in known))
            if new:
                encoded = dict(zip(new, self._encode(new, truncate=False)))
                long = [t for t in new if len(encoded[t]) > self.max_length]
                if long:
                    encoded.update(zip(long, self._encode(long, truncate=True)))
                    cut.update(long)
                known.update(encoded)
                _BYTES[self.key] = _BYTES.get(self.key, 0) + sum(_size(a) for a in encoded.values())
            rows = [known[t] for t in texts]
            cut_here = [t for t in texts if t in cut]
            if new:
                self._evict()
        return rows, cut_here

    def _pad(self, rows: list[np.ndarray], offsets: bool) -> dict[str, np.ndarray]:
        tk = self.tokenizer
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        width = int(lengths.max()) if len(rows) else 0
        keep = np.arange(width) < lengths[:, None]
        flat = np.concatenate(rows) if rows else np.zeros((0, 4), dtype=np.int64)
        ids = np.full((len(rows), width), tk.pad_token_id, dtype=np.int64)
        ids[keep] = flat[:, 0]
        out: dict[str, np.ndarray] = {"input_ids": ids}
        if "token_type_ids" in self.names:
            types = np.full((len(rows), width), tk.pad_token_type_id, dtype=np.int64)
            types[keep] = flat[:, 1]
            out["token_type_ids"] = types
        if "attention_mask" in self.names:
            out["attention_mask"] = keep.astype(np.int64)
        if offsets:
            spans = np.zeros((len(rows), width, 2), dtype=np.int64)
            spans[keep] = flat[:, 2:]
            out["offset_mapping"] = spans
        return out

    def _evict(self) -> None:
        """Forget the least recently used tokenizers' texts beyond :data:`MAX_BYTES` (caller holds the lock)."""
        while len(_TOKENS) > 1 and sum(_BYTES.values()) > MAX_BYTES:
            old, _ = _TOKENS.popitem(last=False)
            _CUT.pop(old, None)
            _BYTES.pop(old, None)
        if _TOKENS and sum(_BYTES.values()) > MAX_BYTES:  # one tokenizer's texts alone
            only = next(iter(_TOKENS))
            _TOKENS[only].clear()
            _CUT.pop(only, None)
            _BYTES[only] = 0


def _size(rows: np.ndarray) -> int:
    """Bytes a remembered text takes: its rows and the array object around them."""
    return rows.nbytes + 112


def forget() -> None:
    """Drop every shared tokenizer and tokenized text (tests)."""
    with _LOCK:
        _TOKENIZERS.clear()
        _TOKENS.clear()
        _CUT.clear()
        _BYTES.clear()
