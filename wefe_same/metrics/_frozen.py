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
_MEANS: OrderedDict[int, tuple[weakref.ref, np.ndarray]] = OrderedDict()
_MEANS_SIZE = 1024
_LOCK = threading.Lock()  # Dask runs jobs in threads of one process


def column_mean(M: np.ndarray) -> np.ndarray:
    """``M.mean(axis=0)``; for an array :func:`freeze` returned, computed once (read-only).

    >>> M = freeze(np.array([[1.0, 2.0], [3.0, 5.0]]))
    >>> column_mean(M) is column_mean(M), column_mean(M).tolist()
    (True, [2.0, 3.5])
    """
    if not is_frozen(M):
        return M.mean(axis=0)
    with _LOCK:
        known = _MEANS.get(id(M))
    if known is not None and known[0]() is M:
        return known[1]
    mean = M.mean(axis=0)
    mean.flags.writeable = False
    with _LOCK:
        _MEANS[id(M)] = (weakref.ref(M), mean)
        _MEANS.move_to_end(id(M))
        if len(_MEANS) > _MEANS_SIZE:
            _MEANS.popitem(last=False)
    return mean
