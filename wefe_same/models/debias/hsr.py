"""Half-sibling regression debiasing (Yang & Feng 2020) as a model variant.

The gender-definition words' vectors, as the columns of V_d (d × m), "explain" the part of
every other word's vector that gender confounds. Ridge regression across the d
coordinates predicts each non-definition vector v from the columns of V_d, and that
prediction is subtracted (Yang & Feng 2020, the half-sibling regression step):

    W = (V_dᵀ V_d + α I)⁻¹ V_dᵀ V_n,   V̂_n = V_n − V_d W.

Column by column this is v̂ = v − P v with P = V_d (V_dᵀ V_d + α I)⁻¹ V_dᵀ, a d × d matrix:
each word is debiased on its own, so lookups stay lazy and nothing reads the whole
vocabulary. The definition words keep their vectors. Vectors are used as the model gives
them (not normalised), as in the paper's formula and WEFE 0.4.1's
``HalfSiblingRegression``, which this equals (tests/models/test_debias_methods.py).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property
from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, as_source, source_vocabulary
from wefe_same.models.debias.linalg import _lists_sha256
from wefe_same.models.debias.options import HSR_OPTIONS, check_parameters

#: The least share of its length that some direction must keep through I − P (else every
#: vector comes out as rounding noise: alpha far below the definition vectors' scale), and
#: the least share that P must remove along some direction (else no vector changes: alpha
#: far above it, and the variant is its base).
MIN_KEPT = MIN_REMOVED = 1e-3
DEGENERATE = ("{name}: alpha={alpha:g} keeps at most {kept:.1e} of any vector's length (the regression on {m} "
              "definition words in {d} dimensions fits every vector, leaving rounding noise); give alpha >= {low:.3g}")
NO_EFFECT = ("{name}: alpha={alpha:g} removes at most {removed:.1e} of any vector's length (the ridge term "
             "outweighs the {m} definition words: the variant would be its base); give alpha <= {high:.3g}")


def shares(definitional: np.ndarray, alpha: float) -> tuple[float, float]:
    """(kept, removed): the largest factor by which I − P scales a vector, α / (λ_min + α), and
    the largest by which P does, λ_max / (λ_max + α); λ the eigenvalues of V_d V_dᵀ (λ_min = 0
    when the m definition vectors span fewer than d dimensions).

    >>> shares(np.array([[1.0, 0.0]]), alpha=1.0)    # x halved, y not explained: kept whole
    (1.0, 0.5)
    >>> [round(x, 12) for x in shares(np.array([[2.0, 0.0], [0.0, 2.0]]), alpha=1e-12)]
    [0.0, 1.0]
    """
    D = np.asarray(definitional, dtype=np.float64)
    eigenvalues = np.linalg.eigvalsh(D.T @ D)
    smallest = 0.0 if len(D) < D.shape[1] else max(0.0, float(eigenvalues[0]))
    largest = max(0.0, float(eigenvalues[-1]))
    return alpha / (smallest + alpha), largest / (largest + alpha)


def check_alpha(name: str, definitional: np.ndarray, alpha: float) -> None:
    """A :class:`ModelError` for an alpha that turns every vector into noise or changes none."""
    kept, removed = shares(definitional, alpha)
    m, d = np.shape(definitional)
    if kept < MIN_KEPT:
        smallest = alpha / kept - alpha
        raise ModelError(DEGENERATE.format(name=name, alpha=alpha, kept=kept, m=m, d=d,
                                           low=smallest * MIN_KEPT / (1 - MIN_KEPT)))
    if removed < MIN_REMOVED:
        largest = removed * alpha / (1 - removed)
        raise ModelError(NO_EFFECT.format(name=name, alpha=alpha, removed=removed, m=m,
                                          high=largest * (1 - MIN_REMOVED) / MIN_REMOVED))


def hsr_operator(definitional: np.ndarray, alpha: float) -> np.ndarray:
    """P = V_d (V_dᵀ V_d + α I)⁻¹ V_dᵀ for the definition vectors as rows of ``definitional`` (m, d).

    >>> P = hsr_operator(np.array([[1.0, 0.0]]), alpha=1.0)   # one word along x
    >>> P.round(3).tolist()                                   # halves the x part: 1 / (1 + α)
    [[0.5, 0.0], [0.0, 0.0]]
    """
    D = np.asarray(definitional, dtype=np.float64).T
    return D @ np.linalg.solve(D.T @ D + alpha * np.eye(D.shape[1]), D.T)


class HSRDebiasedSource(ModelSource):
    """A model variant: ``base`` after half-sibling regression.

    Parameters
    ----------
    base : ModelSource
    definitional : collection of str
        The gender-definition words (V_d); those the model knows are used.
    alpha : float
        The ridge constant α (default 60).
    """

    has_vocabulary = True

    def __init__(self, base: ModelSource, *, definitional: Collection[str], alpha: float = 60.0,
                 lists: str = "", name: str | None = None, suffix: str = "+hsr-debias") -> None:
        check_parameters(type(self).__name__, HSR_OPTIONS, alpha=alpha)
        self.base = as_source(base)
        self.name = name or f"{self.base.name}{suffix}"
        self.definitional = sorted(set(definitional))
        self.alpha = float(alpha)
        self.lists = lists

    @property
    def open_vocabulary(self) -> bool:  # type: ignore[override]
        return self.base.open_vocabulary

    @cached_property
    def operator(self) -> np.ndarray:
        """P (d × d), from the definition words the base knows."""
        found = self.base.lookup(self.definitional)
        rows = [found[w] for w in self.definitional if w in found and np.all(np.isfinite(found[w]))]
        if not rows:
            raise ModelError(f"model {self.base.name!r} knows none of the {len(self.definitional)} "
                             f"gender-definition words; cannot make {self.name!r}")
        vectors = np.array(rows)
        check_alpha(self.name, vectors, self.alpha)
        return hsr_operator(vectors, self.alpha)

    def _debias(self, words: list[str], rows: np.ndarray) -> np.ndarray:
        rows = np.array(rows, dtype=np.float64)  # a copy: the base's own matrix is changed in place below
        neutral = np.fromiter((w not in self._kept for w in words), dtype=bool, count=len(words))
        rows[neutral] -= rows[neutral] @ self.operator.T
        return rows

    @cached_property
    def _kept(self) -> frozenset[str]:
        return frozenset(self.definitional)

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        found = self.base.lookup(words)
        keys = list(found)
        if not keys:
            return {}
        return dict(zip(keys, self._debias(keys, np.array([found[w] for w in keys]))))

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        words, raw = source_vocabulary(self.base, limit, name=self.base.name)
        return words, self._debias(words, raw).astype(np.float32)

    @cached_property
    def lists_sha256(self) -> str:
        return _lists_sha256({"definitional": self.definitional})

    def describe(self) -> dict[str, str]:
        return {"kind": "hsr-debias", "method": "Yang & Feng 2020", "base": self.base.name,
                "alpha": repr(self.alpha), "definitional_words": str(len(self.definitional)),
                "lists": self.lists, "lists_sha256": self.lists_sha256}

    def identity(self) -> dict[str, Any] | None:
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "hsr-debias", "alpha": self.alpha, "lists_sha256": self.lists_sha256, "base": base}
