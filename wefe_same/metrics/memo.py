"""What the metrics of one run compute alike, remembered in objects that scoring passes in.

Nothing here is module state: a run's :class:`~wefe_same.scoring.context.ScoringContext`
owns one :class:`RunMemo`, scoring makes one :class:`ModelMemo` per model from it, and each
metric call receives a :class:`Memo`, the model's memo bound to that call's arrays. A
metric called without one (``memo=None``) computes everything itself: the memo saves
work and never changes a bit (tests/metrics/test_memo.py compares the two paths).

Two kinds of value, two keys:

- :class:`RunMemo`: values that are a function of their key alone, the same for every
  model of a run: a permutation test's splits (a function of the sizes and the seed),
  RNSB's subsample masks, a test's result by the bytes of its associations, Direct Bias's
  SVD and RNSB's classifiers by the bytes of their input. Bounded per section (least
  recently used first out), with a lock of its own (Dask runs jobs in threads of one
  process); pickled to a worker process, it arrives empty.
- :class:`ModelMemo`: values computed from the arrays scoring gathered for one model
  (a set's column mean, RNSB's digest of an attribute set, RND's distances, ECT's
  cosines, the SAME family's projections), keyed by the number scoring gave each array
  (:meth:`~wefe_same.scoring.layout.WordVectors.keyed_vectors`). A :class:`Memo` knows the
  numbers of its call's arrays only; any other array is computed on every call. Nothing
  outlives the model.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from wefe_same.metrics._norms import distances_to

V = TypeVar("V")


def read_only(x: np.ndarray) -> np.ndarray:
    """``x``, made read-only: a remembered value that several calls read."""
    x.flags.writeable = False
    return x


@dataclass(frozen=True)
class Bound:
    """How much a :class:`RunMemo` section keeps: entries, and bytes of array values."""

    items: int | None = None
    nbytes: int | None = None


#: What each section of a :class:`RunMemo` keeps (a section not named: 64 entries).
BOUNDS: Mapping[str, Bound] = MappingProxyType({
    "splits": Bound(nbytes=64 * 2**20),  # permutation splits (bool, 1 byte a cell)
    "permutation tests": Bound(items=256),
    "rnsb masks": Bound(items=64),
    "rnsb classifiers": Bound(items=64),
    "svd": Bound(items=16),
    "chance deals": Bound(nbytes=64 * 2**20),  # a role's deals: int8 labels (+ int32 orders) per draw and word
})
DEFAULT_BOUND = Bound(items=64)


def _nbytes(value: Any) -> int:
    return sum(v.nbytes for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, np.ndarray))


class RunMemo:
    """Values of one run that are a function of their key alone (see the module's docstring).

    >>> memo = RunMemo()
    >>> memo.remember("svd", ("k",), lambda: 1), memo.remember("svd", ("k",), lambda: 2)
    (1, 1)
    >>> memo.sizes()
    {'svd': 1}
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sections: dict[str, OrderedDict[Hashable, Any]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {}  # a copy (a worker process) starts empty: nothing is sent

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def get(self, section: str, key: Hashable) -> Any:
        """The value remembered under ``key``, or None."""
        with self._lock:
            entries = self._sections.get(section)
            if entries is None or key not in entries:
                return None
            entries.move_to_end(key)
            return entries[key]

    def put(self, section: str, key: Hashable, value: Any) -> None:
        """Remember ``value`` (a value over the section's byte bound is not kept)."""
        bound = BOUNDS.get(section, DEFAULT_BOUND)
        size = _nbytes(value) if bound.nbytes is not None else 0
        if bound.nbytes is not None and size > bound.nbytes:
            return
        with self._lock:
            entries = self._sections.setdefault(section, OrderedDict())
            entries[key] = value
            entries.move_to_end(key)
            while bound.items is not None and len(entries) > bound.items:
                entries.popitem(last=False)
            while bound.nbytes is not None and sum(_nbytes(v) for v in entries.values()) > bound.nbytes:
                entries.popitem(last=False)

    def remember(self, section: str, key: Hashable, compute: Callable[[], V]) -> V:
        """``compute()``, once per ``key`` while it stays in the section; computed outside
        the lock (what is returned is this value, whatever another thread evicts)."""
        known = self.get(section, key)
        if known is None:
            known = compute()
            self.put(section, key, known)
        return known

    def __contains__(self, section_key: tuple[str, Hashable]) -> bool:
        section, key = section_key
        with self._lock:
            return key in self._sections.get(section, {})

    def sizes(self) -> dict[str, int]:
        """Entries per section."""
        with self._lock:
            return {name: len(entries) for name, entries in self._sections.items()}


class ModelMemo:
    """One model's values from the arrays scoring gathered for it, keyed by their numbers;
    ``run``: the run's :class:`RunMemo` (default: one of this model's own)."""

    def __init__(self, run: RunMemo | None = None) -> None:
        self.run = RunMemo() if run is None else run
        self._values: dict[tuple[Hashable, ...], Any] = {}
        #: An attribute set's number → the target sets (number → array) whose means its
        #: distances are declared to, not yet computed.
        self._pending: dict[Hashable, dict[Hashable, np.ndarray]] = {}

    def mean_of(self, key: Hashable, M: np.ndarray) -> np.ndarray:
        """``M.mean(axis=0)`` of the model's array number ``key``, computed once."""
        values = self._values
        if ("mean", key) not in values:
            values["mean", key] = read_only(M.mean(axis=0))
        return values["mean", key]

    def bind(self, arrays: Sequence[np.ndarray], keys: Sequence[Hashable | None]) -> Memo:
        """The memo of one call whose ``arrays`` have these ``keys`` (None: not remembered)."""
        return Memo(self, tuple(arrays), tuple(keys))


class Memo:
    """A :class:`ModelMemo` as one metric call sees it: it knows its arrays' numbers.

    >>> A, T = np.array([[3.0, 4.0], [0.0, 0.0]]), np.zeros((2, 2))
    >>> memo = ModelMemo().bind([A, T], [0, 1])
    >>> memo.declare_distances(A, T)
    >>> memo.distances(A, T).tolist(), memo.distances(A, T) is memo.distances(A, T)
    ([5.0, 0.0], True)
    >>> memo.mean(A) is memo.mean(A), memo.mean(A.copy()) is memo.mean(A.copy())
    (True, False)
    """

    __slots__ = ("_arrays", "_keys", "model", "run")

    def __init__(self, model: ModelMemo, arrays: tuple[np.ndarray, ...], keys: tuple[Hashable | None, ...]) -> None:
        self.model, self.run = model, model.run
        self._arrays, self._keys = arrays, keys

    def key_of(self, array: np.ndarray) -> Hashable | None:
        """The number of one of this call's arrays (by identity: the call's own objects), or None."""
        for known, key in zip(self._arrays, self._keys):
            if known is array:
                return key
        return None

    def _key(self, name: str, arrays: tuple[np.ndarray, ...]) -> tuple[Hashable, ...] | None:
        keys = tuple(self.key_of(a) for a in arrays)
        return None if None in keys else (name, *keys)

    def remember(self, name: str, arrays: tuple[np.ndarray, ...], compute: Callable[[], V]) -> V:
        """``compute()``, once per ``name`` and ``arrays`` of the model (arrays without a
        number: on every call). An array it returns is made read-only."""
        key = self._key(name, arrays)
        if key is None:
            return compute()
        values = self.model._values
        if key not in values:
            value = compute()
            values[key] = read_only(value) if isinstance(value, np.ndarray) else value
        return values[key]

    def mean(self, M: np.ndarray) -> np.ndarray:
        """``M.mean(axis=0)``, once per array of the model (a lexicon of 5,000 rows is the
        attribute set of many subqueries of WEAT, MAC, gWEAT, ECT …)."""
        key = self.key_of(M)
        return M.mean(axis=0) if key is None else self.model.mean_of(key, M)

    def digest(self, M: np.ndarray) -> str:
        """SHA-1 of ``M``'s float64 bytes, once per array of the model."""
        return self.remember("digest", (M,), lambda: array_digest(M))

    def declare_distances(self, A: np.ndarray, T: np.ndarray) -> None:
        """Say that :meth:`distances` of ``A`` to the mean of ``T`` will be asked for: the
        first such call computes every declared mean of ``A`` in one pass over ``A``."""
        key = self._key("distances", (A, T))
        if key is not None and key not in self.model._values:
            self.model._pending.setdefault(key[1], {})[key[2]] = T

    def distances(self, A: np.ndarray, T: np.ndarray) -> np.ndarray:
        """``safe_norm(A − mean(T), axis=1)``, shape (len(A),), read-only.

        The same bits as :func:`~wefe_same.metrics._norms.distances_to` of ``A`` and that
        mean alone: each row's norm never depends on the other points.
        """
        key = self._key("distances", (A, T))
        if key is None:
            return distances_to(A, column_mean(T, self)[None])[0]
        values = self.model._values
        got = values.get(key)
        if got is not None:
            return got
        pending = self.model._pending.pop(key[1], {})
        pending[key[2]] = T
        means = np.stack([self.model.mean_of(t_key, S) for t_key, S in pending.items()])
        for t_key, row in zip(pending, distances_to(A, means)):
            values["distances", key[1], t_key] = read_only(row)
        return values[key]


def array_digest(M: np.ndarray) -> str:
    """SHA-1 of ``M`` as contiguous float64 (its buffer itself, not a copy when it is one)."""
    return hashlib.sha1(np.ascontiguousarray(M, dtype=np.float64).data).hexdigest()


def column_mean(M: np.ndarray, memo: Memo | None = None) -> np.ndarray:
    """``M.mean(axis=0)``; through ``memo`` when given (once per array of the model).

    >>> column_mean(np.array([[1.0, 2.0], [3.0, 5.0]])).tolist()
    [2.0, 3.5]
    """
    return M.mean(axis=0) if memo is None else memo.mean(M)


def remembered(memo: Memo | None, name: str, arrays: tuple[np.ndarray, ...], compute: Callable[[], V]) -> V:
    """``compute()``; through ``memo`` when given (:meth:`Memo.remember`).

    >>> remembered(None, "twice", (), lambda: 2)
    2
    """
    return compute() if memo is None else memo.remember(name, arrays, compute)
