"""Which words of a subquery a metric receives, and their vectors, gathered once per model.

The out-of-vocabulary policy lives here (Badilla et al. 2020, §3.2): a set that lost too
many words makes its subquery NaN with the reason; aligned target sets lose whole tuples.
A query's :class:`Layout` depends on the model's words only, so models with the same
words share it through a :class:`QueryLayouts`; a model's vectors are gathered once per
word list by :class:`WordVectors` and shared, read-only, by every metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from wefe_same.metrics.memo import Memo, ModelMemo
from wefe_same.metrics.registry import MetricSpec
from wefe_same.query.sets import Query, WordSet
from wefe_same.scoring.vectors import VectorTable

#: Words that replace a set's own words (a word-bootstrap draw, a random half), keyed by
#: the WordSet itself: two query files may use one set name for different words.
WordsOf = Mapping[WordSet, Sequence[str]]
VectorKind = Literal["unit", "raw"]


@dataclass(frozen=True)
class SubqueryArrays:
    """One subquery's arrays for one metric, after the out-of-vocabulary policy."""

    targets: list[np.ndarray]
    attributes: list[np.ndarray]
    words: dict[str, list[str]]  # role → the found words behind the rows, sets concatenated
    words_found: int
    missing: list[str]
    reason: str | None
    word_rows: dict[str, np.ndarray] = field(default_factory=dict)  # role → the table's rows of ``words``
    #: role → the number of each array in its :class:`WordVectors` (the key of what a
    #: :class:`~wefe_same.metrics.memo.ModelMemo` remembers of it).
    array_keys: dict[str, list[int]] = field(default_factory=dict)

    def memo(self, model: ModelMemo) -> Memo:
        """``model``'s memo bound to this subquery's arrays."""
        return model.bind([*self.targets, *self.attributes],
                          [*self.array_keys.get("targets", ()), *self.array_keys.get("attributes", ())])


def loss_reason(what: str, lost: int, total: int, threshold: float, unit: str) -> str | None:
    """Why a set (or the aligned tuples) lost too much to be scored, or None."""
    if lost == total:
        return f"{what} has no {unit} in the model"
    if lost / total > threshold:
        return f"{what} lost {lost} of {total} {unit}s ({lost / total:.0%} > {threshold:.0%})"
    return None


def aligned_words(table: VectorTable, columns: Sequence[Sequence[str]]) -> tuple[list[list[str]], int, int]:
    """Columns of the tuples whose every word is known; (columns, tuples lost, tuples)."""
    tuples = list(zip(*columns))
    kept = [t for t in tuples if all(w in table for w in t)]
    return [list(col) for col in zip(*kept)] or [[] for _ in columns], len(tuples) - len(kept), len(tuples)


def unaligned_reason(sets: Sequence[WordSet]) -> str | None:
    """Why target sets cannot be read as aligned tuples (Direct Bias, RIPA), or None."""
    undeclared = [s.name for s in sets if not getattr(s, "aligned", False)]
    if undeclared:
        return ("target sets " + ", ".join(repr(n) for n in undeclared) + " are not declared aligned "
                "(aligned = true in the query file), so their words cannot be paired by position")
    if len({len(s) for s in sets}) > 1:
        return "aligned target sets differ in length: " + ", ".join(f"{s.name}={len(s)}" for s in sets)
    return None


@dataclass(frozen=True)
class Layout:
    """Which words of a subquery's sets a metric receives, and why not (no arrays)."""

    word_lists: dict[str, list[tuple[str, ...]]]  # role → the found words of each set (aligned: columns)
    rows: dict[str, list[np.ndarray]]  # their rows in the table
    words: dict[str, list[str]]
    word_rows: dict[str, np.ndarray]  # the rows of ``words``
    words_found: int
    missing: list[str]
    reason: str | None
    #: role → a number per word list, the same for equal lists of one vocabulary (None:
    #: a layout of resampled words): the key of its gathered vectors in :class:`WordVectors`.
    list_keys: dict[str, list[int | None]] = field(default_factory=dict)


class QueryLayouts:
    """What depends on a table's words only, not on its vectors: each query's layout, a
    number for each word list, and the per-word table's word categories.

    Models that find the same words share it (a zoo's encoders all find every word, and a
    run's static models often the same ones): splitting every set and laying out every
    query again was most of a model's scoring outside the metrics. A run keeps the one of
    its last model (:meth:`~wefe_same.scoring.context.ScoringContext.query_layouts`).
    """

    def __init__(self, words: tuple[str, ...]):
        self.words = words
        self.by_query: dict[tuple[Query, bool, float], Layout] = {}
        #: Layouts of a run's subqueries by position: (metric index, aligned, threshold) → one per subquery.
        self.by_position: dict[tuple[int, bool, float], list[Layout]] = {}
        self.list_numbers: dict[tuple[str, ...], int] = {}
        self.word_categories: list[tuple[np.ndarray, np.ndarray, pd.CategoricalDtype]] = []

    def list_key(self, words: tuple[str, ...]) -> int:
        """A number for a word list: equal lists get the same one."""
        return self.list_numbers.setdefault(words, len(self.list_numbers))


class WordVectors:
    """One model's word lists, each split into (found, missing) and gathered once.

    A set takes part in many subqueries and metrics (the default run: ~480 subqueries over
    a few dozen sets per model); splitting it and gathering its rows again each time was
    most of a model's scoring outside the metrics' maths. The gathered arrays are shared
    by every metric that receives them, so they are read-only: a metric that wrote into
    its input would change another metric's scores, and raises instead.

    ``layouts``: the :class:`QueryLayouts` of the table's words that the run keeps
    (default: one of this model's own).

    >>> from wefe_same.models.sources import ArraySource
    >>> from wefe_same.scoring.vectors import build_table
    >>> vectors = WordVectors(build_table(ArraySource("toy", ["a", "b"], np.eye(2)), ["a", "b", "c"]))
    >>> vectors.split(("c", "a"))
    (('a',), ('c',))
    >>> v = vectors.vectors(("a",), "unit"); v is vectors.vectors(("a",), "unit"), v.flags.writeable
    (True, False)
    """

    def __init__(self, table: VectorTable, layouts: QueryLayouts | None = None):
        self.table = table
        self.layouts = QueryLayouts(table.words) if layouts is None else layouts
        self._splits: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._rows: dict[tuple[str, ...], np.ndarray] = {}
        #: (kind, words) → (array, its number); (kind, list number) → the same.
        self._arrays: dict[tuple[str, tuple[str, ...]], tuple[np.ndarray, int]] = {}
        self._numbered: dict[tuple[str, int], tuple[np.ndarray, int]] = {}

    def split(self, words: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(found, missing) of ``words`` in the table, each in the order given."""
        key = tuple(words)
        got = self._splits.get(key)
        if got is None:
            found, missing = self.table.split(key)
            got = self._splits[key] = (tuple(found), tuple(missing))
        return got

    def rows(self, words: tuple[str, ...]) -> np.ndarray:
        """The rows of ``words`` (all found) in the table."""
        got = self._rows.get(words)
        if got is None:
            got = self._rows[words] = self.table.rows(words)
        return got

    def vectors(self, words: tuple[str, ...], kind: VectorKind, rows: np.ndarray | None = None,
                key: int | None = None) -> np.ndarray:
        """The unit or raw vectors of ``words`` (all found; ``rows``: their rows, when known;
        ``key``: the list's :meth:`QueryLayouts.list_key`, when known), shape (len(words), d),
        read-only."""
        return self.keyed_vectors(words, kind, rows, key)[0]

    def keyed_vectors(self, words: tuple[str, ...], kind: VectorKind, rows: np.ndarray | None = None,
                      key: int | None = None) -> tuple[np.ndarray, int]:
        """:meth:`vectors`, and the array's number: one per array gathered here, the key of
        what the model's :class:`~wefe_same.metrics.memo.ModelMemo` remembers of it."""
        if key is not None:
            got = self._numbered.get((kind, key))
            if got is not None:
                return got
        got = self._arrays.get((kind, words))
        if got is None:
            array = (self.table.unit if kind == "unit" else self.table.raw)[self.rows(words) if rows is None else rows]
            array.flags.writeable = False  # shared by every metric and subquery of the model
            got = self._arrays[kind, words] = (array, len(self._arrays))
        if key is not None:
            self._numbered[kind, key] = got
        return got

    def layout(self, query: Query, aligned: bool, threshold: float) -> Layout:
        """:func:`layout_of` a query's own words, once per query and alignment for every
        model with these words."""
        key = (query, aligned, threshold)
        got = self.layouts.by_query.get(key)
        if got is None:
            got = self.layouts.by_query[key] = layout_of(self, query, aligned, threshold)
        return got


def layout_of(word_vectors: WordVectors, query: Query, aligned: bool, threshold: float,
              words_of: WordsOf | None = None) -> Layout:
    """Which found words of ``query``'s sets a metric receives (``words_of``: resampled
    words instead of some sets' own), and the reason when the subquery cannot be scored."""
    def words(s: WordSet) -> Sequence[str]:
        return words_of.get(s, s.words) if words_of else s.words

    sets = (*query.targets, *query.attributes)
    set_words = [words(s) for s in sets]
    missing = list(dict.fromkeys(w for ws in set_words for w in word_vectors.split(ws)[1]))
    reasons: list[str | None] = []
    word_lists: dict[str, list[tuple[str, ...]]] = {"targets": [], "attributes": []}
    n_targets = len(query.targets)
    for role, role_sets, role_words in (("targets", query.targets, set_words[:n_targets]),
                                        ("attributes", query.attributes, set_words[n_targets:])):
        if role == "targets" and aligned:
            reason = unaligned_reason(role_sets)
            if reason:
                reasons.append(reason)
                continue
            columns, lost, total = aligned_words(word_vectors.table, role_words)
            reasons.append(loss_reason("the target sets", lost, total, threshold, "tuple"))
            word_lists[role] = [tuple(c) for c in columns]
            continue
        for s, ws in zip(role_sets, role_words):
            found, lost_words = word_vectors.split(ws)
            reasons.append(loss_reason(f"set {s.name!r}", len(lost_words), len(ws), threshold, "word"))
            word_lists[role].append(found)
    reason = "; ".join(r for r in reasons if r) or None
    n_found = sum(len(w) for lists in word_lists.values() for w in lists)
    rows = {role: [word_vectors.rows(w) for w in lists] for role, lists in word_lists.items()}
    role_rows = {role: np.concatenate(r) if r else np.zeros(0, dtype=np.int64) for role, r in rows.items()}
    if word_vectors.table.items is None:
        role_words_all = {role: [w for ws in lists for w in ws] for role, lists in word_lists.items()}
    else:  # an item table: each row is an item (a sentence), and is named so in the per-word table
        labels = word_vectors.table.words
        role_words_all = {role: [labels[r] for r in role_rows[role].tolist()] for role in word_lists}
        if aligned and reason is None and len({len(r) for r in rows["targets"]}) > 1:
            reason = ("the aligned target sets have " + "/".join(str(len(r)) for r in rows["targets"])
                      + " sentences: their words are in templates of different lengths (names and terms)")
    keys: dict[str, list[int | None]] = {
        role: [None if words_of else word_vectors.layouts.list_key(w) for w in lists]
        for role, lists in word_lists.items()}
    return Layout(word_lists, rows, role_words_all, role_rows, n_found, missing, reason, keys)


def subquery_arrays(table: VectorTable, query: Query, spec: MetricSpec, threshold: float,
                    words_of: WordsOf | None = None, word_vectors: WordVectors | None = None,
                    vectors: VectorKind | None = None, layout: Layout | None = None) -> SubqueryArrays:
    """Arrays of one subquery after the out-of-vocabulary policy.

    ``words_of`` replaces the words of the sets it names (resampled draws); aligned sets
    must then be given with the same positions drawn. ``word_vectors`` remembers each word
    list's split and vectors in ``table`` across the subqueries of one model (its arrays
    are read-only). ``vectors``: which vectors (default: the spec's; see
    :meth:`~wefe_same.metrics.registry.MetricSpec.inputs`). ``layout``: the query's
    layout, when known (it is, by position, for a run's own subqueries).
    """
    word_vectors = WordVectors(table) if word_vectors is None else word_vectors
    kind = vectors or spec.vectors
    if layout is None:
        layout = (layout_of(word_vectors, query, spec.aligned_targets, threshold, words_of) if words_of
                  else word_vectors.layout(query, spec.aligned_targets, threshold))
    keyed = {role: [word_vectors.keyed_vectors(w, kind, r, k) for w, r, k in zip(lists, layout.rows[role],
                                                                               layout.list_keys[role])]
             if layout.reason is None else [] for role, lists in layout.word_lists.items()}
    return SubqueryArrays([a for a, _ in keyed["targets"]], [a for a, _ in keyed["attributes"]], layout.words,
                    layout.words_found, layout.missing, layout.reason, layout.word_rows,
                    {role: [n for _, n in pairs] for role, pairs in keyed.items()})
