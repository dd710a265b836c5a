"""Double-hard debias (Wang et al. 2020, Algorithm 1) as a model variant.

Word frequency distorts the gender direction, so before hard debiasing the vectors lose
one "frequency direction", a principal component of the whole vocabulary:

1. μ = mean of every vector; u_1 … u_c the first c principal components of {w − μ}.
2. The n most female and n most male words (by cos(w, he) − cos(w, she), gender-specific
   words left out) are the test words.
3. For each candidate u_i: w'_i = (w − μ) − (u_iᵀw) u_i for the test words, hard-debias
   them (the gender direction from the definitional pairs of the w'_i, neutralise) and
   cluster them in two with k-means; a = the accuracy of the clusters against the true
   groups, max(a, 1 − a).
4. k = the candidate with the lowest accuracy (the least recoverable gender); every word
   becomes w' = (w − μ) − (u_kᵀw) u_k, and the w' are hard-debiased by Bolukbasi et al.'s
   algorithm (:class:`~wefe_same.models.debias.bolukbasi.HardDebiasedSource`: unit
   vectors, the direction from the definitional pairs of w', neutralise, equalise).

Steps 1–3 read the whole vocabulary once (:mod:`.vocab`); step 4 acts on one word at a
time, so lookups stay lazy. WEFE 0.4.1's ``DoubleHardDebias`` differs from the paper in
three places (see docs/guide/debiasing.md): it debiases only the 2n test words, it takes
the gender direction from the raw vectors rather than from w', and its hard debias is a
projection without renormalising or equalising. :func:`component_alignments` takes WEFE's
choices as arguments so that the tests can check every shared step against it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

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


def kmeans_alignment(vectors: np.ndarray, n_first: int, random_state: int = 0) -> float:
    """Accuracy of a 2-means clustering of ``vectors`` against (first n_first rows, the rest),
    as max(a, 1 − a): 1 when the groups are recoverable, 0.5 at chance."""
    from sklearn.cluster import KMeans

    truth = np.arange(len(vectors)) >= n_first
    predicted = KMeans(2, n_init=10, random_state=random_state).fit_predict(vectors).astype(bool)
    a = float(np.mean(predicted == truth))
    return max(a, 1.0 - a)


def component_alignments(test_vectors: np.ndarray, n_female: int, mean: np.ndarray, components: np.ndarray,
                         direction: Callable[[np.ndarray], np.ndarray], *, normalize: bool = True,
                         random_state: int = 0) -> list[float]:
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
    """
    scores = []
    for u in components:
        cleaned = remove_frequency(test_vectors, mean, u)
        g = direction(u)
        neutral = cleaned - np.outer(cleaned @ g, g) / (g @ g)
        if normalize:
            neutral /= np.linalg.norm(neutral, axis=1, keepdims=True)
        scores.append(kmeans_alignment(neutral, n_female, random_state))
    return scores


@dataclass(frozen=True)
class DoubleHardFit:
    """What steps 1–3 found in the base's vocabulary."""

    mean: np.ndarray
    components: np.ndarray
    female: tuple[str, ...]
    male: tuple[str, ...]
    alignments: tuple[float, ...]

    @property
    def chosen(self) -> int:
        """Index of the component removed: the lowest alignment (the first on ties)."""
        return int(np.argmin(self.alignments))

    @property
    def direction(self) -> np.ndarray:
        return self.components[self.chosen]


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
        Bolukbasi et al.'s lists, as for :class:`HardDebiasedSource` (the paper's choice).
    representation : (str, str)
        The words whose cosine difference ranks the test words: ("he", "she").
    words : int
        n, the test words per group (default 1000, the paper's code and WEFE).
    components : int
        c, the candidate components (default 4, WEFE's; the paper searches the top
        components, "usually close to d/100").
    vocab : int, optional
        Use the first ``vocab`` words of the base for steps 1–3 (all when None).
    random_state : int
        Seed of k-means (step 3).
    """

    has_vocabulary = True

    def __init__(self, base: ModelSource, *, definitional: Sequence[Pair], equalize_pairs: Sequence[Pair],
                 gender_specific: Collection[str], representation: Pair = ("he", "she"), words: int = 1000,
                 components: int = 4, vocab: int | None = None, random_state: int = 0,
                 name: str | None = None, suffix: str = "+double-hard-debias", progress: bool | None = None) -> None:
        check_parameters(type(self).__name__, DOUBLE_HARD_OPTIONS, words=words, components=components, vocab=vocab)
        DOUBLE_HARD_OPTIONS["seed"].check_parameter(random_state, "random_state", type(self).__name__)
        self.base = as_source(base)
        self.name = name or f"{self.base.name}{suffix}"
        self.representation = (str(representation[0]), str(representation[1]))
        self.n_words, self.n_components, self.vocab, self.random_state = words, components, vocab, random_state
        self.progress = progress
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
            scores = cosine_difference(matrix, matrix[index[a]], matrix[index[b]])
            female, male = gendered_words(words, scores, self.n_words, self.inner.specific)
            test = np.array([matrix[index[w]] for w in (*female, *male)], dtype=np.float64)
            del matrix, scores
            bar.update()
            pairs = [(p, q) for p, q in self.inner.definitional if p in index and q in index]
            if not pairs:
                raise ModelError(f"model {self.base.name!r} knows no definitional pair; cannot make {self.name!r}")
            found = self.base.lookup({w for pair in pairs for w in pair})
            raw_pairs = np.array([[found[p], found[q]] for p, q in pairs])

            def direction(u: np.ndarray) -> np.ndarray:
                # The paper: HardDebias on w' derives the direction from the cleaned, unit pairs.
                cleaned = remove_frequency(raw_pairs.reshape(-1, raw_pairs.shape[-1]), mean, u)
                cleaned /= np.linalg.norm(cleaned, axis=1, keepdims=True)
                bar.update()
                return gender_direction(cleaned.reshape(raw_pairs.shape))

            alignments = component_alignments(test, len(female), mean, components, direction,
                                              random_state=self.random_state)
        return DoubleHardFit(mean, components, tuple(female), tuple(male), tuple(alignments))

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self.inner.lookup(words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        return self.inner.vocabulary(limit)

    def parameters(self) -> dict[str, Any]:
        return {"words": self.n_words, "components": self.n_components, "vocab": self.vocab,
                "representation": list(self.representation), "random_state": self.random_state}

    def describe(self) -> dict[str, str]:
        return {"kind": "double-hard-debias", "method": "Wang et al. 2020", "base": self.base.name,
                **{k: str(v) for k, v in self.parameters().items()},
                "lists": "queries/bolukbasi.toml", "lists_sha256": self.inner.lists_sha256}

    def identity(self) -> dict[str, Any] | None:
        """The base's identity, the parameters and the lists' hash; None without a base identity."""
        base = self.base.identity()
        if base is None:
            return None
        return {"kind": "double-hard-debias", **self.parameters(), "lists_sha256": self.inner.lists_sha256,
                "base": base}
