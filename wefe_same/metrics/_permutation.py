"""Permutation tests; every random step takes ``random_state``."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from wefe_same.validation import check_choice, check_int

if TYPE_CHECKING:
    from wefe_same.metrics.memo import RunMemo

Alternative = Literal["greater", "less", "two-sided"]
ALTERNATIVES: tuple[Alternative, ...] = ("greater", "less", "two-sided")
#: Exact enumeration is used up to this many splits (``exact_limit``) by default.
EXACT_LIMIT = 100_000
#: Two split statistics tie when they differ by at most this share of Σ|s| (see
#: :func:`weat_permutation_test`).
TIE_RTOL = 1e-12


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


def _int_seed(random_state: object) -> int | None:
    """``random_state`` as an int when it is one (not a bool), else None."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return None


def _splits(n: int, n_x: int, count: int | None, random_state: int | np.random.Generator | None,
            memo: RunMemo | None) -> np.ndarray:
    """:func:`_split_indicators`, through the run's ``memo`` when they are a function of
    the arguments (an int seed, or the exact enumeration; a Generator or None draws afresh).

    Every model of a run tests the same subqueries with the same seeds (one stream per
    metric and subquery), so it draws the same splits: the memo draws them once per run
    instead of once per model. The same splits, the same bytes.
    """
    seed = _int_seed(random_state)
    if memo is None or (count is not None and seed is None):
        rng = None if count is None else np.random.default_rng(random_state)
        return _split_indicators(n, n_x, count, rng)
    key = (n, n_x, count, None if count is None else seed)
    got = memo.remember("splits", key, lambda: _split_indicators(
        n, n_x, count, None if count is None else np.random.default_rng(seed)).astype(bool))
    return got.astype(np.float64)


def weat_permutation_test(
    s: np.ndarray,
    n_x: int,
    *,
    permutations: int,
    alternative: Alternative = "greater",
    exact_limit: int = EXACT_LIMIT,
    random_state: int | np.random.Generator | None = None,
    memo: RunMemo | None = None,
) -> PermutationTest:
    """Caliskan et al.'s permutation test over the splits of X ∪ Y, with one tie rule.

    The p-value is the share of splits (X_i, Y_i) whose statistic is *at least as
    extreme* as the observed one, P[s(X_i, Y_i, A, B) ≥ s(X, Y, A, B)], the observed
    split counted among them:

    * exact (at most ``exact_limit`` splits): p = #{i : t_i ≥ t_obs} / C(n, n_x), over
      every split, the observed one included, so p ≥ 1 / C(n, n_x) > 0;
    * sampled: p = (k + 1) / (N + 1), k = #{N random splits with t_i ≥ t_obs}, the
      Monte-Carlo form of the same quantity (Phipson & Smyth 2010).

    Why "≥" and not Caliskan et al.'s strict ">" (Schröder et al. 2021, eq. 6): under the null
    hypothesis every split is equally likely to be the observed one, so counting it and
    its ties makes the test valid, P(p ≤ α) ≤ α for every α, also when statistics tie
    (few distinct words, duplicated vectors, integer-like scores). The strict rule is
    anti-conservative with ties and gives p = 0 for the most extreme split, a value no
    finite test can support; and it disagrees with the sampled estimate, which must count
    the observed split to stay valid (Phipson & Smyth 2010). Without ties the two rules
    differ by exactly 1 / C(n, n_x).

    Two statistics count as tied when they differ by at most ``TIE_RTOL`` · Σ|s|: every
    statistic is a signed sum of the entries of ``s``, so Σ|s| bounds its size and its
    rounding error (≈ n · 2⁻⁵³ · Σ|s|), and a split whose statistic equals the observed
    one in exact arithmetic is never lost to rounding.

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
        "greater" is the one-sided test (Schröder et al. 2021, eq. 6); "less" the lower tail;
        "two-sided" compares |statistics| and is right for negative statistics too.
    exact_limit : int
        Enumerate every split when there are at most this many; 0 always samples.
    random_state : int, Generator or None
        Seeds the sampled splits (each a subset drawn without replacement).
    memo : RunMemo or None
        The run's memo: the splits, and the test itself, once per run where they are a
        function of the arguments (WEAT and WEAT-ES test the same associations with the
        same seed); the same result as without.

    Returns
    -------
    PermutationTest

    The observed split is the most extreme of the 6 here, yet p = 1/6, not 0:

    >>> weat_permutation_test(np.array([3.0, 2.0, 1.0, 0.0]), 2, permutations=1000)
    PermutationTest(p_value=0.16666666666666666, n_splits=6, method='exact')

    0.1 + 0.2 and 0.3 + 0.0 tie in exact arithmetic, though not in floating point; the
    observed split, the tie and the two larger splits count: p = 4/6.

    >>> weat_permutation_test(np.array([0.1, 0.2, 0.3, 0.0]), 2, permutations=1000).p_value
    0.6666666666666666
    >>> weat_permutation_test(np.array([3.0, 2.0, 1.0, 0.0]), 2, permutations=0)
    PermutationTest(p_value=nan, n_splits=0, method='none')
    """
    check_int(permutations, "permutations", "weat", minimum=0)
    check_choice(alternative, "alternative", "weat", ALTERNATIVES)
    check_int(exact_limit, "exact_limit", "weat", minimum=0)
    if permutations == 0:
        return NO_TEST
    n = len(s)
    total = math.comb(n, n_x)
    exact = total <= exact_limit
    seed = _int_seed(random_state)
    if memo is None or (not exact and seed is None):
        return _test(s, n_x, total, exact, permutations, alternative, random_state, memo)
    s = np.asarray(s)
    key = (s.dtype.str, s.tobytes(), n_x, permutations, alternative, exact_limit, None if exact else seed)
    return memo.remember("permutation tests", key,
                         lambda: _test(s, n_x, total, exact, permutations, alternative, random_state, memo))


def _test(s: np.ndarray, n_x: int, total: int, exact: bool, permutations: int, alternative: Alternative,
          random_state: int | np.random.Generator | None, memo: RunMemo | None) -> PermutationTest:
    n = len(s)
    indicators = _splits(n, n_x, None if exact else permutations, random_state, memo)
    observed_row = np.zeros((1, n))
    observed_row[0, :n_x] = 1.0
    # Statistic Σ_{X_i} s − Σ_{Y_i} s = 2 Σ_{X_i} s − Σ s: one matrix product for all splits,
    # and the same arithmetic for the observed split, so it always ties with itself.
    stats = 2.0 * (indicators @ s) - s.sum()
    observed = float(2.0 * (observed_row @ s)[0] - s.sum())
    if alternative == "less":
        stats, observed = -stats, -observed
    elif alternative == "two-sided":
        stats, observed = np.abs(stats), abs(observed)
    at_least_as_extreme = stats >= observed - TIE_RTOL * float(np.abs(s).sum())
    if exact:
        return PermutationTest(float(np.mean(at_least_as_extreme)), total, "exact")
    k = int(np.sum(at_least_as_extreme))
    return PermutationTest((k + 1) / (permutations + 1), permutations, "sampled")



def role_labels(sizes: list[int], labels: np.ndarray | None, draws: int) -> np.ndarray:
    """The set each pooled row of a role is dealt to in each draw of a permutation null:
    ``labels`` as given, or, for a role left as it is (None), every row in its own set.

    >>> role_labels([1, 2], None, 2).tolist()
    [[0, 1, 1], [0, 1, 1]]
    """
    if labels is not None:
        return labels
    return np.broadcast_to(np.repeat(np.arange(len(sizes)), sizes), (draws, sum(sizes)))
