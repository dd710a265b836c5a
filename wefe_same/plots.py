"""Figures. matplotlib is imported lazily; every function takes ``ax=None`` and returns the Axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, layout="constrained")[1]


def correlation_heatmap(rho: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                        set_apart: Sequence[str] = (), cmap: str = "RdBu_r") -> Axes:
    """Annotated heatmap of a correlation matrix on a diverging scale fixed to −1..1.

    NaN cells (undefined correlations) are left blank and annotated "n/a". Columns named
    in ``set_apart`` (the quality benchmarks) are moved last and fenced off by a line.
    """
    order = [c for c in rho.columns if c not in set_apart] + [c for c in rho.columns if c in set_apart]
    rho = rho.loc[order, order]
    size = 1.2 + 0.6 * len(order)
    ax = _axes(ax, (size + 1.5, size))
    values = rho.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-1, vmax=1)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="rank correlation")
    ax.set_xticks(range(len(order)), labels=order, rotation=45, ha="right")
    ax.set_yticks(range(len(order)), labels=order)
    for (i, j), v in np.ndenumerate(values):
        text = "n/a" if np.isnan(v) else f"{v:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=7,
                color="white" if not np.isnan(v) and abs(v) > 0.6 else "black")
    n_apart = sum(c in set_apart for c in order)
    if 0 < n_apart < len(order):
        edge = len(order) - n_apart - 0.5
        ax.axvline(edge, color="black", linewidth=2)
        ax.axhline(edge, color="black", linewidth=2)
    ax.set_title(title or "Spearman correlation between rankings")
    return ax


def accumulated_rankings(rankings: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Stacked bars of each model's ranks, one segment per column (seed 002 Figure 2).

    The longer the bar, the lower the model sits in the rankings overall.
    """
    import matplotlib as mpl

    ranks = rankings.astype(float).fillna(0)
    order = ranks.sum(axis=1).sort_values().index
    ax = _axes(ax, (8, 1.0 + 0.5 * len(order)))
    colours = mpl.colormaps["tab20"](np.linspace(0, 1, max(len(ranks.columns), 2)))
    left = np.zeros(len(order))
    for colour, column in zip(colours, ranks.columns):
        values = ranks.loc[order, column].to_numpy()
        ax.barh(range(len(order)), values, left=left, color=colour, label=column, edgecolor="white")
        left += values
    ax.set_yticks(range(len(order)), labels=order)
    ax.invert_yaxis()
    ax.set_xlabel("sum of ranks (shorter = less biased overall)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False)
    ax.set_title(title or "Accumulated rankings")
    return ax


def _shorten(label: str, width: int = 48) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def score_heatmap(scores: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                  cmap: str = "viridis") -> Axes:
    """One metric's score matrix, models × subqueries; NaN cells are blank."""
    ax = _axes(ax, (2 + 0.3 * len(scores.columns), 4 + 0.45 * len(scores.index)))
    values = scores.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02, label="score")
    ax.set_xticks(range(len(scores.columns)), labels=[_shorten(c) for c in scores.columns],
                  rotation=90, fontsize=5)
    ax.set_yticks(range(len(scores.index)), labels=scores.index)
    ax.set_title(title or "Scores")
    return ax


def most_biased_words(word_bias: pd.DataFrame, model: str, *, metric: str = "SAME", component: str = "b",
                      n: int = 15, ax: Axes | None = None) -> Axes:
    """The ``n`` words with the largest mean |value| for one model and metric component,
    averaged over the subqueries in which each word appears."""
    rows = word_bias[(word_bias["model"] == model) & (word_bias["metric"] == metric)
                     & (word_bias["component"] == component)]
    top = rows.assign(size=rows["value"].abs()).groupby("word")["size"].mean().nlargest(n)
    ax = _axes(ax, (6, 1 + 0.28 * max(len(top), 1)))
    ax.barh(range(len(top)), top.to_numpy(), color="tab:red")
    ax.set_yticks(range(len(top)), labels=top.index)
    ax.invert_yaxis()
    ax.set_xlabel(f"mean |{metric} {component}| over subqueries")
    ax.set_title(f"Most biased words: {model}")
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
        rank = part["rank"].astype(float).to_numpy()
        low = rank - part["rank_ci_low"].to_numpy(dtype=float)
        high = part["rank_ci_high"].to_numpy(dtype=float) - rank
        ax.errorbar(x, rank, yerr=[low, high], fmt="o", capsize=2, label=model)
    ax.set_xticks(range(len(metrics)), labels=metrics, rotation=45, ha="right")
    ax.invert_yaxis()
    ax.set_ylabel("rank (1 = least biased)")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title or "Rank stability (bootstrap 95 % interval)")
    return ax
