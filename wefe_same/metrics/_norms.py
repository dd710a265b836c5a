"""Euclidean norms that neither overflow nor underflow on extreme but finite vectors.

``np.linalg.norm`` squares the entries: a vector scaled by 1e200 overflows to inf (its
unit vector becomes 0 and every cosine metric reads "no bias"), and one scaled by 1e-200
underflows to 0 (it looks like a zero vector). Dividing by the largest magnitude first,
as LAPACK's ``dnrm2`` does, keeps every square in [0, 1]; a power of two
scales exactly.
"""

from __future__ import annotations

import numpy as np


def safe_norm(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """‖x‖₂ along ``axis``, computed as m·‖x/m‖₂ with m the power of two just above max|x|.

    The result is inf only when the true norm exceeds the largest float (or ``x`` holds
    inf), and 0 only for a zero vector.

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
    peak = np.max(np.abs(x), axis=axis, keepdims=True)
    finite = np.isfinite(peak)
    # Scale by a power of two (exact: no rounding) that brings the peak into [0.5, 1).
    _, exponent = np.frexp(np.where(finite, peak, 1.0))
    scaled = np.ldexp(np.where(np.isfinite(x), x, 0.0), -exponent)
    with np.errstate(over="ignore"):  # a true norm above the largest float is inf, as it should be
        norm = np.ldexp(np.linalg.norm(scaled, axis=axis, keepdims=True), exponent)
    norm = np.where(finite, norm, np.inf)
    if keepdims:
        return norm
    return np.squeeze(norm, axis=axis) if axis is not None else norm.reshape(())
