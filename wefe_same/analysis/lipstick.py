"""Does debiasing hide gender bias or remove it: Gonen & Goldberg's 2019 "Lipstick on a Pig" tests.

For each debiased variant of a run beside its base (the pairs of
:func:`wefe_same.analysis.debias_effect.debias_pairs`), three tests read the words that
were most gender-biased *before* debiasing and ask whether the debiased space still
separates them (Gonen & Goldberg 2019, §4; their code gonenhila/gender_bias_lipstick):

1. **clustering**: the ``words`` most male- and ``words`` most female-biased words, by
   their bias in the base model, clustered by k-means (k = 2) in the debiased space;
   accuracy = max(agreement, 1 − agreement) with the bias labels (0.5: no gender
   left; 1: the clusters are the genders);
2. **classification**: the ``train + test`` most biased words of each gender, shuffled
   with the seed; an RBF-kernel SVM trained on ``train`` of each in the debiased space,
   accuracy on the other ``test`` of each;
3. **neighbours**: Pearson's r between a word's bias in the base and the share of
   male-biased words among its ``neighbours`` nearest neighbours (cosine) in the
   debiased space, over the ``neighbour_words`` most biased words of each gender
   ("bias-by-neighbours"); with ``agreement``, the mean share of neighbours biased the
   same way as the word.

A word's bias is ``cos(w, he) − cos(w, she)`` in the base (positive: male-biased). The
words come from the base's ``vocab`` most frequent words, restricted as the authors'
``limit_vocab`` does (lower case, shorter than 20 characters, no digit, no punctuation
except ``_`` between clean parts), minus the gender-specific words their code excludes
(``queries/debiasing.toml``, ``double_hard_gender_specific``: Zhao et al.'s male and
female word files and Bolukbasi et al.'s full gender-specific list). Every test also runs
in the base space itself (``base_value``: the "before" number). Vectors are
unit-normalised, as the authors' code normalises on loading. The clustering runs with
``seeds`` k-means seeds from the run's seed on: ``value`` is the run seed's, the
``spread_*`` columns (min, max, sample standard deviation) the seeds' (NaN for the other
tests, which run once).

The maths are plain functions on arrays (:func:`restrict_vocabulary`,
:func:`bias_by_projection`, :func:`most_biased`, :func:`cluster_accuracy`,
:func:`classification_accuracy`, :func:`neighbour_correlation`);
:func:`lipstick_table` reads the sources' vocabularies and builds the long table
(``debias_lipstick.csv``). scikit-learn's ``KMeans`` and ``SVC`` do the fitting, as in
the authors' code.
"""

from __future__ import annotations

import random
import string
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

import numpy as np
import pandas as pd

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.models.debias.methods import debias_methods
from wefe_same.validation import InvalidParameterError

LIPSTICK_COLUMNS = ["base", "variant", "method", "test", "value", "base_value", "seed", "seeds", "spread_min",
                    "spread_max", "spread_sd", "n_words", "n_train", "n_test", "neighbours", "vocabulary",
                    "reason"]
#: The tests, in the order of the table.
TESTS = ("clustering", "classification", "neighbours", "agreement")

_PUNCTUATION = frozenset(string.punctuation)
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class LipstickSettings:
    """The numbers of words and the fitting options of the tests (defaults: the authors' code).

    words : most biased words per gender that k-means clusters (500: 1,000 in all)
    train, test : per gender, the classifier's training and test words (500 and 2,000:
        the 5,000 most biased words, 1,000 to train on and 4,000 to test)
    neighbours : nearest neighbours counted per word (100)
    neighbour_words : most biased words per gender whose neighbours are counted (2,500,
        the classifier's 5,000 words); 0: every word of the restricted vocabulary
    vocab : the most frequent words the restricted vocabulary is drawn from (50,000)
    gamma : the SVM's RBF width: "auto" (1 / dimensions, scikit-learn's default when the
        authors ran ``svm.SVC()``) or "scale" (today's default)
    n_init : k-means restarts (10, scikit-learn's default then)
    seeds : k-means seeds from the run's seed on, for the clustering's spread columns
        (1: no spread); the classifier's split and the neighbours take the run's seed only
    """

    words: int = 500
    train: int = 500
    test: int = 2000
    neighbours: int = 100
    neighbour_words: int = 500
    vocab: int = 50_000
    gamma: Literal["auto", "scale"] = "auto"
    n_init: int = 10
    seeds: int = 5

    @classmethod
    def from_option(cls, value: Mapping[str, Any], where: str) -> LipstickSettings:
        """Settings from a ``{name: value}`` mapping (the ``lipstick`` option), each value checked.

        >>> LipstickSettings.from_option({"words": 200, "gamma": "scale"}, "rank").words
        200
        """
        known = {f.name: f.default for f in fields(cls)}
        given: dict[str, Any] = {}
        for key, raw in value.items():
            if key not in known:
                raise InvalidParameterError(f"The 'lipstick' parameter of {where} has no setting {key!r}; "
                                            f"valid: {', '.join(known)}.")
            if key == "gamma":
                if raw not in ("auto", "scale"):
                    raise InvalidParameterError(f"The 'lipstick' setting 'gamma' of {where} must be 'auto' or "
                                                f"'scale'. Got {raw!r} instead.")
                given[key] = raw
                continue
            low = 0 if key == "neighbour_words" else 2 if key in ("words", "train") else 1
            if isinstance(raw, bool) or not isinstance(raw, (int, np.integer)) or raw < low:
                raise InvalidParameterError(f"The 'lipstick' setting {key!r} of {where} must be an integer "
                                            f">= {low}. Got {raw!r} instead.")
            given[key] = int(raw)
        return cls(**given)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- the maths
def restrict_vocabulary(words: Sequence[str], exclude: Collection[str], *, limit: int = 50_000) -> np.ndarray:
    """Indices of the words among the first ``limit`` that the authors' ``limit_vocab`` keeps.

    Kept: lower case, shorter than 20 characters, no digit, and no punctuation, where a
    phrase joined by ``_`` is kept when none of its parts holds punctuation; then the
    ``exclude`` words are dropped. A word that repeats is kept at its first position.

    >>> restrict_vocabulary(["the", "The", "he's", "new_york", "1990", "she", "the"], {"she"}).tolist()
    [0, 3]
    """
    skip = frozenset(exclude)
    seen: set[str] = set()
    out = []
    for i, w in enumerate(words[:limit]):
        if w in seen or w in skip or w.lower() != w or len(w) >= 20 or not _DIGITS.isdisjoint(w):
            continue
        parts = w.split("_") if "_" in w else [w]
        if any(not _PUNCTUATION.isdisjoint(p) for p in parts):
            continue
        seen.add(w)
        out.append(i)
    return np.asarray(out, dtype=np.intp)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows divided by their norms (float64; a zero row stays zero)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def bias_by_projection(unit: np.ndarray, he: np.ndarray, she: np.ndarray) -> np.ndarray:
    """``cos(w, he) − cos(w, she)`` of every row of ``unit`` (unit rows; ``he``, ``she`` any length).

    >>> bias_by_projection(np.eye(2), np.array([2.0, 0.0]), np.array([0.0, 1.0])).tolist()
    [1.0, -1.0]
    """
    return unit @ (he / np.linalg.norm(he)) - unit @ (she / np.linalg.norm(she))


def most_biased(bias: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(male, female): indices of the ``n`` most male- and ``n`` most female-biased rows, in the
    authors' order: the ascending sort of ``bias`` (a stable sort), its last ``n`` (least male
    first) and its first ``n`` (most female first).

    >>> [a.tolist() for a in most_biased(np.array([0.3, -0.2, 0.1, -0.5]), 1)]
    [[0], [3]]
    """
    order = np.argsort(bias, kind="stable")
    return order[len(order) - n:], order[:n]


def cluster_accuracy(vectors: np.ndarray, labels: np.ndarray, *, seed: int, n_init: int = 10) -> float:
    """max(agreement, 1 − agreement) of 2-means clusters of ``vectors`` with the 0/1 ``labels``.

    >>> x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> cluster_accuracy(x, np.array([1, 1, 0, 0]), seed=0)
    1.0
    """
    from sklearn.cluster import KMeans

    predicted = KMeans(n_clusters=2, random_state=seed, n_init=n_init).fit_predict(vectors)
    agreement = float(np.mean(predicted == labels))
    return max(agreement, 1.0 - agreement)


def split_words(male: Sequence[int] | np.ndarray, female: Sequence[int] | np.ndarray, train: int,
                seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train_rows, train_labels, test_rows, test_labels): each gender's rows shuffled by
    ``random.Random(seed)`` (female first, as the authors' ``shuffle(females); shuffle(males)``),
    the first ``train`` of each to train on, the rest to test; label 1 = male."""
    rng = random.Random(seed)
    female, male = list(female), list(male)
    rng.shuffle(female)
    rng.shuffle(male)
    train_rows = np.asarray(male[:train] + female[:train], dtype=np.intp)
    test_rows = np.asarray(male[train:] + female[train:], dtype=np.intp)
    return (train_rows, np.repeat([1, 0], [train, train]), test_rows,
            np.repeat([1, 0], [len(male) - train, len(female) - train]))


def classification_accuracy(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray, *,
                            gamma: Literal["auto", "scale"] = "auto") -> float:
    """Accuracy on ``test_x`` of an RBF-kernel SVM (C = 1) fitted to ``train_x``."""
    from sklearn.svm import SVC

    svc = SVC(kernel="rbf", C=1.0, gamma=gamma).fit(train_x, train_y)
    return float(np.mean(svm_predict(svc, test_x) == test_y))


#: Decision values this close to 0 are left to libsvm: its label, whatever the rounding.
_NEAR_TIE = 1e-8


def svm_predict(svc: Any, x: np.ndarray) -> np.ndarray:
    """``svc.predict(x)`` for a fitted two-class RBF ``sklearn.svm.SVC``, the same labels.

    libsvm's ``predict`` evaluates one kernel value at a time; here the decision values
    Σ_i α_i exp(−γ‖x − s_i‖²) + b (the support vectors s_i, ``dual_coef_`` α and
    ``intercept_`` b of the fit) come from one matrix product, in the same float64
    formula (‖x‖² + ‖s‖² − 2 x·s), and their sign gives the class. They differ from
    libsvm's in the last bits only, so a label could differ only where the decision value
    is within rounding of 0: those rows (|value| < ``_NEAR_TIE``) take libsvm's label.
    γ is read from the fit (a private attribute of scikit-learn's ``SVC``); without it,
    this is ``svc.predict(x)``.
    """
    x = np.asarray(x, dtype=np.float64)
    decision = svm_decision(svc, x)
    if decision is None:
        return svc.predict(x)
    labels = svc.classes_[(decision > 0).astype(np.intp)]
    near = np.abs(decision) < _NEAR_TIE
    if near.any():
        labels[near] = svc.predict(x[near])
    return labels


def svm_decision(svc: Any, x: np.ndarray) -> np.ndarray | None:
    """The decision values Σ_i α_i exp(−γ‖x − s_i‖²) + b of a fitted two-class RBF ``SVC``
    on the float64 rows ``x`` (positive: ``classes_[1]``), as its ``decision_function``
    up to rounding; None when the fit's γ (a private attribute of scikit-learn's ``SVC``)
    is not there."""
    gamma = getattr(svc, "_gamma", None)  # the fit's γ ("auto": 1 / features; "scale": 1 / (features · Var X))
    if not isinstance(gamma, float) or len(svc.classes_) != 2:  # a scikit-learn that keeps γ elsewhere
        return None
    support = svc.support_vectors_
    squared = (x * x).sum(axis=1)[:, None] + (support * support).sum(axis=1)[None, :] - 2.0 * (x @ support.T)
    return np.exp(-gamma * squared) @ svc.dual_coef_[0] + svc.intercept_[0]


def male_neighbours(queries: np.ndarray, pool: np.ndarray, query_rows: np.ndarray, male: np.ndarray, k: int, *,
                    chunk: int = 128) -> np.ndarray:
    """How many of each query's ``k`` most cosine-similar pool rows are ``male`` (bool per pool
    row), the query's own row (``query_rows``) left out; unit rows in.

    The k-th largest similarity of each row is found by a partial sort (``np.partition``)
    and the rows at or above it are counted: the same neighbours as a full sort unless two
    similarities tie exactly at the k-th place. ``chunk`` queries at a time: their similarity
    rows and the partial sort's copy (2 × chunk × pool floats) are what the test holds.

    >>> pool = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> male_neighbours(pool, pool, np.arange(3), np.array([True, True, False]), 1).tolist()
    [1, 1, 1]
    """
    out = np.empty(len(queries), dtype=np.intp)
    for start in range(0, len(queries), chunk):
        sims = queries[start:start + chunk] @ pool.T
        sims[np.arange(len(sims)), query_rows[start:start + chunk]] = -np.inf
        kth = np.partition(sims, sims.shape[1] - k, axis=1)[:, sims.shape[1] - k]
        out[start:start + chunk] = ((sims >= kth[:, None]) & male).sum(axis=1)
    return out


def neighbour_correlation(pool: np.ndarray, bias: np.ndarray, rows: np.ndarray, k: int) -> tuple[float, float]:
    """(Pearson's r between ``bias[rows]`` and the share of male-biased words (bias > 0) among
    each row's ``k`` nearest neighbours in ``pool``, mean share of neighbours biased the same
    way as the word); ``pool`` unit rows, ``bias`` one value per pool row.

    >>> pool = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0], [0.14, 0.99]])
    >>> r, same = neighbour_correlation(pool, np.array([0.5, 0.4, -0.4, -0.5]), np.arange(4), 1)
    >>> round(r, 6), same
    (0.993884, 1.0)
    """
    from scipy.stats import pearsonr

    male = male_neighbours(pool[rows], pool, rows, bias > 0, k) / k
    same = np.where(bias[rows] > 0, male, 1.0 - male)
    if np.ptp(male) == 0 or np.ptp(bias[rows]) == 0:
        return float("nan"), float(same.mean())
    return float(pearsonr(bias[rows], male)[0]), float(same.mean())


# --------------------------------------------------------------------------- one pair
@dataclass(frozen=True)
class BaseSpace:
    """A base model's restricted vocabulary: the words, their unit vectors and their bias."""

    words: list[str]
    unit: np.ndarray
    bias: np.ndarray


def base_space(words: Sequence[str], vectors: np.ndarray, exclude: Collection[str], *, limit: int) -> BaseSpace:
    """The restricted vocabulary of a base (its ``vocabulary(limit)``) and each word's bias;
    a :class:`ModelError` when "he" or "she" is not among its words."""
    index = {w: i for i, w in reversed(list(enumerate(words)))}
    missing = [w for w in ("he", "she") if w not in index]
    if missing:
        raise ModelError(f"the model has no vector for {missing[0]!r}: the lipstick tests need 'he' and 'she'")
    unit = unit_rows(vectors)
    rows = restrict_vocabulary(words, exclude, limit=limit)
    rows = rows[np.linalg.norm(unit[rows], axis=1) > 0]
    bias = bias_by_projection(unit[rows], unit[index["he"]], unit[index["she"]])
    return BaseSpace([words[i] for i in rows], unit[rows], bias)


def pair_tests(base: BaseSpace, debiased: np.ndarray, settings: LipstickSettings, *,
               seed: int) -> list[dict[str, Any]]:
    """The rows of the three tests (and the agreement) for one variant whose unit vectors
    ``debiased`` are aligned with ``base.words``; each test also in the base space."""
    s = settings
    n_male, n_female = int((base.bias > 0).sum()), int((base.bias < 0).sum())
    seeds = [seed + i for i in range(s.seeds)]
    rows: list[dict[str, Any]] = []

    def row(test: str, values: list[float], base_value: float, **extra: Any) -> None:
        spread = np.asarray(values, dtype=float) if len(values) > 1 else np.full(1, np.nan)
        rows.append({"test": test, "value": values[0], "base_value": base_value, "seed": seed,
                     "seeds": len(values), "spread_min": float(spread.min()), "spread_max": float(spread.max()),
                     "spread_sd": float(spread.std(ddof=1)) if len(values) > 1 else float("nan"), **extra})

    def undefined(test: str, need: int, **extra: Any) -> None:
        rows.append({"test": test, "value": float("nan"), "base_value": float("nan"), "seed": seed,
                     "reason": f"needs {need} male- and {need} female-biased words; the restricted vocabulary "
                               f"has {n_male} and {n_female}", **extra})

    if min(n_male, n_female) >= s.words:
        male, female = most_biased(base.bias, s.words)
        chosen = np.concatenate([male, female])
        labels = np.repeat([1, 0], [s.words, s.words])
        row("clustering", [cluster_accuracy(debiased[chosen], labels, seed=k, n_init=s.n_init) for k in seeds],
            cluster_accuracy(base.unit[chosen], labels, seed=seed, n_init=s.n_init), n_words=2 * s.words)
    else:
        undefined("clustering", s.words, n_words=2 * s.words)
    size = s.train + s.test
    if min(n_male, n_female) >= size:
        male, female = most_biased(base.bias, size)
        male = male[::-1]  # most male first, as the authors' list before its shuffle
        # One split, the run's seed: each split is another SVM fit and 4,000 predictions, and
        # the spread the option asks for is k-means's.
        tr, ty, te, tey = split_words(male, female, s.train, seed)
        row("classification", [classification_accuracy(debiased[tr], ty, debiased[te], tey, gamma=s.gamma)],
            classification_accuracy(base.unit[tr], ty, base.unit[te], tey, gamma=s.gamma),
            n_words=2 * size, n_train=2 * s.train, n_test=2 * s.test)
    else:
        undefined("classification", size, n_words=2 * size, n_train=2 * s.train, n_test=2 * s.test)
    per_side = s.neighbour_words
    if (per_side == 0 and len(base.words) > 1) or 0 < per_side <= min(n_male, n_female):
        if per_side == 0:
            chosen = np.arange(len(base.words))
        else:
            male, female = most_biased(base.bias, per_side)
            chosen = np.concatenate([male, female])
        k = min(s.neighbours, len(base.words) - 1)
        r, same = neighbour_correlation(debiased, base.bias, chosen, k)
        r0, same0 = neighbour_correlation(base.unit, base.bias, chosen, k)
        row("neighbours", [r], r0, n_words=len(chosen), neighbours=k)
        row("agreement", [same], same0, n_words=len(chosen), neighbours=k)
    else:
        undefined("neighbours", per_side, n_words=2 * per_side, neighbours=s.neighbours)
        undefined("agreement", per_side, n_words=2 * per_side, neighbours=s.neighbours)
    return rows


def aligned(words: Sequence[str], vocabulary: Sequence[str],
            vectors: np.ndarray) -> tuple[np.ndarray, list[str], list[str]]:
    """Unit rows of ``vectors`` for ``words`` (by word, first occurrence), the words missing,
    and the words whose vectors are not finite."""
    index: dict[str, int] = {}
    for i, w in enumerate(vocabulary):
        index.setdefault(w, i)
    missing = [w for w in words if w not in index]
    rows = np.fromiter((index.get(w, 0) for w in words), dtype=np.intp, count=len(words))
    raw = np.asarray(vectors, dtype=np.float64)[rows]
    finite = np.asarray(np.isfinite(raw).all(axis=1))
    broken = [w for i, w in enumerate(words) if not finite[i] and w in index]
    return unit_rows(raw), missing, broken


# --------------------------------------------------------------------------- the run's table
def gender_specific_words() -> frozenset[str]:
    """The words the authors' code leaves out of the tests (``queries/debiasing.toml``,
    ``double_hard_gender_specific``: 1,623 words)."""
    from wefe_same.query.files import load_queries

    (lists,) = load_queries("debiasing")
    return frozenset(lists.word_set("double_hard_gender_specific").words)


def lipstick_table(pairs: Sequence[tuple[str, str, str]], sources: Mapping[str, ModelSource],
                   settings: LipstickSettings, *, seed: int,
                   exclude: Collection[str] | None = None) -> pd.DataFrame | None:
    """``debias_lipstick.csv``: one row per (base, variant, test); None when no pair is given.

    ``sources`` maps each model's name to its source; a pair whose base or variant cannot
    list its vocabulary (encoders, RAN-Debias, which debiases word by word), whose base
    lacks "he" or "she", or whose method debiases another group than gender (its spec's ``group``:
    Manzini et al.'s religion and race variants) gets NaN rows with the reason.
    """
    if not pairs:
        return None
    import sklearn.cluster  # noqa: F401  (loaded first: the limit below reaches the OpenMP it loads)
    from threadpoolctl import threadpool_limits

    # One thread: scikit-learn's OpenMP k-means on a thousand points spends its time
    # waiting for threads when the cores are busy (the same numbers, many times faster).
    with threadpool_limits(1):
        return _lipstick_table(pairs, sources, settings, seed=seed, exclude=exclude)


def _lipstick_table(pairs: Sequence[tuple[str, str, str]], sources: Mapping[str, ModelSource],
                    settings: LipstickSettings, *, seed: int, exclude: Collection[str] | None) -> pd.DataFrame:
    from wefe_same.models.base import source_vocabulary

    exclude = gender_specific_words() if exclude is None else exclude
    methods = debias_methods()
    bases: dict[str, BaseSpace | str] = {}
    out: list[dict[str, Any]] = []
    for base, variant, method in pairs:
        key: dict[str, Any] = {"base": base, "variant": variant, "method": method, "vocabulary": None}
        reason = None
        suffix = method.split("[", 1)[0]
        group = methods[suffix].group if suffix in methods else "gender"
        if group != "gender":  # the method's spec says which group it debiases
            out.extend({**key, "test": t, "value": float("nan"), "base_value": float("nan"), "seed": seed,
                        "reason": f"{suffix} debiases {group}; the tests read gender "
                                  "(he - she), so they are not run"} for t in TESTS)
            continue
        if base not in bases:
            try:
                words, vectors = source_vocabulary(sources[base], settings.vocab, name=base)
                bases[base] = base_space(words, vectors, exclude, limit=settings.vocab)
            except ModelError as e:
                bases[base] = f"{base}: {e}"
        space = bases[base]
        if isinstance(space, str):
            reason = space
        elif not sources[variant].has_vocabulary:
            reason = (f"{variant} ({sources[variant].type_name}) cannot list its vocabulary: the tests need "
                      "the debiased vectors of the base's restricted vocabulary")
        else:
            try:
                v_words, v_vectors = source_vocabulary(sources[variant], settings.vocab, name=variant)
            except ModelError as e:
                reason = f"{variant}: {e}"
            else:
                debiased, missing, broken = aligned(space.words, v_words, v_vectors)
                if missing:
                    reason = f"{variant} lacks {len(missing)} of the base's words (first: {missing[0]!r})"
                elif broken:
                    reason = f"{variant} has non-finite vectors for {len(broken)} words (first: {broken[0]!r})"
                else:
                    key["vocabulary"] = len(space.words)
                    out.extend({**key, **r} for r in pair_tests(space, debiased, settings, seed=seed))
                    continue
        out.extend({**key, "test": t, "value": float("nan"), "base_value": float("nan"), "seed": seed,
                    "reason": reason} for t in TESTS)
    table = pd.DataFrame(out).reindex(columns=LIPSTICK_COLUMNS)
    for column in ("seeds", "n_words", "n_train", "n_test", "neighbours", "vocabulary"):
        table[column] = table[column].astype("Int64")
    return table
