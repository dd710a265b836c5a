"""The measured list of slow tests that the suite starts first (tests/slow_first.py) names
modules and test functions that exist, and the collection is ordered by it."""

from __future__ import annotations

import ast
from pathlib import Path

from slow_first import SLOW_FIRST, slow_first_key

ROOT = Path(__file__).resolve().parents[2]


def test_every_entry_names_an_existing_module_or_test_function():
    stale = []
    for entry in SLOW_FIRST:
        path, _, name = entry.partition("::")
        file = ROOT / path
        if not file.is_file():
            stale.append(entry)
            continue
        tree = ast.parse(file.read_text(encoding="utf-8"))
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        if name and name not in functions:
            stale.append(entry)
    assert stale == [], f"tests/slow_first.py names what no longer exists: {stale}"
    assert len(set(SLOW_FIRST)) == len(SLOW_FIRST)


def test_entries_sort_first_in_their_listed_order_and_the_rest_keep_theirs():
    ids = ["tests/analysis/test_a.py::test_x", "tests/entry/test_option_space.py::test_each_row[rank-1]",
           "tests/docs/test_notebooks.py::test_notebook_runs[02_wefe_case_study]",
           "tests/docs/test_notebooks.py::test_the_three_notebooks_exist", "wefe_same/metrics/weat.py::weat",
           "tests/entry/test_cli.py::test_default_run_on_the_builtin_models_again",
           "tests/docs/test_notebooks.py::test_notebook_runs[01_quickstart]"]
    assert sorted(ids, key=slow_first_key) == [
        "tests/docs/test_notebooks.py::test_notebook_runs[02_wefe_case_study]",
        "tests/docs/test_notebooks.py::test_notebook_runs[01_quickstart]",
        "tests/entry/test_option_space.py::test_each_row[rank-1]",
        # the rest in their order; a function's entry does not take a longer-named neighbour
        "tests/analysis/test_a.py::test_x", "tests/docs/test_notebooks.py::test_the_three_notebooks_exist",
        "wefe_same/metrics/weat.py::weat", "tests/entry/test_cli.py::test_default_run_on_the_builtin_models_again"]
