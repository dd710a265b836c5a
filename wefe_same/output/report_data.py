"""What ``report.html`` shows, gathered once: from a result in memory (when the results
folder is written) or from the tables of a results folder (``wefe-same report``).

Both paths go through the same normalisation (model names as strings, numbers as floats),
so a rebuilt report equals the one written with the folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wefe_same.output.report_svg import fmt
from wefe_same.output.tables import ResultTables, safe_name
from wefe_same.output.word_table import WORD_FIGURE_PREFERENCE, WordSummary, present_pairs, word_rows

#: Where the word-level table may be, in the order it is looked for (a run writes one).
WORD_TABLES = ("word_bias.parquet", "word_bias.csv.gz", "word_bias.csv")
WORD_COLUMNS = ["model", "metric", "subquery", "word", "component", "value"]
#: The metrics whose word rows the report may show.
WORD_METRICS = tuple(dict.fromkeys(metric for metric, _ in WORD_FIGURE_PREFERENCE))
#: Read a CSV as written: a model or word called "NA" or "null" stays a string.
_TEXT = {"keep_default_na": False, "na_values": [""]}


@dataclass
class ReportData:
    """The tables of one run, as the report reads them."""

    rankings: pd.DataFrame
    aggregates: pd.DataFrame
    correlations: pd.DataFrame
    correlation_pvalues: pd.DataFrame
    scores: dict[str, pd.DataFrame]
    lookups: pd.DataFrame
    manifest: dict[str, Any]
    aggregation: pd.DataFrame | None = None
    aggregates_ci: pd.DataFrame | None = None
    correlations_ci: pd.DataFrame | None = None
    rank_intervals: pd.DataFrame | None = None
    #: What the report shows of the word-level rows of :attr:`word_metric` (the most-biased words).
    words: WordSummary | None = None
    word_metric: tuple[str, str] | None = None
    #: debias_effect.csv: one row per (base, variant, metric), when the run held a base and a variant.
    debias_effect: pd.DataFrame | None = None
    #: debias_lipstick.csv: Gonen & Goldberg's tests per (base, variant, test), when computed.
    debias_lipstick: pd.DataFrame | None = None
    #: ``measurement_sensitivity.csv`` (``--vary``), else None.
    measurement: pd.DataFrame | None = None
    #: ``correlation_tests.csv``: which method made each correlation's p-value, and its adjusted value.
    correlation_tests: pd.DataFrame | None = None
    #: ``agreement.csv``, ``consensus.csv``, ``redundant_metrics.csv`` (more than one metric), else None.
    agreement: pd.DataFrame | None = None
    consensus: pd.DataFrame | None = None
    redundant_metrics: pd.DataFrame | None = None
    #: ``mtmm_summary.csv`` (two or more metrics and query sets), else None.
    mtmm_summary: pd.DataFrame | None = None
    #: ``mtmm.csv``: every pair of (metric, query set) rankings, drawn as the MTMM matrix.
    mtmm: pd.DataFrame | None = None
    #: ``chance.csv`` (``--chance N``): each aggregate against its chance band, else None.
    chance: pd.DataFrame | None = None
    #: ``reliability.csv`` (``--reliability``, ``--split-halves H``), else None.
    reliability: pd.DataFrame | None = None
    metric_names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("rankings", "aggregates", "correlations", "correlation_pvalues"):
            setattr(self, name, _square(getattr(self, name)))
        self.scores = {m: _square(s) for m, s in self.scores.items()}
        # As manifest.json stores it (keys sorted, values JSON), whichever path it came by.
        self.manifest = json.loads(json.dumps(self.manifest, sort_keys=True, default=str))
        self.metric_names = metric_names(self.rankings, self.manifest)

    @property
    def models(self) -> list[str]:
        return list(self.rankings.index)


def _square(frame: pd.DataFrame) -> pd.DataFrame:
    """Index and columns as strings, values as floats (NaN for what is missing)."""
    out = frame.apply(pd.to_numeric, errors="coerce").astype(float)
    out.index = [str(i) for i in frame.index]
    out.columns = [str(c) for c in frame.columns]
    return out


def metric_names(rankings: pd.DataFrame, manifest: Mapping[str, Any]) -> list[str]:
    """The fairness metrics among the ranking columns (the manifest's metrics; without
    them, every column that is not a quality column)."""
    listed = [m.get("name") for m in manifest.get("metrics", []) if isinstance(m, dict)]
    if listed:
        return [c for c in rankings.columns if c in listed]
    return [c for c in rankings.columns if c != "quality" and not c.startswith("quality:")]


def choose_word_metric(word_bias: pd.DataFrame) -> tuple[str, str] | None:
    """The (metric, component) the report shows words for: the first of
    :data:`WORD_FIGURE_PREFERENCE` with a value (as the word figures choose)."""
    present = present_pairs(word_bias)
    return present[0] if present else None


def _word_rows(word_bias: pd.DataFrame | None) -> tuple[WordSummary | None, tuple[str, str] | None]:
    if word_bias is None or not len(word_bias):
        return None, None
    chosen = choose_word_metric(word_bias)
    if chosen is None:
        return None, None
    return WordSummary.of_rows(word_rows(word_bias, chosen)), chosen


def _rank_intervals(stability: pd.DataFrame | None, word_bootstrap: pd.DataFrame | None) -> pd.DataFrame | None:
    """(model, metric, rank, rank_ci_low, rank_ci_high[, share_same_rank]): the subquery
    bootstrap's, else the word bootstrap's, else None."""
    needed = {"model", "metric", "rank", "rank_ci_low", "rank_ci_high"}
    for table in (stability, word_bootstrap):
        if table is not None and needed <= set(table.columns):
            out = table.copy()
            out["model"], out["metric"] = out["model"].astype(str), out["metric"].astype(str)
            return out
    return None


def from_result(result: ResultTables, manifest: Mapping[str, Any]) -> ReportData:
    """The report's data from a result in memory; ``manifest`` as it will be written."""
    extra = result.extra
    table = result.word_table
    words, chosen = (table.summary(figures=False), table.chosen()) if table is not None and len(table) else (None, None)
    return ReportData(
        rankings=result.rankings, aggregates=result.aggregates, correlations=result.correlations,
        correlation_pvalues=result.correlation_pvalues, scores=dict(result.scores),
        lookups=result.lookups.astype({"model": str, "word": str}), manifest=dict(manifest),
        aggregation=_by_model(extra.get("aggregation")), aggregates_ci=result.aggregates_ci,
        correlations_ci=result.correlations_ci,
        rank_intervals=_rank_intervals(result.rank_stability, extra.get("word_bootstrap")),
        words=words, word_metric=chosen, debias_effect=extra.get("debias_effect"),
        debias_lipstick=extra.get("debias_lipstick"), measurement=extra.get("measurement_sensitivity"),
        correlation_tests=extra.get("correlation_tests"), agreement=extra.get("agreement"),
        consensus=extra.get("consensus"), redundant_metrics=extra.get("redundant_metrics"),
        mtmm_summary=extra.get("mtmm_summary"), mtmm=extra.get("mtmm"), chance=extra.get("chance"),
        reliability=extra.get("reliability"))


def _by_model(table: pd.DataFrame | None) -> pd.DataFrame | None:
    if table is None or "model" not in table.columns:
        return None
    out = table.copy()
    out["model"] = out["model"].astype(str)
    return out


# -- from a results folder -----------------------------------------------------------------


def _csv(path: Path, **kw: Any) -> pd.DataFrame:
    return pd.read_csv(path, **_TEXT, **kw)


def _first(folder: Path, *names: str) -> Path:
    """The first of ``names`` that exists in ``folder`` (compressed by default, plain with --full-tables)."""
    return next((folder / n for n in names if (folder / n).exists()), folder / names[-1])


def _matrix(path: Path) -> pd.DataFrame:
    """A models × columns table written with its index (first column: the names)."""
    frame = _csv(path, converters={0: str})
    return frame.set_index(frame.columns[0]).rename_axis(None)


def _optional(folder: Path, name: str) -> pd.DataFrame | None:
    path = folder / name
    return _csv(path, dtype={"model": str, "metric": str}) if path.is_file() else None


def read_word_bias(folder: Path, metrics: tuple[str, ...] = WORD_METRICS) -> pd.DataFrame | None:
    """The rows of the word-level table (whichever of :data:`WORD_TABLES` exists) for
    ``metrics``; read in chunks so that a large table never sits whole in memory."""
    for name in WORD_TABLES:
        path = folder / name
        if not path.is_file():
            continue
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq  # as the word table imports it: when a Parquet file is read

            with open(path, "rb") as fh:
                if pq.read_metadata(fh).num_rows == 0:  # no word rows: its label columns have no type to filter
                    return None
            return pd.read_parquet(path, columns=WORD_COLUMNS, filters=[("metric", "in", list(metrics))])
        text = dict.fromkeys(["model", "metric", "subquery", "word", "component"], str)
        chunks = [chunk[chunk["metric"].isin(metrics)]
                  for chunk in _csv(path, usecols=WORD_COLUMNS, dtype=text, chunksize=500_000)]
        return pd.concat(chunks, ignore_index=True) if chunks else None
    return None


def from_folder(folder: Path, manifest: Mapping[str, Any]) -> ReportData:
    """The report's data from the tables of the results folder ``folder``.

    Raises
    ------
    OSError, ValueError
        A table is missing or unreadable (the caller names the folder).
    """
    metric_list = [m.get("name") for m in manifest.get("metrics", []) if isinstance(m, dict)]
    rankings = _matrix(folder / "rankings.csv")
    scores = {}
    for metric in metric_list or list(rankings.columns):
        path = folder / "scores" / f"{safe_name(str(metric))}.csv"
        if path.is_file():
            scores[str(metric)] = _matrix(path)
    words, chosen = _word_rows(read_word_bias(folder))
    return ReportData(
        rankings=rankings, aggregates=_matrix(folder / "aggregates.csv"),
        correlations=_matrix(folder / "correlations.csv"),
        correlation_pvalues=_matrix(folder / "correlation_pvalues.csv"), scores=scores,
        lookups=_csv(_first(folder, "lookups.csv.gz", "lookups.csv"), dtype={"model": str, "word": str, "status": str}),
        manifest=dict(manifest), aggregation=_optional(folder, "aggregation.csv"),
        aggregates_ci=_optional(folder, "aggregates_ci.csv"),
        correlations_ci=_csv(folder / "correlations_ci.csv", dtype={"metric_a": str, "metric_b": str})
        if (folder / "correlations_ci.csv").is_file() else None,
        rank_intervals=_rank_intervals(_optional(folder, "rank_stability.csv"),
                                       _optional(folder, "word_bootstrap.csv")),
        words=words, word_metric=chosen,
        debias_effect=_csv(folder / "debias_effect.csv", dtype={"base": str, "variant": str, "method": str,
                                                                "metric": str})
        if (folder / "debias_effect.csv").is_file() else None,
        debias_lipstick=_csv(folder / "debias_lipstick.csv", dtype={"base": str, "variant": str, "method": str,
                                                                    "test": str, "reason": str})
        if (folder / "debias_lipstick.csv").is_file() else None,
        measurement=_optional(folder, "measurement_sensitivity.csv"),
        correlation_tests=_csv(folder / "correlation_tests.csv",
                               dtype={"metric_a": str, "metric_b": str, "p_method": str, "adjustment": str})
        if (folder / "correlation_tests.csv").is_file() else None,
        agreement=_csv(folder / "agreement.csv", dtype={"p_method": str, "left_out": str, "reason": str})
        if (folder / "agreement.csv").is_file() else None,
        consensus=_optional(folder, "consensus.csv"),
        redundant_metrics=_csv(folder / "redundant_metrics.csv", dtype={"metric_a": str, "metric_b": str})
        if (folder / "redundant_metrics.csv").is_file() else None,
        mtmm_summary=_csv(folder / "mtmm_summary.csv", dtype={"trait": str, "valid": "boolean"})
        if (folder / "mtmm_summary.csv").is_file() else None,
        mtmm=_csv(folder / "mtmm.csv", dtype={"metric_a": str, "trait_a": str, "metric_b": str, "trait_b": str,
                                               "kind": str}) if (folder / "mtmm.csv").is_file() else None,
        chance=_csv(folder / "chance.csv", dtype={"model": str, "metric": str, "null": str, "reading": str})
        if (folder / "chance.csv").is_file() else None,
        reliability=_csv(folder / "reliability.csv", dtype={c: str for c in (
            "kind", "family", "model", "unit", "measure", "coefficient", "reading", "reason")}).fillna(
            {c: "" for c in ("family", "model", "unit", "reading", "reason")})
        if (folder / "reliability.csv").is_file() else None)


def numbers(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``columns`` of ``frame`` as floats (NaN where not a number)."""
    return frame[columns].apply(pd.to_numeric, errors="coerce").astype(float)


def finite(x: Any) -> bool:
    try:
        return bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False


#: How the report names an adjustment of correlation_tests.csv.
_ADJUSTMENTS = {"holm": "Holm-adjusted", "bh": "Benjamini–Hochberg-adjusted"}


def pvalue_texts(tests: pd.DataFrame | None) -> dict[tuple[str, str], str]:
    """(a, b) and (b, a) → "p = 0.083 (exact); Holm-adjusted 0.25", from correlation_tests."""
    if tests is None or not {"metric_a", "metric_b", "p_value", "p_method", "mc_error", "p_adjusted",
                             "adjustment"} <= set(tests.columns):
        return {}
    v = numbers(tests, ["p_value", "mc_error", "p_adjusted"])
    out = {}
    for k, (a, b, method, adjustment) in enumerate(zip(tests["metric_a"], tests["metric_b"],
                                                       tests["p_method"], tests["adjustment"])):
        if not np.isfinite(v["p_value"].iat[k]):
            continue
        error = f" ± {fmt(v['mc_error'].iat[k], 2)}" if np.isfinite(v["mc_error"].iat[k]) else ""
        out[(a, b)] = out[(b, a)] = (
            f"p = {fmt(v['p_value'].iat[k], 3)}{error} ({method}); "
            f"{_ADJUSTMENTS.get(str(adjustment), str(adjustment))} {fmt(v['p_adjusted'].iat[k], 3)}")
    return out
