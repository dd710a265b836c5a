"""Where the cache lives: ``$WEFE_SAME_CACHE`` or the user cache directory, checked before any work."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from wefe_same.cachedir import ENV_VAR
from wefe_same.cachedir import cache_dir as default_cache_dir
from wefe_same.errors import CacheError

__all__ = ["CACHE_UNUSABLE", "ENV_VAR", "check_cache", "default_cache_dir"]
CACHE_UNUSABLE = ("cache directory {path}: {why}; choose another with --cache DIR (cache=...) "
                  "or turn the cache off with --no-cache (cache=False)")


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
