"""Manzini et al. 2019 multiclass hard debiasing as a model variant: Bolukbasi et al.'s
algorithm with n classes and a k-dimensional bias subspace (see
:class:`MulticlassHardDebiasedSource`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cached_property
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, as_source, source_vocabulary
from wefe_same.models.debias.linalg import (
    _centred,
    _lists_sha256,
    _unit,
    bias_subspace,
    casings,
    equalize_set,
    neutralize_subspace,
    neutralized_rows,
)
from wefe_same.query.files import load_queries
from wefe_same.validation import InvalidParameterError, check_choice, check_int

#: Model-spec suffix of each Manzini et al. variant → its group in ``queries/manzini.toml``.
MULTICLASS_VARIANTS: dict[str, str] = {"+debias-religion": "religion", "+debias-race": "race"}


class MulticlassHardDebiasedSource(ModelSource):
    """A model variant: ``base`` after Manzini et al.'s multiclass hard debiasing.

    Parameters
    ----------
    base : ModelSource
    defining : sequence of sequences of str
        The defining sets, each with one word per class (n classes); the bias subspace
        is the first ``k`` principal components of their unit vectors, each set centred on
        its own mean. A set with fewer than two words in the model is left out.
    equalize_sets : sequence of sequences of str
        The equality sets; each is equalised in lower, title and upper case (as
        Bolukbasi's pairs are). They must be disjoint, so that each word is equalised
        once and lazily computed vectors equal the whole-matrix ones.
    specific : collection of str
        Class-specific words that are not neutralised. Every defining and equality word
        is added; all of them in lower, title and upper case.
    k : int, optional
        Dimension of the bias subspace; default n − 1 (the most that n class means span).
    variant : str
        The variant's suffix (``"+debias-religion"``), for names, manifests and the cache key.
    lists : str
        Where the word lists come from, for the manifest.
    name : str, optional
        Default ``base.name + variant``.
    """

    def __init__(
        self,
        base: ModelSource,
        *,
        defining: Sequence[Sequence[str]],
        equalize_sets: Sequence[Sequence[str]],
        specific: Collection[str] = (),
        k: int | None = None,
        variant: str = "+multiclass-debias",
        lists: str = "",
        name: str | None = None,
    ) -> None:
        func = type(self).__name__
        self.base = as_source(base)
        self.variant = variant
        self.name = name or f"{base.name}{variant}"
        self.lists = lists
        self.defining = [tuple(s) for s in defining]
        sizes = {len(s) for s in self.defining}
        if not self.defining or len(sizes) != 1 or min(sizes) < 2:
            raise InvalidParameterError(
                f"The 'defining' parameter of {func} must be sets of one word per class, all of "
                f"the same size >= 2. Got sizes {sorted(sizes)} instead.")
        self.n_classes = sizes.pop()
        self.k = self.n_classes - 1 if k is None else check_int(k, "k", func, minimum=1)
        self.equalize_sets = [tuple(s) for s in equalize_sets]
        self.candidates = casings(self.equalize_sets)
        seen: dict[str, tuple[str, ...]] = {}
        for words in self.candidates:
            for w in words:
                if w in seen and seen[w] is not words:
                    raise InvalidParameterError(
                        f"The 'equalize_sets' parameter of {func} must be disjoint sets. Got {w!r} "
                        f"in {seen[w]} and {words} instead.")
                seen[w] = words
        kept = {*specific, *(w for s in (*self.defining, *self.equalize_sets) for w in s)}
        self.n_specific = len(kept)
        self.specific = frozenset(f(w) for w in kept for f in (str, str.lower, str.title, str.upper))

    @cached_property
    def lists_sha256(self) -> str:
        """SHA-256 of the word lists (defining and equality sets in order, specific words sorted)."""
        return _lists_sha256({"defining": self.defining, "equalize": self.equalize_sets,
                              "specific": sorted(self.specific)})

    @cached_property
    def subspace(self) -> np.ndarray:
        """Orthonormal basis of the bias subspace, shape (k, d), read from the base model."""
        found = self.base.lookup({w for s in self.defining for w in s})
        sets = []
        with np.errstate(invalid="ignore", divide="ignore"):
            for words in self.defining:
                vectors = [u for u in (_unit(found[w]) for w in words if w in found) if np.all(np.isfinite(u))]
                if len(vectors) >= 2:
                    sets.append(np.array(vectors))
        rank = int(np.linalg.matrix_rank(_centred(sets))) if sets else 0
        if rank < self.k:
            raise ModelError(
                f"model {self.base.name!r} lacks the defining words of the {self.variant} variant: "
                f"{len(sets)} of its {len(self.defining)} defining sets have two or more words in it, "
                f"spanning {rank} of the k={self.k} dimensions; cannot make {self.name!r}")
        return bias_subspace(sets, self.k)

    def _equalize_into(self, vectors: dict[str, np.ndarray], words: Sequence[str]) -> None:
        present = [w for w in words if w in vectors and np.all(np.isfinite(vectors[w]))]
        if len(present) >= 2:
            moved = equalize_set(np.array([vectors[w] for w in present]), self.subspace)
            vectors.update(zip(present, moved))

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        wanted = set(words)
        sets = [s for s in self.candidates if not wanted.isdisjoint(s)]
        found = self.base.lookup(wanted | {w for s in sets for w in s})
        basis = self.subspace
        with np.errstate(invalid="ignore", divide="ignore"):
            out = {w: _unit(v) if w in self.specific else neutralize_subspace(_unit(v), basis)
                   for w, v in found.items()}
        for s in sets:
            self._equalize_into(out, s)
        return {w: v for w, v in out.items() if w in wanted}

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        """The base's first ``limit`` words, debiased as :meth:`lookup` does, whole-matrix.

        Rows are unit-normalised; rows of words outside :attr:`specific` lose their
        projection on :attr:`subspace` and are renormalised (one vectorised step); then
        each equality set with a word among the ``limit`` words is equalised, its words
        beyond the limit read from the base, so every row equals :meth:`lookup` (to
        float32). A word that repeats takes the treatment of its first occurrence's word;
        equalising acts on first occurrences, the rows :meth:`lookup` returns.

        Returns
        -------
        words : list of str, length n
        vectors : ndarray of float32, shape (n, d)
            Unit vectors (a zero row stays NaN, as in :meth:`lookup`).
        """
        words, raw = source_vocabulary(self.base, limit, name=self.base.name)
        basis = self.subspace
        matrix = np.asarray(raw, dtype=np.float64)
        first: dict[str, int] = {}
        for i, w in enumerate(words):
            first.setdefault(w, i)
        sets = [s for s in self.candidates if any(w in first for w in s)]
        outside = self.base.lookup({w for s in sets for w in s if w not in first})
        neutral = np.fromiter((w not in self.specific for w in words), dtype=bool, count=len(words))
        matrix = neutralized_rows(matrix, neutral, lambda rows: (rows @ basis.T) @ basis)
        with np.errstate(invalid="ignore", divide="ignore"):
            vectors = {w: _unit(v) for w, v in outside.items()}
        for s in sets:
            vectors.update((w, matrix[first[w]]) for w in s if w in first)
            self._equalize_into(vectors, s)
            for w in s:
                if w in first:
                    matrix[first[w]] = vectors[w]
        return words, matrix.astype(np.float32)

    def describe(self) -> dict[str, str]:
        return {
            "kind": "multiclass-hard-debias",
            "method": "Manzini et al. 2019",
            "base": self.base.name,
            "variant": self.variant,
            "k": str(self.k),
            "classes": str(self.n_classes),
            "lists": self.lists,
            "lists_sha256": self.lists_sha256,
            "defining_sets": str(len(self.defining)),
            "equalize_sets": str(len(self.equalize_sets)),
            "equalize_candidates": str(len(self.candidates)),
            "specific_words": str(self.n_specific),
        }

    #: :meth:`vocabulary` is delegated to the base, which raises when it cannot list its words.
    has_vocabulary = True

    @property
    def open_vocabulary(self) -> bool:  # type: ignore[override]
        """As the base: a variant of an encoder has a vector for every string too."""
        return self.base.open_vocabulary

    def identity(self) -> dict[str, Any] | None:
        """The cache key: the base's identity, the variant, k and the lists' hash; None
        when the base has no identity (then nothing is cached)."""
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "multiclass-hard-debias", "variant": self.variant, "k": self.k,
                "lists_sha256": self.lists_sha256, "base": base}


def manzini_debiased(base: ModelSource, group: Literal["religion", "race"], *, name: str | None = None,
                     k: int | None = None) -> MulticlassHardDebiasedSource:
    """``base`` debiased for ``group`` with the lists of ``queries/manzini.toml``.

    The file's sets ``{group}_defining_*`` are the defining sets, ``{group}_equalize_*``
    the equality sets and ``{group}_specific`` (if any) the words kept from neutralising.
    """
    suffix = {g: s for s, g in MULTICLASS_VARIANTS.items()}[check_choice(group, "group", "manzini_debiased",
                                                                       MULTICLASS_VARIANTS.values())]
    (lists,) = load_queries("manzini")
    by_role: dict[str, list[tuple[str, ...]]] = {"defining": [], "equalize": [], "specific": []}
    for s in lists.sets:
        head, _, _ = s.name.removeprefix(f"{group}_").partition("_")
        if s.name.startswith(f"{group}_") and head in by_role:
            by_role[head].append(s.words)
    return MulticlassHardDebiasedSource(
        base,
        defining=by_role["defining"],
        equalize_sets=by_role["equalize"],
        specific=[w for s in by_role["specific"] for w in s],
        k=k,
        variant=suffix,
        lists=f"queries/manzini.toml {group}_*",
        name=name,
    )
