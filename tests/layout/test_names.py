"""One meaning per name (CONTRIBUTING.md, "The house"): a public function or class defined in two
modules of the package is either one idea written twice for two kinds of input, listed
below with the reason, or two ideas that need two names (``Variant`` was a debiased
variant's suffix and a ``--vary`` setting's model; ``prepare`` the pipeline's first stage
and one subquery's arrays).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "wefe_same"

#: name → why its definitions mean one thing.
SAME_MEANING = {
    "average_ranks": "ties share the mean of their places: a 1-D array in ECT's inner loop (metrics/ect.py), "
                     "a frame's columns for Kendall's W (analysis/agreement.py)",
    "MetricSpec": "query/expand.py's Protocol is the part of metrics.MetricSpec that expansion reads",
    "debias_effect": "output/figures.py draws the table analysis/debias_effect.py makes, under its name",
    "measurement_sensitivity": "output/figures.py draws the table analysis/measurement.py makes, under its name",
    "max_positions": "the longest input of a model in tokens: an encoder's (512 when unknown) and a language "
                     "model's (None when unknown)",
    "parse_options": "KEY=VALUE,… text → a dict: of an hf: spec (after its path) and of a +METHOD[…] suffix",
    "unit_rows": "rows of unit length: float32 in blocks for a whole vocabulary (debias), float64 (lipstick)",
}


def public_definitions() -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(PACKAGE)))
    return where


def test_a_public_name_defined_twice_means_one_thing():
    twice = {name: paths for name, paths in public_definitions().items() if len(paths) > 1}
    unexplained = {name: paths for name, paths in twice.items() if name not in SAME_MEANING}
    assert not unexplained, ("defined in two modules: give one of them another name, or say in SAME_MEANING "
                             f"why both mean the same: {unexplained}")


def test_every_listed_name_is_still_defined_twice():
    twice = {name for name, paths in public_definitions().items() if len(paths) > 1}
    assert sorted(set(SAME_MEANING) - twice) == []


def test_the_names_that_had_two_meanings_have_one():
    where = public_definitions()
    assert where["Variant"] == ["models/specs.py"] and where["VariedModel"] == ["models/encoders/vary.py"]
    assert where["prepare"] == ["run/pipeline.py"] and where["subquery_arrays"] == ["scoring/layout.py"]
    assert where["Vocabulary"] == ["quality/vocab.py"] and where["QueryLayouts"] == ["scoring/layout.py"]
    assert where["read_only"] == ["metrics/memo.py"] and where["read_pass"] == ["run/score.py"]
