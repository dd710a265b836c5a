"""The entry points of installed packages, loaded the one way every registry loads them.

The debiasing methods (``wefe_same.debias``), the likelihood benchmarks
(``wefe_same.likelihood``) and the file formats (``wefe_same.formats``) each declare a spec
class; :func:`load_entry_points` imports the group's entry points and keeps those that are
an instance of it, named as their entry point and not taking a built-in's name. Anything else
is one :class:`~wefe_same.errors.WefeSameWarning` line naming the entry point, its package
and why, and is left out: a broken plugin breaks only the specs that use it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection
from importlib import metadata
from typing import Any

from wefe_same.errors import WefeSameError, WefeSameWarning


def load_entry_points(group: str, what: str, spec_type: type, builtins: Collection[str], *,
                      name_of: Callable[[Any], str], error: type[WefeSameError],
                      check: Callable[[Any], None] | None = None) -> dict[str, tuple[Any, str]]:
    """``{entry point name: (spec, "PACKAGE VERSION")}`` of ``group``, in name order.

    ``what`` names the kind in messages ("debiasing method"); ``name_of`` gives a spec's name
    as its entry point must spell it; ``check`` (optional) raises ``error`` for a spec that
    may not be used beside those kept so far."""
    found: dict[str, tuple[Any, str]] = {}
    for ep in sorted(metadata.entry_points(group=group), key=lambda ep: ep.name):
        package = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "?"
        where = f"{what} entry point {ep.name!r} ({ep.value}, package {package})"
        try:
            if ep.name in builtins:
                raise error(f"takes the name of the built-in {what} {ep.name}")
            spec = ep.load()
            if not isinstance(spec, spec_type):
                raise error(f"is not a {spec_type.__name__} but {type(spec).__name__}")
            if name_of(spec) != ep.name:
                raise error(f"declares the {what} {name_of(spec)!r}, not {ep.name!r}")
            if check is not None:
                check(spec)
        except Exception as err:  # a broken plugin is one line, and breaks only the specs that use it
            warnings.warn(f"{where} is not used: {type(err).__name__}: {err}", WefeSameWarning, stacklevel=3)
            continue
        found[ep.name] = (spec, package)
    return found
