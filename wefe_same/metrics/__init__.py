"""Bias metrics: pure functions on arrays plus one registry of specs.

The registry's names load on first use (PEP 562): the pure helpers (``metrics._norms``)
are imported by the model readers and debiasing, and must not pull in pandas and scipy
with the registry (an encoder's worker process would hold ~150 MB more).
"""

from importlib import import_module

_EXPORTS = {
    "METRICS": ".registry", "MetricSpec": ".registry", "get_metric": ".registry", "resolve_metrics": ".registry",
    "make_metric": ".registry",
    "MetricResult": ".result",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
