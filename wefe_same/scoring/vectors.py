"""VectorTable: the unit and raw vectors of a run's vocabulary, looked up in one pass.

Casing fallback is tried in a fixed order (exact, lower, title) and recorded per word.
A zero vector cannot be normalised, and a vector with NaN or inf values cannot be used:
both are reported like an unknown word ("zero vector", "non-finite vector"). Norms are
computed without overflow or underflow (:func:`~wefe_same.metrics._norms.safe_norm`): a
model scaled by 1e200 or 1e-200 scores as the unscaled one; a vector whose norm exceeds
the largest float (entries near 1e308) is "non-finite vector". A source
that builds vectors of unknown words from their subwords (fastText ``.bin``) reports
them through ``lookup_with_status``; they are marked "subword", and a casing variant the
vocabulary holds is preferred to a vector built from subwords.

>>> from wefe_same.models.sources import ArraySource
>>> src = ArraySource("toy", ["he", "She", "it"], np.array([[3.0, 4.0], [0.0, 2.0], [0.0, 0.0]]))
>>> table = build_table(src, ["he", "she", "it", "they"])
>>> table.unit_vectors(["he"]).round(2).tolist()
[[0.6, 0.8]]
>>> [(lk.word, lk.found_as, lk.status) for lk in table.lookups]
[('he', 'he', 'exact'), ('it', 'it', 'zero vector'), ('she', 'She', 'title'), ('they', None, 'missing')]
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from wefe_same.metrics._norms import safe_norm
from wefe_same.models.sources import ModelSource, lookup_with_status
from wefe_same.models.specs import LoadOptions
from wefe_same.processes import own_objects_collected, release_freed_memory, trim_heap_eagerly
from wefe_same.scoring.usable import PROBLEM_STATUS, checked_vectors, row_problems

if TYPE_CHECKING:
    import pandas as pd

#: "not shared": found, but left out of a shared-words run (:func:`wefe_same.scoring.matrices.restrict`).
LookupStatus = Literal["exact", "lower", "title", "subword", "missing", "zero vector", "non-finite vector",
                       "not shared"]
#: Statuses of a word that has a usable vector.
FOUND: tuple[LookupStatus, ...] = ("exact", "lower", "title", "subword")
CASINGS: tuple[tuple[LookupStatus, Callable[[str], str]], ...] = (
    ("exact", str),
    ("lower", str.lower),
    ("title", str.title),
)


@dataclass(frozen=True)
class Lookup:
    """How one requested word was found (or why not)."""

    word: str
    found_as: str | None
    status: LookupStatus

    @property
    def found(self) -> bool:
        return self.status in FOUND


def _candidates(word: str) -> list[tuple[LookupStatus, str]]:
    out: list[tuple[LookupStatus, str]] = []
    for status, fold in CASINGS:
        form = fold(word)
        if form not in (f for _, f in out):
            out.append((status, form))
    return out


class VectorTable:
    """Vectors of the words one model knows, rows aligned with :attr:`words`.

    Attributes
    ----------
    model : str
    words : tuple of str, length n
        Requested words that were found with a non-zero vector, sorted.
    raw : ndarray, shape (n, d)
    unit : ndarray, shape (n, d)
        ``raw`` scaled to unit length, once per table (when first asked for).
    lookups : tuple of Lookup
        One entry per requested word, sorted by word.
    items : dict of str to ndarray, or None
        An *item table* (:meth:`from_items`: an encoder's words in templates, every filled
        template an item, SEAT's way): each found word's rows, in template order; then
        :attr:`words` names the rows (the sentences), and a word's "vector" in
        :meth:`rows` is all its rows. None: one row per word, :attr:`words` the words.
    """

    def __init__(self, model: str, vectors: dict[str, np.ndarray], lookups: Sequence[Lookup]):
        words = tuple(sorted(vectors))
        raw = np.vstack([vectors[w] for w in words]).astype(np.float64, copy=False) if words else np.zeros((0, 0))
        self._set(model, words, raw, tuple(sorted(lookups, key=lambda lk: lk.word)))

    @classmethod
    def from_rows(cls, model: str, words: Sequence[str], raw: np.ndarray, lookups: Sequence[Lookup]) -> VectorTable:
        """The table of sorted distinct ``words`` whose vectors are the rows of ``raw``
        (float64, taken as it is), ``lookups`` sorted by word: no array per word."""
        table = cls.__new__(cls)
        table._set(model, tuple(words), raw if len(words) else np.zeros((0, 0)), tuple(lookups))
        return table

    @classmethod
    def from_items(cls, model: str, labels: Sequence[str], raw: np.ndarray, items: dict[str, np.ndarray],
                   lookups: Sequence[Lookup]) -> VectorTable:
        """An item table: rows ``raw`` named by the sorted distinct ``labels``, each found
        word's rows in ``items`` (int64 arrays, in template order), ``lookups`` sorted by word.

        >>> t = VectorTable.from_items("m", ["A x.", "B x."], np.eye(2), {"x": np.array([1, 0])},
        ...                            [Lookup("x", "x", "exact")])
        >>> "x" in t, "A x." in t, t.rows(["x"]).tolist(), t.keys
        (True, False, [1, 0], ('x',))
        """
        table = cls.from_rows(model, labels, raw, lookups)
        table.items = {w: np.asarray(r, dtype=np.int64) for w, r in sorted(items.items())}
        table._index = table.items
        return table

    def _set(self, model: str, words: tuple[str, ...], raw: np.ndarray, lookups: tuple[Lookup, ...]) -> None:
        self.items: dict[str, np.ndarray] | None = None
        self.model = model
        self._lookups: tuple[Lookup, ...] | None = lookups
        self._lookup_columns: tuple[tuple[str, ...], tuple[str | None, ...], tuple[str, ...]] | None = None
        self._fingerprint: str | None = None
        self.words = words
        self._row = {w: i for i, w in enumerate(self.words)}
        self._index: dict[str, Any] = self._row  # what a word is looked up in: its row, or its items' rows
        self.raw = raw
        self._unit: np.ndarray | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        """The words one can ask for: :attr:`words`, or an item table's words (sorted)."""
        return self.words if self.items is None else tuple(self.items)

    @property
    def unit(self) -> np.ndarray:
        """``raw`` scaled to unit length, computed when first asked for: the encoders'
        worker sends its tables without them (less memory at the worker's peak), the scoring
        process makes them."""
        if self._unit is None:
            # safe_norm: a model scaled by 1e200 (or 1e-200) gets the unscaled model's unit vectors.
            norms = safe_norm(self.raw, axis=1, keepdims=True) if self.words else 1.0
            self._unit = self.raw / norms
        return self._unit

    @property
    def lookups(self) -> tuple[Lookup, ...]:
        if self._lookups is None:  # a table that came through pickle: made when first asked for
            assert self._lookup_columns is not None
            self._lookups = tuple(map(Lookup, *self._lookup_columns))  # type: ignore[arg-type]
        return self._lookups

    def _columns(self) -> tuple[tuple[str, ...], tuple[str | None, ...], tuple[str, ...]]:
        """The lookups as three columns: word, found_as, status."""
        if self._lookup_columns is None:
            lookups = self.lookups
            self._lookup_columns = (tuple(lk.word for lk in lookups), tuple(lk.found_as for lk in lookups),
                                    tuple(lk.status for lk in lookups))
        return self._lookup_columns

    def __getstate__(self) -> dict[str, Any]:
        # The lookups travel as three columns of strings, not one frozen dataclass per word
        # (remaking those was most of unpickling); the row index is rebuilt from the words,
        # the unit vectors (the same bits) from ``raw``: a table travels at half the size.
        return {"model": self.model, "words": self.words, "raw": self.raw, "unit": None,
                "lookup_columns": self._columns(), "fingerprint": self._fingerprint, "items": self.items}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.model, self.words, self.raw, self._unit = state["model"], state["words"], state["raw"], state["unit"]
        self._lookups, self._lookup_columns = None, state["lookup_columns"]
        self._fingerprint = state.get("fingerprint")
        self._row = {w: i for i, w in enumerate(self.words)}
        self.items = state.get("items")
        self._index = self._row if self.items is None else self.items

    @property
    def dim(self) -> int:
        return int(self.raw.shape[1]) if self.words else 0

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def split(self, words: Iterable[str]) -> tuple[list[str], list[str]]:
        """(found, missing), each in the order given."""
        found: list[str] = []
        missing: list[str] = []
        index = self._index
        for w in words:
            (found if w in index else missing).append(w)
        return found, missing

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """Row indices of ``words`` (all found) in :attr:`words`, as an int64 array; in an
        item table each word's rows in turn."""
        if self.items is not None:
            items = self.items
            return np.concatenate([items[w] for w in words]) if len(words) else np.zeros(0, dtype=np.int64)
        return np.fromiter((self._row[w] for w in words), dtype=np.int64, count=len(words))

    def unit_vectors(self, words: Sequence[str]) -> np.ndarray:
        return self.unit[self.rows(words)]

    def raw_vectors(self, words: Sequence[str]) -> np.ndarray:
        return self.raw[self.rows(words)]

    def fingerprint(self) -> str:
        """sha256 over the words and raw vectors: identifies what the run actually used.

        Computed once (a table's words and vectors are not changed once it is made): the
        encoders' worker computes it before sending the table, off the scoring process."""
        if self._fingerprint is None:
            # Each word and a NUL, then the float64 rows, in two updates (the same digest as
            # one per word) and the rows read in place, not copied.
            h = hashlib.sha256("".join(w + "\0" for w in self.words).encode("utf-8"))
            raw = np.ascontiguousarray(self.raw, dtype="<f8")
            h.update(raw.data if raw.size else b"")
            if self.items is not None:  # which rows are whose
                h.update("".join(f"\0{w}\0" + ",".join(map(str, r.tolist())) for w, r in self.items.items())
                         .encode("utf-8"))
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def lookup_frame(self) -> pd.DataFrame:
        """One row per requested word: model, word, found_as, status."""
        import pandas as pd  # lazily: an encoder's worker builds tables without pandas

        words, found_as, status = self._columns()
        if not words:
            return pd.DataFrame([], columns=["model", "word", "found_as", "status"])
        return pd.DataFrame({"model": [self.model] * len(words), "word": words, "found_as": found_as,
                             "status": status})


def build_table(source: ModelSource, words: Collection[str]) -> VectorTable:
    """Look every word up in ``source`` in one call, with casing fallback.

    The first casing the vocabulary holds wins; only when none does is a vector built
    from subwords used (for the first casing that has one), with the status "subword".
    A source with ``open_vocabulary = True`` (encoders: every string has a vector) is
    asked for the words as written only, each found "exact".

    >>> from wefe_same.models.sources import ArraySource
    >>> class Sub(ArraySource):  # knows "paris"; builds a vector for any other string
    ...     def lookup_with_status(self, words):
    ...         found = self.lookup(words)
    ...         built = {w: np.ones(2) for w in words if w not in found}
    ...         return {**found, **built}, frozenset(built)
    >>> table = build_table(Sub("s", ["paris"], np.array([[1.0, 0.0]])), ["Paris", "Lyon"])
    >>> [(lk.word, lk.found_as, lk.status) for lk in table.lookups]
    [('Lyon', 'Lyon', 'subword'), ('Paris', 'paris', 'lower')]
    >>> class Open(ArraySource):  # an encoder: a vector for every string
    ...     open_vocabulary = True
    ...     def lookup(self, words):
    ...         asked.append(sorted(words))
    ...         return {w: np.ones(2) for w in words}
    >>> asked = []
    >>> [lk.status for lk in build_table(Open("e", [], np.zeros((0, 2))), ["Paris", "he"]).lookups], asked
    (['exact', 'exact'], [['Paris', 'he']])
    """
    words = sorted(set(words))
    if source.sentence_items:  # an encoder in templates, every sentence an item
        return _table_of_items(source.name, words, *source.lookup_items(words))
    # An open-vocabulary source (an encoder) has a vector for every string: the word as
    # written is always found, so asking for its casings would only multiply the work.
    open_vocabulary = source.open_vocabulary
    rows = source.lookup_matrix(words) if open_vocabulary else None
    if rows is not None:
        return _table_of_rows(source.name, words, *rows)
    candidates: dict[str, list[tuple[LookupStatus, str]]] = {
        w: [("exact", w)] if open_vocabulary else _candidates(w) for w in words}
    found, subword = lookup_with_status(source, {form for cands in candidates.values() for _, form in cands})
    hits: list[tuple[str, LookupStatus, str]] = []
    lookups: list[Lookup] = []
    for w in words:
        hit = next(((status, form) for status, form in candidates[w] if form in found and form not in subword),
                   None)
        if hit is None:
            hit = next((("subword", form) for _, form in candidates[w] if form in subword), None)
        if hit is None:
            lookups.append(Lookup(w, None, "missing"))
        else:
            hits.append((w, *hit))
    checked, matrix = checked_vectors([found[form] for _, _, form in hits])
    # Rows of the checks' float64 matrix, in word order (as the hits): one copy makes the table.
    kept = [i for i, (_, problem) in enumerate(checked) if problem is None]
    lookups += [Lookup(w, form, status if problem is None else problem)
                for (w, status, form), (_, problem) in zip(hits, checked)]
    if matrix is None or not kept:  # ragged vectors (or none): stacked one by one, which names the problem
        return VectorTable(source.name, {hits[i][0]: checked[i][0] for i in kept}, lookups)
    return VectorTable.from_rows(source.name, [hits[i][0] for i in kept],
                                 matrix if len(kept) == len(matrix) else matrix[kept],
                                 sorted(lookups, key=lambda lk: lk.word))


def _table_of_rows(model: str, words: list[str], matrix: np.ndarray, has: np.ndarray) -> VectorTable:
    """The table of an open-vocabulary source's :meth:`~wefe_same.models.base.ModelSource.lookup_matrix`:
    the same statuses, vectors and lookups as the per-word path (every vector "exact"),
    checked and stacked once for all words."""
    problems = row_problems(matrix)
    usable = has & (problems == 0)
    lookups = [Lookup(w, w, PROBLEM_STATUS[code]) if found else Lookup(w, None, "missing")
               for w, found, code in zip(words, has.tolist(), problems.tolist())]
    kept = [w for w, ok in zip(words, usable.tolist()) if ok]
    raw = matrix if len(kept) == len(words) else matrix[usable]
    return VectorTable.from_rows(model, kept, np.ascontiguousarray(raw, dtype=np.float64), lookups)


def _table_of_items(model: str, words: list[str], labels: list[str], matrix: np.ndarray,
                    items: dict[str, tuple[int, ...]]) -> VectorTable:
    """The item table of an encoder's :meth:`~wefe_same.models.encoders.EncoderSource.lookup_items`:
    a row whose vector is zero or not finite is left out; a word left with no row gets the
    first problem of its rows (a word with no text at all is "missing")."""
    problems = row_problems(matrix) if len(labels) else np.zeros(0, dtype=np.int64)
    usable = problems == 0
    new_row = np.cumsum(usable) - 1  # a kept row's index among the kept rows
    kept_items: dict[str, np.ndarray] = {}
    lookups = []
    for w in words:
        rows = np.asarray(items.get(w, ()), dtype=np.int64)
        good = rows[usable[rows]] if len(rows) else rows
        if len(good):
            kept_items[w] = new_row[good]
            lookups.append(Lookup(w, w, "exact"))
        else:
            status: LookupStatus = PROBLEM_STATUS[problems[rows[0]]] if len(rows) else "missing"
            lookups.append(Lookup(w, w if len(rows) else None, status))
    raw = matrix[usable] if len(labels) else np.zeros((0, 0))
    kept_labels = [label for label, ok in zip(labels, usable.tolist()) if ok]
    return VectorTable.from_items(model, kept_labels, np.ascontiguousarray(raw, dtype=np.float64), kept_items,
                                  lookups)


def read_table(source: ModelSource, words: Collection[str], *,
               identify: bool = True) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """One lookup pass over a model: its table, description and identity (the cache key;
    ``identify=False``, a run without a cache: None, and no file is hashed for it)."""
    table = build_table(source, words)
    identity = source.identity() if identify else None
    return table, source.describe(), identity


def read_spec(spec: str, options: LoadOptions, words: Collection[str], *, spare_core: bool = True,
              identify: bool = True) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """Job: resolve a model spec and read its table, importing nothing the lookup does not need.

    Run in the encoders' short-lived worker process (see :mod:`wefe_same.run.score`):
    that process then holds torch and one model at a time, but not pandas, scipy or the
    metrics. The worker reads every encoder of the run in
    turn, so the model is let go and its memory handed back before the table is returned.
    ``spare_core``: torch leaves one core to the parent, which scores the previous model
    meanwhile (False for a worker's first model: the parent has nothing to score yet).
    ``identify``: as :func:`read_table`'s.
    """
    from wefe_same.models.catalog import resolve_model
    from wefe_same.models.encoders import EncoderSource

    trim_heap_eagerly()
    # OpenMP threads that wait for a busy core sleep instead of spinning (read when torch
    # loads its OpenMP runtime, so only before torch's import); a user's own setting is kept.
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    source = resolve_model(spec, options)
    if isinstance(source, EncoderSource):
        source.import_runtime()  # frozen below with the rest: the first read's collection skips them
    if isinstance(source, EncoderSource) and spare_core:
        # The parent scores the previous model meanwhile: torch leaves it one core, so that
        # torch's waiting threads never contend with the parent; the vectors are the same
        # bytes (tests/models/test_tokens.py). A worker's first model (the default run's only
        # torch one) has every core: the parent waits for it.
        source.threads = max(1, len(os.sched_getaffinity(0)) - 1 if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 2) - 1)
    with own_objects_collected():
        out = read_table(source, words, identify=identify)
        out[0].fingerprint()  # here, not in the process that scores it
        del source
    release_freed_memory()
    return out
