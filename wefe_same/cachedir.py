"""The one cache directory of the library: ``$WEFE_SAME_CACHE``, else the user's cache
directory (``~/.cache/wefe_same`` on Linux).

Everything cached lives under it: the run cache (``v2/`` entries, :mod:`wefe_same.run.cache`)
and the encoders' folder (:data:`ENCODERS`: split archives unpacked once, and the sha256
store of model files).
"""

from __future__ import annotations

import os
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
