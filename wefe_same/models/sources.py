"""The in-memory and lazy model sources: :class:`ArraySource` (a vocabulary and a matrix,
possibly memory-mapped) and :class:`LazySource` (built on first use).

The base class they implement is :class:`wefe_same.models.base.ModelSource`; the file
readers (text, word2vec binary, gzip, fastText ``.bin``, ``.npy``, gensim pickles) live in
:mod:`wefe_same.models.readers`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, StatusLookup, as_source, lookup_with_status, source_vocabulary

__all__ = ["ArraySource", "LazySource", "ModelSource", "StatusLookup", "lookup_with_status", "source_vocabulary"]


class ArraySource(ModelSource):
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
    decode_warnings : sequence of str, optional
        Lenient decodings of ``words`` (``LoadOptions.unicode_errors``), kept for the manifest.

    >>> src = ArraySource("toy", ["a", "b"], np.eye(2))
    >>> sorted(src.lookup(["a", "c"])), src.identity()
    (['a'], None)
    """

    has_vocabulary = True

    def __init__(
        self,
        name: str,
        words: Sequence[str],
        matrix: np.ndarray,
        description: dict[str, str] | None = None,
        *,
        identity: dict[str, Any] | None = None,
        decode_warnings: Sequence[str] = (),
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
        self._decode_warnings = list(decode_warnings)

    @property
    def decode_warnings(self) -> list[str]:
        """Lenient decodings of the words given (``decode_warnings=``)."""
        return self._decode_warnings

    @property
    def dim(self) -> int:
        return int(self._matrix.shape[1])

    def _lazy_index(self) -> dict[str, int]:
        if self._index is None:
            # The first occurrence wins, as in gensim when a vocabulary repeats a word: built
            # from the end, so an earlier row overwrites a later one (one C-level pass).
            words = list(map(str, self._words))
            self._index = dict(zip(reversed(words), range(len(words) - 1, -1, -1)))
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


class LazySource(ModelSource):
    """A source built on first use, so listing or validating models reads no file.

    Parameters
    ----------
    name : str
    build : callable returning a ModelSource
        Called once, on the first lookup or vocabulary request (a duck-typed object it
        returns is adapted by :func:`~wefe_same.models.base.as_source`).
    description : dict
        Provenance known before building (merged over the built source's own).
    identity : dict or callable returning one, optional
        The cache key, known without building (file stats and hashes, package version);
        None: the model is never cached. A callable is called on the first
        :meth:`identity` (it may hash the files: resolving a model opens none) and its
        result kept. It is not taken from the built source, so that the key is the same
        before and after the first lookup.

    >>> src = LazySource("toy", lambda: ArraySource("toy", ["a"], np.ones((1, 2))), {"kind": "toy"},
    ...                  identity={"kind": "toy", "version": 1})
    >>> src.identity(), src.describe()
    ({'kind': 'toy', 'version': 1}, {'kind': 'toy'})
    >>> sorted(src.lookup(["a", "b"])), src.describe()["vocabulary"]
    (['a'], '1')
    """

    #: Delegated to the built source, which raises when it cannot list its words.
    has_vocabulary = True

    def __init__(self, name: str, build: Callable[[], Any], description: dict[str, str], *,
                 identity: dict[str, Any] | Callable[[], dict[str, Any] | None] | None = None):
        self.name = name
        self._build = build
        self._source: ModelSource | None = None
        self._description = description
        self._identity = identity

    def _get(self) -> ModelSource:
        if self._source is None:
            self._source = as_source(self._build())
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
        if callable(self._identity):
            self._identity = self._identity()
        return self._identity

    @property
    def decode_warnings(self) -> list[str]:
        """The built source's lenient decodings (none before it is built)."""
        return list(self._source.decode_warnings) if self._source is not None else []

    def describe(self) -> dict[str, str]:
        inner = self._get().describe() if self._source is not None else {}
        return {**inner, **self._description}
