"""Figures. matplotlib is imported lazily; every function takes ``ax=None`` and returns the Axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def as_floats(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as float64 with NaN for missing: nullable (``Int64`` with ``<NA>``) and
    object columns included, so that ``NaN`` checks and colour maps work on any input.

    >>> as_floats(pd.DataFrame({"r": pd.array([1, None], dtype="Int64")}))["r"].tolist()
    [1.0, nan]
    """
    return frame.apply(pd.to_numeric, errors="coerce").astype(float)


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, layout="constrained")[1]


def correlation_heatmap(rho: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                        set_apart: Sequence[str] = (), cmap: str = "RdBu_r", cell: float = 0.6) -> Axes:
    """Annotated heatmap of a correlation matrix on a diverging scale fixed to −1..1.

    NaN cells (undefined correlations) are left blank and annotated "n/a". Columns named
    in ``set_apart`` (the quality benchmarks) are moved last and fenced off by a line.
    ``cell``: the cell size in inches (labels and values get smaller with it; below
    0.25 in the values are left to the colour).
    """
    order = [c for c in rho.columns if c not in set_apart] + [c for c in rho.columns if c in set_apart]
    rho = rho.loc[order, order]
    size = 1.2 + 0.6 * len(order)
    ax = _axes(ax, (size + 1.5, size))
    values = as_floats(rho).to_numpy()
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-1, vmax=1)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="rank correlation")
    labels = min(10.0, max(4.0, 50 * cell))
    ax.set_xticks(range(len(order)), labels=order, rotation=45, ha="right", fontsize=labels)
    ax.set_yticks(range(len(order)), labels=order, fontsize=labels)
    for (i, j), v in np.ndenumerate(values if cell >= 0.25 else np.zeros((0, 0))):
        text = "n/a" if np.isnan(v) else f"{v:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=7 if cell >= 0.4 else 5,
                color="white" if not np.isnan(v) and abs(v) > 0.6 else "black")
    n_apart = sum(c in set_apart for c in order)
    if 0 < n_apart < len(order):
        edge = len(order) - n_apart - 0.5
        ax.axvline(edge, color="black", linewidth=2)
        ax.axhline(edge, color="black", linewidth=2)
    ax.set_title(title or "Spearman correlation between rankings")
    return ax


def missing_ranks(rankings: pd.DataFrame) -> dict[str, list[str]]:
    """Per model with at least one NaN rank, the columns where its rank is missing.

    >>> missing_ranks(pd.DataFrame({"WEAT": [1, None], "RND": [2, 1]}, index=["a", "b"]))
    {'b': ['WEAT']}
    """
    isna = rankings.isna()
    return {str(m): list(rankings.columns[isna.loc[m].to_numpy()]) for m in rankings.index[isna.any(axis=1)]}


def accumulated_rankings(rankings: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                         xmax: float | None = None) -> Axes:
    """Stacked bars of each model's ranks, one segment per column (Badilla et al. 2020, Figure 2).

    The longer the bar, the lower the model sits in the rankings overall (``xmax``: the
    axis's end, the same on every page of a figure split into pages). A missing
    rank (NaN) adds no segment: such a model is listed after the complete ones, its
    label says how many ranks are missing, and its bar ends in a hatched "?" box, so a
    short bar is never mistaken for a good place.
    """
    import matplotlib as mpl

    ranks = as_floats(rankings)
    n_missing = ranks.isna().sum(axis=1)
    total = ranks.sum(axis=1, min_count=0)
    order = pd.DataFrame({"missing": n_missing, "total": total}).sort_values(
        ["missing", "total"], kind="stable").index
    ax = _axes(ax, (8, 1.0 + row_height(len(order)) * len(order)))
    colours = mpl.colormaps["tab20"](np.linspace(0, 1, max(len(ranks.columns), 2)))
    left = np.zeros(len(order))
    for colour, column in zip(colours, ranks.columns):
        values = ranks.loc[order, column].fillna(0).to_numpy()
        _bar_segments(ax, left, values, colour, column)
        left += values
    gaps = n_missing.loc[order].to_numpy()
    if gaps.any():
        width = max(1.0, 0.06 * float(left.max()))
        rows = np.flatnonzero(gaps)
        ax.barh(rows, width, left=left[rows], color="white", edgecolor="grey", hatch="//",
                label="rank missing")
        for row in rows.tolist():
            ax.text(left[row] + width / 2, row, "?", ha="center", va="center", fontsize=8, color="grey")
    labels = [str(m) if not k else f"{m} (no ranks)" if k == len(ranks.columns) else f"{m} ({k} missing)"
              for m, k in zip(order, gaps)]
    ax.set_yticks(range(len(order)), labels=labels, fontsize=label_size(len(order)))
    ax.set_ylim(len(order) - 0.5, -0.5)  # first row on top, no empty rows above or below
    if xmax is not None:  # the same axis on every page of a long figure
        ax.set_xlim(0, xmax)
    ax.set_xlabel("sum of ranks (shorter = less biased overall)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False)
    ax.set_title(title or "Accumulated rankings")
    return ax


def _bar_segments(ax: Axes, left: np.ndarray, widths: np.ndarray, colour: Any, label: str) -> None:
    """One segment per row (row i at y = i, 0.8 high, from ``left`` to ``left + widths``),
    as ``barh`` draws them, but as one collection: a 40-model figure's 480 rectangles
    were 480 artists, each laid out and drawn per format (0.8 s of the figure, 0.3 s now)."""
    from matplotlib.collections import PolyCollection

    rows = np.arange(len(left), dtype=float)
    x0, x1 = left, left + widths
    boxes = np.stack([np.c_[x0, rows - 0.4], np.c_[x0, rows + 0.4], np.c_[x1, rows + 0.4], np.c_[x1, rows - 0.4]],
                     axis=1)
    segments = PolyCollection(list(boxes), facecolors=[colour], edgecolors="white", label=label)
    segments.sticky_edges.x.append(float(x0.min()) if len(x0) else 0.0)  # as barh: the axis starts at the bars
    ax.add_collection(segments, autolim=True)
    ax.autoscale_view()


#: Above this many rows (models) a figure gets thinner rows and smaller labels.
MANY_ROWS = 30


def row_height(n: int) -> float:
    """Inches per model row: roomy for a few models, 0.2 in (a 7 pt label and its gap)
    for many, so a 100-model figure is about 20 in tall and no two labels touch."""
    return 0.45 if n <= MANY_ROWS else 0.2


def label_size(n: int) -> float:
    """Font size (pt) of the model labels of a figure with ``n`` rows."""
    return 10.0 if n <= MANY_ROWS else 7.0


def _shorten(label: str, width: int = 48) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def score_heatmap(scores: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                  order: str = "abs", ideal: float = 0.0, metric: str = "score",
                  limits: tuple[float, float] | None = None) -> Axes:
    """One metric's score matrix, models × subqueries, coloured by each score's distance
    from the metric's ideal in its ``order`` (:mod:`wefe_same.output.bias_scale`): the
    report's colours, pale at the ideal and dark where most biased, for every metric
    alike, the legend saying so. NaN cells are the report's grey and a model without any
    value is labelled "(no values)". ``limits`` (low, high) are the distance limits of
    the whole matrix when this is a page of it.
    """
    from matplotlib.colors import LinearSegmentedColormap

    from wefe_same.output.bias_scale import bias_distance, bias_legend, bias_limits
    from wefe_same.output.report_svg import MISSING, SEQUENTIAL

    ax = _axes(ax, (2 + 0.3 * len(scores.columns), 4 + row_height(len(scores.index)) * len(scores.index)))
    values = as_floats(scores).to_numpy()
    empty = np.isnan(values).all(axis=1)
    distance = bias_distance(values, order, ideal)
    low, high = limits if limits is not None else bias_limits(distance)[:2]
    cmap = LinearSegmentedColormap.from_list("wefe-bias", SEQUENTIAL).with_extremes(bad=MISSING)
    image = ax.imshow(np.ma.masked_invalid(distance), cmap=cmap, aspect="auto", vmin=low, vmax=high,
                      interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02, label=bias_legend(metric, order, ideal, "\n"))
    ax.set_xticks(range(len(scores.columns)), labels=[_shorten(c) for c in scores.columns],
                  rotation=90, fontsize=5)
    ax.set_yticks(range(len(scores.index)),
                  labels=[f"{m} (no values)" if e else str(m) for m, e in zip(scores.index, empty)],
                  fontsize=label_size(len(scores.index)))
    ax.set_title(title or "Scores")
    return ax


def top_words(word_bias: pd.DataFrame, model: str, *, metric: str = "SAME", component: str = "b",
              n: int = 15) -> pd.Series:
    """The ``n`` words with the largest mean |value| for one model and metric component,
    averaged over the subqueries in which each word appears; NaN values are left out
    (empty when the model has none)."""
    rows = word_bias[(word_bias["model"] == model) & (word_bias["metric"] == metric)
                     & (word_bias["component"] == component)]
    # Concatenated per-model tables can come back with object dtype (an empty or all-NaN
    # model): make the values numbers before ranking them.
    size = pd.to_numeric(rows["value"], errors="coerce").abs()
    return size.groupby(rows["word"]).mean().dropna().astype(float).nlargest(n)


def most_biased_words(word_bias: pd.DataFrame, model: str, *, metric: str = "SAME", component: str = "b",
                      n: int = 15, ax: Axes | None = None) -> Axes:
    """The ``n`` words with the largest mean |value| for one model and metric component,
    averaged over the subqueries in which each word appears ("no values" when none)."""
    top = top_words(word_bias, model, metric=metric, component=component, n=n)
    ax = _axes(ax, (6, 1 + 0.28 * max(len(top), 1)))
    ax.barh(range(len(top)), top.to_numpy(), color="tab:red")
    ax.set_yticks(range(len(top)), labels=top.index)
    ax.invert_yaxis()
    if top.empty:
        ax.text(0.5, 0.5, f"no per-word {metric} values", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(f"mean |{metric} {component}| over subqueries")
    ax.set_title(f"Most biased words: {model}")
    return ax


def most_biased_words_grid(word_bias: pd.DataFrame, models: Sequence[str], *, metric: str = "SAME",
                           component: str = "b", n: int = 30, ax: Axes | None = None) -> Axes:
    """The words of many models in one heatmap: models (rows, in the order given) × the
    ``n`` words with the largest mean |value| over all of them (columns, largest first);
    a cell is the word's mean |value| over the model's subqueries, blank where the model
    has no value for it. Used instead of one figure per model when a run has many."""
    rows = word_bias[(word_bias["metric"] == metric) & (word_bias["component"] == component)]
    size = pd.to_numeric(rows["value"], errors="coerce").abs()
    grid = size.groupby([rows["model"].astype(str), rows["word"]]).mean().unstack("word")
    grid = grid.reindex(index=[str(m) for m in models])
    words = grid.mean(axis=0).dropna().nlargest(n).index
    values = grid.reindex(columns=words).to_numpy(float)
    ax = _axes(ax, (3 + 0.22 * len(words), 2 + row_height(len(models)) * len(models)))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="Reds", aspect="auto", vmin=0)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02, label=f"mean |{metric} {component}| over subqueries")
    ax.set_xticks(range(len(words)), labels=list(words), rotation=90, fontsize=7)
    ax.set_yticks(range(len(models)), labels=[str(m) for m in models], fontsize=label_size(len(models)))
    if not len(words):
        ax.text(0.5, 0.5, f"no per-word {metric} values", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(f"Most biased words over all models ({metric} {component})")
    return ax


def metric_panels(table: pd.DataFrame, models: Sequence[str], columns: list[str], *, fig: Figure,
                  draw: Any, xlabel: str, title: str) -> list[Axes]:
    """One panel per metric of ``table`` (long, a ``metric`` and a ``model`` column) in the
    columns of ``fig``, the models as rows in the order given; ``draw(ax, y, numbers)``
    draws a panel from its ``columns`` as floats, one row per model."""
    metrics = list(dict.fromkeys(table["metric"]))
    axes = list(np.atleast_1d(fig.subplots(1, max(len(metrics), 1), sharey=True, squeeze=False)[0]))
    y = np.arange(len(models))
    for ax, metric in zip(axes, metrics):
        part = table[table["metric"] == metric].drop_duplicates("model").set_index("model")
        draw(ax, y, as_floats(part[columns]).reindex([str(m) for m in models]))
        ax.set_title(metric, fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", linewidth=0.3)
    axes[0].set_yticks(y, labels=[str(m) for m in models], fontsize=label_size(len(models)))
    axes[0].set_ylim(len(models) - 0.5, -0.5)
    fig.supxlabel(xlabel, fontsize=8)
    fig.suptitle(title, fontsize=10)
    return axes


def rank_intervals_by_metric(stability: pd.DataFrame, models: Sequence[str], *, fig: Figure) -> list[Axes]:
    """Rank stability for many models: one panel per metric (columns of ``fig``), the
    models as rows in the order given, each rank a dot with its bootstrap 95 % interval as
    a line. A legend of one colour per model cannot be read beyond a dozen models."""
    def draw(ax: Axes, y: np.ndarray, numbers: pd.DataFrame) -> None:
        ax.hlines(y, numbers["rank_ci_low"], numbers["rank_ci_high"], color="tab:blue", linewidth=1)
        ax.plot(numbers["rank"], y, "o", color="tab:blue", markersize=2.5)

    return metric_panels(stability, models, ["rank", "rank_ci_low", "rank_ci_high"], fig=fig, draw=draw,
                         xlabel="rank (1 = least biased) with its bootstrap 95 % interval", title="Rank stability")


def chance_bands(table: pd.DataFrame, models: Sequence[str], *, fig: Figure) -> list[Axes]:
    """One null's rows of the chance table: one panel per metric (columns of ``fig``), the
    models as rows in the order given, each chance band a grey bar and the aggregate a dot,
    filled when it lies outside the band and hollow within it. Metrics without a band
    (left out by the null) are not drawn."""
    def draw(ax: Axes, y: np.ndarray, numbers: pd.DataFrame) -> None:
        ax.barh(y, numbers["high"] - numbers["low"], left=numbers["low"], height=0.6, color="0.85")
        inside = (numbers["value"] >= numbers["low"]) & (numbers["value"] <= numbers["high"])
        ax.plot(numbers["value"].where(~inside), y, "o", color="black", markersize=3)
        ax.plot(numbers["value"].where(inside), y, "o", markerfacecolor="white", color="black", markersize=3)

    null = str(table["null"].iloc[0]) if len(table) else ""
    return metric_panels(table[table["draws"] > 0], models, ["value", "low", "high"], fig=fig, draw=draw,
                         xlabel="aggregate (dot; hollow: within chance) and the central 95 % of its chance draws "
                                "(bar)", title=f"Against chance ({null} null)")


def reliability_intervals(table: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """The defined rows of the reliability table, one per line ("kind · of · measure"): the
    coefficient a dot, its 95 % interval a line (clipped at −1: negative values say no
    reliability), and Koo & Li's (2016) 0.5, 0.75 and 0.9 as dotted lines."""
    rows = table[np.isfinite(as_floats(table[["value"]])["value"])]
    labels = [" · ".join(filter(None, [str(r.kind), str(r.model) or (f"family {r.family}" if r.family else ""),
                                       str(r.measure)])) for r in rows.itertuples()]
    numbers = as_floats(rows[["value", "low", "high"]]).clip(lower=-1.0)
    ax = _axes(ax, (6.5, 1.2 + row_height(len(rows)) * len(rows)))
    y = np.arange(len(rows))
    ax.hlines(y, numbers["low"], numbers["high"], color="tab:blue", linewidth=1)
    ax.plot(numbers["value"], y, "o", color="tab:blue", markersize=3)
    for bound in (0.5, 0.75, 0.9):
        ax.axvline(bound, color="0.6", linewidth=0.6, linestyle=":")
    ax.set_yticks(y, labels=[_shorten(label, 60) for label in labels], fontsize=label_size(len(rows)))
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(-1.02, 1.02)
    ax.set_xlabel("coefficient with its 95 % interval (dotted: 0.5, 0.75, 0.9)", fontsize=8)
    ax.set_title(title or "Reliability (Du et al. 2021)", fontsize=10)
    return ax


def rank_stability(stability: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Each model's rank per metric with its bootstrap 95 % interval (``rank_stability`` table)."""
    metrics = list(dict.fromkeys(stability["metric"]))
    models = list(dict.fromkeys(stability["model"]))
    ax = _axes(ax, (1.5 + 0.6 * len(metrics), 4))
    width = 0.8 / max(len(models), 1)
    for k, model in enumerate(models):
        part = stability[stability["model"] == model].set_index("metric").loc[metrics]
        x = np.arange(len(metrics)) - 0.4 + width * (k + 0.5)
        numbers = as_floats(part[["rank", "rank_ci_low", "rank_ci_high"]])
        rank = numbers["rank"].to_numpy()
        low = rank - numbers["rank_ci_low"].to_numpy()
        high = numbers["rank_ci_high"].to_numpy() - rank
        label = f"{model} (no ranks)" if np.isnan(rank).all() else model
        ax.errorbar(x, rank, yerr=[low, high], fmt="o", capsize=2, label=label)
    ax.set_xticks(range(len(metrics)), labels=metrics, rotation=45, ha="right")
    ax.invert_yaxis()
    ax.set_ylabel("rank (1 = least biased)")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title or "Rank stability (bootstrap 95 % interval)")
    return ax


def robustness(table: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
               cmap: str = "Reds") -> Axes:
    """Heatmap of the robustness table (Schröder et al. 2021, §5.3.1), models × metrics.

    Parameters
    ----------
    table : DataFrame
        Long format with columns ``model``, ``metric``, ``mean_abs_change`` (the mean
        |b(W_i) − b(W)| over random halves W_i of the neutral words); one row per
        (model, metric).
    """
    models = list(dict.fromkeys(table["model"]))
    metrics = list(dict.fromkeys(table["metric"]))
    # pivot, not pivot_table: a duplicate (model, metric) is an error, never averaged.
    grid = table.pivot(index="model", columns="metric", values="mean_abs_change").reindex(
        index=models, columns=metrics)
    values = as_floats(grid).to_numpy()
    ax = _axes(ax, (2.5 + 0.7 * len(metrics), 1.5 + 0.45 * len(models)))
    top = float(np.nanmax(values)) if np.isfinite(values).any() else 1.0
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=top or 1.0, aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="mean |change| over word halves")
    ax.set_xticks(range(len(metrics)), labels=metrics, rotation=45, ha="right")
    ax.set_yticks(range(len(models)), labels=models)
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, "n/a" if np.isnan(v) else f"{v:.3g}", ha="center", va="center", fontsize=7,
                color="white" if not np.isnan(v) and v > 0.6 * top else "black")
    ax.set_title(title or "Robustness to the choice of words")
    return ax


def debias_effect(effect: pd.DataFrame, *, fig: Figure, title: str | None = None) -> list[Axes]:
    """The debiasing effect as a dot plot (``debias_effect.csv``): one panel per method, one
    row per metric, one dot per base model (a colour each) at the relative change in bias
    (debiased − base) / |base| on the metric's bias scale, with the sign turned for the
    descending ECT so that left of 0 always means less biased; with the word bootstrap, the
    paired interval of the difference (divided by |base|) is a line through the dot. A
    metric undefined for a pair (NaN) has no dot.
    """
    import matplotlib as mpl

    methods = list(dict.fromkeys(_methods(effect)))
    bases = list(dict.fromkeys(effect["base"].astype(str)))
    metrics = list(dict.fromkeys(effect["metric"]))
    axes = list(fig.subplots(1, max(len(methods), 1), sharey=True, sharex=True, squeeze=False)[0])
    colours = mpl.colormaps["tab10"](np.arange(max(len(bases), 1)) % 10)
    has_ci = {"diff_low", "diff_high"} <= set(effect.columns)
    step = 0.6 / max(len(bases), 1)
    method_of = _methods(effect)
    for ax, method in zip(axes, methods):
        for k, base in enumerate(bases):
            rows = effect[(method_of == method).to_numpy() & (effect["base"].astype(str) == base).to_numpy()]
            rows = rows.drop_duplicates("metric").set_index("metric").reindex(metrics)
            sign = np.where(rows["order"] == "descending", -1.0, 1.0)
            scale = np.abs(pd.to_numeric(rows["base_score"], errors="coerce").to_numpy(float))
            y = np.arange(len(metrics)) - 0.3 + step * (k + 0.5)
            with np.errstate(invalid="ignore", divide="ignore"):
                x = sign * pd.to_numeric(rows["difference"], errors="coerce").to_numpy(float) / scale
                if has_ci:
                    ends = np.sort(np.stack([sign * pd.to_numeric(rows["diff_low"], errors="coerce").to_numpy(float),
                                             sign * pd.to_numeric(rows["diff_high"], errors="coerce").to_numpy(float)])
                                   / scale, axis=0)
                    ax.hlines(y, ends[0], ends[1], color=colours[k], linewidth=1)
            ax.plot(x, y, "o", color=colours[k], markersize=3.5, label=base)
        ax.axvline(0, color="black", linewidth=0.8)
        for edge in np.arange(len(metrics) - 1) + 0.5:
            ax.axhline(edge, color="0.9", linewidth=0.5)
        ax.set_title(str(method), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", linewidth=0.3)
    axes[0].set_yticks(range(len(metrics)), labels=metrics, fontsize=7)
    axes[0].set_ylim(len(metrics) - 0.5, -0.5)
    axes[len(axes) // 2].set_xlabel("relative change in bias, (debiased − base) / |base| (< 0: less biased)",
                                    fontsize=8)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=min(len(bases), 3),
               fontsize=7, frameon=False, title="base model", title_fontsize=7)
    fig.suptitle(title or "Debiasing effect by metric", fontsize=10)
    return axes


def _methods(effect: pd.DataFrame) -> pd.Series:
    """Each row's debiasing method: the ``method`` column, else the variant's name."""
    return (effect["method"] if "method" in effect.columns else effect["variant"]).astype(str)


def measurement_sensitivity(table: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                            cmap: str = "RdBu") -> Axes:
    """Heatmap of Spearman's rho between the rankings under two measurement settings
    (``--vary``), pairs of settings × metrics; each cell also shows how many models change rank.

    Parameters
    ----------
    table : DataFrame
        :func:`wefe_same.analysis.measurement.measurement_sensitivity`: columns ``metric``,
        ``setting_a``, ``setting_b``, ``spearman``, ``models_changing_rank``.
    """
    pairs = list(dict.fromkeys(zip(table["setting_a"], table["setting_b"])))
    metrics = list(dict.fromkeys(table["metric"]))
    keyed = table.assign(pair=[f"{a}  vs  {b}" for a, b in zip(table["setting_a"], table["setting_b"])])
    labels = [f"{a}  vs  {b}" for a, b in pairs]
    rho = as_floats(keyed.pivot(index="pair", columns="metric", values="spearman").reindex(
        index=labels, columns=metrics)).to_numpy()
    moved = keyed.pivot(index="pair", columns="metric", values="models_changing_rank").reindex(
        index=labels, columns=metrics).to_numpy()
    ax = _axes(ax, (3.5 + 0.7 * len(metrics), 1.5 + 0.4 * len(labels)))
    image = ax.imshow(np.ma.masked_invalid(rho), cmap=cmap, vmin=-1, vmax=1, aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="Spearman's rho between the rankings")
    ax.set_xticks(range(len(metrics)), labels=metrics, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels=labels, fontsize=7)
    for (i, j), v in np.ndenumerate(rho):
        ax.text(j, i, "n/a" if np.isnan(v) else f"{v:.2f}\n{int(moved[i, j])} moved", ha="center", va="center",
                fontsize=6, color="white" if not np.isnan(v) and abs(v) > 0.6 else "black")
    ax.set_title(title or "Does the ranking survive the measurement choice?")
    return ax
