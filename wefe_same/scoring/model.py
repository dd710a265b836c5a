"""One model's scores: every metric on every subquery of a run, Badilla et al. 2020, §3.2.

Each model is read once: the union of every query word is looked up in one pass, and
every metric then works on that small :class:`~wefe_same.scoring.vectors.VectorTable`.
The words each metric receives come from :mod:`.layout`, the run's shared state from
:mod:`.context`, the per-word table from :mod:`.word_rows`, and the result type from
:mod:`.scores`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from wefe_same.metrics.memo import ModelMemo
from wefe_same.metrics.registry import MetricSpec
from wefe_same.metrics.result import MetricResult
from wefe_same.models.sources import ModelSource
from wefe_same.query import resample as resampling
from wefe_same.query.expand import Subquery
from wefe_same.scoring.aggregate import overall_per_row
from wefe_same.scoring.chance import chance_draws
from wefe_same.scoring.context import ScoringContext, ScoringPlan, random_state
from wefe_same.scoring.layout import Layout, SubqueryArrays, WordsOf, WordVectors, subquery_arrays
from wefe_same.scoring.scores import DETAIL_COLUMNS, PROMOTED, ModelScores, details_json, name_pairs
from wefe_same.scoring.vectors import VectorTable, read_table
from wefe_same.scoring.word_level import reliability_units, word_level_scores, word_measures
from wefe_same.scoring.word_rows import WordRows


class ModelTaskLike(Protocol):
    """One model of a run (:class:`~wefe_same.run.plan.ModelTask`): a source on demand."""

    def source(self) -> ModelSource: ...


#: Subqueries handed to the metric's ``prefit`` at a time: stays within what the run's memo
#: keeps of RNSB's classifiers (64 attribute pairs).
PREFIT_CHUNK = 32


def compute_all(table: VectorTable, plan: ScoringPlan, spec: MetricSpec, subqueries: Sequence[Subquery],
                options: Mapping[str, Any], words_of: WordsOf | None = None,
                word_vectors: WordVectors | None = None, seeds: Sequence[int | None] | None = None,
                layouts: Sequence[Layout] | None = None,
                memo: ModelMemo | None = None) -> list[tuple[SubqueryArrays, MetricResult]]:
    """One metric on many subqueries; the metric's ``prefit`` (RNSB: every classifier in
    one batched solve) and ``declare_memo`` see each chunk of them first. ``word_vectors``:
    the model's gathered arrays (default: these subqueries' own); ``seeds``: the subqueries'
    random states, when known; ``layouts``: their layouts, when known (not with
    ``words_of``); ``memo``: the model's memo, of the arrays of ``word_vectors`` (default: one
    of these subqueries only)."""
    if word_vectors is None:  # a model memo's keys are the numbers of one WordVectors' arrays
        word_vectors, memo = WordVectors(table), ModelMemo(None if memo is None else memo.run)
    elif memo is None:
        memo = ModelMemo()
    kind, options = spec.inputs(options)
    all_seeds = [random_state(plan, spec, sub) for sub in subqueries] if seeds is None else seeds
    # Every subquery's arrays at once (``word_vectors`` holds them for the model anyway), so
    # that the memo sees every product the metric will ask for in one go.
    all_layouts = layouts if layouts is not None else [None] * len(subqueries)
    all_arrays = [subquery_arrays(table, sub.query, spec, plan.missing_threshold, words_of, word_vectors, kind, layout)
                 for sub, layout in zip(subqueries, all_layouts)]
    memos = [None if p.reason else p.memo(memo) for p in all_arrays]
    if spec.declare_memo is not None:
        spec.declare_memo([(m, p.targets, p.attributes, options) for p, m in zip(all_arrays, memos) if m is not None])
    out = []
    for start in range(0, len(subqueries), PREFIT_CHUNK):
        chunk = slice(start, start + PREFIT_CHUNK)
        arrays, chunk_memos, chunk_seeds = all_arrays[chunk], memos[chunk], all_seeds[chunk]
        if spec.prefit is not None:
            spec.prefit([(m, p.targets, p.attributes, options, seed)
                         for p, m, seed in zip(arrays, chunk_memos, chunk_seeds) if m is not None])
        out += [(p, MetricResult.undefined(p.reason, {}) if p.reason
                 else spec.compute(p.targets, p.attributes, options, seed, m))
                for p, m, seed in zip(arrays, chunk_memos, chunk_seeds)]
    return out


def score_table(table: VectorTable, plan: ScoringPlan, description: Mapping[str, str] | None = None,
                identity: Mapping[str, Any] | None = None, *, context: ScoringContext | None = None,
                on_metric_done: Any = None) -> ModelScores:
    """Every metric on every subquery of one model's table (and its resampled draws).

    ``context``: the run's :class:`~wefe_same.scoring.context.ScoringContext` of ``plan``,
    shared by its models (default: one for this model alone; the scores are the same).
    """
    context = ScoringContext(plan) if context is None else context
    rows = []
    word_vectors = WordVectors(table, context.query_layouts(table))  # each set split and gathered once per model
    memo = ModelMemo(context.memo)  # what the metrics share on those arrays (means, RND's distances …)
    word_rows = WordRows(table, word_vectors.layouts)
    for index, ((spec, subqueries), keys) in enumerate(zip(plan.subqueries, context.keys)):
        options = plan.metric_options.get(spec.name, {})
        computed = compute_all(table, plan, spec, subqueries, options, word_vectors=word_vectors,
                               seeds=keys.seeds, layouts=context.layouts(word_vectors, index), memo=memo)
        for sub, (arrays_of_sub, result), column, names, overlap in zip(subqueries, computed, keys.columns,
                                                                keys.names, keys.overlaps):
            details = {name_pairs(k, names) if spec.pair_keyed else k: v for k, v in result.details.items()}
            promoted = [details.pop(k, None) if k in spec.promoted_details else None for k in PROMOTED]
            rows.append((table.model, spec.name, sub.query_set, column, result.value,
                         arrays_of_sub.words_found, " ".join(arrays_of_sub.missing), result.reason, overlap, *promoted,
                         details_json(details)))
            if spec.word_role and result.word_values:
                words = arrays_of_sub.word_rows[spec.word_role]
                for key, values in result.word_values.items():
                    word_rows.add(spec.name, column, words, name_pairs(key, names) if spec.pair_keyed else key,
                                  values)
        if on_metric_done is not None:
            on_metric_done()
    del word_vectors, memo
    details = pd.DataFrame(rows, columns=list(DETAIL_COLUMNS)).astype(
        {"value": "float64", "words_found": "int64", "p_value": "float64", "n_splits": "Int64"})
    draws = {}
    if plan.bootstrap_words:
        draws["bootstrap_words"] = score_draws(table, context, resampling.word_draws(plan, plan.bootstrap_words))
    if plan.halves:
        draws["halves"] = score_draws(table, context, resampling.half_draws(plan, plan.halves))
    for null in plan.chance_nulls if plan.chance else ():
        draws[f"chance_{null}"] = chance_draws(table, context, plan.chance, null, fitted=plan.chance_fitted,
                                              every=plan.chance_every)
    if plan.split_halves:
        draws["split_halves"] = score_draws(table, context, resampling.split_draws(plan, plan.split_halves))
    measures = word_measures(plan.specs) if plan.reliability else []
    word_scores = {unit.id: word_level_scores(table, unit, measures, plan.metric_options)
                   for unit in reliability_units(plan.query_sets)} if measures else {}
    return ModelScores(
        name=table.model,
        description=dict(description or {}),
        identity=dict(identity) if identity is not None else None,
        fingerprint=table.fingerprint(),
        lookups=table.lookup_frame(),
        details=details,
        word_bias=word_rows.frame(),
        draws=draws,
        word_scores=word_scores,
    )


def score_draws(table: VectorTable, context: ScoringContext,
                draws: Sequence[Mapping[str | None, WordsOf]]) -> np.ndarray:
    """Overall aggregates of one model per draw: (draws, metrics).

    Each draw maps a metric name (or None: every metric) to the words of every set; the
    permutation tests are skipped (only the values are needed).
    """
    plan = context.plan
    out = np.full((len(draws), len(plan.specs)), np.nan)
    for k, spec in enumerate(plan.specs):
        options = {**plan.metric_options.get(spec.name, {})}
        if "permutations" in options:
            options["permutations"] = 0
        subqueries, keys = plan.subqueries[k][1], context.keys[k]
        values = np.full((len(draws), len(keys.columns)), np.nan)
        for b, draw in enumerate(draws):
            words_of = draw.get(spec.name, draw.get(None, {}))
            computed = compute_all(table, plan, spec, subqueries, options, words_of, seeds=keys.seeds,
                                   word_vectors=WordVectors(table), memo=ModelMemo(context.memo))
            values[b] = [result.value for _, result in computed]
        out[:, k] = overall_per_row(values, keys.columns, spec, plan.column_sets[spec.name],
                                    plan.weights[spec.name], nan_policy=plan.nan_policy)
    return out


def load_table(task: ModelTaskLike, words: Collection[str], *,
               identify: bool = True) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """One lookup pass over a model: its table, description and identity (None unless
    ``identify``: see :func:`~wefe_same.scoring.vectors.read_table`)."""
    return read_table(task.source(), words, identify=identify)
