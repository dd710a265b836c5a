"""Chance baselines: what a metric gives on a model in which the query carries no association.

Two nulls, each a distribution of a metric's overall aggregate over seeded draws:

- ``"permutation"``: the model's own vectors, the words of each subquery's target sets
  pooled and dealt back at random to them, and those of its attribute sets likewise (set
  sizes kept), independently per subquery and draw. It keeps the model's geometry
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
other arrays (no second implementation of any metric): its cost is one scoring of the
model's subqueries per draw, which is why a run asks for it (``--chance N``). A metric
that fits a model on every call (one with a ``prefit``: RNSB's classifiers) costs a fit
per draw and subquery and is left out unless ``fitted`` is asked for.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from types import MappingProxyType
from typing import Literal

import numpy as np

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec
from wefe_same.scoring.aggregate import overall_per_row
from wefe_same.scoring.context import ScoringContext
from wefe_same.scoring.layout import WordVectors, subquery_arrays
from wefe_same.scoring.vectors import VectorTable

ChanceNull = Literal["permutation", "random"]
CHANCE_NULLS: tuple[ChanceNull, ...] = ("permutation", "random")
_NULL_CODE = MappingProxyType({"permutation": 1, "random": 2})


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


def left_out_reason(spec: MetricSpec, null: str, fitted: bool) -> str | None:
    """Why ``spec`` has no draws of ``null`` in a run (None: it has them)."""
    if fits_per_draw(spec) and not fitted:
        return f"{spec.name} fits a model per draw and subquery: asked for with --chance-fitted"
    if null == "permutation" and not getattr(spec, "chance_permutation", spec.name not in NO_PERMUTATION_NULL):
        return (f"{spec.name} averages over its attribute sets alike: dealing their words among them changes "
                "nothing, so it has no permutation null (the random one applies)")
    return None


def null_arrays(targets: Sequence[np.ndarray], attributes: Sequence[np.ndarray], null: ChanceNull,
                rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One draw of a subquery's arrays under ``null``, every set keeping its size.

    "permutation": the rows of each role's sets pooled and dealt back at random (the
    targets among the target sets, the attributes among the attribute sets; a role of
    one set is left as it is). "random": each row replaced by a random direction of its
    length.

    >>> rng = np.random.default_rng(0)
    >>> t, a = null_arrays([np.eye(3)[:1], np.eye(3)[1:2]], [np.eye(3)[2:]], "permutation", rng)
    >>> sorted(np.concatenate(t).argmax(axis=1).tolist()), a[0].tolist(), [len(x) for x in t]
    ([0, 1], [[0.0, 0.0, 1.0]], [1, 1])
    >>> t, a = null_arrays([3 * np.eye(2)], [np.eye(2)], "random", rng)
    >>> np.linalg.norm(t[0], axis=1).round(12).tolist(), np.linalg.norm(a[0], axis=1).round(12).tolist()
    ([3.0, 3.0], [1.0, 1.0])
    """
    def dealt(sets: Sequence[np.ndarray]) -> list[np.ndarray]:
        if null == "permutation" and len(sets) < 2:
            return list(sets)
        pooled = np.concatenate(sets)
        if null == "permutation":
            drawn = pooled[rng.permutation(len(pooled))]
        else:
            directions = rng.standard_normal(pooled.shape)
            directions /= np.linalg.norm(directions, axis=1, keepdims=True)
            drawn = directions * np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.split(drawn, np.cumsum([len(a) for a in sets])[:-1])

    return dealt(targets), dealt(attributes)


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
                 fitted: bool = False) -> np.ndarray:
    """Overall aggregates of one model under ``null``: shape (draws, metrics), NaN for a
    metric left out (:func:`left_out_reason`).

    Each draw scores every subquery of every metric on :func:`null_arrays` of its arrays
    (NaN: a subquery the real scores left undefined, or, for the permutation null, one with
    a single set in each role, whose words have nowhere to go); permutation tests are skipped
    (only the values are needed); a stochastic metric keeps its subquery's random state.
    """
    if null not in CHANCE_NULLS:
        raise MetricError(bad_parameter("null", "chance_draws", " or ".join(map(repr, CHANCE_NULLS)), null))
    plan = context.plan
    out = np.full((draws, len(plan.specs)), np.nan)
    word_vectors = WordVectors(table, context.query_layouts(table))
    for k, (spec, subqueries) in enumerate(plan.subqueries):
        if draws == 0 or left_out_reason(spec, null, fitted):
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
            rng = np.random.default_rng(draw_seed(plan.seed, null, spec.name, column))
            for b in range(draws):
                targets, attributes = null_arrays(arrays.targets, arrays.attributes, null, rng)
                values[b, j] = spec.compute(targets, attributes, options, seed).value
        out[:, k] = overall_per_row(values, keys.columns, spec, plan.column_sets[spec.name],
                                    plan.weights[spec.name], nan_policy=plan.nan_policy)
    return out
