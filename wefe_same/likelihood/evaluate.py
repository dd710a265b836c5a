"""One model on the likelihood benchmarks: its per-item table and its figures.

:func:`evaluate_likelihood` returns two long tables. ``scores``: one row per (benchmark,
measure, bias type) with the value, the number of items and, when the value is NaN, the
reason (a static model or an encoder without a language-model head). ``items``: one row
per item with the scores of each of its sentences, so a reader can see why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from wefe_same.errors import LikelihoodError, unknown_name
from wefe_same.likelihood.benchmarks import BenchmarkSpec, Measure, plugin_benchmarks
from wefe_same.likelihood.data import DOWNLOADS, read_crows_pairs, read_stereoset
from wefe_same.likelihood.lm import LanguageModel
from wefe_same.likelihood.sentences import SCORINGS, Scoring, crows_scores, stereoset_scores
from wefe_same.likelihood.summary import OVERALL, crows_summary, stereoset_summary

SCORE_COLUMNS = ["model", "benchmark", "measure", "bias_type", "value", "n_items", "scoring", "reason"]


def likelihood_name(benchmark: str, measure: str) -> str:
    """The column of a benchmark's measure in rankings and aggregates (:meth:`BenchmarkSpec.column`).

    >>> likelihood_name("crows-pairs", "metric_score"), likelihood_name("stereoset", "icat")
    ('likelihood:crows-pairs', 'likelihood:stereoset-icat')
    """
    return benchmark_spec(benchmark).column(measure)


@dataclass(frozen=True)
class LikelihoodBenchmark:
    """A benchmark and the file its items are read from."""

    name: str
    path: str

    def load(self) -> pd.DataFrame:
        return benchmark_spec(self.name).read(self.path)


def parse_benchmark(value: str) -> tuple[str, str | None]:
    """``"crows-pairs=FILE"`` → ("crows-pairs", "FILE"); ``"stereoset"`` → ("stereoset", None).

    >>> parse_benchmark("crows-pairs=data/crows.csv")
    ('crows-pairs', 'data/crows.csv')
    """
    name, sep, path = value.partition("=")
    name = name.strip().lower()
    benchmarks = likelihood_benchmarks()
    if name not in benchmarks:
        raise LikelihoodError(unknown_name("likelihood benchmark", name, list(benchmarks)))
    if sep and not path:
        raise LikelihoodError(f"likelihood benchmark {value!r}: name a file after '='")
    return name, (path or None)


def check_scoring(scoring: str) -> Scoring:
    if scoring not in SCORINGS:
        raise LikelihoodError(unknown_name("likelihood scoring", scoring, SCORINGS))
    return scoring  # type: ignore[return-value]


def _decimals(lm: LanguageModel, scoring: Scoring) -> int | None:
    """The authors' and bias-bench's masked-model code compare scores rounded to 3 decimals."""
    return 3 if lm.kind == "masked" and scoring in ("authors", "bias-bench") else None


def _scoring_label(lm: LanguageModel, scoring: Scoring) -> str:
    return "causal" if lm.kind == "causal" else scoring


def score_crows(lm: LanguageModel, pairs: pd.DataFrame, scoring: Scoring = "authors"
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, summary) of CrowS-Pairs: the items with ``sent_more_score``,
    ``sent_less_score`` and ``preferred`` (more, less, neutral, skipped)."""
    more, less = crows_scores(lm, list(zip(pairs["sent_more"], pairs["sent_less"])), scoring,
                              directions=list(pairs["direction"]))
    decimals = _decimals(lm, scoring)
    summary = crows_summary(more, less, list(pairs["bias_type"]), decimals=decimals)
    items = pairs[["item_id", "bias_type", "direction"]].copy()
    items["sent_more_score"], items["sent_less_score"] = more, less
    r_more = np.array([round(x, decimals) if decimals is not None and np.isfinite(x) else x for x in more.tolist()])
    r_less = np.array([round(x, decimals) if decimals is not None and np.isfinite(x) else x for x in less.tolist()])
    items["preferred"] = np.select([~(np.isfinite(more) & np.isfinite(less)), r_more > r_less, r_more < r_less],
                                   ["skipped", "more", "less"], "neutral")
    return items, summary


def score_stereoset(lm: LanguageModel, examples: pd.DataFrame, scoring: Scoring = "authors"
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, summary) of StereoSet intrasentence: the items with the score of each sentence."""
    labels = ("stereotype", "anti-stereotype", "unrelated")
    flat = [(c, s) for _, row in examples.iterrows() for c, s in ((row["context"], row[g]) for g in labels)]
    scores = stereoset_scores(lm, flat, scoring).reshape(-1, 3)
    items = examples[["item_id", "bias_type", "target"]].copy()
    for j, label in enumerate(labels):
        items[label.replace("-", "_") + "_score"] = scores[:, j]
    summary = stereoset_summary(scores[:, 0], scores[:, 1], scores[:, 2], list(examples["bias_type"]),
                                list(examples["target"]))
    return items, summary


#: CrowS-Pairs (Nangia et al. 2020): the share of pairs where the model prefers the more stereotyping sentence.
CROWS_PAIRS = BenchmarkSpec(
    "crows-pairs", read_crows_pairs, score_crows, {"metric_score": Measure("ideal", 50.0)},
    "Nangia et al. 2020; their code nyu-mll/crows-pairs metric.py (scoring=bias-bench: McGill-NLP/bias-bench)",
    count="n_pairs", by_bias_type=True, download=DOWNLOADS["crows-pairs"])
#: StereoSet intrasentence (Nadeem et al. 2021): ss, lms and icat.
STEREOSET = BenchmarkSpec(
    "stereoset", read_stereoset, score_stereoset,
    {"ss": Measure("ideal", 50.0), "lms": Measure("descending"), "icat": Measure("descending")},
    "Nadeem et al. 2021; as McGill-NLP/bias-bench's runner and ScoreEvaluator", download=DOWNLOADS["stereoset"])
#: The built-in benchmarks, in the order of the tables.
BUILTIN_BENCHMARKS = (CROWS_PAIRS, STEREOSET)


def likelihood_benchmarks() -> dict[str, BenchmarkSpec]:
    """Every benchmark by name: the built-in ones, then the installed plugins'."""
    return {**{b.name: b for b in BUILTIN_BENCHMARKS}, **{n: spec for n, (spec, _) in plugin_benchmarks().items()}}


def benchmark_spec(name: str) -> BenchmarkSpec:
    """The spec of the benchmark ``name``, or a :class:`LikelihoodError` listing them."""
    benchmarks = likelihood_benchmarks()
    if name not in benchmarks:
        raise LikelihoodError(unknown_name("likelihood benchmark", name, list(benchmarks)))
    return benchmarks[name]


def _long(model: str, benchmark: str, summary: pd.DataFrame, scoring: str) -> pd.DataFrame:
    spec = benchmark_spec(benchmark)
    rows = []
    for measure in spec.measures:
        for bias_type, row in summary.iterrows():
            n = row[spec.count]
            rows.append((model, benchmark, measure, bias_type, float(row[measure]), int(n), scoring, ""))
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def unscored(model: str, benchmarks: Sequence[str], reason: str, scoring: str) -> pd.DataFrame:
    """The NaN rows (overall) of a model that has no language model, with ``reason``."""
    rows = [(model, b, m, OVERALL, np.nan, 0, scoring, reason) for b in benchmarks for m in benchmark_spec(b).measures]
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def evaluate_likelihood(lm: LanguageModel, model: str, data: dict[str, pd.DataFrame], *,
                        scoring: Scoring = "authors") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(scores, items) of one language model on each benchmark of ``data`` (name → its
    loaded items, :meth:`LikelihoodBenchmark.load`)."""
    scores, items = [], []
    label = _scoring_label(lm, scoring)
    for name, table in data.items():
        got, summary = benchmark_spec(name).score(lm, table, scoring)
        scores.append(_long(model, name, summary, label))
        got.insert(0, "benchmark", name)
        got.insert(0, "model", model)
        items.append(got)
    return pd.concat(scores, ignore_index=True), pd.concat(items, ignore_index=True)


def dataset_path(name: str, path: str | None, *, allow_download: bool, cache: Path | None) -> str:
    """The file a benchmark is read from: the one named, else (downloads allowed) the cached download."""
    if path is not None:
        return path
    if not allow_download or cache is None:
        raise LikelihoodError(f"likelihood benchmark {name!r}: name its file ({name}=FILE); "
                              "the data is not shipped and is never downloaded without --allow-download")
    from wefe_same.likelihood.data import download

    return str(download(name, cache, benchmark_spec(name).download))
