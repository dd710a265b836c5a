"""``rank`` as named stages, each in its own module; :func:`run` reads top to bottom.

==========  ===========================================  ==========================================
stage       what it does                                 where
==========  ===========================================  ==========================================
prepare     read queries, models specs, benchmarks and   :mod:`wefe_same.run.plan`,
            the external table; no model file opened     :mod:`wefe_same.run.config` (options)
score       one job per model: lookup pass + metrics,    :mod:`wefe_same.run.score`,
            cached per model, on an executor             :mod:`wefe_same.run.executors`,
            (``workers="auto"``: how many)               :mod:`wefe_same.run.workers`
aggregate   score matrices, aggregates by each metric's  :mod:`wefe_same.scoring.model`,
            order, rankings                              :mod:`wefe_same.analysis.ranking`
quality     benchmark rows per model, cached             :mod:`wefe_same.run.evaluators.quality`
likelihood  CrowS-Pairs / StereoSet per language model   :mod:`wefe_same.run.evaluators.likelihood`
analyse     correlations, quality/external columns,      :mod:`wefe_same.analysis.analyse`,
            intervals, sensitivity, robustness; the      :mod:`wefe_same.analysis.lipstick`,
            lipstick tests of debiased variants, cached  :mod:`wefe_same.run.evaluators.lipstick`
result      the :class:`~wefe_same.result.RankResult`    :mod:`wefe_same.run.manifest`
            and its manifest
==========  ===========================================  ==========================================
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any

import pandas as pd

from wefe_same.analysis.analyse import analyse
from wefe_same.analysis.debias_effect import debias_pairs
from wefe_same.analysis.external import load_external
from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.analysis.measurement import measurement_sensitivity
from wefe_same.analysis.ranking import aggregate_run
from wefe_same.errors import ExternalError, WarningLog, WefeSameWarning, short_list
from wefe_same.metrics.registry import sendable_problem
from wefe_same.models import ModelSource, default_models, resolve_model
from wefe_same.models.encoders.vary import VariedModel, varied_models
from wefe_same.output.word_table import WordTable
from wefe_same.processes import fewer_collections
from wefe_same.quality import load_benchmark
from wefe_same.result import RankResult
from wefe_same.run.cache import ModelCache
from wefe_same.run.config import ModelsLike, RankConfig
from wefe_same.run.evaluators.likelihood import (
    likelihood_cache_dir,
    load_likelihood_data,
    scoring_sensitivity,
    tables_by_scoring,
)
from wefe_same.run.evaluators.lipstick import lipstick_rows
from wefe_same.run.evaluators.quality import Dataset, quality_table
from wefe_same.run.manifest import make_manifest
from wefe_same.run.plan import ModelTask, RunPlan, make_plan, make_tasks
from wefe_same.run.score import score_models
from wefe_same.run.workers import resolve_workers
from wefe_same.run.zoo import expand_globs, load_models_file, metadata_table, seed_families
from wefe_same.scoring.matrices import score_matrices


@dataclass
class Run:
    """A prepared run: the checked options, the plan, the model tasks and the data inputs."""

    config: RankConfig
    plan: RunPlan
    tasks: list[ModelTask]
    varied: list[VariedModel]
    benchmarks: list[Dataset]
    external: pd.DataFrame | None
    likelihood: dict[str, pd.DataFrame]  # benchmark name → its items, read and checked
    likelihood_hashes: list[tuple[str, str]]  # (benchmark name, sha256 of its file): the cache key
    cache: ModelCache | None
    skipped: list[tuple[str, str]]
    metadata: dict[str, dict[str, Any]]  # model name → its models-file metadata


def run(config: RankConfig, *, started: float | None = None) -> RankResult:
    """Every stage of a ranking; ``started`` (a ``time.perf_counter()``) dates the wall time."""
    with fewer_collections():  # the cycle collector walked the imports' objects again and again
        return _run(config, time.perf_counter() if started is None else started)


def _run(config: RankConfig, started: float) -> RankResult:
    # One log of the run's warnings: every stage's, and every model's from whichever process
    # read it, each once per model and kind, warned as one line as the stage ends.
    log = WarningLog()
    with log.capture():
        prepared = prepare(config)
    plan = prepared.plan
    words = WordTable()  # each model's per-word rows go here as its scores come in
    workers = resolve_workers(config.execution.workers, prepared.tasks, device=config.execution.device,
                              scheduler=config.execution.scheduler,
                              unsendable=sendable_problem(plan.specs))
    with log.capture():
        per_model, cache_status = score_models(plan, prepared.tasks, workers=workers.workers,
                                               scheduler=config.execution.scheduler, cache=prepared.cache,
                                               progress=config.execution.progress, words=words, log=log)
    with log.capture():
        scores = score_matrices(per_model, plan)
        agg = aggregate_run(scores, plan.specs, plan.column_sets, plan.weights, ties=plan.ties,
                            nan_policy=plan.nan_policy)
        quality = quality_table(prepared.tasks, prepared.benchmarks, analogy_vocab=config.quality.analogy_vocab,
                                cache=prepared.cache, progress=config.execution.progress,
                                ) if prepared.benchmarks else None
        by_scoring = tables_by_scoring(
            prepared.tasks, prepared.likelihood, scorings=config.likelihood.scoring,
            device=config.execution.device, trust_pickle=config.loading.trust_pickle, cache=prepared.cache,
            hashes=prepared.likelihood_hashes) if prepared.likelihood else {}
        # The first scoring is the one ranked; the others only feed the sensitivity table.
        likelihood, likelihood_items = (by_scoring[config.likelihood.scoring[0]]
                                        if by_scoring else (None, None))
        pairs = debias_pairs({t.name: t.spec for t in prepared.tasks})
        analysed = analyse(plan, agg, scores, per_model, quality=quality, likelihood=likelihood,
                           external=prepared.external, higher_is_better=config.external.higher_is_better,
                           debias_pairs=pairs, families=seed_families(prepared.metadata))
        lipstick = None
        if isinstance(config.lipstick, LipstickSettings) and pairs:  # RankConfig made it settings, or None
            by_name = {t.name: t for t in prepared.tasks}
            sources = {name: by_name[name].source() for pair in pairs for name in pair[:2]}
            lipstick = lipstick_rows(pairs, sources, config.lipstick, seed=config.seed, cache=prepared.cache)
        sensitivity = (measurement_sensitivity(agg.aggregates, plan.specs, prepared.varied, ties=plan.ties)
                       if prepared.varied else None)
        if len(by_scoring) > 1:
            sensitivity = scoring_sensitivity(sensitivity, {s: t[0] for s, t in by_scoring.items()},
                                              list(agg.aggregates.index), plan.ties)
    manifest = make_manifest(config, plan, per_model, cache_status, log.messages,
                             skipped=prepared.skipped, metadata=prepared.metadata)
    manifest["workers"] = workers.manifest(config.execution.workers)
    manifest["wall_time_seconds"] = round(time.perf_counter() - started, 3)
    return RankResult(
        scores=scores, aggregates=analysed.aggregates, rankings=analysed.rankings,
        correlations=analysed.correlations, correlation_pvalues=analysed.correlation_pvalues,
        correlation_pvalues_adjusted=analysed.correlation_pvalues_adjusted,
        by_query_set=agg.by_query_set, details=pd.concat([m.details for m in per_model], ignore_index=True),
        lookups=pd.concat([m.lookups for m in per_model], ignore_index=True), manifest=manifest,
        word_table=words, quality=quality, likelihood=likelihood, likelihood_items=likelihood_items,
        aggregates_ci=analysed.aggregates_ci, correlations_ci=analysed.correlations_ci,
        rank_stability=analysed.rank_stability, **analysed.extra, debias_lipstick=lipstick,
        measurement_sensitivity=sensitivity, set_apart=analysed.set_apart,
        warnings=list(log.messages),
    )


def prepare(config: RankConfig) -> Run:
    """The prepare stage: read every input the options name and plan the run; no model file is opened.

    A bad input raises its error here (a query, model, benchmark or external file naming
    itself), before any model is read.
    """
    plan = make_plan(config)
    skipped: list[tuple[str, str]] = []
    models: ModelsLike = expand_globs(config.models)
    zoo = None
    if config.models_file is not None:
        zoo = load_models_file(config.models_file)
        given = [] if models is None else [models] if isinstance(models, (str, ModelSource)) else list(models)
        models = [*given, *zoo.specs]
    varied: list[VariedModel] = []
    if config.encoding.vary is not None:
        models, varied = vary_models(models, config)
    tasks = make_tasks(models, config.load_options(), skip_unloadable=config.loading.skip_unloadable, skipped=skipped)
    benchmarks = [load_benchmark(b) for b in config.quality.benchmarks]
    names = [t.name for t in tasks]
    external = None
    if config.external.table is not None:
        external = load_external(config.external.table, names, higher_is_better=config.external.higher_is_better)
    metadata: dict[str, dict[str, Any]] = {}
    if zoo is not None:
        by_spec = {t.spec: t.name for t in tasks if isinstance(t.spec, str) and t.spec in zoo.metadata}
        metadata = {name: zoo.metadata[spec] for spec, name in by_spec.items()}
        numeric = metadata_table(zoo, by_spec)
        if numeric is not None:
            with warnings.catch_warnings():  # models given by --models have no metadata: NaN, no warning
                warnings.simplefilter("ignore", WefeSameWarning)
                table = load_external(numeric, names)
            clash = sorted(set(table.columns) & set(external.columns if external is not None else ()))
            if clash:
                raise ExternalError(f"{config.models_file}: metadata column {clash[0].split(':', 1)[1]!r} is also a "
                                    "column of the external table; rename one")
            external = table if external is None else pd.concat([external, table], axis=1)
    for message in plan.warnings:
        warnings.warn(message, WefeSameWarning, stacklevel=4)  # the caller of rank
    if skipped:
        warnings.warn(skipped_warning(skipped), WefeSameWarning, stacklevel=4)
    root = config.cache_root()
    cache = None if root is False else ModelCache(root)
    benchmarks_files = config.likelihood.benchmarks
    likelihood, hashes = load_likelihood_data(benchmarks_files, allow_download=config.loading.allow_download,
                                              cache=likelihood_cache_dir(root)) if benchmarks_files else ({}, [])
    return Run(config, plan, tasks, varied, benchmarks, external, likelihood, hashes, cache, skipped, metadata)


def vary_models(models: ModelsLike, config: RankConfig) -> tuple[list[str | ModelSource], list[VariedModel]]:
    """The models with every ``hf:`` spec expanded into one model per setting (``--vary``)."""
    if models is None or isinstance(models, (str, ModelSource)):
        models = default_models() if models is None else [models]
    options = config.load_options()
    return varied_models(list(models), config.encoding.vary, partial(resolve_model, options=options))  # type: ignore[arg-type]


def skipped_warning(skipped: list[tuple[str, str]]) -> str:
    """The warning of a run that left unloadable models out (their reasons: the manifest)."""
    return (f"skipped {len(skipped)} model{'s' if len(skipped) > 1 else ''} that cannot be used: "
            + short_list([spec for spec, _ in skipped], quote=True) + " (reasons in the manifest and the report)")
