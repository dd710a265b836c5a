"""Produce the pinned tables of a small run (``tests/pinned/expected``).

The house-as-stages restructuring must not change a number the tool prints: this script
ran on the code before the restructuring (commit 9bc6278) and its output is compared by
``test_pinned_outputs.py`` with every run of the suite. Run it again only for a change
that is meant to change a number, and say so in the commit.

Every table is kept: the four small ones as plain CSV (readable diffs), the others as
gzipped CSV (``expected/tables/NAME.gz``, 0.2 MB in all). They are compared as values,
not bytes: the same code gave sums that differ in the last bits under another NumPy build
(the pins of numpy before 2.4.6 against numpy 2.4.6, OpenBLAS 0.3.31: at most 5.6e-15
relative, in aggregates.csv), so a byte hash failed on a fresh install while no number a
paper prints had changed.

    python tests/pinned/make_pinned.py          # rewrites tests/pinned/expected/
"""

from __future__ import annotations

import gzip
import shutil
import sys
import tempfile
from pathlib import Path

from wefe_same.options.groups import Bootstrap, Execution

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected"
#: Static models (no torch), two bases with a debiased variant each, every metric, every
#: optional analysis that changes tables: subquery and word bootstraps, halves, shared words off.
MODELS = ["glove-6b-50d", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", "word2vec-gnews-weat+debias-religion"]
#: The lipstick tests are off: their table is new (not a number the restructuring could
#: change) and tests/analysis/test_lipstick.py checks it against the authors' procedure.
OPTIONS = dict(queries=["weat", "same"], seed=3, permutations=200, bootstrap=Bootstrap(subqueries=20, words=4, halves=3),
               execution=Execution(cache=False, progress=False), lipstick=False)
#: Tables kept whole in the repository (small, readable diffs); the others by sha256 only.
KEPT = {"rankings.csv", "aggregates.csv", "correlations.csv", "correlation_pvalues.csv"}


def csv_bytes(path: Path) -> tuple[str, bytes]:
    """(CSV name, CSV bytes) of a table of the results folder in any of its formats.

    The lean folder holds ``details.csv.gz`` and ``lookups.csv.gz`` (the CSV bytes,
    gzipped) and ``word_bias.parquet`` (float64 values, written here as CSV at full
    precision).
    """
    import pandas as pd

    if path.name.endswith(".csv.gz"):
        return path.name[:-3], gzip.decompress(path.read_bytes())
    if path.suffix == ".parquet":
        text = pd.read_parquet(path).to_csv(index=False)
        return path.with_suffix(".csv").name, text.encode()
    return path.name, path.read_bytes()


def pinned_run(out: Path) -> dict[str, bytes]:
    """Rank, write the results folder without figures, return {csv name: CSV bytes}."""
    from wefe_same import rank

    result = rank(MODELS, **OPTIONS)
    folder = result.save(out, formats=())
    tables = {}
    for p in sorted([*folder.rglob("*.csv"), *folder.rglob("*.csv.gz"), *folder.rglob("*.parquet")]):
        name, data = csv_bytes(p)
        tables[p.parent.relative_to(folder).joinpath(name).as_posix()] = data
    return tables


def expected_tables() -> dict[str, bytes]:
    """{csv name: CSV bytes} of the pinned run, as :func:`main` wrote them."""
    kept = {name: (EXPECTED / name).read_bytes() for name in KEPT}
    packed = {p.relative_to(EXPECTED / "tables").as_posix()[:-3]: gzip.decompress(p.read_bytes())
              for p in (EXPECTED / "tables").rglob("*.gz")}
    return {**kept, **packed}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tables = pinned_run(Path(tmp) / "results")
    if EXPECTED.exists():
        shutil.rmtree(EXPECTED)
    for name, data in tables.items():
        path = EXPECTED / name if name in KEPT else EXPECTED / "tables" / f"{name}.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if name in KEPT else gzip.compress(data, mtime=0))
    print(f"{len(tables)} tables pinned in {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
