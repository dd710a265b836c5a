"""The cache's entry format: tables, arrays and JSON in one checked container, never a pickle.

Loading a pickle runs code, so an entry is a small container instead::

    b"WEFESAME-CACHE <FORMAT_VERSION>\\n"  sha256(body) in hex  b"\\n"  body
    body = 8-byte little-endian header length, JSON header, raw little-endian arrays

The header names the entry's kind and key, its JSON-able fields and each array's
dtype, shape and offset. :func:`unpack` checks the digest before parsing anything, then
the kind, the key, the dtypes and shapes, and raises :class:`_Damaged` on any mismatch.
Table cells keep their exact type (floats as hex, nullable dtypes, ``None`` against NaN).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

#: Bump when the entry format or what a key covers changes: old entries are then ignored.
FORMAT_VERSION = 2
MAGIC = f"WEFESAME-CACHE {FORMAT_VERSION}\n".encode("ascii")
#: Array dtypes an entry may hold: numbers and booleans, never Python objects.
ARRAY_KINDS = "biuf"


class _Damaged(Exception):
    """An entry that fails a check; the message says which."""


class _Unstorable(Exception):
    """A value the entry format does not hold exactly (then nothing is cached)."""


def _encode_scalar(v: Any) -> Any:
    """One cell of an object or extension column as exact JSON (type kept)."""
    if v is None or (isinstance(v, str) and type(v) is str):
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
        if dtype.kind in ARRAY_KINDS or dtype == np.dtype(object):
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


class Writer:
    """Collects the arrays of one entry while its JSON header is built."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, name: str, values: np.ndarray) -> dict[str, str]:
        values = np.asarray(values)
        if values.dtype.kind not in ARRAY_KINDS:
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


class Reader:
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
class Packed:
    """An entry ready to be written: its header, and its arrays as little-endian bytes
    (views of the arrays, not copies: an encoder's vectors entry is tens of megabytes,
    and joining copies of it tripled that in the writing process)."""

    def __init__(self, kind: str, key: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]):
        self.blobs: list[np.ndarray] = []
        layout, offset = {}, 0
        for name, arr in arrays.items():
            little = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))  # no copy when it already is
            data = little.reshape(-1).view(np.uint8)
            layout[name] = {"dtype": little.dtype.str, "shape": list(arr.shape), "offset": offset,
                            "nbytes": int(data.size)}
            self.blobs.append(data)
            offset += int(data.size)
        header = json.dumps({"format": FORMAT_VERSION, "kind": kind, "key": key, "meta": meta, "arrays": layout},
                            sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii")
        self.head = struct.pack("<Q", len(header)) + header

    def write(self, fh: Any) -> None:
        """Write the entry to a seekable binary file at its start, hashing as it goes."""
        digest = hashlib.sha256(self.head)
        fh.write(MAGIC + b"0" * 64 + b"\n")
        fh.write(self.head)
        for blob in self.blobs:
            digest.update(blob.data)
            fh.write(blob)
        fh.seek(len(MAGIC))
        fh.write(digest.hexdigest().encode("ascii"))


def pack(kind: str, key: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    """The bytes of an entry (:class:`Packed` writes the same bytes to a file)."""
    import io

    buffer = io.BytesIO()
    Packed(kind, key, meta, arrays).write(buffer)
    return buffer.getvalue()


def unpack(data: bytes, kind: str, key: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
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
        if dtype.kind not in ARRAY_KINDS or count * dtype.itemsize != spec["nbytes"] or (
                spec["offset"] < 0 or spec["offset"] + spec["nbytes"] > len(blob)):
            raise _Damaged(f"array {name!r} does not fit its header")
        arr = np.frombuffer(blob, dtype=dtype, count=count, offset=spec["offset"]).reshape(shape)
        arrays[name] = arr.astype(dtype.newbyteorder("="), copy=True)
    return header["meta"], arrays


def entry_values(obj: Any, writer: Writer) -> dict[str, Any]:
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


def field_values(meta: Mapping[str, Any], reader: Reader) -> dict[str, Any]:
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
