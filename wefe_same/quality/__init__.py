"""Embedding quality: word similarity (Spearman) and analogies (3CosAdd, 3CosMul).

The entry point is :func:`evaluate_quality` (one row per model and benchmark). The layers
under it are public too: the loaders in :mod:`.datasets`, the :class:`Vocabulary` lookup
layer, and :func:`evaluate_similarity` / :func:`evaluate_analogy`, whose results carry
Pearson's r, gensim's OOV ratio, per-section accuracies and the predicted answers.
"""

from wefe_same.quality.analogy import AnalogyResult, evaluate_analogy, solve_analogies
from wefe_same.quality.datasets import AnalogyDataset, SimilarityDataset, detect_kind, load_analogy, load_similarity
from wefe_same.quality.evaluate import BENCHMARKS, COLUMNS, Benchmark, evaluate_quality, load_benchmark
from wefe_same.quality.similarity import SimilarityResult, evaluate_similarity
from wefe_same.quality.vocab import Vocabulary

__all__ = [
    "BENCHMARKS", "COLUMNS", "AnalogyDataset", "AnalogyResult", "Benchmark", "SimilarityDataset",
    "SimilarityResult", "Vocabulary", "detect_kind", "evaluate_analogy", "evaluate_quality",
    "evaluate_similarity", "load_analogy", "load_benchmark", "load_similarity", "solve_analogies",
]
