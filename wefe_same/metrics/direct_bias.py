"""Direct Bias (Bolukbasi et al. 2016), with a k-dimensional PCA subspace (Schröder, Schulz & Hammer 2024, eq. 17)."""

from __future__ import annotations

import numpy as np

from wefe_same.metrics.memo import Memo, RunMemo, read_only
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec, integer, number
from wefe_same.query.sets import AtLeast, Template
from wefe_same.validation import check_int, check_number

#: With ``c = 0`` a word counts as orthogonal to the bias subspace (|cos|⁰ = 0) when its
#: norm of cosines is at most this; rounding leaves ~d · 2⁻⁵³ on an orthogonal unit vector.
ORTHOGONAL_TOL = 1e-12

def _svd(centred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(singular values, Vᵀ) of ``centred``, read-only."""
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    return read_only(singular), read_only(vt)


def pca_subspace(tuples: np.ndarray, k: int, memo: RunMemo | None = None) -> tuple[np.ndarray, np.ndarray]:
    """First ``k`` principal components of the centred defining tuples.

    Parameters
    ----------
    tuples : ndarray, shape (n_groups, m, d)
        ``tuples[g, j]`` is the unit vector of the j-th defining word of group g.

    Returns
    -------
    components : ndarray, shape (k, d)
    explained : ndarray, shape (k,)
        Share of the centred variance each component explains.

    ``memo``: the run's memo, which keeps the SVD by the matrix's bytes (a run scores the
    same defining tuples against many neutral sets; the SVD is most of Direct Bias's cost
    at 300+ dimensions).
    """
    centred = (tuples - tuples.mean(axis=0, keepdims=True)).reshape(-1, tuples.shape[-1])
    # Each tuple sums to zero, so the stacked matrix is already centred: plain SVD is PCA.
    if memo is None:
        singular, vt = _svd(centred)
    else:
        key = (centred.dtype.str, centred.shape, centred.tobytes())
        singular, vt = memo.remember("svd", key, lambda: _svd(centred))
    variance = singular**2
    return vt[:k].copy(), variance[:k] / variance.sum()


def direct_bias(T: np.ndarray, *groups: np.ndarray, k: int | None = None, c: float = 1.0,
                memo: Memo | None = None) -> MetricResult:
    """mean_t ‖(cos(t, b_i))_{i≤k}‖^c over the neutral words ``T``; 0 means no bias.

    Parameters
    ----------
    T : ndarray, shape (m, d)
        Unit vectors of the neutral words.
    *groups : ndarray, each of shape (p, d)
        Aligned defining words: row j of every group forms the j-th defining tuple.
    k : int, optional
        Number of principal components; default ``n_groups − 1`` (Schröder, Schulz & Hammer 2024, §4.3.2).
    c : float >= 0, default 1
        Strictness exponent (Bolukbasi et al. 2016, §5). ``c = 0`` follows their
        convention that |cos(w, g)|⁰ is 0 when w is orthogonal to the bias direction and
        1 otherwise, so the value is the share of words with a nonzero projection on the
        bias subspace (a norm at most ``ORTHOGONAL_TOL`` counts as zero); numpy's
        ``0.0 ** 0 == 1`` would make it 1 for every input.

    >>> e = np.eye(3)
    >>> direct_bias(e, e[:1], -e[:1], c=0).value  # e1 lies on the bias direction, e2 and e3 not
    0.3333333333333333
    """
    n = len(groups)
    k = n - 1 if k is None else k
    check_int(k, "k", "direct_bias", minimum=1)
    c = check_number(c, "c", "direct_bias", low=0)
    tuples = np.stack(groups)
    details = {"k": k, "n_tuples": tuples.shape[1], "explained_variance": np.nan}
    rank = min(tuples.shape[1] * (n - 1), tuples.shape[2])
    if k > rank:
        return MetricResult.undefined(
            f"k={k} principal components asked, but {tuples.shape[1]} tuple(s) of {n} groups span at most {rank}",
            details,
        )
    components, explained = pca_subspace(tuples, k, None if memo is None else memo.run)
    details["explained_variance"] = explained.sum()
    b = np.linalg.norm(T @ components.T, axis=1)
    powered = (b > ORTHOGONAL_TOL).astype(float) if c == 0 else b**c
    return MetricResult(powered.mean(), details, word_values={"b": b})


METRIC = MetricSpec(
    name="DirectBias", func=direct_bias,
    call=lambda t, a, **o: direct_bias(a[0], *t, **o),
    template=Template(AtLeast(2), 1), order="ascending", change_tolerance=0.005, aligned_targets=True,
    word_role="attributes", option_checks={"k": integer(1, none=True), "c": number(0)},
    formula="mean_{t∈A} ‖(cos(t, b_i))_{i≤k}‖^c, b_i: first k PCs of the centred aligned target tuples",
    reference="Bolukbasi et al. 2016, NeurIPS; k-dimensional form: Schröder, Schulz & Hammer 2024, eq. 17",
)
