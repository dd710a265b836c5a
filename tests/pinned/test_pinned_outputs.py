"""Every table of a small run equals the tables the code wrote before the restructuring.

``make_pinned.py`` (beside this file) produced ``expected/``; a difference names the table.
The four small tables are compared as text too, so a failure shows the changed cells.
"""

import json
from pathlib import Path

import pytest
from make_pinned import EXPECTED, KEPT, pinned_run


@pytest.fixture(scope="module")
def run_tables(tmp_path_factory):
    out = tmp_path_factory.mktemp("pinned") / "results"
    return out, pinned_run(out)


def test_every_table_of_the_pinned_run_is_byte_identical(run_tables):
    _, hashes = run_tables
    expected = json.loads((EXPECTED / "sha256.json").read_text())
    assert sorted(hashes) == sorted(expected), "the results folder holds other tables than before"
    changed = [name for name in expected if hashes[name] != expected[name]]
    assert not changed, f"tables changed: {changed}"


@pytest.mark.parametrize("name", sorted(KEPT))
def test_small_tables_read_the_same(run_tables, name):
    out, _ = run_tables
    assert (Path(out) / name).read_text() == (EXPECTED / name).read_text()
