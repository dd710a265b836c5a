"""RNSB's share of a ``wefe-same rank`` run: its classifiers' training, timed by cProfile.

    python benchmarks/bench_rnsb.py [--code DIR] [-- EXTRA RANK ARGUMENTS]

Runs ``python -m wefe_same.cli rank --no-cache --metrics RNSB`` (default models and
queries unless the extra arguments say otherwise) under cProfile in a child process with
``PYTHONPATH`` set to ``--code`` (default: this checkout; pass an unpacked older commit,
e.g. ``git archive OLD | tar -x -C /tmp/old``, to compare), and prints the wall time of
the run and the cumulative seconds inside RNSB (``metrics/rnsb.py``: ``rnsb`` and the
batched ``prefit``).
"""

from __future__ import annotations

import argparse
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rnsb_seconds(profile: Path) -> float:
    """Cumulative seconds in RNSB's entry points (``rnsb``; ``prefit`` where it exists)."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    return sum(cumulative for (file, _line, name), (_cc, _calls, _tt, cumulative, _callers) in stats.items()
               if file.endswith(os.path.join("metrics", "rnsb.py")) and name in ("rnsb", "prefit"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, default=ROOT, help="checkout whose wefe_same runs (default: this one)")
    ap.add_argument("extra", nargs="*", help="after --: more wefe-same rank arguments")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        prof = Path(tmp) / "rank.prof"
        cmd = [sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "wefe_same.cli", "rank", "--no-cache",
               "--metrics", "RNSB", "--out", str(Path(tmp) / "out"), *args.extra]
        env = {**os.environ, "PYTHONPATH": str(args.code.resolve())}
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        seconds = rnsb_seconds(prof)
    print(f"code: {args.code.resolve()}")
    print(f"rank --no-cache --metrics RNSB {' '.join(args.extra)}".rstrip())
    print(f"  run wall (cProfile on): {wall:.2f} s; inside RNSB: {seconds:.2f} s")


if __name__ == "__main__":
    main()
