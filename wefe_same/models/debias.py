"""Hard debiasing (Bolukbasi et al. 2016): neutralise and equalise, as a model variant.

The maths follows the authors' reference algorithm: vectors are unit-normalised, the
gender direction is the first principal component of the centred definitional pairs,
every word outside the gender-specific list loses its component along that direction
and is renormalised, and each equalise pair (in lower, title and upper case) is moved
to be symmetric about the direction. Each step acts on one word or one pair, so the
variant computes it lazily for the words a run asks for; no whole matrix is rewritten,
except by :meth:`HardDebiasedSource.vocabulary`, which analogy benchmarks call.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from functools import cached_property

import numpy as np

from ..errors import ModelError
from .sources import ModelSource, source_vocabulary

Pair = tuple[str, str]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def gender_direction(pairs: np.ndarray) -> np.ndarray:
    """First principal component of the centred pairs.

    Parameters
    ----------
    pairs : ndarray, shape (m, 2, d)
        Unit vectors of m definitional pairs.

    >>> gender_direction(np.array([[[1.0, 0.1], [-1.0, 0.1]], [[0.9, -0.2], [-0.9, -0.2]]])).round(3)
    array([1., 0.])
    """
    centred = (pairs - pairs.mean(axis=1, keepdims=True)).reshape(-1, pairs.shape[-1])
    direction = np.linalg.svd(centred, full_matrices=False)[2][0]
    # The sign of a principal component is arbitrary; fix it so runs are byte-identical.
    return direction if direction[np.argmax(np.abs(direction))] > 0 else -direction


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


def casings(pairs: Iterable[Pair]) -> list[Pair]:
    """The equalise candidates: each pair in lower, title and upper case, first seen first."""
    out: dict[Pair, None] = {}
    for a, b in pairs:
        for fold in (str.lower, str.title, str.upper):
            out[(fold(a), fold(b))] = None
    return list(out)


class HardDebiasedSource:
    """A model variant: ``base`` after hard debiasing with the given word lists."""

    def __init__(
        self,
        base: ModelSource,
        *,
        definitional: Sequence[Pair],
        equalize_pairs: Sequence[Pair],
        gender_specific: Collection[str],
        name: str | None = None,
    ) -> None:
        self.base = base
        self.name = name or f"{base.name}+hard-debias"
        self.definitional = list(definitional)
        self.candidates = casings(equalize_pairs)
        self.specific = frozenset(gender_specific)

    @cached_property
    def direction(self) -> np.ndarray:
        words = {w for pair in self.definitional for w in pair}
        found = self.base.lookup(words)
        pairs = [(a, b) for a, b in self.definitional if a in found and b in found]
        if not pairs:
            raise ModelError(f"model {self.base.name!r} knows no definitional pair; cannot hard-debias it")
        return gender_direction(np.array([[_unit(found[a]), _unit(found[b])] for a, b in pairs]))

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        wanted = set(words)
        pairs = [(a, b) for a, b in self.candidates if a in wanted or b in wanted]
        found = self.base.lookup(wanted | {w for pair in pairs for w in pair})
        g = self.direction
        out = {
            w: _unit(v) if w in self.specific else neutralize(_unit(v), g) for w, v in found.items()
        }
        for a, b in pairs:
            if a in out and b in out:
                out[a], out[b] = equalize(out[a], out[b], g)
        return {w: v for w, v in out.items() if w in wanted}

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The base's first ``limit`` words, hard-debiased as :meth:`lookup` does, whole-matrix.

        Rows are unit-normalised; the rows of words outside the gender-specific list lose
        their component along :attr:`direction` and are renormalised (one vectorised
        step); then each equalise candidate pair whose two words are both among the
        ``limit`` words is equalised, in the order :meth:`lookup` uses. A word that
        repeats takes the treatment of its first occurrence's word; equalising acts on
        first occurrences, the rows :meth:`lookup` returns.

        Returns
        -------
        words : list of str, length n
        vectors : ndarray of float32, shape (n, d)
            Unit vectors (a zero row stays NaN, as in :meth:`lookup`).
        """
        words, raw = source_vocabulary(self.base, limit, name=self.base.name)
        g = self.direction
        matrix = np.asarray(raw, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
            neutral = np.fromiter((w not in self.specific for w in words), dtype=bool, count=len(words))
            rows = matrix[neutral]
            rows -= np.outer(rows @ g, g)
            matrix[neutral] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        first: dict[str, int] = {}
        for i, w in enumerate(words):
            first.setdefault(w, i)
        for a, b in self.candidates:
            if a in first and b in first:
                i, j = first[a], first[b]
                matrix[i], matrix[j] = equalize(matrix[i], matrix[j], g)
        return words, matrix.astype(np.float32)

    def describe(self) -> dict[str, str]:
        return {
            "kind": "hard-debias",
            "base": self.base.name,
            "definitional_pairs": str(len(self.definitional)),
            "equalize_candidates": str(len(self.candidates)),
            "gender_specific_words": str(len(self.specific)),
        }
