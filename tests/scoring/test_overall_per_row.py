"""Scoring's bootstraps aggregate every draw of a model at once (``overall_per_row``): the
same bits as ``aggregate`` on each draw taken as a one-model frame, the path it replaced.

The oracle is ``aggregate`` itself (pandas' row means); the draws hold query sets of 1 to 150
subqueries (numpy sums 8 or more elements pairwise, so the order of the additions is
checked), NaN scores, query sets with no defined score and all three NaN policies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wefe_same.metrics.registry import resolve_metrics
from wefe_same.scoring.aggregate import NAN_POLICY_NAMES, aggregate, overall_per_row

SIZES = {"one": 1, "seven": 7, "eight": 8, "many": 150}


def draws(seed: int) -> tuple[np.ndarray, list[str], dict[str, str], dict[str, int]]:
    rng = np.random.default_rng(seed)
    columns = [f"{qs}{k}" for qs, n in SIZES.items() for k in range(n)]
    column_sets = {c: c.rstrip("0123456789") for c in columns}
    values = rng.normal(scale=rng.choice([1e-3, 1.0, 1e3]), size=(12, len(columns)))
    values[4:][rng.random(values[4:].shape) < 0.2] = np.nan  # draws 0-3 stay defined ("propagate" defines them)
    values[6] = np.nan  # a draw with no defined score
    values[5, :1] = np.nan  # a draw whose query set "one" is undefined
    return values, columns, column_sets, {"one": 2, "seven": 1, "eight": 5, "many": 3}


@pytest.mark.parametrize("spec", resolve_metrics(None), ids=lambda s: s.name)
@pytest.mark.parametrize("nan_policy", NAN_POLICY_NAMES)
def test_every_row_equals_aggregate_of_that_row_alone_bit_for_bit(spec, nan_policy):
    values, columns, column_sets, weights = draws(len(spec.name))
    got = overall_per_row(values, columns, spec, column_sets, weights, nan_policy=nan_policy)
    expected = np.array([aggregate(pd.DataFrame([row], columns=columns, index=["m"]), spec, column_sets, weights,
                                   nan_policy=nan_policy)["overall"].iloc[0] for row in values])
    assert np.isnan(expected).any() and not np.isnan(expected).all()  # both kinds of row are exercised
    np.testing.assert_array_equal(got, expected)  # equal bits (NaN where NaN), no tolerance


def test_an_unknown_policy_is_refused_by_name():
    values, columns, column_sets, weights = draws(0)
    with pytest.raises(Exception, match="nan_policy"):
        overall_per_row(values, columns, resolve_metrics(["WEAT"])[0], column_sets, weights, nan_policy="drop")
