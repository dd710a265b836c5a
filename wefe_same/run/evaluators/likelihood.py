"""The likelihood columns of a run: each model's CrowS-Pairs and StereoSet figures and its
per-item table (:mod:`wefe_same.likelihood`), one model at a time.

A model whose source has no language model (static vectors, an ONNX encoder) or whose
folder holds no masked or causal head (a sentence-transformers encoder) gets NaN rows with
that reason, and one warning names it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import pandas as pd

from wefe_same.analysis.analyse import likelihood_columns
from wefe_same.analysis.measurement import setting_sensitivity
from wefe_same.analysis.ranking import Ties
from wefe_same.cachedir import cache_dir
from wefe_same.errors import LikelihoodError, WefeSameWarning, short_list
from wefe_same.likelihood.benchmarks import plugin_benchmarks
from wefe_same.likelihood.evaluate import (
    SCORE_COLUMNS,
    LikelihoodBenchmark,
    dataset_path,
    evaluate_likelihood,
    parse_benchmark,
    unscored,
)
from wefe_same.likelihood.lm import NoLanguageModelHead, load_language_model
from wefe_same.likelihood.sentences import Scoring
from wefe_same.models.encoders.settings import Device, torch_device
from wefe_same.run.cache import ModelCache, likelihood_key
from wefe_same.run.plan import ModelTask
from wefe_same.run.score import source_identity
from wefe_same.versions import sha256_file


def likelihood_cache_dir(root: Path | Literal[False] | None) -> Path | None:
    """Where downloaded datasets go: ``<cache>/datasets`` (None: the cache is off)."""
    if root is False:
        return None
    return (cache_dir() if root is None else Path(root).expanduser()) / "datasets"


def load_likelihood_data(values: Sequence[str], *, allow_download: bool, cache: Path | None
                         ) -> tuple[dict[str, pd.DataFrame], list[tuple[str, str]]]:
    """Each ``NAME=FILE`` (or, with downloads allowed, ``NAME``) read and checked, by name,
    and (name, sha256 of the file) of each: the cache key of the tables, where a plugin's
    benchmark is named with its package and version (new code of it scores again)."""
    data: dict[str, pd.DataFrame] = {}
    hashes = []
    for value in values:
        name, path = parse_benchmark(value)
        if name in data:
            raise LikelihoodError(f"likelihood benchmark {name!r} is named twice")
        file = dataset_path(name, path, allow_download=allow_download, cache=cache)
        data[name] = LikelihoodBenchmark(name, file).load()
        plugin = plugin_benchmarks().get(name)
        hashes.append((name if plugin is None else f"{name} ({plugin[1]})", sha256_file(Path(file))))
    return data, hashes


def likelihood_tables(tasks: Sequence[ModelTask], data: dict[str, pd.DataFrame], *, scoring: Scoring,
                      device: Device = "auto", trust_pickle: bool = False, cache: ModelCache | None = None,
                      hashes: Sequence[tuple[str, str]] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(scores, items) of every model: the long tables of
    :func:`~wefe_same.likelihood.evaluate.evaluate_likelihood`, NaN rows with the reason for
    a model without a language model. A language model's tables are read from or written
    to ``cache`` under its identity, the datasets' ``hashes`` (benchmark, sha256) and the
    scoring: a second run opens no model file."""
    return tables_by_scoring(tasks, data, scorings=(scoring,), device=device, trust_pickle=trust_pickle,
                             cache=cache, hashes=hashes)[scoring]


def tables_by_scoring(tasks: Sequence[ModelTask], data: dict[str, pd.DataFrame], *, scorings: Sequence[Scoring],
                      device: Device = "auto", trust_pickle: bool = False, cache: ModelCache | None = None,
                      hashes: Sequence[tuple[str, str]] = ()) -> dict[Scoring, tuple[pd.DataFrame, pd.DataFrame]]:
    """:func:`likelihood_tables` under each of ``scorings``, each model opened at most once
    (and not at all when the cache holds its tables under every scoring). A causal model
    is scored once: its sentence log-likelihood is the same under every scoring."""
    scores: dict[Scoring, list[pd.DataFrame]] = {s: [] for s in scorings}
    items: dict[Scoring, list[pd.DataFrame]] = {s: [] for s in scorings}
    unscorable: dict[str, list[str]] = {}

    def nan_rows(name: str, why: str) -> None:
        for s in scorings:
            scores[s].append(unscored(name, list(data), why, s))
        unscorable.setdefault(why, []).append(name)

    for task in tasks:
        source = task.source()
        folder, reason = source.language_model()
        if folder is None:
            nan_rows(task.name, reason)
            continue
        identity = source_identity(source, task.name) if cache is not None else None
        keys = {} if identity is None else {s: likelihood_key(identity, task.name, hashes, s) for s in scorings}
        got = {s: cache.get_likelihood(k) for s, k in keys.items()}  # type: ignore[union-attr]
        missing = [s for s in scorings if got.get(s) is None]
        if missing:
            try:
                lm = load_language_model(folder, device=torch_device(device), trust_pickle=trust_pickle)
            except NoLanguageModelHead as err:
                nan_rows(task.name, f"encoder without a language-model head (architectures: {err.architectures})")
                continue
            causal = None
            for s in missing:
                tables = causal if causal is not None else evaluate_likelihood(lm, task.name, data, scoring=s)
                if lm.kind == "causal":
                    causal = tables
                if s in keys:
                    cache.put_likelihood(keys[s], *tables)  # type: ignore[union-attr]
                got[s] = tables
        for s in scorings:
            scores[s].append(got[s][0])  # type: ignore[index]
            items[s].append(got[s][1])  # type: ignore[index]
    for reason, names in unscorable.items():
        warnings.warn(f"likelihood scores are NaN for {short_list(names, quote=True)}: {reason}",
                      WefeSameWarning, stacklevel=2)
    return {s: (pd.concat(scores[s], ignore_index=True) if scores[s] else pd.DataFrame(columns=SCORE_COLUMNS),
                pd.concat(items[s], ignore_index=True) if items[s] else pd.DataFrame()) for s in scorings}


def scoring_sensitivity(table: pd.DataFrame | None, scores: Mapping[str, pd.DataFrame], models: Sequence[str],
                        ties: Ties) -> pd.DataFrame:
    """``table`` (the ``--vary`` rows, or None) with a row per overall likelihood column and
    pair of scorings: the models ranked by that column under each scoring (``scores``:
    scoring → its long scores table), as :func:`~wefe_same.analysis.measurement.setting_sensitivity`."""
    ranks = {}
    for scoring, long in scores.items():
        columns = likelihood_columns(long, models, ties)[1]
        ranks[f"scoring={scoring}"] = columns[[c for c in columns.columns if "[" not in c]]
    rows = setting_sensitivity(ranks, ties)
    return rows if table is None or table.empty else pd.concat([table, rows], ignore_index=True)
