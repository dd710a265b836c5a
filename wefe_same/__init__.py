"""wefe_same: rank embedding models by fairness with many bias metrics at once.

>>> from wefe_same import WordSet, Query, load_queries, rank
"""

from .api import rank
from .properties import audit
from .errors import MetricError, ModelError, QueryError, WefeSameError
from .metrics import METRICS, MetricResult, MetricSpec
from .query import AtLeast, Query, QuerySet, Template, WordSet, load_queries
from .result import RankResult

__all__ = [
    "METRICS", "AtLeast", "MetricError", "MetricResult", "MetricSpec", "ModelError", "Query",
    "QueryError", "QuerySet", "RankResult", "Template", "WefeSameError", "WordSet",
    "audit", "load_queries", "rank",
]
__version__ = "0.1.0"
