"""``wefe-same export``: the vectors of some words as a word2vec text file.

The file is written beside its destination and renamed into place (never half-written);
an existing regular file is replaced only with ``force`` (the tool cannot tell a file it
wrote from one it did not, so it touches none without being told); anything else at the
destination (a symbolic link, a directory, a FIFO, a device) is refused, force or not.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from wefe_same.errors import ExportError, OutputError

__all__ = ["ExportError", "OutputError", "check_destination", "read_words", "write_word2vec_text"]


def read_words(path: Path) -> list[str]:
    """One word per line (UTF-8); blank lines and repeats are dropped, order kept."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExportError(f"{path}: no such words file") from None
    except IsADirectoryError:
        raise ExportError(f"{path}: is a directory, not a words file") from None
    except UnicodeDecodeError as err:
        raise ExportError(f"{path}: not UTF-8 text (byte {err.start})") from None
    words = list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))
    check_storable_words(words, where=str(path))
    if not words:
        raise ExportError(f"{path}: no words")
    return words


def check_storable_words(words: Iterable[str], *, where: str) -> None:
    """word2vec text separates a word from its values by a space: refuse a word that holds
    whitespace or is empty (from a file or a list alike)."""
    bad = next((w for w in words if not w or any(ch.isspace() for ch in w)), None)
    if bad is not None:
        raise ExportError(f"{where}: the word {bad!r} is empty or holds a space, which word2vec text cannot store")


#: Why a destination is refused, by what stands there (``force`` replaces a regular file only).
NOT_A_FILE = ("{out}: is {kind}; export writes a regular file and replaces nothing else "
              "(not even with --force / force=True); give another path")


def _kind(mode: int) -> str | None:
    """What stands at a path, in words; None for a regular file."""
    for test, kind in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def check_destination(out: Path, *, force: bool) -> None:
    """The destination must be absent, or a regular file with ``force``, in an existing folder.

    Whatever else stands there is refused with or without ``force``, never followed or
    replaced: a symbolic link (also one that points nowhere, or to a file), a directory,
    a FIFO, a device, a socket.
    """
    try:
        mode = os.lstat(out).st_mode  # the link itself, not what it points to
    except FileNotFoundError:
        mode = None
    except OSError as err:  # a name too long, a folder that cannot be searched
        raise OutputError(f"{out}: cannot use this path: {err.strerror or err}") from None
    if mode is not None:
        kind = _kind(mode)
        if kind is not None:
            raise OutputError(NOT_A_FILE.format(out=out, kind=kind))
        if not force:
            raise OutputError(f"{out}: already exists; not overwritten (use --force / force=True to replace it)")
    if not out.parent.is_dir():
        raise OutputError(f"{out.parent}: no such folder")


def write_word2vec_text(out: Path, words: Iterable[str], vectors: Mapping[str, np.ndarray], *,
                        force: bool = False) -> int:
    """Write ``words`` that have a vector as word2vec text (``V d`` header, one word a line,
    float32 values that read back exactly); return how many were written."""
    out = Path(out)
    check_destination(out, force=force)
    kept = [w for w in words if w in vectors]
    check_storable_words(kept, where=str(out))
    if not kept:
        raise ExportError("the model knows none of the words; nothing written")
    dim = len(np.asarray(vectors[kept[0]]))
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(f"{len(kept)} {dim}\n")
            for w in kept:
                row = np.asarray(vectors[w], dtype=np.float32)
                f.write(w + " " + " ".join(np.format_float_positional(x, unique=True, trim="-")
                                           if np.isfinite(x) else str(x) for x in row) + "\n")
        check_destination(out, force=force)  # again: what stands there may have changed while writing
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(kept)
