"""The CSV tables of the results folder, and what the writer reads of a result.

The CSV tables are the part of a run that must never be lost: they are written first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pandas as pd


class ResultTables(Protocol):
    """What the writer reads of a result (:class:`~wefe_same.result.RankResult` has it all)."""

    @property
    def scores(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def aggregates(self) -> pd.DataFrame: ...
    @property
    def rankings(self) -> pd.DataFrame: ...
    @property
    def correlations(self) -> pd.DataFrame: ...
    @property
    def correlation_pvalues(self) -> pd.DataFrame: ...
    @property
    def by_query_set(self) -> pd.DataFrame: ...
    @property
    def details(self) -> pd.DataFrame: ...
    @property
    def lookups(self) -> pd.DataFrame: ...
    @property
    def manifest(self) -> dict[str, Any]: ...
    @property
    def word_bias(self) -> pd.DataFrame | None: ...
    @property
    def aggregates_ci(self) -> pd.DataFrame | None: ...
    @property
    def correlations_ci(self) -> pd.DataFrame | None: ...
    @property
    def rank_stability(self) -> pd.DataFrame | None: ...
    @property
    def quality(self) -> pd.DataFrame | None: ...
    @property
    def set_apart(self) -> list[str] | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def extra(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def metric_names(self) -> list[str]: ...
    @property
    def quality_columns(self) -> list[str]: ...


def safe_name(name: str) -> str:
    """``name`` as a file name: anything but letters, digits and ``-_.`` becomes ``_``."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def write_csv_tables(result: ResultTables, folder: Path) -> None:
    """Every table of the result as CSV (the part of a run that must never be lost)."""
    (folder / "scores").mkdir(exist_ok=True)
    for metric, matrix in result.scores.items():
        matrix.to_csv(folder / "scores" / f"{safe_name(metric)}.csv")
    result.aggregates.to_csv(folder / "aggregates.csv")
    result.rankings.to_csv(folder / "rankings.csv")
    result.correlations.to_csv(folder / "correlations.csv")
    result.correlation_pvalues.to_csv(folder / "correlation_pvalues.csv")
    result.by_query_set.to_csv(folder / "by_query_set.csv", index=False)
    result.details.to_csv(folder / "details.csv", index=False)
    result.lookups.to_csv(folder / "lookups.csv", index=False)
    for name in ("aggregates_ci", "correlations_ci", "rank_stability", "quality"):
        table = getattr(result, name)
        if table is not None:
            table.to_csv(folder / f"{name}.csv", index=False)
    if result.word_bias is not None:
        result.word_bias.to_csv(folder / "word_bias.csv", index=False, float_format="%.6g")
    for name, table in result.extra.items():
        table.to_csv(folder / f"{safe_name(name)}.csv", index=False)
