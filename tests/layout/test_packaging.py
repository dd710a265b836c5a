"""Every subpackage of wefe_same is in pyproject's package list, so a (non-editable) wheel
install holds all of it: a new subpackage missing there imports from a checkout and fails
only after `pip install .`."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "wefe_same").rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"wefe_same.bundled_queries"}  # the queries/ folder, mapped by package-dir
