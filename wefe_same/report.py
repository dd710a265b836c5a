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

from .plots import correlation_heatmap

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FIGURE_FORMATS = ("png", "pdf")


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

    def heatmap(self, *, ax: Axes | None = None) -> Axes:
        """The annotated correlation heatmap of :attr:`correlations`."""
        return correlation_heatmap(self.correlations, ax=ax)

    def save(self, out: str | Path) -> Path:
        """Write the results folder (see the README for its contract) and return its path."""
        return write_results(self, Path(out))


def _write_figure(result: RankResult, folder: Path) -> None:
    from matplotlib.figure import Figure  # no pyplot: no global state, any backend

    size = 1.2 + 0.75 * len(result.correlations.columns)
    fig = Figure(figsize=(size + 1.5, size), layout="constrained")
    correlation_heatmap(result.correlations, ax=fig.subplots())
    for fmt in FIGURE_FORMATS:
        # A fixed creation date keeps the PDF byte-identical for the same inputs.
        metadata = {"CreationDate": None} if fmt == "pdf" else {"Software": None}
        fig.savefig(folder / f"correlations.{fmt}", dpi=150, metadata=metadata)


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
        for name in ("word_bias", "aggregates_ci", "correlations_ci", "rank_stability"):
            table = getattr(result, name)
            if table is not None:
                table.to_csv(tmp / f"{name}.csv", index=False)
        (tmp / "figures").mkdir()
        _write_figure(result, tmp / "figures")
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
