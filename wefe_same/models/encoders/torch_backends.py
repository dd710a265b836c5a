"""The torch backends: sentence-transformers (``sbert:``) and transformers ``AutoModel``
(``hf:``). torch and transformers are imported when a backend is made, never at import."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.encoders.settings import DOWNLOAD_FAILED, EncoderSettings, Location, _check_layer, require


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
        if loc.folder is not None:
            raise
        raise ModelError(DOWNLOAD_FAILED.format(spec=spec, location=loc.hub_id, error=_first_line(err))) from None


class _SbertBackend:
    """sentence-transformers: ``SentenceTransformer(folder).encode`` in eval mode."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("sentence_transformers", f"model spec {s.spec!r}")
        import torch
        from sentence_transformers import SentenceTransformer

        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        target = loc.target
        with _loading(s.spec, loc):
            self.model = SentenceTransformer(
                target, device=self.device, revision=None if loc.folder is not None else s.revision,
                local_files_only=loc.folder is not None or not s.allow_download,
            )
        self.model.eval()
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = dimension()

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return self.model.encode(texts, batch_size=len(texts), show_progress_bar=False,
                                     convert_to_numpy=True)


class _HfBackend:
    """transformers ``AutoModel`` + ``AutoTokenizer``, one hidden layer, mean or [CLS]."""

    def __init__(self, s: EncoderSettings, loc: Location) -> None:
        require("torch", f"model spec {s.spec!r}")
        require("transformers", f"model spec {s.spec!r}")
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.settings = s
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        target = loc.target
        kwargs: dict[str, bool | str] = {"local_files_only": loc.folder is not None or not s.allow_download}
        if loc.folder is None and s.revision:
            kwargs["revision"] = s.revision
        with _loading(s.spec, loc):
            self.tokenizer = AutoTokenizer.from_pretrained(target, **kwargs)
            self.model = AutoModel.from_pretrained(target, **kwargs)
        self.model.eval().to(self.device)
        n_layers = getattr(self.model.config, "num_hidden_layers", None)
        if n_layers is not None:
            _check_layer(s.spec, s.layer, int(n_layers))
        self.max_length = min(int(getattr(self.tokenizer, "model_max_length", 512) or 512), 512)
        self.dim = int(getattr(self.model.config, "hidden_size", 0)) or None

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        s = self.settings
        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                               return_tensors="pt").to(self.device)
        with torch.inference_mode():
            out = self.model(**batch, output_hidden_states=s.layer != -1, return_dict=True)
            hidden = out.last_hidden_state if s.layer == -1 else out.hidden_states[s.layer]
            if s.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / torch.clamp(mask.sum(dim=1), min=1e-9)
            return pooled.float().cpu().numpy()
