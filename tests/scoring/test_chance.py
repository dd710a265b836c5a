"""The chance baselines (wefe_same.scoring.chance) against brute force: a band made from the
tool's draws holds the score of a model whose vectors were shuffled across the sets of each
role (or replaced by random directions of the same lengths) in 95 ± 2 % of seeded trials,
and its quantiles equal those trials' within Monte Carlo error.

The trials shuffle the model itself (the rows of a new table, scored by the ordinary
scoring code), not the arrays the tool deals: the two paths share only the metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wefe_same import Query, WordSet
from wefe_same.metrics.memo import ModelMemo
from wefe_same.metrics.registry import METRICS
from wefe_same.models import ArraySource
from wefe_same.options.groups import Bootstrap
from wefe_same.query.sets import AtLeast
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import make_plan
from wefe_same.scoring.aggregate import overall_per_row
from wefe_same.scoring.chance import CHANCE_NULLS, deal_role, dealt, left_out_reason, permuted_values
from wefe_same.scoring.model import compute_all, score_table
from wefe_same.scoring.vectors import build_table

DIM, SIZE = 12, 8
#: Band draws and brute-force trials: with 3,000 of each the coverage's Monte Carlo
#: standard error is about 0.55 %, so 95 ± 2 % is 3.6 of them.
DRAWS = TRIALS = 3000
#: Target sets of 8 words, attribute sets of 20: ECT, a rank correlation over the attribute
#: words, has a distribution with atoms (1.0 among them) over 8 words, which a band cannot
#: cut at 95 % (it held 98.5 %); over 20 its atoms are small.
NAMES = {role: [f"{role}{i}" for i in range(SIZE if role in "xy" else 20)] for role in ("x", "y", "a", "b")}
WORDS = [w for ws in NAMES.values() for w in ws]
#: (metric, null) of every null a metric has in a run without --chance-fitted.
DRAWN = [(name, null) for null in CHANCE_NULLS for name, spec in METRICS.items()
         if left_out_reason(spec, null, fitted=False) is None]


def model_matrix(seed: int = 0) -> np.ndarray:
    """Anisotropic vectors (a shared offset, unequal scales) with an association: x near a, y near b."""
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(len(WORDS), DIM)) * np.linspace(0.5, 2.0, DIM) + 1.5
    direction = rng.normal(size=DIM)
    for role, sign in (("x", 1), ("a", 1), ("y", -1), ("b", -1)):
        rows = [WORDS.index(w) for w in NAMES[role]]
        matrix[rows] += sign * 0.8 * direction
    return matrix


def query_for(name: str) -> Query:
    """One subquery of the metric's template: two target sets (one for MAC), two attribute
    sets where the template takes them, else one."""
    template = METRICS[name].template
    aligned = METRICS[name].aligned_targets
    x, y, a, b = (WordSet(role, NAMES[role], aligned=aligned and role in "xy") for role in NAMES)
    def takes_two(arity, other: int) -> bool:  # a fixed 2, AtLeast(2), or AtLeast(1) beside one set
        return arity == 2 or (isinstance(arity, AtLeast) and (arity.k >= 2 or other == 1))

    targets = [x, y] if takes_two(template.targets, 2) else [x]
    return Query(targets, [a, b] if takes_two(template.attributes, len(targets)) else [a], name="q")


def plan_for(name: str, draws: int, null: str):
    config = RankConfig(queries=query_for(name), metrics=[name], permutations=0, seed=7,
                        bootstrap=Bootstrap(chance=draws, chance_nulls=(null,), chance_every=True))
    return make_plan(config)


def shuffled(matrix: np.ndarray, null: str, rng: np.random.Generator, roles: list[list[str]]) -> np.ndarray:
    """The model with each role's words' vectors shuffled among themselves, or every vector a
    random direction of its length."""
    out = matrix.copy()
    if null == "random":
        directions = rng.normal(size=matrix.shape)
        return directions / np.linalg.norm(directions, axis=1, keepdims=True) * np.linalg.norm(
            matrix, axis=1, keepdims=True)
    for words in roles:
        rows = np.array([WORDS.index(w) for w in words])
        out[rows] = matrix[rng.permutation(rows)]
    return out


def brute_force(name: str, null: str, trials: int) -> np.ndarray:
    """The metric's overall aggregate on ``trials`` shuffled models, by the ordinary scoring path."""
    plan = plan_for(name, 0, null)
    spec, subqueries = plan.subqueries[0]
    query = subqueries[0].query
    roles = [[w for s in sets for w in s.words] for sets in (query.targets, query.attributes) if len(sets) > 1]
    matrix, rng = model_matrix(), np.random.default_rng(12345)
    out = np.empty(trials)
    for t in range(trials):
        table = build_table(ArraySource("trial", WORDS, shuffled(matrix, null, rng, roles)), WORDS)
        (_, result), = compute_all(table, plan, spec, subqueries, plan.metric_options.get(name, {}))
        out[t] = overall_per_row(np.array([[result.value]]), [subqueries[0].column], spec,
                                 plan.column_sets[name], plan.weights[name])[0]
    return out


@pytest.mark.parametrize(("name", "null"), DRAWN)
def test_the_band_holds_95_percent_of_shuffled_models_and_its_quantiles_are_brute_forces(name, null):
    plan = plan_for(name, DRAWS, null)
    table = build_table(ArraySource("model", WORDS, model_matrix()), WORDS)
    draws = score_table(table, plan).draws[f"chance_{null}"][:, 0]
    assert np.isfinite(draws).all() and np.ptp(draws) > 0
    trials = brute_force(name, null, TRIALS)
    low, high = np.quantile(draws, [0.025, 0.975])
    coverage = np.mean((trials >= low) & (trials <= high))
    assert 0.93 <= coverage <= 0.97, (coverage, low, high)
    for p in (0.025, 0.5, 0.975):  # the share of trials below each of the band's quantiles is p
        below = np.mean(trials < np.quantile(draws, p))
        assert abs(below - p) <= 4 * math.sqrt(p * (1 - p) * (1 / DRAWS + 1 / TRIALS)), (p, below)


def test_the_metrics_left_out_say_why_and_macs_reason_holds():
    assert sorted(n for n in METRICS if left_out_reason(METRICS[n], "random", fitted=False)) == ["RNSB"]
    assert sorted(n for n in METRICS if left_out_reason(METRICS[n], "permutation", fitted=False)) == ["MAC", "RNSB"]
    assert left_out_reason(METRICS["RNSB"], "permutation", fitted=True) is None
    assert "--chance-fitted" in left_out_reason(METRICS["RNSB"], "random", fitted=False)
    # MAC's reason: its attribute words dealt among its attribute sets leave it where it was.
    real = brute_force("MAC", "permutation", 1)  # a shuffled model: the attribute role shuffled
    plan = plan_for("MAC", 0, "permutation")
    table = build_table(ArraySource("model", WORDS, model_matrix()), WORDS)
    assert real[0] == pytest.approx(plan_value(plan, table), rel=1e-12)


def plan_value(plan, table) -> float:
    spec, subqueries = plan.subqueries[0]
    (_, result), = compute_all(table, plan, spec, subqueries, {})
    return overall_per_row(np.array([[result.value]]), [subqueries[0].column], spec,
                           plan.column_sets[spec.name], plan.weights[spec.name])[0]


#: Metrics with a one-pass permutation null (MetricSpec.permuted_draws).
ONE_PASS = [name for name, spec in METRICS.items() if spec.permuted_draws is not None]


def test_the_one_pass_metrics_are_the_documented_ones():
    assert ONE_PASS == ["WEAT", "WEAT-ES", "SAME", "SAME-skew", "SAME-stereotype"]
    assert all(left_out_reason(METRICS[n], "permutation", fitted=False, every=False) is None for n in ONE_PASS)
    assert "--chance-every" in left_out_reason(METRICS["RND"], "permutation", fitted=False, every=False)
    assert "--chance-every" in left_out_reason(METRICS["WEAT"], "random", fitted=False, every=False)


def unit_rows(rng: np.random.Generator, n: int, d: int = 7) -> np.ndarray:
    rows = rng.normal(size=(n, d)) + 0.5  # off-centre, like a real model's words
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# Both routes of WEAT's associations and of SAME-stereotype's spread: 3 dimensions (fewer than
# a chunk's 250 draws; (W P_A) P_Tᵀ is cheaper) and 300 (more; P_A P_Tᵀ is cheaper)
@pytest.mark.parametrize(("name", "groups", "dims"), [(n, k, d) for n in ONE_PASS for k in (2, 3) for d in (3, 300)
                                                       if k == 2 or METRICS[n].template.targets != 2])
def test_a_one_pass_null_equals_the_ordinary_metric_on_the_same_deals(name, groups, dims):
    spec, rng = METRICS[name], np.random.default_rng(groups)
    targets = [unit_rows(rng, n, dims) for n in (4, 5, 6)[:groups]]
    attributes = ([unit_rows(rng, 9, dims)] if spec.template.attributes == 1
                  else [unit_rows(rng, 8, dims), unit_rows(rng, 6, dims)])
    # a set twice over: SAME's pairs of the same two sets' words have coinciding means in some deals
    twice = groups == 2 and name.startswith("SAME")
    targets[1] = targets[0][rng.permutation(4)] if twice else targets[1]
    deals = [deal_role([len(s) for s in sets], 700, rng, orders=True) for sets in (targets, attributes)]
    _, options = spec.inputs({})
    options = {**options, "permutations": 0} if "permutations" in options else options
    shared = ModelMemo()  # as a run's draws share it: the second call reads what the first remembered

    def memo(start: int):
        return shared.bind([*targets, *attributes], [(k, start) for k in range(len(targets) + len(attributes))])

    slow = np.array([spec.compute(dealt(targets, None if deals[0] is None else deals[0].orders[b]),
                                  dealt(attributes, None if deals[1] is None else deals[1].orders[b]), options,
                                  0).value for b in range(700)])
    assert np.isfinite(slow).any() and np.isnan(slow).any() == twice
    for with_memo in (None, memo, memo):  # from the labels, in chunks of 250 draws
        fast = permuted_values(spec, targets, attributes, deals, options, 0, with_memo)
        assert fast.shape == (700,)
        np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)
