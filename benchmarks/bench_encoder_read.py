"""The encoder worker's cost per model: read N tiny Hugging Face encoders in one process.

    python benchmarks/bench_encoder_read.py [--models 8] [--code OTHER_CHECKOUT ...] [--threads 1]

Builds the zoo of ``bench_zoo.py`` (tiny random BERTs sharing one tokenizer, every default
query word one token) and, in a fresh process per checkout (this one, then each
``--code``), reads every model for the default run's words as the encoders' worker does
(:func:`wefe_same.scoring.vectors.read_spec`, one BLAS thread, ``--no-cache``): model and
tokenizer set-up, tokenization, the forward passes, pooling and the lookup table. It
prints the first model's time (imports and first set-up included) and the mean wall and
CPU time of the others: the worker's marginal time per model. ``--threads`` sets torch's
intra-op threads (default: torch's own choice), as a busy shared machine may want.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, header

CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
from threadpoolctl import threadpool_limits
from wefe_same.models.specs import LoadOptions
from wefe_same.query.files import load_queries
from wefe_same.options.choices import DEFAULT_QUERIES
from wefe_same.scoring.vectors import read_spec
threads, *specs = sys.argv[1:]
if int(threads):
    import torch
    torch.set_num_threads(int(threads))
words = sorted({w for qs in load_queries(list(DEFAULT_QUERIES)) for w in qs.words})
rows = []
with threadpool_limits(limits=1, user_api="blas"):
    for spec in specs:
        wall, cpu = time.perf_counter(), time.process_time()
        table, _, _ = read_spec(spec, LoadOptions(cache=False), words)
        rows.append((time.perf_counter() - wall, time.process_time() - cpu, len(table.words)))
print(json.dumps(rows))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=8)
    ap.add_argument("--code", type=Path, action="append", default=[],
                    help="also read with the package in this folder (an earlier commit's checkout)")
    ap.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    args = ap.parse_args()
    header(f"The encoder worker: {args.models} tiny encoders read in one process")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_zoo import build_zoo

    work = Path(tempfile.mkdtemp(prefix="wefe-same-bench-read-"))
    try:
        zoo = build_zoo(work / "zoo", args.models)
        print("| code | first model (s) | wall per further model (s) | CPU per further model (s) |")
        print("|---|---:|---:|---:|")
        for code in [ROOT, *args.code]:
            env = {**os.environ, "PYTHONPATH": str(code.resolve())}
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.threads), *(f"hf:{p}" for p in zoo)],
                                 env=env, cwd=work, capture_output=True, text=True, check=True)
            rows = json.loads(out.stdout.strip().splitlines()[-1])
            rest = rows[1:]
            wall = sum(r[0] for r in rest) / len(rest)
            cpu = sum(r[1] for r in rest) / len(rest)
            print(f"| {code.resolve()} | {rows[0][0]:.2f} | {wall:.3f} | {cpu:.3f} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
