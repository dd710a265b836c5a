"""A model's shared blocks (metrics/_blocks.py) give every metric the bits of its own call,
compute each shared quantity once, and remember only arrays that scoring froze."""

import numpy as np
import pytest

from wefe_same.metrics import _blocks, same
from wefe_same.metrics._blocks import SharedBlocks
from wefe_same.metrics._frozen import freeze
from wefe_same.metrics.registry import METRICS

SHARING = ["RND", "ECT", "SAME", "SAME-skew", "SAME-stereotype"]


def _unit(rng, n, d):
    x = rng.standard_normal((n, d))
    return freeze(x / np.linalg.norm(x, axis=1, keepdims=True))


@pytest.fixture(scope="module")
def sets():
    """Frozen unit vectors, as scoring hands them: three target sets, two attribute sets
    (one long enough to span several blocks of distances_to at 300 dimensions)."""
    rng = np.random.default_rng(7)
    targets = [_unit(rng, n, 300) for n in (6, 8, 5)]
    attributes = [_unit(rng, 700, 300), _unit(rng, 9, 300)]
    return targets, attributes


def _subqueries(targets, attributes):
    """Every pair of target sets against every attribute set: sets shared between subqueries."""
    return [([targets[i], targets[j]], [A]) for A in attributes for i, j in ((0, 1), (0, 2), (1, 2))]


def _same_bits(a, b):
    assert a.value == b.value or (np.isnan(a.value) and np.isnan(b.value))
    assert a.reason == b.reason
    assert repr(a.details) == repr(b.details)
    assert list(a.word_values) == list(b.word_values)
    for key in a.word_values:
        assert np.asarray(a.word_values[key]).tobytes() == np.asarray(b.word_values[key]).tobytes()


@pytest.mark.parametrize("name", SHARING)
def test_blocks_give_every_subquery_the_bits_of_its_own_call(name, sets):
    spec = METRICS[name]
    kind, options = spec.inputs({})
    assert kind == "unit"
    calls = _subqueries(*sets)
    blocks = SharedBlocks()
    if spec.declare_blocks is not None:
        spec.declare_blocks(blocks, [(t, a, options) for t, a in calls])
    for t, a in calls:
        _same_bits(spec.compute(t, a, options, blocks=blocks), spec.compute(t, a, options))
    for t, a in calls:  # asked again: the remembered values, the same bits
        _same_bits(spec.compute(t, a, options, blocks=blocks), spec.compute(t, a, options))


def test_rnd_known_value_from_blocks():
    # A = {(1, 0)}: distance 0 to T1's mean (1, 0), √2 to T2's (0, 1): Σ (d1 − d2) = −√2.
    T1, T2, A = freeze(np.array([[1.0, 0.0]])), freeze(np.array([[0.0, 1.0]])), freeze(np.array([[1.0, 0.0]]))
    got = METRICS["RND"].compute([T1, T2], [A], {"normalize": False}, blocks=SharedBlocks())
    assert got.value == -np.sqrt(2.0)
    assert got.details == {"share_closer_to_targets_1": 1.0}


def test_declared_distances_take_one_pass_over_the_attribute_set(sets, monkeypatch):
    targets, attributes = sets
    passes = []
    real = _blocks.distances_to
    monkeypatch.setattr(_blocks, "distances_to", lambda A, points: passes.append(len(points)) or real(A, points))
    blocks = SharedBlocks()
    for T in targets:
        blocks.declare_distances(attributes[0], T)
    rows = [blocks.distances(attributes[0], T) for T in targets]
    assert passes == [3]  # the three means at once
    assert [r.tobytes() for r in rows] == [real(attributes[0], T.mean(axis=0)[None])[0].tobytes() for T in targets]
    assert all(not r.flags.writeable for r in rows)
    blocks.distances(attributes[1], targets[0])  # undeclared: computed alone, when asked
    assert passes == [3, 1]


def test_the_same_family_projects_once_for_its_three_metrics(sets, monkeypatch):
    targets, attributes = sets
    calls = []
    real = same.signed_pair_bias
    monkeypatch.setattr(same, "signed_pair_bias", lambda T, groups: calls.append(1) or real(T, groups))
    blocks = SharedBlocks()
    results = [METRICS[name].compute(targets, [attributes[0]], blocks=blocks)
               for name in ("SAME", "SAME-skew", "SAME-stereotype")]
    assert len(calls) == 1
    signed = results[1].word_values["signed_0_1"]
    assert not signed.flags.writeable
    with pytest.raises(ValueError):
        signed[0] = 1.0  # shared by three metrics: nobody may write into it
    assert results[2].details["pair_0_1"] == float(np.std(signed))


def test_arrays_not_frozen_are_computed_on_every_call():
    rng = np.random.default_rng(2)
    T1, T2, A = (rng.standard_normal((n, 4)) for n in (3, 3, 5))
    blocks = SharedBlocks()
    first = METRICS["ECT"].compute([T1, T2], [A], blocks=blocks)
    A[:] = A[::-1] * 2  # the caller may change its own arrays: nothing stale is read
    second = METRICS["ECT"].compute([T1, T2], [A], blocks=blocks)
    _same_bits(second, METRICS["ECT"].compute([T1, T2], [A]))
    assert first.value == METRICS["ECT"].compute([T1, T2], [A[::-1] / 2]).value
    assert blocks._values == {}
