"""Every notebook in notebooks/ runs end to end, offline, with no error."""

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_the_three_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb", "02_wefe_case_study.ipynb", "03_cosine_scores_theory.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    import nbformat  # here, not at import: every xdist worker collects this module
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # Runs in a scratch folder so saved results never land in the checkout.
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")
