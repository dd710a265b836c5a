"""The memo scoring passes in (metrics/memo.py) gives every metric the bits of its own call,
computes each shared quantity once, and remembers only the call's numbered arrays."""

import numpy as np
import pytest

from wefe_same.metrics import memo as memo_module
from wefe_same.metrics import same
from wefe_same.metrics.memo import ModelMemo, RunMemo
from wefe_same.metrics.registry import METRICS

SHARING = ["RND", "ECT", "SAME", "SAME-skew", "SAME-stereotype"]


def _unit(rng, n, d):
    x = rng.standard_normal((n, d))
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    x.flags.writeable = False  # as scoring hands them
    return x


@pytest.fixture(scope="module")
def sets():
    """Read-only unit vectors, numbered as scoring numbers them: four target sets (two of
    equal length, for the aligned metrics), three attribute sets (one long enough to span
    several blocks of distances_to at 300 dimensions)."""
    rng = np.random.default_rng(7)
    targets = [_unit(rng, n, 300) for n in (6, 8, 5, 6)]
    attributes = [_unit(rng, 700, 300), _unit(rng, 9, 300), _unit(rng, 12, 300)]
    keys = {id(a): k for k, a in enumerate([*targets, *attributes])}
    return targets, attributes, keys


def _calls(spec, targets, attributes):
    """Subqueries of ``spec``'s template sharing sets with each other."""
    n_t, n_a = (arity if isinstance(arity, int) else max(arity.k, 2)
                for arity in (spec.template.targets, spec.template.attributes))
    if spec.aligned_targets:  # sets of one length
        t_choices = [[targets[0], targets[3]], [targets[3], targets[0]]]
    else:
        t_choices = [[targets[i], targets[j], targets[k]][:n_t] for i, j, k in ((0, 1, 2), (0, 2, 1), (1, 2, 0))]
    a_choices = [attributes[i:i + n_a] for i in range(len(attributes) - n_a + 1)]
    return [(t, a) for a in a_choices for t in t_choices]


def _same_bits(a, b):
    assert a.value == b.value or (np.isnan(a.value) and np.isnan(b.value))
    assert a.reason == b.reason
    assert repr(a.details) == repr(b.details)
    assert list(a.word_values) == list(b.word_values)
    for key in a.word_values:
        assert np.asarray(a.word_values[key]).tobytes() == np.asarray(b.word_values[key]).tobytes()


@pytest.mark.parametrize("name", sorted(METRICS))
def test_the_memo_gives_every_subquery_the_bits_of_its_own_call(name, sets):
    targets, attributes, keys = sets
    spec = METRICS[name]
    kind, options = spec.inputs({"permutations": 200} if "permutations" in spec.options else {})
    model = ModelMemo()
    calls = [(model.bind([*t, *a], [keys[id(x)] for x in (*t, *a)]), t, a) for t, a in _calls(spec, targets, attributes)]
    if spec.declare_memo is not None:
        spec.declare_memo([(m, t, a, options) for m, t, a in calls])
    if spec.prefit is not None:
        spec.prefit([(m, t, a, options, 11) for m, t, a in calls])
    for _ in range(2):  # asked again: the remembered values, the same bits
        for m, t, a in calls:
            _same_bits(spec.compute(t, a, options, 11, m), spec.compute(t, a, options, 11))
    if spec.takes_memo or spec.memo_call is not None:  # the memo path was taken
        assert model._values or model.run.sizes()


def test_rnd_known_value_from_the_memo():
    # A = {(1, 0)}: distance 0 to T1's mean (1, 0), √2 to T2's (0, 1): Σ (d1 − d2) = −√2.
    T1, T2, A = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])
    got = METRICS["RND"].compute([T1, T2], [A], {"normalize": False}, memo=ModelMemo().bind([T1, T2, A], [0, 1, 2]))
    assert got.value == -np.sqrt(2.0)
    assert got.details == {"share_closer_to_targets_1": 1.0}


def test_declared_distances_take_one_pass_over_the_attribute_set(sets, monkeypatch):
    targets, attributes, keys = sets
    passes = []
    real = memo_module.distances_to
    monkeypatch.setattr(memo_module, "distances_to", lambda A, points: passes.append(len(points)) or real(A, points))
    model = ModelMemo()
    arrays = [*targets[:3], *attributes[:2]]
    memo = model.bind(arrays, [keys[id(x)] for x in arrays])
    for T in targets[:3]:
        memo.declare_distances(attributes[0], T)
    rows = [memo.distances(attributes[0], T) for T in targets[:3]]
    assert passes == [3]  # the three means at once
    assert [r.tobytes() for r in rows] == [real(attributes[0], T.mean(axis=0)[None])[0].tobytes() for T in targets[:3]]
    assert all(not r.flags.writeable for r in rows)
    memo.distances(attributes[1], targets[0])  # undeclared: computed alone, when asked
    assert passes == [3, 1]


def test_the_same_family_projects_once_for_its_three_metrics(sets, monkeypatch):
    targets, attributes, keys = sets
    calls = []
    real = same.signed_pair_bias
    monkeypatch.setattr(same, "signed_pair_bias", lambda T, groups, memo=None: calls.append(1) or real(T, groups, memo))
    arrays = [*targets[:3], attributes[0]]
    memo = ModelMemo().bind(arrays, [keys[id(x)] for x in arrays])
    results = [METRICS[name].compute(targets[:3], [attributes[0]], memo=memo)
               for name in ("SAME", "SAME-skew", "SAME-stereotype")]
    assert len(calls) == 1
    signed = results[1].word_values["signed_0_1"]
    assert not signed.flags.writeable
    with pytest.raises(ValueError):
        signed[0] = 1.0  # shared by three metrics: nobody may write into it
    assert results[2].details["pair_0_1"] == float(np.std(signed))


def test_arrays_without_a_number_are_computed_on_every_call():
    rng = np.random.default_rng(2)
    T1, T2, A = (rng.standard_normal((n, 4)) for n in (3, 3, 5))
    model = ModelMemo()
    memo = model.bind([T1, T2, A], [None, None, None])
    first = METRICS["ECT"].compute([T1, T2], [A], memo=memo)
    A[:] = A[::-1] * 2  # the caller may change its own arrays: nothing stale is read
    second = METRICS["ECT"].compute([T1, T2], [A], memo=memo)
    _same_bits(second, METRICS["ECT"].compute([T1, T2], [A]))
    assert first.value == METRICS["ECT"].compute([T1, T2], [A[::-1] / 2]).value
    assert model._values == {}


def test_a_run_memo_keeps_its_bounds_and_arrives_empty_in_another_process():
    import pickle

    memo = RunMemo()
    for k in range(300):
        memo.put("permutation tests", k, k)
    assert memo.sizes() == {"permutation tests": memo_module.BOUNDS["permutation tests"].items}
    assert memo.get("permutation tests", 0) is None and memo.get("permutation tests", 299) == 299  # oldest out
    big = np.zeros(memo_module.BOUNDS["splits"].nbytes // 2 + 1, dtype=bool)
    memo.put("splits", "a", big)
    memo.put("splits", "b", big)  # both do not fit: the older goes
    assert memo.get("splits", "a") is None and memo.get("splits", "b") is big
    memo.put("splits", "c", np.zeros(memo_module.BOUNDS["splits"].nbytes + 1, dtype=bool))  # over the bound: not kept
    assert memo.get("splits", "c") is None and memo.get("splits", "b") is big
    copy = pickle.loads(pickle.dumps(memo))
    assert copy.sizes() == {} and memo.sizes()["splits"] == 1
    copy.put("svd", 1, 2)
    assert copy.get("svd", 1) == 2
