"""Arrays that scoring shares read-only between metrics, known by identity.

A metric may remember something computed from such an array (RNSB: its digest; the
column means of :func:`column_mean`) for as long as the array lives: nothing changes it.
``flags.writeable`` alone cannot tell: the owner of any array may set it back to True;
only arrays frozen here are trusted.
Weak references: an entry neither keeps its array alive nor answers for another array
given the same id later.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any

import numpy as np

_FROZEN: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()


def freeze(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only and remembered as never changing (the caller owns it)."""
    array.flags.writeable = False
    _FROZEN[id(array)] = array
    return array


def is_frozen(array: object) -> bool:
    """Whether ``array`` is one :func:`freeze` returned (and still lives)."""
    return _FROZEN.get(id(array)) is array


#: Column means of frozen arrays, by identity (weak references, as above): a query's sets
#: are shared by many subqueries and metrics of one model (a lexicon of 5,000 rows was
#: averaged ~40 times a model by WEAT, MAC, gWEAT, ECT …).
_LOCK = threading.Lock()  # Dask runs jobs in threads of one process


class ByIdentity:
    """A bounded memo of values computed from frozen arrays, by the array's identity
    (weak references: an entry neither keeps its array alive nor answers for another
    array given the same id later; the least recently used go first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[int, tuple[weakref.ref, Any]] = OrderedDict()

    def get(self, array: np.ndarray) -> Any:
        """The value remembered for ``array``, or None."""
        with _LOCK:
            known = self._entries.get(id(array))
            if known is None or known[0]() is not array:
                return None
            self._entries.move_to_end(id(array))
            return known[1]

    def put(self, array: np.ndarray, value: Any) -> None:
        with _LOCK:
            self._entries[id(array)] = (weakref.ref(array), value)
            self._entries.move_to_end(id(array))
            if len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


_MEANS = ByIdentity(1024)


def column_mean(M: np.ndarray) -> np.ndarray:
    """``M.mean(axis=0)``; for an array :func:`freeze` returned, computed once (read-only).

    >>> M = freeze(np.array([[1.0, 2.0], [3.0, 5.0]]))
    >>> column_mean(M) is column_mean(M), column_mean(M).tolist()
    (True, [2.0, 3.5])
    """
    if not is_frozen(M):
        return M.mean(axis=0)
    known = _MEANS.get(M)
    if known is not None:
        return known
    mean = M.mean(axis=0)
    mean.flags.writeable = False
    _MEANS.put(M, mean)
    return mean
