"""Relative Norm Distance (Garg et al. 2018, eq. 3; Badilla et al. 2020, §4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wefe_same.metrics._norms import distances_to, safe_norm
from wefe_same.metrics.memo import Memo, column_mean
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec, boolean
from wefe_same.query.sets import Template


def rnd(T1: np.ndarray, T2: np.ndarray, A: np.ndarray, *, normalize: bool = True) -> MetricResult:
    """Σ_{a∈A} (‖avg(T1) − a‖ − ‖avg(T2) − a‖); 0 means no bias, positive means A is closer to T2.

    Parameters
    ----------
    T1, T2, A : ndarray, shapes (n1, d), (n2, d), (m, d)
        Raw vectors.
    normalize : bool, default True
        Scale every vector to unit length first, as Garg et al. do; ``False`` uses the
        raw vectors, as WEFE does.
    """
    if normalize:
        T1, T2, A = (M / safe_norm(M, axis=1, keepdims=True) for M in (T1, T2, A))
    d1, d2 = distances_to(A, np.stack((column_mean(T1), column_mean(T2))))
    return _from_distances(d1, d2)


def _from_distances(d1: np.ndarray, d2: np.ndarray) -> MetricResult:
    diff = d1 - d2
    return MetricResult(diff.sum(), {"share_closer_to_targets_1": float(np.mean(diff < 0))})


def _shared(memo: Memo, t: list[np.ndarray], a: list[np.ndarray], *, normalize: bool = True) -> MetricResult:
    """:func:`rnd` with the distances from the model's memo (scoring hands unit vectors
    with ``normalize=False``; a call that still asks to normalise is computed alone)."""
    if normalize:
        return rnd(t[0], t[1], a[0], normalize=True)
    return _from_distances(memo.distances(a[0], t[0]), memo.distances(a[0], t[1]))


def _declare(calls: list[tuple[Memo, list[np.ndarray], list[np.ndarray], Mapping[str, Any]]]) -> None:
    for memo, t, a, options in calls:
        if not options.get("normalize", True):
            memo.declare_distances(a[0], t[0])
            memo.declare_distances(a[0], t[1])


METRIC = MetricSpec(
    name="RND", func=rnd,
    call=lambda t, a, **o: rnd(t[0], t[1], a[0], **o),
    memo_call=_shared, declare_memo=_declare,
    template=Template(2, 1), order="abs", change_tolerance=0.01, vectors="raw", unit_option="normalize",
    option_checks={"normalize": boolean()},
    formula="Σ_{a∈A} (‖avg(T1) − a‖₂ − ‖avg(T2) − a‖₂), unit vectors by default",
    reference="Garg, Schiebinger, Jurafsky & Zou 2018, PNAS 115(16)",
)
