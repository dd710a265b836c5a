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
#: The lipstick tests are off: their table is new (not a number the restructuring could
#: change) and tests/analysis/test_lipstick.py checks it against the authors' procedure.
OPTIONS = dict(queries=["weat", "same"], seed=3, permutations=200, bootstrap=20, bootstrap_words=4,
               halves=3, cache=False, progress=False, lipstick=False)
#: Tables kept whole in the repository (small, readable diffs); the others by sha256 only.
KEPT = {"rankings.csv", "aggregates.csv", "correlations.csv", "correlation_pvalues.csv"}


def csv_bytes(path: Path) -> tuple[str, bytes]:
    """(CSV name, CSV bytes) of a table of the results folder in any of its formats.

    The lean folder holds ``details.csv.gz`` and ``lookups.csv.gz`` (the CSV bytes,
    gzipped) and ``word_bias.parquet`` (float64 values, written here as the CSV that
    ``full_tables=True`` writes): their hashes are the plain CSV's, so the lean format
    changed no number.
    """
    import gzip

    import pandas as pd

    if path.name.endswith(".csv.gz"):
        return path.name[:-3], gzip.decompress(path.read_bytes())
    if path.suffix == ".parquet":
        text = pd.read_parquet(path).to_csv(index=False, float_format="%.6g")
        return path.with_suffix(".csv").name, text.encode()
    return path.name, path.read_bytes()


def pinned_run(out: Path) -> dict[str, str]:
    """Rank, write the results folder without figures, return {csv name: sha256}."""
    from wefe_same import rank

    result = rank(MODELS, **OPTIONS)
    folder = result.save(out, formats=())
    hashes = {}
    for p in sorted([*folder.rglob("*.csv"), *folder.rglob("*.csv.gz"), *folder.rglob("*.parquet")]):
        name, data = csv_bytes(p)
        hashes[p.parent.relative_to(folder).joinpath(name).as_posix()] = hashlib.sha256(data).hexdigest()
    return hashes


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
