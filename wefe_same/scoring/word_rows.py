"""The per-word table of one model (a metric's value for each word of a subquery),
gathered as integer codes and built once at the end.

One small DataFrame per subquery and component was a third of a model's scoring, and
strings per row, later turned into categories, a fifth of the rest: the labels are kept
as codes here and become the categories pandas' own ``astype("category")`` would make.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wefe_same.scoring.layout import QueryLayouts
from wefe_same.scoring.scores import STR_DTYPE, WORD_BIAS_COLUMNS
from wefe_same.scoring.vectors import VectorTable

#: The categories of a label column: (label codes used, their remap to category codes, dtype).
KnownCategories = list[tuple[np.ndarray, np.ndarray, pd.CategoricalDtype]]


def category_column(codes: np.ndarray, labels: Sequence[str], known: KnownCategories | None = None) -> pd.Categorical:
    """``[labels[i] for i in codes]`` as ``astype("category")`` makes it (the labels used,
    sorted), from the codes: no string is built per row. ``known``: the last labels used
    and their dtype, kept there (a zoo's models use the same thousands of words)."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(labels)))
    if known and np.array_equal(known[0][0], used):
        _, remap, dtype = known[0]
    else:
        names = np.array(labels, dtype=object)[used]
        order = np.argsort(names, kind="stable")
        remap = np.zeros(len(labels), dtype=np.int64)
        remap[used[order]] = np.arange(len(used))
        dtype = pd.CategoricalDtype(pd.Index(names[order], dtype=STR_DTYPE))
        if known is not None:
            known[:] = [(used, remap, dtype)]
    return pd.Categorical.from_codes(remap[codes], dtype=dtype)


class WordRows:
    """The per-word rows of one model: :meth:`add` them, then :meth:`frame` once.

    ``layouts``: the run's :class:`~wefe_same.scoring.layout.QueryLayouts` of the
    table's words, whose word categories models with those words share.
    """

    def __init__(self, table: VectorTable, layouts: QueryLayouts | None = None):
        self.table = table
        self.layouts = QueryLayouts(table.words) if layouts is None else layouts
        self.labels: dict[str, dict[str, int]] = {c: {} for c in ("metric", "subquery", "component")}
        self.codes: dict[str, list[int]] = {c: [] for c in ("metric", "subquery", "component")}
        self.lengths: list[int] = []
        self.words: list[np.ndarray] = []
        self.values: list[np.ndarray] = []

    def add(self, metric: str, subquery: str, rows: np.ndarray, component: str, values: np.ndarray) -> None:
        """One value per word: ``rows`` are the words' rows in the table."""
        values = np.asarray(values)
        if len(values) != len(rows):
            raise ValueError(f"metric {metric!r} on {subquery!r}: {len(values)} word values for {len(rows)} words")
        for column, label in (("metric", metric), ("subquery", subquery), ("component", component)):
            self.codes[column].append(self.labels[column].setdefault(label, len(self.labels[column])))
        self.lengths.append(len(rows))
        self.words.append(rows)
        self.values.append(values)

    def frame(self) -> pd.DataFrame:
        """The rows, labels as categories (what :func:`~wefe_same.scoring.scores.compact`
        makes of strings)."""
        n = sum(self.lengths)
        if not n:
            return pd.DataFrame(columns=list(WORD_BIAS_COLUMNS)).astype({"value": "float64"})
        lengths = np.array(self.lengths, dtype=np.int64)
        codes = {column: np.repeat(np.array(self.codes[column], dtype=np.int64), lengths)
                 for column in ("metric", "subquery", "component")}
        codes["model"] = np.zeros(n, dtype=np.int64)
        codes["word"] = np.concatenate(self.words)
        labels = {column: list(names) for column, names in self.labels.items()}
        labels["model"], labels["word"] = [self.table.model], list(self.table.words)
        known = {"word": self.layouts.word_categories}
        return pd.DataFrame({**{column: category_column(codes[column], labels[column], known.get(column))
                                for column in WORD_BIAS_COLUMNS[:-1]},
                             "value": np.concatenate(self.values)})
