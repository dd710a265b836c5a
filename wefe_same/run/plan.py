"""The plan of a run: every argument checked, every subquery expanded, before any model is read.

A :class:`RunPlan` is what each model's scoring needs and nothing else (no model, no
data file): it is small and picklable, so worker processes and Dask workers receive it
as it is. Its :meth:`RunPlan.scoring_key` names everything that changes a model's scores,
which is what the cache keys on besides the model itself.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from wefe_same.analysis.significance import DEFAULT_RESAMPLES, PAdjust, PValueMethod
from wefe_same.errors import QueryError, WefeSameWarning
from wefe_same.metrics.registry import MetricSpec, is_registered, resolve_metrics
from wefe_same.models.catalog import resolve_models
from wefe_same.models.sources import ModelSource
from wefe_same.models.specs import LoadOptions
from wefe_same.options.choices import DEFAULT_QUERIES, CorrelationMethod, NanPolicy, Ties
from wefe_same.query.expand import Subquery, check_subquery_count, expand_query, query_set_weights
from wefe_same.query.files import load_queries
from wefe_same.query.sets import QuerySet
from wefe_same.run.config import RankConfig
from wefe_same.versions import code_digest, package_version

__all__ = ["DEFAULT_QUERIES", "SCORING_CODE", "ModelTask", "RunPlan", "make_plan", "make_tasks"]

#: Modules whose code decides a model's scores: a change in any of them invalidates the cache.
#: Every module ``wefe_same.scoring.model`` imports within the package is here
#: (tests/run/test_cache.py checks the import closure).
SCORING_CODE = ("query", "metrics", "models", "scoring", "analysis/__init__.py", "analysis/ranking.py",
                "options", "run/__init__.py", "run/plan.py", "run/config.py",
                "cachedir.py", "errors.py", "interrupts.py", "plugins.py", "processes.py", "validation.py",
                "versions.py")


@dataclass(frozen=True)
class ModelTask:
    """One model of a run: its name, and a spec any process can resolve again.

    ``spec`` is the string the user gave (resolved again in a worker with ``options``), or
    a :class:`ModelSource` object given directly (sent to workers as it is: it must pickle).
    """

    name: str
    spec: str | ModelSource
    options: LoadOptions = field(default_factory=LoadOptions)

    def source(self) -> ModelSource:
        from wefe_same.models.catalog import resolve_model

        return resolve_model(self.spec, self.options)


def make_tasks(models: Sequence[str | ModelSource] | str | ModelSource | None, options: LoadOptions, *,
               skip_unloadable: bool = False, skipped: list[tuple[str, str]] | None = None) -> list[ModelTask]:
    """Resolve every spec once (cheap: no model file is opened) to check it and name it.

    Every model that cannot be used is named in one error, or with ``skip_unloadable``
    left out and appended to ``skipped`` as (spec, reason).
    """
    tasks = []
    for source in resolve_models(models, options, skip_unloadable=skip_unloadable, skipped=skipped):
        spec = source.spec  # the string a worker resolves again, if any
        tasks.append(ModelTask(source.name, spec if isinstance(spec, str) else source, options))
    return tasks


@dataclass(frozen=True)
class RunPlan:
    """Everything that decides the scores and their analysis, validated.

    Attributes mirror :func:`wefe_same.rank`'s arguments; ``metric_options`` holds the
    options actually used (``permutations`` filled in for the WEAT tests);
    ``custom_metrics`` the metrics given as specs that are not registered (a worker
    receives them with their functions by import path; registered ones it finds by name).
    """

    query_sets: tuple[QuerySet, ...]
    metric_names: tuple[str, ...]
    metric_options: Mapping[str, Mapping[str, Any]]
    seed: int = 0
    missing_threshold: float = 0.2
    ties: Ties = "min"
    nan_policy: NanPolicy = "skip"
    correlation: CorrelationMethod = "spearman"
    correlation_pvalues: PValueMethod = "exact"
    correlation_resamples: int = DEFAULT_RESAMPLES
    p_adjust: PAdjust = "holm"
    permutations: int = 10_000
    bootstrap: int = 0
    bootstrap_words: int = 0
    halves: int = 0
    chance: int = 0
    chance_every: bool = False
    chance_nulls: tuple[str, ...] = ("permutation",)
    chance_fitted: bool = False
    reliability: bool = False
    split_halves: int = 0
    shared_words: bool = False
    warnings: tuple[str, ...] = ()
    custom_metrics: tuple[MetricSpec, ...] = ()

    @cached_property
    def specs(self) -> list[MetricSpec]:
        custom = {s.name: s for s in self.custom_metrics}
        with warnings.catch_warnings():  # a broken plugin was said once, when the config was checked
            warnings.simplefilter("ignore", WefeSameWarning)  # (a worker process loads the plugins again)
            return resolve_metrics([custom.get(n, n) for n in self.metric_names])

    @cached_property
    def subqueries(self) -> list[tuple[MetricSpec, list[Subquery]]]:
        return [(s, expand_query(self.query_sets, s)) for s in self.specs]

    @cached_property
    def words(self) -> frozenset[str]:
        """The run's vocabulary: every word of every query set."""
        return frozenset().union(*(qs.words for qs in self.query_sets))

    @cached_property
    def column_sets(self) -> dict[str, dict[str, str]]:
        """Per metric, subquery id → its query set."""
        return {spec.name: {s.column: s.query_set for s in subs} for spec, subs in self.subqueries}

    @cached_property
    def weights(self) -> dict[str, dict[str, int]]:
        return {spec.name: query_set_weights(self.query_sets, spec) for spec in self.specs}

    def __getstate__(self) -> dict[str, Any]:
        # Cached properties are rebuilt on the other side: they hold the metric functions.
        return {k: v for k, v in self.__dict__.items()
                if k not in ("specs", "subqueries", "words", "column_sets", "weights")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def scoring_key(self) -> str:
        """sha256 of everything that changes a model's scores, the model itself aside."""
        body: dict[str, Any] = {
            "version": package_version("wefe_same"),
            "code": code_digest(*SCORING_CODE),
            "queries": [[qs.name, [(q.id, [(s.name, list(s.words), s.aligned)
                                           for s in (*q.targets, *q.attributes)]) for q in qs.queries]]
                        for qs in self.query_sets],
            "metrics": list(self.metric_names),
            "options": {k: {o: repr(v) for o, v in sorted(opts.items())} for k, opts in self.metric_options.items()},
            "seed": self.seed, "missing_threshold": self.missing_threshold,
            "bootstrap_words": self.bootstrap_words, "halves": self.halves,
            "chance": [self.chance, list(self.chance_nulls), self.chance_fitted, self.chance_every]
            if self.chance else 0,
            "reliability": self.reliability, "split_halves": self.split_halves,
            "shared_words": self.shared_words,
        }
        sources = {s.name: s.origin.digest for s in self.specs if s.origin is not None and not s.origin.builtin}
        if sources:  # a plugin's or a function's code: changed code is scored again
            body["metric_code"] = sources
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def make_plan(config: RankConfig) -> RunPlan:
    """Read the query sets of a checked config and expand its subqueries; no model is read.

    Raises the query error naming the file, set or word, or the metric error of a metric
    that no query fits.
    """
    specs = resolve_metrics(config.metrics)
    options = {k: dict(v) for k, v in (config.metric_options or {}).items()}
    for spec in specs:
        if "permutations" in spec.options:
            options.setdefault(spec.name, {}).setdefault("permutations", config.permutations)
    with warnings.catch_warnings(record=True) as caught:  # overlapping sets: kept for the manifest, re-emitted by rank
        warnings.simplefilter("always", WefeSameWarning)
        query_sets = tuple(load_queries(config.queries))
    for w in caught:
        if not issubclass(w.category, WefeSameWarning):
            warnings.warn(w.message, w.category, stacklevel=2)
    for qs in query_sets:
        if not qs.queries:
            raise QueryError(f"{qs.path or qs.name}: no queries; add [[queries]] tables naming target and "
                             "attribute sets")
    load_warnings = tuple(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)))
    plan = RunPlan(query_sets, tuple(s.name for s in specs), options, seed=config.seed,
                   missing_threshold=config.missing_threshold, ties=config.ties, nan_policy=config.nan_policy,
                   correlation=config.correlation, correlation_pvalues=config.correlation_pvalues,
                   correlation_resamples=config.correlation_resamples, p_adjust=config.p_adjust,
                   permutations=config.permutations, bootstrap=config.bootstrap.subqueries,
                   bootstrap_words=config.bootstrap.words, halves=config.bootstrap.halves,
                   chance=config.bootstrap.chance, chance_every=config.bootstrap.chance_every,
                   chance_nulls=config.bootstrap.chance_nulls,
                   chance_fitted=config.bootstrap.chance_fitted, reliability=config.bootstrap.reliability,
                   split_halves=config.bootstrap.split_halves,
                   shared_words=config.shared_words, warnings=load_warnings,
                   custom_metrics=tuple(s for s in specs if not is_registered(s)))
    # Counted before anything is expanded: a query of 2,000 sets would otherwise build
    # millions of subqueries (and hold the memory) before saying anything.
    check_subquery_count(query_sets, specs, config.max_subqueries)
    _ = plan.subqueries  # a metric no query fits fails here, before any model is read
    return plan
