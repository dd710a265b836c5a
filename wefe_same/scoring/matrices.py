"""Scores across models: the score matrices, the per-word table of a run, and the
vocabulary every model shares (a shared-words run scores every model on it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
import pandas as pd

from wefe_same.query import resample as resampling
from wefe_same.scoring.context import ScoringPlan
from wefe_same.scoring.scores import ModelScores
from wefe_same.scoring.vectors import Lookup, LookupStatus, VectorTable

#: Lookup status of a word a model has but not every model of a shared-words run has.
NOT_SHARED: LookupStatus = "not shared"



def score_matrices(per_model: Sequence[ModelScores], plan: ScoringPlan) -> dict[str, pd.DataFrame]:
    """Per metric a DataFrame: index = model (in run order), columns = subquery ids."""
    details = pd.concat([m.details for m in per_model], ignore_index=True)
    models = [m.name for m in per_model]
    out = {}
    for spec, subqueries in plan.subqueries:
        part = details[details["metric"] == spec.name]
        # pivot (not pivot_table): a duplicate (model, subquery) is a bug and must raise.
        matrix = part.pivot(index="model", columns="subquery", values="value")
        matrix = matrix.reindex(index=models, columns=[s.column for s in subqueries])
        matrix.index.name, matrix.columns.name = "model", "subquery"
        out[spec.name] = matrix.astype("float64")
    return out



def concat_word_bias(per_model: Sequence[ModelScores]) -> pd.DataFrame:
    """Every model's per-word rows in one table, labels kept as categories (their union)."""
    frames = [m.word_bias for m in per_model]
    for column in ("model", "metric", "subquery", "word", "component"):
        if all(isinstance(f[column].dtype, pd.CategoricalDtype) for f in frames if column in f):
            categories = list(dict.fromkeys(c for f in frames for c in f[column].cat.categories))
            frames = [f.assign(**{column: f[column].cat.set_categories(categories)}) for f in frames]
    return pd.concat(frames, ignore_index=True)


def shared_vocabulary(tables: Sequence[VectorTable], plan: ScoringPlan | None = None) -> frozenset[str]:
    """The words every table has (a shared-words run scores every model on these), without
    the aligned tuples of ``plan``'s queries that lost a member: tuples stay whole."""
    shared = frozenset.intersection(*(frozenset(t.keys) for t in tables)) if tables else frozenset()
    if plan is None:
        return shared
    return resampling.close_tuples(shared, resampling.aligned_groups(plan.query_sets))


def restrict(table: VectorTable, keep: Collection[str]) -> VectorTable:
    """The table with only the words in ``keep``; the others become "not shared" lookups."""
    keep = frozenset(keep)
    lookups = [lk if lk.word in keep or not lk.found else Lookup(lk.word, lk.found_as, NOT_SHARED)
               for lk in table.lookups]
    if table.items is not None:  # an item table: the kept words' rows (sentences), renumbered
        items = {w: r for w, r in table.items.items() if w in keep}
        used = np.unique(np.concatenate(list(items.values()))) if items else np.zeros(0, dtype=np.int64)
        renumber = np.full(len(table.words), -1, dtype=np.int64)
        renumber[used] = np.arange(len(used))
        return VectorTable.from_items(table.model, [table.words[i] for i in used.tolist()],
                                      table.raw[used] if len(used) else np.zeros((0, 0)),
                                      {w: renumber[r] for w, r in items.items()}, lookups)
    vectors = {w: table.raw[i] for i, w in enumerate(table.words) if w in keep}
    return VectorTable(table.model, vectors, lookups)
