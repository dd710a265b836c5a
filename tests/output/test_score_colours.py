"""Score colours that agree with the metric (issue 39, item 3): in report.html and in the
``scores_*`` figures every metric's least biased cell is the palest colour and its most
biased cell the darkest, whatever the metric's order and ideal (ECT, ideal 1, higher is
fairer, had its least biased cells darkest red); NaN is the same grey in both; a legend
starts at the ideal, 0, where the data reach it within rounding (not at 2.9e-17).

Hand-built scores per metric of the registry: one cell at the ideal plus rounding noise,
one far on the biased side (for an ``abs`` metric the *negative* side: the lowest raw
value is the most biased), cells between, and a NaN.
"""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from wefe_same.metrics.registry import METRICS
from wefe_same.output.bias_scale import bias_distance, bias_limits
from wefe_same.output.figure_jobs import draw_scores
from wefe_same.output.report_data import ReportData
from wefe_same.output.report_html import build_report
from wefe_same.output.report_svg import MISSING, SEQUENTIAL

matplotlib.use("Agg")

MODELS = ["least", "mid", "most", "blank"]
#: The side of the ideal on which each order puts a biased score (abs: either; the test takes the negative).
BIASED_SIDE = {"abs": -1.0, "ideal": 1.0, "ascending": 1.0, "descending": -1.0}


def hand_scores(order: str, ideal: float) -> pd.DataFrame:
    side = BIASED_SIDE[order]
    return pd.DataFrame({"q1": [ideal + 2.9e-17, ideal + side * 0.5, ideal + side * 2.0, np.nan],
                         "q2": [ideal, ideal + side * 1.0, ideal + side * 1.5, np.nan]}, index=MODELS)


def report_fills(html: str, metric: str) -> dict[tuple[str, str], str]:
    """(model, subquery) → fill of the metric's score cells in the page."""
    cells = re.findall(r'fill="(#[0-9a-f]{6})"/><title>([^<\n]+)\n([^<\n]+)\n' + re.escape(metric) + " = ", html)
    return {(model, column): fill for fill, model, column in cells}


def figure_fills(fig) -> np.ndarray:
    """The colour each cell of the figure's image is drawn in, as #rrggbb (rows × columns)."""
    image = fig.axes[0].images[0]
    rgba = image.to_rgba(image.get_array(), bytes=True)
    return np.array([[f"#{r:02x}{g:02x}{b:02x}" for r, g, b, _ in row] for row in rgba])


def report_for(metric: str, scores: pd.DataFrame, spec) -> str:
    empty = pd.DataFrame(index=MODELS)
    manifest = {"metrics": [{"name": metric, "order": spec.order, "ideal": spec.ideal, "template": "(2, 2)"}]}
    ranks = pd.DataFrame({metric: [1, 2, 3, np.nan]}, index=MODELS)
    data = ReportData(rankings=ranks, aggregates=ranks, correlations=empty, correlation_pvalues=empty,
                      scores={metric: scores}, lookups=pd.DataFrame(columns=["model", "word", "status"]),
                      manifest=manifest)
    return build_report(data)


@pytest.mark.parametrize("metric", list(METRICS))
def test_least_and_most_biased_cells_are_palest_and_darkest_in_report_and_figure(metric):
    spec = METRICS[metric]
    scores = hand_scores(spec.order, spec.ideal)
    fills = report_fills(report_for(metric, scores, spec), metric)
    assert fills[("least", "q1")] == fills[("least", "q2")] == SEQUENTIAL[0]
    assert fills[("most", "q1")] == SEQUENTIAL[-1]
    assert fills[("blank", "q1")] == MISSING
    fig, _ = draw_scores(scores, metric, order=(spec.order, spec.ideal))
    drawn = figure_fills(fig)
    assert drawn[0, 0] == drawn[0, 1] == SEQUENTIAL[0]
    assert drawn[2, 0] == SEQUENTIAL[-1]
    assert drawn[3, 0] == drawn[3, 1] == MISSING
    # between: darker (lower luminance) the farther from the ideal, in both
    from wefe_same.output.report_svg import luminance

    shades = [luminance(fills[(m, "q1")]) for m in ("least", "mid", "most")]
    assert shades == sorted(shades, reverse=True) and len(set(shades)) == 3
    assert [luminance(drawn[i, 0]) for i in range(3)] == pytest.approx(shades, abs=0.02)
    label = fig.axes[1].get_ylabel()  # the colour bar says what the colours are
    assert "distance from the ideal" in label and "darker = more biased" in label
    import matplotlib.pyplot as plt

    plt.close(fig)


@pytest.mark.parametrize("metric", ["SAME", "DirectBias", "ECT", "MAC"])
def test_the_legend_starts_at_the_ideal_reached_within_rounding(metric):
    spec = METRICS[metric]
    scores = hand_scores(spec.order, spec.ideal)
    scores.loc["least", "q2"] = spec.ideal + 2.9e-17  # no cell exactly at the ideal: rounding noise only
    low, high, _ = bias_limits(bias_distance(scores.to_numpy(float), spec.order, spec.ideal))
    assert (low, high) == (0.0, pytest.approx(2.0))
    html = report_for(metric, scores, spec)
    bar = html.split('linearGradient id="grad-s0"')[1]
    assert re.search(r"<text [^>]*>([^<]*)</text>", bar.split("</defs>")[1]).group(1) == "0"
    assert "e-17" not in bar.split("</svg>")[0].split("</defs>")[1][:400]
    fig, _ = draw_scores(scores, metric, order=(spec.order, spec.ideal))
    assert fig.axes[0].images[0].get_clim() == (0.0, pytest.approx(2.0))


def test_far_from_the_ideal_everywhere_keeps_the_datas_limits():
    """A metric no model gets near its ideal: the scale spans the data (limits not forced to 0)."""
    distance = bias_distance(np.array([0.4, 0.6, 0.8]), "descending", 1.0)
    assert bias_limits(distance) == (pytest.approx(0.2), pytest.approx(0.6), "")
