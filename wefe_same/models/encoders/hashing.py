"""sha256 of a model's files, computed once per file version (path, size, mtime_ns,
ctime_ns, inode) and remembered in this process and in a JSON store in the encoder cache
folder, so the cache key of an unchanged model costs ``os.stat`` calls only.

The inode change time is set by the kernel on every write, ``touch`` and ``os.utime``
and cannot be set back by a user, so an edit that restores the size and the mtime still
makes a new version (:func:`~wefe_same.models.readers.files.file_identity` says what the
stats cannot see)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from wefe_same.versions import sha256_file

#: Files that do not change the vectors, left out of a folder's fingerprint.
_IGNORED_FILES = {"README.md", "desktop.ini", ".gitattributes"}
#: sha256 of files already hashed in this process, by (path, size, mtime_ns, ctime_ns, inode).
_HASHES: dict[tuple[str, int, int, int, int], str] = {}
_HASH_STORE = "sha256.json"


def _stat_key(path: Path) -> tuple[str, int, int, int, int]:
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino


def _load_hash_store(store: Path) -> dict[str, str]:
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def _save_hash_store(store: Path, entries: dict[str, str]) -> None:
    """Write the store beside itself and rename it into place; a cache, so failures are ignored."""
    tmp: str | None = None
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{store.name}.", dir=store.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entries, fh, indent=0, sort_keys=True)
        os.replace(tmp, store)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def file_sha256(paths: Sequence[Path], store_dir: Path) -> list[str]:
    """sha256 of each file's bytes, read once per (path, size, mtime_ns, ctime_ns, inode).

    Hashes are remembered in this process and in ``sha256.json`` in ``store_dir`` (the
    encoder folder of the cache directory, :func:`wefe_same.cachedir.cache_dir`), so the
    cache key of an unchanged model costs ``os.stat`` calls only, and a run whose scores
    are cached opens no model file. A file replaced or touched gets a new size, mtime,
    ctime or inode and is hashed again.
    """
    keys = [_stat_key(Path(p)) for p in paths]
    missing = [k for k in keys if k not in _HASHES]
    if missing:
        store = store_dir / _HASH_STORE
        entries = _load_hash_store(store)
        new = False
        for key in missing:
            text = "\0".join(map(str, key))
            if text not in entries:
                entries[text] = sha256_file(Path(key[0]))
                new = True
            _HASHES[key] = entries[text]
        if new:
            _save_hash_store(store, entries)
    return [_HASHES[k] for k in keys]


def hashed_before(path: Path, store_dir: Path) -> bool:
    """Whether ``path``, with its current stats, was hashed before (in this process or the
    store): a file read whole then, and unchanged since."""
    key = _stat_key(path)
    return key in _HASHES or "\0".join(map(str, key)) in _load_hash_store(store_dir / _HASH_STORE)


def known_sha256(paths: Sequence[Path], store_dir: Path) -> list[str | None]:
    """The sha256 of each file already remembered for its current version (in this process
    or in ``store_dir``'s store), else None: no model file is read."""
    keys = [_stat_key(Path(p)) for p in paths]
    entries = _load_hash_store(store_dir / _HASH_STORE) if any(k not in _HASHES for k in keys) else {}
    return [_HASHES.get(k) or entries.get("\0".join(map(str, k))) for k in keys]


def files_sha256(paths: Sequence[Path], root: Path | None = None, *, store_dir: Path) -> dict[str, str]:
    """{relative path (or file name): sha256} of the files, sorted (see :func:`file_sha256`)."""
    paths = sorted(Path(p) for p in paths)
    names = [p.relative_to(root).as_posix() if root is not None else p.name for p in paths]
    return dict(zip(names, file_sha256(paths, store_dir)))


def folder_files(folder: Path) -> list[Path]:
    """The files that define a model folder's vectors (hidden files and READMEs left out)."""
    return [p for p in folder.rglob("*") if p.is_file() and p.name not in _IGNORED_FILES
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)]
