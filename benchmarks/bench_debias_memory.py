"""Peak memory and time of each debiasing variant on a 400,000 × 300 model (issue 18).

    python benchmarks/bench_debias_memory.py            # writes a random 400k × 300 word2vec binary first
    python benchmarks/bench_debias_memory.py --rows 50000 --dim 100   # smaller

The model is random (seeded): what is measured is the memory and time of reading it and
debiasing it, which do not depend on the values. It holds the words every method reads
(the gender query set, Bolukbasi et al.'s lists) at random places among random strings.
Each variant runs in a new process; peak = that process's ``ru_maxrss``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CHILD = r"""
import resource, sys, time
from wefe_same import load_model
from wefe_same.query.files import load_queries
words = sorted({w for q in load_queries(['gender']) for s in q.sets for w in s.words})
model = load_model(sys.argv[1])
t = time.perf_counter(); found = model.lookup(words); dt = time.perf_counter() - t
print(f"{dt:.1f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} {len(found)}")
"""
VARIANTS = ("", "+hard-debias", "+hsr-debias", "+double-hard-debias", "+ran-debias")


def write_model(path: Path, rows: int, dim: int, seed: int = 0) -> None:
    """A word2vec binary file: the words the methods need, then random strings."""
    from wefe_same.query.files import load_queries

    needed = sorted({w for name in ("gender", "bolukbasi") for q in load_queries([name]) for s in q.sets
                     for w in s.words})
    rng = np.random.default_rng(seed)
    filler = [f"w{i:07d}" for i in range(rows - len(needed))]
    vocab = needed + filler
    order = rng.permutation(len(vocab))  # the needed words at random frequencies
    with open(path, "wb") as f:
        f.write(f"{len(vocab)} {dim}\n".encode())
        for start in range(0, len(vocab), 50_000):
            block = rng.normal(size=(min(50_000, len(vocab) - start), dim)).astype("<f4")
            for i, vec in zip(order[start:start + len(block)], block):
                f.write(vocab[i].encode() + b" " + vec.tobytes())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--dim", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.bin"
        write_model(path, args.rows, args.dim)
        print(f"model: random word2vec binary, {args.rows:,} x {args.dim} ({path.stat().st_size / 2**20:.0f} MiB)")
        print("| variant | lookup + debias (s) | peak RSS (MB) | words found |\n|---|---:|---:|---:|")
        for variant in VARIANTS:
            out = subprocess.run([sys.executable, "-c", CHILD, f"word2vec:{path}{variant}"], capture_output=True,
                                 text=True, check=False)
            if out.returncode != 0:
                print(f"| base{variant} | failed: {out.stderr.strip().splitlines()[-1]} | | |")
                continue
            seconds, peak, found = out.stdout.split()
            print(f"| base{variant} | {seconds} | {peak} | {found} |", flush=True)


if __name__ == "__main__":
    main()
