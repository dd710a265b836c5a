"""safe_norm's plain fast path gives the scaled algorithm's bits, and the scaled one where it must."""

import numpy as np
import pytest

from wefe_same.metrics import _norms
from wefe_same.metrics._norms import _plain_norm, distances_to, safe_norm, scaled_norm


def _cases():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((40, 300))
    yield "embeddings", base
    yield "unit rows", base / np.linalg.norm(base, axis=1, keepdims=True)
    yield "differences", base[:20] - base[20:].mean(axis=0)
    yield "one row", base[:1]
    yield "odd length", rng.standard_normal((7, 13)) * 1e-3
    for k in (-600, -520, -500, -300, 300, 500, 510, 520):
        yield f"scaled 2^{k}", base * 2.0**k
    mixed = base.copy()
    mixed[3, 7] = 1e-170  # its square underflows
    mixed[5, 0] = 1e-160  # its square is normal, but not once scaled with a peak ~4
    yield "tiny entries", mixed
    zeros = base.copy()
    zeros[:, :100] = 0.0
    zeros[2] = 0.0
    yield "zero entries and rows", zeros
    spread = rng.standard_normal((10, 50))
    spread[:, 0] = 1e250  # the scaled squares of the other entries are subnormal
    yield "wide spread", spread
    special = base[:4].copy()
    special[1, 1], special[2, 2], special[3, 3] = np.inf, np.nan, 1e308
    yield "inf, nan, overflow", special


@pytest.mark.parametrize("name,x", list(_cases()), ids=[name for name, _ in _cases()])
@pytest.mark.parametrize("axis", [1, 0, None])
def test_safe_norm_is_the_scaled_algorithm_bit_for_bit(name, x, axis):
    if axis is None:
        x = x[0]
    with np.errstate(all="ignore"):
        expected = scaled_norm(x, axis)
    got = safe_norm(x, axis=axis, keepdims=True)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)  # equal bits (NaN where NaN)
    plain = _plain_norm(x, axis)  # the fast path on its own
    if plain is not None:
        assert plain.tobytes() == expected.tobytes()
    fortran = np.asfortranarray(x)  # summed in another order: its own reference
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(safe_norm(fortran, axis=axis, keepdims=True), scaled_norm(fortran, axis))


def test_random_magnitudes_zeros_and_lengths():
    rng = np.random.default_rng(1)
    taken = 0
    for _ in range(2000):
        n, d = rng.integers(1, 30), rng.integers(1, 400)
        x = rng.standard_normal((n, d)) * 2.0 ** rng.integers(-540, 540, size=(n, 1))
        if rng.random() < 0.3:
            x[rng.random((n, d)) < 0.2] = 0.0
        if rng.random() < 0.2:
            x *= 2.0 ** rng.integers(-600, 10, size=(n, d))
        for axis in (0, 1, None):
            y = x[0] if axis is None else x
            plain = _plain_norm(y, axis)
            if plain is not None:
                taken += 1
                with np.errstate(all="ignore"):
                    assert plain.tobytes() == scaled_norm(y, axis).tobytes()
    assert taken > 1000


def test_the_fast_path_is_taken_on_ordinary_vectors_and_refused_on_extreme_ones():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 8))
    assert _plain_norm(x, 1) is not None
    x[0, 0] = 0.0
    assert _plain_norm(x, 1) is not None  # a zero entry is harmless
    x[1, 1] = 1e-170
    assert _plain_norm(x, 1) is None
    assert _plain_norm(rng.standard_normal((5, 8)) * 1e200, 1) is None
    # Rows far apart: the whole array's squares span more than the floor allows (the
    # quick check refuses), each row's do not (the row-by-row check takes the fast path).
    apart = rng.standard_normal((2, 8)) * np.array([[2.0**400], [2.0**-400]])
    plain = _plain_norm(apart, 1)
    assert plain is not None and plain.tobytes() == scaled_norm(apart, 1).tobytes()


@pytest.mark.parametrize("name,x", list(_cases()), ids=[name for name, _ in _cases()])
def test_distances_to_are_safe_norms_of_the_differences_bit_for_bit(name, x, monkeypatch):
    # Blocks of 7 rows: every case spans several blocks, the last one short.
    monkeypatch.setattr(_norms, "_BLOCK_ENTRIES", 7 * x.shape[1])
    rng = np.random.default_rng(11)
    with np.errstate(all="ignore"):
        points = np.vstack([x[:3].mean(axis=0), rng.standard_normal(x.shape[1]) * np.nanmax(np.abs(x[np.isfinite(x)]))])
        expected = np.stack([safe_norm(x - p, axis=1) for p in points])
        got = distances_to(x, points)
    assert got.shape == (2, len(x))
    np.testing.assert_array_equal(got, expected)


def test_distances_to_known_values_and_no_rows():
    A = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 1.0]])
    got = distances_to(A, np.array([[0.0, 0.0], [3.0, 4.0]]))
    assert got.tolist() == [[5.0, 0.0, np.sqrt(2.0)], [0.0, 5.0, np.sqrt(13.0)]]
    assert distances_to(np.zeros((0, 2)), np.zeros((2, 2))).shape == (2, 0)


@pytest.mark.parametrize("low,high", [(2.0**-300, 2.0**100), (2.0**-301, 2.0**100), (2.0**-300, 2.0**101)])
def test_distances_to_at_the_edges_of_the_plain_range(low, high):
    # Entries at the plain range's bounds (and just past them: the checked path), zeros,
    # nearly equal pairs (the smallest differences): the same bits as safe_norm.
    rng = np.random.default_rng(3)
    A = rng.choice([low, -low, high, -high, 0.0, 1.0, low * 3, high / 3], size=(9, 16))
    A[4] = 0.0
    points = np.vstack([A[1], A[:3].mean(axis=0), np.nextafter(A[2], np.inf)])
    with np.errstate(all="ignore"):
        expected = np.stack([safe_norm(A - p, axis=1) for p in points])
    got = distances_to(A, points)
    assert got.tobytes() == expected.tobytes()
    assert got[0, 1] == 0.0 and np.all(np.isfinite(got))


def test_plain_range_says_which_blocks_skip_the_squares_check():
    assert _norms._plain_range(np.array([[0.0, 2.0**-300, -(2.0**100)]]))
    assert not _norms._plain_range(np.array([2.0**-301, 1.0]))
    assert not _norms._plain_range(np.array([2.0**101, 1.0]))
    assert not _norms._plain_range(np.array([np.nan, 1.0]))
