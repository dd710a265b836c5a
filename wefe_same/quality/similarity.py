"""Word similarity: Spearman's rho between cosine similarities and gold scores.

The maths (:func:`cosine_rows`, :func:`correlations`) works on arrays; the evaluation
(:func:`evaluate_similarity`) maps a dataset's words to rows of a
:class:`~wefe_same.quality.vocab.Vocabulary` and applies the missing-word policy.
With ``missing="drop"`` or ``"zero"`` and a case-insensitive vocabulary of the model's
first 300 000 words, the numbers are those of gensim's
``KeyedVectors.evaluate_word_pairs`` (``dummy4unknown`` False or True).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from wefe_same.errors import QualityError, bad_parameter
from wefe_same.quality.datasets import SimilarityDataset
from wefe_same.quality.vocab import Coverage, Vocabulary

Missing = Literal["drop", "mean", "zero"]
MISSING_POLICIES: tuple[Missing, ...] = ("drop", "mean", "zero")


def cosine_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``x`` with the same row of ``y``.

    Parameters
    ----------
    x, y : ndarray, shape (n, d)

    Returns
    -------
    ndarray, shape (n,)
        In the dtype of the inputs; a zero row gives 0.

    >>> cosine_rows(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0], [0.0, 3.0]])).round(4)
    array([1.    , 0.7071])
    """
    nx = np.linalg.norm(x, axis=1)
    ny = np.linalg.norm(y, axis=1)
    nx[nx == 0] = 1
    ny[ny == 0] = 1
    return np.einsum("ij,ij->i", x / nx[:, None], y / ny[:, None])


def rho_and_r(gold: np.ndarray, model: np.ndarray) -> tuple[float, float]:
    """Spearman's rho and Pearson's r between gold scores and model similarities.

    NaN (never an exception or a warning) when there are fewer than two values or one
    side is constant.

    >>> [round(r, 4) for r in rho_and_r(np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.5, 0.4]))]
    [0.5, 0.7206]
    """
    gold = np.asarray(gold, dtype=np.float64)
    model = np.asarray(model, dtype=np.float64)
    if gold.size < 2 or np.ptp(gold) == 0 or np.ptp(model) == 0:
        return math.nan, math.nan
    from scipy import stats  # here: see metrics/ect.py

    return float(stats.spearmanr(gold, model).statistic), float(stats.pearsonr(gold, model).statistic)


@dataclass(frozen=True)
class SimilarityResult(Coverage):
    """One model on one similarity dataset.

    Attributes
    ----------
    benchmark : str
    spearman, pearson : float
        NaN when fewer than two pairs were evaluated.
    n_items : int
        Pairs in the dataset.
    n_found : int
        Pairs whose two words are in the vocabulary.
    n_evaluated : int
        Pairs in the correlation: ``n_found`` under ``missing="drop"``, else ``n_items``.
    missing : str
    """

    benchmark: str
    spearman: float
    pearson: float
    n_items: int
    n_found: int
    n_evaluated: int
    missing: str

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{
            "benchmark": self.benchmark, "score": self.spearman, "coverage": self.coverage,
            "n_items": self.n_items, "n_found": self.n_found, "n_evaluated": self.n_evaluated,
            "pearson": self.pearson, "missing": self.missing,
        }])


def check_missing(missing: str, func: str) -> None:
    if missing not in MISSING_POLICIES:
        raise QualityError(bad_parameter("missing", func, "one of " + ", ".join(map(repr, MISSING_POLICIES)),
                                         missing))


def evaluate_similarity(dataset: SimilarityDataset, vocabulary: Vocabulary, *,
                        missing: Missing = "drop") -> SimilarityResult:
    """Spearman's rho of cosine similarity against the gold scores of ``dataset``.

    Parameters
    ----------
    dataset : SimilarityDataset
    vocabulary : Vocabulary
        The words that count as known (gensim's ``restrict_vocab`` is the length of this
        vocabulary, its ``case_insensitive`` the vocabulary's).
    missing : {"drop", "mean", "zero"}, default "drop"
        A pair with a word outside the vocabulary is left out and counted ("drop",
        gensim's default); its similarity is 0 ("zero", gensim's ``dummy4unknown=True``);
        or each missing word is replaced by the mean raw vector of the vocabulary
        ("mean", the Word Embeddings Benchmark's rule).

    Returns
    -------
    SimilarityResult

    >>> from wefe_same.quality.datasets import SimilarityDataset
    >>> data = SimilarityDataset("toy", "-", ("a", "a", "b"), ("b", "c", "zz"), np.array([1.0, 3.0, 2.0]), (1, 2, 3))
    >>> vocab = Vocabulary(["a", "b", "c"], np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]]))
    >>> r = evaluate_similarity(data, vocab)
    >>> r.spearman, r.n_found, r.coverage
    (1.0, 2, 0.6666666666666666)
    """
    check_missing(missing, "evaluate_similarity")
    rows1 = vocabulary.rows(dataset.word1)
    rows2 = vocabulary.rows(dataset.word2)
    found = (rows1 >= 0) & (rows2 >= 0)
    gold = dataset.scores
    unit = vocabulary.unit
    if missing == "mean":
        sims = cosine_rows(vocabulary.take(rows1, vocabulary.mean), vocabulary.take(rows2, vocabulary.mean))
    else:
        sims = np.zeros(len(dataset), dtype=np.float32)
        sims[found] = np.einsum("ij,ij->i", unit[rows1[found]], unit[rows2[found]])
        if missing == "drop":
            sims, gold = sims[found], gold[found]
    spearman, pearson = rho_and_r(gold, sims)
    return SimilarityResult(dataset.name, spearman, pearson, len(dataset), int(found.sum()), len(gold), missing)
