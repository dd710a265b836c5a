"""Permutation tests and bootstrap resampling; every random step takes ``random_state``."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .errors import MetricError, bad_parameter

Alternative = Literal["greater", "less", "two-sided"]
#: Exact enumeration is used up to this many splits (``exact_limit``) by default.
EXACT_LIMIT = 100_000


@dataclass(frozen=True)
class PermutationTest:
    """p-value of a permutation test, how many splits it used and how they were chosen."""

    p_value: float
    n_splits: int
    method: Literal["exact", "sampled", "none"]


NO_TEST = PermutationTest(math.nan, 0, "none")


def _split_indicators(n: int, n_x: int, count: int | None, rng: np.random.Generator | None) -> np.ndarray:
    """0/1 matrix, one row per split of ``n`` items into ``n_x`` + ``n − n_x``.

    ``count=None`` enumerates every split; otherwise ``count`` splits are drawn, each a
    random subset without replacement (a row of a random permutation).
    """
    if count is None:
        chosen = np.array(list(itertools.combinations(range(n), n_x)), dtype=np.intp).reshape(-1, n_x)
    else:
        assert rng is not None
        chosen = rng.permuted(np.tile(np.arange(n), (count, 1)), axis=1)[:, :n_x]
    indicators = np.zeros((len(chosen), n))
    np.put_along_axis(indicators, chosen, 1.0, axis=1)
    return indicators


def weat_permutation_test(
    s: np.ndarray,
    n_x: int,
    *,
    permutations: int,
    alternative: Alternative = "greater",
    exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None,
) -> PermutationTest:
    """Caliskan et al.'s test: P[s(X_i, Y_i, A, B) > s(X, Y, A, B)] over splits of X ∪ Y.

    Parameters
    ----------
    s : ndarray, shape (n,)
        s(w, A, B) for the words of X (first ``n_x``) and then Y.
    n_x : int
        |X|; every split has X_i of this size.
    permutations : int
        Splits to sample when the number of splits C(n, n_x) exceeds ``exact_limit``;
        0 skips the test.
    alternative : {"greater", "less", "two-sided"}
        "greater" is the one-sided test of seed 000 eq. 6; "two-sided" compares
        |statistics| and is right for negative statistics too.
    exact_limit : int
        Enumerate every split when there are at most this many.

    Returns
    -------
    PermutationTest
        Exact: the share of splits whose statistic exceeds the observed one (eq. 6).
        Sampled: (k + 1) / (N + 1), k = sampled splits at least as extreme.

    >>> weat_permutation_test(np.array([3.0, 2.0, 1.0, 0.0]), 2, permutations=0)
    PermutationTest(p_value=nan, n_splits=0, method='none')
    >>> weat_permutation_test(np.array([3.0, 2.0, 1.0, 0.0]), 2, permutations=1000)
    PermutationTest(p_value=0.0, n_splits=6, method='exact')
    """
    if not isinstance(permutations, int) or isinstance(permutations, bool) or permutations < 0:
        raise MetricError(bad_parameter("permutations", "weat", "an integer >= 0", permutations))
    if alternative not in ("greater", "less", "two-sided"):
        raise MetricError(bad_parameter("alternative", "weat", "'greater', 'less' or 'two-sided'", alternative))
    if permutations == 0:
        return NO_TEST
    n = len(s)
    total = math.comb(n, n_x)
    exact = total <= exact_limit
    rng = None if exact else np.random.default_rng(random_state)
    indicators = _split_indicators(n, n_x, None if exact else permutations, rng)
    observed_row = np.zeros((1, n))
    observed_row[0, :n_x] = 1.0
    # Statistic Σ_{X_i} s − Σ_{Y_i} s = 2 Σ_{X_i} s − Σ s: one matrix product for all splits,
    # and the same arithmetic for the observed split, so it never counts as exceeding itself.
    stats = 2.0 * (indicators @ s) - s.sum()
    observed = float(2.0 * (observed_row @ s)[0] - s.sum())
    if alternative == "less":
        stats, observed = -stats, -observed
    elif alternative == "two-sided":
        stats, observed = np.abs(stats), abs(observed)
    tol = 1e-12 * max(1.0, abs(observed))
    if exact:
        return PermutationTest(float(np.mean(stats > observed + tol)), total, "exact")
    k = int(np.sum(stats >= observed - tol))
    return PermutationTest((k + 1) / (permutations + 1), permutations, "sampled")


def stratified_bootstrap(strata: list[np.ndarray], draws: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Per stratum, ``draws`` resamples of its items with replacement: arrays (draws, len)."""
    return [rng.choice(items, size=(draws, len(items)), replace=True) for items in strata]


def percentile_interval(samples: np.ndarray, level: float, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval, ignoring NaN draws."""
    tail = (1.0 - level) / 2 * 100
    with np.errstate(all="ignore"):
        low, high = np.nanpercentile(samples, [tail, 100 - tail], axis=axis)
    return low, high
