"""The result of a ranking run and the results folder it writes.

The folder is written into a temporary sibling and renamed into place at the end, so a
results folder is never half-written: it is the old one or the new one.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import plots, tables

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FIGURE_FORMATS = ("png", "pdf", "svg")
#: Which per-word scores the "most biased words" figures show, in order of preference.
WORD_FIGURE_PREFERENCE = (("SAME", "b"), ("DirectBias", "b"), ("WEAT", "s"))
#: Prefix of the quality columns in rankings and aggregates.
QUALITY_PREFIX = "quality:"


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
        rank of the sum of the per-benchmark ranks, like seed 002's WEB column).
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

    @property
    def quality_columns(self) -> list[str]:
        return [c for c in self.rankings.columns if c == "quality" or c.startswith(QUALITY_PREFIX)]

    @property
    def metric_names(self) -> list[str]:
        return [c for c in self.rankings.columns if c not in self.quality_columns]

    def heatmap(self, *, ax: Axes | None = None) -> Axes:
        """The annotated correlation heatmap of :attr:`correlations`, quality set apart."""
        return plots.correlation_heatmap(self.correlations, ax=ax, set_apart=self.quality_columns)

    def save(self, out: str | Path) -> Path:
        """Write the results folder (see the README for its contract) and return its path."""
        return write_results(self, Path(out))


def _save(fig, folder: Path, stem: str) -> None:
    for fmt in FIGURE_FORMATS:
        # No creation date or tool stamp: the same inputs give byte-identical files.
        metadata = {"CreationDate": None} if fmt == "pdf" else {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(folder / f"{stem}.{fmt}", dpi=150, metadata=metadata)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def write_figures(result: RankResult, folder: Path) -> None:
    """Every figure of the results folder, in PNG, PDF and SVG."""
    from matplotlib.figure import Figure  # no pyplot: no global state, any backend
    import matplotlib as mpl

    with mpl.rc_context({"svg.hashsalt": "wefe_same"}):
        n = len(result.correlations.columns)
        fig = Figure(figsize=(2.7 + 0.6 * n, 1.2 + 0.6 * n), layout="constrained")
        result.heatmap(ax=fig.subplots())
        _save(fig, folder, "correlations")

        fig = Figure(figsize=(9, 1.2 + 0.5 * len(result.rankings)), layout="constrained")
        plots.accumulated_rankings(result.rankings, ax=fig.subplots())
        _save(fig, folder, "accumulated_rankings")

        for metric, matrix in result.scores.items():
            fig = Figure(figsize=(2.5 + 0.25 * matrix.shape[1], 4.5 + 0.45 * matrix.shape[0]), layout="constrained")
            plots.score_heatmap(matrix, ax=fig.subplots(), title=f"{metric} scores")
            _save(fig, folder, f"scores_{_safe(metric)}")

        if result.word_bias is not None and len(result.word_bias):
            # SAME's b(t) when it ran, else the first metric that has per-word values.
            present = set(result.word_bias["metric"])
            metric, component = next((m, c) for m, c in WORD_FIGURE_PREFERENCE if m in present)
            for model in result.rankings.index:
                fig = Figure(figsize=(6, 5), layout="constrained")
                plots.most_biased_words(result.word_bias, model, metric=metric, component=component,
                                        ax=fig.subplots())
                _save(fig, folder, f"most_biased_words_{_safe(model)}")

        if result.rank_stability is not None:
            fig = Figure(figsize=(2.5 + 0.6 * len(result.metric_names), 4.5), layout="constrained")
            plots.rank_stability(result.rank_stability, ax=fig.subplots())
            _save(fig, folder, "rank_stability")


def write_tables(result: RankResult, folder: Path) -> None:
    """``rankings`` and ``correlations`` as LaTeX (booktabs) and Markdown."""
    models = list(result.rankings.index)
    quality = result.rankings[result.quality_columns] if result.quality_columns else None
    blocks = tables.ranking_blocks(result.by_query_set, quality, result.metric_names, models)
    caption = ("Rank (aggregated score) of each model per metric and query set; 1 = least biased, "
               "best in bold." + (" Quality: 1 = best." if quality is not None else ""))
    (folder / "rankings.tex").write_text(tables.rankings_latex(blocks, models, caption))
    (folder / "rankings.md").write_text(tables.rankings_markdown(blocks, models, caption))
    caption = "Spearman correlation between the rankings."
    (folder / "correlations.tex").write_text(tables.correlations_latex(result.correlations, caption))
    (folder / "correlations.md").write_text(tables.correlations_markdown(result.correlations, caption))


def write_results(result: RankResult, out: Path) -> Path:
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        (tmp / "scores").mkdir()
        for metric, matrix in result.scores.items():
            matrix.to_csv(tmp / "scores" / f"{metric}.csv")
        result.aggregates.to_csv(tmp / "aggregates.csv")
        result.rankings.to_csv(tmp / "rankings.csv")
        result.correlations.to_csv(tmp / "correlations.csv")
        result.correlation_pvalues.to_csv(tmp / "correlation_pvalues.csv")
        result.by_query_set.to_csv(tmp / "by_query_set.csv", index=False)
        result.details.to_csv(tmp / "details.csv", index=False)
        result.lookups.to_csv(tmp / "lookups.csv", index=False)
        for name in ("aggregates_ci", "correlations_ci", "rank_stability", "quality"):
            table = getattr(result, name)
            if table is not None:
                table.to_csv(tmp / f"{name}.csv", index=False)
        if result.word_bias is not None:
            result.word_bias.to_csv(tmp / "word_bias.csv", index=False, float_format="%.6g")
        (tmp / "figures").mkdir()
        write_figures(result, tmp / "figures")
        (tmp / "tables").mkdir()
        write_tables(result, tmp / "tables")
        (tmp / "manifest.json").write_text(json.dumps(result.manifest, indent=2, sort_keys=True) + "\n")
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old-{tmp.name.rsplit('-', 1)[-1]}")
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
