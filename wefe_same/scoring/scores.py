"""What one model contributes to a run: :class:`ModelScores` (what the cache stores per
model), its table columns, and the conversions of its per-word labels (categories in a
run, strings in the cache)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

DETAIL_COLUMNS = (
    "model", "metric", "query_set", "subquery", "value", "words_found", "missing_words",
    "reason", "warning", "p_value", "n_splits", "p_method", "metric_details",
)
WORD_BIAS_COLUMNS = ("model", "metric", "subquery", "word", "component", "value")
#: Details shown in columns of their own (a metric spec's ``promoted_details``), in order.
PROMOTED = ("p_value", "n_splits", "p_method")
#: The label columns of the per-word table (held as categories, see :func:`compact`).
WORD_LABELS = ("model", "metric", "subquery", "word", "component")
#: The dtype pandas gives a column built from a list of strings ("str" with pandas 3, object before).
STR_DTYPE = pd.Series(["x"]).dtype
_PAIR_KEY = re.compile(r"^(signed|pair)_(\d+)_(\d+)$")


@dataclass
class ModelScores:
    """Everything one model contributed to a run (what the cache stores per model).

    ``word_bias`` holds its labels (model, metric, subquery, word, component) as
    categories (:func:`compact`); the cache stores them as strings (:func:`expand_scores`).

    ``draws`` holds resampled overall aggregates, shape (draws, metrics) in the plan's
    metric order: ``"bootstrap_words"`` (words resampled inside every set) and
    ``"halves"`` (random halves of the neutral words, Schröder et al. 2021, §5.3.1),
    ``"chance_permutation"`` and ``"chance_random"`` (the chance baselines,
    :mod:`~wefe_same.scoring.chance`), ``"split_halves"`` (the two halves of each random
    split of every set's words, in consecutive draws).
    """

    name: str
    description: dict[str, str]
    identity: dict[str, Any] | None
    fingerprint: str
    lookups: pd.DataFrame
    details: pd.DataFrame
    word_bias: pd.DataFrame
    draws: dict[str, np.ndarray] = field(default_factory=dict)
    #: With ``reliability``: a unit's id → (measures × words × base pairs), the word-level
    #: scores of :mod:`~wefe_same.scoring.word_level`.
    word_scores: dict[str, np.ndarray] = field(default_factory=dict)


def name_pairs(key: str, names: Sequence[str]) -> str:
    """``signed_0_1`` → ``signed:male-female``: index pairs of target sets by their names."""
    match = _PAIR_KEY.match(key)
    if not match:
        return key
    kind, i, j = match.group(1), int(match.group(2)), int(match.group(3))
    return f"{kind}:{names[i]}-{names[j]}"


def details_json(details: Mapping[str, Any]) -> str:
    """A metric's details as the JSON of ``details.csv``'s ``metric_details`` (NaN → null)."""
    def clean(v: Any) -> Any:
        v = v.item() if isinstance(v, np.generic) else v
        return None if isinstance(v, float) and math.isnan(v) else v

    return json.dumps({k: clean(v) for k, v in details.items()}, sort_keys=True)


def compact(scores: ModelScores | None) -> ModelScores | None:
    """The same scores holding their per-word table's repeated labels as categories.

    A model's per-word rows repeat a few model, metric, subquery and component labels
    over ~10⁵ rows: as categories they take about a tenth of the memory, which keeps a
    many-model run's parent flat. The values, and every CSV written from them, are the same.
    :func:`~wefe_same.scoring.model.score_table` makes them so; scores read from the
    cache hold strings.
    """
    if scores is None or scores.word_bias.empty:
        return scores
    frame = scores.word_bias
    labels = {c: "category" for c in WORD_LABELS
              if c in frame and not isinstance(frame[c].dtype, pd.CategoricalDtype)}
    return replace(scores, word_bias=frame.astype(labels)) if labels else scores


def expand_scores(scores: ModelScores) -> ModelScores:
    """The same scores with their per-word labels as strings (what the cache stores: the
    entry format holds no categories; :func:`compact` undoes it)."""
    frame = scores.word_bias
    labels = {c: STR_DTYPE for c in WORD_LABELS if c in frame and isinstance(frame[c].dtype, pd.CategoricalDtype)}
    return replace(scores, word_bias=frame.astype(labels)) if labels else scores
