"""Hard debiasing as model variants: Bolukbasi et al. 2016 (binary) and Manzini et al. 2019
(multiclass), each computed lazily for the words a run asks for.

Bolukbasi et al. (:class:`HardDebiasedSource`, the reference algorithm of debiaswe):
vectors are unit-normalised, the gender direction is the first principal component of
the centred definitional pairs, every word outside the gender-specific list loses its
component along that direction and is renormalised, and each equalise pair (in lower,
title and upper case) is moved to be symmetric about the direction.

Manzini et al. (:class:`MulticlassHardDebiasedSource`) is the same algorithm with n
classes and a k-dimensional bias subspace: the first k principal components of the
defining sets (one word per class, each set centred on its own mean); every word outside
the class-specific lists loses its projection on the subspace and is renormalised; each
equality set of n words keeps its mean's part off the subspace, ν, and each word gets
ν + √(1 − ‖ν‖²) (w_B − μ_B)/‖w_B − μ_B‖, its own offset from the set's mean inside the
subspace, so every word of the set is equally far from every neutralised word.
Bolukbasi's variant is its k = 1, n = 2 case (equal up to rounding when its definitional
and equalise words are gender-specific; here defining and equality words are never
neutralised).

Each step acts on one word or one set, so no whole matrix is rewritten, except by the
``vocabulary`` methods, which analogy benchmarks call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Sequence
from functools import cached_property
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.validation import InvalidParameterError, check_choice, check_int
from wefe_same.models.sources import ModelSource, source_vocabulary

Pair = tuple[str, str]
#: Model-spec suffix of each Manzini et al. variant → its group in ``queries/manzini.toml``.
MULTICLASS_VARIANTS: dict[str, str] = {"+debias-religion": "religion", "+debias-race": "race"}


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


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


def _lists_sha256(lists: dict[str, Any]) -> str:
    """SHA-256 of a variant's word lists as JSON: part of its cache key and manifest entry."""
    return hashlib.sha256(json.dumps(lists, ensure_ascii=False).encode("utf-8")).hexdigest()


def _base_identity(base: object) -> dict[str, Any] | None:
    """``base.identity()``, or None when the base has none (a variant is cached only if its base is)."""
    method = getattr(base, "identity", None)
    return method() if callable(method) else None


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

    @property
    def open_vocabulary(self) -> bool:
        """As the base: a variant of an encoder has a vector for every string too."""
        return bool(getattr(self.base, "open_vocabulary", False))

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
        base = _base_identity(self.base)
        if base is None:
            return None
        return {"kind": "hard-debias", "lists_sha256": self.lists_sha256, "base": base}


class MulticlassHardDebiasedSource:
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
        self.base = base
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
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
            neutral = np.fromiter((w not in self.specific for w in words), dtype=bool, count=len(words))
            rows = matrix[neutral]
            rows -= (rows @ basis.T) @ basis
            matrix[neutral] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
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

    @property
    def open_vocabulary(self) -> bool:
        """As the base: a variant of an encoder has a vector for every string too."""
        return bool(getattr(self.base, "open_vocabulary", False))

    def identity(self) -> dict[str, Any] | None:
        """The cache key: the base's identity, the variant, k and the lists' hash; None
        when the base has no identity (then nothing is cached)."""
        base = _base_identity(self.base)
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
    from wefe_same.query.files import load_queries

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
