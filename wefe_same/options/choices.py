"""The string choices of ``rank``'s options, listed once: :class:`~wefe_same.run.config.RankConfig`
checks against them and the command line builds its ``choices=`` from them.

Standard library only: ``wefe-same --help`` imports it without numpy or pandas.
"""

from __future__ import annotations

from typing import Literal

Ties = Literal["min", "average", "max", "dense", "first"]
NanPolicy = Literal["skip", "propagate", "common"]
CorrelationMethod = Literal["spearman", "kendall"]
UnicodeErrors = Literal["strict", "replace", "ignore"]
TIES: tuple[Ties, ...] = ("min", "average", "max", "dense", "first")
NAN_POLICIES: tuple[NanPolicy, ...] = ("skip", "propagate", "common")
CORRELATIONS: tuple[CorrelationMethod, ...] = ("spearman", "kendall")
UNICODE_ERRORS: tuple[UnicodeErrors, ...] = ("strict", "replace", "ignore")
#: The chance baselines' nulls (:data:`wefe_same.scoring.chance.CHANCE_NULLS`, kept equal by a test).
CHANCE_NULLS = ("permutation", "random")
#: p-values of rank correlations (:mod:`wefe_same.analysis.significance`).
PVALUE_METHODS: tuple[str, ...] = ("exact", "asymptotic")
#: Multiple-testing adjustments of a correlation table: Holm, Benjamini–Hochberg.
P_ADJUSTMENTS: tuple[str, ...] = ("holm", "bh")
#: ``template_items`` (:data:`wefe_same.models.specs.TEMPLATE_ITEMS`, kept equal by a test).
TEMPLATE_ITEMS = ("sentences", "words")
DEFAULT_QUERIES = ("gender", "ethnicity", "religion")
#: ``likelihood_scoring`` (:data:`wefe_same.likelihood.sentences.SCORINGS`, kept equal by a test).
LIKELIHOOD_SCORINGS = ("authors", "bias-bench", "pll", "aul")
