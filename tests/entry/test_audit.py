"""The property audit reproduces seed 000 Table 1 / Table 7 from computed checks."""

import pandas as pd
import pytest

from wefe_same import METRICS
from wefe_same.audit import PROPERTIES, Case, audit, cases, group_configurations
from wefe_same.cli import main

COLUMNS = ["magnitude_comparable", "unbiased_trustworthy", "skew_sensitive", "stereotype_sensitive"]
#: Seed 000 Table 1 (set scores; "WEAT" there is the effect size) and Table 7 (SAME rows),
#: as reconstructed from the theorems (the ✓ glyphs are lost in the seed's text).
SEED_TABLE = {
    "WEAT-ES": (True, False, False, False),  # stereotype: "(✓)" only if the X/Y split matches, see below
    "MAC": (False, False, False, False),
    "DirectBias": (True, False, False, False),
    "SAME": (True, True, True, True),
    "SAME-skew": (True, False, True, False),
    "SAME-stereotype": (True, False, False, True),
}
#: Metrics not in the seed's tables: what the constructed cases show, and why.
DERIVED = {
    # Scales with ‖â − b̂‖ and |W|; cancelling biases sum to 0.
    "WEAT": (False, False, False, False),
    # Distances depend on the group geometry; words biased in opposite directions cancel.
    "RND": (False, False, True, False),
    # Uniform probabilities when every word leans the same way: blind to skew.
    "RNSB": (False, False, False, True),
    # A normalised WEAT statistic: same failures as WEAT.
    "gWEAT": (False, False, False, False),
    # Rank correlation: undefined for constant words and equal to 1 when words all lean alike.
    "ECT": (False, False, False, True),
    # Inner product with the unit pair direction: a mean, so opposite biases cancel.
    "RIPA": (False, False, True, False),
}


@pytest.fixture(scope="module")
def table():
    return audit(dim=50)


def test_every_metric_has_an_expected_row():
    assert set(SEED_TABLE) | set(DERIVED) == set(METRICS)


@pytest.mark.parametrize("metric", list(METRICS))
def test_audit_row(table, metric):
    expected = SEED_TABLE.get(metric) or DERIVED[metric]
    assert tuple(table.loc[metric, COLUMNS]) == expected
    for prop, holds in zip(COLUMNS, expected):
        evidence = table.loc[metric, f"evidence_{prop}"]
        assert (evidence == "") == holds, (metric, prop, evidence)


def test_evidence_names_the_seed_counterexamples(table):
    assert "Direct Bias PCA counterexample" in table.loc["DirectBias", "evidence_unbiased_trustworthy"]
    assert "opposite biases that cancel" in table.loc["SAME-skew", "evidence_stereotype_sensitive"]
    assert "equally biased words" in table.loc["SAME-stereotype", "evidence_skew_sensitive"]
    assert "depends on the groups" in table.loc["MAC", "evidence_magnitude_comparable"]


def test_effect_size_is_stereotype_sensitive_only_when_the_split_matches():
    # Table 1's "(✓)": a stereotype aligned with the X/Y split is seen; one across it is not.
    spec = METRICS["WEAT-ES"]
    from wefe_same.audit import evaluate

    groups = group_configurations(8)[0]
    named = {c.name: c for c in cases(groups, 8, __import__("numpy").random.default_rng(0))}
    aligned, across = named["stereotype aligned with X/Y"], named["opposite biases that cancel (stereotype, no skew)"]
    assert aligned.stereotyped and across.stereotyped
    assert abs(evaluate(spec, aligned)) > 1
    assert evaluate(spec, across) == pytest.approx(0, abs=1e-12)


def test_ground_truth_of_the_cases_comes_from_the_definitions():
    import numpy as np

    groups = group_configurations(8)[0]
    named = {c.name: c for c in cases(groups, 8, np.random.default_rng(0))}
    unbiased = named["unbiased words (all orthogonal to the bias direction)"]
    assert (unbiased.biased, unbiased.skewed, unbiased.stereotyped) == (False, False, False)
    skew = named["equally biased words (skew, no stereotype)"]
    assert (skew.biased, skew.skewed, skew.stereotyped) == (True, True, False)
    cancel = named["opposite biases that cancel (stereotype, no skew)"]
    assert (cancel.biased, cancel.skewed, cancel.stereotyped) == (True, False, True)
    assert isinstance(cancel, Case)


def test_audit_does_not_depend_on_the_dimension():
    small, large = audit(dim=6), audit(dim=300)
    pd.testing.assert_frame_equal(small[COLUMNS], large[COLUMNS])


def test_audit_cli_writes_the_table(tmp_path, capsys):
    out = tmp_path / "audit"
    assert main(["audit", "--model", "glove-6b-50d", "--metrics", "SAME", "DirectBias", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "in 50 dimensions" in printed and "DirectBias" in printed
    assert sorted(p.name for p in out.iterdir()) == [".wefe-same-owner.json", "audit.csv", "manifest.json"]
    saved = pd.read_csv(out / "audit.csv", index_col="metric")
    assert list(saved.index) == ["SAME", "DirectBias"] and set(PROPERTIES) <= set(saved.columns)
    assert saved.loc["SAME", list(PROPERTIES)].all()
