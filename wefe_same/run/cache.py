"""A persistent cache of per-model work: the vectors of a run's vocabulary and the scores.

Two kinds of entry, both keyed by what decides their content and never by the model's
name alone:

- **vectors**: the :class:`~wefe_same.scoring.vectors.VectorTable` of a run's words (exact
  float64 rows, the lookup statuses) and the model's description. Key: the source's
  ``identity()`` (file stats, package version, encoder settings: no model byte is
  read to compute it), the sorted words and a digest of the code that reads models.
- **scores**: a :class:`~wefe_same.scoring.model.ModelScores` (lookups, details, word_bias
  tables with their dtypes kept exactly, and any draw arrays). Key: the vectors key,
  the table's fingerprint (what the metrics actually saw), the model's name and
  ``plan.scoring_key()`` (words, options, seed, threshold, package and code version).

Layout: ``ROOT/v1/{vectors,scores}/ab/KEY.entry``. An entry is one file written
beside its final name and renamed into place (``os.replace``), so a run killed at any
point leaves either a whole entry or none. Its format is a small container, not a
pickle (loading a pickle runs code)::

    b"WEFESAME-CACHE 1\\n"  sha256(body) in hex  b"\\n"  body
    body = 8-byte little-endian header length, JSON header, raw little-endian arrays

The header names the entry's kind and key, its JSON-able fields and each array's
dtype, shape and offset. Reading checks the digest before parsing anything, then the
kind, the key, the dtypes and shapes: a damaged entry (truncated, a flipped byte, the
wrong key) is deleted with a :class:`~wefe_same.errors.WefeSameWarning` and
recomputed, never trusted.

>>> import tempfile
>>> from wefe_same.scoring.vectors import Lookup, VectorTable
>>> cache = ModelCache(tempfile.mkdtemp())
>>> table = VectorTable("toy", {"he": np.array([1.0, 2.0])}, [Lookup("he", "he", "exact")])
>>> key = vectors_key({"kind": "toy", "version": 1}, ["he"])
>>> cache.put_vectors(key, table, {"kind": "toy"})
>>> again, description = cache.get_vectors(key)
>>> again.raw.tolist(), again.fingerprint() == table.fingerprint(), description
([[1.0, 2.0]], True, {'kind': 'toy'})
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import socket
import struct
import tempfile
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wefe_same.cachedir import cache_dir as default_cache_dir
from wefe_same.errors import CacheError, WefeSameWarning
from wefe_same.scoring.vectors import Lookup, VectorTable
from wefe_same.processes import process_gone, process_start
from wefe_same.versions import code_digest

#: Bump when the entry format or what a key covers changes: old entries are then ignored.
FORMAT_VERSION = 1
MAGIC = b"WEFESAME-CACHE 1\n"
ENV_VAR = "WEFE_SAME_CACHE"
Kind = Literal["vectors", "scores"]
KINDS: tuple[Kind, ...] = ("vectors", "scores")
#: What a model's entry was in a run: its scores read from the cache, computed (and
#: written), or not cacheable (the source has no identity, or the cache is off).
CacheStatus = Literal["hit", "miss", "off"]

CACHE_UNUSABLE = ("cache directory {path}: {why}; choose another with --cache DIR (cache=...) "
                  "or turn the cache off with --no-cache (cache=False)")
DAMAGED = "cache entry {path} is damaged ({why}); deleted, the model is recomputed"
NOT_WRITTEN = "cache entry {path} could not be written ({why}); the run goes on without it"
#: Array dtypes an entry may hold: numbers and booleans, never Python objects.
_ARRAY_KINDS = "biuf"


class _Damaged(Exception):
    """An entry that fails a check; the message says which."""


class _Unstorable(Exception):
    """A value the entry format does not hold exactly (then nothing is cached)."""


# ----------------------------------------------------------------------------- location
def check_cache(path: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory, created if absent, once it is known to be writable.

    Call it before any work starts: an unusable directory is a :class:`CacheError`
    naming it, not a failure after the first model.

    >>> import tempfile
    >>> check_cache(Path(tempfile.mkdtemp()) / "new" / "cache").is_dir()
    True
    >>> check_cache("/proc/version")
    Traceback (most recent call last):
    ...
    wefe_same.errors.CacheError: cache directory /proc/version: exists and is not a directory; choose another with --cache DIR (cache=...) or turn the cache off with --no-cache (cache=False)
    """
    root = Path(path).expanduser() if path is not None else default_cache_dir()

    def fail(why: str) -> CacheError:
        return CacheError(CACHE_UNUSABLE.format(path=root, why=why))

    if root.exists() and not root.is_dir():
        raise fail("exists and is not a directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=root, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise fail(f"not writable ({err.strerror or type(err).__name__})") from None
    return root


# ----------------------------------------------------------------------------- keys
def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def vectors_key(identity: Mapping[str, Any], words: Iterable[str]) -> str:
    """The key of a model's vectors entry: its identity, the sorted words, the reader code.

    ``identity`` must be JSON-able (a :class:`CacheError` otherwise: a source bug).

    >>> vectors_key({"kind": "toy"}, ["b", "a"]) == vectors_key({"kind": "toy"}, ["a", "b", "a"])
    True
    """
    try:
        return _digest({"format": FORMAT_VERSION, "identity": identity, "words": sorted(set(words)),
                        "code": code_digest("models", "scoring/vectors.py")})
    except (TypeError, ValueError) as err:
        raise CacheError(f"a model identity must be a JSON-able dict, got {identity!r} ({err})") from None


def scores_key(vectors: str, fingerprint: str, name: str, scoring: str) -> str:
    """The key of a scores entry: the vectors entry it was computed from, the table's
    fingerprint, the model's name (it is in every table) and ``plan.scoring_key()``."""
    return _digest({"format": FORMAT_VERSION, "vectors": vectors, "fingerprint": fingerprint,
                    "name": name, "scoring": scoring})


# ----------------------------------------------------------------------------- values
def _encode_scalar(v: Any) -> Any:
    """One cell of an object or extension column as exact JSON (type kept)."""
    if v is None or isinstance(v, str) and type(v) is str:
        return v
    if v is pd.NA:
        return {"t": "NA"}
    for tag, kind in (("B", np.bool_), ("F", np.floating), ("I", np.integer)):
        if isinstance(v, kind):
            payload = float(v).hex() if tag == "F" else (bool(v) if tag == "B" else int(v))
            return {"t": tag, "d": v.dtype.str, "v": payload}
    if type(v) is bool:
        return {"t": "b", "v": v}
    if type(v) is int:
        return {"t": "i", "v": v}
    if type(v) is float:
        return {"t": "f", "v": v.hex()}
    raise _Unstorable(f"a cell of type {type(v).__name__}")


def _decode_scalar(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    tag = v["t"]
    if tag == "NA":
        return pd.NA
    if tag == "b":
        return bool(v["v"])
    if tag == "i":
        return int(v["v"])
    if tag == "f":
        return float.fromhex(v["v"])
    dtype = np.dtype(v["d"])
    if tag == "F":
        return dtype.type(float.fromhex(v["v"]))
    if tag in ("I", "B"):
        return dtype.type(v["v"])
    raise _Damaged(f"unknown cell tag {tag!r}")


def _encode_dtype(dtype: Any) -> dict[str, Any]:
    if isinstance(dtype, np.dtype):
        if dtype.kind in _ARRAY_KINDS or dtype == object:
            return {"np": dtype.str}
    elif isinstance(dtype, pd.StringDtype):
        return {"string": dtype.storage, "na": "NA" if dtype.na_value is pd.NA else "nan"}
    elif str(dtype) in ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
                        "Float32", "Float64", "boolean"):
        return {"ext": str(dtype)}
    raise _Unstorable(f"a column of dtype {dtype}")


def _decode_dtype(spec: Mapping[str, Any]) -> Any:
    if "np" in spec:
        return np.dtype(spec["np"])
    if "string" in spec:
        return pd.StringDtype(spec["string"], na_value=pd.NA if spec["na"] == "NA" else np.nan)
    return pd.api.types.pandas_dtype(spec["ext"])


class _Writer:
    """Collects the arrays of one entry while its JSON header is built."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, name: str, values: np.ndarray) -> dict[str, str]:
        values = np.asarray(values)
        if values.dtype.kind not in _ARRAY_KINDS:
            raise _Unstorable(f"an array {name!r} of dtype {values.dtype}")
        self.arrays[name] = values
        return {"array": name}

    def values(self, name: str, values: pd.Series | pd.Index) -> dict[str, Any]:
        """A column or an index: raw bytes for numbers, exact JSON cells for the rest."""
        dtype = _encode_dtype(values.dtype)
        if "np" in dtype and values.dtype != object:
            return {"dtype": dtype, **self.array(name, values.to_numpy())}
        if isinstance(values.dtype, pd.StringDtype) or all(v is None or type(v) is str for v in values):
            # Strings repeat (model, metric, word…): distinct values once, int32 codes, -1 missing.
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
            return {"dtype": dtype, "strings": [str(u) for u in uniques],
                    **self.array(name, codes.astype(np.int32))}
        cells = values.to_numpy(dtype=object, na_value=None) if "np" not in dtype else values.to_numpy()
        return {"dtype": dtype, "cells": [_encode_scalar(v) for v in cells]}

    def frame(self, name: str, frame: pd.DataFrame) -> dict[str, Any]:
        if frame.columns.has_duplicates or not all(isinstance(c, str) for c in frame.columns):
            raise _Unstorable(f"table {name!r} has duplicate or non-string column names")
        index = frame.index
        if isinstance(index, pd.RangeIndex):
            enc_index: dict[str, Any] = {"range": [index.start, index.stop, index.step]}
        else:
            enc_index = self.values(f"{name}/index", index)
        return {
            "columns": list(frame.columns),
            "columns_dtype": _encode_dtype(frame.columns.dtype),
            "index": {**enc_index, "name": index.name},
            "data": [self.values(f"{name}/{i}", frame.iloc[:, i]) for i in range(frame.shape[1])],
        }


class _Reader:
    """Turns a checked header and its arrays back into values."""

    def __init__(self, arrays: Mapping[str, np.ndarray]):
        self.arrays = arrays

    def array(self, spec: Mapping[str, Any]) -> np.ndarray:
        return self.arrays[spec["array"]]

    def values(self, spec: Mapping[str, Any], length: int | None, *, index: bool = False) -> Any:
        dtype = _decode_dtype(spec["dtype"])
        data: Any
        if "strings" in spec:
            codes = self.array(spec)
            strings = spec["strings"]
            if codes.dtype != np.int32 or codes.ndim != 1 or (len(codes) and not (
                    -1 <= codes.min() and codes.max() < len(strings))):
                raise _Damaged(f"string codes {spec['array']!r} do not fit their {len(strings)} strings")
            if isinstance(dtype, np.dtype):  # object: code -1 (missing) picks the None appended last
                data = np.array([*strings, None], dtype=object)[codes]
            else:  # through Arrow: 100x faster than from Python strings, and the same values
                import pyarrow as pa

                data = pd.array(pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0),
                                                               pa.array(strings, type=pa.large_string()))
                                .dictionary_decode(), dtype=dtype)
        elif "array" in spec:
            data = self.array(spec)
            if data.dtype != dtype or data.ndim != 1:
                raise _Damaged(f"array {spec['array']!r} is {data.dtype} {data.shape}, expected {dtype}")
        else:
            cells = [_decode_scalar(v) for v in spec["cells"]]
            if isinstance(dtype, np.dtype):  # object: cells as they were, None kept
                data = np.empty(len(cells), dtype=object)
                for i, v in enumerate(cells):
                    data[i] = v
            else:
                data = pd.array(cells, dtype=dtype)
        if length is not None and len(data) != length:
            raise _Damaged(f"a column of {len(data)} rows in a table of {length}")
        return pd.Index(data, dtype=dtype, copy=False) if index else data

    def frame(self, spec: Mapping[str, Any]) -> pd.DataFrame:
        ispec = spec["index"]
        if "range" in ispec:
            index = pd.RangeIndex(*ispec["range"], name=ispec["name"])
        else:
            index = self.values(ispec, None, index=True)
            index.name = ispec["name"]
        columns = pd.Index(spec["columns"], dtype=_decode_dtype(spec["columns_dtype"]))
        if len(spec["data"]) != len(columns):
            raise _Damaged("the number of columns does not match the column names")
        # Series with their dtype stated: pandas would infer "str" from an object array of strings.
        data = {i: pd.Series(self.values(s, len(index)), index=index, dtype=_decode_dtype(s["dtype"]), copy=False)
                for i, s in enumerate(spec["data"])}
        frame = pd.DataFrame(data, index=index, copy=False)
        frame.columns = columns
        return frame


# ----------------------------------------------------------------------------- container
def _pack(kind: Kind, key: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    blobs, layout, offset = [], {}, 0
    for name, arr in arrays.items():
        data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        layout[name] = {"dtype": arr.dtype.newbyteorder("<").str, "shape": list(arr.shape),
                        "offset": offset, "nbytes": len(data)}
        blobs.append(data)
        offset += len(data)
    header = json.dumps({"format": FORMAT_VERSION, "kind": kind, "key": key, "meta": meta, "arrays": layout},
                        sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii")
    body = struct.pack("<Q", len(header)) + header + b"".join(blobs)
    return MAGIC + hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body


def _unpack(data: bytes, kind: Kind, key: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Header meta and arrays of an entry, after every check; :class:`_Damaged` otherwise."""
    if not data.startswith(MAGIC):
        raise _Damaged("not a wefe_same cache entry" if data else "empty file")
    start = len(MAGIC) + 65
    stored, body = data[len(MAGIC):start - 1], data[start:]
    if data[start - 1:start] != b"\n" or hashlib.sha256(body).hexdigest().encode("ascii") != stored:
        raise _Damaged("checksum mismatch")
    (length,) = struct.unpack("<Q", body[:8])
    header = json.loads(body[8:8 + length])
    if header.get("format") != FORMAT_VERSION or header.get("kind") != kind or header.get("key") != key:
        raise _Damaged(f"it holds {header.get('kind')!r} entry {header.get('key')!r}")
    blob = memoryview(body)[8 + length:]
    arrays = {}
    for name, spec in header["arrays"].items():
        dtype = np.dtype(spec["dtype"])
        shape = tuple(int(n) for n in spec["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if dtype.kind not in _ARRAY_KINDS or count * dtype.itemsize != spec["nbytes"] or (
                spec["offset"] < 0 or spec["offset"] + spec["nbytes"] > len(blob)):
            raise _Damaged(f"array {name!r} does not fit its header")
        arr = np.frombuffer(blob, dtype=dtype, count=count, offset=spec["offset"]).reshape(shape)
        arrays[name] = arr.astype(dtype.newbyteorder("="), copy=True)
    return header["meta"], arrays


def _entry_values(obj: Any, writer: _Writer) -> dict[str, Any]:
    """Every field of a dataclass: tables, arrays and dicts of arrays, or plain JSON."""
    out: dict[str, Any] = {}
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if isinstance(value, pd.DataFrame):
            out[field.name] = {"frame": writer.frame(field.name, value)}
        elif isinstance(value, np.ndarray):
            out[field.name] = writer.array(field.name, value)
        elif isinstance(value, dict) and value and all(isinstance(v, np.ndarray) for v in value.values()):
            out[field.name] = {"arrays": {k: writer.array(f"{field.name}/{k}", v) for k, v in value.items()}}
        else:
            out[field.name] = {"json": value}
    return out


def _field_values(meta: Mapping[str, Any], reader: _Reader) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, spec in meta.items():
        if "frame" in spec:
            out[name] = reader.frame(spec["frame"])
        elif "array" in spec:
            out[name] = reader.array(spec)
        elif "arrays" in spec:
            out[name] = {k: reader.array(v) for k, v in spec["arrays"].items()}
        else:
            out[name] = spec["json"]
    return out


# ----------------------------------------------------------------------------- the cache
class ModelCache:
    """Vectors and scores entries under ``root`` (see the module docstring).

    Parameters
    ----------
    root : path, optional
        Default ``$WEFE_SAME_CACHE`` or the user's cache directory. Checked now
        (:func:`check_cache`): an unusable directory is a :class:`CacheError`.

    Reading never trusts an entry: one that fails a check is deleted, a
    :class:`WefeSameWarning` names it, and the caller recomputes. Writing never fails a
    run: an entry that cannot be written is a warning.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None):
        self.root = check_cache(root)
        self._base = self.root / f"v{FORMAT_VERSION}"
        self._remove_orphans()

    def __repr__(self) -> str:
        return f"ModelCache({str(self.root)!r})"

    def path(self, kind: Kind, key: str) -> Path:
        if kind not in KINDS or len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
            raise CacheError(f"cache key must be a sha256 hex digest of a {'/'.join(KINDS)} entry, got {kind}/{key}")
        return self._base / kind / key[:2] / f"{key}.entry"

    # -- raw entries
    def _write(self, kind: Kind, key: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        path = self.path(kind, key)
        data = _pack(kind, key, meta, arrays)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(), suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)  # atomic: readers see the old entry, none, or this whole one
        except OSError as err:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            warnings.warn(NOT_WRITTEN.format(path=path, why=err.strerror or type(err).__name__),
                          WefeSameWarning, stacklevel=3)

    def _read(self, kind: Kind, key: str, decode: Any) -> Any:
        """``decode(meta, arrays)`` of the entry, or None when absent or damaged (then deleted)."""
        path = self.path(kind, key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            warnings.warn(f"cache entry {path} cannot be read ({err.strerror}); the model is recomputed",
                          WefeSameWarning, stacklevel=3)
            return None
        try:
            meta, arrays = _unpack(data, kind, key)
            value = decode(meta, _Reader(arrays))
        # A damaged file can make json, struct, numpy or pandas raise almost anything; each
        # of those means "do not trust it". (Bugs elsewhere are not caught: this wraps only
        # the decoding of this one file.)
        except Exception as err:  # noqa: BLE001
            why = str(err) if isinstance(err, _Damaged) else f"{type(err).__name__}: {err}"
            path.unlink(missing_ok=True)
            warnings.warn(DAMAGED.format(path=path, why=why), WefeSameWarning, stacklevel=3)
            return None
        with contextlib.suppress(OSError):  # the modification time records the last use (see prune)
            os.utime(path)
        return value

    # -- vectors
    def put_vectors(self, key: str, table: VectorTable, description: Mapping[str, str]) -> None:
        """Store a model's VectorTable and description under a :func:`vectors_key`."""
        meta = {"model": table.model, "words": list(table.words), "fingerprint": table.fingerprint(),
                "lookups": [[lk.word, lk.found_as, lk.status] for lk in table.lookups],
                "description": dict(description)}
        self._write("vectors", key, meta, {"raw": table.raw})

    def get_vectors(self, key: str) -> tuple[VectorTable, dict[str, str]] | None:
        """(table, description), or None on a miss or a damaged entry."""
        return self._read("vectors", key, _decode_vectors)

    def peek_vectors(self, key: str) -> tuple[str, dict[str, str]] | None:
        """(fingerprint, description) of a vectors entry, checked, without building its table:
        all a scores lookup needs. None on a miss or a damaged entry."""
        return self._read("vectors", key, _peek_vectors)

    # -- scores
    def put_scores(self, key: str, scores: Any) -> None:
        """Store a ModelScores (any dataclass of tables, arrays and JSON) under a :func:`scores_key`.

        A value the format cannot hold exactly (an unusual dtype) is a warning and no entry:
        a cached table must be the very same table.
        """
        writer = _Writer()
        try:
            meta = _entry_values(scores, writer)
        except _Unstorable as err:
            warnings.warn(NOT_WRITTEN.format(path=self.path("scores", key), why=f"it holds {err}"),
                          WefeSameWarning, stacklevel=2)
            return
        self._write("scores", key, meta, writer.arrays)

    def get_scores(self, key: str, factory: Any = None) -> Any:
        """The stored ModelScores (built with ``factory``, default
        :class:`~wefe_same.scoring.model.ModelScores`), or None on a miss or a damaged entry."""
        if factory is None:
            from wefe_same.scoring.model import ModelScores as factory  # noqa: N813
        return self._read("scores", key, lambda meta, reader: factory(**_field_values(meta, reader)))

    # -- housekeeping
    def entries(self) -> list[Path]:
        """Every entry file, of both kinds."""
        return sorted(p for kind in KINDS for p in (self._base / kind).glob("*/*.entry"))

    def prune(self, max_bytes: int) -> int:
        """Delete the least recently used entries until at most ``max_bytes`` remain.

        Reading an entry marks it used (its modification time). Returns the bytes freed.
        Entries of older code versions are never read again, so they go first.
        """
        stats = []
        for path in self.entries():
            with contextlib.suppress(FileNotFoundError):
                st = path.stat()
                stats.append((st.st_mtime_ns, st.st_size, path))
        total, freed = sum(size for _, size, _ in stats), 0
        for _, size, path in sorted(stats):
            if total - freed <= max_bytes:
                break
            path.unlink(missing_ok=True)
            freed += size
        return freed

    def _remove_orphans(self) -> None:
        """Temporary files of this host's writers that died (SIGKILL) before renaming."""
        prefix = f".tmp-{socket.gethostname()}-"
        for kind in KINDS:
            for tmp in (self._base / kind).glob(f"*/{prefix}*"):
                pid, start = (tmp.name[len(prefix):].split("-") + ["", ""])[:2]
                if pid.isdigit() and process_gone(int(pid), int(start) or None if start.isdigit() else None):
                    tmp.unlink(missing_ok=True)


def _peek_vectors(meta: Mapping[str, Any], reader: _Reader) -> tuple[str, dict[str, str]]:
    raw = reader.arrays["raw"]
    words = meta["words"]
    if raw.dtype != np.float64 or raw.ndim != 2 or raw.shape[0] != len(words):
        raise _Damaged(f"vectors of shape {raw.shape} and dtype {raw.dtype} for {len(words)} words")
    return str(meta["fingerprint"]), dict(meta["description"])


def _decode_vectors(meta: Mapping[str, Any], reader: _Reader) -> tuple[VectorTable, dict[str, str]]:
    _peek_vectors(meta, reader)
    raw, words = reader.arrays["raw"], meta["words"]
    lookups = [Lookup(w, f, s) for w, f, s in meta["lookups"]]
    table = VectorTable(meta["model"], {w: raw[i] for i, w in enumerate(words)}, lookups)
    if table.fingerprint() != meta["fingerprint"]:
        raise _Damaged("the vectors do not match their fingerprint")
    return table, dict(meta["description"])


def _temp_prefix() -> str:
    # host, pid and start time: a later run removes it only when this process is gone
    return f".tmp-{socket.gethostname()}-{os.getpid()}-{process_start(os.getpid()) or 0}-"


