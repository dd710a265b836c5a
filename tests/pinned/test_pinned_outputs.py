"""Every table of a small run equals the tables the code wrote before the restructuring.

``make_pinned.py`` (beside this file) produced ``expected/``; a difference names the table
and its first differing cells. Values are compared, not bytes: text cells exactly, numbers
to 1e-12 relative (a NumPy build sums in another order: 5.6e-15 measured, see
``make_pinned.py``), so a changed number fails while a changed last bit does not.
"""

import io

import numpy as np
import pandas as pd
import pytest
from make_pinned import expected_tables, pinned_run

EXPECTED = expected_tables()
#: Relative tolerance of a number (a last-bit change is ~1e-15; a formula change is far larger).
RTOL = 1e-12


@pytest.fixture(scope="module")
def run_tables(tmp_path_factory):
    return pinned_run(tmp_path_factory.mktemp("pinned") / "results")


def test_the_pinned_run_writes_the_same_tables(run_tables):
    assert sorted(run_tables) == sorted(EXPECTED), "the results folder holds other tables than before"


def _frame(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""], dtype=str)


def differing_cells(got: pd.DataFrame, want: pd.DataFrame, rtol: float = RTOL) -> list[str]:
    """'row, column: got vs want' for each cell that differs: as numbers beyond ``rtol``
    where both parse as numbers, else as text.

    >>> a = pd.DataFrame({"m": ["x"], "v": ["1.0000000000000002"]})
    >>> differing_cells(a, pd.DataFrame({"m": ["x"], "v": ["1.0"]}))
    []
    >>> differing_cells(a, pd.DataFrame({"m": ["y"], "v": ["1.001"]}))
    ['0, m: x vs y', '0, v: 1.0000000000000002 vs 1.001']
    """
    if list(got.columns) != list(want.columns) or got.shape != want.shape:
        return [f"shape or columns: {got.shape} {list(got.columns)} vs {want.shape} {list(want.columns)}"]
    out = []
    for column in want.columns:
        a, b = got[column], want[column]
        x, y = pd.to_numeric(a, errors="coerce"), pd.to_numeric(b, errors="coerce")
        numeric = x.notna() & y.notna()
        close = np.isclose(x.where(numeric, 0.0), y.where(numeric, 0.0), rtol=rtol, atol=0.0, equal_nan=True)
        same = np.where(numeric, close, a.fillna("") == b.fillna(""))
        out += [f"{i}, {column}: {a.iloc[i]} vs {b.iloc[i]}" for i in np.flatnonzero(~same)]
    return out


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_table_reads_the_same(run_tables, name):
    changed = differing_cells(_frame(run_tables[name]), _frame(EXPECTED[name]))
    assert not changed, f"{name}: {len(changed)} cells changed, first: {changed[:5]}"
