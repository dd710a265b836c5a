"""The figures of the results folder as jobs: each draw function is top level (picklable),
takes only the data it draws and returns ``(figure or None, notes)``.

A figure that has nothing to show for a model (every value NaN) shows the model as
missing or is left out, with a note.

Two sets (``figures=``): ``"paper"`` (the default) holds the figures that summarise a
run: the correlation heatmap, the accumulated rankings (Badilla et al. 2020, Figure 2)
and, when computed, the rank stability and robustness figures and, when the run holds a
model beside a debiased variant, the debiasing effect. ``"all"`` adds one score
heatmap per metric (models × subqueries) and one "most biased words" figure per model.

Many models (legible at 100): figures grow with the number of models (thinner
rows beyond :data:`~.figures.MANY_ROWS`), list the models by their overall rank, and the
per-model figures become one: beyond :data:`WORD_FIGURES_MAX` models the "most biased
words" are one heatmap of every model (``most_biased_words.png``), and beyond
:data:`STABILITY_LEGEND_MAX` the rank stability is one panel per metric instead of one
legend entry per model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from wefe_same.output import figures as plots
from wefe_same.output.notes import Note
from wefe_same.output.rendering import DPI, FigureJob
from wefe_same.output.tables import ResultTables, safe_name, unique_stems
from wefe_same.output.word_table import WORD_FIGURE_PREFERENCE  # noqa: F401 (its former home)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Up to this many models, one "most biased words" figure per model; beyond, one for all.
WORD_FIGURES_MAX = 12
#: Up to this many models, the rank stability figure tells models apart by colour.
STABILITY_LEGEND_MAX = 12


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure  # no pyplot: no global state, any backend

    return Figure(figsize=size, dpi=DPI, layout="constrained")


def _empty_rows(frame: pd.DataFrame) -> list[str]:
    return [str(m) for m in frame.index[plots.as_floats(frame).isna().all(axis=1)]]


def _models_without_values(values: pd.Series, models: pd.Series) -> list[str]:
    """The models (in order of appearance) of a long table whose every value is missing."""
    missing = pd.to_numeric(values, errors="coerce").isna().groupby(models, sort=False).all()
    return [str(m) for m in missing.index[missing.to_numpy()]]


def draw_correlations(correlations: pd.DataFrame, set_apart: Sequence[str]) -> tuple[Figure | None, list[Note]]:
    if correlations.empty:
        return None, [(None, "no ranking columns to correlate", "left out")]
    n = len(correlations.columns)
    fig = _figure((2.7 + 0.6 * n, 1.2 + 0.6 * n))
    plots.correlation_heatmap(correlations, ax=fig.subplots(), set_apart=set_apart)
    values = plots.as_floats(correlations).to_numpy()
    off_diagonal = values[~np.eye(n, dtype=bool)]
    undefined = n > 1 and np.isnan(off_diagonal).all()
    notes: list[Note] = [(None, "every correlation is undefined", "shown as n/a")] if undefined else []
    return fig, notes


def draw_accumulated(rankings: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    if rankings.empty:
        return None, [(None, "no rankings", "left out")]
    fig = _figure((9, 1.2 + plots.row_height(len(rankings)) * len(rankings)))
    plots.accumulated_rankings(rankings, ax=fig.subplots())
    notes: list[Note] = [(m, f"no rank for {', '.join(map(str, cols))}", "shown as missing")
             for m, cols in plots.missing_ranks(rankings).items()]
    return fig, notes


def draw_scores(matrix: pd.DataFrame, metric: str, ranks: pd.Series | None = None) -> tuple[Figure | None, list[Note]]:
    """One figure per metric; models in the order of ``ranks`` (their overall rank, see
    :func:`overall_ranks`; unranked last), so a 100-model heatmap reads from least to most
    biased and its rows line up with every other metric's."""
    if matrix.shape[1] == 0:
        return None, [(None, f"metric {metric!r} has no subqueries", "left out")]
    if ranks is not None:
        order = pd.to_numeric(ranks.reindex(matrix.index), errors="coerce").sort_values(kind="stable",
                                                                                           na_position="last")
        matrix = matrix.loc[order.index]
    fig = _figure((2.5 + 0.25 * matrix.shape[1], 4.5 + plots.row_height(len(matrix)) * len(matrix)))
    ax = plots.score_heatmap(matrix, ax=fig.subplots(), title=f"{metric} scores")
    if ranks is not None:
        ax.set_ylabel("models, least biased first")
    return fig, [(m, "no values", "shown as missing") for m in _empty_rows(matrix)]


def draw_words(rows: pd.DataFrame, model: str, metric: str, component: str) -> tuple[Figure | None, list[Note]]:
    if plots.top_words(rows, model, metric=metric, component=component, n=1).empty:
        return None, [(model, f"no per-word {metric} values", "left out")]
    fig = _figure((6, 5))
    plots.most_biased_words(rows, model, metric=metric, component=component, ax=fig.subplots())
    return fig, []


def draw_words_grid(rows: pd.DataFrame, models: list[str], metric: str,
                    component: str) -> tuple[Figure | None, list[Note]]:
    """The "most biased words" of many models in one heatmap (models in overall order)."""
    fig = _figure((4 + 0.22 * 30, 2.5 + plots.row_height(len(models)) * len(models)))
    plots.most_biased_words_grid(rows, models, metric=metric, component=component, ax=fig.subplots())
    return fig, [(m, f"no per-word {metric} values", "shown as missing")
                 for m in _models_without_values(rows["value"], rows["model"]) if m in models]


def draw_stability(stability: pd.DataFrame, n_metrics: int,
                   order: list[str] | None = None) -> tuple[Figure | None, list[Note]]:
    """Few models: one colour per model; many (``order`` given): one panel per metric."""
    if order is not None:
        fig = _figure((2.5 + 1.3 * n_metrics, 1.5 + plots.row_height(len(order)) * len(order)))
        plots.rank_intervals_by_metric(stability, order, fig=fig)
    else:
        fig = _figure((2.5 + 0.6 * n_metrics, 4.5))
        plots.rank_stability(stability, ax=fig.subplots())
    return fig, [(m, "no ranks", "shown as missing")
                 for m in _models_without_values(stability["rank"], stability["model"])]


def draw_robustness(table: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    n_models, n_metrics = table["model"].nunique(), table["metric"].nunique()
    fig = _figure((2.5 + 0.7 * n_metrics, 1.5 + 0.45 * n_models))
    plots.robustness(table, ax=fig.subplots())
    return fig, [(m, "no values", "shown as missing")
                 for m in _models_without_values(table["mean_abs_change"], table["model"])]


def draw_debias_effect(effect: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    n = effect["metric"].nunique() * max(1, effect["variant"].nunique())
    fig = _figure((6.5, 1.4 + 0.3 * n))
    plots.debias_effect(effect, ax=fig.subplots())
    undefined = effect.loc[effect["effect"] == "undefined", "variant"].unique()
    return fig, [(str(v), "a metric is undefined (NaN)", "drawn as 0") for v in undefined]


def draw_measurement(table: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    n_pairs = len(set(zip(table["setting_a"], table["setting_b"])))
    fig = _figure((3.5 + 0.7 * table["metric"].nunique(), 1.5 + 0.4 * n_pairs))
    plots.measurement_sensitivity(table, ax=fig.subplots())
    return fig, []


#: The figure sets: the summary figures, or every figure.
FIGURE_SETS = ("paper", "all")


def overall_ranks(result: ResultTables) -> pd.Series | None:
    """Each model's overall rank (``aggregation``'s ``mean_rank``), None without one."""
    agg = result.extra.get("aggregation")
    if agg is None or not {"model", "mean_rank"} <= set(agg.columns):
        return None
    return pd.Series(pd.to_numeric(agg["mean_rank"], errors="coerce").to_numpy(), index=agg["model"].astype(str))


def _in_order(models: pd.Index, ranks: pd.Series | None) -> list[str]:
    names = [str(m) for m in models]
    if ranks is None:
        return names
    return list(pd.to_numeric(ranks.reindex(names), errors="coerce").sort_values(
        kind="stable", na_position="last").index)


def figure_jobs(result: ResultTables, figures: str = "paper") -> tuple[list[FigureJob], list[Note]]:
    """The figures of the results folder (``figures``: one of :data:`FIGURE_SETS`) as
    jobs, each with only the data it draws."""
    jobs = [FigureJob("correlations", draw_correlations, (result.correlations, list(result.set_apart or ()))),
            FigureJob("accumulated_rankings", draw_accumulated, (result.rankings,))]
    every = figures == "all"
    overall = overall_ranks(result)
    if every:
        jobs += [FigureJob(f"scores_{safe_name(metric)}", draw_scores,
                           (matrix, metric, overall if overall is not None
                            else result.rankings[metric] if metric in result.rankings else None),
                           cost=1 + matrix.size / 100)
                 for metric, matrix in result.scores.items()]
    notes: list[Note] = []
    words = result.word_table if every else None
    if words is not None and len(words):
        many = len(result.rankings) > WORD_FIGURES_MAX
        summary = words.summary(figures=not many)  # many: the heatmap reads its own means, not these rows
        if summary is None or (not many and summary.figure is None):
            notes.append((None, "no per-word values for any model", "left out"))
        else:
            metric, component = words.chosen()  # type: ignore[misc]
            if many:  # one figure for all, not one per model
                order = _in_order(result.rankings.index, overall)
                means = words.word_means((metric, component))  # one row per model and word
                jobs.append(FigureJob("most_biased_words", draw_words_grid, (means, order, metric, component),
                                      cost=1 + len(order) / 10))
            else:
                wb = summary.figure  # every row each model's figure draws, and no more
                assert wb is not None  # checked above (not many)
                by_model = dict(tuple(wb.groupby("model", sort=False, observed=True)))
                stems = unique_stems(str(m) for m in result.rankings.index)
                for model in result.rankings.index:
                    rows = by_model.get(model, wb.iloc[:0])
                    jobs.append(FigureJob(f"most_biased_words_{stems[str(model)]}", draw_words,
                                          (rows, str(model), metric, component), cost=0.3))
    if result.rank_stability is not None:
        many = len(result.rankings) > STABILITY_LEGEND_MAX
        jobs.append(FigureJob("rank_stability", draw_stability,
                              (result.rank_stability, len(result.metric_names),
                               _in_order(result.rankings.index, overall) if many else None)))
    effect = result.extra.get("debias_effect")
    if effect is not None and len(effect):
        jobs.append(FigureJob("debias_effect", draw_debias_effect, (effect,)))
    robustness = result.extra.get("robustness")
    if robustness is not None and {"model", "metric", "mean_abs_change"} <= set(robustness.columns):
        jobs.append(FigureJob("robustness", draw_robustness, (robustness,)))
    measurement = result.extra.get("measurement_sensitivity")
    if measurement is not None and len(measurement):
        jobs.append(FigureJob("measurement_sensitivity", draw_measurement, (measurement,)))
    return jobs, notes

