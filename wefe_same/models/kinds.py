"""Model kinds that are not built in: a :class:`~wefe_same.models.base.ModelSource` subclass
(or a builder function) registered under a scheme, so that ``SCHEME:LOCATION`` is a model spec
like ``hf:NAME`` or ``glove:PATH``.

Two ways to register one:

- from Python, :func:`register_model_kind` (``wefe_same.register_model_kind``);
- from an installed package, an entry point in the group ``wefe_same.models`` named after
  its scheme::

      [project.entry-points."wefe_same.models"]
      hashvec = "wefe_same_example.model_kind:HashVectors"

Entry points are read once per process, the first time a spec names a scheme that is not
built in (or a listing asks): a process that only uses built-in kinds imports no plugin.
Worker processes and Dask workers read them the same way, so a spec string is all that
travels. A kind registered from Python travels by import path instead: its sources are
pickled as the kind's module and name plus the spec's parts, and rebuilt in the worker.

A kind is a ``ModelSource`` subclass with

- ``spec_options``: the options a spec may give after the location,
  ``SCHEME:LOCATION,key=value,...``, each an :class:`~wefe_same.validation.OptionSpec`
  (checked, and parsed to a number where it declares one, before any model is read);
  empty (the default): the whole text after ``SCHEME:`` is the location;
- ``from_spec(name, location, options)``: a classmethod returning the source (default:
  ``cls(name, location, **options)``); it checks the location and opens nothing heavy:
  the vectors are read on the first ``lookup``.

A builder function ``builder(name, location, load_options)`` (the built-in schemes'
signature, ``name`` None when the spec gives none) may stand for the class; it declares no
options and receives the whole location.

What the framework adds to every plugin source (:class:`KindSource`): the scheme and the
package that provides it in the manifest (``describe()``), the package's version in the
cache key (``identity()``), and one-line :class:`~wefe_same.errors.ModelError`\\ s naming
the model and the plugin for anything its code raises, so a broken plugin never prints a
traceback.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

from wefe_same.errors import ModelError, WefeSameError, WefeSameWarning
from wefe_same.models.base import ModelSource, StatusLookup, as_source
from wefe_same.models.encoders import ENCODER_SCHEMES
from wefe_same.models.gensim_data import SCHEME as GENSIM_DATA_SCHEME
from wefe_same.models.specs import FORMATS, LoadOptions
from wefe_same.validation import OptionSpec

__all__ = ["ENTRY_POINT_GROUP", "KindSource", "ModelKind", "kind_listing", "plugin_kind", "register_model_kind"]

#: The built-in ``SCHEME:`` specs beyond the file formats (the keys of
#: :data:`wefe_same.models.catalog.SCHEMES`): a kind may not take one.
BUILTIN_SCHEMES = (*ENCODER_SCHEMES, GENSIM_DATA_SCHEME)
#: The entry-point group installed packages declare model kinds in.
ENTRY_POINT_GROUP = "wefe_same.models"
#: A scheme: what ``SCHEME:`` may be (two characters at least: ``C:`` is a drive).
SCHEME_PATTERN = re.compile(r"[A-Za-z][\w-]+")

CLASH = "model kind {scheme!r} from {where} clashes with the built-in {what} {scheme}:; it is not used"
BAD_SCHEME = ("model kind {scheme!r} from {where}: a scheme is a letter, then letters, digits, '_' or '-' "
              "(two characters at least); it is not used")
TWICE = "model kind {scheme!r} is declared by {packages}; neither is used, uninstall one"
CANNOT_LOAD = "model kind {scheme!r} (entry point {value} in {package}) cannot be loaded: {error}"
NOT_A_KIND = "is neither a ModelSource subclass nor a builder function, but {type}"
NOT_IMPORTABLE = ("register_model_kind({scheme!r}, {target}): give a class or function defined at module level, "
                  "so that worker processes can import it")


@dataclass(frozen=True)
class ModelKind:
    """One registered model kind: its scheme, what builds its sources, and who provides it.

    ``target`` is a ModelSource subclass (with ``from_spec`` and ``spec_options``) or a
    builder function; ``package`` the distribution that declares it (None: registered from
    Python), ``origin`` its import path (``module:qualname``).
    """

    scheme: str
    target: Any
    package: str | None = None
    version: str | None = None
    origin: str = ""

    @property
    def options(self) -> Mapping[str, OptionSpec]:
        """The declared spec options (none for a builder function)."""
        if isinstance(self.target, type) and issubclass(self.target, ModelSource):
            return self.target.spec_options
        return {}

    @property
    def provider(self) -> str:
        """Who provides it, as listings and the manifest show it: ``wefe-same-example 0.1.0``."""
        if self.package is None:
            return f"{self.origin} (registered from Python)"
        return f"{self.package} {self.version}" if self.version else self.package

    def build(self, spec: str, name: str | None, location: str, load: LoadOptions) -> KindSource:
        """The source of ``SCHEME:LOCATION``, the options checked (a ModelError naming ``spec`` otherwise)."""
        if not location.strip():
            raise ModelError(f"model spec {spec!r}: nothing after '{self.scheme}:'")
        path, options = self.parse_options(spec, location)
        try:
            target: Any = self.target
            if isinstance(self.target, type):
                inner = target.from_spec(name or f"{self.scheme}:{location}", path, options)
            else:
                inner = target(name or None, path, load)
        except WefeSameError:
            raise
        except Exception as err:  # the plugin's own code: one line, never its traceback
            raise ModelError(f"model spec {spec!r}: {self.failed(err)}") from None
        if not isinstance(inner, ModelSource):
            try:
                inner = as_source(inner)
            except ModelError:
                raise ModelError(f"model spec {spec!r}: the model kind {self.scheme!r} ({self.provider}) "
                                 f"returned {type(inner).__name__}, not a ModelSource") from None
        return KindSource(self, inner, (name, location, load))

    def parse_options(self, spec: str, location: str) -> tuple[str, dict[str, Any]]:
        """``LOCATION,key=value,...`` → (LOCATION, {key: parsed value}) by the declared options."""
        declared = self.options
        if not declared:
            return location, {}
        path, *items = location.split(",")
        options: dict[str, Any] = {}
        for item in items:
            key, sep, value = (part.strip() for part in item.partition("="))
            if not sep or not key:
                raise ModelError(f"model spec {spec!r}: option {item!r} is not key=value")
            if key not in declared:
                raise ModelError(f"model spec {spec!r}: unknown option {key!r}; {self.scheme}: takes "
                                 + ", ".join(declared))
            if key in options:
                raise ModelError(f"model spec {spec!r}: option {key!r} is given twice")
            options[key] = declared[key].check(f"model spec {spec!r}", key, value, ModelError)
        return path, options

    def failed(self, err: BaseException) -> str:
        """What a plugin's exception says, in one line naming the kind and its provider."""
        text = " ".join(str(err).split()) or "(no message)"
        return f"the model kind {self.scheme!r} ({self.provider}) failed: {type(err).__name__}: {text}"


class KindSource(ModelSource):
    """A plugin kind's source, as the framework holds it: every capability the plugin's source
    declares, plus the scheme and provider in ``describe()``, the provider's version in
    ``identity()``, and its exceptions as one-line ModelErrors naming the model.

    Pickled (a worker process, a Dask worker), it is the kind (by import path) and the spec's
    name and location: the worker builds the plugin's source again.
    """

    def __init__(self, kind: ModelKind, inner: ModelSource, parts: tuple[str | None, str, LoadOptions]) -> None:
        self.kind = kind
        self.inner = inner
        self._parts = parts
        self._spec: str | None = None
        self.open_vocabulary = inner.open_vocabulary
        self.has_vocabulary = inner.has_vocabulary

    # -- what travels
    @property
    def spec(self) -> str | None:
        """The spec string for an entry-point kind (a worker finds the kind itself); None for
        one registered from Python, which a worker does not know: the source travels instead."""
        return self._spec if self.kind.package is not None else None

    @spec.setter
    def spec(self, value: str | None) -> None:
        self._spec = value

    def __getstate__(self) -> dict[str, Any]:
        return {"kind": self.kind, "parts": self._parts, "spec": self._spec, "name": self.inner.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        name, location, load = state["parts"]
        spec = state["spec"] or f"{state['kind'].scheme}:{location}"
        rebuilt = state["kind"].build(spec, name, location, load)
        self.__dict__.update(rebuilt.__dict__)
        self._spec = state["spec"]
        self.inner.name = state["name"]

    # -- delegated, with the plugin's exceptions said in one line
    def _call(self, what: str, func: Callable[..., Any], *args: Any) -> Any:
        try:
            return func(*args)
        except WefeSameError:
            raise
        except Exception as err:
            raise ModelError(f"model {self.name!r}: {what}: {self.kind.failed(err)}") from None

    @property
    def name(self) -> str:
        return self.inner.name

    @name.setter
    def name(self, value: str) -> None:
        self.inner.name = value

    @property
    def type_name(self) -> str:
        return self.inner.type_name

    @property
    def decode_warnings(self) -> Sequence[str]:
        return self.inner.decode_warnings

    def lookup(self, words: Collection[str]) -> dict[str, np.ndarray]:
        return self._call("lookup", self.inner.lookup, words)

    def lookup_with_status(self, words: Collection[str]) -> StatusLookup:
        found, subword = self._call("lookup", self.inner.lookup_with_status, words)
        return found, frozenset(subword)

    def lookup_matrix(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
        return self._call("lookup", self.inner.lookup_matrix, words)

    def vocabulary(self, limit: int | None) -> tuple[list[str], np.ndarray]:
        return self._call("vocabulary", self.inner.vocabulary, limit)

    def identity(self) -> dict[str, Any] | None:
        inner = self._call("identity", self.inner.identity)
        if inner is None:
            return None
        return {"scheme": self.kind.scheme, "provider": self.kind.package or self.kind.origin,
                "version": self.kind.version, "source": inner}

    def describe(self) -> dict[str, str]:
        return {**self._call("describe", self.inner.describe), "scheme": self.kind.scheme,
                "provided_by": self.kind.provider}

    def __repr__(self) -> str:
        return f"KindSource({self.kind.scheme!r}, {self.inner!r})"


# --------------------------------------------------------------------------- the registry
@dataclass
class _Registry:
    """The kinds this process knows: registered from Python, and the entry points once read."""

    python: dict[str, ModelKind] = field(default_factory=dict)
    plugins: dict[str, ModelKind] | None = None  # None: entry points not read yet
    broken: dict[str, str] = field(default_factory=dict)  # scheme → why it cannot be used


#: Process-wide, as ``sys.modules`` is: what is installed and registered, not a run's state.
_REGISTRY = _Registry()


def _builtin_clash(scheme: str) -> str | None:
    """What built-in scheme or file format ``scheme`` would shadow (None: none)."""
    if scheme in FORMATS:
        return "file format"
    if scheme in BUILTIN_SCHEMES:
        return "scheme"
    return None


def _origin(target: Any) -> str:
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', type(target).__name__)}"


def _check_target(target: Any) -> str | None:
    """Why ``target`` cannot be a model kind (None: it can)."""
    if isinstance(target, type):
        if not issubclass(target, ModelSource):
            return NOT_A_KIND.format(type=f"the class {target.__name__}")
        return None
    if callable(target):
        return None
    return NOT_A_KIND.format(type=type(target).__name__)


def register_model_kind(scheme: str, kind: type[ModelSource] | Callable[..., Any]) -> None:
    """Make ``SCHEME:LOCATION`` a model spec, in this process and its workers.

    Parameters
    ----------
    scheme : str
        A letter, then letters, digits, ``_`` or ``-`` (two characters at least); not a
        built-in scheme (``hf``, ``sbert``, ``gensim-data``) nor a file format (``glove``, …).
    kind : ModelSource subclass or builder function
        A class with ``from_spec(name, location, options)`` and ``spec_options`` (see the
        module docstring), or ``builder(name, location, load_options)``; defined at module
        level, so worker processes can import it. Registering the same scheme again
        replaces a kind of the same import path (a notebook cell run twice).

    Examples
    --------
    >>> import numpy as np
    >>> class Ones(ModelSource):
    ...     def __init__(self, name, location):
    ...         self.name, self.dim = name, int(location)
    ...     def lookup(self, words):
    ...         return {w: np.ones(self.dim) for w in words}
    ...     def describe(self):
    ...         return {"kind": "ones"}
    >>> register_model_kind("hf", Ones)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wefe_same.errors.ModelError: model kind 'hf' from register_model_kind clashes with the built-in scheme hf:; ...
    """
    where = "register_model_kind"
    if not isinstance(scheme, str) or not SCHEME_PATTERN.fullmatch(scheme):
        raise ModelError(BAD_SCHEME.format(scheme=scheme, where=where))
    clash = _builtin_clash(scheme)
    if clash:
        raise ModelError(CLASH.format(scheme=scheme, where=where, what=clash))
    problem = _check_target(kind)
    if problem:
        raise ModelError(f"register_model_kind({scheme!r}, ...): {problem}")
    origin = _origin(kind)
    if "<" in origin:  # <locals>, <lambda>: a worker cannot import it
        raise ModelError(NOT_IMPORTABLE.format(scheme=scheme, target=origin))
    plugin = _plugins().get(scheme) if _REGISTRY.plugins is not None else None
    if plugin is not None:
        raise ModelError(f"model kind {scheme!r} is provided by {plugin.provider}; choose another scheme")
    known = _REGISTRY.python.get(scheme)
    if known is not None and known.origin != origin:
        raise ModelError(f"model kind {scheme!r} is already registered to {known.origin}; choose another scheme")
    _REGISTRY.python[scheme] = ModelKind(scheme, kind, origin=origin)


def _plugins() -> dict[str, ModelKind]:
    """The entry points of :data:`ENTRY_POINT_GROUP`, read and imported once per process;
    every one that cannot be used is one warning line, and remembered as broken."""
    if _REGISTRY.plugins is None:
        _REGISTRY.plugins, _REGISTRY.broken = _read_entry_points()
    return _REGISTRY.plugins


def _read_entry_points() -> tuple[dict[str, ModelKind], dict[str, str]]:
    by_scheme: dict[str, list[tuple[metadata.EntryPoint, str, str | None]]] = {}
    seen: set[tuple[str, str]] = set()
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = ep.dist
        package = dist.metadata["Name"] if dist is not None else ep.module
        if (ep.name, ep.value) in seen:  # one distribution found twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        by_scheme.setdefault(ep.name, []).append((ep, package, dist.version if dist is not None else None))
    kinds: dict[str, ModelKind] = {}
    broken: dict[str, str] = {}
    for scheme, eps in sorted(by_scheme.items()):
        ep, package, version = eps[0]
        where = f"entry point {ep.value} in {package}"
        if len(eps) > 1:
            broken[scheme] = TWICE.format(scheme=scheme, packages=" and ".join(sorted(p for _, p, _ in eps)))
        elif not SCHEME_PATTERN.fullmatch(scheme):
            broken[scheme] = BAD_SCHEME.format(scheme=scheme, where=where)
        elif clash := _builtin_clash(scheme):
            broken[scheme] = CLASH.format(scheme=scheme, where=where, what=clash)
        else:
            try:
                target = ep.load()
            except Exception as err:  # a plugin that fails to import: said, and only its scheme breaks
                text = " ".join(str(err).split()) or "(no message)"
                broken[scheme] = CANNOT_LOAD.format(scheme=scheme, value=ep.value, package=package,
                                                    error=f"{type(err).__name__}: {text}")
                continue
            problem = _check_target(target)
            if problem:
                broken[scheme] = CANNOT_LOAD.format(scheme=scheme, value=ep.value, package=package, error=problem)
                continue
            kinds[scheme] = ModelKind(scheme, target, package=package, version=version, origin=ep.value)
    for line in broken.values():
        warnings.warn(line, WefeSameWarning, stacklevel=2)
    return kinds, broken


def plugin_kind(scheme: str) -> ModelKind | None:
    """The kind registered under ``scheme`` (from Python first, then the entry points), or
    None; a ModelError with its one line when an entry point declares it but cannot be used."""
    if scheme in _REGISTRY.python:
        return _REGISTRY.python[scheme]
    kind = _plugins().get(scheme)
    if kind is None and scheme in _REGISTRY.broken:
        raise ModelError(_REGISTRY.broken[scheme])
    return kind


def kind_listing() -> list[tuple[str, str, str]]:
    """(scheme, provider, first docstring line or why it cannot be used) of every kind that is
    not built in, sorted by scheme: what listings and the unknown-spec message show."""
    rows = [(k.scheme, k.provider, _summary(k.target)) for k in (*_REGISTRY.python.values(), *_plugins().values())]
    rows += [(scheme, "", why) for scheme, why in _REGISTRY.broken.items()]
    return sorted(rows)


def _summary(target: Any) -> str:
    doc = (getattr(target, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def _forget() -> None:
    """Forget what was registered and read (tests that put a plugin on ``sys.path``)."""
    _REGISTRY.python.clear()
    _REGISTRY.plugins = None
    _REGISTRY.broken = {}

