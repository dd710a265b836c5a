"""A model folder's weight files checked before anything is loaded: safetensors from their
headers, pickles refused unless trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from wefe_same.errors import ModelError
from wefe_same.models.encoders.hashing import hashed_before

if TYPE_CHECKING:
    from wefe_same.models.encoders.settings import EncoderSettings

#: A safetensors header larger than this is no header (the format caps it at 100 MB).
MAX_SAFETENSORS_HEADER = 100_000_000
DAMAGED_WEIGHTS = "model spec {spec!r}: {file} is not a readable safetensors file ({problem})"


def check_safetensors(spec: str, folder: Path, store_dir: Path) -> None:
    """Refuse a folder whose ``.safetensors`` file is cut or damaged, from its header alone
    (nothing of the weights is read): the loader would fail on it with its own traceback
    later, after other models' work, and ``--skip-unloadable`` could not skip it.

    A file hashed before with the same stats (:func:`.hashing.hashed_before`: it passed
    this check then, since a model's files are hashed after it) is not opened, so a run
    whose scores are cached still opens no model file.
    """
    for file in sorted(folder.rglob("*.safetensors")):
        if not file.is_file() or hashed_before(file, store_dir):
            continue
        problem = safetensors_problem(file)
        if problem:
            raise ModelError(DAMAGED_WEIGHTS.format(spec=spec, file=file, problem=problem))


def safetensors_problem(file: Path) -> str | None:
    """Why ``file`` is not a whole safetensors file (None when its header and size agree).

    The format: an 8-byte little-endian header length n, n bytes of JSON mapping each
    tensor to its ``data_offsets`` [begin, end] in the data that follows, and the data,
    which the tensors cover exactly.
    """
    try:
        size = file.stat().st_size
        with open(file, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                return f"{size} bytes: shorter than its 8-byte header length"
            n = int.from_bytes(head, "little")
            if n > min(size - 8, MAX_SAFETENSORS_HEADER):
                return f"its header length {n} is beyond its {size} bytes"
            header = json.loads(fh.read(n).decode("utf-8"))
    except OSError as err:
        return err.strerror or str(err)
    except (ValueError, RecursionError):
        return "its header is not JSON"
    if not isinstance(header, dict):
        return "its header is not a JSON object"
    ends = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
        if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(x) is int for x in offsets)
                or not 0 <= offsets[0] <= offsets[1]):
            return f"tensor {name[:80]!r} has no valid data_offsets"
        ends.append(offsets[1])
    expected = 8 + n + max(ends, default=0)
    if expected != size:
        return f"{size} bytes where its header describes {expected}: cut short or padded"
    return None


#: Weight files that are pickles (loading one can run code), and the safe format.
PICKLED_WEIGHTS = ("*.bin", "*.pt", "*.pth", "*.ckpt", "*.pkl")
PICKLED = (
    "model spec {spec!r}: {file} holds pickled weights (loading them can run code) and no .safetensors "
    "file stands beside it; pass --trust-pickle (trust_pickle=True) if you trust the file, or convert it "
    "to safetensors"
)


def check_weights(spec: str, folder: Path, *, trust_pickle: bool) -> None:
    """Refuse a folder whose weights exist only as pickles (``pytorch_model.bin``) unless trusted.

    Checked per folder (a sentence-transformers model keeps modules in subfolders); where a
    ``.safetensors`` file stands beside the pickle, the loaders are told to use it
    (:func:`safetensors_only`) and the pickle is never opened.
    """
    if trust_pickle:
        return
    for pattern in PICKLED_WEIGHTS:
        for file in sorted(folder.rglob(pattern)):
            if file.is_file() and _is_pickle(file) and not any(file.parent.glob("*.safetensors")):
                raise ModelError(PICKLED.format(spec=spec, file=file))


def _is_pickle(file: Path) -> bool:
    """torch.save's zip container or a bare pickle (protocol 2+ starts with 0x80); an
    OpenVINO ``.bin`` of raw numbers is neither."""
    try:
        with open(file, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return True  # unreadable: the loader would fail on it anyway; refuse rather than guess
    return head.startswith(b"PK\x03\x04") or head[:1] == b"\x80"


def safetensors_only(s: EncoderSettings) -> dict[str, bool]:
    """``from_pretrained`` options: safetensors only, unless pickles are trusted."""
    return {} if s.trust_pickle else {"use_safetensors": True}
