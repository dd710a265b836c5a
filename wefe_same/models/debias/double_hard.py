"""Double-hard debias (Wang et al. 2020, Algorithm 1) as a model variant.

Word frequency distorts the gender direction, so before hard debiasing the vectors lose
one "frequency direction", a principal component of the whole vocabulary:

1. μ = mean of every vector; u_1 … u_c the first c principal components of {w − μ}.
2. The n most female and n most male words (by cos(w, he) − cos(w, she), gender-specific
   words left out) are the test words.
3. For each candidate u_i: w'_i = (w − μ) − (u_iᵀw) u_i for the test words, project the
   gender direction out of them and cluster them in two with k-means; a = the accuracy
   of the clusters against the true groups, max(a, 1 − a).
4. k = the candidate with the lowest accuracy (the least recoverable gender); every word
   becomes w' = (w − μ) − (u_kᵀw) u_k, and the w' are hard-debiased by Bolukbasi et al.'s
   algorithm (:class:`~wefe_same.models.debias.bolukbasi.HardDebiasedSource`: unit
   vectors, the direction from the definitional pairs of w', neutralise, equalise).

Steps 1–3 read the whole vocabulary once (:mod:`.vocab`); step 4 acts on one word at a
time, so lookups stay lazy. Two flavours (docs/guide/debiasing.md gives each choice's
source):

- ``"authors"`` (default): the authors' code (uvavision/Double-Hard-Debias,
  ``GloVe_Debias.ipynb`` and ``utils.py``) step by step: the test words come from the
  first ``pool`` (50,000) words that pass :func:`authors_word`, minus their
  gender-specific list; in step 3 the gender direction is the first principal component
  of the cleaned, not renormalised, definitional pairs, the neutralised test words are
  not renormalised, and k-means (seed 1) sees the male words first; 20 candidates. Their
  code stops at step 3; step 4 is the paper's Algorithm 1 (Bolukbasi's hard debias).
- ``"wefe"``: WEFE 0.4.1's ``DoubleHardDebias().fit(...).transform(model, ignore=...)``
  step by step (``wefe/debias/double_hard_debias.py``): test words from the whole
  vocabulary minus ``ignore``; the gender direction g is the first principal component of
  the raw definitional pairs, fixed for every candidate; the test words lose their part
  along g without renormalising; k-means is scikit-learn's ``KMeans(2)`` with one
  initialisation (``n_init="auto"`` since scikit-learn 1.4) and one random state shared
  by the 4 candidates' fits in order, so ``seed=s`` reproduces WEFE run after
  ``numpy.random.seed(s)``. Only the 2n test words are rewritten, to
  w'' = w' − (w'ᵀg) g, as WEFE's ``model.update`` does; every other word keeps its raw
  vector (no hard debias, no equalise, no renormalising).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource, as_source, source_vocabulary
from wefe_same.models.debias.bolukbasi import HardDebiasedSource
from wefe_same.models.debias.linalg import gender_direction
from wefe_same.models.debias.options import DOUBLE_HARD_OPTIONS, check_parameters
from wefe_same.models.debias.vocab import cosine_difference, mean_and_components, read_vocabulary

Pair = tuple[str, str]


def remove_frequency(vectors: np.ndarray, mean: np.ndarray, u: np.ndarray) -> np.ndarray:
    """w' = (w − μ) − (uᵀw) u for each row w (Wang et al. 2020, Algorithm 1, line 16).

    The projection is of w, not of w − μ, as in the paper and its code.

    >>> remove_frequency(np.array([[1.0, 2.0]]), np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    array([[-0.5,  1.5]])
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    return vectors - mean - np.outer(vectors @ u, u)


def gendered_words(words: Sequence[str], scores: np.ndarray, n: int, exclude: Collection[str]) -> tuple[list[str], ...]:
    """The ``n`` lowest-scoring and the ``n`` highest-scoring words, leaving out ``exclude``.

    ``scores`` is cos(w, a) − cos(w, b) for the representation words (a, b) = (he, she):
    the lowest are the most female. Both lists are in increasing score order; equal
    scores keep the vocabulary order (as WEFE's stable sort does).

    >>> gendered_words(["x", "y", "z", "he"], np.array([0.3, -0.2, 0.1, 0.9]), 1, {"he"})
    (['y'], ['x'])
    """
    excluded = set(exclude)
    keep = [i for i, w in enumerate(words) if w not in excluded and np.isfinite(scores[i])]
    order = [keep[i] for i in np.argsort(scores[keep], kind="stable")]
    return [words[i] for i in order[:n]], [words[i] for i in order[len(order) - n:]]


def authors_word(word: str) -> bool:
    """Whether the authors' ``utils.limit_vocab`` keeps ``word`` as a test-word candidate:
    lower case, under 20 characters, no digit, and no ASCII punctuation (an underscore
    phrase passes when none of its parts has any).

    >>> [authors_word(w) for w in ("nurse", "Nurse", "3d", "u.s.", "ex_wife", "café")]
    [True, False, False, False, True, True]
    """
    if word.lower() != word or len(word) >= 20 or any(c in "0123456789" for c in word):
        return False
    return not any(c in string.punctuation for part in word.split("_") for c in part)


def kmeans_alignment(vectors: np.ndarray, n_first: int, random_state: int | np.random.RandomState = 0,
                     n_init: int = 10) -> float:
    """Accuracy of a 2-means clustering of ``vectors`` against (first n_first rows, the rest),
    as max(a, 1 − a): 1 when the groups are recoverable, 0.5 at chance. A ``RandomState``
    is drawn from (and advanced), as scikit-learn does with the global one when unseeded."""
    from sklearn.cluster import KMeans

    truth = np.arange(len(vectors)) >= n_first
    predicted = KMeans(2, n_init=n_init, random_state=random_state).fit_predict(vectors).astype(bool)
    a = float(np.mean(predicted == truth))
    return max(a, 1.0 - a)


def component_alignments(test_vectors: np.ndarray, n_female: int, mean: np.ndarray, components: np.ndarray,
                         direction: Callable[[np.ndarray], np.ndarray], *, normalize: bool = True,
                         random_state: int | np.random.RandomState = 0, n_init: int = 10) -> list[float]:
    """Step 3: the k-means accuracy after removing each candidate component.

    Parameters
    ----------
    test_vectors : ndarray, shape (m, d)
        Raw vectors of the test words, the ``n_female`` female words first.
    mean, components : the vocabulary's mean (d,) and candidate components (c, d).
    direction : callable
        The gender direction (unit, (d,)) given the cleaned vectors' lookup function of
        candidate i: ``direction(u_i)``. The paper re-derives it from the cleaned
        definitional pairs; WEFE uses one fixed direction.
    normalize : bool
        Renormalise after neutralising (Bolukbasi et al.'s neutralise; WEFE does not).
    random_state, n_init : the k-means seed (an int: the same seed for each candidate; a
        ``RandomState``: one stream through the candidates in order, as WEFE's unseeded
        k-means draws from numpy's global one) and its number of initialisations.
    """
    scores = []
    for u in components:
        cleaned = remove_frequency(test_vectors, mean, u)
        g = direction(u)
        neutral = cleaned - np.outer(cleaned @ g, g) / (g @ g)
        if normalize:
            neutral /= np.linalg.norm(neutral, axis=1, keepdims=True)
        scores.append(kmeans_alignment(neutral, n_female, random_state, n_init))
    return scores


@dataclass(frozen=True)
class DoubleHardFit:
    """What steps 1–3 found in the base's vocabulary."""

    mean: np.ndarray
    components: np.ndarray
    female: tuple[str, ...]
    male: tuple[str, ...]
    alignments: tuple[float, ...]
    #: flavour "wefe": the fixed gender direction (unit, from the raw definitional pairs).
    gender: np.ndarray | None = None

    @property
    def chosen(self) -> int:
        """Index of the component removed: the lowest alignment (the first on ties)."""
        return int(np.argmin(self.alignments))

    @property
    def direction(self) -> np.ndarray:
        return self.components[self.chosen]

    def wefe_rows(self, words: Sequence[str], rows: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
        """WEFE's output for ``rows`` (the raw vectors of ``words``) as ``dtype``: the test
        words become w' − (w'ᵀg) g with w' = (w − μ) − (u_kᵀw) u_k (computed in float64),
        the others stay as they are."""
        assert self.gender is not None
        out: np.ndarray = np.array(rows, dtype=dtype)
        test = set(self.female) | set(self.male)
        at = [i for i, w in enumerate(words) if w in test]
        if at:
            cleaned = remove_frequency(np.asarray(rows[at], dtype=np.float64), self.mean, self.direction)
            out[at] = cleaned - np.outer(cleaned @ self.gender, self.gender)
        return out


class FrequencyCleanedSource(ModelSource):
    """The base with w' = (w − μ) − (u_kᵀw) u_k for every word (no hard debias yet)."""

    has_vocabulary = True

    def __init__(self, owner: DoubleHardDebiasedSource) -> None:
        self.owner = owner
        self.name = owner.base.name

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        found = self.owner.base.lookup(words)
        if not found:
            return {}
        fit = self.owner.fit
        keys = list(found)
        rows = remove_frequency(np.array([found[w] for w in keys]), fit.mean, fit.direction)
        return dict(zip(keys, rows))

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        words, raw = source_vocabulary(self.owner.base, limit, name=self.owner.base.name)
        fit = self.owner.fit
        return words, remove_frequency(raw, fit.mean, fit.direction).astype(np.float32)

    def describe(self) -> dict[str, str]:
        return self.owner.describe()


class DoubleHardDebiasedSource(ModelSource):
    """A model variant: ``base`` after Wang et al.'s double-hard debias.

    Parameters
    ----------
    base : ModelSource
    definitional, equalize_pairs, gender_specific :
        The lists, as for :class:`HardDebiasedSource`; ``gender_specific`` words are also
        left out of the test words (flavour "wefe": WEFE's ``ignore``; its output uses
        neither the equalise pairs nor a final hard debias).
    representation : (str, str)
        The words whose cosine difference ranks the test words: ("he", "she").
    words : int
        n, the test words per group (default 1000, the authors' code and WEFE).
    components : int
        c, the candidate components (default 20, the authors' code; WEFE: 4; the paper
        searches the top components, "usually close to d/100").
    vocab : int, optional
        Use the first ``vocab`` words of the base for steps 1–3 (all when None).
    pool : int, optional
        flavour "authors": the test words come from the first ``pool`` words (default
        50,000, ``utils.limit_vocab``); all words when None.
    random_state : int, optional
        Seed of k-means (step 3); default 1 (the authors' notebook) or 0 (flavour "wefe",
        where ``s`` is WEFE run after ``numpy.random.seed(s)``: one stream through the
        candidates).
    flavour : "authors" or "wefe"
        See the module's docstring.
    """

    has_vocabulary = True

    def __init__(self, base: ModelSource, *, definitional: Sequence[Pair], equalize_pairs: Sequence[Pair],
                 gender_specific: Collection[str], representation: Pair = ("he", "she"), words: int = 1000,
                 components: int = 20, vocab: int | None = None, pool: int | None = 50000,
                 random_state: int | None = None, flavour: Literal["authors", "wefe"] = "authors",
                 lists: str = "", name: str | None = None, suffix: str = "+double-hard-debias",
                 progress: bool | None = None) -> None:
        check_parameters(type(self).__name__, DOUBLE_HARD_OPTIONS, words=words, components=components, vocab=vocab,
                         pool=pool, flavour=flavour)
        if random_state is not None:
            DOUBLE_HARD_OPTIONS["seed"].check_parameter(random_state, "random_state", type(self).__name__)
        self.base = as_source(base)
        self.name = name or f"{self.base.name}{suffix}"
        self.representation = (str(representation[0]), str(representation[1]))
        if flavour not in ("authors", "wefe"):
            raise ModelError(f"{self.name}: flavour {flavour!r} is not 'authors' or 'wefe'")
        self.flavour = flavour
        self.n_words, self.n_components, self.vocab = words, components, vocab
        self.pool = pool if flavour == "authors" else None
        self.random_state = (1 if flavour == "authors" else 0) if random_state is None else random_state
        self.lists, self.progress = lists, progress
        self.inner = HardDebiasedSource(FrequencyCleanedSource(self), definitional=definitional,
                                        equalize_pairs=equalize_pairs, gender_specific=gender_specific,
                                        name=self.name)

    @property
    def open_vocabulary(self) -> bool:  # type: ignore[override]
        return self.base.open_vocabulary

    @cached_property
    def fit(self) -> DoubleHardFit:
        """Steps 1–3 on the base's vocabulary (read once)."""
        from tqdm.auto import tqdm

        with tqdm(total=3 + self.n_components, desc=f"double-hard debias {self.base.name}", unit="step",
                  disable=None if self.progress is None else not self.progress) as bar:
            words, matrix = read_vocabulary(self.base, self.vocab)
            a, b = self.representation
            index = {w: i for i, w in reversed(list(enumerate(words)))}
            missing = [w for w in (a, b) if w not in index]
            if missing:
                raise ModelError(f"model {self.base.name!r} lacks the representation word {missing[0]!r}; "
                                 f"cannot make {self.name!r}")
            bar.update()
            mean, components = mean_and_components(matrix, self.n_components)
            bar.update()
            pool_words, rows = words, matrix
            if self.flavour == "authors":
                limit = len(words) if self.pool is None else min(self.pool, len(words))
                pool = [i for i in range(limit) if authors_word(words[i])]
                pool_words, rows = [words[i] for i in pool], matrix[pool]
            scores = cosine_difference(rows, matrix[index[a]], matrix[index[b]])
            female, male = gendered_words(pool_words, scores, self.n_words, self.inner.specific)
            del scores, rows
            if set(female) & set(male):
                raise ModelError(f"model {self.base.name!r} has fewer than 2 × {self.n_words} test-word candidates "
                                 f"for {self.name!r}; pass a smaller words= option")
            bar.update()
            found = self.base.lookup({w for pair in self.inner.definitional for w in pair})
            # Pairs lost to a missing word are named once, by the final hard debias (known_pairs).
            pairs = [(p, q) for p, q in self.inner.definitional if p in found and q in found]
            if not pairs:
                raise ModelError(f"model {self.base.name!r} knows no definitional pair; cannot make {self.name!r}")
            raw_pairs = np.array([[found[p], found[q]] for p, q in pairs], dtype=np.float64)
            # The authors cluster the male words first (their k-means init sees that order).
            groups = (male, female) if self.flavour == "authors" else (female, male)
            test = np.array([matrix[index[w]] for g in groups for w in g], dtype=np.float64)
            del matrix
            # WEFE: one direction from the raw pairs, for every candidate.
            fixed = gender_direction(raw_pairs) if self.flavour == "wefe" else None

            def direction(u: np.ndarray) -> np.ndarray:
                # The authors' notebook (hard_debias, utils.doPCA) re-derives it from the
                # cleaned pairs, not renormalised; WEFE keeps the raw pairs' direction.
                bar.update()
                if fixed is not None:
                    return fixed
                cleaned = remove_frequency(raw_pairs.reshape(-1, raw_pairs.shape[-1]), mean, u)
                return gender_direction(cleaned.reshape(raw_pairs.shape))

            if self.flavour == "wefe":
                alignments = component_alignments(test, len(groups[0]), mean, components, direction,
                                                  normalize=False, n_init=1,
                                                  random_state=np.random.RandomState(self.random_state))
            else:
                alignments = component_alignments(test, len(groups[0]), mean, components, direction,
                                                  normalize=False, random_state=self.random_state)
        return DoubleHardFit(mean, components, tuple(female), tuple(male), tuple(alignments), fixed)

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        if self.flavour == "authors":
            return self.inner.lookup(words)
        found = self.base.lookup(words)
        if not found:
            return {}
        keys = list(found)
        rows = self.fit.wefe_rows(keys, np.array([found[w] for w in keys]))
        return dict(zip(keys, rows))

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        if self.flavour == "authors":
            return self.inner.vocabulary(limit)
        words, raw = source_vocabulary(self.base, limit, name=self.base.name)
        return words, self.fit.wefe_rows(words, raw, np.float32)

    def parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = {"flavour": self.flavour, "words": self.n_words, "components": self.n_components,
                              "vocab": self.vocab, "pool": self.pool, "representation": list(self.representation),
                              "random_state": self.random_state}
        if self.flavour == "wefe":
            # WEFE's steps, not the paper's: an identity of its own (no cache entry of the
            # paper's steps matches it).
            out["steps"] = "wefe-0.4.1"
        return out

    def describe(self) -> dict[str, str]:
        return {"kind": "double-hard-debias", "method": "Wang et al. 2020", "base": self.base.name,
                **{k: str(v) for k, v in self.parameters().items()},
                "lists": self.lists, "lists_sha256": self.inner.lists_sha256}

    def identity(self) -> dict[str, Any] | None:
        """The base's identity, the parameters and the lists' hash; None without a base identity."""
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "double-hard-debias", **self.parameters(), "lists_sha256": self.inner.lists_sha256,
                "base": base}
