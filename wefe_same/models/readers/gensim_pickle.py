"""gensim ``.kv`` / ``.model`` files: pickles, loaded only when trusted (loading runs code)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from wefe_same.errors import ModelError
from wefe_same.interrupts import signals_deferred
from wefe_same.models.readers.files import check_model_file, file_description, file_identity
from wefe_same.models.sources import ArraySource, LazySource
from wefe_same.models.specs import LoadOptions


def load_gensim_pickle(name: str, path: Path, *, trusted: bool) -> ArraySource:
    """gensim ``.kv`` / ``.model`` files are pickles: loading one runs code from the file."""
    if not trusted:
        raise ModelError(
            f"{path}: gensim .kv/.model files are pickles that run code when loaded; "
            "pass --trust-pickle (trust_pickle=True) if you trust this file"
        )
    check_model_file(name, path)
    from gensim.models import KeyedVectors
    from gensim.utils import SaveLoad

    try:
        with signals_deferred():  # numpy.str_ scalars in old pickles would swallow a Ctrl-C
            obj = SaveLoad.load(str(path))
    except Exception as err:  # unpickling can raise anything; name the file and go on
        raise ModelError(f"{path}: cannot load gensim file ({type(err).__name__}: {err})") from None
    kv = obj if isinstance(obj, KeyedVectors) else getattr(obj, "wv", None)
    if not isinstance(kv, KeyedVectors):
        raise ModelError(f"{path}: holds a {type(obj).__name__}, not gensim KeyedVectors")
    return ArraySource(name, kv.index_to_key, kv.vectors, file_description("gensim", path),
                       identity=file_identity("gensim", path))


def lazy_gensim_pickle(name: str, path: Path, options: LoadOptions) -> LazySource:
    """``gensim:PATH``: refused now unless trusted; loaded on first use."""
    check_model_file(name, path)
    if not options.trust_pickle:  # fail now, before any model is read
        load_gensim_pickle(name, path, trusted=False)
    return LazySource(name, partial(load_gensim_pickle, name, path, trusted=True),
                      {"kind": "gensim", "path": str(path)}, identity=partial(file_identity, "gensim", path))
