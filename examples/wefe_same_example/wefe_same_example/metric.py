"""``mean-gap``: how much closer the attribute words are to the first target group than to
the second, on average (a WEAT-like association on group means; Caliskan et al. 2017).

Declared as an entry point in the group ``wefe_same.metrics`` of this package's
``pyproject.toml``; ``wefe-same rank --metrics mean-gap`` then finds it by name.
"""

import numpy as np

from wefe_same import make_metric
from wefe_same.metrics.registry import number


def mean_gap(targets, attributes, *, scale=1.0):
    """scale · mean_a (cos(a, mean T1) − cos(a, mean T2)); unit vectors in, one number out."""
    A = attributes[0]
    first, second = targets[0].mean(axis=0), targets[1].mean(axis=0)
    gap = A @ first / np.linalg.norm(first) - A @ second / np.linalg.norm(second)
    return scale * float(gap.mean())


METRIC = make_metric(mean_gap, name="mean-gap", template=(2, 1), order="abs",
                     options={"scale": number(0, low_open=True)},
                     formula="scale · mean_a (cos(a, mean T1) − cos(a, mean T2))",
                     reference="a WEAT-like association (Caliskan et al. 2017)")
