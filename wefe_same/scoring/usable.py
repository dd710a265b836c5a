"""Which vectors can be used: a zero vector cannot be normalised, one with NaN or inf
values (or a norm past the largest float) cannot be scored. Checked for a whole matrix at
once; the statuses are lookup statuses of ``wefe_same.scoring.vectors``.

>>> row_problems(np.array([[3.0, 4.0], [0.0, 0.0], [np.nan, 1.0]])).tolist()
[0, 2, 1]
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from wefe_same.metrics._norms import safe_norm

#: The statuses a vector check gives (a subset of the lookup statuses).
ProblemStatus = Literal["exact", "non-finite vector", "zero vector"]

#: A found word's status by :func:`row_problems`' code.
PROBLEM_STATUS: tuple[ProblemStatus, ...] = ("exact", "non-finite vector", "zero vector")


def row_problems(matrix: np.ndarray) -> np.ndarray:
    """Per row of a float64 matrix: 0 usable, 1 "non-finite vector", 2 "zero vector" (as :func:`checked_vectors`)."""
    finite = np.isfinite(matrix).all(axis=1)
    nonzero = matrix.any(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        overflows = ~np.isfinite(np.einsum("ij,ij->i", matrix, matrix))
    codes = np.where(~finite, 1, np.where(~nonzero, 2, 0))
    for i in np.flatnonzero(overflows & finite & nonzero):  # finite entries, a norm past the largest float
        if not np.isfinite(safe_norm(matrix[i])):
            codes[i] = 1
    return codes


def checked_vectors(raw: list[Any]) -> tuple[list[tuple[np.ndarray, ProblemStatus | None]], np.ndarray | None]:
    """Each vector as float64, with "non-finite vector", "zero vector" or None (usable),
    and the matrix of them all (None when they do not have one shape, or there are none).

    Checked for all vectors at once when they have one shape (NumPy calls per table, not
    per word); a norm that overflows the plain sum of squares is checked again with
    :func:`~wefe_same.metrics._norms.safe_norm` (~100x slower, so only then): finite
    entries whose norm exceeds the largest float are "non-finite vector".
    """
    vecs = [np.asarray(v, dtype=np.float64) for v in raw]
    if not vecs:
        return [], None
    matrix: np.ndarray | None = None
    if all(v.ndim == 1 and v.shape == vecs[0].shape for v in vecs):
        matrix = np.stack(vecs)
        finite = np.asarray(np.isfinite(matrix).all(axis=1))
        nonzero = np.asarray(matrix.any(axis=1))
        with np.errstate(over="ignore", invalid="ignore"):
            overflows = ~np.isfinite(np.einsum("ij,ij->i", matrix, matrix))
    else:  # ragged vectors: one at a time (the table's stacking names the problem later)
        finite = np.array([bool(np.all(np.isfinite(v))) for v in vecs])
        nonzero = np.array([bool(np.any(v)) for v in vecs])
        with np.errstate(over="ignore", invalid="ignore"):
            overflows = np.array([not np.isfinite(np.sum(v * v)) for v in vecs])
    out: list[tuple[np.ndarray, ProblemStatus | None]] = []
    for vec, ok, any_value, over in zip(vecs, finite.tolist(), nonzero.tolist(), overflows.tolist()):
        if not ok:
            out.append((vec, "non-finite vector"))
        elif not any_value:
            out.append((vec, "zero vector"))
        elif over and not np.isfinite(safe_norm(vec)):
            out.append((vec, "non-finite vector"))
        else:
            out.append((vec, None))
    return out, matrix
