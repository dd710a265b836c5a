"""A model folder's weight files checked from their headers before anything is loaded."""

from __future__ import annotations

import json
from pathlib import Path

from wefe_same.errors import ModelError
from wefe_same.models.encoders.hashing import hashed_before

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
