"""P-values of rank correlations between rankings: exact where they can be had.

Papers rank 3–20 models, where the asymptotic t approximation of ``scipy.stats.spearmanr``
is far off (4 models ranked alike: asymptotic p = 0, exact p = 2/4! = 0.083). Every
p-value here is of the two-sided test of no association, P(|r*| ≥ |r|) over the orders of
one column against the other, ties kept as they are (the exact conditional null):

- ``"exact"`` — every order enumerated, up to :data:`EXACT_MAX_MODELS` models (Kendall
  without ties: scipy's exact distribution, for any number of models);
- ``"permutation"`` — above that, ``scipy.stats.permutation_test`` with a seeded
  generator; its p-value is (1 + #{|r*| ≥ |r|}) / (1 + resamples) and its Monte Carlo
  standard error sqrt(p (1 − p) / resamples) is reported beside it;
- ``"asymptotic"`` — scipy's t (Spearman) or normal (Kendall) approximation, only where
  asked for.

The null distribution of a pair depends only on its number of models and the tie
patterns of its two columns, so it is computed once per :class:`NullCache` (one per run)
and shared by every pair with that pattern. Statistics are compared in integer arithmetic
(Spearman on doubled average ranks, Kendall as concordant minus discordant pairs), so a
float tie between |r*| and |r| can never flip a count; this is exact where a float
tolerance would only be close.

Written by hand (no library enumerates a conditional rank-correlation null once for many
pairs): the enumeration and the integer statistics. scipy does the ranking, Kendall's
exact distribution and the sampled test.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

CorrelationMethod = Literal["spearman", "kendall"]
#: "exact" (exact up to EXACT_MAX_MODELS models, a seeded permutation test above) or
#: "asymptotic" (scipy's approximation, only where asked for); the command line's choices
#: are :data:`wefe_same.options.choices.PVALUE_METHODS` (kept equal by a test).
PValueMethod = Literal["exact", "asymptotic"]
#: Holm (family-wise error) or Benjamini–Hochberg (false discovery rate).
PAdjust = Literal["holm", "bh"]

#: Every order of one column is enumerated up to this many models (10! = 3,628,800 orders).
EXACT_MAX_MODELS = 10
#: Resamples of the permutation test above EXACT_MAX_MODELS models, by default.
DEFAULT_RESAMPLES = 100_000
_BLOCK_TERMS = 1 << 21  # products per block of the enumeration: ~16 MB of int64


@dataclass(frozen=True)
class PValue:
    """One p-value, the method that made it and, for a sampled one, its Monte Carlo error."""

    p_value: float
    method: str  # "exact", "permutation", "asymptotic" or "" (undefined)
    mc_error: float = float("nan")


@dataclass
class NullCache:
    """Null distributions computed in one run, by test, number of models and tie pattern.

    Per-run state, passed in (never a module global): every pair of a correlation table
    with the same pattern shares one enumeration or one set of resamples.
    """

    resamples: int = DEFAULT_RESAMPLES
    random_state: int = 0
    nulls: dict[tuple, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _orders: dict[int, np.ndarray] = field(default_factory=dict)

    def orders(self, n: int) -> np.ndarray:
        """Every permutation of ``range(n)``, shape (n!, n), int8 (built by insertion)."""
        if n not in self._orders:
            perms = np.zeros((1, 0), dtype=np.int8)
            for k in range(n):  # insert k at every position of every order of range(k)
                rows = len(perms)
                grown = np.empty((rows * (k + 1), k + 1), dtype=np.int8)
                for pos in range(k + 1):
                    block = grown[pos * rows:(pos + 1) * rows]
                    block[:, :pos], block[:, pos], block[:, pos + 1:] = perms[:, :pos], k, perms[:, pos:]
                perms = grown
            self._orders[n] = perms
        return self._orders[n]


def correlation_pvalue(x: np.ndarray, y: np.ndarray, method: CorrelationMethod, *,
                       pvalues: PValueMethod = "exact", cache: NullCache | None = None) -> PValue:
    """The two-sided p-value of Spearman's rho or Kendall's tau-b between ``x`` and ``y``.

    Parameters
    ----------
    x, y : ndarray, shape (n,)
        Two columns without NaN (ranks or scores: they are ranked here, average ranks
        for ties). Fewer than 2 values, or a constant column: undefined (NaN, method "").
    method : {"spearman", "kendall"}
    pvalues : {"exact", "asymptotic"}
        See the module docstring.
    cache : NullCache, optional
        Null distributions of the run (a fresh one when None).

    >>> correlation_pvalue(np.array([1, 2, 3, 4]), np.array([1, 2, 3, 4]), "spearman")
    PValue(p_value=0.08333333333333333, method='exact', mc_error=nan)
    """
    from scipy import stats  # lazily: importing scipy.stats takes ~1 s

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if n < 2 or len(np.unique(x)) < 2 or len(np.unique(y)) < 2:
        return PValue(float("nan"), "")
    if pvalues == "asymptotic":
        test = stats.spearmanr if method == "spearman" else stats.kendalltau
        return PValue(float(test(x, y).pvalue), "asymptotic")
    cache = NullCache() if cache is None else cache
    # Doubled average ranks are integers: the statistics below are exact integers.
    a, b = (np.rint(2 * stats.rankdata(v)).astype(np.int64) for v in (x, y))
    if method == "kendall" and len(np.unique(a)) == n and len(np.unique(b)) == n:
        return PValue(float(stats.kendalltau(x, y, method="exact").pvalue), "exact")
    statistic = _spearman_statistic if method == "spearman" else _kendall_statistic
    key = (method, n, tuple(np.sort(a)), tuple(np.sort(b)))
    if key not in cache.nulls:
        untied = len(np.unique(a)) == n or len(np.unique(b)) == n
        cache.nulls[key] = (_kendall_one_tied(np.sort(a), np.sort(b)) if method == "kendall" and untied
                            and n <= EXACT_MAX_MODELS else _null(np.sort(a), np.sort(b), statistic, cache))
    values, counts = cache.nulls[key]
    total = int(counts.sum())
    observed = abs(int(statistic(a, b[None, :])[0]))
    hits = int(counts[np.abs(values) >= observed].sum())
    if n <= EXACT_MAX_MODELS:
        return PValue(hits / total, "exact")
    p = (hits + 1) / (total + 1)
    return PValue(p, "permutation", math.sqrt(p * (1 - p) / total))


def _spearman_statistic(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """n Σ a_i b_i − Σa Σb along the last axis (``a`` and ``b`` broadcast): rho times a
    positive constant that no reordering changes, so |rho*| ≥ |rho| exactly when
    |this*| ≥ |this|."""
    # einsum: 15x faster than (a * b).sum(-1) on the (10!, 10) block of the enumeration
    return a.shape[-1] * np.einsum("...i,...i->...", a, b) - a.sum(axis=-1) * b.sum(axis=-1)


def _kendall_statistic(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Concordant minus discordant pairs along the last axis: tau-b times a constant that
    no reordering changes (its denominator depends on the tie counts only)."""
    i, j = np.triu_indices(a.shape[-1], k=1)

    def signs(v: np.ndarray) -> np.ndarray:  # int16 pairs, int8 signs: ~20x faster than np.sign
        v = v.astype(np.int16)  # doubled ranks ≤ 2n
        return (v[..., i] > v[..., j]).view(np.int8) - (v[..., i] < v[..., j]).view(np.int8)

    # float32 sums of ±1 are exact (far below 2**24) and run in BLAS
    products = np.einsum("...i,...i->...", signs(a), signs(b), dtype=np.float32, casting="safe")
    return np.rint(products).astype(np.int64)


def _null(a: np.ndarray, b: np.ndarray, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
          cache: NullCache) -> tuple[np.ndarray, np.ndarray]:
    """The statistic's null distribution (values, counts) for columns with the multisets
    ``a`` and ``b``: over every order of ``b`` up to EXACT_MAX_MODELS values, otherwise
    over the seeded resamples of ``scipy.stats.permutation_test``."""
    n = len(a)
    if n <= EXACT_MAX_MODELS:
        orders = cache.orders(n)
        if statistic is _spearman_statistic:
            # float32 products in BLAS, twice as fast as int64: exact, every sum is an
            # integer below n * (2n)**2 = 4000 << 2**24
            af, bf, rows = a.astype(np.float32), b.astype(np.float32), _BLOCK_TERMS // n
            dots = np.concatenate([np.rint(bf[orders[k:k + rows]] @ af) for k in range(0, len(orders), rows)])
            return _tally(n * dots.astype(np.int64) - int(a.sum()) * int(b.sum()))
        rows = max(1, _BLOCK_TERMS // (n * (n - 1) // 2))
        null = np.concatenate([statistic(a, b[orders[k:k + rows]]) for k in range(0, len(orders), rows)])
        return _tally(null)
    from scipy import stats

    def stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return statistic(*(np.moveaxis(v, axis, -1).astype(np.int64) for v in (x, y)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.permutation_test((a, b), stat, permutation_type="pairings", vectorized=True,
                                     n_resamples=cache.resamples, batch=10_000,
                                     random_state=np.random.default_rng(cache.random_state))
    return _tally(np.rint(res.null_distribution).astype(np.int64))


def _kendall_one_tied(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's null (values, counts) when one column has no ties: the same counts as the
    enumeration, without it. Ordered by the untied column, the other's arrangements with D
    discordant pairs number the coefficient of q^D of the q-multinomial [n; t_1, …, t_k]_q of
    its tie groups (MacMahon: inversions of a multiset permutation), and the statistic is
    (pairs not tied in it) − 2D; each arrangement stands for Π t_j! orders alike."""
    tied = b if len(np.unique(a)) == len(a) else a
    sizes = np.unique(tied, return_counts=True)[1]
    poly, placed = np.ones(1, dtype=np.int64), 0
    for t in sizes:  # [n; t_1..t_k]_q = Π_j [t_1 + … + t_j; t_j]_q
        poly, placed = np.convolve(poly, _q_binomial(placed + int(t), int(t))), placed + int(t)
    untied_pairs = len(a) * (len(a) - 1) // 2 - int((sizes * (sizes - 1) // 2).sum())
    values = untied_pairs - 2 * np.arange(len(poly), dtype=np.int64)
    keep = poly > 0
    weight = math.prod(math.factorial(int(t)) for t in sizes)
    return values[keep][::-1], poly[keep][::-1] * weight  # ascending, as _tally


def _q_binomial(m: int, k: int) -> np.ndarray:
    """Coefficients of the Gaussian binomial [m; k]_q, by [m; k] = [m−1; k−1] + q^k [m−1; k]."""
    rows = [np.ones(1, dtype=np.int64)] + [np.zeros(1, dtype=np.int64)] * k  # [0; j] for j = 0..k
    for _ in range(m):
        new = [np.ones(1, dtype=np.int64)]
        for j in range(1, k + 1):
            shifted = np.concatenate([np.zeros(j, dtype=np.int64), rows[j]])
            size = max(len(rows[j - 1]), len(shifted))
            new.append(np.pad(rows[j - 1], (0, size - len(rows[j - 1]))) + np.pad(shifted, (0, size - len(shifted))))
        rows = new
    return np.trim_zeros(rows[k], "b") if rows[k].any() else np.zeros(1, dtype=np.int64)


def _tally(null: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an integer null distribution and their counts (a bincount:
    the values span a few thousand integers, where sorting millions would take longer)."""
    low = int(null.min())
    counts = np.bincount(null - low)
    values = np.flatnonzero(counts)
    return values + low, counts[values]


def adjust_pvalues(p_values: np.ndarray, method: PAdjust = "holm") -> np.ndarray:
    """P-values adjusted for the multiple tests of one family; NaN stays NaN, out of it.

    ``"holm"``: Holm (1979)'s step-down adjustment, which controls the family-wise error
    rate: the k-th smallest of m p-values becomes max over j ≤ k of min(1, (m − j + 1) p_(j)).
    Written by hand: scipy has no Holm (statsmodels' ``multipletests`` does, and is not a
    dependency). ``"bh"``: Benjamini & Hochberg (1995)'s false discovery rate,
    ``scipy.stats.false_discovery_control``.

    >>> adjust_pvalues(np.array([0.01, 0.04, 0.03, np.nan]), "holm").round(3)
    array([0.03, 0.06, 0.06,  nan])
    >>> adjust_pvalues(np.array([0.01, 0.04, 0.03, np.nan]), "bh").round(3)
    array([0.03, 0.04, 0.04,  nan])
    """
    p_values = np.asarray(p_values, dtype=float)
    out = np.full(p_values.shape, np.nan)
    ok = ~np.isnan(p_values)
    if not ok.any():
        return out
    if method == "bh":
        from scipy import stats

        out[ok] = stats.false_discovery_control(p_values[ok], method="bh")
        return out
    tested = p_values[ok]
    order = np.argsort(tested, kind="stable")
    scaled = (len(tested) - np.arange(len(tested))) * tested[order]
    adjusted = np.empty_like(tested)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    out[ok] = adjusted
    return out
