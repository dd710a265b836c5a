"""Bias metrics: pure functions on arrays plus one registry of specs."""

from wefe_same.metrics.registry import METRICS, MetricSpec, get_metric, resolve_metrics
from wefe_same.metrics.result import MetricResult

__all__ = ["METRICS", "MetricResult", "MetricSpec", "get_metric", "resolve_metrics"]
