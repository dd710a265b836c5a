"""Opening and sniffing embedding files, shared by every reader: path checks (``os.stat``),
gzip detection and transparent decompression, line reading with a length limit, the
``V d`` header, the text/binary/fastText sniff, and the files' provenance and cache key.

Every problem with a file is a :class:`~wefe_same.errors.ModelError` with one line naming
the file; the message templates are module constants that the tests match.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Literal

from wefe_same.errors import ModelError
from wefe_same.models.specs import strip_gz

__all__ = ["check_model_file", "file_description", "file_identity", "is_gzip", "open_stream", "sniff_format",
           "sniff_text_header", "strip_gz"]


NO_SUCH_FILE = "model {name!r}: no such file {path}"
IS_A_DIRECTORY = "model {name!r}: {path} is a directory, not a model file; give the file inside it"
NOT_A_FILE = "model {name!r}: {path} is not a regular file (a device, socket or pipe)"
NO_VECTORS = "{path}: no vectors ({why})"
CANNOT_READ = "{path}: cannot read the file: {error} (damaged or truncated?)"
LINE_TOO_LONG = "{path}:{line}: line longer than {limit} bytes: not a text embedding file"
BAD_DIMENSION = "{path}: the header declares {dim} dimensions; expected 1 to {limit}"

#: Gzip files start with these two bytes; the content, not the name, decides.
GZIP_MAGIC = b"\x1f\x8b"
#: A Facebook fastText ``.bin`` starts with this little-endian int32.
FASTTEXT_MAGIC = 793712314
#: Above this a header is hostile or garbage, not an embedding (largest in use: ~4096).
MAX_DIM = 100_000
#: The word of a binary record ends with a space within this many bytes (word2vec.c: 100).
MAX_WORD_BYTES = 10_000
#: A text line longer than this is not an embedding row (300 numbers take ~3 kB).
MAX_LINE_BYTES = 16 << 20
#: Bytes read at a time from a binary file: bounded memory whatever the file size.
CHUNK_BYTES = 1 << 20
#: Bytes a text vector is made of: sniffing tells a text file from a binary one by them.
_TEXT_NUMBER_BYTES = frozenset(b"0123456789+-.eE naNiIfFtTyY\t\r\n")

FileKind = Literal["text", "binary", "fasttext-bin"]

def check_model_file(name: str, path: Path) -> Path:
    """``path`` when it is a file; a :class:`ModelError` naming it otherwise (at resolve time).

    An empty file has no vectors; that is known from ``os.stat`` without opening it.
    """
    if path.is_dir():
        raise ModelError(IS_A_DIRECTORY.format(name=name, path=path))
    if not path.is_file():
        raise ModelError((NOT_A_FILE if path.exists() else NO_SUCH_FILE).format(name=name, path=path))
    if path.stat().st_size == 0:
        raise ModelError(NO_VECTORS.format(path=path, why="the file is empty"))
    return path


def is_gzip(path: Path) -> bool:
    """Whether the file starts with the gzip magic bytes."""
    with _errors_name(path), open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


@contextlib.contextmanager
def _errors_name(path: Path) -> Iterator[None]:
    """Turn what reading a damaged file raises into a ModelError naming it.

    Gzip raises BadGzipFile (an OSError), EOFError on a truncated stream and zlib.error
    on corrupt data; reading raises OSError. Our own parse errors are ModelErrors already.
    """
    try:
        yield
    except (OSError, EOFError, zlib.error, struct.error) as err:
        raise ModelError(CANNOT_READ.format(path=path, error=f"{type(err).__name__}: {err}")) from None


@contextlib.contextmanager
def open_stream(path: Path) -> Iterator[BinaryIO]:
    """The file's bytes, decompressed on the fly when it is gzip (never to disk or whole).

    Read errors inside the ``with`` block become a :class:`ModelError` naming the file.
    """
    with _errors_name(path), open(path, "rb") as raw:
        if raw.read(2) == GZIP_MAGIC:
            raw.seek(0)
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield unzipped  # type: ignore[misc]
        else:
            raw.seek(0)
            yield raw


def _lines(path: Path, fh: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its end of line), each line at most MAX_LINE_BYTES long."""
    lineno = 0
    while True:
        line = fh.readline(MAX_LINE_BYTES)
        if not line:
            return
        lineno += 1
        if len(line) >= MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise ModelError(LINE_TOO_LONG.format(path=path, line=lineno, limit=MAX_LINE_BYTES))
        yield lineno, line.rstrip(b"\r\n")


def _header(line: bytes) -> tuple[int, int] | None:
    """``(V, d)`` when ``line`` is a word2vec/fastText header ``V d``.

    >>> _header(b"400000 300"), _header(b"the 0.1 0.2"), _header(b"1 2 3")
    ((400000, 300), None, None)
    """
    parts = line.split()
    # At most 18 digits: int() of a longer hostile string is slow or refused.
    if len(parts) == 2 and all(p.isdigit() and len(p) <= 18 for p in parts):
        return int(parts[0]), int(parts[1])
    return None


def _check_dim(path: Path, dim: int) -> int:
    if not 1 <= dim <= MAX_DIM:
        raise ModelError(BAD_DIMENSION.format(path=path, dim=dim, limit=MAX_DIM))
    return dim


def sniff(path: Path) -> tuple[FileKind, bool, bool]:
    """What a (possibly gzip) embedding file holds, from its first bytes, and whether its
    first line is a ``V d`` header (word2vec text, not GloVe), in one read.

    "fasttext-bin" when it starts with fastText's magic number; "binary" when a
    ``V d`` header is followed by a word and raw float32 bytes; otherwise "text". An
    empty or header-only file is a :class:`ModelError` "no vectors" naming it. Called
    when a file is first read, never when a spec is resolved. The third value says
    whether the file is gzip-compressed.
    """
    with open_stream(path) as fh:
        compressed = isinstance(fh, gzip.GzipFile)
        head = fh.read(4)
        if len(head) == 4 and struct.unpack("<i", head)[0] == FASTTEXT_MAGIC:
            return "fasttext-bin", False, compressed
        newline = head.find(b"\n")
        if newline >= 0:  # a first line shorter than 4 bytes
            first, rest = head[:newline + 1], head[newline + 1:]
        else:
            first, rest = head + fh.readline(MAX_LINE_BYTES), b""
        if not first.strip() and not (rest + fh.read(1 << 16)).strip():
            raise ModelError(NO_VECTORS.format(path=path, why="the file is empty"))
        header = _header(first)
        if header is None:
            return "text", False, compressed
        sample = rest + fh.read(MAX_WORD_BYTES + 64)
    if not sample.strip():
        raise ModelError(NO_VECTORS.format(path=path, why="a header line and nothing else"))
    space = sample.find(b" ")
    after = sample[space + 1: space + 1 + min(64, 4 * max(header[1], 1))] if space >= 0 else b""
    return ("text" if all(b in _TEXT_NUMBER_BYTES for b in after) else "binary"), True, compressed


def sniff_format(path: Path) -> tuple[FileKind, bool]:
    """:func:`sniff` without the compression: the format and whether there is a header."""
    kind, has_header, _ = sniff(path)
    return kind, has_header


def sniff_text_header(path: Path) -> bool:
    """Whether a (possibly gzip) text embedding file starts with a ``V d`` header line."""
    with open_stream(path) as fh:
        return _header(fh.readline(MAX_LINE_BYTES)) is not None


def file_description(kind: str, *paths: Path) -> dict[str, str]:
    """Path, size and modification time: cheap provenance without hashing gigabytes."""
    out = {"kind": kind}
    for i, p in enumerate(paths):
        suffix = "" if i == 0 else f"_{i + 1}"
        stat = p.stat()
        out[f"path{suffix}"] = str(p)
        out[f"bytes{suffix}"] = str(stat.st_size)
    return out


def file_identity(kind: str, *paths: Path, **options: Any) -> dict[str, Any]:
    """The cache key of a model read from files: kind, the ``options`` that change what is
    read, and for each file its absolute path, size, mtime_ns, ctime_ns and inode, from
    ``os.stat`` alone: no model file is opened, so a cached run reads none.

    What an edit cannot keep: the inode change time (``st_ctime_ns``) is set by the kernel
    on every write and on every ``touch``/``os.utime``, and cannot be set back by a user; a
    file replaced by another (a copy, a rename over it) has a new inode. So a same-size edit
    with the mtime restored is a new key. What the key cannot see: a file system that keeps
    no ctime (some network and FUSE mounts) together with an edit that keeps size and mtime,
    or a clock set back by an administrator. Use ``--no-cache`` on such a mount.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt") as fh:
    ...     key = file_identity("glove", Path(fh.name), unicode_errors="strict")
    >>> sorted(key), sorted(key["files"][0])
    (['files', 'kind', 'unicode_errors'], ['ctime_ns', 'inode', 'mtime_ns', 'path', 'size'])
    """
    files = []
    for p in paths:
        stat = os.stat(p)
        files.append({"path": str(Path(p).resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                      "ctime_ns": stat.st_ctime_ns, "inode": stat.st_ino})
    return {"kind": kind, "files": files, **options}
