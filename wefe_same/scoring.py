"""Score matrices: every metric on every (model, subquery), seed 002 §3.2.

Each model is read once: the union of every query word is looked up in one pass, and
every metric then works on that small :class:`~wefe_same.vectors.VectorTable`.
A set that lost too many words makes its subquery NaN with the reason; it never stops
the run.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import MetricError, bad_parameter
from .metrics.registry import MetricSpec
from .metrics.result import MetricResult
from .models.sources import ModelSource
from .query import Query, QuerySet, WordSet
from .vectors import VectorTable, build_table

DETAIL_COLUMNS = [
    "model", "metric", "query_set", "subquery", "value", "words_found", "missing_words",
    "reason", "p_value", "n_splits", "p_method", "metric_details",
]
WORD_BIAS_COLUMNS = ["model", "metric", "subquery", "word", "component", "value"]
#: Details promoted to their own columns of details.csv (the permutation test).
TEST_KEYS = ("p_value", "n_splits", "p_method")
_PAIR_KEY = re.compile(r"^(signed|pair)_(\d+)_(\d+)$")


@dataclass(frozen=True)
class Subquery:
    """One column of a score matrix: a subquery and the query set it came from."""

    query_set: str
    query: Query

    @property
    def column(self) -> str:
        return f"{self.query_set}:{self.query.id}"


def expand(query_sets: Sequence[QuerySet], spec: MetricSpec) -> list[Subquery]:
    """Q_F = Q_1(s) ∪ … ∪ Q_r(s): subqueries of the metric's template, duplicates merged."""
    out: dict[str, Subquery] = {}
    for qs in query_sets:
        for query in qs.queries:
            for sub in query.subqueries(spec.template):
                out.setdefault(Subquery(qs.name, sub).column, Subquery(qs.name, sub))
    if not out:
        labels = "; ".join(f"{qs.name}: " + ", ".join(
            f"{q.label} ({len(q.targets)}, {len(q.attributes)})" for q in qs.queries) for qs in query_sets)
        raise MetricError(
            f"metric {spec.name!r} takes queries of template {spec.template}, and no query fits: {labels}"
        )
    return list(out.values())


def query_words(query_sets: Sequence[QuerySet]) -> frozenset[str]:
    return frozenset().union(*(qs.words for qs in query_sets))


def stream_seed(seed: int, *keys: str) -> int:
    """A seed for one (metric, subquery): the same for every model, whatever else runs.

    Using the same random draws for every model compares models on equal terms.
    """
    entropy = [seed, *(zlib.crc32(k.encode("utf-8")) for k in keys)]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


@dataclass(frozen=True)
class Prepared:
    targets: list[np.ndarray]
    attributes: list[np.ndarray]
    words: dict[str, list[str]]  # role → the found words behind the rows, sets concatenated
    words_found: int
    missing: list[str]
    reason: str | None


def _loss_reason(what: str, lost: int, total: int, threshold: float, unit: str) -> str | None:
    if lost == total:
        return f"{what} has no {unit} in the model"
    if lost / total > threshold:
        return f"{what} lost {lost} of {total} {unit}s ({lost / total:.0%} > {threshold:.0%})"
    return None


def _aligned_words(table: VectorTable, sets: Sequence[WordSet]) -> tuple[list[list[str]], int, int]:
    """Columns of the tuples whose every word is known; (columns, tuples lost, tuples)."""
    tuples = list(zip(*(s.words for s in sets)))
    kept = [t for t in tuples if all(w in table for w in t)]
    return [list(col) for col in zip(*kept)], len(tuples) - len(kept), len(tuples)


def prepare(table: VectorTable, query: Query, spec: MetricSpec, threshold: float) -> Prepared:
    """Arrays of one subquery after the out-of-vocabulary policy."""
    get = table.unit_vectors if spec.vectors == "unit" else table.raw_vectors
    missing = [w for s in (*query.targets, *query.attributes) for w in s.words if w not in table]
    reasons: list[str | None] = []
    word_lists: dict[str, list[list[str]]] = {"targets": [], "attributes": []}

    for role in ("targets", "attributes"):
        sets: tuple[WordSet, ...] = getattr(query, role)
        if role == "targets" and spec.aligned_targets:
            if len({len(s) for s in sets}) > 1:
                reasons.append("target sets are not aligned tuples: lengths "
                               + ", ".join(f"{s.name}={len(s)}" for s in sets))
                continue
            columns, lost, total = _aligned_words(table, sets)
            reasons.append(_loss_reason("the target sets", lost, total, threshold, "tuple"))
            word_lists[role] = columns
            continue
        for s in sets:
            words, lost_words = table.split(s.words)
            reasons.append(_loss_reason(f"set {s.name!r}", len(lost_words), len(s), threshold, "word"))
            word_lists[role].append(words)

    reason = "; ".join(r for r in reasons if r) or None
    arrays = {role: [get(w) for w in lists] if reason is None else [] for role, lists in word_lists.items()}
    found = sum(len(w) for lists in word_lists.values() for w in lists)
    words = {role: [w for ws in lists for w in ws] for role, lists in word_lists.items()}
    return Prepared(arrays["targets"], arrays["attributes"], words, found, missing, reason)


def name_pairs(key: str, names: Sequence[str]) -> str:
    """``signed_0_1`` → ``signed:male-female``: index pairs of target sets by their names."""
    match = _PAIR_KEY.match(key)
    if not match:
        return key
    kind, i, j = match.group(1), int(match.group(2)), int(match.group(3))
    return f"{kind}:{names[i]}-{names[j]}"


def _json(details: Mapping[str, Any]) -> str:
    def clean(v: Any) -> Any:
        v = v.item() if isinstance(v, np.generic) else v
        return None if isinstance(v, float) and math.isnan(v) else v

    return json.dumps({k: clean(v) for k, v in details.items()}, sort_keys=True)


@dataclass
class ModelScores:
    """Everything one model contributed to a run."""

    name: str
    description: dict[str, str]
    fingerprint: str
    lookups: pd.DataFrame
    details: pd.DataFrame
    word_bias: pd.DataFrame


def score_model(
    source: ModelSource,
    query_sets: Sequence[QuerySet],
    plan: Sequence[tuple[MetricSpec, list[Subquery]]],
    *,
    metric_options: Mapping[str, Mapping[str, Any]],
    seed: int,
    missing_threshold: float,
    on_metric_done: Any = None,
) -> ModelScores:
    """One model: one lookup pass, then every metric on every subquery."""
    table = build_table(source, query_words(query_sets))
    rows = []
    word_frames = []
    for spec, subqueries in plan:
        options = metric_options.get(spec.name, {})
        for sub in subqueries:
            prep = prepare(table, sub.query, spec, missing_threshold)
            if prep.reason:
                result = MetricResult.undefined(prep.reason, {})
            else:
                stream = spec.random_stream or spec.name
                key = sub.column if spec.seed_by == "subquery" else sub.query.id.split("|")[1]
                random_state = stream_seed(seed, stream, key) if spec.stochastic else None
                result = spec.compute(prep.targets, prep.attributes, options, random_state)
            names = [t.name for t in sub.query.targets]
            details = {name_pairs(k, names): v for k, v in result.details.items()}
            test = [details.pop(k, None) for k in TEST_KEYS]
            rows.append((table.model, spec.name, sub.query_set, sub.column, result.value,
                         prep.words_found, " ".join(prep.missing), result.reason, *test, _json(details)))
            if spec.word_role and result.word_values:
                words = prep.words[spec.word_role]
                word_frames.extend(
                    pd.DataFrame({"model": table.model, "metric": spec.name, "subquery": sub.column,
                                  "word": words, "component": name_pairs(key, names), "value": values})
                    for key, values in result.word_values.items()
                )
        if on_metric_done is not None:
            on_metric_done()
    return ModelScores(
        name=table.model,
        description=source.describe(),
        fingerprint=table.fingerprint(),
        lookups=table.lookup_frame(),
        details=pd.DataFrame(rows, columns=DETAIL_COLUMNS),
        word_bias=pd.concat(word_frames, ignore_index=True) if word_frames
        else pd.DataFrame(columns=WORD_BIAS_COLUMNS),
    )


def score_matrices(details: pd.DataFrame, plan: Sequence[tuple[MetricSpec, list[Subquery]]],
                   models: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Per metric a DataFrame: index = model (in run order), columns = subquery ids."""
    out = {}
    for spec, subqueries in plan:
        part = details[details["metric"] == spec.name]
        # pivot (not pivot_table): a duplicate (model, subquery) is a bug and must raise.
        matrix = part.pivot(index="model", columns="subquery", values="value")
        matrix = matrix.reindex(index=list(models), columns=[s.column for s in subqueries])
        matrix.index.name, matrix.columns.name = "model", "subquery"
        out[spec.name] = matrix
    return out


def check_threshold(missing_threshold: float) -> float:
    if not (isinstance(missing_threshold, (int, float)) and 0 <= missing_threshold <= 1):
        raise MetricError(bad_parameter("missing_threshold", "rank", "a share in [0, 1]", missing_threshold))
    return float(missing_threshold)
