"""Bolukbasi et al. 2016 hard debiasing as a model variant (the reference algorithm of
debiaswe): vectors are unit-normalised, the gender direction is the first principal
component of the centred definitional pairs, every word outside the gender-specific list
loses its component along that direction and is renormalised, and each equalise pair (in
lower, title and upper case) is moved to be symmetric about the direction."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, as_source, source_vocabulary
from wefe_same.models.debias.linalg import (
    _lists_sha256,
    _unit,
    casings,
    equalize,
    gender_direction,
    known_pairs,
    neutralize,
    neutralized_rows,
)

Pair = tuple[str, str]


class HardDebiasedSource(ModelSource):
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
        self.base = as_source(base)
        self.name = name or f"{base.name}+hard-debias"
        self.definitional = list(definitional)
        self.candidates = casings(equalize_pairs)
        self.specific = frozenset(gender_specific)

    @cached_property
    def direction(self) -> np.ndarray:
        words = {w for pair in self.definitional for w in pair}
        found = self.base.lookup(words)
        pairs = known_pairs(self.definitional, found, self.base, self.name)
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
        neutral = np.fromiter((w not in self.specific for w in words), dtype=bool, count=len(words))
        matrix = neutralized_rows(matrix, neutral, lambda rows: np.outer(rows @ g, g))
        first: dict[str, int] = {}
        for i, w in enumerate(words):
            first.setdefault(w, i)
        for a, b in self.candidates:
            if a in first and b in first:
                i, j = first[a], first[b]
                matrix[i], matrix[j] = equalize(matrix[i], matrix[j], g)
        return words, matrix.astype(np.float32)

    #: :meth:`vocabulary` is delegated to the base, which raises when it cannot list its words.
    has_vocabulary = True

    @property
    def open_vocabulary(self) -> bool:  # type: ignore[override]
        """As the base: a variant of an encoder has a vector for every string too."""
        return self.base.open_vocabulary

    @cached_property
    def lists_sha256(self) -> str:
        """SHA-256 of the word lists (definitional pairs and equalise candidates in order,
        gender-specific words sorted)."""
        return _lists_sha256({"definitional": self.definitional, "equalize": self.candidates,
                              "specific": sorted(self.specific)})

    def describe(self) -> dict[str, str]:
        return {
            "kind": "hard-debias",
            "base": self.base.name,
            "definitional_pairs": str(len(self.definitional)),
            "equalize_candidates": str(len(self.candidates)),
            "gender_specific_words": str(len(self.specific)),
            "lists_sha256": self.lists_sha256,
        }

    def identity(self) -> dict[str, Any] | None:
        """The cache key: the base's identity and the lists' hash; None when the base has
        no identity (then nothing is cached)."""
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "hard-debias", "lists_sha256": self.lists_sha256, "base": base}
