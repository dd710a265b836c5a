"""The flat keywords of the options before they were grouped (``rank(halves=20, workers=2)``),
accepted for one version: one ``FutureWarning`` per call names the group spelling
(``bootstrap=Bootstrap(halves=20), execution=Execution(workers=2)``)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from wefe_same.options.groups import GROUPS, coerce, flat_keywords, spelled, spelled_flat


def regroup(func: str, flat: Mapping[str, Any], groups: Mapping[str, Any], *, allowed: tuple[str, ...] | None = None,
            stacklevel: int = 3) -> dict[str, Any]:
    """``groups`` (rank's group keywords as given) with the flat keywords ``flat`` moved into
    their groups, and one FutureWarning naming the new spelling when there were any.

    A flat keyword the function does not take is a TypeError, as Python gives; one that sets
    a field its group also sets (``bootstrap=Bootstrap(halves=2), halves=3``) too.
    """
    owners = flat_keywords()
    unknown = [k for k in flat if k not in owners or (allowed is not None and owners[k][0] not in allowed)]
    if unknown:
        raise TypeError(f"{func}() got an unexpected keyword argument {unknown[0]!r}")
    moved: dict[str, dict[str, Any]] = {}
    for keyword, value in flat.items():
        group, name = owners[keyword]
        moved.setdefault(group, {})[name] = value
    out = dict(groups)
    for group, values in moved.items():
        base: Any = coerce(GROUPS[group], groups.get(group), group, func)
        defaults = GROUPS[group]()
        clash = [n for n in values if getattr(base, n) != getattr(defaults, n)]
        if clash:
            raise TypeError(f"{func}() got {clash[0]!r} twice: in {group}= and as a keyword")
        with spelled_flat(GROUPS[group], func):
            out[group] = replace(base, **values)
    if moved:
        warnings.warn(f"{func}(): give {', '.join(flat)} in their groups, {spelled(moved)}; the flat keywords "
                      "are accepted in this version only", FutureWarning, stacklevel=stacklevel)
    return out

