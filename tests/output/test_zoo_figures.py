"""Figures of a 100-model run stay legible (issue 21, item 5): one figure per metric,
models in rank order, signed scores on a diverging map centred at zero, and no two
model labels overlap."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from wefe_same.output.figure_jobs import draw_accumulated, draw_scores

N = 100
MODELS = [f"model-with-a-longish-name-{i:03d}" for i in range(N)]


def overlapping_labels(fig, axis: str = "y") -> list[tuple[str, str]]:
    """Pairs of neighbouring tick labels whose drawn boxes overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    labels = [t for t in (ax.get_yticklabels() if axis == "y" else ax.get_xticklabels()) if t.get_text()]
    boxes = sorted(((t.get_window_extent(renderer), t.get_text()) for t in labels), key=lambda b: b[0].y0)
    return [(a[1], b[1]) for a, b in itertools.pairwise(boxes) if a[0].overlaps(b[0])]


@pytest.fixture(scope="module")
def signed_scores() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.normal(size=(N, 25)), index=MODELS, columns=[f"gender|q{i}" for i in range(25)])


def test_signed_scores_use_a_diverging_map_centred_at_zero_in_rank_order(signed_scores):
    ranks = pd.Series(np.arange(N, 0, -1), index=MODELS)  # the last model ranks first
    fig, notes = draw_scores(signed_scores, "WEAT", ranks)
    image = fig.axes[0].images[0]
    assert image.get_cmap().name == "RdBu_r"
    assert image.norm.vmin == -image.norm.vmax == -float(np.abs(signed_scores.to_numpy()).max())
    shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert shown == MODELS[::-1] and notes == []
    assert overlapping_labels(fig) == []


def test_one_signed_scores_keep_a_sequential_map():
    scores = pd.DataFrame(np.abs(np.random.default_rng(1).normal(size=(5, 3))), index=MODELS[:5], columns=["a", "b", "c"])
    fig, _ = draw_scores(scores, "SAME")
    assert fig.axes[0].images[0].get_cmap().name == "viridis"


def test_accumulated_rankings_of_100_models_have_no_overlapping_labels():
    rng = np.random.default_rng(2)
    rankings = pd.DataFrame({m: rng.permutation(N) + 1 for m in ("WEAT", "RND", "SAME", "MAC")}, index=MODELS)
    fig, _ = draw_accumulated(rankings)
    assert overlapping_labels(fig) == []
    assert fig.get_figheight() >= 0.15 * N  # the figure grows with the number of models
