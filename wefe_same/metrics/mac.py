"""MAC, the Mean Average Cosine distance (Manzini et al. 2019)."""

from __future__ import annotations

import numpy as np

from wefe_same.metrics.memo import Memo, column_mean
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import AtLeast, Template


def mac(T: np.ndarray, *attribute_sets: np.ndarray, memo: Memo | None = None) -> MetricResult:
    """Mean Average Cosine distance: mean over t ∈ T and A_j of mean_{a∈A_j} (1 − cos(t, a)).

    1 means no association on average (the ideal value); 0 or 2 strong (anti-)association.
    """
    per_word = np.array([1.0 - T @ column_mean(A, memo) for A in attribute_sets]).mean(axis=0)
    return MetricResult(per_word.mean(), {"n_attribute_sets": len(attribute_sets)},
                        word_values={"mean_cosine_distance": per_word})


METRIC = MetricSpec(
    name="MAC", func=mac,
    call=lambda t, a, **o: mac(t[0], *a, **o),
    template=Template(1, AtLeast(1)), order="ideal", change_tolerance=0.005, ideal=1.0,
    formula="mean_{t∈T, j} mean_{a∈Aj} (1 − cos(t, a))",
    reference="Manzini, Lim, Tsvetkov & Black 2019, NAACL",
)
