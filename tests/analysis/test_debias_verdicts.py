"""Debias verdicts: reduced, increased or no change, never a bare sign (issue 39 item 4).

Without the word bootstrap a difference counts only beyond the metric's declared
``change_tolerance``; with it, only where the paired interval of the difference excludes 0.
Hand-built aggregates with known differences, one metric at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wefe_same.analysis.debias_effect import debias_effect
from wefe_same.errors import MetricError
from wefe_same.metrics.registry import METRICS, make_metric

PAIR = [("m", "m+hard-debias", "+hard-debias")]


def _one(spec, before: float, after: float, draws=None):
    aggregates = pd.DataFrame({spec.name: [before, after]}, index=["m", "m+hard-debias"])
    rankings = pd.DataFrame({spec.name: pd.array([1, 2], dtype="Int64")}, index=aggregates.index)
    got = debias_effect(aggregates, rankings, [spec], pairs=PAIR, draws=draws)
    assert got is not None
    return got


@pytest.mark.parametrize("name", list(METRICS))
@pytest.mark.parametrize(("factor", "less", "expected"), [
    (0.5, True, "no change"), (0.5, False, "no change"),   # inside the tolerance, either way
    (0.9, True, "no change"), (1.1, True, "reduced"),    # just inside, just outside
    (2.0, True, "reduced"), (2.0, False, "increased"),    # outside it
])
def test_tolerance_decides_without_bootstrap(name, factor, less, expected):
    spec = METRICS[name]
    tol = spec.change_tolerance
    assert tol > 0
    before = 0.5  # a bias-scale aggregate; for ECT (descending, higher is fairer) a rise is less biased
    sign = (1 if spec.order == "descending" else -1) * (1 if less else -1)
    effect, summary = _one(spec, before, before + sign * factor * tol)
    assert effect.loc[0, ["effect", "basis", "tolerance"]].tolist() == [expected, "tolerance", tol]
    key = expected.replace(" ", "_")
    assert summary.loc[0, key] == 1 and summary.loc[0, ["reduced", "increased", "no_change"]].sum() == 1


def test_rounding_noise_is_not_a_reduction():
    """The issue's case: a WEAT difference of −1.3e-5 counted as 'reduced'."""
    effect, summary = _one(METRICS["WEAT"], 0.4, 0.4 - 1.3e-5)
    assert effect.loc[0, "effect"] == "no change"
    assert summary.loc[0, ["reduced", "increased", "no_change"]].tolist() == [0, 0, 1]


@pytest.mark.parametrize(("shift", "spread", "expected"), [
    (-0.5, 0.1, "reduced"),      # interval wholly below 0
    (0.5, 0.1, "increased"),     # wholly above
    (-0.5, 5.0, "no change"),    # a large difference whose interval holds 0
    (-1e-6, 0.0, "reduced"),     # a tiny difference whose interval excludes 0: the interval decides, not the tolerance
])
def test_interval_decides_with_bootstrap(shift, spread, expected):
    spec = METRICS["WEAT"]
    noise = np.random.default_rng(0).normal(size=(200, 1, 1))
    draws = np.concatenate([0.5 + noise, 0.5 + shift + noise * (1 + spread)], axis=1)
    effect, summary = _one(spec, 0.5, 0.5 + shift, draws=draws)
    low, high = effect.loc[0, ["diff_low", "diff_high"]]
    assert (low <= 0 <= high) == (expected == "no change")
    assert effect.loc[0, ["effect", "basis"]].tolist() == [expected, "interval"]
    assert summary.loc[0, "basis"] == "interval"


def test_descending_interval_reads_the_other_way():
    noise = np.random.default_rng(1).normal(size=(100, 1, 1)) * 0.01
    draws = np.concatenate([0.2 + noise, 0.6 + noise], axis=1)  # ECT rises: less biased
    effect, _ = _one(METRICS["ECT"], 0.2, 0.6, draws=draws)
    assert effect.loc[0, "effect"] == "reduced"


def test_nan_is_undefined_and_counted_apart():
    effect, summary = _one(METRICS["SAME"], 0.1, float("nan"))
    assert effect.loc[0, "effect"] == "undefined"
    assert summary.loc[0, ["reduced", "increased", "no_change", "undefined"]].tolist() == [0, 0, 0, 1]


def test_a_plugin_declares_its_tolerance():
    def gap(targets, attributes):
        return 0.0

    spec = make_metric(gap, name="gap-tol", template=(2, 1), order="abs", change_tolerance=0.2)
    assert _one(spec, 1.0, 0.85)[0].loc[0, "effect"] == "no change"
    assert _one(spec, 1.0, 0.75)[0].loc[0, "effect"] == "reduced"
    with pytest.raises(MetricError, match="change_tolerance must be a finite number >= 0"):
        make_metric(gap, name="gap-bad", template=(2, 1), order="abs", change_tolerance=-1.0)


def test_report_headline_counts_only_what_clears_the_tolerance():
    from wefe_same.output.report_data import ReportData
    from wefe_same.output.report_html import _debias

    specs = [METRICS["WEAT"], METRICS["SAME"], METRICS["MAC"]]
    aggregates = pd.DataFrame({"WEAT": [0.4, 0.4 - 1.3e-5], "SAME": [0.1, 0.05], "MAC": [0.02, 0.04]},
                              index=["m", "m+hard-debias"])
    rankings = pd.DataFrame({k: pd.array([1, 2], dtype="Int64") for k in aggregates}, index=aggregates.index)
    effect, _ = debias_effect(aggregates, rankings, specs, pairs=PAIR)
    empty = pd.DataFrame()
    html = _debias(ReportData(rankings=empty, aggregates=empty, correlations=empty, correlation_pvalues=empty,
                              scores={}, lookups=empty, manifest={}, debias_effect=effect))
    assert "m+hard-debias vs m: 1 of 3 metrics say reduced, 1 increased, 1 no change" in html
    assert "±0.01" in html and "declared tolerance" in html


def test_every_tolerance_is_documented_in_the_metric_table():
    from pathlib import Path

    from wefe_same.metrics.registry import METRICS

    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "metrics" / "index.md").read_text(encoding="utf-8")
    line = next(t for t in page.splitlines() if t.startswith("Change tolerances"))
    listed = dict(item.rsplit(" ", 1) for item in line.rsplit("): ", 1)[1].rstrip(".").split(", "))
    assert {name: float(v) for name, v in listed.items()} == {n: s.change_tolerance for n, s in METRICS.items()}
