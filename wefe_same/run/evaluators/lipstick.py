"""The lipstick tests of a run's debiased variants (Gonen & Goldberg 2019), cached per pair.

Each (base, variant) pair's rows of :func:`~wefe_same.analysis.lipstick.lipstick_table`
are keyed by both models' identities, the pair's names, the settings, the seed, the
words left out of the tests, the versions of scikit-learn and SciPy (k-means, the SVM,
Pearson's r) and the code (:func:`~wefe_same.run.cache.lipstick_key`): a second run reads
them from the cache, reads no vocabulary and fits nothing. A pair whose base or variant
has no identity is computed every time. The warnings computing a pair gave are stored
with its rows and given again on a hit.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version

import pandas as pd

from wefe_same.analysis.lipstick import LipstickSettings, gender_specific_words, lipstick_table
from wefe_same.errors import WefeSameWarning
from wefe_same.models.base import ModelSource
from wefe_same.run.cache import ModelCache, lipstick_key
from wefe_same.run.score import source_identity

Pair = tuple[str, str, str]
#: The libraries whose versions can move a test's value.
FITTING_LIBRARIES = ("scikit-learn", "scipy")


def fitting_versions() -> dict[str, str]:
    """The installed version of each of :data:`FITTING_LIBRARIES` (read from the package
    metadata: nothing is imported)."""
    out = {}
    for name in FITTING_LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "absent"
    return out


def pair_keys(pairs: Sequence[Pair], sources: Mapping[str, ModelSource], settings: LipstickSettings, *,
              seed: int) -> dict[Pair, str]:
    """The cache key of each pair whose base and variant both have an identity."""
    keys: dict[Pair, str] = {}
    excluded: frozenset[str] | None = None
    libraries = fitting_versions()
    for pair in pairs:
        base = source_identity(sources[pair[0]], pair[0])
        variant = source_identity(sources[pair[1]], pair[1])
        if base is None or variant is None:
            continue
        excluded = gender_specific_words() if excluded is None else excluded
        keys[pair] = lipstick_key(base, variant, pair, settings.to_dict(), seed, excluded, libraries)
    return keys


def lipstick_rows(pairs: Sequence[Pair], sources: Mapping[str, ModelSource], settings: LipstickSettings, *,
                  seed: int, cache: ModelCache | None = None) -> pd.DataFrame | None:
    """``debias_lipstick.csv``: :func:`~wefe_same.analysis.lipstick.lipstick_table` of
    ``pairs``, each pair's rows read from or written to ``cache`` when both its models
    have an identity; None when no pair is given."""
    if not pairs:
        return None
    keys = pair_keys(pairs, sources, settings, seed=seed) if cache is not None else {}
    done: dict[Pair, tuple[pd.DataFrame, list[str]]] = {}
    for pair, key in keys.items():
        got = cache.get_lipstick(key)  # type: ignore[union-attr]
        if got is not None:
            done[pair] = got
    todo = [pair for pair in pairs if pair not in done]
    by_base: dict[str, list[Pair]] = {}
    for pair in todo:  # one call per base: its vocabulary is read once for all its variants
        by_base.setdefault(pair[0], []).append(pair)
    for group in by_base.values():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WefeSameWarning)
            table = lipstick_table(group, sources, settings, seed=seed)
        for w in caught:
            if not issubclass(w.category, WefeSameWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        said = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)))
        assert table is not None  # the group is not empty
        for pair in group:
            rows = table[(table["base"] == pair[0]) & (table["variant"] == pair[1])].reset_index(drop=True)
            done[pair] = (rows, said)
            if pair in keys:
                cache.put_lipstick(keys[pair], rows, said)  # type: ignore[union-attr]
    for message in dict.fromkeys(m for pair in pairs for m in done[pair][1]):
        warnings.warn(message, WefeSameWarning, stacklevel=2)
    return pd.concat([done[pair][0] for pair in pairs], ignore_index=True)
