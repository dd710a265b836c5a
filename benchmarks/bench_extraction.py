"""Read a run's vocabulary out of a large embedding file: gensim 4 (the peer) vs wefe_same.

    python benchmarks/bench_extraction.py [--rows 400000] [--dim 300] [--repeats 1]
                                          [--formats text,binary,text.gz,binary.gz] [--quick]

Files: a random model of ``--rows`` words ``w0 … w{rows-1}`` plus every word of the
default run's queries (gender, ethnicity, religion) at random places, ``--dim`` numbers
each, written to a temporary folder as word2vec text (``%.5f``: 2.7 kB a line, like
GloVe 300d), word2vec binary (gensim's layout), and both gzip-compressed (level 1, to
keep writing short); the folder is deleted at the end (``--keep`` keeps it). Binary and
text hold the same float32 values.

Each side runs in a fresh ``python`` process per file, one after the other:

* gensim: ``KeyedVectors.load_word2vec_format(path, binary=...)`` (the whole matrix,
  float32), then the query words picked from it;
* wefe_same: ``build_table(resolve_model("word2vec:PATH"), words)``: one streamed pass
  that keeps only the run's words (each tried as given, lower-cased and title-cased,
  so the lower-case query words send it to the end of the file: no early stop).

Printed per file and side: the load call's time, the process's wall time (interpreter
and imports included) and its peak RSS (``ru_maxrss`` of that child), then the ratios
and a check that both sides found the same words with the same vectors. The RSS of a
process that only imports each side is printed as the baseline.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import fmt_times, header, run_child

FORMATS = ("text", "binary", "text.gz", "binary.gz")
DEFAULT_QUERIES = ("gender", "ethnicity", "religion")
#: Rows formatted or packed at a time while writing.
CHUNK = 20_000

GENSIM = r"""
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from gensim.models import KeyedVectors
t1 = time.perf_counter()
path, binary, words_file = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
words = json.load(open(words_file)) if words_file != "-" else []
if path != "-":
    kv = KeyedVectors.load_word2vec_format(path, binary=binary)
    found = sorted(w for w in words if w in kv.key_to_index)
    total = np.sum([kv[w] for w in found], axis=0, dtype=np.float64) if found else np.zeros(1)
else:
    kv, found, total = None, [], np.zeros(1)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "found": found, "sum": total.tolist(),
                  "shape": list(kv.vectors.shape) if kv is not None else None}))
"""

OURS = r"""
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from wefe_same.models.catalog import resolve_model
from wefe_same.scoring.vectors import build_table
t1 = time.perf_counter()
path, words_file = sys.argv[1], sys.argv[3]
words = json.load(open(words_file)) if words_file != "-" else []
if path != "-":
    table = build_table(resolve_model("word2vec:" + path), words)
    found = sorted(table.words)
    total = table.raw_vectors(found).sum(axis=0) if found else np.zeros(1)
    asked = len(table.lookups)
else:
    found, total, asked = [], np.zeros(1), 0
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "found": found, "sum": total.tolist(), "asked": asked}))
"""


def run_words(queries: list[str]) -> list[str]:
    from wefe_same.query.files import load_queries

    return sorted(set().union(*(qs.words for qs in load_queries(queries))))


def write_models(folder: Path, formats: list[str], rows: int, dim: int, real: list[str],
                 seed: int) -> dict[str, Path]:
    """Write the random model in every asked format in one pass; return the paths.

    Values come from a pool of 65 536 float32 numbers printed once with ``%.5f`` and
    parsed back, so the text and binary files hold the same float32 vectors.
    """
    rng = np.random.default_rng(seed)
    pool_text = np.array([f"{x:.5f}" for x in rng.normal(0.0, 0.3, 1 << 16)], dtype=object)
    pool_f32 = np.array([float(s) for s in pool_text], dtype="<f4")
    words = [f"w{i}" for i in range(rows)]
    for pos, w in zip(sorted(rng.choice(rows + len(real), len(real), replace=False)), rng.permutation(real)):
        words.insert(int(pos), str(w))  # positions sorted ascending: each insert keeps the earlier ones
    n = len(words)
    paths = {f: folder / ("model.txt" if f.startswith("text") else "model.bin") for f in formats}
    paths = {f: (p.with_name(p.name + ".gz") if f.endswith(".gz") else p) for f, p in paths.items()}
    handles = {f: (gzip.open(p, "wb", compresslevel=1) if f.endswith(".gz") else open(p, "wb"))
               for f, p in paths.items()}
    try:
        head = f"{n} {dim}\n".encode()
        for fh in handles.values():
            fh.write(head)
        for start in range(0, n, CHUNK):
            idx = rng.integers(0, len(pool_text), (min(CHUNK, n - start), dim))
            chunk_words = words[start:start + len(idx)]
            if any(f.startswith("text") for f in formats):
                text = "".join(w + " " + " ".join(row) + "\n" for w, row in zip(chunk_words, pool_text[idx].tolist()))
                data = text.encode()
                for f in formats:
                    if f.startswith("text"):
                        handles[f].write(data)
            if any(f.startswith("binary") for f in formats):
                vecs = pool_f32[idx]
                data = b"".join(w.encode() + b" " + vecs[i].tobytes() for i, w in enumerate(chunk_words))
                for f in formats:
                    if f.startswith("binary"):
                        handles[f].write(data)
    finally:
        for fh in handles.values():
            fh.close()
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=400_000, help="random words w0 … (the query words are added)")
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--formats", default=",".join(FORMATS), help="comma-separated: " + ", ".join(FORMATS))
    ap.add_argument("--repeats", type=int, default=1, help="fresh processes per side and file (median)")
    ap.add_argument("--queries", default=",".join(DEFAULT_QUERIES), help="query sets whose words are read")
    ap.add_argument("--tmp", default=None, help="parent folder of the temporary files (default: the system's)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="smoke size: 20 000 x 50, text and binary.gz")
    args = ap.parse_args()
    if args.quick:
        args.rows, args.dim, args.formats = 20_000, 50, "text,binary.gz"
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if bad := [f for f in formats if f not in FORMATS]:
        raise SystemExit(f"--formats: unknown {', '.join(bad)}; choose from {', '.join(FORMATS)}")

    header(f"Extraction of a run's vocabulary: gensim load_word2vec_format vs wefe_same build_table "
           f"({args.rows:,} x {args.dim})")
    real = run_words(args.queries.split(","))
    folder = Path(tempfile.mkdtemp(prefix="wefe-same-bench-", dir=args.tmp))
    try:
        t0 = time.perf_counter()
        paths = write_models(folder, formats, args.rows, args.dim, real, args.seed)
        words_file = folder / "words.json"
        words_file.write_text(json.dumps(real))
        print(f"wrote {len(formats)} files of {args.rows + len(real):,} words x {args.dim} "
              f"({len(real)} query words placed at random) in {time.perf_counter() - t0:.1f} s: "
              + ", ".join(f"{f} {p.stat().st_size / 2**20:,.0f} MiB" for f, p in paths.items()))

        base_g = run_child(GENSIM, "-", "0", "-")
        base_o = run_child(OURS, "-", "0", "-")
        print(f"baseline (import only): gensim {base_g.peak_mib:,.0f} MiB, {base_g['import']:.2f} s import; "
              f"wefe_same {base_o.peak_mib:,.0f} MiB, {base_o['import']:.2f} s import\n")

        rows = []
        for fmt in formats:
            path = str(paths[fmt])
            binary = "1" if fmt.startswith("binary") else "0"
            g_runs, o_runs = [], []
            for _ in range(args.repeats):  # interleaved, so a burst of load hits both sides
                g_runs.append(run_child(GENSIM, path, binary, str(words_file)))
                o_runs.append(run_child(OURS, path, binary, str(words_file)))
            g, o = g_runs[-1], o_runs[-1]
            g_load = statistics.median(r["load"] for r in g_runs)
            o_load = statistics.median(r["load"] for r in o_runs)
            g_wall = statistics.median(r.wall for r in g_runs)
            o_wall = statistics.median(r.wall for r in o_runs)
            g_rss = max(r.peak_mib for r in g_runs)
            o_rss = max(r.peak_mib for r in o_runs)
            same_words = g["found"] == o["found"]
            diff = float(np.max(np.abs(np.array(g["sum"]) - np.array(o["sum"])))) if same_words else float("nan")
            print(f"{fmt:10s} gensim    load {g_load:7.2f} s  process {g_wall:7.2f} s  peak RSS {g_rss:8,.0f} MiB"
                  + (f"  (loads: {fmt_times([r['load'] for r in g_runs])})" if args.repeats > 1 else ""))
            print(f"{'':10s} wefe_same load {o_load:7.2f} s  process {o_wall:7.2f} s  peak RSS {o_rss:8,.0f} MiB"
                  + (f"  (loads: {fmt_times([r['load'] for r in o_runs])})" if args.repeats > 1 else ""))
            print(f"{'':10s} ratio gensim/wefe_same: load {g_load / o_load:.1f}x, process {g_wall / o_wall:.1f}x, "
                  f"peak RSS {g_rss / o_rss:.1f}x; same words found: {'yes' if same_words else 'NO'} "
                  f"({len(o['found'])}/{len(real)}), "
                  f"max |difference| of the summed vectors {diff:.2g}", flush=True)
            rows.append((fmt, g_load, o_load, g_wall, o_wall, g_rss, o_rss, same_words))

        print("\n| file | gensim load (s) | wefe_same (s) | ratio | gensim peak RSS (MiB) | wefe_same (MiB) "
              "| same words |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for fmt, gl, ol, _gw, _ow, gr, orss, same in rows:
            print(f"| {fmt} {paths[fmt].stat().st_size / 2**20:,.0f} MiB | {gl:.2f} | {ol:.2f} | {gl / ol:.1f}x | "
                  f"{gr:,.0f} | {orss:,.0f} | {'yes' if same else 'NO'} |")
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
