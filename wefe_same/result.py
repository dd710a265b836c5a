"""The result of a ranking run: tidy pandas tables, nothing written yet.

`RankResult` holds what ``rank`` computed; `RankResult.save` hands it to
`wefe_same.output.writer`, the writer of the results folder (which reads it through
`ResultTables` and never imports this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from wefe_same.analysis.analyse import EXTRA_TABLES
from wefe_same.analysis.external import EXTERNAL_PREFIX, QUALITY_PREFIX
from wefe_same.likelihood.benchmarks import LIKELIHOOD_PREFIX
from wefe_same.output import figures as plots
from wefe_same.output.rendering import FIGURE_FORMATS
from wefe_same.output.word_table import WordTable
from wefe_same.output.writer import write_results

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FIGURE_FORMATS", "RankResult"]


#: The likelihood tables (written as ``likelihood.csv`` and ``likelihood_items.csv``).
LIKELIHOOD_TABLES = ("likelihood", "likelihood_items")


def _column_kind(column: str) -> str:
    """Which family a ranking column belongs to (the prefixes of `RankResult.rankings`)."""
    if column == "quality" or column.startswith(QUALITY_PREFIX):
        return "quality"
    for prefix, kind in ((LIKELIHOOD_PREFIX, "likelihood"), (EXTERNAL_PREFIX, "external")):
        if column.startswith(prefix):
            return kind
    return "metric"


def _not_given() -> None:
    """The default of ``word_bias`` (a factory, so that the class has no attribute of that
    name and :meth:`RankResult.__getattr__` reads the rows of ``word_table`` on first use)."""
    return None


@dataclass(frozen=True)
class RankResult:
    """Everything a ranking run computed, as tidy pandas tables; made once, never changed
    (``dataclasses.replace`` makes a changed copy).

    Attributes
    ----------
    scores : dict of str to DataFrame
        Per metric, models × subquery ids.
    aggregates : DataFrame
        Models × metrics, overall aggregated values (weighted by query-set size).
    rankings : DataFrame
        Models × metrics, 1 = least biased, nullable integers.
    correlations, correlation_pvalues : DataFrame
        Metrics × metrics, rank correlation between the ranking columns and its raw
        p-value: exact (every order enumerated) up to 10 models, a seeded permutation
        test above, scipy's approximation only with ``correlation_pvalues="asymptotic"``;
        ``correlation_tests`` says which method made each value.
    correlation_pvalues_adjusted : DataFrame or None
        Metrics × metrics, the p-values adjusted for the table's k(k−1)/2 tests (Holm by
        default, ``p_adjust="bh"`` for Benjamini–Hochberg); NaN on the diagonal.
    correlation_tests : DataFrame or None
        One row per pair of columns: metric_a, metric_b, n_models, rho, p_value, p_method
        (exact, permutation or asymptotic), mc_error (of a permutation p-value),
        p_adjusted, adjustment.
    agreement, consensus, redundant_metrics : DataFrame or None
        With more than one metric (`wefe_same.analysis.agreement`): one row with Kendall's
        W of all the metrics that rank every model, Friedman's chi2 and its p-values (chi2
        and, unless ``correlation_pvalues="asymptotic"``, a permutation p-value), and with
        ``bootstrap`` its interval; per model, the consensus rank (by mean rank), the spread
        of its ranks across metrics and how far the consensus moves with one metric left
        out; the pairs of metric columns that correlate ±1 in this run. None otherwise.
    mtmm, mtmm_summary : DataFrame or None
        With two or more metrics and query sets (`wefe_same.analysis.mtmm`): Campbell &
        Fiske's 1959 multitrait–multimethod table, traits = query sets, methods = metrics:
        Spearman's rho between every two (metric, query set) rankings with its kind, and per
        query set the mean convergent and discriminant coefficients and whether the
        convergent one is above both. None otherwise.
    chance : DataFrame or None
        With ``bootstrap=Bootstrap(chance=N)`` (`wefe_same.analysis.chance_bands`): per
        model, metric and null, the central 95 % band of the overall aggregate over N
        draws without association (the words permuted across each subquery's sets, or
        random vectors), the aggregate, its p-value against chance and its reading
        ("within chance", "more/less biased than chance"). None otherwise.
    reliability : DataFrame or None
        With ``Bootstrap(reliability=True)`` or ``split_halves=H``
        (`wefe_same.analysis.reliability`, Du et al. 2021): one row per coefficient: kind
        (internal consistency, inter-rater consistency, test-retest of the words, scores
        or aggregates across a family's seeds, split-half), family, model, unit, measure,
        coefficient (alpha, icc3, icc2, spearman_brown), value, 95 % interval, subjects,
        raters, reading (Koo & Li 2016, George & Mallery 2003) and the reason of a NaN.
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
        `rankings` and `aggregates` then gain a column per benchmark
        (``quality:NAME``, higher score = rank 1) and the combined ``quality`` rank (the
        rank of the sum of the per-benchmark ranks, like the WEB column of Badilla et al. 2020).
    likelihood, likelihood_items : DataFrame or None
        With ``rank(..., likelihood=[...])``: one row per (model, benchmark, measure,
        bias type) with the value, the number of items, the scoring and, for a NaN, the
        reason (a model that is not a language model); and one row per (model, item) with
        the score of each sentence (`wefe_same.likelihood`). `rankings` and `aggregates`
        then gain ``likelihood:crows-pairs`` and one column per bias type
        (``likelihood:crows-pairs[gender]``, …) and ``likelihood:stereoset-ss`` (ranked by
        distance to 50), ``likelihood:stereoset-lms`` and ``likelihood:stereoset-icat``
        (higher = rank 1). None otherwise.
    word_bootstrap, word_bootstrap_correlations : DataFrame or None
        With ``rank(..., bootstrap_words=B)``: intervals of the aggregates and ranks
        (model, metric, …) and of Spearman's rho when the words inside every set are
        resampled; None otherwise.
    robustness : DataFrame or None
        With ``rank(..., halves=H)``: model, metric, halves, mean_abs_change, relative
        (random halves of the neutral words); also drawn. None otherwise.
    aggregation, aggregation_agreement : DataFrame or None
        With more than one metric: the overall ranking by the mean of normalised
        aggregates, by Borda count and by the median rank, and how far these agree
        (Kendall's tau); None otherwise.
    debias_effect, debias_summary : DataFrame or None
        When the run holds a model and a debiased variant of it (``M`` and ``M+hard-debias``,
        ``M+ran-debias``, …): one row per (base, variant, metric) with both overall
        aggregates, their difference, relative change and rank change, and whether the
        metric says bias was reduced (with ``bootstrap_words``, a paired interval of the
        difference); and one row per variant counting the metrics that say reduced or
        increased (`wefe_same.analysis.debias_effect`). None otherwise.
    debias_lipstick : DataFrame or None
        With ``lipstick`` on (the default) and a gender-debiased variant beside its base:
        Gonen & Goldberg's 2019 tests, one row per (base, variant, test): k-means
        clustering and SVM classification accuracy of the words most gender-biased in the
        base, read in the debiased space, and the correlation of their bias with their
        neighbours' (`wefe_same.analysis.lipstick`). None otherwise.
    measurement_sensitivity : DataFrame or None
        With ``rank(..., vary=...)``: per metric and pair of measurement settings, Spearman's
        rho between the rankings of the models under the two settings and how many models
        change rank (`wefe_same.analysis.measurement`); with several ``likelihood_scoring``
        options, the same per overall likelihood column and pair of options. None otherwise.
    extra : dict of str to DataFrame
        Read-only: the tables above that are not None, by field name; each is written as
        ``NAME.csv`` without index.
    set_apart : list of str, optional
        Columns of `correlations` shown apart (last, behind a fence) in the
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
    correlation_pvalues_adjusted: pd.DataFrame | None = None
    correlation_tests: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    consensus: pd.DataFrame | None = None
    redundant_metrics: pd.DataFrame | None = None
    mtmm: pd.DataFrame | None = None
    mtmm_summary: pd.DataFrame | None = None
    chance: pd.DataFrame | None = None
    reliability: pd.DataFrame | None = None
    word_bias: pd.DataFrame | None = field(default_factory=_not_given, repr=False, compare=False)
    aggregates_ci: pd.DataFrame | None = None
    correlations_ci: pd.DataFrame | None = None
    rank_stability: pd.DataFrame | None = None
    quality: pd.DataFrame | None = None
    likelihood: pd.DataFrame | None = None
    likelihood_items: pd.DataFrame | None = None
    word_bootstrap: pd.DataFrame | None = None
    word_bootstrap_correlations: pd.DataFrame | None = None
    robustness: pd.DataFrame | None = None
    aggregation: pd.DataFrame | None = None
    aggregation_agreement: pd.DataFrame | None = None
    debias_effect: pd.DataFrame | None = None
    debias_summary: pd.DataFrame | None = None
    debias_lipstick: pd.DataFrame | None = None
    measurement_sensitivity: pd.DataFrame | None = None
    set_apart: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    #: The per-word rows as a run streams them (a model at a time, on disk past a few
    #: models): what the writer reads; :attr:`word_bias` is this table in memory.
    word_table: WordTable | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        given = self.__dict__["word_bias"]
        if given is None and self.word_table is not None:
            del self.__dict__["word_bias"]  # read from the table on first use (__getattr__)
        elif given is not None and (self.word_table is None or not self.word_table.made(given)):
            # A frame given with another result's table (dataclasses.replace(result, word_bias=new))
            # replaces that table: the writer writes the table
            object.__setattr__(self, "word_table", WordTable.from_frame(given))
        object.__setattr__(self, "set_apart", self.quality_columns if self.set_apart is None else list(self.set_apart))

    def __getattr__(self, name: str) -> Any:
        """``word_bias`` of a run's result: the rows of `word_table` as one DataFrame, read
        on first use (a run streams them to disk past a few models) and kept."""
        if name != "word_bias" or "word_table" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        frame = self.__dict__["word_bias"] = self.word_table.frame() if self.word_table is not None else None
        return frame

    @property
    def extra(self) -> dict[str, pd.DataFrame]:
        """The further long tables that were computed, by name (each written as ``NAME.csv``)."""
        return {name: table for name in (*EXTRA_TABLES, *LIKELIHOOD_TABLES)
                if (table := getattr(self, name)) is not None}

    @property
    def quality_columns(self) -> list[str]:
        """``quality`` and the ``quality:NAME`` columns of `rankings`."""
        return [c for c in self.rankings.columns if c == "quality" or c.startswith(QUALITY_PREFIX)]

    @property
    def metric_names(self) -> list[str]:
        """The fairness metrics among the ranking columns (neither quality nor set apart)."""
        apart = set(self.quality_columns) | set(self.set_apart or ())
        return [c for c in self.rankings.columns if c not in apart]

    def to_frame(self) -> pd.DataFrame:
        """The overall results in long format, a view of `aggregates` and `rankings`: one
        row per model and ranking column, in their orders, with the column's kind
        (``metric``, ``quality``, ``likelihood`` or ``external``), its overall value (NaN
        for the combined ``quality`` rank, which has none) and its rank (1 = least biased,
        or best quality), for plotting libraries that take long tables."""
        columns = list(self.rankings.columns)
        values = self.aggregates.reindex(index=self.rankings.index, columns=columns)
        frame = pd.DataFrame({
            "model": np.repeat(self.rankings.index.to_numpy(dtype=object), len(columns)),
            "column": np.tile(np.array(columns, dtype=object), len(self.rankings)),
        })
        frame["kind"] = frame["column"].map(_column_kind)
        frame["value"] = values.to_numpy(dtype="float64").ravel()
        frame["rank"] = pd.array(self.rankings.astype("Int64").to_numpy(dtype=object).ravel(), dtype="Int64")
        return frame

    def heatmap(self, *, ax: Axes | None = None) -> Axes:
        """The annotated correlation heatmap of `correlations`, `set_apart` fenced off."""
        return plots.correlation_heatmap(self.correlations, ax=ax, set_apart=self.set_apart or ())

    def save(self, out: str | Path, *, formats: Sequence[str] | None = None, figure_workers: int = 1,
             figures: str = "paper", full_tables: bool = False) -> Path:
        """Write the results folder and return its resolved path.

        Parameters
        ----------
        out : path
            Created when absent; an earlier wefe-same results folder is replaced whole
            and atomically. Anything else (a file, a folder of other files, a results
            folder holding files it did not write) raises
            `OutputError` and is left untouched.
        formats : sequence of {"png", "pdf", "svg"}, optional
            Figure formats; each figure is drawn once and saved in every one. Empty: no
            figures. Default: PNG and PDF (``figures="all"``: SVG too).
        figure_workers : int, default 1
            Processes drawing the figures; 1 draws them in this process.
        figures : {"paper", "all"}, default "paper"
            "paper": the correlation heatmap, the accumulated rankings and (when
            computed) the stability and robustness figures; "all" adds a score heatmap
            per metric and a most-biased-words figure per model. A figure whose data
            did not change is copied from the folder being replaced, not drawn again.
        full_tables : bool, default False
            Write ``word_bias``, ``details`` and ``lookups`` as plain CSV; by default
            ``word_bias.parquet`` and ``details.csv.gz``, ``lookups.csv.gz``.
        """
        return write_results(self, out, formats=formats, figure_workers=figure_workers, figures=figures,
                             full_tables=full_tables)

