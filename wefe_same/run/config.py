"""``RankConfig``: every option of :func:`wefe_same.rank`, held and checked in one place.

The config is built once, from ``rank(...)``'s arguments or from the ``wefe-same rank``
command line (:meth:`RankConfig.from_namespace`), and checked when it is built: a bad
option raises :class:`~wefe_same.validation.InvalidParameterError` (a ``ValueError``)
naming it, an unknown metric or metric option a :class:`~wefe_same.errors.MetricError`.
The stages after it (prepare, score, analyse) take the config as it is and check nothing
again. Inputs that live in files (queries, models, benchmarks, the external table) are
read, and so checked, by the prepare stage (:mod:`wefe_same.run.pipeline`).

The option groups (``Bootstrap``, ``Quality``, …) are declared, and check their own fields,
in :mod:`wefe_same.options.groups`; the config checks the options of its own and the rules
that join groups (``higher_is_better`` needs an external table or a models file). The string
choices are listed once, in :mod:`wefe_same.options.choices`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.analysis.significance import DEFAULT_RESAMPLES, PAdjust, PValueMethod
from wefe_same.errors import MetricError
from wefe_same.metrics.registry import MetricSpec, check_options, check_sendable, resolve_metrics
from wefe_same.models.sources import ModelSource
from wefe_same.models.specs import LoadOptions
from wefe_same.options.choices import (
    CORRELATIONS,
    DEFAULT_QUERIES,
    NAN_POLICIES,
    P_ADJUSTMENTS,
    PVALUE_METHODS,
    TIES,
    CorrelationMethod,
    NanPolicy,
    Ties,
)
from wefe_same.options.groups import (
    GROUPS,
    Bootstrap,
    Encoding,
    Execution,
    External,
    Likelihood,
    Loading,
    Quality,
    coerce,
    from_flat,
    load_options,
)
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES
from wefe_same.query.files import QueriesLike
from wefe_same.run.arguments import check_models, check_queries
from wefe_same.validation import InvalidParameterError, as_list, check_bool, check_choice, check_int, check_number

#: The function named in every message: the CLI and the API report the same text.
FUNC = "rank"

ModelsLike = Sequence[str | ModelSource] | str | ModelSource | None


@dataclass(frozen=True)
class RankConfig:
    """Every option of :func:`wefe_same.rank`, checked; fields, defaults and order are rank's.

    The option groups (:mod:`wefe_same.options.groups`) are held as groups, built from any
    shorthand rank takes (``bootstrap=200``); list-like options are normalised to tuples
    (``metrics="WEAT"`` is ``("WEAT",)``); ``missing_threshold`` is a float. See
    :func:`wefe_same.rank` for each option.
    """

    models: Sequence[str | ModelSource] | str | ModelSource | None = None
    queries: QueriesLike = DEFAULT_QUERIES
    metrics: Sequence[str | MetricSpec] | str | MetricSpec | None = None
    _: KW_ONLY
    seed: int = 0
    metric_options: Mapping[str, Mapping[str, Any]] | None = None
    missing_threshold: float = 0.2
    ties: Ties = "min"
    nan_policy: NanPolicy = "skip"
    correlation: CorrelationMethod = "spearman"
    correlation_pvalues: PValueMethod = "exact"
    correlation_resamples: int = DEFAULT_RESAMPLES
    p_adjust: PAdjust = "holm"
    permutations: int = 10_000
    shared_words: bool = False
    max_subqueries: int = DEFAULT_MAX_SUBQUERIES
    models_file: str | Path | None = None
    # Groups: any shorthand rank takes (``bootstrap=200``) is made the group when checked.
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    quality: Quality = field(default_factory=Quality)
    external: External = field(default_factory=External)
    likelihood: Likelihood = field(default_factory=Likelihood)
    lipstick: bool | Mapping[str, Any] | LipstickSettings | None = True
    encoding: Encoding = field(default_factory=Encoding)
    loading: Loading = field(default_factory=Loading)
    execution: Execution = field(default_factory=Execution)

    def __post_init__(self) -> None:
        for name, group in GROUPS.items():  # each group checks its own fields when it is built
            object.__setattr__(self, name, coerce(group, getattr(self, name), name, FUNC))
        object.__setattr__(self, "lipstick", lipstick_settings(self.lipstick))
        self._check_inputs()
        self._check_scoring()
        specs = self._check_metrics()
        # Found there by name or import path, or refused now; "auto" keeps such a metric in-process (run.workers).
        if self.execution.in_parallel():
            check_sendable(specs, "Dask workers" if self.execution.scheduler is not None
                           else "worker processes")
        if self.external.higher_is_better and self.external.table is None and self.models_file is None:
            raise InvalidParameterError(f"The 'higher_is_better' parameter of {FUNC} names external columns, "
                                        "and no external table was given.")

    def _check_inputs(self) -> None:
        object.__setattr__(self, "models", check_models(self.models, "models", FUNC))
        object.__setattr__(self, "queries", check_queries(self.queries, "queries", FUNC))
        if self.models_file is not None and not isinstance(self.models_file, (str, os.PathLike)):
            raise InvalidParameterError(f"The 'models_file' parameter of {FUNC} must be a path. "
                                        f"Got {self.models_file!r} instead.")

    def _check_scoring(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        put("seed", check_int(self.seed, "seed", FUNC, minimum=0))
        put("missing_threshold", check_number(self.missing_threshold, "missing_threshold", FUNC, low=0, high=1))
        check_choice(self.ties, "ties", FUNC, TIES)
        check_choice(self.nan_policy, "nan_policy", FUNC, NAN_POLICIES)
        check_choice(self.correlation, "correlation", FUNC, CORRELATIONS)
        check_choice(self.correlation_pvalues, "correlation_pvalues", FUNC, PVALUE_METHODS)
        check_choice(self.p_adjust, "p_adjust", FUNC, P_ADJUSTMENTS)
        put("correlation_resamples", check_int(self.correlation_resamples, "correlation_resamples", FUNC, minimum=1))
        put("permutations", check_int(self.permutations, "permutations", FUNC, minimum=0))  # np.int64 as int
        put("shared_words", check_bool(self.shared_words, "shared_words", FUNC))
        put("max_subqueries", check_int(self.max_subqueries, "max_subqueries", FUNC, minimum=1))

    def _check_metrics(self) -> list[MetricSpec]:
        if self.metrics is not None:
            object.__setattr__(self, "metrics", tuple(as_list(self.metrics, "metrics", FUNC, item=(str, MetricSpec))))
        specs = resolve_metrics(self.metrics)  # an unknown name fails here, listing the valid ones
        if self.metric_options is not None and not isinstance(self.metric_options, Mapping):
            raise MetricError(f"metric_options of {FUNC} must map metric names to option dicts, "
                              f"not {type(self.metric_options).__name__}")
        check_options(specs, self.metric_options)
        return specs

    @classmethod
    def from_namespace(cls, args: argparse.Namespace, **overrides: Any) -> RankConfig:
        """The config of a parsed command line: every field its namespace holds (a group's
        fields under their flat keywords, the flags' ``dest``), then ``overrides``."""
        given = vars(args)
        groups: dict[str, Any] = {name: from_flat(GROUPS[name], given) for name in GROUPS}
        own = {f.name: given[f.name] for f in fields(cls) if f.name in given and f.name not in GROUPS}
        return cls(**{**own, **groups, **overrides})

    def load_options(self) -> LoadOptions:
        """How model files and encoders are read."""
        return load_options(self.loading, self.encoding, self.execution, seed=self.seed)

    def cache_root(self) -> Path | Literal[False] | None:
        """The cache folder asked for: a path, None for the default one, or False for no cache."""
        return self.execution.cache_root()

    def settings(self) -> dict[str, Any]:
        """The options the manifest records (the seed, metrics and queries have entries of their own)."""
        boot, quality, external, likelihood = self.bootstrap, self.quality, self.external, self.likelihood
        encoding, loading, execution = self.encoding, self.loading, self.execution
        table = external.table
        return {"missing_threshold": self.missing_threshold, "ties": self.ties, "nan_policy": self.nan_policy,
                "correlation": self.correlation, "correlation_pvalues": self.correlation_pvalues,
                "correlation_resamples": self.correlation_resamples, "p_adjust": self.p_adjust,
                "permutations": self.permutations, "bootstrap": boot.subqueries,
                "bootstrap_words": boot.words, "halves": boot.halves, "chance": boot.chance,
                "chance_every": boot.chance_every,
                "chance_nulls": list(boot.chance_nulls), "chance_fitted": boot.chance_fitted,
                "reliability": boot.reliability, "split_halves": boot.split_halves,
                "shared_words": self.shared_words,
                "quality": list(quality.benchmarks), "analogy_vocab": quality.analogy_vocab,
                "templates": encoding.templates if isinstance(encoding.templates, str)
                else list(encoding.templates),
                "template_items": encoding.template_items, "contexts": encoding.contexts,
                "contexts_per_word": encoding.contexts_per_word,
                "vary": None if encoding.vary is None
                else {k: list(v) for k, v in encoding.vary.items()},
                "unicode_errors": loading.unicode_errors, "subwords": loading.subwords,
                "workers": execution.workers, "scheduler": execution.scheduler,
                "external": None if table is None else ("DataFrame" if isinstance(table, pd.DataFrame) else str(table)),
                "higher_is_better": list(external.higher_is_better),
                "skip_unloadable": loading.skip_unloadable,
                "models_file": None if self.models_file is None else str(self.models_file),
                "device": execution.device,
                "lipstick": None if self.lipstick is None else self.lipstick.to_dict(),  # type: ignore[union-attr]
                "likelihood": list(likelihood.benchmarks),
                # a single scoring is written as its name, as in earlier manifests
                "likelihood_scoring": likelihood.scoring[0] if len(likelihood.scoring) == 1
                else list(likelihood.scoring)}

    def replace(self, **changes: Any) -> RankConfig:
        """A copy with ``changes``, checked again."""
        return replace(self, **changes)


def lipstick_settings(value: Any) -> LipstickSettings | None:
    """The ``lipstick`` option as settings: True the defaults, False or None off, a mapping
    the defaults updated by it (:class:`~wefe_same.analysis.lipstick.LipstickSettings`)."""
    if isinstance(value, LipstickSettings):
        return value
    if value is None or value is False:
        return None
    if value is True:
        return LipstickSettings()
    if isinstance(value, Mapping):
        return LipstickSettings.from_option(value, FUNC)
    raise InvalidParameterError(f"The 'lipstick' parameter of {FUNC} must be True, False or a mapping of its "
                                f"settings. Got {value!r} instead.")
