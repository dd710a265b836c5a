"""The analyse stage of rank: what the rankings say once set side by side.

Composes :mod:`.correlation` (Spearman/Kendall), :mod:`.intervals` (intervals from
resampled draws), :mod:`.robustness` (random halves of the neutral words),
:mod:`.external` (quality and external columns) and :mod:`.sensitivity` (how the overall
ranking depends on the aggregation) into what :class:`~wefe_same.result.RankResult` shows.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from wefe_same.analysis.agreement import agreement_test, consensus, oriented, redundant_metrics
from wefe_same.analysis.chance_bands import chance_table
from wefe_same.analysis.correlation import CorrelationMethod, adjusted_matrix, correlation_tests, correlations
from wefe_same.analysis.debias_effect import debias_effect
from wefe_same.analysis.explain import undefined_correlations, unranked_metrics
from wefe_same.analysis.external import QUALITY_PREFIX, rank_external
from wefe_same.analysis.intervals import subquery_draws, summarize_draws
from wefe_same.analysis.mtmm import mtmm_summary, mtmm_table
from wefe_same.analysis.ranking import Aggregation, NanPolicy, Ties, rank_by_order, rank_values
from wefe_same.analysis.reliability import consistency_rows, family_rows, reliability_table, split_half_rows
from wefe_same.analysis.robustness import robustness_table
from wefe_same.analysis.sensitivity import aggregation_sensitivity
from wefe_same.analysis.significance import NullCache, PAdjust, PValueMethod
from wefe_same.analysis.uneven import uneven_metrics, uneven_warnings
from wefe_same.analysis.uneven_words import run_sets, uneven_word_warnings
from wefe_same.errors import WefeSameWarning
from wefe_same.likelihood.evaluate import likelihood_benchmarks
from wefe_same.likelihood.summary import OVERALL
from wefe_same.metrics.registry import MetricSpec
from wefe_same.scoring.chance import left_out_reason
from wefe_same.scoring.context import stream_seed
from wefe_same.scoring.scores import ModelScores
from wefe_same.scoring.word_level import word_measures


class AnalysisPlan(Protocol):
    """What the analysis reads of a run's plan (:class:`~wefe_same.run.plan.RunPlan` has it all)."""

    @property
    def seed(self) -> int: ...
    @property
    def ties(self) -> Ties: ...
    @property
    def nan_policy(self) -> NanPolicy: ...
    @property
    def correlation(self) -> CorrelationMethod: ...
    @property
    def correlation_pvalues(self) -> PValueMethod: ...
    @property
    def correlation_resamples(self) -> int: ...
    @property
    def p_adjust(self) -> PAdjust: ...
    @property
    def bootstrap(self) -> int: ...
    @property
    def bootstrap_words(self) -> int: ...
    @property
    def halves(self) -> int: ...
    @property
    def chance(self) -> int: ...
    @property
    def chance_every(self) -> bool: ...
    @property
    def chance_nulls(self) -> Sequence[str]: ...
    @property
    def reliability(self) -> bool: ...
    @property
    def split_halves(self) -> int: ...
    @property
    def chance_fitted(self) -> bool: ...
    @property
    def specs(self) -> Sequence[MetricSpec]: ...
    @property
    def column_sets(self) -> Mapping[str, Mapping[str, str]]: ...
    @property
    def weights(self) -> Mapping[str, Mapping[str, int]]: ...
    @property
    def missing_threshold(self) -> float: ...
    @property
    def subqueries(self) -> Sequence[tuple[MetricSpec, Sequence[Any]]]: ...


#: The further long tables of a run, in the order it computes them: the analysis's, and
#: two the run stage computes from the models themselves (``debias_lipstick``: their
#: vocabularies; ``measurement_sensitivity``: the ``--vary`` settings).
EXTRA_TABLES = ("correlation_tests", "agreement", "consensus", "redundant_metrics", "mtmm", "mtmm_summary",
                "chance", "reliability", "word_bootstrap", "word_bootstrap_correlations", "robustness", "aggregation",
                "aggregation_agreement", "debias_effect", "debias_summary", "debias_lipstick",
                "measurement_sensitivity")


@dataclass(frozen=True)
class Analysis:
    """The analysis stage's output (what RankResult shows besides scores and details); made
    once by :func:`analyse`, never changed after."""

    aggregates: pd.DataFrame
    rankings: pd.DataFrame
    correlations: pd.DataFrame
    correlation_pvalues: pd.DataFrame
    correlation_pvalues_adjusted: pd.DataFrame
    correlation_tests: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    consensus: pd.DataFrame | None = None
    redundant_metrics: pd.DataFrame | None = None
    mtmm: pd.DataFrame | None = None
    mtmm_summary: pd.DataFrame | None = None
    chance: pd.DataFrame | None = None
    reliability: pd.DataFrame | None = None
    aggregates_ci: pd.DataFrame | None = None
    correlations_ci: pd.DataFrame | None = None
    rank_stability: pd.DataFrame | None = None
    word_bootstrap: pd.DataFrame | None = None
    word_bootstrap_correlations: pd.DataFrame | None = None
    robustness: pd.DataFrame | None = None
    aggregation: pd.DataFrame | None = None
    aggregation_agreement: pd.DataFrame | None = None
    debias_effect: pd.DataFrame | None = None
    debias_summary: pd.DataFrame | None = None
    set_apart: list[str] = field(default_factory=list)

    @property
    def extra(self) -> dict[str, pd.DataFrame]:
        """The further long tables that were computed, by name (RankResult's fields of the same names)."""
        return {name: table for name in EXTRA_TABLES if (table := getattr(self, name, None)) is not None}


def quality_columns(table: pd.DataFrame, models: Sequence[str], ties: Ties) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-benchmark scores and ranks (higher score = rank 1) and the combined rank."""
    scores = table.pivot(index="model", columns="benchmark", values="score").reindex(
        index=list(models), columns=list(dict.fromkeys(table["benchmark"])))
    scores.columns = [QUALITY_PREFIX + c for c in scores.columns]
    ranks = rank_values(scores, ascending=False, ties=ties)
    # The WEB column of Badilla et al. 2020: the models ranked by the sum of their per-benchmark ranks.
    ranks["quality"] = rank_values(ranks.astype("float64").sum(axis=1, min_count=len(ranks.columns)), ties=ties)
    return scores, ranks


def likelihood_columns(table: pd.DataFrame, models: Sequence[str], ties: Ties) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The likelihood figures and their ranks: CrowS-Pairs overall and per bias type
    (``likelihood:crows-pairs``, ``likelihood:crows-pairs[gender]``, …) and StereoSet's
    overall ss, lms and icat (``likelihood:stereoset-ss``, …); ranked by distance to 50 for
    the preference scores, higher first for lms and icat."""
    values, ranks = {}, {}
    for benchmark, spec in likelihood_benchmarks().items():  # each benchmark's spec says its columns and orders
        rows = table[table["benchmark"] == benchmark]
        types = [OVERALL] + ([t for t in dict.fromkeys(rows["bias_type"]) if t != OVERALL]
                             if spec.by_bias_type else [])
        for measure, best in spec.measures.items():
            for bias_type in types:
                got = rows[(rows["measure"] == measure) & (rows["bias_type"] == bias_type)]
                if got.empty:
                    continue
                name = spec.column(measure) + ("" if bias_type == OVERALL else f"[{bias_type}]")
                column = got.set_index("model")["value"].astype("float64").reindex(list(models))
                values[name] = column
                ranks[name] = rank_by_order(column, best.order, ideal=best.ideal, ties=ties)
    return pd.DataFrame(values, index=list(models)), pd.DataFrame(ranks, index=list(models))


def reliability(plan: AnalysisPlan, per_model: Sequence[ModelScores], scores: Mapping[str, pd.DataFrame],
                by_query_set: pd.DataFrame, families: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """The reliability table: per model, then per family of seeds, then split-half."""
    measures = [s.name for s in word_measures(plan.specs)]
    rows = []
    if plan.reliability:
        arrays = {m.name: m.word_scores for m in per_model}
        for m in per_model:
            rows += consistency_rows(m.word_scores, measures, model=m.name)
        for family, members in families.items():
            rows += family_rows(family, [n for n in members if n in arrays], arrays, scores, by_query_set, measures)
    if plan.split_halves:
        draws = np.stack([m.draws["split_halves"] for m in per_model], axis=1)
        rows += split_half_rows(draws, [m.name for m in per_model], plan.specs)
    return reliability_table(rows)


def analyse(plan: AnalysisPlan, agg: Aggregation, scores: Mapping[str, pd.DataFrame], per_model: Sequence[ModelScores],
            *, quality: pd.DataFrame | None = None, likelihood: pd.DataFrame | None = None,
            external: pd.DataFrame | None = None,
            higher_is_better: Sequence[str] = (), debias_pairs: Sequence[tuple[str, str, str]] = (),
            families: Mapping[str, Sequence[str]] | None = None) -> Analysis:
    """Correlations between every ranking column, with the optional columns and intervals.

    ``debias_pairs``: (base, variant, method) by model name, from the models' specs
    (:func:`~wefe_same.analysis.debias_effect.debias_pairs`); ``families``: family → its
    models that a models file declares seeds of (:func:`~wefe_same.run.zoo.seed_families`).
    """
    models = list(agg.aggregates.index)
    aggregates, rankings = agg.aggregates, agg.rankings
    fixed_values, fixed_ranks = [], []
    if quality is not None:
        q_scores, q_ranks = quality_columns(quality, models, plan.ties)
        fixed_values.append(q_scores)
        fixed_ranks.append(q_ranks)
    if likelihood is not None:
        l_values, l_ranks = likelihood_columns(likelihood, models, plan.ties)
        fixed_values.append(l_values)
        fixed_ranks.append(l_ranks)
    if external is not None:
        values = external.reindex(models)
        fixed_values.append(values)
        fixed_ranks.append(rank_external(values, higher_is_better, plan.ties))
    fixed = pd.concat(fixed_ranks, axis=1) if fixed_ranks else None
    if fixed_values:
        aggregates = aggregates.join(pd.concat(fixed_values, axis=1))
        rankings = rankings.join(fixed)
    # One cache of null distributions per run: every pair with the same number of models
    # and tie patterns shares one enumeration (or one seeded set of resamples).
    nulls = NullCache(resamples=plan.correlation_resamples, random_state=stream_seed(plan.seed, "correlation"))
    rho, pvalues = correlations(rankings, plan.correlation, pvalues=plan.correlation_pvalues, cache=nulls)
    tests = correlation_tests(rankings, plan.correlation, pvalues=plan.correlation_pvalues, p_adjust=plan.p_adjust,
                              cache=nulls)
    out: dict[str, Any] = {}
    # Warned here; the run's WarningLog puts them in RankResult.warnings, the manifest and the report.
    # Models scored on different subqueries of a metric; why a metric ranks no model; why a
    # correlation is undefined (said here, not only in details.csv); the words of a set that
    # some models lack while the set is scored in them (once per set).
    names = [s.name for s in plan.specs]
    lookups = pd.concat([m.lookups for m in per_model], ignore_index=True) if per_model else pd.DataFrame()
    sets = run_sets([sub.query for _, subs in plan.subqueries for sub in subs])
    for message in [*uneven_word_warnings(sets, lookups, plan.missing_threshold),
                    *uneven_warnings(uneven_metrics(scores, names), plan.nan_policy,
                                     per_model_draws=bool(plan.bootstrap_words or plan.halves)),
                    *unranked_metrics(agg.rankings, [m.details for m in per_model], names),
                    *undefined_correlations(rankings, plan.correlation)]:
        warnings.warn(message, WefeSameWarning, stacklevel=2)

    subquery_resamples = None
    if plan.bootstrap:
        subquery_resamples = subquery_draws(scores, plan.specs, plan.column_sets, plan.weights, models,
                                            draws=plan.bootstrap, random_state=stream_seed(plan.seed, "bootstrap"),
                                            nan_policy=plan.nan_policy)
        out["aggregates_ci"], out["correlations_ci"], out["rank_stability"] = summarize_draws(
            subquery_resamples, plan.specs, agg.aggregates, agg.rankings, fixed=fixed, ties=plan.ties)
    if len(names) > 1:  # all the metrics at once: Kendall's W, the consensus, redundant columns
        sign = np.array([-1.0 if s.order == "descending" else 1.0 for s in plan.specs])
        values = oriented(agg.aggregates, plan.specs)
        out["agreement"] = agreement_test(
            values, names, pvalues=plan.correlation_pvalues, resamples=plan.correlation_resamples,
            random_state=stream_seed(plan.seed, "agreement"),
            draws=None if subquery_resamples is None else subquery_resamples * sign)
        out["consensus"] = consensus(values, names)
        out["redundant_metrics"] = redundant_metrics(rho, names, tests)
        traits = set(agg.by_query_set["query_set"]) - {OVERALL}
        if len(traits) > 1:  # the query sets are the traits, the metrics the methods
            out["mtmm"] = mtmm_table(agg.by_query_set, names)
            out["mtmm_summary"] = mtmm_summary(out["mtmm"])
    word_draws = None
    if plan.bootstrap_words:
        draws = word_draws = np.stack([m.draws["bootstrap_words"] for m in per_model], axis=1)  # (B, models, metrics)
        ci, corr, ranks = summarize_draws(draws, plan.specs, agg.aggregates, agg.rankings, fixed=fixed,
                                            ties=plan.ties)
        out["word_bootstrap"] = ci.merge(ranks, on=["model", "metric"])
        out["word_bootstrap_correlations"] = corr
    if plan.chance:
        out["chance"] = chance_table(agg.aggregates, {
            null: np.stack([m.draws[f"chance_{null}"] for m in per_model], axis=1) for null in plan.chance_nulls},
            plan.specs, left_out={(null, s.name): why for null in plan.chance_nulls for s in plan.specs
                                  if (why := left_out_reason(s, null, plan.chance_fitted, plan.chance_every))})
    if plan.reliability or plan.split_halves:
        out["reliability"] = reliability(plan, per_model, scores, agg.by_query_set, families or {})
    if plan.halves:
        halves = np.stack([m.draws["halves"] for m in per_model], axis=1)
        out["robustness"] = robustness_table(agg.aggregates, halves)
    effect = debias_effect(agg.aggregates, agg.rankings, plan.specs, pairs=debias_pairs, draws=word_draws)
    if effect is not None:
        out["debias_effect"], out["debias_summary"] = effect
    if len(plan.specs) > 1:
        ranks_by, taus = aggregation_sensitivity(agg.aggregates, agg.rankings, plan.specs, plan.ties,
                                                 pvalues=plan.correlation_pvalues, cache=nulls)
        out["aggregation"], out["aggregation_agreement"] = ranks_by, taus
    return Analysis(aggregates, rankings, rho, pvalues, adjusted_matrix(tests, list(rankings.columns)),
                    correlation_tests=tests, set_apart=[] if fixed is None else list(fixed.columns), **out)
