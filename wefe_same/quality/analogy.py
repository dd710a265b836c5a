"""Word analogies "a is to b as c is to d", solved in batches of matrix products.

:func:`solve_analogies` is the maths: for a batch of questions it scores every
candidate word with one float32 matrix product per term (3CosAdd: one; 3CosMul: three),
sets the scores of the excluded words to -inf and takes the argmax. Questions go in
batches and candidates in chunks, so the score block stays small (``batch_size`` ×
``chunk_size`` floats) and no Python code runs per question.

:func:`evaluate_analogy` maps a dataset to rows of a
:class:`~wefe_same.quality.vocab.Vocabulary` (the model's first K words: both the
candidates and the words a question may use), applies the missing-word policy and counts
the correct answers overall and per section. With the defaults and a case-insensitive
vocabulary of the first 300 000 words it gives the numbers of gensim's
``KeyedVectors.evaluate_word_analogies``.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from wefe_same.errors import QualityError, bad_parameter
from wefe_same.quality.datasets import AnalogyDataset
from wefe_same.quality.similarity import Missing, check_missing
from wefe_same.quality.vocab import MISSING, Coverage, Vocabulary

AnalogyMethod = Literal["3cosadd", "3cosmul"]
METHODS: tuple[AnalogyMethod, ...] = ("3cosadd", "3cosmul")
#: Levy & Goldberg's (2014) epsilon in the 3CosMul denominator (gensim uses 1e-6).
COSMUL_EPSILON = 1e-3


def solve_analogies(
    candidates: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    exclude: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    method: AnalogyMethod = "3cosadd",
    epsilon: float = COSMUL_EPSILON,
    batch_size: int = 1024,
    chunk_size: int = 2048,
    n_jobs: int | None = None,
) -> np.ndarray:
    """The best candidate d for each question "a is to b as c is to d".

    Parameters
    ----------
    candidates : ndarray, shape (K, d)
        Unit vectors of the candidate words (float32 is fastest).
    a, b, c : ndarray, shape (n, d)
        Unit vectors of each question's three words.
    exclude : (ndarray, ndarray), optional
        Pairs (question, candidate row) that may not be the answer, usually the rows of
        the question's own words; the question numbers sorted ascending.
    method : {"3cosadd", "3cosmul"}
        3CosAdd (Mikolov et al. 2013): argmax cos(d, b − a + c) ∝ d·(b + c − a).
        3CosMul (Levy & Goldberg 2014, eq. 4, cosines shifted to [0, 1] by footnote 7):
        argmax s(d,b)·s(d,c) / (s(d,a) + epsilon) with s = (cos + 1) / 2, as gensim's
        ``most_similar_cosmul``.
    epsilon : float, default 1e-3
        3CosMul's epsilon (Levy & Goldberg use 1e-3, gensim 1e-6).
    batch_size, chunk_size : int
        Questions and candidates per score block (default 1024 × 2048 float32, 8 MB).
    n_jobs : int, optional
        Worker threads, each solving whole batches with a single-threaded BLAS (default:
        the CPUs this process may use). Independent workers, rather than one
        multi-threaded BLAS call per block, keep a busy machine from stalling every call.

    Returns
    -------
    ndarray of intp, shape (n,)
        Row of the best candidate; -1 when every candidate was excluded. Exact ties go
        to the lowest row.

    Axes (royal, person, female); rows man, woman, king, queen, and the question
    man : woman :: king : ?

    >>> words = np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0], [1, 1, 1]], dtype=np.float32)
    >>> unit = words / np.linalg.norm(words, axis=1, keepdims=True)
    >>> exclude = (np.array([0, 0, 0]), np.array([0, 1, 2]))
    >>> solve_analogies(unit, unit[[0]], unit[[1]], unit[[2]], exclude).tolist()
    [3]
    >>> solve_analogies(unit, unit[[0]], unit[[1]], unit[[2]], exclude, method="3cosmul").tolist()
    [3]
    """
    if method not in METHODS:
        raise QualityError(bad_parameter("method", "solve_analogies", "one of " + ", ".join(map(repr, METHODS)),
                                         method))
    candidates = np.asarray(candidates)
    dtype = candidates.dtype if candidates.dtype in (np.float32, np.float64) else np.dtype(np.float32)
    candidates = np.ascontiguousarray(candidates, dtype=dtype)
    a, b, c = (np.asarray(x, dtype=dtype) for x in (a, b, c))
    n, k = a.shape[0], candidates.shape[0]
    best = np.full(n, MISSING, dtype=np.intp)
    if n == 0 or k == 0:
        return best
    ex_q, ex_r = exclude if exclude is not None else (np.zeros(0, np.intp), np.zeros(0, np.intp))
    ex_q = np.asarray(ex_q, dtype=np.intp)
    ex_r = np.asarray(ex_r, dtype=np.intp)
    batch_size = max(1, int(batch_size))
    chunk_size = max(1, min(int(chunk_size), k))
    terms = [b + c - a] if method == "3cosadd" else [b, c, a]
    eps2 = dtype.type(2) * dtype.type(epsilon)
    neg_inf = dtype.type(-np.inf)

    def solve_batch(start: int) -> None:
        stop = min(start + batch_size, n)
        rows = stop - start
        queries = [t[start:stop] for t in terms]
        buffers = [np.empty((rows, chunk_size), dtype=dtype) for _ in terms]
        lo, hi = np.searchsorted(ex_q, (start, stop))
        bq, br = ex_q[lo:hi] - start, ex_r[lo:hi]
        best_score = np.full(rows, neg_inf, dtype=dtype)
        best_row = best[start:stop]
        order = np.arange(rows)
        for k0 in range(0, k, chunk_size):
            k1 = min(k0 + chunk_size, k)
            block = candidates[k0:k1]
            scores = [np.matmul(q, block.T, out=buf[:, : k1 - k0]) for q, buf in zip(queries, buffers)]
            s = scores[0]
            if method == "3cosmul":
                # ((1+cb)/2 * (1+cc)/2) / ((1+ca)/2 + eps) = 0.5 * (1+cb)(1+cc) / ((1+ca) + 2 eps);
                # the factors 0.5 are powers of two, so this order gives the same floats up to
                # that exact scaling (the same argmax) in three fewer passes.
                sb, sc, sa = scores
                sb += 1
                sc += 1
                sb *= sc
                sa += 1
                sa += eps2
                sb /= sa
            inside = (br >= k0) & (br < k1)
            s[bq[inside], br[inside] - k0] = neg_inf
            arg = s.argmax(axis=1)
            top = s[order, arg]
            better = top > best_score
            best_score[better] = top[better]
            best_row[better] = arg[better] + k0

    starts = range(0, n, batch_size)
    workers = min(len(starts), n_jobs or _usable_cpus())
    if workers <= 1:
        for start in starts:
            solve_batch(start)
        return best
    with _single_threaded_blas(), ThreadPoolExecutor(workers) as pool:
        list(pool.map(solve_batch, starts))  # list() re-raises a worker's exception
    return best


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _single_threaded_blas() -> AbstractContextManager[object]:
    """BLAS limited to one thread while worker threads each run their own products."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def exclusion_pairs(classes: np.ndarray, query_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(question, row) pairs of every row whose word folds to a query word's form.

    Parameters
    ----------
    classes : ndarray of intp, shape (K,)
        :attr:`Vocabulary.classes`: each row's first row with the same folded word.
    query_rows : ndarray of intp, shape (n, m)
        First-occurrence rows of each question's words; -1 (missing) excludes nothing.

    Returns
    -------
    question, row : ndarray of intp
        Sorted by question.

    >>> q, r = exclusion_pairs(np.array([0, 0, 2, 3]), np.array([[0, 3], [2, -1]]))
    >>> q.tolist(), r.tolist()
    ([0, 0, 0, 1], [0, 1, 3, 2])
    """
    order = np.argsort(classes, kind="stable")
    counts = np.bincount(classes, minlength=len(classes))
    ptr = np.concatenate(([0], np.cumsum(counts)))
    n, m = query_rows.shape
    flat = query_rows.ravel()
    keep = flat >= 0
    qs = np.repeat(np.arange(n, dtype=np.intp), m)[keep]
    reps = flat[keep]
    lens = counts[reps]
    starts = ptr[reps]
    total = int(lens.sum())
    offsets = np.arange(total, dtype=np.intp) - np.repeat(np.cumsum(lens) - lens, lens)
    return np.repeat(qs, lens), order[np.repeat(starts, lens) + offsets]


@dataclass(frozen=True)
class AnalogyResult(Coverage):
    """One model on one analogy dataset.

    Attributes
    ----------
    benchmark, method, missing : str
    n_items : int
        Questions in the dataset.
    n_found : int
        Questions whose four words are in the vocabulary.
    n_evaluated : int
        Questions in the accuracy's denominator: ``n_found`` under ``missing="drop"``,
        else ``n_items`` (a question that cannot be answered counts as wrong).
    n_correct : int
    predicted : tuple of (str or None)
        The answer chosen for each question; None when the question was not solved.
    sections : DataFrame
        One row per named section, in file order: section, score (accuracy), coverage,
        n_items, n_found, n_evaluated, n_correct. Empty when the file has no sections.
    """

    benchmark: str
    method: str
    missing: str
    n_items: int
    n_found: int
    n_evaluated: int
    n_correct: int
    predicted: tuple[str | None, ...] = field(repr=False)
    sections: pd.DataFrame = field(repr=False)

    @property
    def accuracy(self) -> float:
        """Correct / evaluated; NaN when no question was evaluated."""
        return self.n_correct / self.n_evaluated if self.n_evaluated else math.nan

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{
            "benchmark": self.benchmark, "score": self.accuracy, "coverage": self.coverage,
            "n_items": self.n_items, "n_found": self.n_found, "n_evaluated": self.n_evaluated,
            "n_correct": self.n_correct, "method": self.method, "missing": self.missing,
        }])


def evaluate_analogy(
    dataset: AnalogyDataset,
    vocabulary: Vocabulary,
    *,
    method: AnalogyMethod = "3cosadd",
    missing: Missing = "drop",
    epsilon: float = COSMUL_EPSILON,
    batch_size: int = 1024,
    chunk_size: int = 2048,
    n_jobs: int | None = None,
) -> AnalogyResult:
    """Accuracy on an analogy dataset, overall and per section.

    Every word of ``vocabulary`` is a candidate answer except the question's own three
    words and, when the vocabulary is case-insensitive, their case variants (gensim
    excludes those too). An answer is correct when its word folds to the expected word.

    Parameters
    ----------
    dataset : AnalogyDataset
    vocabulary : Vocabulary
        Usually a model's first K words (gensim's ``restrict_vocab``); vectors are used
        unit-normalised.
    method : {"3cosadd", "3cosmul"}, default "3cosadd"
        See :func:`solve_analogies`. gensim's ``evaluate_word_analogies`` uses 3CosAdd.
    missing : {"drop", "mean", "zero"}, default "drop"
        A question with a word outside the vocabulary is skipped and counted ("drop",
        gensim's default); counted as wrong ("zero", gensim's ``dummy4unknown=True``);
        or a missing a, b or c is replaced by the mean vector of the vocabulary and a
        missing d counts as wrong ("mean", the Word Embeddings Benchmark's rule).
    epsilon, batch_size, chunk_size, n_jobs
        See :func:`solve_analogies`.

    Returns
    -------
    AnalogyResult
    """
    check_missing(missing, "evaluate_analogy")
    if method not in METHODS:
        raise QualityError(bad_parameter("method", "evaluate_analogy", "one of " + ", ".join(map(repr, METHODS)),
                                         method))
    n = len(dataset)
    rows = vocabulary.rows(w for q in dataset.questions for w in q).reshape(n, 4)
    known = rows >= 0
    found = known.all(axis=1)
    solve = found if missing != "mean" else known[:, 3]
    q_rows = rows[solve]
    unit = vocabulary.unit
    if missing == "mean":
        mean = vocabulary.mean.astype(np.float64)
        norm = np.linalg.norm(mean)
        stand_in = (mean / norm if norm > 0 else mean).astype(unit.dtype)
        a, b, c = (vocabulary.take(q_rows[:, j], stand_in, unit=True) for j in range(3))
    else:
        a, b, c = (unit[q_rows[:, j]] for j in range(3))
    exclude = exclusion_pairs(vocabulary.classes, q_rows[:, :3])
    best = solve_analogies(unit, a, b, c, exclude, method=method, epsilon=epsilon,
                           batch_size=batch_size, chunk_size=chunk_size, n_jobs=n_jobs)
    correct = np.zeros(n, dtype=bool)
    correct[solve] = (best >= 0) & (vocabulary.classes[np.maximum(best, 0)] == q_rows[:, 3])
    predicted: list[str | None] = [None] * n
    for i, r in zip(np.flatnonzero(solve), best):
        predicted[i] = vocabulary.words[r] if r >= 0 else None
    evaluated = found if missing == "drop" else np.ones(n, dtype=bool)

    sections = np.array(dataset.sections, dtype=object)
    frames = []
    for name in dataset.section_names:
        inside = sections == name
        n_eval = int((evaluated & inside).sum())
        n_ok = int((correct & inside).sum())
        n_in = int(inside.sum())
        frames.append({"section": name, "score": n_ok / n_eval if n_eval else math.nan,
                       "coverage": int((found & inside).sum()) / n_in, "n_items": n_in,
                       "n_found": int((found & inside).sum()), "n_evaluated": n_eval, "n_correct": n_ok})
    table = pd.DataFrame(frames, columns=["section", "score", "coverage", "n_items", "n_found",
                                          "n_evaluated", "n_correct"])
    return AnalogyResult(dataset.name, method, missing, n, int(found.sum()), int(evaluated.sum()),
                         int(correct.sum()), tuple(predicted), table)
