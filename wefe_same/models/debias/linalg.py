"""The linear algebra of hard debiasing, on unit vectors: bias subspaces from defining sets,
neutralising and equalising (Bolukbasi et al. 2016; Manzini et al. 2019)."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from wefe_same.errors import WefeSameWarning
from wefe_same.metrics._norms import safe_norm


class _Lookup(Protocol):
    name: str

    def lookup(self, words: Collection[str]) -> Mapping[str, np.ndarray]: ...


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def neutralized_rows(matrix: np.ndarray, neutral: np.ndarray,
                     remove: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A whole vocabulary's rows as unit vectors, the ``neutral`` ones with their part in the
    bias subspace taken off (``remove(rows)`` is that part) and normalised again.

    The vocabulary path of both debiasing methods (analogy benchmarks); norms are the safe
    ones of :mod:`wefe_same.metrics._norms`, so an extreme but finite model stays finite. A
    zero row stays NaN, as in ``lookup``.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = matrix / safe_norm(matrix, axis=1, keepdims=True)
        rows = unit[neutral]
        rows -= remove(rows)
        unit[neutral] = rows / safe_norm(rows, axis=1, keepdims=True)
    return unit


def _centred(sets: Sequence[np.ndarray]) -> np.ndarray:
    """The rows of every set minus that set's mean, stacked: shape (Σ n_i, d)."""
    return np.concatenate([s - s.mean(axis=0, keepdims=True) for s in sets])


def bias_subspace(sets: Sequence[np.ndarray], k: int) -> np.ndarray:
    """The first ``k`` principal components of the defining sets, each centred on its own mean.

    Parameters
    ----------
    sets : sequence of ndarray, shapes (n_i, d)
        Unit vectors of each defining set (one word per class).
    k : int
        Number of components.

    Returns
    -------
    ndarray, shape (k, d)
        Orthonormal rows, each signed so that its largest-magnitude entry is positive
        (the sign of a principal component is arbitrary; fixing it makes runs
        byte-identical).

    >>> sets = [np.array([[1.0, 0, 0.1], [0, 1, 0.1], [-1, -1, 0.1]])]
    >>> basis = bias_subspace(sets, 2)
    >>> basis.shape, bool(np.abs(basis @ [0, 0, 1.0]).max() < 1e-12)  # the shared part is no bias
    ((2, 3), True)
    """
    components = np.linalg.svd(_centred(sets), full_matrices=False)[2][:k]
    signs = np.where(components[np.arange(len(components)), np.argmax(np.abs(components), axis=1)] > 0, 1.0, -1.0)
    return components * signs[:, None]


def gender_direction(pairs: np.ndarray) -> np.ndarray:
    """First principal component of the centred pairs: :func:`bias_subspace` with k = 1.

    Parameters
    ----------
    pairs : ndarray, shape (m, 2, d)
        Unit vectors of m definitional pairs.

    >>> gender_direction(np.array([[[1.0, 0.1], [-1.0, 0.1]], [[0.9, -0.2], [-0.9, -0.2]]])).round(3)
    array([1., 0.])
    """
    return bias_subspace(list(pairs), 1)[0]


def neutralize(v: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Remove the component along the unit ``direction`` and renormalise."""
    return _unit(v - (v @ direction) * direction)


def equalize(a: np.ndarray, b: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move a pair of unit vectors to be symmetric about ``direction`` (Bolukbasi step 2b)."""
    mean = (a + b) / 2
    nu = mean - (mean @ direction) * direction
    z = np.sqrt(max(0.0, 1.0 - float(nu @ nu)))
    if (a - b) @ direction < 0:
        z = -z
    return z * direction + nu, -z * direction + nu


def neutralize_subspace(v: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Remove the projection on the subspace with orthonormal rows ``basis`` (k, d); renormalise."""
    return _unit(v - (basis @ v) @ basis)


def equalize_set(vectors: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Manzini et al.'s equalise: n unit vectors (n, d) moved about the subspace ``basis`` (k, d).

    Every word gets ν + √(1 − ‖ν‖²) (w_B − μ_B)/‖w_B − μ_B‖, where μ is the set's mean,
    ν = μ − μ_B its part off the subspace and w_B, μ_B projections on the subspace. A
    word whose projection equals the mean's (w_B = μ_B) has no direction and becomes NaN.
    For a pair and k = 1 this is :func:`equalize`:

    >>> g = np.array([[1.0, 0, 0]])
    >>> a, b = np.array([0.8, 0.6, 0]), np.array([-0.6, 0.8, 0])
    >>> bool(np.allclose(equalize_set(np.array([a, b]), g), equalize(a, b, g[0]), atol=1e-15))
    True
    """
    mean = vectors.mean(axis=0)
    mean_b = (basis @ mean) @ basis
    nu = mean - mean_b
    offsets = (vectors @ basis.T) @ basis - mean_b
    with np.errstate(invalid="ignore", divide="ignore"):
        directions = offsets / np.linalg.norm(offsets, axis=1, keepdims=True)
    return nu + np.sqrt(max(0.0, 1.0 - float(nu @ nu))) * directions


def casings(sets: Iterable[Sequence[str]]) -> list[tuple[str, ...]]:
    """The equalise candidates: each pair (or set) in lower, title and upper case, first seen first.

    >>> casings([("he", "she"), ("Mary", "John")])
    [('he', 'she'), ('He', 'She'), ('HE', 'SHE'), ('mary', 'john'), ('Mary', 'John'), ('MARY', 'JOHN')]
    """
    out: dict[tuple[str, ...], None] = {}
    for words in sets:
        for fold in (str.lower, str.title, str.upper):
            out[tuple(fold(w) for w in words)] = None
    return list(out)


def known_pairs(pairs: Sequence[tuple[str, str]], found: Mapping[str, Any], base: _Lookup,
                variant: str) -> list[tuple[str, str]]:
    """The definitional pairs whose two words ``found`` holds, in order.

    Each pair left out gives a :class:`~wefe_same.errors.WefeSameWarning` naming it, the
    word the model lacks and, when the model knows that word in lower case, that case
    lost it (debiaswe's Mary/John in a lower-case GloVe). No warning when none is left:
    the caller then raises.
    """
    kept = [(a, b) for a, b in pairs if a in found and b in found]
    if not kept:  # the caller raises, naming the model
        return kept
    lost = [w for a, b in pairs if (a, b) not in kept for w in (a, b) if w not in found]
    lowered = base.lookup({w.lower() for w in lost if w.lower() != w}) if lost else {}
    for a, b in pairs:
        if (a, b) in kept:
            continue
        word = a if a not in found else b
        why = (f"{word!r} is not in the model, {word.lower()!r} is (the lists are case-sensitive)"
               if word.lower() in lowered else f"{word!r} is not in the model")
        warnings.warn(f"{variant}: definitional pair {a}/{b} left out: {why}", WefeSameWarning, stacklevel=3)
    return kept


def _lists_sha256(lists: dict[str, Any]) -> str:
    """SHA-256 of a variant's word lists as JSON: part of its cache key and manifest entry."""
    return hashlib.sha256(json.dumps(lists, ensure_ascii=False).encode("utf-8")).hexdigest()
