"""The figures of the results folder as jobs: each draw function is top level (picklable),
takes only the data it draws and returns ``(figure or None, notes)``.

A figure that has nothing to show for a model (every value NaN) shows the model as
missing or is left out, with a note.

Two sets (``figures=``): ``"paper"`` (the default) holds the figures that summarise a
run: the correlation heatmap, the accumulated rankings (Badilla et al. 2020, Figure 2)
and, when computed, the rank stability, robustness, chance-band and reliability figures
and, when the run holds a model beside a debiased variant, the debiasing effect. ``"all"`` adds one score
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
from wefe_same.output.bias_scale import bias_distance, bias_limits, metric_orders
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
#: The largest figure, in inches: a double column of a paper page (7 in) and 9 in high,
#: less the margin of the saved file's bounding box. Larger figures are split into pages.
MAX_W, MAX_H = 6.9, 8.9
#: Model rows per page of a figure split into pages (a 40-model run fits on one).
PAGE_ROWS = 40
#: Columns (subqueries) per page of a score heatmap; metric panels per page of the rank
#: stability; metrics, base models and methods per page of the debiasing effect.
PAGE_COLUMNS = 40
PAGE_PANELS = 5
PAGE_METRICS, PAGE_BASES, PAGE_METHODS = 20, 6, 3


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure  # no pyplot: no global state, any backend

    return Figure(figsize=(min(size[0], MAX_W), min(size[1], MAX_H)), dpi=DPI, layout="constrained")


def pages(n: int, per_page: int) -> list[slice]:
    """``n`` items in as few pages of at most ``per_page`` as can be, balanced.

    >>> pages(45, 40)
    [slice(0, 23, None), slice(23, 45, None)]
    >>> pages(3, 40)
    [slice(0, 3, None)]
    """
    count = max(1, -(-n // per_page))
    size = -(-n // count) if n else 0
    return [slice(k * size, min(n, (k + 1) * size)) for k in range(count)]


def page_stem(stem: str, k: int) -> str:
    """The first page keeps the figure's name; the next are ``NAME_page2``, ``NAME_page3`` …"""
    return stem if k == 0 else f"{stem}_page{k + 1}"


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
    cell = min(0.6, (MAX_W - 2.7) / max(n, 1))  # many metrics: smaller cells, not a wider figure
    fig = _figure((2.7 + cell * n, 1.2 + cell * n))
    plots.correlation_heatmap(correlations, ax=fig.subplots(), set_apart=set_apart, cell=cell)
    values = plots.as_floats(correlations).to_numpy()
    off_diagonal = values[~np.eye(n, dtype=bool)]
    undefined = n > 1 and np.isnan(off_diagonal).all()
    notes: list[Note] = [(None, "every correlation is undefined", "shown as n/a")] if undefined else []
    return fig, notes


def draw_accumulated(rankings: pd.DataFrame, xmax: float | None = None) -> tuple[Figure | None, list[Note]]:
    if rankings.empty:
        return None, [(None, "no rankings", "left out")]
    fig = _figure((MAX_W, 1.2 + plots.row_height(len(rankings)) * len(rankings)))
    plots.accumulated_rankings(rankings, ax=fig.subplots(), xmax=xmax)
    notes: list[Note] = [(m, f"no rank for {', '.join(map(str, cols))}", "shown as missing")
             for m, cols in plots.missing_ranks(rankings).items()]
    return fig, notes


def draw_scores(matrix: pd.DataFrame, metric: str, ranks: pd.Series | None = None,
                limits: tuple[float, float] | None = None, order: tuple[str, float] = ("abs", 0.0),
                ) -> tuple[Figure | None, list[Note]]:
    """One figure per metric (or page of one: ``limits``, the whole matrix's colour
    limits), coloured by the distance from the metric's ideal (``order``: the metric's
    order and ideal, :func:`~wefe_same.output.bias_scale.metric_orders`); models in the
    order of ``ranks`` (their overall rank, see :func:`overall_ranks`; unranked last), so
    a 100-model heatmap reads from least to most biased and its rows line up with every
    other metric's."""
    if matrix.shape[1] == 0:
        return None, [(None, f"metric {metric!r} has no subqueries", "left out")]
    if ranks is not None:
        matrix = matrix.loc[_in_order(matrix.index, ranks)]
    longest = max((len(plots._shorten(str(c))) for c in matrix.columns), default=1)
    fig = _figure((2.5 + 0.12 * matrix.shape[1], 1.5 + 0.05 * longest + 0.16 * len(matrix)))
    ax = plots.score_heatmap(matrix, ax=fig.subplots(), title=f"{metric} scores", limits=limits, order=order[0],
                             ideal=order[1], metric=metric)
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
    fig = _figure((MAX_W, 2.5 + plots.row_height(len(models)) * len(models)))
    plots.most_biased_words_grid(rows, models, metric=metric, component=component, ax=fig.subplots())
    return fig, [(m, f"no per-word {metric} values", "shown as missing")
                 for m in _models_without_values(rows["value"], rows["model"]) if m in models]


def draw_stability(stability: pd.DataFrame, n_metrics: int,
                   order: list[str] | None = None) -> tuple[Figure | None, list[Note]]:
    """Few models: one colour per model; many (``order`` given): one panel per metric."""
    if order is not None:
        fig = _figure((2.2 + 0.9 * n_metrics, 1.5 + plots.row_height(len(order)) * len(order)))
        plots.rank_intervals_by_metric(stability, order, fig=fig)
    else:
        fig = _figure((2.5 + 0.6 * n_metrics, 4.5))
        plots.rank_stability(stability, ax=fig.subplots())
    return fig, [(m, "no ranks", "shown as missing")
                 for m in _models_without_values(stability["rank"], stability["model"])]


def draw_robustness(table: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    n_models, n_metrics = table["model"].nunique(), table["metric"].nunique()
    fig = _figure((2.5 + 0.7 * n_metrics, 1.5 + min(0.45, plots.row_height(n_models)) * n_models))
    plots.robustness(table, ax=fig.subplots())
    return fig, [(m, "no values", "shown as missing")
                 for m in _models_without_values(table["mean_abs_change"], table["model"])]


def draw_chance(table: pd.DataFrame, order: list[str]) -> tuple[Figure | None, list[Note]]:
    """One null's chance bands, a panel per metric with a band."""
    n_metrics = table.loc[table["draws"] > 0, "metric"].nunique()
    fig = _figure((2.2 + 1.3 * n_metrics, 1.5 + plots.row_height(len(order)) * len(order)))
    plots.chance_bands(table, order, fig=fig)
    return fig, []


def draw_reliability(table: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    """The reliability table's defined coefficients, one row each."""
    fig = _figure((6.5, 1.2 + plots.row_height(len(table)) * len(table)))
    plots.reliability_intervals(table, ax=fig.subplots())
    return fig, []


def draw_debias_effect(effect: pd.DataFrame) -> tuple[Figure | None, list[Note]]:
    """A dot plot, methods × metrics, a dot per base model (a page of at most
    :data:`PAGE_METHODS` methods, :data:`PAGE_METRICS` metrics, :data:`PAGE_BASES` bases)."""
    n_methods = plots._methods(effect).nunique()
    n_bases, n_metrics = effect["base"].nunique(), effect["metric"].nunique()
    fig = _figure((1.6 + 1.8 * max(n_methods, 1), 1.3 + n_metrics * (0.16 + 0.06 * n_bases)))
    plots.debias_effect(effect, fig=fig)
    undefined = effect.loc[effect["effect"] == "undefined", "variant"].unique()
    return fig, [(str(v), "a metric is undefined (NaN)", "no dot") for v in undefined]


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
    jobs, each with only the data it draws; a figure larger than :data:`MAX_W` ×
    :data:`MAX_H` inches is split into pages (jobs ``NAME``, ``NAME_page2`` …)."""
    overall = overall_ranks(result)
    jobs = [FigureJob("correlations", draw_correlations, (result.correlations, list(result.set_apart or ())))]
    jobs += _accumulated_jobs(result.rankings)
    every = figures == "all"
    if every:
        orders = metric_orders(result.manifest)
        for metric, matrix in result.scores.items():
            ranks = overall if overall is not None else result.rankings[metric] if metric in result.rankings else None
            jobs += _score_jobs(matrix, metric, ranks, orders.get(metric, ("abs", 0.0)))
    notes: list[Note] = []
    words = result.word_table if every else None
    if words is not None and len(words):
        many = len(result.rankings) > WORD_FIGURES_MAX
        summary = words.summary(figures=not many)  # many: the heatmap reads its own means, not these rows
        if summary is None or (not many and summary.figure is None):
            notes.append((None, "no per-word values for any model", "left out"))
        else:
            metric, component = words.chosen()  # type: ignore[misc]
            if many:  # one figure for all (a page per PAGE_ROWS models), not one per model
                order = _in_order(result.rankings.index, overall)
                means = words.word_means((metric, component))  # one row per model and word
                jobs += [FigureJob(page_stem("most_biased_words", k), draw_words_grid,
                                   (means, order[rows], metric, component), cost=1 + len(order[rows]) / 10)
                         for k, rows in enumerate(pages(len(order), PAGE_ROWS))]
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
        jobs += _stability_jobs(result.rank_stability, result.metric_names,
                                _in_order(result.rankings.index, overall))
    effect = result.extra.get("debias_effect")
    if effect is not None and len(effect):
        jobs += _debias_jobs(effect)
    robustness = result.extra.get("robustness")
    if robustness is not None and {"model", "metric", "mean_abs_change"} <= set(robustness.columns):
        models = list(dict.fromkeys(robustness["model"]))
        jobs += [FigureJob(page_stem("robustness", k), draw_robustness,
                           (robustness[robustness["model"].isin(models[rows])],))
                 for k, rows in enumerate(pages(len(models), PAGE_ROWS))]
    chance = result.extra.get("chance")
    if chance is not None and (chance["draws"] > 0).any():
        order = _in_order(result.rankings.index, overall)
        jobs += [FigureJob(page_stem(f"chance_{null}", k), draw_chance,
                           (chance[(chance["null"] == null) & chance["model"].isin(order[rows])], order[rows]))
                 for null in dict.fromkeys(chance["null"]) for k, rows in enumerate(pages(len(order), PAGE_ROWS))]
    table = result.extra.get("reliability")
    defined = table[table["value"].notna()] if table is not None else None
    if defined is not None and len(defined):
        jobs += [FigureJob(page_stem("reliability", k), draw_reliability, (defined.iloc[rows],))
                 for k, rows in enumerate(pages(len(defined), PAGE_ROWS))]
    measurement = result.extra.get("measurement_sensitivity")
    if measurement is not None and len(measurement):
        jobs.append(FigureJob("measurement_sensitivity", draw_measurement, (measurement,)))
    return jobs, notes



def _accumulated_jobs(rankings: pd.DataFrame) -> list[FigureJob]:
    """The accumulated rankings, :data:`PAGE_ROWS` models a page in the figure's order
    (complete models by their sum of ranks first), on one axis for every page."""
    ranks = plots.as_floats(rankings)
    order = pd.DataFrame({"missing": ranks.isna().sum(axis=1), "total": ranks.sum(axis=1)}).sort_values(
        ["missing", "total"], kind="stable").index
    spans = pages(len(order), PAGE_ROWS)
    xmax = float(ranks.sum(axis=1).max()) * 1.08 if len(spans) > 1 and len(ranks) else None
    return [FigureJob(page_stem("accumulated_rankings", k), draw_accumulated, (rankings.loc[order[rows]], xmax))
            for k, rows in enumerate(spans)]


def _score_jobs(matrix: pd.DataFrame, metric: str, ranks: pd.Series | None,
                order: tuple[str, float] = ("abs", 0.0)) -> list[FigureJob]:
    """One metric's score heatmap, a page per :data:`PAGE_ROWS` models and
    :data:`PAGE_COLUMNS` subqueries, every page on the whole matrix's colour limits."""
    if ranks is not None:
        matrix = matrix.loc[_in_order(matrix.index, ranks)]
    row_pages, col_pages = pages(len(matrix), PAGE_ROWS), pages(matrix.shape[1], PAGE_COLUMNS)
    limits = (bias_limits(bias_distance(plots.as_floats(matrix).to_numpy(), *order))[:2]
              if len(row_pages) * len(col_pages) > 1 else None)
    stem = f"scores_{safe_name(metric)}"
    return [FigureJob(page_stem(stem, k), draw_scores, (part, metric, ranks, limits, order), cost=1 + part.size / 100)
            for k, part in enumerate(matrix.iloc[rows, cols] for rows in row_pages for cols in col_pages)]


def _stability_jobs(stability: pd.DataFrame, metrics: list[str], order: list[str]) -> list[FigureJob]:
    """Few models: one figure (a colour per model); many: a panel per metric, a page per
    :data:`PAGE_PANELS` metrics and :data:`PAGE_ROWS` models."""
    if len(order) <= STABILITY_LEGEND_MAX:
        return [FigureJob("rank_stability", draw_stability, (stability, len(metrics), None))]
    shown = list(dict.fromkeys(stability["metric"]))
    jobs: list[FigureJob] = []
    for rows in pages(len(order), PAGE_ROWS):
        for cols in pages(len(shown), PAGE_PANELS):
            part = stability[stability["metric"].isin(shown[cols]) & stability["model"].isin(order[rows])]
            jobs.append(FigureJob(page_stem("rank_stability", len(jobs)), draw_stability,
                                  (part, len(shown[cols]), order[rows])))
    return jobs


def _debias_jobs(effect: pd.DataFrame) -> list[FigureJob]:
    """The debiasing effect, a page per :data:`PAGE_METHODS` methods, :data:`PAGE_METRICS`
    metrics and :data:`PAGE_BASES` base models."""
    methods = list(dict.fromkeys(plots._methods(effect)))
    bases = list(dict.fromkeys(effect["base"].astype(str)))
    metrics = list(dict.fromkeys(effect["metric"]))
    method_of, base_of = plots._methods(effect), effect["base"].astype(str)
    jobs: list[FigureJob] = []
    for b in pages(len(bases), PAGE_BASES):
        for m in pages(len(metrics), PAGE_METRICS):
            for d in pages(len(methods), PAGE_METHODS):
                part = effect[base_of.isin(bases[b]) & effect["metric"].isin(metrics[m]) & method_of.isin(methods[d])]
                jobs.append(FigureJob(page_stem("debias_effect", len(jobs)), draw_debias_effect, (part,)))
    return jobs
