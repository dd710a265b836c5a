"""Chance baselines: what a metric gives on a model in which the query carries no association.

Two nulls, each a distribution of a metric's overall aggregate over seeded draws:

- ``"permutation"``: the model's own vectors, the words of each subquery's target sets
  pooled and dealt back at random to them, and those of its attribute sets likewise (set
  sizes kept), independently per draw; a role's sets are dealt alike in every subquery,
  metric and model that has them, so that a draw is one shuffled model. It keeps the model's geometry
  (anisotropy, norms, the spread of its cosines) and removes any reason why one group's
  words should sit nearer one attribute than another: the permutation null of the whole
  query, where WEAT's test permutes the targets only (Caliskan et al. 2017). Words never
  change role: the words that define a direction (he/she) are never scored as neutral
  words, which would give Direct Bias and SAME more than any real model. MAC has no
  permutation null (:data:`NO_PERMUTATION_NULL`).
- ``"random"``: every vector replaced by an isotropic random direction (standard normal,
  scaled to the length of the vector it replaces): what the metric gives at the model's
  dimension and the query's set sizes when there is no structure at all.

Both work on the arrays each metric receives, after the out-of-vocabulary policy, so a
draw scores exactly the words the real score did. A draw is the ordinary metric code on
other arrays, one scoring of the model's subqueries per draw, except where a metric
declares its permutation null in one pass (``MetricSpec.permuted_draws``: WEAT and
WEAT-ES from one cosine matrix of the pooled words, SAME and its skew and stereotype from
the group means of every draw at once), which tests hold equal to the ordinary code on the
same deals. Those draws are cheap: ``--chance N`` draws them (the permutation null
only); every other metric and the random null are asked for (``--chance-every``). A
metric that fits a model on every call (one with a ``prefit``: RNSB's classifiers) costs a
fit per draw and subquery and is left out unless ``fitted`` is asked for.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.memo import Memo, ModelMemo
from wefe_same.metrics.registry import MetricSpec
from wefe_same.query.sets import Query
from wefe_same.scoring.aggregate import overall_per_row
from wefe_same.scoring.context import ScoringContext
from wefe_same.scoring.layout import SubqueryArrays, WordVectors, subquery_arrays
from wefe_same.scoring.vectors import VectorTable

ChanceNull = Literal["permutation", "random"]
CHANCE_NULLS: tuple[ChanceNull, ...] = ("permutation", "random")
_NULL_CODE = MappingProxyType({"permutation": 1, "random": 2})
#: Draws dealt in one pass: a pass holds a (draws × pooled words) matrix per role.
_CHUNK = 250


def fits_per_draw(spec: MetricSpec) -> bool:
    """Whether a draw of ``spec`` fits a model (it has a ``prefit``: RNSB), so that its
    chance baseline costs a fit per draw and subquery and is asked for apart."""
    return spec.prefit is not None


#: Metrics that no permutation of words within their roles moves (a spec's own
#: ``chance_permutation = False`` attribute says the same): MAC averages its one target set's
#: distances over every attribute set alike. Dealing the targets in with the attribute words
#: instead would compare the query with one of a single kind of words, which any real query
#: (names against occupations) passes as "less biased than chance": they get the random null only.
NO_PERMUTATION_NULL: frozenset[str] = frozenset({"MAC"})


def one_pass(spec: MetricSpec, null: str) -> bool:
    """Whether the draws of ``null`` cost ``spec`` one pass rather than one call per draw.

    Only a built-in's one-pass form is used: a plugin's code runs inside the guard of
    ``MetricSpec.compute``, one call per draw."""
    builtin = spec.origin is None or spec.origin.builtin
    return null == "permutation" and spec.permuted_draws is not None and builtin


def left_out_reason(spec: MetricSpec, null: str, fitted: bool, every: bool = True) -> str | None:
    """Why ``spec`` has no draws of ``null`` in a run (None: it has them); ``every``: the run
    asked for every metric and null (``--chance-every``), not only the one-pass ones."""
    if not every and not one_pass(spec, null):
        return f"{spec.name} costs one scoring per draw of {null}: asked for with --chance-every"
    if fits_per_draw(spec) and not fitted:
        return f"{spec.name} fits a model per draw and subquery: asked for with --chance-fitted"
    if null == "permutation" and not getattr(spec, "chance_permutation", spec.name not in NO_PERMUTATION_NULL):
        return (f"{spec.name} averages over its attribute sets alike: dealing their words among them changes "
                "nothing, so it has no permutation null (the random one applies)")
    return None


@dataclass(frozen=True)
class Deals:
    """One role's deals in every draw of the permutation null: ``labels[d, r]``, the set
    that pooled row ``r`` goes to in draw ``d`` (sizes kept), and, for the ordinary metric
    code, ``orders[d]``: ``pooled[orders[d]]`` dealt back to the sets in their sizes."""

    labels: np.ndarray
    orders: np.ndarray | None


def deal_role(sizes: Sequence[int], draws: int, rng: np.random.Generator, *, orders: bool) -> Deals | None:
    """Every draw's deal of one role's pooled rows (None: a role of one set, left as it is)."""
    if len(sizes) < 2:
        return None
    n = sum(sizes)
    order = rng.permuted(np.broadcast_to(np.arange(n, dtype=np.int32), (draws, n)), axis=1)
    labels = np.empty(order.shape, dtype=np.int8 if len(sizes) <= 127 else np.int32)
    base = np.repeat(np.arange(len(sizes), dtype=labels.dtype), sizes)
    np.put_along_axis(labels, order, np.broadcast_to(base, order.shape), axis=1)  # pooled[order[i]] goes to base[i]
    return Deals(labels, order if orders else None)


def role_deals(context: ScoringContext, role: str, names: Sequence[str], sizes: Sequence[int], draws: int, *,
               orders: bool) -> Deals | None:
    """The deals of the role of a subquery whose sets are ``names`` (of ``sizes`` words):
    the same in every subquery, metric and model of the run that has that role, so that a
    draw is one shuffled model (a set that several subqueries share is dealt alike in each),
    and made once per run (the run's memo)."""
    key = (context.plan.seed, role, tuple(names), tuple(sizes), draws, orders)
    def deal() -> Deals | None:
        entropy = [context.plan.seed, _NULL_CODE["permutation"], *(zlib.crc32(x.encode()) for x in (role, *names))]
        return deal_role(sizes, draws, np.random.default_rng(np.random.SeedSequence(entropy)), orders=orders)
    return context.memo.remember("chance deals", key, deal) if len(sizes) > 1 else None


def dealt(sets: Sequence[np.ndarray], order: np.ndarray | None) -> list[np.ndarray]:
    """``sets`` pooled, reordered by ``order`` and dealt back in their sizes."""
    if order is None:
        return list(sets)
    return np.split(np.concatenate(sets)[order], np.cumsum([len(a) for a in sets])[:-1])


def random_arrays(targets: Sequence[np.ndarray], attributes: Sequence[np.ndarray],
                  rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One draw of the random null: each row of a subquery's arrays replaced by a random
    direction of its length, every set keeping its size.

    >>> t, a = random_arrays([3 * np.eye(2)], [np.eye(2)], np.random.default_rng(0))
    >>> np.linalg.norm(t[0], axis=1).round(12).tolist(), np.linalg.norm(a[0], axis=1).round(12).tolist()
    ([3.0, 3.0], [1.0, 1.0])
    """
    def drawn(sets: Sequence[np.ndarray]) -> list[np.ndarray]:
        pooled = np.concatenate(sets)
        directions = rng.standard_normal(pooled.shape)
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        scaled = directions * np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.split(scaled, np.cumsum([len(a) for a in sets])[:-1])

    return drawn(targets), drawn(attributes)


def chance_cost(draws: int, nulls: Sequence[str], fitted: bool) -> str:
    """What the chance baselines will cost, in words, for a run to say before the work.

    >>> print(chance_cost(200, ["permutation"], True))
    Chance baselines: 200 draws of permutation, one scoring of each model per draw (about 200x its time)
    """
    return (f"Chance baselines: {draws} draws of {' and '.join(nulls)}, one scoring of each model per draw "
            f"(about {draws * len(nulls)}x its time)"
            + ("" if fitted else "; RNSB, a fit per draw and subquery, left out (--chance-fitted)"))


def draw_seed(seed: int, null: ChanceNull, metric: str, column: str) -> np.random.SeedSequence:
    """The seed of one (null, metric, subquery)'s draws: the same for every model and
    process, whatever else the run holds."""
    return np.random.SeedSequence([seed, _NULL_CODE[null], zlib.crc32(metric.encode()), zlib.crc32(column.encode())])


def chance_draws(table: VectorTable, context: ScoringContext, draws: int, null: str, *,
                 fitted: bool = False, every: bool = True) -> np.ndarray:
    """Overall aggregates of one model under ``null``: shape (draws, metrics), NaN for a
    metric left out (:func:`left_out_reason`; ``every=False``: only the one-pass ones).

    Each draw scores every subquery of every metric on its arrays dealt by
    :func:`role_deals` (or :func:`random_arrays`), in one pass where the metric
    has one (NaN: a subquery the real scores left undefined, or, for the permutation null,
    one with a single set in each role, whose words have nowhere to go); permutation
    tests are skipped (only the values are needed); a stochastic metric keeps its
    subquery's random state.
    """
    if null not in CHANCE_NULLS:
        raise MetricError(bad_parameter("null", "chance_draws", " or ".join(map(repr, CHANCE_NULLS)), null))
    plan = context.plan
    out = np.full((draws, len(plan.specs)), np.nan)
    word_vectors = WordVectors(table, context.query_layouts(table))
    model_memo = ModelMemo(context.memo)  # what the one-pass draws share (of these draws only)
    for k, (spec, subqueries) in enumerate(plan.subqueries):
        if draws == 0 or left_out_reason(spec, null, fitted, every):
            continue
        kind, options = spec.inputs(plan.metric_options.get(spec.name, {}))
        if "permutations" in options:
            options = {**options, "permutations": 0}
        keys = context.keys[k]
        values = np.full((draws, len(subqueries)), np.nan)
        for j, (sub, column, seed) in enumerate(zip(subqueries, keys.columns, keys.seeds)):
            arrays = subquery_arrays(table, sub.query, spec, plan.missing_threshold, word_vectors=word_vectors,
                                     vectors=kind)
            if arrays.reason or (null == "permutation" and max(len(arrays.targets), len(arrays.attributes)) < 2):
                continue  # unscored, or no role of two sets to permute: no draw
            if null == "random":
                rng = np.random.default_rng(draw_seed(plan.seed, null, spec.name, column))
                values[:, j] = [spec.compute(*random_arrays(arrays.targets, arrays.attributes, rng), options,
                                             seed).value for _ in range(draws)]
            else:
                deals = [role_deals(context, role, [x.name for x in named], [len(x) for x in sets], draws,
                                    orders=not one_pass(spec, null))
                         for role, named, sets in (("targets", sub.query.targets, arrays.targets),
                                                   ("attributes", sub.query.attributes, arrays.attributes))]
                values[:, j] = permuted_values(spec, arrays.targets, arrays.attributes, deals, options, seed,
                                               partial(draw_memo, model_memo, arrays, sub.query))
        out[:, k] = overall_per_row(values, keys.columns, spec, plan.column_sets[spec.name],
                                    plan.weights[spec.name], nan_policy=plan.nan_policy)
    return out


def draw_memo(model: ModelMemo, arrays: SubqueryArrays, query: Query, start: int) -> Memo:
    """The memo of one subquery's draws ``start`` … ``start + _CHUNK``: an array's key is its
    role, its set's name, its number and ``start``, which fix that role's deals
    (:func:`role_deals`), so what a one-pass null remembers of it (WEAT's weighted
    attributes, SAME's group means) serves every subquery and metric dealt alike."""
    keys = [(role, named.name, key, start)
            for role, sets in (("targets", query.targets), ("attributes", query.attributes))
            for named, key in zip(sets, arrays.array_keys.get(role, ()))]
    return model.bind([*arrays.targets, *arrays.attributes], keys)


def permuted_values(spec: MetricSpec, targets: list[np.ndarray], attributes: list[np.ndarray],
                    deals: Sequence[Deals | None], options: Mapping[str, Any], seed: int | None,
                    memo: Callable[[int], Memo] | None = None) -> np.ndarray:
    """``spec``'s value in each draw of ``deals`` (the targets', the attributes'): in one
    pass where it has one (``memo(start)``: the memo of the draws from ``start`` on, see
    :func:`draw_memo`), else one ordinary call per draw."""
    draws = next(len(d.labels) for d in deals if d is not None)
    if one_pass(spec, "permutation"):
        return np.concatenate([spec.permuted_draws(  # type: ignore[misc]
            targets, attributes, *(None if d is None else d.labels[i:i + _CHUNK] for d in deals),
            memo=None if memo is None else memo(i), **options)
            for i in range(0, draws, _CHUNK)])
    def deal(sets: list[np.ndarray], d: Deals | None, b: int) -> list[np.ndarray]:
        return dealt(sets, None if d is None or d.orders is None else d.orders[b])

    return np.array([spec.compute(deal(targets, deals[0], b), deal(attributes, deals[1], b), options, seed).value
                     for b in range(draws)])
