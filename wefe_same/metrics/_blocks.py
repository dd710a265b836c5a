"""Quantities that many subqueries and metrics of one model share, computed once per model.

A run scores the same word sets in many subqueries: in the default run the two sentiment
lexicons (2,006 and 4,783 words) are the attribute set of 14 subqueries of each of RND,
ECT, SAME, SAME-skew and SAME-stereotype, against 9 target sets. At 768 dimensions one
pass over a lexicon's vectors costs milliseconds, and every call made its own passes.
A :class:`SharedBlocks` remembers, for one model, what is the same computation on the
same arrays:

- RND's distances ‖a − mean(T)‖ of a set's words to a target set's mean: every mean
  that the metric's calls declared for that set (:meth:`SharedBlocks.declare_distances`)
  in one pass over its words (:func:`~wefe_same.metrics._norms.distances_to`);
- ECT's cosines of a set's words with a target set's mean, and their ranks;
- the SAME family's signed projections on each pair's direction (SAME, SAME-skew and
  SAME-stereotype read the same ones).

Each is computed by the operations the metric's own function performs, on the same
arrays, so every score keeps its bits (tests/metrics/test_shared_blocks.py compares
the two paths bit for bit).

It is per-run state passed in: scoring makes one per model
(:func:`~wefe_same.scoring.model.score_table`) and hands it to
:meth:`~wefe_same.metrics.spec.MetricSpec.compute`; nothing outlives the model. Only
arrays that scoring froze (:func:`~wefe_same.metrics._frozen.freeze`) are remembered,
by identity: they cannot change while the model is scored, and the object holds a
reference to each, so an identity is never reused meanwhile. Any other array is
computed on each call, as without blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from wefe_same.metrics._frozen import column_mean, is_frozen
from wefe_same.metrics._norms import distances_to

V = TypeVar("V")


def read_only(x: np.ndarray) -> np.ndarray:
    """``x``, made read-only: a value the blocks hand to several calls."""
    x.flags.writeable = False
    return x


class SharedBlocks:
    """One model's shared quantities, keyed by the identity of the frozen arrays they
    come from (see the module's docstring).

    >>> from wefe_same.metrics._frozen import freeze
    >>> blocks = SharedBlocks()
    >>> A, T = freeze(np.array([[3.0, 4.0], [0.0, 0.0]])), freeze(np.zeros((2, 2)))
    >>> blocks.declare_distances(A, T)
    >>> blocks.distances(A, T).tolist(), blocks.distances(A, T) is blocks.distances(A, T)
    ([5.0, 0.0], True)
    """

    def __init__(self) -> None:
        self._values: dict[tuple[Any, ...], Any] = {}
        self._held: dict[int, np.ndarray] = {}  # every keyed array, alive as long as its key
        #: id(A) → the target sets whose means A's distances are declared to, not yet computed.
        self._pending: dict[int, dict[int, np.ndarray]] = {}

    def _key(self, name: str, arrays: tuple[np.ndarray, ...]) -> tuple[Any, ...] | None:
        if not all(is_frozen(a) for a in arrays):
            return None
        for a in arrays:
            self._held[id(a)] = a
        return (name, *(id(a) for a in arrays))

    def remember(self, name: str, arrays: tuple[np.ndarray, ...], compute: Callable[[], V]) -> V:
        """``compute()``, once per ``name`` and ``arrays`` (frozen: by identity; otherwise
        on every call). An array it returns is made read-only: several calls read it."""
        key = self._key(name, arrays)
        if key is None:
            return compute()
        if key not in self._values:
            value = compute()
            self._values[key] = read_only(value) if isinstance(value, np.ndarray) else value
        return self._values[key]

    def declare_distances(self, A: np.ndarray, T: np.ndarray) -> None:
        """Say that :meth:`distances` of ``A`` to the mean of ``T`` will be asked for: the
        first such call computes every declared mean of ``A`` in one pass over ``A``."""
        key = self._key("distances", (A, T))
        if key is not None and key not in self._values:
            self._pending.setdefault(id(A), {})[id(T)] = T

    def distances(self, A: np.ndarray, T: np.ndarray) -> np.ndarray:
        """``safe_norm(A − column_mean(T), axis=1)``, shape (len(A),), read-only.

        The same bits as :func:`~wefe_same.metrics._norms.distances_to` of ``A`` and that
        mean alone: each row's norm never depends on the other points.
        """
        key = self._key("distances", (A, T))
        if key is None:
            return distances_to(A, column_mean(T)[None])[0]
        got = self._values.get(key)
        if got is not None:
            return got
        pending = self._pending.pop(id(A), {})
        pending[id(T)] = T
        sets = list(pending.values())
        rows = distances_to(A, np.stack([column_mean(S) for S in sets]))
        for S, row in zip(sets, rows):
            row.flags.writeable = False
            self._values["distances", id(A), id(S)] = row
        return self._values[key]
