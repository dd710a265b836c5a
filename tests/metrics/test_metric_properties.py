"""Properties checked over the whole metric registry (one parametrized test per property)."""

import math

import numpy as np
import pytest

from wefe_same import METRICS, AtLeast, MetricError
from wefe_same.metrics.registry import check_options, get_metric, resolve_metrics
from wefe_same.validation import InvalidParameterError

#: Swapping the two target sets negates the score.
SIGN_FLIP_ON_TARGET_SWAP = {"WEAT", "WEAT-ES", "RND", "gWEAT", "RIPA", "SAME-skew"}
#: Swapping target sets leaves the score unchanged.
SYMMETRIC_IN_TARGETS = {"RNSB", "SAME", "DirectBias", "ECT", "SAME-stereotype"}
#: Take a single target set.
SINGLE_TARGET = {"MAC"}
#: Values lie in [0, 1].
UNIT_INTERVAL = {"SAME", "DirectBias", "SAME-stereotype"}


def test_every_metric_is_in_a_target_swap_group():
    groups = SIGN_FLIP_ON_TARGET_SWAP | SYMMETRIC_IN_TARGETS | SINGLE_TARGET
    assert set(METRICS) == groups
    assert not (SIGN_FLIP_ON_TARGET_SWAP & SYMMETRIC_IN_TARGETS)


def n_sets(arity, default):
    return max(arity.k, default) if isinstance(arity, AtLeast) else arity


def random_sets(spec, rng, dim=12, size=6):
    """Random word vectors in the shape of the metric's template."""
    def block():
        M = rng.normal(size=(size, dim))
        return M / np.linalg.norm(M, axis=1, keepdims=True) if spec.vectors == "unit" else M

    targets = [block() for _ in range(n_sets(spec.template.targets, 2))]
    attributes = [block() for _ in range(n_sets(spec.template.attributes, 2))]
    return targets, attributes


@pytest.mark.parametrize("name", list(METRICS))
def test_no_metric_depends_on_word_order(name):
    spec = METRICS[name]
    rng = np.random.default_rng(1)
    targets, attributes = random_sets(spec, rng)
    before = spec.compute(targets, attributes, random_state=7).value
    perm = rng.permutation(len(targets[0]))
    # Aligned tuples move together; other sets are shuffled independently.
    shuffled_t = [T[perm] if spec.aligned_targets else T[rng.permutation(len(T))] for T in targets]
    shuffled_a = [A[rng.permutation(len(A))] for A in attributes]
    after = spec.compute(shuffled_t, shuffled_a, random_state=7).value
    assert not math.isnan(before)
    assert after == pytest.approx(before, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("name", sorted(SIGN_FLIP_ON_TARGET_SWAP | SYMMETRIC_IN_TARGETS))
def test_swapping_target_sets(name):
    spec = METRICS[name]
    targets, attributes = random_sets(spec, np.random.default_rng(2))
    value = spec.compute(targets, attributes, random_state=3).value
    swapped = spec.compute(targets[::-1], attributes, random_state=3).value
    expected = -value if name in SIGN_FLIP_ON_TARGET_SWAP else value
    assert value != 0
    assert swapped == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("name", sorted(UNIT_INTERVAL))
@pytest.mark.parametrize("n_groups", [2, 3, 5])
def test_bounded_in_unit_interval(name, n_groups):
    spec = METRICS[name]
    rng = np.random.default_rng(n_groups)
    for _ in range(20):
        targets = [rng.normal(size=(4, 6)) for _ in range(n_groups)]
        targets = [T / np.linalg.norm(T, axis=1, keepdims=True) for T in targets]
        words = rng.normal(size=(10, 6))
        words /= np.linalg.norm(words, axis=1, keepdims=True)
        value = spec.compute(targets, [words]).value
        assert 0 <= value <= 1 + 1e-12


def test_a_word_aligned_with_the_bias_direction_scores_one():
    # SAME and Direct Bias reach their maximum 1 on the bias direction itself.
    e = np.eye(3)
    for name in ("SAME", "DirectBias", "SAME-skew"):
        value = METRICS[name].compute([e[:1], -e[:1]], [e[:1]]).value
        assert value == pytest.approx(1.0), name


def test_stochastic_metric_same_seed_same_bytes_other_seed_differs():
    spec = get_metric("RNSB")
    targets, attributes = random_sets(spec, np.random.default_rng(4), size=20)
    a = spec.compute(targets, attributes, {"n_iterations": 3}, random_state=11)
    b = spec.compute(targets, attributes, {"n_iterations": 3}, random_state=11)
    c = spec.compute(targets, attributes, {"n_iterations": 3}, random_state=12)
    assert a.value == b.value and a.details["kl_std"] == b.details["kl_std"]
    assert a.value != c.value


def test_stochastic_metrics_take_random_state():
    # RNSB's classifier subsamples; WEAT's and WEAT-ES's permutation test samples splits.
    assert {n for n, s in METRICS.items() if s.stochastic} == {"RNSB", "WEAT", "WEAT-ES"}
    assert METRICS["WEAT-ES"].random_stream == "WEAT"  # same splits, same p-values


def test_unknown_metric_and_option_messages():
    with pytest.raises(MetricError, match="unknown metric 'WAET'; valid metrics are: .*WEAT"):
        resolve_metrics(["WAET"])
    with pytest.raises(MetricError, match="metric 'WEAT-ES' has no option 'dof'; its options: ddof"):
        check_options(resolve_metrics(None), {"WEAT-ES": {"dof": 0}})
    with pytest.raises(MetricError, match="names metric 'RND', which is not selected"):
        check_options(resolve_metrics(["WEAT"]), {"RND": {"normalize": False}})


def test_option_values_are_validated_with_one_message_shape():
    # A direct call names the function; check_options (tests/metrics/test_metric_options.py) the metric.
    spec = get_metric("WEAT-ES")
    targets, attributes = random_sets(spec, np.random.default_rng(5))
    with pytest.raises(InvalidParameterError,
                       match=r"The 'ddof' parameter of weat_effect_size must be one of 0, 1. Got 2 instead."):
        spec.compute(targets, attributes, {"ddof": 2})


@pytest.mark.parametrize("name", list(METRICS))
def test_declared_detail_columns_match_the_results(name):
    # promoted_details: keys every result carries (the permutation test's, for WEAT and
    # WEAT-ES); pair_keyed: details/word_values keyed "signed_i_j"/"pair_i_j" by target-set pairs.
    import re

    spec = METRICS[name]
    targets, attributes = random_sets(spec, np.random.default_rng(6))
    options = {"permutations": 50} if "permutations" in spec.options else {}
    result = spec.compute(targets, attributes, options, random_state=1)
    assert set(spec.promoted_details) <= set(result.details)
    keys = [*result.details, *result.word_values]
    paired = [k for k in keys if re.fullmatch(r"(signed|pair)_\d+_\d+", k)]
    assert bool(paired) == spec.pair_keyed
    assert {n for n, s in METRICS.items() if s.promoted_details} == {"WEAT", "WEAT-ES"}
    assert {n for n, s in METRICS.items() if s.pair_keyed} == {"SAME", "SAME-skew", "SAME-stereotype"}
