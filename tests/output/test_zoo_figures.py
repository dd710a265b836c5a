"""Figures of a 100-model run stay legible (issue 21, item 5): one figure per metric,
models in rank order, signed scores on a diverging map centred at zero, and no two
model labels overlap."""

from __future__ import annotations

import itertools

import matplotlib

from wefe_same import Execution

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


def test_score_pages_share_one_bias_scale_in_rank_order(signed_scores):
    """100 models are 3 pages of at most 40 (issue 29: a figure fits 7 × 9 in), on one scale:
    the distance |x| of WEAT (order abs) over the whole matrix (issue 39: not a diverging
    map of the raw scores, on which the lowest score looked least biased)."""
    from wefe_same.output.bias_scale import bias_limits
    from wefe_same.output.figure_jobs import _score_jobs

    ranks = pd.Series(np.arange(N, 0, -1), index=MODELS)  # the last model ranks first
    jobs = _score_jobs(signed_scores, "WEAT", ranks)
    assert [j.stem for j in jobs] == ["scores_WEAT", "scores_WEAT_page2", "scores_WEAT_page3"]
    shown = []
    for job in jobs:
        fig, notes = job.draw(*job.args)
        image = fig.axes[0].images[0]
        assert image.get_cmap().name == "wefe-bias"
        assert (image.norm.vmin, image.norm.vmax) == bias_limits(np.abs(signed_scores.to_numpy()))[:2]
        shown += [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert notes == [] and overlapping_labels(fig) == []
    assert shown == MODELS[::-1]


def test_scores_are_drawn_on_the_reports_bias_scale():
    scores = pd.DataFrame(np.abs(np.random.default_rng(1).normal(size=(5, 3))), index=MODELS[:5], columns=["a", "b", "c"])
    fig, _ = draw_scores(scores, "SAME", order=("ascending", 0.0))
    assert fig.axes[0].images[0].get_cmap().name == "wefe-bias"  # tests/output/test_score_colours.py: its colours


def test_accumulated_rankings_of_100_models_have_no_overlapping_labels():
    from wefe_same.output.figure_jobs import _accumulated_jobs

    rng = np.random.default_rng(2)
    rankings = pd.DataFrame({m: rng.permutation(N) + 1 for m in ("WEAT", "RND", "SAME", "MAC")}, index=MODELS)
    jobs = _accumulated_jobs(rankings)
    assert len(jobs) == 3  # pages of at most 40 models, each at most 9 in high
    for job in jobs:
        fig, _ = draw_accumulated(*job.args)
        assert overlapping_labels(fig) == []
        rows = len(job.args[0])
        assert 0.15 * rows <= fig.get_figheight() <= 9  # the figure grows with the models of its page


@pytest.fixture(scope="module")
def zoo_result():
    """A real run of 40 small random models with bootstrap intervals (a few seconds)."""
    from conftest import random_source

    from wefe_same import Query, WordSet, rank

    q = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good"]), WordSet("care", ["nurse", "teacher", "sad"])])
    sources = [random_source(f"zoo-{i:02d}", seed=i) for i in range(40)]
    return rank(sources, [q], bootstrap=10, execution=Execution(progress=False))


def test_a_zoo_gets_one_figure_per_metric_never_one_per_model(zoo_result):
    from wefe_same.output.figure_jobs import WORD_FIGURES_MAX, figure_jobs, overall_ranks

    assert len(zoo_result.rankings) > WORD_FIGURES_MAX
    jobs, _ = figure_jobs(zoo_result, "all")
    stems = [job.stem for job in jobs]
    assert not [s for s in stems if "zoo-" in s]  # no file named after a model
    assert stems.count("most_biased_words") == 1
    firsts = [s for s in stems if "_page" not in s]  # a figure larger than 7 × 9 in has pages
    assert len(firsts) <= len(zoo_result.scores) + 5  # per metric, plus the summary figures
    # Every score heatmap lists the models by their overall rank (the same rows in each).
    overall = overall_ranks(zoo_result)
    agg = zoo_result.aggregation.set_index("model")["mean_rank"]
    assert overall is not None and overall.to_dict() == agg.astype(float).to_dict()
    for job in jobs:
        if job.stem.startswith("scores_"):
            assert job.args[2].to_dict() == overall.to_dict()
            fig, _ = job.draw(*job.args)
            shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
            assert shown == list(agg.sort_values(kind="stable").index)
            break
    else:
        raise AssertionError("no score heatmap")


@pytest.mark.parametrize("stem", ["most_biased_words", "rank_stability", "accumulated_rankings"])
def test_the_zoo_figures_grow_with_the_models_and_no_labels_overlap(zoo_result, stem):
    from wefe_same.output.figure_jobs import figure_jobs

    job = next(j for j in figure_jobs(zoo_result, "all")[0] if j.stem == stem)
    fig, notes = job.draw(*job.args)
    assert fig.get_figheight() >= 0.15 * len(zoo_result.rankings)
    assert overlapping_labels(fig) == []
    shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    # every model, one row each (a model with a missing rank says so after its name)
    assert sorted(s.split(" (")[0] for s in shown) == sorted(zoo_result.rankings.index)
    if stem == "rank_stability":  # one panel per metric instead of a 40-entry legend, over pages
        pages = [j for j in figure_jobs(zoo_result, "all")[0] if j.stem.startswith("rank_stability")]
        panels = [ax.get_title() for j in pages for ax in j.draw(*j.args)[0].axes]
        assert panels == list(zoo_result.metric_names) and fig.axes[0].get_legend() is None
