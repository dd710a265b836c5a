"""Bias metrics: pure functions on arrays plus one registry of specs."""

from .registry import METRICS, MetricSpec, get_metric, resolve_metrics
from .result import MetricResult

__all__ = ["METRICS", "MetricResult", "MetricSpec", "get_metric", "resolve_metrics"]
