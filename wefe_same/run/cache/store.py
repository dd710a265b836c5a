"""``ModelCache``: per-model entries on disk, written atomically, never trusted when read.

Layout: ``ROOT/v<FORMAT_VERSION>/{vectors,scores,quality,likelihood,lipstick}/ab/KEY.entry``. An entry is one
file written beside its final name and renamed into place (``os.replace``), so a run
killed at any point leaves either a whole entry or none. Reading checks the entry
(:mod:`.codec`): a damaged one (truncated, a flipped byte, the wrong key) is deleted
with a :class:`~wefe_same.errors.WefeSameWarning` and recomputed.

>>> import tempfile
>>> from wefe_same.run.cache.keys import vectors_key
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
import json
import os
import socket
import stat
import struct
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wefe_same.errors import CacheError, WefeSameWarning
from wefe_same.processes import left_by_dead_process, owner_tag
from wefe_same.run.cache.codec import (
    FORMAT_VERSION,
    MAGIC,
    Packed,
    Reader,
    Writer,
    _Damaged,
    _Unstorable,
    entry_values,
    field_values,
    unpack,
)
from wefe_same.run.cache.location import check_cache
from wefe_same.scoring.scores import ModelScores
from wefe_same.scoring.vectors import Lookup, VectorTable
from wefe_same.validation import read_regular_file

Kind = Literal["vectors", "scores", "quality", "likelihood", "lipstick"]
KINDS: tuple[Kind, ...] = ("vectors", "scores", "quality", "likelihood", "lipstick")
#: What a model's entry was in a run: its scores read from the cache, computed (and
#: written), or not cacheable (the source has no identity, or the cache is off).
CacheStatus = Literal["hit", "miss", "off"]

DAMAGED = "cache entry {path} is damaged ({why}); deleted, the model is recomputed"
NOT_WRITTEN = "cache entry {path} could not be written ({why}); the run goes on without it"
#: An entry holds one model's vectors of the query words and its scores (megabytes); a
#: larger file there is not one the tool wrote whole, and is not read.
CACHE_ENTRY_MAX_BYTES = 2 << 30


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
        if os.path.lexists(path) and not path.is_file():  # something the tool did not write: left alone
            warnings.warn(NOT_WRITTEN.format(path=path, why="something that is not a regular file is there"),
                          WefeSameWarning, stacklevel=3)
            return
        packed = Packed(kind, key, meta, arrays)  # the header is built (and may fail) before any file
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(), suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                packed.write(fh)  # streamed: the arrays are not copied into one bytes object
            os.replace(tmp, path)  # atomic: readers see the old entry, none, or this whole one
        except OSError as err:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            warnings.warn(NOT_WRITTEN.format(path=path, why=err.strerror or type(err).__name__),
                          WefeSameWarning, stacklevel=3)

    def _read(self, kind: Kind, key: str, decode: Any) -> Any:
        """``decode(meta, arrays)`` of the entry, or None when absent or damaged (then deleted)."""
        path = self.path(kind, key)
        if not os.path.lexists(path):
            return None
        try:  # a regular file under the cap: a FIFO put there would block, /dev/zero never end
            data = read_regular_file(path, what="cache entry", error=CacheError, max_bytes=CACHE_ENTRY_MAX_BYTES)
        except CacheError as err:  # not deleted: the tool did not write it
            warnings.warn(f"{err}; the model is recomputed", WefeSameWarning, stacklevel=3)
            return None
        try:
            meta, arrays = unpack(data, kind, key)
            value = decode(meta, Reader(arrays))
        # A damaged file can make json, struct, numpy or pandas raise almost anything; each
        # of those means "do not trust it". (Bugs elsewhere are not caught: this wraps only
        # the decoding of this one file.)
        except Exception as err:
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
                **({} if table.items is None else {"items": {w: r.tolist() for w, r in table.items.items()}}),
                "lookups": [[lk.word, lk.found_as, lk.status] for lk in table.lookups],
                "description": dict(description)}
        self._write("vectors", key, meta, {"raw": table.raw})

    def get_vectors(self, key: str) -> tuple[VectorTable, dict[str, str]] | None:
        """(table, description), or None on a miss or a damaged entry."""
        return self._read("vectors", key, _decode_vectors)

    def vectors_fingerprint(self, key: str) -> str | None:
        """The table fingerprint a vectors entry records, read from its header alone.

        A cached run needs a model's fingerprint only to find its scores entry; reading and
        decoding every model's vectors for it took most of a cached run's cache time. The
        header is not checked against the entry's checksum (that needs the whole file): the
        value only names the scores entry to look for, which is checked whole when read and
        must hold the same fingerprint (:meth:`get_scores`). A damaged header finds no
        scores entry, and the caller then reads the vectors whole, which deletes a damaged
        entry. None on a miss or an unreadable header.
        """
        path = self.path("vectors", key)
        if not os.path.lexists(path):
            return None
        try:
            header = _read_header(path)
        except (OSError, ValueError):
            return None
        meta = header.get("meta") if isinstance(header, dict) else None
        fingerprint = meta.get("fingerprint") if isinstance(meta, dict) else None
        if (header.get("format") != FORMAT_VERSION or header.get("kind") != "vectors" or header.get("key") != key
                or not isinstance(fingerprint, str) or len(fingerprint) != 64):
            return None
        with contextlib.suppress(OSError):  # used: see prune
            os.utime(path)
        return fingerprint

    # -- scores
    def put_scores(self, key: str, scores: Any) -> None:
        """Store a ModelScores (any dataclass of tables, arrays and JSON) under a :func:`scores_key`.

        A value the format cannot hold exactly (an unusual dtype) is a warning and no entry:
        a cached table must be the very same table.
        """
        writer = Writer()
        try:
            meta = entry_values(scores, writer)
        except _Unstorable as err:
            warnings.warn(NOT_WRITTEN.format(path=self.path("scores", key), why=f"it holds {err}"),
                          WefeSameWarning, stacklevel=2)
            return
        self._write("scores", key, meta, writer.arrays)

    def get_scores(self, key: str) -> ModelScores | None:
        """The stored :class:`~wefe_same.scoring.scores.ModelScores`, or None on a miss or a damaged entry."""
        return self._read("scores", key, lambda meta, reader: ModelScores(**field_values(meta, reader)))

    # -- quality and lipstick rows: a table and the warnings computing it gave
    def _put_rows(self, kind: Kind, key: str, rows: pd.DataFrame, warned: Sequence[str]) -> None:
        writer = Writer()
        try:
            meta = {"rows": writer.frame("rows", rows), "warnings": list(warned)}
        except _Unstorable as err:
            warnings.warn(NOT_WRITTEN.format(path=self.path(kind, key), why=f"it holds {err}"),
                          WefeSameWarning, stacklevel=3)
            return
        self._write(kind, key, meta, writer.arrays)

    def _get_rows(self, kind: Kind, key: str) -> tuple[pd.DataFrame, list[str]] | None:
        return self._read(kind, key, lambda meta, reader: (reader.frame(meta["rows"]),
                                                           [str(w) for w in meta["warnings"]]))

    def put_quality(self, key: str, rows: pd.DataFrame, warned: Sequence[str]) -> None:
        """Store a model's quality rows and the warnings evaluating them gave, under a
        :func:`~wefe_same.run.cache.keys.quality_key`."""
        self._put_rows("quality", key, rows, warned)

    def get_quality(self, key: str) -> tuple[pd.DataFrame, list[str]] | None:
        """(rows, warnings), or None on a miss or a damaged entry."""
        return self._get_rows("quality", key)

    def put_lipstick(self, key: str, rows: pd.DataFrame, warned: Sequence[str]) -> None:
        """Store a pair's lipstick rows and the warnings computing them gave, under a
        :func:`~wefe_same.run.cache.keys.lipstick_key`."""
        self._put_rows("lipstick", key, rows, warned)

    def get_lipstick(self, key: str) -> tuple[pd.DataFrame, list[str]] | None:
        """(rows, warnings), or None on a miss or a damaged entry."""
        return self._get_rows("lipstick", key)

    # -- likelihood
    def put_likelihood(self, key: str, scores: pd.DataFrame, items: pd.DataFrame) -> None:
        """Store a model's likelihood tables under a :func:`~wefe_same.run.cache.keys.likelihood_key`."""
        writer = Writer()
        try:
            meta = {"scores": writer.frame("scores", scores), "items": writer.frame("items", items)}
        except _Unstorable as err:
            warnings.warn(NOT_WRITTEN.format(path=self.path("likelihood", key), why=f"it holds {err}"),
                          WefeSameWarning, stacklevel=2)
            return
        self._write("likelihood", key, meta, writer.arrays)

    def get_likelihood(self, key: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
        """(scores, items), or None on a miss or a damaged entry."""
        return self._read("likelihood", key, lambda meta, reader: (reader.frame(meta["scores"]),
                                                                   reader.frame(meta["items"])))

    # -- housekeeping
    def entries(self) -> list[Path]:
        """Every entry file, of every kind."""
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
        for kind in KINDS:
            for tmp in (self._base / kind).glob(f"*/.tmp-{socket.gethostname()}-*.tmp"):
                if left_by_dead_process(tmp.name[len(".tmp-"):-len(".tmp")]):
                    tmp.unlink(missing_ok=True)


def _decode_vectors(meta: Mapping[str, Any], reader: Reader) -> tuple[VectorTable, dict[str, str]]:
    raw, words = reader.arrays["raw"], meta["words"]
    if raw.dtype != np.float64 or raw.ndim != 2 or raw.shape[0] != len(words):
        raise _Damaged(f"vectors of shape {raw.shape} and dtype {raw.dtype} for {len(words)} words")
    lookups = [Lookup(w, f, s) for w, f, s in meta["lookups"]]
    if "items" in meta:  # an item table (an encoder's sentences in templates)
        items = {w: np.asarray(r, dtype=np.int64) for w, r in meta["items"].items()}
        if any(len(r) == 0 or r.min() < 0 or r.max() >= len(words) for r in items.values()):
            raise _Damaged("an item row is outside the table")
        table = VectorTable.from_items(meta["model"], words, raw, items, lookups)
    else:
        table = VectorTable(meta["model"], {w: raw[i] for i, w in enumerate(words)}, lookups)
    if table.fingerprint() != meta["fingerprint"]:
        raise _Damaged("the vectors do not match their fingerprint")
    return table, dict(meta["description"])


#: The most header bytes :func:`_read_header` reads (the words and lookups of a run: kilobytes).
HEADER_MAX_BYTES = 64 << 20


def _read_header(path: Path) -> Any:
    """The JSON header of an entry (:mod:`.codec`'s layout) without reading its arrays;
    ValueError when the file is not a regular file or not laid out as an entry."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # a FIFO would block, /dev/zero never end
            raise ValueError("not a regular file")
        start = len(MAGIC) + 65
        head = fh.read(start + 8)
        if len(head) != start + 8 or not head.startswith(MAGIC):
            raise ValueError("not an entry")
        (length,) = struct.unpack("<Q", head[start:])
        if length > HEADER_MAX_BYTES:
            raise ValueError("header too large")
        return json.loads(fh.read(length))


def _temp_prefix() -> str:
    # host, pid and start time: a later run removes it only when this process is gone
    return f".tmp-{owner_tag()}"
