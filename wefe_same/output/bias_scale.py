"""How every score figure and heatmap colours a metric's scores: by their distance from
the metric's ideal, in the metric's order, so that darker means more biased for every
metric alike.

A signed WEAT score of −1.2 and an ECT of 0.2 (ideal 1, higher is fairer) are both far
from fair; drawn on their raw values (a diverging map centred at 0, or a sequential one
from the minimum), ECT's least biased cells came out darkest and MAC's (ideal 1) scale
started at its minimum. Here each order maps a score x to how far it is from no bias:

========== ===================== =========================================
order      distance              metrics (Badilla et al. 2020, §3.1)
========== ===================== =========================================
abs        \\|x − ideal\\|       WEAT, WEAT-ES, RND, gWEAT, RIPA, SAME-skew
ideal      \\|x − ideal\\|       MAC (ideal 1)
ascending  x − ideal             RNSB, SAME, DirectBias, SAME-stereotype
descending ideal − x             ECT (ideal 1)
========== ===================== =========================================

The lower limit snaps to the ideal (distance 0) where the data reach it within
rounding (:data:`ROUNDING` of the largest distance: the rule of the word table, where
values below 1e-12 of the largest are rounding noise), so a legend reads 0 and not 2.9e-17.
"""

from __future__ import annotations

import numpy as np

from wefe_same.output.report_svg import ROBUST_MIN, SEQUENTIAL, Scale, fmt

#: The lead of the report's score heatmaps.
SCORES_LEAD = ("Each metric's score per model (rows) and subquery (columns); hover a cell for its value. Colour: the "
               "distance from the metric's ideal in its order, the same for every metric (pale = at the ideal, dark = "
               "most biased; grey = no value).")
#: A distance within this fraction of the largest one is the ideal itself, reached up to rounding.
ROUNDING = 1e-12


def bias_distance(values: np.ndarray, order: str, ideal: float = 0.0) -> np.ndarray:
    """How far each score is from no bias, in the metric's order (NaN stays NaN).

    >>> bias_distance(np.array([0.9, -0.2, np.nan]), "descending", 1.0).round(2).tolist()
    [0.1, 1.2, nan]
    >>> bias_distance(np.array([-1.5, 0.5]), "abs").tolist()
    [1.5, 0.5]
    """
    x = np.asarray(values, dtype=float)
    if order == "ascending":
        return x - ideal
    if order == "descending":
        return ideal - x
    return np.abs(x - ideal)  # "abs" (ideal 0) and "ideal"


def distance_label(order: str, ideal: float = 0.0) -> str:
    """The distance as a formula of the score x, for a legend.

    >>> distance_label("abs"), distance_label("ideal", 1.0), distance_label("descending", 1.0)
    ('|x|', '|x − 1|', '1 − x')
    """
    shift = f" − {ideal:g}" if ideal > 0 else f" + {-ideal:g}" if ideal < 0 else ""
    if order == "ascending":
        return f"x{shift}"
    if order == "descending":
        return f"{ideal:g} − x"
    return f"|x{shift}|"


def bias_legend(metric: str, order: str, ideal: float = 0.0, sep: str = "; ") -> str:
    """The legend of a metric's score colours (``sep="\\n"``: two lines, beside a colour bar).

    >>> bias_legend("ECT", "descending", 1.0)
    'ECT: distance from the ideal 1 (1 − x); darker = more biased'
    """
    return f"{metric}: distance from the ideal {ideal:g} ({distance_label(order, ideal)}){sep}darker = more biased"


def bias_limits(distance: np.ndarray) -> tuple[float, float, str]:
    """Colour limits (low, high) of a distance matrix and a note on how they were chosen.

    The data's range; from :data:`~wefe_same.output.report_svg.ROBUST_MIN` values on,
    the 2nd–98th percentiles where they span less than 3/4 of it (a few outliers no
    longer leave every other cell pale). The lower limit is the ideal, 0, wherever the
    data reach it within rounding.

    >>> bias_limits(np.array([2.9e-17, 0.5, 1.0, np.nan]))
    (0.0, 1.0, '')
    >>> bias_limits(np.array([0.2, 0.4]))
    (0.2, 0.4, '')
    """
    finite = np.asarray(distance, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return 0.0, 1.0, ""
    lo, hi = float(finite.min()), float(finite.max())
    low, high, note = lo, hi, ""
    at_ideal = abs(lo) <= ROUNDING * max(abs(lo), abs(hi))  # the ideal is reached: the legend starts at it
    if finite.size >= ROBUST_MIN:
        p_lo, p_hi = (float(x) for x in np.percentile(finite, [2, 98]))
        if p_hi > p_lo and p_hi - p_lo < 0.75 * (hi - lo):
            low, high = p_lo, p_hi
            note = (f"upper limit: 98th percentile (largest distance {fmt(hi, 3)})" if at_ideal else
                    f"limits: 2nd–98th percentile (distances from {fmt(lo, 3)} to {fmt(hi, 3)})")
    if at_ideal:
        low = 0.0
    if high <= low:
        high = low + 1.0
    return low, high, note


def bias_shading(values: np.ndarray, order: str, ideal: float = 0.0) -> tuple[np.ndarray, Scale]:
    """The distances of ``values`` and the report's sequential scale over them."""
    distance = bias_distance(values, order, ideal)
    low, high, note = bias_limits(distance)
    finite = distance[np.isfinite(distance)]
    return distance, Scale(low, high, SEQUENTIAL, note=note, open_low=bool(finite.size and finite.min() < low != 0.0))


def metric_orders(manifest: dict) -> dict[str, tuple[str, float]]:
    """Metric name → (order, ideal) as the run's manifest records them; a manifest written
    before the ideal was recorded for every metric takes a built-in metric's from the registry."""
    from wefe_same.metrics.registry import METRICS

    out = {}
    for entry in manifest.get("metrics", []):
        if not isinstance(entry, dict) or "name" not in entry:
            continue
        name = str(entry["name"])
        known = METRICS.get(name)
        order = str(entry.get("order", known.order if known is not None else "abs"))
        ideal = entry.get("ideal", known.ideal if known is not None else 0.0)
        try:
            out[name] = (order, float(ideal))
        except (TypeError, ValueError):
            out[name] = (order, 0.0)
    return out
