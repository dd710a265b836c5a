"""User-facing text cites papers by author and year, never by the project's seed file names.

The seeds are the specification the package was built from (``shared/seeds/00N_*.txt``);
a reader of a docstring or a message has no such file, so "seed 001 §3" tells them
nothing while "Schröder, Schulz & Hammer 2024, §3" does.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "wefe_same"
SEED_REFERENCE = re.compile(r"seed 00", re.IGNORECASE)


def test_no_file_in_the_package_cites_a_seed_by_number():
    files = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert any(p.name == "__init__.py" for p in files)  # the walk found the package
    hits = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if SEED_REFERENCE.search(line)
    ]
    assert hits == [], "cite the paper (Author et al. YEAR, §x) instead of the seed:\n" + "\n".join(hits)
