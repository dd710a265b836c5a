"""The likelihood columns of a run: each model's CrowS-Pairs and StereoSet figures and its
per-item table (:mod:`wefe_same.likelihood`), one model at a time.

A model whose source has no language model (static vectors, an ONNX encoder) or whose
folder holds no masked or causal head (a sentence-transformers encoder) gets NaN rows with
that reason, and one warning names it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pandas as pd

from wefe_same.cachedir import cache_dir
from wefe_same.errors import LikelihoodError, WefeSameWarning, short_list
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
    and (name, sha256 of the file) of each."""
    data: dict[str, pd.DataFrame] = {}
    hashes = []
    for value in values:
        name, path = parse_benchmark(value)
        if name in data:
            raise LikelihoodError(f"likelihood benchmark {name!r} is named twice")
        file = dataset_path(name, path, allow_download=allow_download, cache=cache)
        data[name] = LikelihoodBenchmark(name, file).load()
        hashes.append((name, sha256_file(Path(file))))
    return data, hashes


def likelihood_tables(tasks: Sequence[ModelTask], data: dict[str, pd.DataFrame], *, scoring: Scoring,
                      device: Device = "auto", trust_pickle: bool = False, cache: ModelCache | None = None,
                      hashes: Sequence[tuple[str, str]] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(scores, items) of every model: the long tables of
    :func:`~wefe_same.likelihood.evaluate.evaluate_likelihood`, NaN rows with the reason for
    a model without a language model. A language model's tables are read from or written
    to ``cache`` under its identity, the datasets' ``hashes`` (benchmark, sha256) and the
    scoring: a second run opens no model file."""
    scores, items = [], []
    unscorable: dict[str, list[str]] = {}
    for task in tasks:
        source = task.source()
        folder, reason = source.language_model()
        if folder is None:
            scores.append(unscored(task.name, list(data), reason, scoring))
            unscorable.setdefault(reason, []).append(task.name)
            continue
        identity = source_identity(source, task.name) if cache is not None else None
        key = None if identity is None else likelihood_key(identity, task.name, hashes, scoring)
        got = cache.get_likelihood(key) if key is not None else None  # type: ignore[union-attr]
        if got is None:
            try:
                lm = load_language_model(folder, device=torch_device(device), trust_pickle=trust_pickle)
            except NoLanguageModelHead as err:
                reason = f"encoder without a language-model head (architectures: {err.architectures})"
                scores.append(unscored(task.name, list(data), reason, scoring))
                unscorable.setdefault(reason, []).append(task.name)
                continue
            got = evaluate_likelihood(lm, task.name, data, scoring=scoring)
            if key is not None:
                cache.put_likelihood(key, *got)  # type: ignore[union-attr]
        scores.append(got[0])
        items.append(got[1])
    for reason, names in unscorable.items():
        warnings.warn(f"likelihood scores are NaN for {short_list(names, quote=True)}: {reason}",
                      WefeSameWarning, stacklevel=2)
    table = pd.concat(scores, ignore_index=True) if scores else pd.DataFrame(columns=SCORE_COLUMNS)
    return table, (pd.concat(items, ignore_index=True) if items else pd.DataFrame())
