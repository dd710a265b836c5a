"""The lookup layer of the quality benchmarks: words → rows of one float32 matrix.

A :class:`Vocabulary` holds the words a benchmark may use (usually a model's first K
words, gensim's ``restrict_vocab``), their vectors, and the casing rule. Everything after
it works on integer rows and arrays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cached_property

import numpy as np

#: Row number of a word that is not in the vocabulary.
MISSING = -1


class Vocabulary:
    """Words in frequency order, their vectors, and how a benchmark word finds its row.

    Parameters
    ----------
    words : sequence of str, length n
        In file (frequency) order.
    vectors : ndarray, shape (n, d)
        Raw vectors; stored as C-contiguous float32.
    case_insensitive : bool, default True
        Match words after :meth:`str.upper`, as gensim's ``case_insensitive=True``: a
        benchmark word finds the first row whose word has the same upper case form
        ("first occurrence wins"), and every case variant of a query word is excluded
        from analogy candidates.

    >>> v = Vocabulary(["Paris", "paris", "rome"], np.eye(3))
    >>> v.rows(["PARIS", "rome", "oslo"]).tolist()
    [0, 2, -1]
    >>> v.classes.tolist()
    [0, 0, 2]
    """

    def __init__(self, words: Sequence[str], vectors: np.ndarray, *, case_insensitive: bool = True) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ValueError(f"{len(words)} words but vectors of shape {vectors.shape}")
        self.words = [str(w) for w in words]
        self.vectors = vectors
        self.case_insensitive = case_insensitive
        n = len(self.words)
        folded = [w.upper() for w in self.words] if case_insensitive else self.words
        # Built from the end so that the first occurrence of a folded form wins.
        self.index: dict[str, int] = dict(zip(reversed(folded), range(n - 1, -1, -1)))
        #: For each row, the row of the first word with the same folded form, shape (n,).
        self.classes = np.fromiter(map(self.index.__getitem__, folded), dtype=np.intp, count=n)

    def __len__(self) -> int:
        return len(self.words)

    def fold(self, word: str) -> str:
        """The form under which words are compared."""
        return word.upper() if self.case_insensitive else word

    def rows(self, words: Iterable[str]) -> np.ndarray:
        """Row of each word (:data:`MISSING` = -1 when absent), shape (len(words),)."""
        index, fold = self.index, self.fold
        return np.array([index.get(fold(w), MISSING) for w in words], dtype=np.intp)

    @cached_property
    def unit(self) -> np.ndarray:
        """Unit-normalised rows, float32, shape (n, d); a zero (or non-finite) row is zero."""
        norms = np.sqrt(np.einsum("ij,ij->i", self.vectors, self.vectors))[:, None]
        unit = np.divide(self.vectors, norms, out=np.zeros_like(self.vectors),
                         where=np.isfinite(norms) & (norms > 0))
        return unit

    @cached_property
    def mean(self) -> np.ndarray:
        """Mean raw vector of the whole vocabulary, float32, shape (d,): the stand-in for a
        missing word under ``missing="mean"`` (the Word Embeddings Benchmark's rule); zero
        for an empty vocabulary."""
        if len(self.words) == 0:
            return np.zeros(self.vectors.shape[1], dtype=np.float32)
        return self.vectors.mean(axis=0, dtype=np.float64).astype(np.float32)

    def take(self, rows: np.ndarray, stand_in: np.ndarray, *, unit: bool = False) -> np.ndarray:
        """Vectors of ``rows`` (raw, or unit when ``unit``), ``stand_in`` where a row is -1.

        Returns
        -------
        ndarray of float32, shape (len(rows), d)
        """
        source = self.unit if unit else self.vectors
        out = np.empty((len(rows), source.shape[1]), dtype=source.dtype)
        known = rows >= 0
        out[known] = source[rows[known]]
        out[~known] = stand_in
        return out


class Coverage:
    """Coverage and gensim's OOV ratio, shared by the similarity and analogy results
    (dataclasses with ``n_items`` and ``n_found`` fields)."""

    n_items: int
    n_found: int

    @property
    def coverage(self) -> float:
        """Share of the items whose words are all in the vocabulary."""
        return self.n_found / self.n_items if self.n_items else math.nan

    @property
    def oov_ratio(self) -> float:
        """Percentage of items with an unknown word, as gensim reports it."""
        return 100.0 * (self.n_items - self.n_found) / self.n_items if self.n_items else math.nan
