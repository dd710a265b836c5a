"""The quality columns of a run: each model's benchmark rows, cached per model.

A model's rows are keyed by its identity, its name, each benchmark's name, kind and file
hash, and ``analogy_vocab`` (:func:`~wefe_same.run.cache.quality_key`): a second run with
the same benchmarks reads them from the cache and opens no model file. The warnings
evaluating a model gave (an encoder has no analogy score) are stored with its rows and
given again on a hit.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from wefe_same.errors import WefeSameWarning
from wefe_same.quality import evaluate_quality
from wefe_same.quality.datasets import AnalogyDataset, SimilarityDataset
from wefe_same.run.cache import ModelCache, quality_key
from wefe_same.run.plan import ModelTask
from wefe_same.run.score import source_identity
from wefe_same.versions import sha256_file

Dataset = SimilarityDataset | AnalogyDataset


def quality_table(tasks: Sequence[ModelTask], datasets: Sequence[Dataset], *, analogy_vocab: int,
                  cache: ModelCache | None = None, progress: bool | None = None) -> pd.DataFrame:
    """:func:`~wefe_same.quality.evaluate_quality` of every model, one model at a time,
    its rows read from or written to ``cache`` when the model has an identity."""
    benchmarks = [(d.name, d.kind, sha256_file(Path(d.path))) for d in datasets] if cache is not None else []
    parts = []
    for task in tasks:
        source = task.source()  # resolving a spec opens no model file
        identity = source_identity(source, task.name) if cache is not None else None
        key = None if identity is None else quality_key(identity, task.name, benchmarks, analogy_vocab)
        got = cache.get_quality(key) if key is not None else None  # type: ignore[union-attr]
        if got is None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", WefeSameWarning)
                rows = evaluate_quality([source], list(datasets), analogy_vocab=analogy_vocab, progress=progress)
            others = [w for w in caught if not issubclass(w.category, WefeSameWarning)]
            said = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
            for w in others:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if key is not None:
                cache.put_quality(key, rows, said)  # type: ignore[union-attr]
        else:
            rows, said = got
        for message in said:
            warnings.warn(message, WefeSameWarning, stacklevel=2)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)
