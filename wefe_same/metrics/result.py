"""The one result type every metric returns, with the same fields on every path."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class MetricResult:
    """A metric's value, its details, and the reason when the value is NaN.

    Attributes
    ----------
    value : float
        The score; NaN when the metric is undefined on its input.
    details : mapping of str to float
        Intermediate quantities (same keys on every path of one metric).
    reason : str or None
        Why ``value`` is NaN; None when it is a number.
    word_values : mapping of str to ndarray
        Per-word scores by component (e.g. ``"s"`` for WEAT's s(w, A, B)), each aligned
        with the rows of the input role the metric's spec names (``word_role``).

    Examples
    --------
    >>> MetricResult(0.5, {"n": 3}).to_frame()
       value reason  n
    0    0.5   None  3
    """

    value: float
    details: Mapping[str, float] = field(default_factory=dict)
    reason: str | None = None
    word_values: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))
        object.__setattr__(self, "word_values", MappingProxyType(dict(self.word_values)))
        if math.isnan(self.value) and not self.reason:
            raise ValueError("a NaN metric value needs a reason")

    @classmethod
    def undefined(cls, reason: str, details: Mapping[str, float],
                  word_values: Mapping[str, np.ndarray] | None = None) -> MetricResult:
        """A NaN result; ``details`` carries the same keys as the defined path (NaN-filled)."""
        return cls(math.nan, details, reason, word_values or {})

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"value": self.value, "reason": self.reason, **self.details}])
