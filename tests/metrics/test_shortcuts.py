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


def test_direct_bias_is_the_same_from_a_warm_svd_memo():
    from wefe_same.metrics.memo import ModelMemo

    rng = np.random.default_rng(1)
    groups = [rng.standard_normal((6, 30)) for _ in range(3)]
    T = rng.standard_normal((9, 30))
    memo = ModelMemo().bind([], [])
    alone = db.direct_bias(T, *groups)
    cold = db.direct_bias(T, *groups, memo=memo)
    assert memo.run.sizes() == {"svd": 1}
    warm = db.direct_bias(T, *groups, memo=memo)
    for got in (cold, warm):
        assert got.value == alone.value and got.details == alone.details
        assert got.word_values["b"].tobytes() == alone.word_values["b"].tobytes()
    components, _ = db.pca_subspace(np.stack(groups), 2, memo.run)
    components[:] = 0.0  # the caller's copy: the remembered SVD is untouched
    assert db.direct_bias(T, *groups, memo=memo).value == alone.value


def test_the_memo_remembers_the_digest_of_the_calls_numbered_arrays_only():
    import hashlib

    from wefe_same.metrics.memo import ModelMemo

    model = ModelMemo()
    numbered = np.random.default_rng(2).standard_normal((5, 3))
    numbered.flags.writeable = False
    free = numbered.copy()
    memo = model.bind([numbered], [0])
    expected = hashlib.sha1(numbered.tobytes()).hexdigest()

    def remembered():
        return ("digest", 0) in model._values

    assert memo.digest(free) == expected and not remembered()  # not one of the call's arrays
    assert memo.digest(numbered) == expected and remembered()
    free[0, 0] = 1.0  # an array without a number is hashed again every time
    assert memo.digest(free) != expected
    view = np.ndarray.view(numbered)  # the same bytes, but not the call's array: hashed, not looked up
    assert memo.digest(view) == expected and memo.key_of(view) is None
    assert model.bind([free], [0]).digest(free) == expected  # the number is the key: what scoring guarantees


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

    def run(memo):
        return [perm.weat_permutation_test(x, n_x, permutations=p, alternative=alt, random_state=seed, memo=memo)
                for x, n_x, p, alt, seed in cases]

    from wefe_same.metrics.memo import RunMemo

    memo = RunMemo()
    fresh = run(None)
    assert run(memo) == fresh and memo.sizes()["permutation tests"] == len(cases)
    assert run(memo) == fresh  # from the memo
    other = RunMemo()  # a Generator is not remembered
    perm.weat_permutation_test(s, 15, permutations=500, random_state=np.random.default_rng(7), memo=other)
    assert other.sizes() == {}


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
    from wefe_same.metrics.memo import RunMemo

    memo = RunMemo()
    first = rnsb_module._subsamples(30, 45, 10, 0.8, 5, memo)
    assert rnsb_module._subsamples(30, 45, 10, 0.8, 5, memo) is first and not first.flags.writeable
    fresh = rnsb_module._subsamples(30, 45, 10, 0.8, np.random.default_rng(5), memo)  # drawn, not remembered
    np.testing.assert_array_equal(first, fresh)
    assert memo.sizes() == {"rnsb masks": 1}
    np.testing.assert_array_equal(rnsb_module._subsamples(30, 45, 10, 0.8, 5), first)  # no memo: drawn afresh
    assert first.sum(axis=1).tolist() == [24 + 36] * 10
    other = rnsb_module._subsamples(30, 45, 10, 0.8, 6, memo)
    assert not np.array_equal(other, first) and memo.sizes() == {"rnsb masks": 2}


def test_column_means_are_remembered_for_the_calls_numbered_arrays_only():
    from wefe_same.metrics.memo import ModelMemo, column_mean

    rng = np.random.default_rng(6)
    M, F = rng.standard_normal((50, 7)), rng.standard_normal((50, 7))
    model = ModelMemo()
    memo = model.bind([F], [4])
    assert column_mean(M, memo).tobytes() == M.mean(axis=0).tobytes()
    assert column_mean(M, memo) is not column_mean(M, memo)  # not one of the call's arrays: computed each time
    first = column_mean(F, memo)
    assert column_mean(F, memo) is first and first.tobytes() == F.mean(axis=0).tobytes() and not first.flags.writeable
    assert model.bind([F], [4]).mean(F) is first  # another call of the model: the same array, the same mean
    assert column_mean(F).tobytes() == first.tobytes() and column_mean(F) is not first  # no memo
