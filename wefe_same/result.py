"""The result of a ranking run: tidy pandas tables, nothing written yet.

:class:`RankResult` holds what ``rank`` computed; :meth:`RankResult.save` hands it to
:mod:`wefe_same.output.writer`, the writer of the results folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from wefe_same.analysis.external import QUALITY_PREFIX

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Every figure format the results folder can hold.
FIGURE_FORMATS = ("png", "pdf", "svg")


@dataclass
class RankResult:
    """Everything a ranking run computed, as tidy pandas tables.

    Attributes
    ----------
    scores : dict of str to DataFrame
        Per metric, models × subquery ids.
    aggregates : DataFrame
        Models × metrics, overall aggregated values (weighted by query-set size).
    rankings : DataFrame
        Models × metrics, 1 = least biased, nullable integers.
    correlations, correlation_pvalues : DataFrame
        Metrics × metrics, rank correlation between the ranking columns and its p-value.
    by_query_set : DataFrame
        Long format: query_set, metric, model, value, rank, n_subqueries, n_defined.
    details : DataFrame
        Long format: one row per (model, metric, subquery) with words found, missing
        words and the reason for every NaN.
    lookups : DataFrame
        One row per (model, word): how the word was found (casing) or why not.
    manifest : dict
        Versions, seed, models and fingerprints, query files and hashes, wall time.
    word_bias : DataFrame
        Long format: model, metric, subquery, word, component, value — the per-word
        scores of WEAT (s(w, A, B)), SAME (b(t) and the signed binary SAME per group
        pair) and Direct Bias.
    aggregates_ci, correlations_ci, rank_stability : DataFrame or None
        Bootstrap results when ``rank(..., bootstrap=B)`` ran; None otherwise.
    quality : DataFrame or None
        With ``rank(..., quality=[...])``: model, benchmark, score, coverage, n_items.
        :attr:`rankings` and :attr:`aggregates` then gain a column per benchmark
        (``quality:NAME``, higher score = rank 1) and the combined ``quality`` rank (the
        rank of the sum of the per-benchmark ranks, like the WEB column of Badilla et al. 2020).
    extra : dict of str to DataFrame
        Further long tables, each written as ``NAME.csv`` without index
        (``aggregation``, ``word_bootstrap``, ``robustness``, ``external``, …). A
        ``robustness`` table (model, metric, mean_abs_change) is also drawn.
    set_apart : list of str, optional
        Columns of :attr:`correlations` shown apart (last, behind a fence) in the
        heatmap: quality and external columns. Default: the quality columns.
    warnings : list of str
        What the run wants the user to know (one line each); the results folder's
        manifest lists them with the warnings of the writer.
    """

    scores: dict[str, pd.DataFrame]
    aggregates: pd.DataFrame
    rankings: pd.DataFrame
    correlations: pd.DataFrame
    correlation_pvalues: pd.DataFrame
    by_query_set: pd.DataFrame
    details: pd.DataFrame
    lookups: pd.DataFrame
    manifest: dict[str, Any] = field(default_factory=dict)
    word_bias: pd.DataFrame | None = None
    aggregates_ci: pd.DataFrame | None = None
    correlations_ci: pd.DataFrame | None = None
    rank_stability: pd.DataFrame | None = None
    quality: pd.DataFrame | None = None
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    set_apart: list[str] | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.set_apart is None:
            self.set_apart = self.quality_columns
        else:
            self.set_apart = list(self.set_apart)

    @property
    def quality_columns(self) -> list[str]:
        """``quality`` and the ``quality:NAME`` columns of :attr:`rankings`."""
        return [c for c in self.rankings.columns if c == "quality" or c.startswith(QUALITY_PREFIX)]

    @property
    def metric_names(self) -> list[str]:
        """The fairness metrics among the ranking columns (neither quality nor set apart)."""
        apart = set(self.quality_columns) | set(self.set_apart or ())
        return [c for c in self.rankings.columns if c not in apart]

    def heatmap(self, *, ax: Axes | None = None) -> Axes:
        """The annotated correlation heatmap of :attr:`correlations`, :attr:`set_apart` fenced off."""
        from wefe_same.output import figures as plots

        return plots.correlation_heatmap(self.correlations, ax=ax, set_apart=self.set_apart or ())

    def save(self, out: str | Path, *, formats: Sequence[str] = FIGURE_FORMATS, figure_workers: int = 1) -> Path:
        """Write the results folder and return its resolved path.

        Parameters
        ----------
        out : path
            Created when absent; an earlier wefe-same results folder is replaced whole
            and atomically. Anything else (a file, a folder of other files, a results
            folder holding files it did not write) raises
            :class:`~wefe_same.errors.OutputError` and is left untouched.
        formats : sequence of {"png", "pdf", "svg"}
            Figure formats; each figure is drawn once and saved in every one. Empty: no
            figures.
        figure_workers : int, default 1
            Processes drawing the figures; 1 draws them in this process.
        """
        # The writer sits later in the data flow; imported here so that holding a result
        # needs neither it nor matplotlib.
        from wefe_same.output.writer import write_results

        return write_results(self, out, formats=formats, figure_workers=figure_workers)
