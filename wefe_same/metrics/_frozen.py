"""Arrays that scoring shares read-only between metrics, known by identity.

A metric may remember something computed from such an array (RNSB: its digest) for as
long as the array lives: nothing changes it. ``flags.writeable`` alone cannot tell: the
owner of any array may set it back to True; only arrays frozen here are trusted.
Weak references: an entry neither keeps its array alive nor answers for another array
given the same id later.
"""

from __future__ import annotations

import weakref

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
