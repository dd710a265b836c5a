"""The one cache directory of the library: ``$WEFE_SAME_CACHE``, else the user's cache
directory (``~/.cache/wefe_same`` on Linux).

Everything cached lives under it: the run cache (``v2/`` entries, :mod:`wefe_same.run.cache`)
and the encoders' folder (:data:`ENCODERS`: split archives unpacked once, and the sha256
store of model files).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

#: The environment variable that chooses the cache directory.
ENV_VAR = "WEFE_SAME_CACHE"
#: Subfolder for encoder files: unpacked split archives and the sha256 store.
ENCODERS = "encoders"


def cache_dir() -> Path:
    """``$WEFE_SAME_CACHE``, else the user's cache directory (``~/.cache/wefe_same`` on Linux).

    >>> isinstance(cache_dir(), Path)
    True
    """
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("wefe_same"))


def encoders_dir(cache: bool | str = True) -> Path:
    """Where encoder files go: ``<cache>/encoders`` (True: the default directory, or a path),
    or with the cache off (False) a scratch folder of this process, removed when it exits,
    so that ``--no-cache`` writes nothing in the cache directory."""
    if cache is False:
        return _scratch_dir()
    return (cache_dir() if cache is True else Path(cache).expanduser()) / ENCODERS


@cache
def _scratch_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="wefe_same-encoders-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
