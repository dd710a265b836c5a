"""What produced a result: package versions, code digests and file hashes (manifests, cache keys)."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).parent


def package_version(dist: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed.

    >>> package_version("no-such-distribution-here") is None
    True
    """
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes (output inventories, encoder weights)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@cache
def code_digest(*parts: str) -> str:
    """sha256 of this package's source files under ``parts`` (modules or folders).

    A cache key that holds it changes whenever that code changes, so no entry outlives
    the code that made it. The source does not change within a process: computed once.
    """
    digest = hashlib.sha256()
    for part in parts:
        if not (ROOT / part).exists():  # a renamed module must not drop out of every cache key unseen
            raise FileNotFoundError(f"code_digest: {ROOT / part} does not exist")
        paths = sorted((ROOT / part).rglob("*.py")) if (ROOT / part).is_dir() else [ROOT / part]
        for path in paths:
            if path.is_file():
                digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
