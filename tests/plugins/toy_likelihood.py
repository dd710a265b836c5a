"""A likelihood benchmark as a plugin declares one (docs/extending.md, "Your own likelihood
benchmark"), for tests/plugins/test_likelihood_plugin.py, registered there through the
entry-point group ``wefe_same.likelihood``: ``toy-pairs=FILE`` reads tab-separated lines
``SENTENCE_A<TAB>SENTENCE_B<TAB>BIAS_TYPE`` and measures the share of pairs whose first
sentence the model scores higher (50: no preference)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from wefe_same.errors import LikelihoodError
from wefe_same.likelihood import BenchmarkSpec, Measure, crows_scores


def read_pairs(path: str | Path) -> pd.DataFrame:
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise LikelihoodError(f"{path}:{number}: a toy pair is SENTENCE<TAB>SENTENCE<TAB>BIAS_TYPE")
        rows.append((number, *parts))
    return pd.DataFrame(rows, columns=["item_id", "first", "second", "bias_type"])


def score_pairs(lm, pairs: pd.DataFrame, scoring: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    first, second = crows_scores(lm, list(zip(pairs["first"], pairs["second"])), scoring)
    items = pairs[["item_id", "bias_type"]].copy()
    items["first_score"], items["second_score"] = first, second
    prefers = pd.Series(first > second, index=pairs.index)
    summary = {"overall": (100 * prefers.mean(), len(pairs))}
    for bias_type, group in prefers.groupby(pairs["bias_type"]):
        summary[bias_type] = (100 * group.mean(), len(group))
    return items, pd.DataFrame.from_dict(summary, orient="index", columns=["preference", "n_items"]).astype(
        {"preference": np.float64, "n_items": np.int64})


BENCHMARK = BenchmarkSpec("toy-pairs", read_pairs, score_pairs, {"preference": Measure("ideal", 50.0)},
                          "none (a test plugin)", by_bias_type=True)
