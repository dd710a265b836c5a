"""The debiasing methods: one frozen :class:`DebiasMethod` each, built in or from a plugin.

A method is the variant suffix ``SPEC+NAME`` or ``SPEC+NAME[key=value,...]`` of a model spec.
Everything the framework does with one is read from its spec: the spec grammar's suffixes
(:func:`suffixes`), its description and paper in listings, the option checks, which
debiased sources it makes (so that a run pairs a variant with its base, also for source
objects), and which group it debiases (the lipstick tests read gender only).

The built-in methods are declared in :mod:`wefe_same.models.debias.methods` (which also
gives every method by suffix, :func:`~wefe_same.models.debias.methods.debias_methods`); an installed
package declares its own in the entry-point group ``wefe_same.debias``, named after the
method (the suffix without its ``+``)::

    [project.entry-points."wefe_same.debias"]
    toy-debias = "my_package.toy:METHOD"

The names are read from the installed packages' metadata without importing them (the
grammar needs only those); a method's module is imported when a spec uses it or a listing
asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from types import MappingProxyType

from wefe_same.errors import ModelError
from wefe_same.models.base import ModelSource
from wefe_same.plugins import load_entry_points
from wefe_same.validation import OptionSpec

__all__ = ["BUILTIN_NAMES", "ENTRY_POINT_GROUP", "DebiasMethod", "plugin_methods", "suffixes"]

#: The entry-point group installed packages declare debiasing methods in.
ENTRY_POINT_GROUP = "wefe_same.debias"
#: What a method's name may be: a letter, then letters, digits or "-" (``hsr-debias``).
NAME = re.compile(r"[a-z][a-z0-9-]*")
#: The names of the built-in methods (their specs: :mod:`wefe_same.models.debias.methods`),
#: known to the grammar without importing their modules.
BUILTIN_NAMES = ("hard-debias", "debias-religion", "debias-race", "double-hard-debias", "hsr-debias",
                 "ran-debias")


@dataclass(frozen=True)
class DebiasMethod:
    """One debiasing method.

    Attributes
    ----------
    suffix : str
        ``"+NAME"``, as written after a model spec.
    build : callable (base, name, options) -> ModelSource
        The debiased source of ``base`` named ``name``; ``options`` the text between the
        brackets ("" without). It checks the options (:func:`wefe_same.validation.check_declared`
        with ``options``) and opens nothing heavy: the vectors are read on the first lookup.
    description : str
        One line for ``wefe-same models`` and the docs.
    reference : str
        The paper (authors and year) and the code it follows.
    group : str
        The bias group it removes (``"gender"``, ``"religion"`` …): the lipstick tests
        (Gonen & Goldberg 2019) read gender and run only for a gender method.
    options : mapping of str to OptionSpec
        The options the brackets may give (empty: the method takes none, and brackets are
        an error).
    makes : tuple of type
        The debiased source classes it builds, each with a ``base`` attribute: a run pairs
        such an object with its base (a class two methods share says which one made it by
        a ``variant`` attribute holding the suffix).
    options_shown : str
        The options and their defaults as ``wefe-same models`` shows them in brackets
        (``"alpha=60"``); "" shows the suffix alone.
    """

    suffix: str
    build: Callable[[ModelSource, str, str], ModelSource]
    description: str
    reference: str
    group: str = "gender"
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    makes: tuple[type, ...] = ()
    options_shown: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        if not isinstance(self.suffix, str) or not self.suffix.startswith("+") or not NAME.fullmatch(self.suffix[1:]):
            raise ModelError(f"a debiasing method's suffix is '+' and a name of lowercase letters, digits and '-', "
                             f"not {self.suffix!r}")
        if not callable(self.build):
            raise ModelError(f"debiasing method {self.suffix}: build must be callable")

    @property
    def name(self) -> str:
        """The suffix without its ``+``: the entry point's name."""
        return self.suffix[1:]

    def variant(self, base: ModelSource, name: str, options: str | None) -> ModelSource:
        """The debiased source of ``base`` (``options``: the brackets' text, None without)."""
        if options is not None and not self.options:
            raise ModelError(f"{self.suffix} takes no options; drop the [{options}]")
        return self.build(base, name, options or "")


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


@cache
def suffixes() -> tuple[str, ...]:
    """Every method's suffix: the built-in ones, then the installed plugins' (names read once
    per process from the packages' metadata, nothing imported), longest first."""
    names = [*BUILTIN_NAMES, *(ep.name for ep in _entry_points() if NAME.fullmatch(ep.name)
                               and ep.name not in BUILTIN_NAMES)]
    return tuple(sorted(("+" + n for n in dict.fromkeys(names)), key=len, reverse=True))


@cache
def plugin_methods() -> Mapping[str, DebiasMethod]:
    """The installed plugins' methods, loaded once per process
    (:func:`~wefe_same.plugins.load_entry_points`: a broken one is one warning)."""
    found = load_entry_points(ENTRY_POINT_GROUP, "debiasing method", DebiasMethod, BUILTIN_NAMES,
                              name_of=lambda m: m.name, error=ModelError)
    return MappingProxyType({name: method for name, (method, _) in found.items()})
