"""ONNX sentence encoders: onnxruntime, a ``tokenizers`` tokenizer and the model's pooling.

Used by the catalog's ONNX entries (:mod:`wefe_same.models.catalog`). The graph is
run as exported; its first float output of shape (batch, tokens, d) is the token
vectors, pooled here as the model card says (mean over the attention mask, [CLS] and
[SEP] included, as sentence-transformers' Pooling does; or the [CLS] token) and, when
the model has a Normalize module, scaled to unit length.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.encoders.settings import EncoderSettings, require


class OnnxBackend:
    """Tokenise with ``tokenizers``, run the graph with onnxruntime, pool, normalise."""

    def __init__(self, s: EncoderSettings) -> None:
        what = f"model {s.spec!r}"
        require("onnxruntime", what)
        require("tokenizers", what)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.settings = s
        try:
            self.tokenizer = Tokenizer.from_file(str(s.tokenizer_file))
        except Exception as err:  # the Rust tokenizer raises its own exception type
            raise ModelError(f"{what}: cannot read the tokenizer {s.tokenizer_file} ({err})") from None
        self.tokenizer.no_padding()
        if s.max_length:
            self.tokenizer.enable_truncation(max_length=int(s.max_length))
        else:
            self.tokenizer.no_truncation()
        # --device cpu keeps onnxruntime on the CPU; otherwise its CUDA provider when installed.
        wanted = ("CPUExecutionProvider",) if s.device == "cpu" else ("CUDAExecutionProvider", "CPUExecutionProvider")
        providers = [p for p in wanted if p in ort.get_available_providers()]
        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only
        try:
            self.session = ort.InferenceSession(str(s.onnx_file), sess_options=options, providers=providers)
        except Exception as err:  # onnxruntime raises its own exception types
            raise ModelError(f"{what}: cannot load the ONNX graph {s.onnx_file} ({err})") from None
        self.device = self.session.get_providers()[0]
        self.inputs = [i.name for i in self.session.get_inputs()]
        unknown = set(self.inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise ModelError(f"{what}: the ONNX graph has inputs {sorted(unknown)} that a BERT tokenizer does not make")
        tokens = [o for o in self.session.get_outputs() if o.type == "tensor(float)" and len(o.shape) == 3]
        if not tokens:
            raise ModelError(f"{what}: the ONNX graph has no (batch, tokens, d) float output to pool")
        self.output = tokens[0].name
        dim = tokens[0].shape[-1]
        self.dim = dim if isinstance(dim, int) else None

    def batch_size(self, texts: Any, default: int) -> int:
        """The source's batch size (onnxruntime sizes its own buffers)."""
        return default

    def token_counts(self, texts: list[str]) -> list[int]:
        """Each text's number of tokens (cut to the model's limit)."""
        return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]

    def kept_chars(self, texts: list[str]) -> list[int] | None:
        """Per text, the end of the last character its tokens within ``max_length`` cover (None:
        no truncation, nothing is cut)."""
        if not self.settings.max_length:
            return None
        return [max((end for _, end in e.offsets), default=0) for e in self.tokenizer.encode_batch(list(texts))]

    def feeds(self, texts: list[str]) -> dict[str, np.ndarray]:
        """The graph's inputs for ``texts``, padded to the longest (pad id 0, mask 0)."""
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for i, e in enumerate(encodings):
            n = len(e.ids)
            ids[i, :n] = e.ids
            mask[i, :n] = e.attention_mask
            types[i, :n] = e.type_ids
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: available[name] for name in self.inputs}

    def run(self, texts: list[str]) -> tuple[dict[str, np.ndarray], list[Any]]:
        """(inputs, every output of the graph): for tests that compare with the graph's own pooling."""
        feeds = self.feeds(texts)
        return feeds, self.session.run(None, feeds)

    def encode(self, texts: list[str], spans: Any = None) -> np.ndarray:
        """Pooled sentence vectors (``spans`` are not used: the ONNX entries pool sentences)."""
        s = self.settings
        feeds = self.feeds(texts)
        (hidden,) = self.session.run([self.output], feeds)
        hidden = hidden.astype(np.float32, copy=False)
        if s.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        if s.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.clip(norms, 1e-12, None)  # as torch.nn.functional.normalize
        return pooled
