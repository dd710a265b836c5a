"""The state of one run's scoring, made once per run and passed to every model's scoring.

What scoring derives from the plan alone (each subquery's column, random seed, target
names and overlap warning) is the same for every model, and what depends on a model's
words only (each query's layout, :class:`~wefe_same.scoring.layout.QueryLayouts`) is the
same for every model with those words: a :class:`ScoringContext` holds both for the
models of one run. It is an ordinary object the caller makes (``ScoringContext(plan)``)
and hands down, so two runs in one process never share it.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from wefe_same.metrics.memo import RunMemo
from wefe_same.metrics.registry import MetricSpec
from wefe_same.query.expand import Subquery, describe_overlap
from wefe_same.query.sets import Query, QuerySet
from wefe_same.scoring.aggregate import NanPolicy
from wefe_same.scoring.layout import Layout, QueryLayouts, WordVectors
from wefe_same.scoring.vectors import VectorTable


class ScoringPlan(Protocol):
    """What scoring reads of a run's plan (:class:`~wefe_same.run.plan.RunPlan` has it all)."""

    @property
    def seed(self) -> int: ...
    @property
    def missing_threshold(self) -> float: ...
    @property
    def nan_policy(self) -> NanPolicy: ...
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
    def query_sets(self) -> Sequence[QuerySet]: ...
    @property
    def metric_options(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def specs(self) -> Sequence[MetricSpec]: ...
    @property
    def subqueries(self) -> Sequence[tuple[MetricSpec, Sequence[Subquery]]]: ...
    @property
    def column_sets(self) -> Mapping[str, Mapping[str, str]]: ...
    @property
    def weights(self) -> Mapping[str, Mapping[str, int]]: ...
    @property
    def words(self) -> frozenset[str]: ...


def stream_seed(seed: int, *keys: str) -> int:
    """A seed for one (metric, subquery): the same for every model, whatever else runs.

    Using the same random draws for every model compares models on equal terms.
    """
    entropy = [seed, *(zlib.crc32(k.encode("utf-8")) for k in keys)]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def random_state(plan: ScoringPlan, spec: MetricSpec, sub: Subquery) -> int | None:
    """The random state of a stochastic metric on one subquery (None: not stochastic)."""
    if not spec.stochastic:
        return None
    key = sub.column if spec.seed_by == "subquery" else sub.query.id.split("|")[1]
    return stream_seed(plan.seed, spec.random_stream or spec.name, key)


@dataclass(frozen=True)
class SubqueryKeys:
    """What scoring derives from one metric's subqueries alone, the same for every model."""

    columns: list[str]
    seeds: list[int | None]
    names: list[list[str]]  # the target sets' names
    overlaps: list[str | None]  # the query's overlapping sets, as the details' warning


class ScoringContext:
    """One run's scoring state: the plan, its :class:`SubqueryKeys` per metric (in the
    plan's order), the :class:`~wefe_same.scoring.layout.QueryLayouts` of the last
    model's words, and the run's :class:`~wefe_same.metrics.memo.RunMemo` (what the
    metrics compute alike for every model: permutation splits, RNSB's masks …).

    Made once per run; a worker process gets a copy without the query layouts and with an
    empty memo (pickled, it is the plan and the keys), and keeps its first copy for the
    run's later jobs (``worker_key``, one per run: ``wefe_same.run.executors``).
    """

    def __init__(self, plan: ScoringPlan):
        self.plan = plan
        overlaps: dict[Query, str | None] = {}
        for _, subs in plan.subqueries:
            for sub in subs:
                if sub.query not in overlaps:
                    overlaps[sub.query] = "; ".join(describe_overlap(sub.query)) or None
        self.keys = [SubqueryKeys([sub.column for sub in subs], [random_state(plan, spec, sub) for sub in subs],
                                  [[t.name for t in sub.query.targets] for sub in subs],
                                  [overlaps[sub.query] for sub in subs])
                     for spec, subs in plan.subqueries]
        self._layouts: QueryLayouts | None = None
        self.memo = RunMemo()
        self.worker_key = uuid.uuid4().hex

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_layouts": None}

    def query_layouts(self, table: VectorTable) -> QueryLayouts:
        """The :class:`~wefe_same.scoring.layout.QueryLayouts` of ``table``'s words: the last
        model's when it has the same words, else a new one (which then is the last)."""
        last = self._layouts
        if last is None or not (last.words is table.words or last.words == table.words):
            last = self._layouts = QueryLayouts(table.words)
        return last

    def layouts(self, word_vectors: WordVectors, index: int) -> list[Layout]:
        """The layouts of the plan's ``index``-th metric's subqueries in ``word_vectors``'s
        vocabulary, by position (made once per vocabulary)."""
        spec, subqueries = self.plan.subqueries[index]
        threshold = self.plan.missing_threshold
        key = (index, spec.aligned_targets, threshold)
        got = word_vectors.layouts.by_position.get(key)
        if got is None:
            got = word_vectors.layouts.by_position[key] = [
                word_vectors.layout(sub.query, spec.aligned_targets, threshold) for sub in subqueries]
        return got
