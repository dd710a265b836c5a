"""Hand-built embeddings whose answers are worked out by hand in the comments."""

import math

import numpy as np
import pytest

from wefe_same.metrics.direct_bias import direct_bias
from wefe_same.metrics.mac import mac
from wefe_same.metrics.rnd import rnd
from wefe_same.metrics.same import bias_basis, same
from wefe_same.metrics.weat import association, weat
from wefe_same.metrics.weat_es import weat_effect_size

e1, e2, e3, e4 = np.eye(4)
R2 = math.sqrt(2)
diag = (e1 + e2) / R2  # cos(diag, e1) = cos(diag, e2) = 1/√2


def rows(*vs):
    return np.array(vs, dtype=float)


# X = {e1, diag}, Y = {e2}, A = {e1}, B = {e2}:
# s(e1) = 1 - 0 = 1, s(diag) = 1/√2 - 1/√2 = 0, s(e2) = 0 - 1 = -1.
X, Y, A, B = rows(e1, diag), rows(e2), rows(e1), rows(e2)


def test_association_by_hand():
    np.testing.assert_allclose(association(rows(e1, diag, e2), A, B), [1, 0, -1], atol=1e-15)


def test_weat_by_hand():
    # Σ_X s − Σ_Y s = (1 + 0) − (−1) = 2
    assert weat(X, Y, A, B).value == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("ddof", "expected"),
    [
        # mean_X s − mean_Y s = 0.5 − (−1) = 1.5; s over X∪Y = {1, 0, −1}
        (1, 1.5 / 1.0),  # sample std = 1
        (0, 1.5 / math.sqrt(2 / 3)),  # population std = √(2/3)
    ],
)
def test_weat_effect_size_by_hand(ddof, expected):
    assert weat_effect_size(X, Y, A, B, ddof=ddof).value == pytest.approx(expected)


def test_weat_effect_size_undefined_when_std_is_zero():
    res = weat_effect_size(rows(e3), rows(e4), A, B)  # both s = 0
    assert math.isnan(res.value) and "std = 0" in res.reason
    assert set(res.details) == set(weat_effect_size(X, Y, A, B).details)


def test_rnd_by_hand():
    # avg(T1) = e1, avg(T2) = e2; a = e1: 0 − √2; a = diag: equidistant, 0.  Sum: −√2.
    assert rnd(rows(e1), rows(e2), rows(e1, diag)).value == pytest.approx(-R2)
    # Raw vectors: a = 2·e1 is 1 from e1 and √5 from e2 → 1 − √5; normalised it is −√2 again.
    assert rnd(rows(e1), rows(e2), rows(2 * e1), normalize=False).value == pytest.approx(1 - math.sqrt(5))
    assert rnd(rows(e1), rows(e2), rows(2 * e1)).value == pytest.approx(-R2)


def test_mac_by_hand():
    # T = {e1}; A1 = {e1, e2}: distances 0, 1 → 0.5; A2 = {−e1}: distance 2.  Mean: 1.25.
    assert mac(rows(e1), rows(e1, e2), rows(-e1)).value == pytest.approx(1.25)


def test_same_binary_by_hand():
    # Groups {e1} and {e2}: bias direction (e1 − e2)/√2.
    # b(e1) = 1/√2, b(e3) = 0, b((e1 + e3)/√2) = 1/2.  SAME = (1/√2 + 0 + 1/2) / 3.
    T = rows(e1, e3, (e1 + e3) / R2)
    assert same(T, rows(e1), rows(e2)).value == pytest.approx((1 / R2 + 0.5) / 3)


def test_same_binary_uses_means_of_unit_vectors():
    # Group 1 = {e1, e3}: mean (e1 + e3)/2; group 2 = {e2, e3}: mean (e2 + e3)/2.
    # Difference (e1 − e2)/2: the shared e3 cancels; b(e1) = 1/√2.
    assert same(rows(e1), rows(e1, e3), rows(e2, e3)).value == pytest.approx(1 / R2)


def test_same_three_groups_by_hand():
    # Groups e1, e2, e3: the bias subspace is the plane orthogonal to (1,1,1).
    # b(e1) = ‖e1 − (1,1,1)/3‖ = √6/3; b((1,1,1)/√3) = 0 (equidistant to every group).
    centre = rows(np.r_[1, 1, 1, 0] / math.sqrt(3))
    groups = rows(e1), rows(e2), rows(e3)
    assert same(rows(e1), *groups).value == pytest.approx(math.sqrt(6) / 3)
    assert same(centre, *groups).value == pytest.approx(0, abs=1e-15)
    assert same(rows(e1, *centre), *groups).value == pytest.approx(math.sqrt(6) / 6)
    assert same(rows(e1), *groups).details["bias_dims"] == 2


def test_same_exactly_zero_for_an_orthogonal_word():
    assert same(rows(e4), rows(e1), rows(e2), rows(e3)).value == 0.0


def test_same_drops_linearly_dependent_directions():
    # Group means on one line: â1 − â0 and â2 − â0 are parallel → a 1-d bias space.
    basis = bias_basis(rows(e1, 2 * e1, 3 * e1))
    assert basis.shape == (1, 4)
    res = same(rows(e2), rows(e1), rows(e1))
    assert math.isnan(res.value) and "coincide" in res.reason


def test_direct_bias_by_hand():
    # Pairs (e1 + 0.1·e3, −e1 + 0.1·e3) and (0.9·e1 − 0.2·e3, −0.9·e1 − 0.2·e3): centred they
    # are ±e1 multiples, so the first principal component is e1.
    female = rows(e1 + 0.1 * e3, 0.9 * e1 - 0.2 * e3)
    male = rows(-e1 + 0.1 * e3, -0.9 * e1 - 0.2 * e3)
    T = rows(e1, e2, diag)  # |cos| with e1: 1, 0, 1/√2
    assert direct_bias(T, female, male).value == pytest.approx((1 + 0 + 1 / R2) / 3)
    assert direct_bias(T, female, male, c=2).value == pytest.approx((1 + 0 + 0.5) / 3)
    assert direct_bias(T, female, male).details["explained_variance"] == pytest.approx(1.0)


def test_direct_bias_k_too_large_is_nan_with_reason():
    res = direct_bias(rows(e1), rows(e1), rows(e2), k=2)
    assert math.isnan(res.value) and "k=2" in res.reason
