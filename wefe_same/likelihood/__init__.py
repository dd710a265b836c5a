"""Likelihood-based bias scores of language models: CrowS-Pairs (Nangia et al. 2020) and
StereoSet intrasentence (Nadeem et al. 2021), scored as their authors' code and bias-bench
(Meade et al. 2022) score them, with all-token PLL (Salazar et al. 2020) and AUL (Kaneko &
Bollegala 2022) as options.

Layers: :mod:`.lm` (the model and its one batched primitive), :mod:`.sentences` (sentence
scores), :mod:`.summary` (pure functions: the benchmarks' figures), :mod:`.data` (the
dataset files), :mod:`.benchmarks` (one spec per benchmark; plugins' entry points),
:mod:`.evaluate` (the built-in specs; one model: per-item table and figures).
"""

from wefe_same.likelihood.benchmarks import BenchmarkSpec, Measure
from wefe_same.likelihood.evaluate import (
    LikelihoodBenchmark,
    evaluate_likelihood,
    likelihood_benchmarks,
    parse_benchmark,
    score_crows,
    score_stereoset,
)
from wefe_same.likelihood.lm import LanguageModel, NoLanguageModelHead, load_language_model
from wefe_same.likelihood.sentences import SCORINGS, crows_scores, stereoset_scores

__all__ = [
    "SCORINGS", "BenchmarkSpec", "LanguageModel", "LikelihoodBenchmark", "Measure", "NoLanguageModelHead",
    "crows_scores", "evaluate_likelihood", "likelihood_benchmarks", "load_language_model", "parse_benchmark",
    "score_crows",
    "score_stereoset", "stereoset_scores",
]
