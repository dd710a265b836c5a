"""gWEAT, the generalised WEAT for n groups (Swinger et al. 2019; Schröder, Schulz & Hammer 2024, eq. 3)."""

from __future__ import annotations

import numpy as np

from wefe_same.metrics.memo import Memo, column_mean
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import AtLeast, Template


def gweat(targets: list[np.ndarray], attributes: list[np.ndarray], *, memo: Memo | None = None) -> MetricResult:
    """g = Σ_i (X̄_i − μ) · (Ā_i − Ā), target set i paired with attribute set i
    (Schröder, Schulz & Hammer 2024, eq. 3).

    X̄_i, Ā_i are means of unit vectors, μ and Ā their means. With two pairs of equal size
    m, g = WEAT / (2m).
    """
    if len(targets) != len(attributes):
        return MetricResult.undefined(
            f"gWEAT pairs target set i with attribute set i: got {len(targets)} target and "
            f"{len(attributes)} attribute sets", {"n_groups": len(targets)})
    x_means = np.array([column_mean(T, memo) for T in targets])
    a_means = np.array([column_mean(A, memo) for A in attributes])
    value = np.sum((x_means - x_means.mean(axis=0)) * (a_means - a_means.mean(axis=0)))
    return MetricResult(value, {"n_groups": len(targets)})


METRIC = MetricSpec(
    name="gWEAT", func=gweat,
    call=lambda t, a, **o: gweat(t, a, **o),
    template=Template(AtLeast(2), AtLeast(2)), order="abs", change_tolerance=0.005,
    formula="Σ_i (T̄_i − μ)·(Ā_i − Ā), target set i paired with attribute set i, unit vectors",
    reference="Swinger et al. 2019, AIES; as in Schröder, Schulz & Hammer 2024, eq. 3",
)
