"""Euclidean norms that neither overflow nor underflow on extreme but finite vectors.

``np.linalg.norm`` squares the entries: a vector scaled by 1e200 overflows to inf (its
unit vector becomes 0 and every cosine metric reads "no bias"), and one scaled by 1e-200
underflows to 0 (it looks like a zero vector). Dividing by the largest magnitude first,
as LAPACK's ``dnrm2`` does, keeps every square in [0, 1]; a power of two
scales exactly.

That scaling costs about a dozen passes over the array, and metrics call it per
subquery on thousands of words; for ordinary vectors it is not needed. Scaling by a
power of two commutes with every rounding as long as no intermediate value is subnormal
or overflows, so when every square of the plain computation is a normal number (and so
is every square of the scaled one), the plain norm is bit for bit the scaled one:
:func:`safe_norm` checks exactly that on the squares and computes the plain norm, and
falls back to the scaled algorithm otherwise (tests/metrics/test_norms.py compares both).
"""

from __future__ import annotations

import numpy as np

#: Squares at least this large are normal numbers whose rounding did not underflow.
_TINY = 2.0**-1021
#: The smallest square may be this share of the largest: then each square of the scaled
#: computation (the largest in [1/4, 1)) stays above 2**-1020, a normal number too.
_SPREAD = 2.0**-1018


def safe_norm(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """‖x‖₂ along ``axis``, computed as m·‖x/m‖₂ with m the power of two just above max|x|.

    The result is inf only when the true norm exceeds the largest float (or ``x`` holds
    inf), and 0 only for a zero vector. Where the scaling cannot change a bit (every
    square normal, no overflow; C-contiguous ``x``), the plain norm is returned.

    >>> bool(safe_norm(np.array([3.0, 4.0]) * 2.0**700) == 5 * 2.0**700)  # np.linalg.norm: inf
    True
    >>> bool(safe_norm(np.array([3.0, 4.0]) * 2.0**-700) == 5 * 2.0**-700)  # np.linalg.norm: 0
    True
    >>> safe_norm(np.array([[0.0, 0.0], [3.0, 4.0]]), axis=1).tolist()
    [0.0, 5.0]
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.linalg.norm(x, axis=axis, keepdims=keepdims)
    norm = _plain_norm(x, axis) if x.flags.c_contiguous else None
    if norm is None:
        norm = scaled_norm(x, axis)
    if keepdims:
        return norm
    return np.squeeze(norm, axis=axis) if axis is not None else norm.reshape(())


def _plain_norm(x: np.ndarray, axis: int | None) -> np.ndarray | None:
    """``np.linalg.norm(x, axis, keepdims=True)`` when it equals :func:`scaled_norm` bit for
    bit, else None. The same operations in the same order as the scaled algorithm's call
    on x/m (same shape and layout), on values 2^(2e) times larger, none subnormal."""
    with np.errstate(over="ignore"):
        squares = x * x
    # First the whole array at once: if its smallest square clears the floor of its largest,
    # every row's does (a reduction of all entries costs a tenth of one per row of a few
    # dozen); otherwise row by row, as below.
    low, high = float(np.min(squares)), float(np.max(squares))
    if low >= max(high * _SPREAD, _TINY):
        return _sum_of_squares(x, squares, axis)
    high = np.max(squares, axis=axis, keepdims=True)
    floor = np.maximum(high * _SPREAD, _TINY)  # NaN (a NaN entry) fails every comparison
    # A zero entry adds exactly 0 either way: only the squares of nonzero entries count
    # (looked at again only when some square is small, zeros being rare).
    if not (np.all(np.min(squares, axis=axis, keepdims=True) >= floor)
            or np.all(np.min(squares, axis=axis, keepdims=True, where=x != 0, initial=np.inf) >= floor)):
        return None
    return _sum_of_squares(x, squares, axis)


def _sum_of_squares(x: np.ndarray, squares: np.ndarray, axis: int | None) -> np.ndarray | None:
    # np.linalg.norm(x, axis, keepdims=True) as the scaled algorithm calls it: the same
    # operations (axis=None: a dot product of the flattened array), without the copy
    with np.errstate(over="ignore"):
        norm = np.asarray(np.linalg.norm(x, axis=None, keepdims=True)) if axis is None else np.sqrt(
            np.add.reduce(squares, axis=axis, keepdims=True))
    return norm if np.all(np.isfinite(norm)) else None  # inf: the sum of squares overflowed


def scaled_norm(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The scaled algorithm itself (keepdims): exact on any input, about ten passes over it."""
    peak = np.max(np.abs(x), axis=axis, keepdims=True)
    finite = np.isfinite(peak)
    # Scale by a power of two (exact: no rounding) that brings the peak into [0.5, 1).
    _, exponent = np.frexp(np.where(finite, peak, 1.0))
    scaled = np.ldexp(np.where(np.isfinite(x), x, 0.0), -exponent)
    with np.errstate(over="ignore"):  # a true norm above the largest float is inf, as it should be
        norm = np.ldexp(np.linalg.norm(scaled, axis=axis, keepdims=True), exponent)
    return np.where(finite, norm, np.inf)


#: Entries of a block of :func:`distances_to` (512 KB of float64): its differences and
#: squares stay in the CPU's cache, where a whole lexicon's (thousands of rows of 768
#: numbers) would not.
_BLOCK_ENTRIES = 2**16


#: Magnitudes of a plain block of :func:`distances_to`: when every nonzero entry of a block
#: of rows and of the points lies in [2**-300, 2**100], each is a multiple of 2**-352, so a
#: nonzero difference of two of them is at least 2**-352 and at most 2**101 in magnitude:
#: its square is a normal number in [2**-704, 2**202], within :data:`_SPREAD` of the
#: largest, and a row's sum of squares cannot overflow. The plain norm then is
#: :func:`safe_norm`'s without looking at the squares (zero squares add exactly 0, as
#: :func:`_plain_norm` allows).
_PLAIN_LOW, _PLAIN_HIGH = 2.0**-300, 2.0**100


def _plain_range(x: np.ndarray) -> bool:
    """Whether every nonzero entry of ``x`` has a magnitude in [2**-300, 2**100] (False for NaN)."""
    magnitudes = np.abs(x)
    if not float(np.max(magnitudes)) <= _PLAIN_HIGH:
        return False
    # The smallest magnitude of all first; only when it is below the range (a zero, which
    # is harmless, or a tiny entry) the smallest nonzero one, which costs twice as much.
    return (float(np.min(magnitudes)) >= _PLAIN_LOW
            or float(np.min(magnitudes, where=magnitudes != 0, initial=np.inf)) >= _PLAIN_LOW)


def distances_to(A: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``safe_norm(A - p, axis=1)`` for each row p of ``points``: shape (len(points), len(A)).

    The same bits as those calls: each row's norm is computed in the same operations, only
    block by block of rows (a row's norm never depends on the other rows, nor on the other
    points: a block whose entries and points are in :data:`_PLAIN_LOW`'s range, or whose
    squares all pass :func:`_plain_norm`'s test, gets the plain norm, any other block the
    exact algorithm of :func:`safe_norm`). Many points cost one pass over ``A`` from
    memory; each block stays in the CPU's cache for all of them.

    >>> A = np.array([[3.0, 4.0], [0.0, 0.0]])
    >>> distances_to(A, np.zeros((1, 2))).tolist()
    [[5.0, 0.0]]
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    out = np.empty((len(points), len(A)))
    if not len(A):
        return out
    rows = min(max(1, _BLOCK_ENTRIES // max(1, A.shape[1])), len(A))
    diff = np.empty((rows, A.shape[1]))
    squares = np.empty_like(diff)
    points_plain = len(points) > 0 and _plain_range(points)
    for start in range(0, len(A), rows):
        block = A[start:start + rows]
        n = len(block)
        plain = points_plain and _plain_range(block)
        for k, p in enumerate(points):
            d, sq = diff[:n], squares[:n]
            np.subtract(block, p, out=d)
            if plain:
                np.multiply(d, d, out=sq)
                np.sqrt(np.add.reduce(sq, axis=1), out=out[k, start:start + n])
                continue
            with np.errstate(over="ignore"):
                np.multiply(d, d, out=sq)
            low, high = float(np.min(sq)), float(np.max(sq))
            norm = None
            if low >= max(high * _SPREAD, _TINY):
                with np.errstate(over="ignore"):
                    norm = np.sqrt(np.add.reduce(sq, axis=1))
                if not np.all(np.isfinite(norm)):
                    norm = None
            out[k, start:start + n] = safe_norm(d, axis=1) if norm is None else norm
    return out
