"""Produce the pinned tables of a small run (``tests/pinned/expected``).

The house-as-stages restructuring must not change a number the tool prints: this script
ran on the code before the restructuring (commit 9bc6278) and its output is compared by
``test_pinned_outputs.py`` with every run of the suite. Run it again only for a change
that is meant to change a number, and say so in the commit.

    python tests/pinned/make_pinned.py          # rewrites tests/pinned/expected/
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected"
#: Static models (no torch), two bases with a debiased variant each, every metric, every
#: optional analysis that changes tables: subquery and word bootstraps, halves, shared words off.
MODELS = ["glove-6b-50d", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", "word2vec-gnews-weat+debias-religion"]
OPTIONS = dict(queries=["weat", "same"], seed=3, permutations=200, bootstrap=20, bootstrap_words=4,
               halves=3, cache=False, progress=False)
#: Tables kept whole in the repository (small, readable diffs); the others by sha256 only.
KEPT = {"rankings.csv", "aggregates.csv", "correlations.csv", "correlation_pvalues.csv"}


def pinned_run(out: Path) -> dict[str, str]:
    """Rank, write the results folder without figures, return {csv name: sha256}."""
    from wefe_same import rank

    result = rank(MODELS, **OPTIONS)
    folder = result.save(out, formats=())
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.csv"))}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        hashes = pinned_run(Path(tmp) / "results")
        if EXPECTED.exists():
            shutil.rmtree(EXPECTED)
        EXPECTED.mkdir()
        for name in KEPT:
            shutil.copy(Path(tmp) / "results" / name, EXPECTED / name)
    (EXPECTED / "sha256.json").write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    print(f"{len(hashes)} tables pinned in {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
