"""Figures (looked at: rendered and checked not blank) and the paper tables."""

import numpy as np
import pandas as pd
import pytest

from wefe_same import plots, rank
from wefe_same.tables import latex_escape


@pytest.fixture(scope="module")
def result():
    from conftest import random_source
    from wefe_same import Query, WordSet

    sources = [random_source(f"model_{i}", seed=i) for i in range(4)]
    q = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good"]), WordSet("care", ["nurse", "teacher", "sad"])])
    return rank(sources, [q], bootstrap=50, progress=False)


def not_blank(ax):
    ax.figure.canvas.draw()
    pixels = np.asarray(ax.figure.canvas.buffer_rgba())[..., :3]
    return pixels.std() > 10 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 20


def test_every_plot_draws_something_and_returns_its_axes(result):
    import matplotlib.pyplot as plt

    drawings = [
        plots.correlation_heatmap(result.correlations),
        plots.accumulated_rankings(result.rankings),
        plots.score_heatmap(result.scores["SAME"]),
        plots.most_biased_words(result.word_bias, "model_0"),
        plots.rank_stability(result.rank_stability),
    ]
    for ax in drawings:
        assert not_blank(ax)
    fig, ax = plt.subplots()
    assert plots.correlation_heatmap(result.correlations, ax=ax) is ax
    plt.close("all")


def test_quality_columns_are_set_apart_in_the_heatmap(result):
    rho = result.correlations.copy()
    rho["quality"] = 0.5
    rho.loc["quality"] = 0.5
    ax = plots.correlation_heatmap(rho, set_apart=["quality"])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[-1] == "quality"
    assert len(ax.lines) == 2  # the fence between fairness metrics and quality


def test_saved_folder_has_figures_in_three_formats_and_tables(result, tmp_path):
    import matplotlib.image as mpimg

    out = result.save(tmp_path / "res")
    figures = out / "figures"
    stems = {"correlations", "accumulated_rankings", "rank_stability", "scores_SAME", "most_biased_words_model_0"}
    for stem in stems:
        for fmt in ("png", "pdf", "svg"):
            assert (figures / f"{stem}.{fmt}").stat().st_size > 1000, (stem, fmt)
        pixels = mpimg.imread(figures / f"{stem}.png")[..., :3]
        assert pixels.std() > 0.03, stem
    tex = (out / "tables" / "rankings.tex").read_text()
    assert tex.count(r"\toprule") == 1 and r"\textbf{1 (" in tex and r"model\_0" in tex
    md = (out / "tables" / "rankings.md").read_text()
    best = result.rankings["SAME"].idxmin()
    value = result.aggregates.at[best, "SAME"]
    assert f"**1 ({value:.2f})**" in md and "**Overall**" in md
    corr = (out / "tables" / "correlations.md").read_text()
    assert corr.count("\n|") == len(result.correlations) + 2  # header, rule, one row per metric


def test_latex_escape():
    assert latex_escape("a_b & c%") == r"a\_b \& c\%"


def test_same_inputs_give_identical_figure_bytes(result, tmp_path):
    a, b = result.save(tmp_path / "a"), result.save(tmp_path / "b")
    for name in ("correlations.pdf", "correlations.svg", "correlations.png", "accumulated_rankings.svg"):
        assert (a / "figures" / name).read_bytes() == (b / "figures" / name).read_bytes(), name
    pd.testing.assert_frame_equal(pd.read_csv(a / "rankings.csv"), pd.read_csv(b / "rankings.csv"))
