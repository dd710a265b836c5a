"""Shortcuts taken for speed give the bits of the computation they replace."""

import warnings

import numpy as np
from scipy.stats import spearmanr

from wefe_same.metrics import direct_bias as db
from wefe_same.metrics.ect import spearman_rho


def test_spearman_rho_is_scipys_statistic_bit_for_bit():
    rng = np.random.default_rng(0)
    for trial in range(800):
        n = int(rng.integers(2, 60)) if trial % 40 else int(rng.integers(1000, 6000))  # and lexicon sizes
        x = rng.standard_normal(n)
        y = x * rng.standard_normal() + rng.standard_normal(n) * rng.random()
        if rng.random() < 0.3:
            x = np.round(x, 1)  # ties
        if rng.random() < 0.3:
            y = np.round(y, 1)
        if rng.random() < 0.05:
            y[0] = np.nan
        if rng.random() < 0.05:
            x[:] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = spearmanr(x, y).statistic
        got = spearman_rho(x, y)
        assert got == expected or (np.isnan(got) and np.isnan(expected))


def test_direct_bias_is_the_same_from_a_warm_svd_cache():
    rng = np.random.default_rng(1)
    groups = [rng.standard_normal((6, 30)) for _ in range(3)]
    T = rng.standard_normal((9, 30))
    db._SVDS.clear()
    cold = db.direct_bias(T, *groups)
    warm = db.direct_bias(T, *groups)
    assert warm.value == cold.value and warm.details == cold.details
    assert warm.word_values["b"].tobytes() == cold.word_values["b"].tobytes()
    components, _ = db.pca_subspace(np.stack(groups), 2)
    components[:] = 0.0  # the caller's copy: the cached SVD is untouched
    assert db.direct_bias(T, *groups).value == cold.value


def test_rnsb_remembers_the_digest_of_arrays_scoring_froze_only():
    import hashlib

    from wefe_same.metrics import rnsb
    from wefe_same.metrics._frozen import freeze

    fixed = freeze(np.random.default_rng(2).standard_normal((5, 3)))
    free = fixed.copy()
    expected = hashlib.sha1(fixed.tobytes()).hexdigest()

    def remembered(M):
        return rnsb._DIGESTS.get(M) is not None

    assert rnsb._digest(fixed) == rnsb._digest(free) == expected
    assert remembered(fixed) and not remembered(free)
    free[0, 0] = 1.0  # a writable array is hashed again every time
    assert rnsb._digest(free) != expected
    view = np.ndarray.view(fixed)  # read-only, but not the array scoring froze
    assert rnsb._digest(view) == expected and not remembered(view)
    # A caller's read-only array is not trusted: its owner may make it writable and change it
    theirs = np.random.default_rng(3).standard_normal((5, 3))
    theirs.flags.writeable = False
    before = rnsb._digest(theirs)
    theirs.flags.writeable = True
    theirs[0, 0] += 1.0
    assert not remembered(theirs) and rnsb._digest(theirs) != before


def test_canonical_order_sorts_only_the_ties_yet_is_the_full_lexicographic_order():
    # Small integers: many runs of equal first coordinates, ties further along, duplicate
    # rows, ±0, NaN (the full sort's NaN rule), one column and one row.
    from wefe_same.metrics.rnsb import canonical_order

    rng = np.random.default_rng(2)
    for trial in range(600):
        n, d = int(rng.integers(2, 40)), int(rng.integers(1, 5))
        M = rng.integers(-2, 3, size=(n, d)).astype(float)
        M[rng.random((n, d)) < 0.1] = -0.0
        if trial % 4 == 0:
            M[rng.random((n, d)) < 0.1] = np.nan
        first = M[np.argsort(M[:, 0], kind="stable"), 0]
        if not np.any(first[1:] == first[:-1]):
            continue  # no tie: the stable sort of column 0 (tests/test_loose_ends.py)
        np.testing.assert_array_equal(canonical_order(M), np.lexsort(M.T[::-1]))


def test_a_remembered_permutation_test_is_the_one_computed_afresh():
    from wefe_same.metrics import _permutation as perm

    rng = np.random.default_rng(3)
    s = rng.standard_normal(30)
    cases = [(s, 15, 500, "greater", 7), (s, 15, 500, "two-sided", 7), (s, 15, 500, "greater", 8),
             (s[::-1].copy(), 15, 500, "greater", 7), (s[:12], 6, 500, "less", 7),  # exact: 924 splits
             (s.astype(np.float32), 15, 500, "greater", 7)]

    def run():
        return [perm.weat_permutation_test(x, n_x, permutations=p, alternative=alt, random_state=seed)
                for x, n_x, p, alt, seed in cases]

    perm._TESTS.clear()
    fresh = run()
    assert len(perm._TESTS) == len(cases)
    assert run() == fresh  # from the memo
    perm._TESTS.clear()
    assert run() == fresh
    perm._TESTS.clear()  # a Generator is not remembered
    perm.weat_permutation_test(s, 15, permutations=500, random_state=np.random.default_rng(7))
    assert not perm._TESTS


def test_rnsb_kl_to_uniform_is_scipys_entropy_bit_for_bit():
    from scipy.special import expit
    from scipy.stats import entropy

    from wefe_same.metrics.rnsb import kl_to_uniform

    rng = np.random.default_rng(4)
    for trial in range(400):
        n = int(rng.integers(1, 200)) if trial % 40 else int(rng.integers(1000, 5000))
        p = expit(rng.standard_normal((n, int(rng.integers(1, 12)))) * 5 * rng.random())
        P = p / p.sum(axis=0)
        assert kl_to_uniform(P).tobytes() == entropy(P, np.full_like(P, 1.0 / n), axis=0).tobytes()


def test_rnsb_subsample_masks_are_remembered_by_sizes_and_seed_only():
    from wefe_same.metrics import rnsb as rnsb_module

    rnsb_module._MASKS.clear()
    first = rnsb_module._subsamples(30, 45, 10, 0.8, 5)
    assert rnsb_module._subsamples(30, 45, 10, 0.8, 5) is first and not first.flags.writeable
    fresh = rnsb_module._subsamples(30, 45, 10, 0.8, np.random.default_rng(5))  # drawn, not remembered
    np.testing.assert_array_equal(first, fresh)
    assert fresh.flags.writeable and len(rnsb_module._MASKS) == 1
    assert first.sum(axis=1).tolist() == [24 + 36] * 10
    other = rnsb_module._subsamples(30, 45, 10, 0.8, 6)
    assert not np.array_equal(other, first) and len(rnsb_module._MASKS) == 2


def test_column_means_are_remembered_for_frozen_arrays_only():
    import gc

    from wefe_same.metrics import _frozen

    rng = np.random.default_rng(6)
    M = rng.standard_normal((50, 7))
    assert _frozen.column_mean(M).tobytes() == M.mean(axis=0).tobytes()
    assert _frozen._MEANS.get(M) is None  # a caller's array may change: not remembered
    F = _frozen.freeze(M.copy())
    first = _frozen.column_mean(F)
    assert _frozen.column_mean(F) is first and first.tobytes() == M.mean(axis=0).tobytes()
    del F
    gc.collect()
    for _ in range(20):  # new arrays, some at the dead one's id: each gets its own mean
        G = _frozen.freeze(rng.standard_normal((50, 7)))
        assert _frozen.column_mean(G).tobytes() == G.mean(axis=0).tobytes()
