"""wefe_same: rank embedding models by fairness with many bias metrics at once.

>>> from wefe_same import WordSet, Query, load_queries, rank
"""

from importlib import import_module
from importlib.util import find_spec

# Names load on first use (PEP 562): importing the package imports no numpy, pandas or scipy,
# so that ``wefe-same`` handles Ctrl-C from its first instant.
_EXPORTS = {
    "rank": ".api", "load_model": ".api", "export_vectors": ".api", "seat": ".api", "audit": ".audit",
    "RankResult": ".result",
    "MetricError": ".errors", "ModelError": ".errors", "QueryError": ".errors", "WefeSameError": ".errors",
    "METRICS": ".metrics", "MetricResult": ".metrics", "MetricSpec": ".metrics", "make_metric": ".metrics",
    "AtLeast": ".query", "Query": ".query", "QuerySet": ".query", "Template": ".query",
    "WordSet": ".query", "load_queries": ".query", "register_model_kind": ".models.kinds",
    # the option groups of rank, load_model and export_vectors
    "Bootstrap": ".options.groups", "Encoding": ".options.groups", "Execution": ".options.groups",
    "External": ".options.groups", "Likelihood": ".options.groups", "Loading": ".options.groups",
    "Quality": ".options.groups", "LipstickSettings": ".analysis.lipstick",
}
__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name not in _EXPORTS:
        if find_spec(f"{__name__}.{name}") is None:  # ``wefe_same.output`` etc. still work unimported
            raise AttributeError(f"module 'wefe_same' has no attribute {name!r}")
        return import_module(f".{name}", __name__)
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
