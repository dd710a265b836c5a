"""What one matrix product per attribute set would save, and how far it would move floats.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_one_product.py [--dim 768]

On a seeded random table over the default run's words (as ``bench_score_table.py --dims``),
the two sentiment lexicons against the unit means of the 9 target sets they meet in the
default run: each set's cosines with the means by one matrix-vector product per mean (what
ECT, SAME and Direct Bias do, one call per subquery) against one matrix product per set,
and RND's distances by ``distances_to`` (``safe_norm``'s bits) against
``sqrt(‖a‖² + ‖m‖² − 2 a·m)`` from that product. Prints the best of 5 CPU times and the
largest absolute difference of the values (the products, the distances, and RND's value
Σ (d1 − d2) over each lexicon for every pair of means). Nothing here is used by the
library: it sizes a change that would move the pinned tables' last bits.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np


def best(f, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return min(times) * 1e3


def by_product(A: np.ndarray, points: np.ndarray) -> np.ndarray:
    """‖a − p‖ for every point and row, from one product: sqrt(‖a‖² + ‖p‖² − 2 a·p)."""
    squares = np.einsum("ij,ij->i", A, A)[None] + np.einsum("ij,ij->i", points, points)[:, None]
    return np.sqrt(np.maximum(squares - 2 * (points @ A.T), 0))


def main() -> int:
    from wefe_same.metrics._norms import distances_to
    from wefe_same.run.config import RankConfig
    from wefe_same.run.plan import make_plan

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=768)
    args = parser.parse_args()
    plan = make_plan(RankConfig())
    words = sorted(plan.words)
    row = {w: i for i, w in enumerate(words)}
    raw = np.random.default_rng(1).standard_normal((len(words), args.dim))
    unit = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    lexicons, targets = {}, {}
    for _, subs in plan.subqueries:
        for sub in subs:
            big = [s for s in sub.query.attributes if len(s) > 1000]
            for s in big:
                lexicons[s.name] = unit[[row[w] for w in s.words if w in row]]
                for t in sub.query.targets:
                    targets[t.name] = unit[[row[w] for w in t.words if w in row]]
    means = np.array([T.mean(axis=0) for T in targets.values()])
    units = means / np.linalg.norm(means, axis=1, keepdims=True)
    print(f"{args.dim} d: lexicons {[len(A) for A in lexicons.values()]}, {len(targets)} target means")
    for name, A in lexicons.items():
        gemv = best(lambda A=A: [A @ u for u in units])
        gemm = best(lambda A=A: A @ units.T)
        cos_moved = np.abs(np.stack([A @ u for u in units], axis=1) - A @ units.T).max()
        dist = distances_to(A, means)
        exact = best(lambda A=A: distances_to(A, means))
        cheap = best(lambda A=A: by_product(A, means))
        moved = by_product(A, means)
        rnd_moved = max(abs((dist[i] - dist[j]).sum() - (moved[i] - moved[j]).sum())
                        for i, j in itertools.combinations(range(len(means)), 2))
        print(f"  {name} ({len(A)} words): cosines {gemv:.1f} ms by {len(units)} products, {gemm:.1f} ms by one "
              f"(moved up to {cos_moved:.2g}); distances {exact:.1f} ms exact, {cheap:.1f} ms from one product "
              f"(moved up to {np.abs(dist - moved).max():.2g}; RND values up to {rnd_moved:.2g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
