"""One registry of frozen metric specs: the built-in metrics and installed plugins, found alike.

A metric is a :class:`~wefe_same.metrics.spec.MetricSpec`. Each built-in metric's module
declares its spec (``METRIC = MetricSpec(...)``, or a tuple of specs); an installed
package declares its own through an entry point in the group ``wefe_same.metrics``
naming a spec, a zero-argument callable returning one (such as a module-level
``make_metric`` call's result) or a tuple of them. Both are read by
:func:`declared_specs`, so adding a built-in metric touches its own module (and its docs
page) only. Plugins load on first use, once per process: the default run never imports
them, and a plugin that fails to load is one warning line that breaks only a run asking
for its metric. Worker processes and Dask workers find a metric by its name through the
same lookup (:func:`get_metric`), never from a pickled function.

An unknown name fails with the list of valid names (like scikit-learn's scorer names).
"""

from __future__ import annotations

import inspect
import pkgutil
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module, metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from wefe_same.errors import MetricError, WefeSameWarning, unknown_name
from wefe_same.metrics.spec import (
    ORDER_MEANING,
    MetricOrigin,
    MetricSpec,
    OptionCheck,
    Order,
    boolean,
    integer,
    number,
    one_line,
    one_of,
)
from wefe_same.metrics.weat import PERMUTATION_DETAILS, PERMUTATION_OPTIONS
from wefe_same.query.sets import Template

__all__ = ["ENTRY_POINT_GROUP", "METRICS", "ORDER_MEANING", "PERMUTATION_DETAILS", "PERMUTATION_OPTIONS",
           "MetricOrigin", "MetricSpec", "OptionCheck", "Order", "boolean", "check_options", "check_sendable",
           "declared_specs", "get_metric", "integer", "make_metric", "number", "one_of", "plugin_metrics",
           "resolve_metrics"]

#: The entry point group in which installed packages declare metrics.
ENTRY_POINT_GROUP = "wefe_same.metrics"
#: The distribution that declares the built-in metrics.
BUILTIN_PACKAGE = "wefe_same"
#: The order in which the first twelve built-ins have always been listed (tables, the
#: default run, ``wefe-same metrics``); a built-in added later comes after them.
LISTED = ("WEAT", "WEAT-ES", "RND", "RNSB", "MAC", "SAME", "DirectBias", "gWEAT", "ECT", "RIPA",
          "SAME-skew", "SAME-stereotype")
#: The module attribute in which a built-in metric's module declares its spec(s).
DECLARED = "METRIC"


def declared_specs(obj: Any, where: str) -> list[MetricSpec]:
    """The specs that a module's ``METRIC`` or an entry point names: a MetricSpec, a
    zero-argument callable returning one, or a tuple or list of these.

    >>> [s.name for s in declared_specs(METRICS["MAC"], "here")]
    ['MAC']
    """
    if isinstance(obj, MetricSpec):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [s for item in obj for s in declared_specs(item, where)]
    if callable(obj):
        got = obj()
        if isinstance(got, MetricSpec):
            return [got]
        raise MetricError(f"{where} returned {type(got).__name__}, not a MetricSpec")
    raise MetricError(f"{where} names {type(obj).__name__}, not a MetricSpec or a function returning one")


def _registered(specs: Iterable[MetricSpec], package: str, *, builtin: bool = False) -> list[MetricSpec]:
    """``specs`` with their origin: where their code comes from, and which package declares them."""
    return [replace(s, origin=MetricOrigin(s.func.__module__, s.func.__qualname__, "", package, True)
                    if builtin else MetricOrigin.of(s, package)) for s in specs]


def _builtins() -> dict[str, MetricSpec]:
    """Every spec that a module of this package declares, in :data:`LISTED` order."""
    found: dict[str, MetricSpec] = {}
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("_") or info.name in ("registry", "spec", "result"):
            continue
        module = import_module(f"wefe_same.metrics.{info.name}")
        if hasattr(module, DECLARED):
            for s in _registered(declared_specs(getattr(module, DECLARED), module.__name__), BUILTIN_PACKAGE,
                                 builtin=True):
                if s.name in found:
                    raise MetricError(f"two built-in metrics are named {s.name!r}")
                found[s.name] = s
    listed = [n for n in LISTED if n in found]
    return {n: found[n] for n in [*listed, *sorted(set(found) - set(listed))]}


#: The built-in metrics by name: a read-only mapping (plugins: :func:`plugin_metrics`).
METRICS: Mapping[str, MetricSpec] = MappingProxyType(_builtins())


@dataclass(frozen=True)
class Plugins:
    """The metrics that installed packages declare: specs by name, and the one-line error of
    each entry point that failed (by the entry point's name and, once known, the metric's)."""

    specs: Mapping[str, MetricSpec]
    failures: Mapping[str, str]


@cache
def plugin_metrics() -> Plugins:
    """Load the ``wefe_same.metrics`` entry points, once per process.

    An entry point that fails to import or names no spec, or a metric whose name is taken
    (by a built-in or an earlier plugin), is one :class:`~wefe_same.errors.WefeSameWarning`
    line naming the entry point and the error, and is left out.
    """
    specs: dict[str, MetricSpec] = {}
    failures: dict[str, str] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        package = ep.dist.name if ep.dist is not None else "?"
        where = f"plugin metric entry point {ep.name!r} ({ep.value}, package {package})"
        try:
            declared = _registered(declared_specs(ep.load(), where), package)
        except Exception as err:  # a broken plugin is one line, and breaks only the runs that ask for it
            failures[ep.name] = (str(err) if isinstance(err, MetricError) and str(err).startswith(where)
                                 else f"{where} failed to load: {type(err).__name__}: {one_line(str(err))}")
            warnings.warn(failures[ep.name], WefeSameWarning, stacklevel=2)
            continue
        for s in declared:
            taken = "a built-in metric" if s.name in METRICS else (
                f"a metric of package {_package(specs[s.name])}" if s.name in specs else None)
            if taken:
                failures.setdefault(s.name, f"{where} declares metric {s.name!r}, which is already {taken}")
                warnings.warn(f"{where} declares metric {s.name!r}, which is already {taken}: left out",
                              WefeSameWarning, stacklevel=2)
                continue
            specs[s.name] = s
    return Plugins(MappingProxyType(specs), MappingProxyType(failures))


def _package(spec: MetricSpec) -> str | None:
    return spec.origin.package if spec.origin is not None else None


def get_metric(name: str) -> MetricSpec:
    """The built-in or plugin metric called ``name``.

    Raises
    ------
    MetricError
        An unknown name (listing the valid ones), or the one line of a plugin that failed
        to load.
    """
    spec = METRICS.get(name)
    if spec is not None:
        return spec
    plugins = plugin_metrics()
    if name in plugins.specs:
        return plugins.specs[name]
    if name in plugins.failures:
        raise MetricError(plugins.failures[name])
    raise MetricError(unknown_name("metric", name, [*METRICS, *plugins.specs]))


def _lookup(name: str) -> MetricSpec | None:
    return METRICS.get(name) or plugin_metrics().specs.get(name)


def resolve_metrics(metrics: Iterable[str | MetricSpec] | str | MetricSpec | None) -> list[MetricSpec]:
    """Specs for ``metrics`` (every built-in when None), in the order given, duplicates once.

    An item is a registered name or a :class:`MetricSpec` (such as :func:`make_metric`'s):
    a spec equal to a registered one is that one; another spec may not take a registered
    name, nor share its name with another item.
    """
    if metrics is None:
        return list(METRICS.values())
    items = [metrics] if isinstance(metrics, (str, MetricSpec)) else list(metrics)
    if not items:
        raise MetricError("no metric given; valid metrics are: " + ", ".join(METRICS))
    out: dict[str, MetricSpec] = {}
    for item in items:
        if isinstance(item, str):
            spec = get_metric(item)
        elif isinstance(item, MetricSpec):
            known = _lookup(item.name)
            if known is not None and known != item:
                package = _package(known)
                taken = "a built-in metric" if package == BUILTIN_PACKAGE else f"a metric of package {package}"
                raise MetricError(f"metric {item.name!r} is already {taken}; give yours another name")
            spec = known if known is not None else (item if item.origin is not None
                                                    else replace(item, origin=MetricOrigin.of(item)))
        else:
            raise MetricError(f"metrics must be metric names or MetricSpec objects (see make_metric), "
                              f"not {type(item).__name__}")
        if spec.name in out and out[spec.name] != spec:
            raise MetricError(f"two different metrics are named {spec.name!r}")
        out[spec.name] = spec
    return list(out.values())


def is_registered(spec: MetricSpec) -> bool:
    """Whether ``spec`` is the built-in or plugin metric of its name (which any process finds by name)."""
    return _lookup(spec.name) is spec


def _import_path_problem(func: Callable[..., Any]) -> str | None:
    """Why ``func`` cannot be found again by its module and qualified name, or None."""
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    shown = qualname or repr(func)
    if not module or not qualname or "<" in qualname:
        return f"{shown} is a lambda or a function defined inside another"
    if module in ("__main__", "__mp_main__"):
        return f"{shown} is defined in __main__ (a script or a notebook)"
    try:
        found: Any = import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception as err:
        return f"{module}.{qualname} cannot be imported ({type(err).__name__}: {one_line(str(err))})"
    if found is not func:
        return f"{module}.{qualname} is another object when imported"
    return None


def sendable_problem(specs: Iterable[MetricSpec]) -> str | None:
    """Why worker processes or Dask workers could not find one of ``specs``, or None.

    A registered metric is found by its name; any other goes by reference to its
    functions (module and qualified name), which must be importable there: a lambda, a
    nested function or one defined in ``__main__`` is not.
    """
    for s in specs:
        if is_registered(s):
            continue
        for part in (s.func, s.call, s.prefit, s.memo_call, s.declare_memo):
            problem = None if part is None else _import_path_problem(part)
            if problem:
                return f"metric {s.name!r}: {problem}"
    return None


def check_sendable(specs: Iterable[MetricSpec], where: str) -> None:
    """Refuse a metric that worker processes or Dask workers could not find
    (`sendable_problem`) with a one-line :class:`~wefe_same.errors.MetricError`."""
    problem = sendable_problem(specs)
    if problem:
        name, why = problem.split(": ", 1)
        raise MetricError(f"{name} cannot run in {where}: {why}, so it cannot be found "
                          "there by import path; define it at the top level of an importable module, "
                          "or run in-process (workers=1)")


def make_metric(func: Callable[..., Any], *, name: str, template: Template | tuple[Any, Any],
                order: Order, ideal: float = 0.0, vectors: Literal["unit", "raw"] = "unit",
                options: Mapping[str, OptionCheck] | None = None,
                word_role: Literal["targets", "attributes"] | None = None,
                aligned_targets: bool = False, formula: str = "", reference: str = "",
                change_tolerance: float = 0.01) -> MetricSpec:
    """A metric from a plain function, for `wefe_same.rank` or an entry point.

    Parameters
    ----------
    func : callable
        Called as ``func(targets, attributes, *, option=default, ...)``: ``targets`` and
        ``attributes`` are lists of (words × dim) arrays, one per set of a
        subquery; the keyword-only parameters are the metric's options (a keyword-only
        ``random_state`` makes it stochastic: it then receives a seed per subquery).
        Returns one number, or a `wefe_same.metrics.result.MetricResult` (NaN with
        a reason when undefined; ``word_values`` one per word of ``word_role``). An
        exception, a non-finite number, a non-number or an array becomes NaN with the
        reason, for that subquery only.
    name : str
        The metric's name in tables and on the command line; not a built-in's.
    template : Template or (targets, attributes)
        How many sets it takes of each role: an int or ``AtLeast(k)`` each.
    order : {"abs", "ascending", "descending", "ideal"}
        Which score is less biased: smaller ``|x|``, smaller ``x``, larger ``x``, or
        closer to ``ideal``.
    ideal : float, default 0
        The no-bias value.
    vectors : {"unit", "raw"}, default "unit"
        Unit-normalised or raw vectors.
    options : mapping of option name to check, optional
        One check per keyword-only option: ``check(value, option, metric)`` returns the
        value or raises (``integer(1)``, ``number(0, 1)``, ``one_of(...)``, ``boolean()``
        of `wefe_same.metrics.registry`).
    word_role : {"targets", "attributes"}, optional
        Whose words per-word values belong to.
    aligned_targets : bool, default False
        Target sets are aligned tuples (a missing word drops its tuple).
    formula, reference : str
        Shown by ``wefe-same metrics`` and the report.
    change_tolerance : float, default 0.01
        The smallest change of the overall aggregate, in the metric's units, that a
        debiasing verdict without a word bootstrap counts (`MetricSpec.change_tolerance`).

    Returns
    -------
    MetricSpec

    Raises
    ------
    MetricError
        A name taken by a built-in, a bad template or order, options without checks.

    Examples
    --------
    >>> def gap(targets, attributes):
    ...     return float((targets[0] @ attributes[0].mean(0)).mean() - (targets[1] @ attributes[0].mean(0)).mean())
    >>> spec = make_metric(gap, name="gap", template=(2, 1), order="abs")
    >>> spec.template, spec.origin.qualname
    (Template(targets=2, attributes=1), 'gap')
    """
    if isinstance(name, str) and name in METRICS:
        raise MetricError(f"metric {name!r} is already a built-in metric; give yours another name")
    if not callable(func):
        raise MetricError(f"make_metric needs a function, not {type(func).__name__}")
    if isinstance(template, tuple) and len(template) == 2:
        template = Template(*template)
    params = inspect.signature(func).parameters.values()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in params):
        raise MetricError(f"metric {name!r}: its function must take (targets, attributes, *, options…)")
    no_default = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    if no_default:
        raise MetricError(f"metric {name!r}: option {no_default[0]!r} of its function has no default value")
    stochastic = any(p.kind is p.KEYWORD_ONLY and p.name == "random_state" for p in params)
    spec = MetricSpec(name=name, func=func, call=func, template=template, order=order,
                      formula=formula, reference=reference, ideal=ideal, change_tolerance=change_tolerance,
                      stochastic=stochastic, vectors=vectors,
                      aligned_targets=aligned_targets, word_role=word_role, option_checks=dict(options or {}))
    return replace(spec, origin=MetricOrigin.of(spec))


def check_options(specs: Iterable[MetricSpec], metric_options: Mapping[str, Mapping[str, Any]] | None) -> None:
    """Every option must name a selected metric, one of its keyword-only parameters, and a
    value that parameter takes; checked before any work starts.

    Raises
    ------
    MetricError
        An unselected metric or an unknown option.
    InvalidParameterError
        A bad value: "The 'k' parameter of DirectBias must be an integer >= 1. Got 0 instead."

    >>> check_options([METRICS["RNSB"]], {"RNSB": {"train_fraction": 0}})
    Traceback (most recent call last):
    ...
    wefe_same.validation.InvalidParameterError: The 'train_fraction' parameter of RNSB must be a number in (0, 1]. Got 0 instead.
    """
    by_name = {s.name: s for s in specs}
    for metric, opts in (metric_options or {}).items():
        if metric not in by_name:
            raise MetricError(
                f"metric_options names metric {metric!r}, which is not selected; selected: {', '.join(by_name)}"
            )
        for key, value in opts.items():
            by_name[metric].check_option(key, value)
