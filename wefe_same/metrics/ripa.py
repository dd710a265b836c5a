"""RIPA, the Relational Inner Product Association (Ethayarajh, Duvenaud & Hirst 2019),
as WEFE (Badilla et al. 2020) describes it."""

from __future__ import annotations

import numpy as np

from wefe_same.metrics._norms import safe_norm
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import Template


def ripa(T1: np.ndarray, T2: np.ndarray, A: np.ndarray) -> MetricResult:
    """Relational Inner Product Association: mean_a mean_i ⟨a, b_i⟩, b_i = (x_i − y_i)/‖x_i − y_i‖
    for the pairs (x_i, y_i) of the aligned target sets. Raw vectors; 0 means no association."""
    diff = T1 - T2
    norms = safe_norm(diff, axis=1, keepdims=True)
    if np.any(norms == 0):
        return MetricResult.undefined("a target pair has two identical vectors: no relation vector",
                                      {"n_pairs": len(T1)})
    per_word = (A @ (diff / norms).T).mean(axis=1)
    return MetricResult(per_word.mean(), {"n_pairs": len(T1)}, word_values={"ripa": per_word})


METRIC = MetricSpec(
    name="RIPA", func=ripa,
    call=lambda t, a, **o: ripa(t[0], t[1], a[0], **o),
    template=Template(2, 1), order="abs", change_tolerance=0.01, vectors="raw", aligned_targets=True,
    formula="mean_{a∈A} mean_i ⟨a, (x_i − y_i)/‖x_i − y_i‖⟩ over the aligned pairs (x_i, y_i) of T1, T2",
    reference="Ethayarajh, Duvenaud & Hirst 2019, ACL; as in WEFE",
)
