"""Time WEAT's permutation p-value: wefe 0.4.1 (the peer) vs wefe_same, on the same query.

    python benchmarks/bench_weat_permutations.py [--peer-iterations 200] [--permutations 10000]

Query: WEAT 1 (flowers vs insects x pleasant vs unpleasant, 25 + 25 target words) on the
word2vec GoogleNews WEAT subset bundled with wefe (``word2vec-gnews-weat`` in wefe_same).
Both libraries get the same unit-length float64 vectors of the words the model has.

* wefe: ``WEAT().run_query(..., calculate_p_value=True, p_value_iterations=K)`` minus the
  same call with ``calculate_p_value=False`` (median of a few runs), divided by K.
* wefe_same: ``association`` for X and Y, then ``weat_permutation_test`` with N sampled
  splits (C(50, 25) > exact_limit), repeated ``--repeats`` times; median, divided by N.
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import time

import numpy as np

from wefe_same import load_queries
from wefe_same.metrics._permutation import weat_permutation_test
from wefe_same.metrics.weat import association
from wefe_same.models import resolve_model

MODEL = "word2vec-gnews-weat"


def import_wefe():
    """Import wefe 0.4.1 under numpy 2.

    wefe 0.4.1 predates numpy 2: wefe/metrics/RNSB.py annotates with ``np.float_``, an
    alias numpy 2 removed, so the import fails. The shim only restores that alias (to
    ``np.float64``) during the import; wefe does not use it at run time.
    """
    had_alias = "float_" in np.__dict__
    if not had_alias:
        np.float_ = np.float64
    try:
        from wefe.metrics import WEAT
        from wefe.query import Query
        from wefe.word_embedding_model import WordEmbeddingModel
    finally:
        if not had_alias:
            del np.float_
    return WEAT, Query, WordEmbeddingModel


def weat1_sets():
    (qs,) = load_queries("weat")
    for q in qs.queries:
        if [s.name for s in q.targets] == ["flowers", "insects"]:
            return q
    raise SystemExit("WEAT 1 (flowers/insects) not found in wefe_same's weat query set")


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-iterations", type=int, default=200,
                    help="wefe p_value_iterations (slow: tens of ms each)")
    ap.add_argument("--permutations", type=int, default=10_000, help="wefe_same sampled splits")
    ap.add_argument("--repeats", type=int, default=20, help="wefe_same repetitions (median)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    WEAT, Query, WordEmbeddingModel = import_wefe()
    import wefe
    from gensim.models import KeyedVectors

    q = weat1_sets()
    sets = [*q.targets, *q.attributes]
    raw = resolve_model(MODEL).lookup(sorted({w for s in sets for w in s.words}))
    unit = {w: (v := np.asarray(raw[w], dtype=np.float64)) / np.linalg.norm(v) for w in raw}
    words = [[w for w in s.words if w in unit] for s in sets]
    print(f"WEAT 1 on {MODEL}: " + ", ".join(
        f"{s.name} {len(ws)}/{len(s.words)}" for s, ws in zip(sets, words)) + " words found")

    kv = KeyedVectors(vector_size=len(next(iter(unit.values()))), count=0, dtype=np.float64)
    kv.add_vectors(list(unit), np.array(list(unit.values())))
    model = WordEmbeddingModel(kv, "w2v-unit")
    query = Query(target_sets=words[:2], attribute_sets=words[2:],
                  target_sets_names=[s.name for s in sets[:2]],
                  attribute_sets_names=[s.name for s in sets[2:]])
    X, Y, A, B = (np.array([unit[w] for w in ws]) for ws in words)

    # ---- peer: wefe
    K = args.peer_iterations
    metric = WEAT()
    base, _ = median_time(lambda: metric.run_query(query, model, lost_vocabulary_threshold=0.0), 5)
    np.random.seed(args.seed)  # wefe draws from numpy's global RNG; it takes no seed itself
    t0 = time.perf_counter()
    peer = metric.run_query(query, model, calculate_p_value=True, p_value_iterations=K,
                            lost_vocabulary_threshold=0.0)
    peer_total = time.perf_counter() - t0
    peer_per = (peer_total - base) / K

    # ---- wefe_same
    N = args.permutations
    n_x = len(X)

    def ours_once(seed):
        s = np.concatenate([association(X, A, B), association(Y, A, B)])
        return weat_permutation_test(s, n_x, permutations=N, alternative="greater",
                                     exact_limit=100_000, random_state=seed)

    ours_once(args.seed)  # warm-up
    seeds = iter(range(args.seed, args.seed + args.repeats))
    ours_total, _ = median_time(lambda: ours_once(next(seeds)), args.repeats)
    ours = ours_once(args.seed)
    ours_per = ours_total / N

    print(f"wefe {wefe.__version__}: run_query with p-value ({K} iterations) {peer_total:.3f} s, "
          f"without {base * 1e3:.2f} ms -> {peer_per * 1e6:,.0f} us per permutation "
          f"(~{peer_per * N:,.0f} s for {N:,})")
    print(f"wefe_same: association + weat_permutation_test ({N:,} splits, {ours.method}), "
          f"median of {args.repeats}: {ours_total * 1e3:.2f} ms -> {ours_per * 1e6:.3f} us per permutation")
    print(f"ratio peer/ours per permutation: {peer_per / ours_per:,.0f}x")
    print(f"statistic: wefe {peer['weat']:.6f}, wefe_same "
          f"{float(np.sum(association(X, A, B)) - np.sum(association(Y, A, B))):.6f}")
    print(f"p-value: wefe {peer['p_value']:.6g} ({K} iterations, right-sided), "
          f"wefe_same {ours.p_value:.6g} ({ours.n_splits:,} splits, greater, seed {args.seed})")

    # Describe wefe's sampling from its own source rather than from memory.
    src = "".join(inspect.getsource(type(metric)._calc_p_value).split())  # whitespace-free
    if ("np.random.choice(pool_target_words,size=number_of_target_words)" in src
            and "(count_pass_function+1)/(runs+1)" in src):
        print("note: wefe 0.4.1 draws each 'permutation' as np.random.choice(pool, size=n): WITH "
              "replacement (words repeat, others drop out), from numpy's global RNG with no seed "
              "parameter (seeded above only for this run); it skips repeated ordered tuples, counts "
              "statistics strictly greater and returns (count + 1) / (iterations + 1). wefe_same "
              "samples true splits (without replacement) from a seeded Generator.")
    else:
        print("note: wefe's _calc_p_value differs from the 0.4.1 source this script describes; "
              "read wefe/metrics/WEAT.py")


if __name__ == "__main__":
    main()
