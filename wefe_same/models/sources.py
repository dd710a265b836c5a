"""Model sources: anything that maps words to vectors and says what it could not find.

A source answers one question, :meth:`ModelSource.lookup`, for a batch of words. The
framework asks it once per model per run, for the union of every query word (with
casing variants), so a source never has to hand over a whole embedding matrix.

This module holds the protocol and the in-memory and lazy sources; the file readers
(text, word2vec binary, gzip, fastText ``.bin``, ``.npy``, gensim pickles) live in
:mod:`wefe_same.models.readers`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from wefe_same.errors import ModelError

#: What a source's optional ``lookup_with_status`` returns: the vectors (as ``lookup``)
#: and the words among them whose vector was built from character n-grams (fastText).
StatusLookup = tuple[dict[str, np.ndarray], frozenset[str]]


@runtime_checkable
class ModelSource(Protocol):
    """What the framework needs from an embedding model.

    Optional, beyond the protocol:

    - ``vocabulary(limit)``: the first words and their vectors, for analogy benchmarks;
    - ``identity()``: a JSON-able dict that identifies the model's vectors without
      reading them: the cache key, so a run whose scores are cached opens no model file.
      Files: format, absolute path, size and mtime_ns of each (``os.stat`` only) and the
      reading options; catalog entries: package, version and their data files' stats;
      encoders: settings (templates, pooling, layer), the hub revision or the files'
      sha256 (hashed once, then remembered by file stats), library versions; variants:
      the base's identity and a hash of the word lists. A source without it, or whose
      ``identity()`` is None, is never cached: :class:`ArraySource` built without one, a
      :class:`LazySource` given none, a variant of such a base, and user objects;
    - ``open_vocabulary``: True when every string has a vector (encoders); the framework
      then asks for the words as written only, without casing variants;
    - ``lookup_with_status(words) -> (vectors, subword_words)``: like ``lookup``, plus
      the words whose vectors were built from subwords rather than read from the
      vocabulary (fastText ``.bin``); they are marked ``subword`` in lookups.csv;
    - ``decode_warnings``: a list of "FILE:LINE: b'...' decoded as '...'" strings for
      words decoded leniently (``LoadOptions.unicode_errors``);
    - ``spec``: the string it was resolved from, so that worker processes can resolve
      it again.
    """

    name: str

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors of those ``words`` the model knows; unknown words are left out."""
        ...

    def describe(self) -> dict[str, str]:
        """Provenance for the manifest (kind, path, package, size)."""
        ...


class ArraySource:
    """An in-memory (or memory-mapped) vocabulary and matrix.

    Parameters
    ----------
    name : str
        Model name used in every table.
    words : sequence of str, length V
    matrix : ndarray, shape (V, d)
    description : dict, optional
        Provenance for the manifest.
    identity : dict, optional
        The cache key (see :class:`ModelSource`); None: never cached.

    >>> src = ArraySource("toy", ["a", "b"], np.eye(2))
    >>> sorted(src.lookup(["a", "c"])), src.identity()
    (['a'], None)
    """

    def __init__(
        self,
        name: str,
        words: Sequence[str],
        matrix: np.ndarray,
        description: dict[str, str] | None = None,
        *,
        identity: dict[str, Any] | None = None,
    ) -> None:
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise ModelError(
                f"model {name!r}: {len(words)} words but a matrix of shape {matrix.shape}"
            )
        self.name = name
        self._words = words
        self._matrix = matrix
        self._index: dict[str, int] | None = None
        self._description = {"kind": "array", **(description or {})}
        self._identity = identity
        self.decode_warnings: list[str] = []

    @property
    def dim(self) -> int:
        return int(self._matrix.shape[1])

    def _lazy_index(self) -> dict[str, int]:
        if self._index is None:
            # The first occurrence wins, as in gensim when a vocabulary repeats a word.
            index: dict[str, int] = {}
            for i, w in enumerate(self._words):
                index.setdefault(str(w), i)
            self._index = index
        return self._index

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        index = self._lazy_index()
        hits = sorted((index[w], w) for w in set(words) if w in index)
        with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened; it stays NaN
            rows = np.asarray(self._matrix[[i for i, _ in hits]], dtype=np.float64)
        return {w: rows[k] for k, (_, w) in enumerate(hits)}

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words (all when None) and their raw vectors.

        Returns
        -------
        words : list of str, length n = min(limit, V)
        vectors : ndarray of float32, shape (n, d)

        >>> words, vectors = ArraySource("toy", ["a", "b", "c"], np.eye(3)).vocabulary(2)
        >>> words, vectors.dtype, vectors.shape
        (['a', 'b'], dtype('float32'), (2, 3))
        """
        n = len(self._words) if limit is None else max(0, min(int(limit), len(self._words)))
        with np.errstate(invalid="ignore", over="ignore"):  # NaN stays NaN, a float64 beyond float32 is inf
            vectors = np.array(self._matrix[:n], dtype=np.float32)
        return [str(w) for w in self._words[:n]], vectors

    def identity(self) -> dict[str, Any] | None:
        """The identity given at construction, or None (then the model is never cached)."""
        return self._identity

    def describe(self) -> dict[str, str]:
        out = {**self._description, "vocabulary": str(len(self._words)), "dim": str(self.dim)}
        if self.decode_warnings:
            out["decode_warnings"] = str(len(self.decode_warnings))
            out["decoded_words"] = json.dumps(self.decode_warnings[:10], ensure_ascii=True)
        return out


class LazySource:
    """A source built on first use, so listing or validating models reads no file.

    Parameters
    ----------
    name : str
    build : callable returning a ModelSource
        Called once, on the first lookup or vocabulary request.
    description : dict
        Provenance known before building (merged over the built source's own).
    identity : dict, optional
        The cache key, known without building (file stats, package version); None: the
        model is never cached. It is not taken from the built source, so that the key is
        the same before and after the first lookup.

    >>> src = LazySource("toy", lambda: ArraySource("toy", ["a"], np.ones((1, 2))), {"kind": "toy"},
    ...                  identity={"kind": "toy", "version": 1})
    >>> src.identity(), src.describe()
    ({'kind': 'toy', 'version': 1}, {'kind': 'toy'})
    >>> sorted(src.lookup(["a", "b"])), src.describe()["vocabulary"]
    (['a'], '1')
    """

    def __init__(self, name: str, build: Callable[[], ModelSource], description: dict[str, str], *,
                 identity: dict[str, Any] | None = None):
        self.name = name
        self._build = build
        self._source: ModelSource | None = None
        self._description = description
        self._identity = identity

    def _get(self) -> ModelSource:
        if self._source is None:
            self._source = self._build()
        return self._source

    def __getstate__(self) -> dict[str, Any]:
        # A pickled copy (a worker process) builds its own source: the built one may hold
        # a memory-mapped matrix, which pickle would copy whole.
        return {**self.__dict__, "_source": None}

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self._get().lookup(words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The first ``limit`` words and their raw float32 vectors, from the built source."""
        return source_vocabulary(self._get(), limit, name=self.name)

    def identity(self) -> dict[str, Any] | None:
        return self._identity

    @property
    def decode_warnings(self) -> list[str]:
        """The built source's lenient decodings (none before it is built)."""
        return list(getattr(self._source, "decode_warnings", []))

    def describe(self) -> dict[str, str]:
        inner = self._get().describe() if self._source is not None else {}
        return {**inner, **self._description}


def source_vocabulary(source: object, limit: int | None, *, name: str | None = None) -> tuple[list[str], np.ndarray]:
    """``source.vocabulary(limit)``, or a :class:`ModelError` naming the model when it has none.

    Built-in sources list their first ``limit`` words in file (frequency) order; a user
    object that only implements :meth:`ModelSource.lookup` cannot, and analogy
    benchmarks (which search the whole vocabulary) need it.
    """
    method = getattr(source, "vocabulary", None)
    if not callable(method):
        label = name or getattr(source, "name", type(source).__name__)
        raise ModelError(
            f"model {label!r} ({type(source).__name__}) cannot list its vocabulary: it has no "
            "vocabulary(limit) method returning (words, vectors) in frequency order"
        )
    return method(limit)


def lookup_with_status(source: object, words: Collection[str]) -> StatusLookup:
    """``source.lookup_with_status(words)`` when the source has it, else ``(lookup(words), {})``.

    >>> lookup_with_status(ArraySource("toy", ["a"], np.ones((1, 2))), ["a", "b"])[1]
    frozenset()
    """
    method = getattr(source, "lookup_with_status", None)
    if callable(method):
        found, subword = method(words)
        return found, frozenset(subword)
    return source.lookup(words), frozenset()  # type: ignore[attr-defined]


def package_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing it (None: not installed)."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


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
    """The cache key of a model read from files: kind, absolute path, size and mtime_ns of
    each file (``os.stat`` only: the files are never opened) and the ``options`` that
    change what is read from them.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt") as fh:
    ...     key = file_identity("glove", Path(fh.name), unicode_errors="strict")
    >>> sorted(key), sorted(key["files"][0])
    (['files', 'kind', 'unicode_errors'], ['mtime_ns', 'path', 'size'])
    """
    files = []
    for p in paths:
        stat = os.stat(p)
        files.append({"path": str(Path(p).resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    return {"kind": kind, "files": files, **options}


#: Readers that lived here before ``readers.py``: still importable from this module.
_MOVED = frozenset({"TextVectorsSource", "Word2VecBinarySource", "FastTextBinSource", "load_npy",
                    "load_gensim_pickle", "load_word2vec_binary", "sniff_text_header"})


def __getattr__(name: str) -> Any:
    # Lazy, because readers.py imports this module (PEP 562).
    if name in _MOVED:
        from wefe_same.models import readers

        return getattr(readers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
