"""Whole-vocabulary passes for the debiasing methods that look beyond the query words
(double-hard debias: the mean, principal components and most gendered words of the
vocabulary; RAN: each word's nearest neighbours).

Each pass reads the base's vocabulary once as float32 (``ModelSource.vocabulary``) and
works on it in blocks of :data:`CHUNK` rows in float64, so the extra memory is a few
blocks and d × d, never a second copy of the matrix.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from wefe_same.models.base import ModelSource, source_vocabulary

#: Rows per block: 8192 × 300 float64 is 19 MB.
CHUNK = 8192


def read_vocabulary(base: ModelSource, limit: int | None) -> tuple[list[str], np.ndarray]:
    """The base's first ``limit`` words (all when None) and their float32 vectors, finite rows only.

    A row with NaN or inf (a zero vector read as such, a damaged file) is left out: it
    would poison every mean and principal component.
    """
    words, matrix = source_vocabulary(base, limit, name=base.name)
    matrix = np.asarray(matrix, dtype=np.float32)
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        words = [w for w, ok in zip(words, finite) if ok]
        matrix = matrix[finite]
    return words, matrix


def blocks(n: int, chunk: int = CHUNK) -> Iterator[slice]:
    """Consecutive slices of ``chunk`` rows covering range(n).

    >>> [(s.start, s.stop) for s in blocks(5, 2)]
    [(0, 2), (2, 4), (4, 5)]
    """
    for start in range(0, n, chunk):
        yield slice(start, min(start + chunk, n))


def unit_rows(matrix: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
    """A float32 copy of ``matrix`` with unit rows (a zero row stays zero)."""
    out = np.empty(matrix.shape, dtype=np.float32)
    for s in blocks(len(matrix), chunk):
        rows = np.asarray(matrix[s], dtype=np.float64)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        out[s] = rows / np.where(norms > 0, norms, 1.0)
    return out


def mean_and_components(matrix: np.ndarray, n_components: int, chunk: int = CHUNK) -> tuple[np.ndarray, np.ndarray]:
    """The mean row and the first principal components of the centred rows.

    Two blocked passes (the mean, then the d × d scatter matrix of the centred rows in
    float64); the components are the scatter matrix's leading eigenvectors, which are
    PCA's (sklearn's PCA and IncrementalPCA give the same up to sign).

    Returns
    -------
    mean : ndarray, shape (d,)
    components : ndarray, shape (n_components, d)
        Orthonormal rows by decreasing variance, each signed so that its largest-magnitude
        entry is positive.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)) * [5.0, 1.0, 0.1] + 7
    >>> mean, comps = mean_and_components(X, 2, chunk=64)
    >>> bool(np.allclose(mean, X.mean(axis=0))), np.abs(comps).argmax(axis=1).tolist()
    (True, [0, 1])
    """
    n, d = matrix.shape
    total = np.zeros(d)
    for s in blocks(n, chunk):
        total += np.asarray(matrix[s], dtype=np.float64).sum(axis=0)
    mean = total / n
    scatter = np.zeros((d, d))
    for s in blocks(n, chunk):
        rows = np.asarray(matrix[s], dtype=np.float64) - mean
        scatter += rows.T @ rows
    values, vectors = np.linalg.eigh(scatter)
    components = vectors[:, np.argsort(values)[::-1][:n_components]].T
    signs = np.where(components[np.arange(len(components)), np.abs(components).argmax(axis=1)] > 0, 1.0, -1.0)
    return mean, components * signs[:, None]


def cosine_difference(matrix: np.ndarray, a: np.ndarray, b: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
    """cos(w, a) − cos(w, b) for every row w (a zero row gets NaN), shape (n,)."""
    a = np.asarray(a, dtype=np.float64) / np.linalg.norm(a)
    b = np.asarray(b, dtype=np.float64) / np.linalg.norm(b)
    out = np.empty(len(matrix))
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in blocks(len(matrix), chunk):
            rows = np.asarray(matrix[s], dtype=np.float64)
            out[s] = (rows @ a - rows @ b) / np.linalg.norm(rows, axis=1)
    return out


def nearest(unit: np.ndarray, queries: np.ndarray, topn: int, skip: np.ndarray,
            chunk: int = CHUNK) -> np.ndarray:
    """For each query row, the rows of ``unit`` with the highest dot product, best first.

    Parameters
    ----------
    unit : ndarray, shape (V, d)
        Unit rows (the vocabulary).
    queries : ndarray, shape (q, d)
        Unit query vectors.
    topn : int
    skip : ndarray of int, shape (q,)
        A row of ``unit`` to leave out for each query (the query word itself), or -1.

    Returns
    -------
    ndarray of int, shape (q, min(topn, V - 1))
        Equal similarities keep the lower row first (up to ties at a block's k-th place).
    """
    q = len(queries)
    k = min(topn, max(0, len(unit) - 1))
    best_idx = np.empty((q, 0), dtype=np.int64)
    best_sim = np.empty((q, 0))
    queries = np.asarray(queries, dtype=np.float64)
    for s in blocks(len(unit), chunk):
        sims = queries @ np.asarray(unit[s], dtype=np.float64).T
        idx = np.broadcast_to(np.arange(s.start, s.stop), sims.shape)
        sims[idx == skip[:, None]] = -np.inf
        if k and best_sim.shape[1] == k:
            # Only entries above each query's current k-th best can enter: after the first
            # blocks they are few, so gather them into a narrow padded array.
            hit = sims > best_sim[:, -1:]
            counts = hit.sum(axis=1)
            if not counts.any():
                continue
            r, c = np.nonzero(hit)
            pos = np.arange(len(r)) - np.repeat(np.cumsum(counts) - counts, counts)
            narrow_sim = np.full((q, int(counts.max())), -np.inf)
            narrow_idx = np.zeros((q, int(counts.max())), dtype=np.int64)
            narrow_sim[r, pos], narrow_idx[r, pos] = sims[r, c], idx[r, c]
            sims, idx = narrow_sim, narrow_idx
        if sims.shape[1] > k:  # keep this block's k best before the exact merge
            part = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k else np.empty((q, 0), dtype=np.int64)
            sims = np.take_along_axis(sims, part, axis=1)
            idx = np.take_along_axis(idx, part, axis=1)
        all_sim = np.concatenate([best_sim, sims], axis=1)
        all_idx = np.concatenate([best_idx, idx], axis=1)
        # Sort by (-similarity, row): the stable top k of what is seen so far.
        order = np.lexsort((all_idx, -all_sim), axis=1)[:, :k]
        best_sim = np.take_along_axis(all_sim, order, axis=1)
        best_idx = np.take_along_axis(all_idx, order, axis=1)
    return best_idx
