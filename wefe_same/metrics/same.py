"""SAME, Scoring Association Means of word Embeddings (Schröder, Schulz & Hammer 2024, §3.1–3.2),
and its skew and stereotype scores (Schröder et al. 2021, §4.4).

In this library the groups (SAME's "attribute sets") are the query's target sets and
the neutral words (SAME's "targets") its one attribute set: template (N, 1).
"""

from __future__ import annotations

import itertools

import numpy as np

from wefe_same.metrics.memo import Memo, column_mean, read_only, remembered
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import AtLeast, Template

#: A Gram–Schmidt residual shorter than this share of its direction counts as linearly dependent.
DEPENDENCE_TOL = 1e-10


def bias_basis(group_means: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the bias subspace from the directions â_i − â_0
    (Schröder, Schulz & Hammer 2024, eq. 13).

    Gram–Schmidt in the order of the groups; a direction that depends linearly on the
    previous ones is dropped, giving a smaller subspace.

    Parameters
    ----------
    group_means : ndarray, shape (n_groups, d)

    Returns
    -------
    ndarray, shape (k, d), k ≤ n_groups − 1

    >>> bias_basis(np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0]]))
    array([[1., 0.]])
    """
    scale = max(float(np.abs(group_means).max()), 1e-300)
    basis: list[np.ndarray] = []
    for direction in group_means[1:] - group_means[0]:
        residual = direction - sum((direction @ b) * b for b in basis)
        if np.linalg.norm(residual) > DEPENDENCE_TOL * scale:
            basis.append(residual / np.linalg.norm(residual))
    return np.array(basis).reshape(len(basis), group_means.shape[1])


def signed_pair_bias(T: np.ndarray, groups: tuple[np.ndarray, ...], memo: Memo | None = None) -> dict[str, np.ndarray]:
    """Binary SAME with its sign, b(t, A_i, A_j) = cos(t, â_i − â_j), for every pair i < j.

    Keys are ``"signed_i_j"``; a pair whose means coincide gives NaN.
    """
    means = [column_mean(G, memo) for G in groups]
    out = {}
    for i, j in itertools.combinations(range(len(groups)), 2):
        direction = means[i] - means[j]
        norm = np.linalg.norm(direction)
        scale = max(float(np.linalg.norm(means[i])), float(np.linalg.norm(means[j])), 1e-300)
        out[f"signed_{i}_{j}"] = T @ direction / norm if norm > DEPENDENCE_TOL * scale else np.full(len(T), np.nan)
    return out


def same(T: np.ndarray, *groups: np.ndarray) -> MetricResult:
    """SAME(T) = mean_t b(t, A) ∈ [0, 1]; 0 iff every word is equidistant to all group means.

    Parameters
    ----------
    T : ndarray, shape (m, d)
        Unit vectors of the neutral words.
    *groups : ndarray, shapes (n_i, d)
        Unit vectors of each group's words; the group mean â_i is the mean of these.
    """
    return _same(T, groups, signed_pair_bias(T, groups))


def _same(T: np.ndarray, groups: tuple[np.ndarray, ...], words: dict[str, np.ndarray],
          memo: Memo | None = None) -> MetricResult:
    basis = bias_basis(np.array([column_mean(G, memo) for G in groups]))
    details = {"n_groups": len(groups), "bias_dims": basis.shape[0]}
    if basis.shape[0] == 0:
        return MetricResult.undefined("all group means coincide: no bias direction", details, words)
    b = np.linalg.norm(T @ basis.T, axis=1)
    return MetricResult(b.mean(), details, word_values={"b": b, **words})


def same_skew(T: np.ndarray, *groups: np.ndarray) -> MetricResult:
    """Skew: the mean of the signed binary SAME over the neutral words (Schröder et al. 2021, §4.4).

    Two groups: the signed mean, 0 when the words are not on average closer to either
    group. More groups: the mean over all pairs i < j of |skew_ij|; each pair's signed
    skew is in the details.
    """
    return _reduce(signed_pair_bias(T, groups), np.mean, signed_value=True)


def same_stereotype(T: np.ndarray, *groups: np.ndarray) -> MetricResult:
    """Stereotype: the (population) standard deviation of the signed binary SAME over the
    neutral words (Schröder et al. 2021, §4.4); with more groups the mean over all pairs i < j."""
    return _reduce(signed_pair_bias(T, groups), np.std, signed_value=False)


def _reduce(signed: dict[str, np.ndarray], statistic, *, signed_value: bool) -> MetricResult:
    per_pair = {key.replace("signed", "pair"): float(statistic(v)) for key, v in signed.items()}
    if any(np.isnan(v) for v in per_pair.values()):
        return MetricResult.undefined("two group means coincide: that pair has no bias direction",
                                      per_pair, signed)
    values = np.array(list(per_pair.values()))
    value = values[0] if signed_value and len(values) == 1 else np.abs(values).mean()
    return MetricResult(value, per_pair, word_values=signed)


def _signed(memo: Memo, T: np.ndarray, groups: list[np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`signed_pair_bias` from the model's memo: SAME, SAME-skew and
    SAME-stereotype of one subquery read the same projections (read-only)."""
    known = memo.remember("same signed", (T, *groups),
                          lambda: {k: read_only(v) for k, v in signed_pair_bias(T, tuple(groups), memo).items()})
    return dict(known)


def _same_shared(memo: Memo, t: list[np.ndarray], a: list[np.ndarray]) -> MetricResult:
    return _same(a[0], tuple(t), _signed(memo, a[0], t), memo)


def _skew_shared(memo: Memo, t: list[np.ndarray], a: list[np.ndarray]) -> MetricResult:
    return _reduce(_signed(memo, a[0], t), np.mean, signed_value=True)


def _stereotype_shared(memo: Memo, t: list[np.ndarray], a: list[np.ndarray]) -> MetricResult:
    return _reduce(_signed(memo, a[0], t), np.std, signed_value=False)


def _permuted_means(groups: list[np.ndarray], labels: np.ndarray, memo: Memo | None = None) -> np.ndarray:
    """The group means â_i of each draw of the permutation null: shape (draws, groups, d)
    (``memo``: remembered for the other SAME scores of these groups and deals)."""
    def means() -> np.ndarray:
        share = ((labels[:, None, :] == np.arange(len(groups))[None, :, None])
                 / np.array([len(g) for g in groups])[:, None])
        return share @ np.concatenate(groups)
    return remembered(memo, "chance group means", tuple(groups), means)


def _permuted_directions(groups: list[np.ndarray], labels: np.ndarray, memo: Memo | None = None) -> list[np.ndarray]:
    """The unit directions (â_i − â_j)/‖â_i − â_j‖ of each draw, one (draws, d) array per pair
    i < j, as :func:`signed_pair_bias` takes them (NaN rows: the pair's means coincide)."""
    def directions() -> list[np.ndarray]:
        means, out = _permuted_means(groups, labels, memo), []
        for i, j in itertools.combinations(range(len(groups)), 2):
            direction = means[:, i] - means[:, j]
            norm = np.linalg.norm(direction, axis=1)
            scale = np.maximum(np.maximum(np.linalg.norm(means[:, i], axis=1), np.linalg.norm(means[:, j], axis=1)),
                               1e-300)
            defined = norm > DEPENDENCE_TOL * scale
            out.append(np.where(defined[:, None], direction / np.where(defined, norm, 1)[:, None], np.nan))
        return out
    return remembered(memo, "chance directions", tuple(groups), directions)


def same_permuted(targets: list[np.ndarray], attributes: list[np.ndarray], target_labels: np.ndarray,
                  attribute_labels: None, memo: Memo | None = None) -> np.ndarray:
    """SAME in each draw of the permutation null (`MetricSpec.permuted_draws`): :func:`bias_basis`
    by Gram–Schmidt over every draw at once (a dependent direction becomes a zero row)."""
    means = _permuted_means(targets, target_labels, memo)
    scale = np.maximum(np.abs(means).max(axis=(1, 2)), 1e-300)
    basis: list[np.ndarray] = []
    for direction in np.moveaxis(means[:, 1:] - means[:, :1], 1, 0):
        residual = direction - sum(((direction * b).sum(axis=1, keepdims=True) * b for b in basis),
                                   np.zeros_like(direction))
        norm = np.linalg.norm(residual, axis=1)
        kept = norm > DEPENDENCE_TOL * scale
        basis.append(np.where(kept[:, None], residual / np.where(kept, norm, 1)[:, None], 0.0))
    projections = np.stack([b @ attributes[0].T for b in basis])  # (directions, draws, words)
    value = np.sqrt((projections ** 2).sum(axis=0)).mean(axis=1)
    return np.where(np.any([np.any(b != 0, axis=1) for b in basis], axis=0), value, np.nan)


def _reduce_permuted(per_pair_values: list[np.ndarray], *, signed_value: bool) -> np.ndarray:
    """:func:`_reduce` of each draw: its pairs' statistics (pairs, draws), NaN where a pair is undefined."""
    per_pair = np.array(per_pair_values)
    value = per_pair[0] if signed_value and len(per_pair) == 1 else np.abs(per_pair).mean(axis=0)
    return np.where(np.isnan(per_pair).any(axis=0), np.nan, value)


def skew_permuted(targets: list[np.ndarray], attributes: list[np.ndarray], target_labels: np.ndarray,
                  attribute_labels: None, memo: Memo | None = None) -> np.ndarray:
    """SAME-skew in each draw of the permutation null (`MetricSpec.permuted_draws`): the mean
    of cos(t, u) over the neutral words t is cos(mean t, u), one product per draw."""
    mean = attributes[0].mean(axis=0)
    return _reduce_permuted([u @ mean for u in _permuted_directions(targets, target_labels, memo)],
                            signed_value=True)


def stereotype_permuted(targets: list[np.ndarray], attributes: list[np.ndarray], target_labels: np.ndarray,
                        attribute_labels: None, memo: Memo | None = None) -> np.ndarray:
    """SAME-stereotype in each draw of the permutation null (`MetricSpec.permuted_draws`): the
    standard deviation of t · u over the neutral words t, ‖C u‖/√n with C the centred words
    (n × d), or √(uᵀ Σ u) with Σ = CᵀC/n (made once per set with ``memo``), whichever takes
    fewer products: n·d·draws against d²·draws (+ n·d² for Σ)."""
    (n, dims), directions = attributes[0].shape, _permuted_directions(targets, target_labels, memo)
    if n * dims * len(directions[0]) < dims * dims * (len(directions[0]) + (0 if memo is not None else n)):
        centred = attributes[0] - attributes[0].mean(axis=0)
        variances = [((centred @ u.T) ** 2).mean(axis=0) for u in directions]
    else:
        def covariance() -> np.ndarray:
            centred = attributes[0] - attributes[0].mean(axis=0)
            return centred.T @ centred / n
        sigma = remembered(memo, "chance covariance", (attributes[0],), covariance)
        variances = [((u @ sigma) * u).sum(axis=1) for u in directions]
    return _reduce_permuted([np.sqrt(np.maximum(v, 0)) for v in variances], signed_value=False)


#: SAME and its skew and stereotype scores.
METRIC = (
    MetricSpec(
        name="SAME", func=same,
        call=lambda t, a, **o: same(a[0], *t, **o),
        memo_call=_same_shared, permuted_draws=same_permuted,
        template=Template(AtLeast(2), 1), order="ascending", change_tolerance=0.005, word_role="attributes",
        pair_keyed=True,
        formula="mean_{t∈A} ‖(cos(t, b_k))_k‖, b_k: Gram–Schmidt basis of â_i − â_0 over the target groups",
        reference="Schröder, Schulz & Hammer 2024, §3",
    ),
    MetricSpec(
        name="SAME-skew", func=same_skew,
        call=lambda t, a, **o: same_skew(a[0], *t, **o),
        memo_call=_skew_shared, permuted_draws=skew_permuted,
        template=Template(AtLeast(2), 1), order="abs", change_tolerance=0.005, pair_keyed=True,
        formula="mean_{t∈A} cos(t, â_i − â_j); n > 2 groups: mean over pairs i < j of |skew_ij|",
        reference="Schröder et al. 2021, §4.4",
    ),
    MetricSpec(
        name="SAME-stereotype", func=same_stereotype,
        call=lambda t, a, **o: same_stereotype(a[0], *t, **o),
        memo_call=_stereotype_shared, permuted_draws=stereotype_permuted,
        template=Template(AtLeast(2), 1), order="ascending", change_tolerance=0.005, pair_keyed=True,
        formula="std_{t∈A} cos(t, â_i − â_j); n > 2 groups: mean over pairs i < j",
        reference="Schröder et al. 2021, §4.4",
    ),
)
