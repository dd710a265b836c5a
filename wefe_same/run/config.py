"""``RankConfig``: every option of :func:`wefe_same.rank`, held and checked in one place.

The config is built once, from ``rank(...)``'s arguments or from the ``wefe-same rank``
command line (:meth:`RankConfig.from_namespace`), and checked when it is built: a bad
option raises :class:`~wefe_same.validation.InvalidParameterError` (a ``ValueError``)
naming it, an unknown metric or metric option a :class:`~wefe_same.errors.MetricError`.
The stages after it (plan, score, analyse) take the config as it is and check nothing
again. Inputs that live in files (queries, models, benchmarks, the external table) are
read, and so checked, by the plan stage (:mod:`wefe_same.run.pipeline`).

The string choices are listed once, in :mod:`wefe_same.run.choices`; the command line
builds its ``choices=`` from the same tuples.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from wefe_same.analysis.lipstick import LipstickSettings
from wefe_same.analysis.significance import DEFAULT_RESAMPLES, PAdjust, PValueMethod
from wefe_same.errors import MetricError, bad_parameter
from wefe_same.likelihood.evaluate import parse_benchmark
from wefe_same.metrics.registry import MetricSpec, check_options, check_sendable, resolve_metrics
from wefe_same.models.encoders.contexts import TEMPLATE_SETS, load_contexts, template_options
from wefe_same.models.encoders.settings import ENCODER_OPTIONS, MAX_TEMPLATES, Device, check_device
from wefe_same.models.encoders.vary import parse_vary
from wefe_same.models.sources import ModelSource
from wefe_same.models.specs import TEMPLATE_ITEMS, LoadOptions, TemplateItems
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES
from wefe_same.query.files import QueriesLike
from wefe_same.run.arguments import check_models, check_queries
from wefe_same.run.choices import (
    CORRELATIONS,
    DEFAULT_QUERIES,
    LIKELIHOOD_SCORINGS,
    NAN_POLICIES,
    P_ADJUSTMENTS,
    PVALUE_METHODS,
    TIES,
    UNICODE_ERRORS,
    CorrelationMethod,
    NanPolicy,
    Ties,
    UnicodeErrors,
)
from wefe_same.validation import (
    InvalidParameterError,
    as_list,
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_scheduler_address,
    is_int,
)

#: The function named in every message: the CLI and the API report the same text.
FUNC = "rank"

ModelsLike = Sequence[str | ModelSource] | str | ModelSource | None


@dataclass(frozen=True)
class RankConfig:
    """Every option of :func:`wefe_same.rank`, checked; fields, defaults and order are rank's.

    List-like options are normalised to tuples (``metrics="WEAT"`` is ``("WEAT",)``);
    ``missing_threshold`` is a float. See :func:`wefe_same.rank` for each option.
    """

    models: ModelsLike = None
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
    bootstrap: int = 0
    bootstrap_words: int = 0
    halves: int = 0
    shared_words: bool = False
    max_subqueries: int = DEFAULT_MAX_SUBQUERIES
    quality: Sequence[str] | str | None = None
    analogy_vocab: int = 300_000
    external: str | Path | pd.DataFrame | None = None
    higher_is_better: Sequence[str] | str = ()
    templates: Sequence[str] | str = ()
    contexts: str | Path | None = None
    contexts_per_word: int = 20
    template_items: TemplateItems = "sentences"
    vary: Sequence[str] | str | Mapping[str, Sequence[str]] | None = None
    unicode_errors: UnicodeErrors = "strict"
    subwords: bool = True
    trust_pickle: bool = False
    allow_download: bool = False
    workers: int | Literal["auto"] = 1
    scheduler: str | None = None
    cache: bool | str | Path | None = None
    progress: bool | None = None
    skip_unloadable: bool = False
    models_file: str | Path | None = None
    device: Device = "auto"
    lipstick: bool | Mapping[str, Any] | LipstickSettings | None = True
    likelihood: Sequence[str] | str | None = None
    likelihood_scoring: str | Sequence[str] = "authors"  # held as a tuple; the first one is ranked

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        put("models", check_models(self.models, "models", FUNC))
        put("queries", check_queries(self.queries, "queries", FUNC))
        put("seed", check_int(self.seed, "seed", FUNC, minimum=0))
        put("missing_threshold", check_number(self.missing_threshold, "missing_threshold", FUNC, low=0, high=1))
        check_choice(self.ties, "ties", FUNC, TIES)
        check_choice(self.nan_policy, "nan_policy", FUNC, NAN_POLICIES)
        check_choice(self.correlation, "correlation", FUNC, CORRELATIONS)
        check_choice(self.correlation_pvalues, "correlation_pvalues", FUNC, PVALUE_METHODS)
        check_choice(self.p_adjust, "p_adjust", FUNC, P_ADJUSTMENTS)
        put("correlation_resamples", check_int(self.correlation_resamples, "correlation_resamples", FUNC, minimum=1))
        for name in ("permutations", "bootstrap", "bootstrap_words", "halves"):
            put(name, check_int(getattr(self, name), name, FUNC, minimum=0))  # np.int64 as int
        put("shared_words", check_bool(self.shared_words, "shared_words", FUNC))
        put("max_subqueries", check_int(self.max_subqueries, "max_subqueries", FUNC, minimum=1))
        if self.metrics is not None:
            put("metrics", tuple(as_list(self.metrics, "metrics", FUNC, item=(str, MetricSpec))))
        specs = resolve_metrics(self.metrics)  # an unknown name fails here, listing the valid ones
        if self.metric_options is not None and not isinstance(self.metric_options, Mapping):
            raise MetricError(f"metric_options of {FUNC} must map metric names to option dicts, "
                              f"not {type(self.metric_options).__name__}")
        check_options(specs, self.metric_options)
        if isinstance(self.templates, str) and "{word}" not in self.templates:
            template_options(self.templates)  # one template set or file: read (and checked) now
        else:
            put("templates", tuple(as_list(self.templates, "templates", FUNC)) if self.templates else ())
            if len(self.templates) > MAX_TEMPLATES:
                ENCODER_OPTIONS["templates"].check_parameter(len(self.templates), "templates", FUNC)
            for t in self.templates:
                ENCODER_OPTIONS["template"].check_parameter(t, "templates", FUNC)
                if t.count("{word}") != 1:
                    raise InvalidParameterError(f"The 'templates' parameter of {FUNC} must hold sentences with one "
                                                f"{{word}} slot, or be one of {', '.join(TEMPLATE_SETS)} or a "
                                                f"file. Got {t!r} instead.")
        check_choice(self.template_items, "template_items", FUNC, TEMPLATE_ITEMS)
        put("contexts_per_word", ENCODER_OPTIONS["contexts_per_word"].check_parameter(
            self.contexts_per_word, "contexts_per_word", FUNC))
        if self.vary is not None:
            put("vary", parse_vary(self.vary))
        if self.contexts is not None:
            if not isinstance(self.contexts, (str, os.PathLike)):
                raise InvalidParameterError(f"The 'contexts' parameter of {FUNC} must be a file path. "
                                            f"Got {self.contexts!r} instead.")
            if self.templates:
                raise InvalidParameterError(f"The 'contexts' and 'templates' parameters of {FUNC} exclude each "
                                            "other: a word is encoded in its context sentences or in templates.")
            put("contexts", str(self.contexts))
            load_contexts(str(self.contexts))  # a missing or unreadable file fails now, naming itself
        check_choice(self.unicode_errors, "unicode_errors", FUNC, UNICODE_ERRORS)
        for name in ("subwords", "trust_pickle", "allow_download", "skip_unloadable"):
            put(name, check_bool(getattr(self, name), name, FUNC))
        put("analogy_vocab", check_int(self.analogy_vocab, "analogy_vocab", FUNC, minimum=1))
        if self.workers != "auto":  # "auto": chosen from the machine and the models (run.workers)
            if not is_int(self.workers) or self.workers < 1:
                raise InvalidParameterError(bad_parameter("workers", FUNC, 'an integer >= 1 or "auto"',
                                                          self.workers))
            put("workers", int(self.workers))
        if self.scheduler is not None and not isinstance(self.scheduler, str):
            raise InvalidParameterError(f"The 'scheduler' parameter of {FUNC} must be an address string. "
                                        f"Got {self.scheduler!r} instead.")
        if self.scheduler is not None:  # an address that does not parse fails here, before any work
            check_scheduler_address(self.scheduler, FUNC)
        # Found there by name or import path, or refused now; "auto" keeps such a metric in-process (run.workers).
        if self.scheduler is not None or (self.workers != "auto" and self.workers > 1):
            check_sendable(specs, "Dask workers" if self.scheduler is not None else "worker processes")
        put("quality", () if self.quality is None else tuple(
            os.fspath(q) for q in as_list(self.quality, "quality", FUNC, item=(str, os.PathLike))))
        put("higher_is_better", tuple(as_list(self.higher_is_better, "higher_is_better", FUNC))
            if self.higher_is_better else ())
        if self.models_file is not None and not isinstance(self.models_file, (str, os.PathLike)):
            raise InvalidParameterError(f"The 'models_file' parameter of {FUNC} must be a path. "
                                        f"Got {self.models_file!r} instead.")
        if self.higher_is_better and self.external is None and self.models_file is None:
            raise InvalidParameterError(f"The 'higher_is_better' parameter of {FUNC} names external columns, "
                                        "and no external table was given.")
        if self.cache is not None and not isinstance(self.cache, (bool, str, os.PathLike)):
            raise InvalidParameterError(f"The 'cache' parameter of {FUNC} must be True, False, None or a folder. "
                                        f"Got {self.cache!r} instead.")
        if self.progress is not None:
            put("progress", check_bool(self.progress, "progress", FUNC))
        check_device(self.device, FUNC)  # 'cuda' without a CUDA device fails here, before any work
        put("lipstick", lipstick_settings(self.lipstick))
        put("likelihood", () if self.likelihood is None else tuple(
            os.fspath(q) for q in as_list(self.likelihood, "likelihood", FUNC, item=(str,))))
        for value in self.likelihood:  # type: ignore[union-attr]
            parse_benchmark(value)  # an unknown name fails here, listing the valid ones
        put("likelihood_scoring", likelihood_scorings(self.likelihood_scoring))
        if not self.likelihood and self.likelihood_scoring != ("authors",):
            raise InvalidParameterError(f"The 'likelihood_scoring' parameter of {FUNC} says how the likelihood "
                                        "benchmarks are scored, and no likelihood benchmark was given.")

    @classmethod
    def from_namespace(cls, args: argparse.Namespace, **overrides: Any) -> RankConfig:
        """The config of a parsed command line: every field its namespace holds, then ``overrides``."""
        given = vars(args)
        return cls(**{**{f.name: given[f.name] for f in fields(cls) if f.name in given}, **overrides})

    def load_options(self) -> LoadOptions:
        """How model files and encoders are read."""
        return LoadOptions(trust_pickle=self.trust_pickle, unicode_errors=self.unicode_errors,
                           subwords=self.subwords, allow_download=self.allow_download, cache=self._encoder_cache(),
                           contexts=self.contexts, contexts_per_word=self.contexts_per_word,  # type: ignore[arg-type]
                           seed=self.seed, device=self.device, template_items=self.template_items,
                           **template_options(self.templates))  # type: ignore[arg-type]

    def _encoder_cache(self) -> bool | str:
        """LoadOptions.cache: False with the cache off, True for the default directory, else the path."""
        if self.cache is False:
            return False
        return True if self.cache in (None, True) else str(self.cache)

    def cache_root(self) -> Path | Literal[False] | None:
        """The cache folder asked for: a path, None for the default one, or False for no cache."""
        if self.cache is False:
            return False
        return None if self.cache in (None, True) else Path(self.cache)  # type: ignore[arg-type]

    def settings(self) -> dict[str, Any]:
        """The options the manifest records (the seed, metrics and queries have entries of their own)."""
        external = self.external
        return {"missing_threshold": self.missing_threshold, "ties": self.ties, "nan_policy": self.nan_policy,
                "correlation": self.correlation, "correlation_pvalues": self.correlation_pvalues,
                "correlation_resamples": self.correlation_resamples, "p_adjust": self.p_adjust,
                "permutations": self.permutations, "bootstrap": self.bootstrap,
                "bootstrap_words": self.bootstrap_words, "halves": self.halves, "shared_words": self.shared_words,
                "quality": list(self.quality), "analogy_vocab": self.analogy_vocab,  # type: ignore[arg-type]
                "templates": self.templates if isinstance(self.templates, str) else list(self.templates),
                "template_items": self.template_items, "contexts": self.contexts,
                "contexts_per_word": self.contexts_per_word,
                "vary": None if self.vary is None else {k: list(v) for k, v in self.vary.items()},  # type: ignore[union-attr]
                "unicode_errors": self.unicode_errors,
                "subwords": self.subwords, "workers": self.workers, "scheduler": self.scheduler,
                "external": None if external is None else
                ("DataFrame" if isinstance(external, pd.DataFrame) else str(external)),
                "higher_is_better": list(self.higher_is_better), "skip_unloadable": self.skip_unloadable,
                "models_file": None if self.models_file is None else str(self.models_file),
                "device": self.device,
                "lipstick": None if self.lipstick is None else self.lipstick.to_dict(),  # type: ignore[union-attr]
                "likelihood": list(self.likelihood),  # type: ignore[arg-type]
                # a single scoring is written as its name, as in earlier manifests
                "likelihood_scoring": self.likelihood_scoring[0] if len(self.likelihood_scoring) == 1
                else list(self.likelihood_scoring)}

    def replace(self, **changes: Any) -> RankConfig:
        """A copy with ``changes``, checked again."""
        return replace(self, **changes)


def likelihood_scorings(value: Any) -> tuple[str, ...]:
    """The ``likelihood_scoring`` option as a tuple of distinct choices: the first scores the
    likelihood columns of the rankings, each other one adds rows to the measurement
    sensitivity table."""
    names = tuple(as_list(value, "likelihood_scoring", FUNC))
    if not names:
        raise InvalidParameterError(f"The 'likelihood_scoring' parameter of {FUNC} must name at least one scoring.")
    for name in names:
        check_choice(name, "likelihood_scoring", FUNC, LIKELIHOOD_SCORINGS)
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise InvalidParameterError(f"The 'likelihood_scoring' parameter of {FUNC} names {twice[0]!r} twice.")
    return names


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
