"""Figures (looked at: rendered and checked not blank) and the paper tables."""

import numpy as np
import pandas as pd
import pytest

from wefe_same import Execution, rank
from wefe_same.output import figures as plots
from wefe_same.output.latex import latex_escape


@pytest.fixture(scope="module")
def result():
    from conftest import random_source

    from wefe_same import Query, WordSet

    sources = [random_source(f"model_{i}", seed=i) for i in range(4)]
    q = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good"]), WordSet("care", ["nurse", "teacher", "sad"])])
    return rank(sources, [q], bootstrap=50, execution=Execution(progress=False))


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


@pytest.fixture(scope="module")
def saved(result, tmp_path_factory):
    return result.save(tmp_path_factory.mktemp("saved") / "res", figures="all")  # every figure, three formats


def test_saved_folder_has_figures_in_three_formats_and_tables(result, saved):
    import matplotlib.image as mpimg

    out = saved
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


def test_same_inputs_give_identical_figure_bytes(result, saved, tmp_path):
    from wefe_same.output import writer as report

    jobs = {job.stem: job for job in report.figure_jobs(result)[0]}
    for stem in ("correlations", "accumulated_rankings"):
        files, _ = report.render(jobs[stem], ("png", "pdf", "svg"))
        for fmt, data in files.items():
            assert (saved / "figures" / f"{stem}.{fmt}").read_bytes() == data, (stem, fmt)
    report.write_csv_tables(result, tmp_path)
    for name in ("rankings.csv", "aggregates.csv", "details.csv.gz", "word_bias.parquet"):
        assert (tmp_path / name).read_bytes() == (saved / name).read_bytes(), name


# -- missing values are shown as missing, never as a good place (issue 7) ----------------


def test_accumulated_rankings_mark_missing_ranks_and_list_them_last():
    import matplotlib.pyplot as plt

    ranks = pd.DataFrame({"WEAT": pd.array([2, 1, pd.NA], dtype="Int64"),
                          "RND": pd.array([1, pd.NA, pd.NA], dtype="Int64")}, index=["a", "b", "c"])
    ax = plots.accumulated_rankings(ranks)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b (1 missing)", "c (no ranks)"]
    hatched = [p for p in ax.patches if p.get_hatch() == "//"]
    assert len(hatched) == 2  # one "?" box per incomplete model
    assert plots.missing_ranks(ranks) == {"b": ["RND"], "c": ["WEAT", "RND"]}
    plt.close("all")


def test_most_biased_words_take_object_values_and_models_without_values():
    import matplotlib.pyplot as plt

    wb = pd.DataFrame({"model": ["m", "m", "m", "e"], "metric": "SAME", "component": "b",
                       "word": ["x", "y", "x", "z"], "value": [0.5, -0.9, -0.1, np.nan]}).astype({"value": object})
    top = plots.top_words(wb, "m")
    assert top.to_dict() == {"y": 0.9, "x": pytest.approx(0.3)}
    assert plots.top_words(wb, "e").empty and plots.top_words(wb, "absent").empty
    ax = plots.most_biased_words(wb, "e")
    assert [t.get_text() for t in ax.texts] == ["no per-word SAME values"]
    plt.close("all")


def test_score_heatmap_labels_models_without_values():
    import matplotlib.pyplot as plt

    scores = pd.DataFrame({"q1": [0.1, np.nan], "q2": [0.2, np.nan]}, index=["a", "b"], dtype=object)
    ax = plots.score_heatmap(scores)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b (no values)"]
    plt.close("all")


def test_robustness_heatmap_models_by_metrics():
    import matplotlib.pyplot as plt

    table = pd.DataFrame({"model": ["a", "a", "b", "b"], "metric": ["SAME", "WEAT", "SAME", "WEAT"],
                          "mean_abs_change": [0.012, 0.5, np.nan, 0.25]})
    ax = plots.robustness(table)
    assert not_blank(ax)
    assert [t.get_text() for t in ax.texts] == ["0.012", "0.5", "n/a", "0.25"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["SAME", "WEAT"]
    with pytest.raises(ValueError):  # a duplicate (model, metric) is never averaged away
        plots.robustness(pd.concat([table, table.iloc[:1]]))
    plt.close("all")


def test_robustness_and_stability_figures_note_models_without_values():
    from wefe_same.output import writer as report

    table = pd.DataFrame({"model": ["a", "b", "a", "b", "c"], "metric": ["SAME", "SAME", "WEAT", "WEAT", "SAME"],
                          "mean_abs_change": [0.1, np.nan, 0.2, None, np.nan]}).astype({"mean_abs_change": object})
    fig, notes = report.draw_robustness(table)
    assert fig is not None and notes == [("b", "no values", "shown as missing"), ("c", "no values", "shown as missing")]
    stability = pd.DataFrame({"model": ["a", "a", "b", "b"], "metric": ["SAME", "WEAT"] * 2,
                              "rank": pd.array([1, 2, pd.NA, pd.NA], dtype="Int64"),
                              "rank_ci_low": [1.0, 1.0, np.nan, np.nan], "rank_ci_high": [2.0, 2.0, np.nan, np.nan]})
    fig, notes = report.draw_stability(stability, 2)
    assert fig is not None and notes == [("b", "no ranks", "shown as missing")]


def test_a_scales_fills_are_its_colour_of_each_value():
    """The heatmaps colour every cell at once (Scale.fills): the same strings as one at a time."""
    from wefe_same.output.report_svg import DIVERGING, SEQUENTIAL, Scale

    rng = np.random.default_rng(0)
    for _ in range(100):
        values = rng.normal(size=400) * 10 ** rng.uniform(-3, 3)
        values[rng.random(400) < 0.05] = np.nan
        values[:3] = [np.inf, -np.inf, 0.0]
        for scale in (Scale.for_values(values), Scale.for_values(np.abs(values)), Scale(-1.0, 1.0, DIVERGING),
                      Scale(0.2, 0.21, SEQUENTIAL)):
            assert scale.fills(values.reshape(20, 20)) == [scale.colour(v) for v in values]
