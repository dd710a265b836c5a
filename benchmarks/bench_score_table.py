"""Scoring one model's table: seconds of ``score_table`` per model on the default run's plan.

    python benchmarks/bench_score_table.py [--repeat 3] [--profile] [--zoo FOLDER [--models 8]] [--metrics]
    python benchmarks/bench_score_table.py --dims 50,300,768 [--models 3] [--profile]

Builds the default run's plan (default queries, all twelve metrics, 10 000 WEAT
permutations), reads GloVe 6B 50d, the WEAT subset of word2vec GoogleNews (300d) and a
seeded random 384-d table over the run's words, and times
:func:`wefe_same.scoring.model.score_table` on each (RNSB's classifier cache emptied
before every call, so each call trains its classifiers as a run's first model does).
No model file is read inside the timing. It prints the median seconds per model, and a
sha256 of each model's details and word-level tables (every value written as ``repr``):
run it on two commits and the digests say whether any score changed. The median CPU
seconds (all threads) beside the wall time are less sensitive to a busy machine; with
``OPENBLAS_NUM_THREADS=1`` they are the work itself.

``--zoo FOLDER`` times the tiny random encoders of ``bench_zoo.py --keep FOLDER``
(``FOLDER/zoo/zoo-00`` …, the first ``--models``) instead: their tables are encoded
before any timing, the first model warms the caches a run keeps across models (the
permutation splits, RNSB's subsample masks), and the others are timed once each, as the
models of one zoo run are. ``--metrics`` adds the CPU milliseconds per model of each
metric's own calls (and RNSB's ``prefit``); the rest of ``score_table`` is the scoring
around them.

``--dims 50,300,768`` times seeded random tables over the run's words at each width
(``--models`` of them per width, model i drawn with seed i; the first warms the caches a
run keeps across models, the others are timed), with the CPU milliseconds per model of
each metric's own calls; ``--profile`` adds a cProfile of the last model of the widest.
``--dump FOLDER`` writes each timed model's values (metric, subquery, value) there as
CSV; ``--against FOLDER`` (a dump of another commit) prints, per metric and width, the
largest absolute and relative difference of the values: how far a change moved floats.

Measured against the parent of the speed-up (3b393c3), on the same machine and the same
minute: see benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from _common import fmt_times, header, median_time


def digest(scores) -> str:
    """sha256 over the details and word-level tables, floats at full precision."""
    h = hashlib.sha256()
    for frame in (scores.details, scores.word_bias):
        h.update(frame.to_csv(index=False, float_format="%r").encode())
        h.update(repr(list(frame.dtypes.astype(str))).encode())
    return h.hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one call per model (top 25 by own time)")
    parser.add_argument("--zoo", type=Path, default=None,
                        help="time the encoders of bench_zoo.py --keep FOLDER instead (FOLDER/zoo/zoo-*)")
    parser.add_argument("--models", type=int, default=8, help="with --zoo: how many of its encoders")
    parser.add_argument("--metrics", action="store_true", help="CPU ms per model of each metric's own calls")
    parser.add_argument("--dims", default=None, help="random tables of these widths instead (e.g. 50,300,768)")
    parser.add_argument("--dump", type=Path, default=None, help="with --dims: write each model's values here")
    parser.add_argument("--against", type=Path, default=None,
                        help="with --dims: compare the values with this --dump of another commit")
    args = parser.parse_args()
    header("score_table per model, default run's plan")
    if args.zoo is not None:
        return zoo(args)
    if args.dims is not None:
        return dims(args)

    from wefe_same.models.catalog import resolve_model
    from wefe_same.models.sources import ArraySource
    from wefe_same.run.config import RankConfig
    from wefe_same.run.plan import make_plan
    from wefe_same.scoring.model import score_table
    from wefe_same.scoring.vectors import build_table

    plan = make_plan(RankConfig())
    words = sorted(plan.words)
    print(f"plan: {sum(len(s) for _, s in plan.subqueries)} subqueries over {len(plan.specs)} metrics, "
          f"{len(words)} words")
    rng = np.random.default_rng(0)
    sources = [resolve_model("glove-6b-50d"), resolve_model("word2vec-gnews-weat"),
               ArraySource("random-384d", words, rng.standard_normal((len(words), 384)))]
    for source in sources:
        table = build_table(source, words)

        cpu: list[float] = []

        def once(table=table, cpu=cpu):
            forget_module_caches()
            start = time.process_time()
            out = score_table(table, plan)
            cpu.append(time.process_time() - start)
            return out

        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(once)
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        median, times, scores = median_time(once, args.repeat)
        print(f"{table.model:22s} {len(table.words):5d} words  d={table.dim:3d}  score_table {median:.3f} s "
              f"(runs: {fmt_times(times)}; CPU {statistics.median(cpu):.3f} s)  digest {digest(scores)}", flush=True)
    return 0


def forget_module_caches() -> None:
    """Empty an older checkout's module-level RNSB cache; this checkout has none (each
    ``score_table`` call without a context makes a memo of its own)."""
    from wefe_same.metrics import rnsb

    if hasattr(rnsb, "_CLASSIFIERS"):
        rnsb._CLASSIFIERS.clear()


def metric_timers() -> dict[str, float]:
    """Wrap every metric's ``call`` (and ``prefit``, ``memo_call``, ``declare_memo``) to add
    its CPU seconds to the returned dict (a spec without the fields: an older commit's)."""
    from wefe_same.metrics.registry import METRICS

    spent: dict[str, float] = defaultdict(float)

    def timed(name, f):
        def run(*a, **k):
            start = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[name] += time.process_time() - start
        return run

    for spec in METRICS.values():  # frozen dataclasses: set through object.__setattr__
        object.__setattr__(spec, "call", timed(spec.name, spec.call))
        if spec.prefit is not None:
            object.__setattr__(spec, "prefit", timed(spec.name + " prefit", spec.prefit))
        for field in ("blocks_call", "declare_blocks", "memo_call", "declare_memo"):  # older checkouts: the first two
            if getattr(spec, field, None) is not None:
                object.__setattr__(spec, field, timed(spec.name, getattr(spec, field)))
    return spent


def compare_values(values, dump: Path | None, against: Path | None) -> None:
    """Write ``values`` (model → details frame) to ``dump``; print the largest absolute and
    relative difference per metric against the frames of ``against``."""
    import pandas as pd

    rows = []
    for model, details in values.items():
        frame = details[["metric", "subquery", "value"]]
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            frame.to_csv(dump / f"{model}.csv", index=False, float_format="%.17g")
        if against is not None and (against / f"{model}.csv").exists():
            other = pd.read_csv(against / f"{model}.csv")
            both = frame.merge(other, on=["metric", "subquery"], suffixes=("", "_other"))
            both["abs"] = (both["value"] - both["value_other"]).abs()
            both["rel"] = both["abs"] / both["value_other"].abs().where(both["value_other"] != 0)
            rows.append(both)
    if rows:
        table = pd.concat(rows).groupby("metric")[["abs", "rel"]].max()
        print("largest difference per metric against " + str(against) + ":")
        for metric, (absolute, relative) in table.iterrows():
            print(f"  {metric:18s} abs {absolute:.3g}  rel {relative:.3g}")


def timed_models(tables, plan, spent, profile: bool = False, dump: Path | None = None,
                 against: Path | None = None) -> None:
    """Score the first table (warming the run's caches), then time the others; print the
    median per model, each metric's CPU ms per model and the digests."""
    from wefe_same.scoring.model import score_table

    try:  # one context for the run's models, as score_models makes (older checkouts kept it in globals)
        from wefe_same.scoring.context import ScoringContext
    except ImportError:
        run = {}
    else:
        run = {"context": ScoringContext(plan)}
    score_table(tables[0], plan, **run)
    spent.clear()
    cpu, wall, digests, values = [], [], [], {}
    for table in tables[1:]:
        start, start_cpu = time.perf_counter(), time.process_time()
        scores = score_table(table, plan, **run)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
        digests.append(digest(scores))
        values[table.model] = scores.details
    n = len(cpu)
    print(f"score_table per model: median {statistics.median(wall):.3f} s wall, "
          f"{statistics.median(cpu):.3f} s CPU (models: {fmt_times(cpu)} CPU)")
    if spent:
        print("CPU ms per model in each metric's own calls:")
        for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
            print(f"  {name:18s} {1000 * seconds / n:7.1f}")
        print(f"  {'all metrics':18s} {1000 * sum(spent.values()) / n:7.1f}")
    print("digests: " + " ".join(digests), flush=True)
    compare_values(values, dump, against)
    if profile:  # the last model once more, untimed, with a memo of its own: its classifiers trained again
        forget_module_caches()
        prof = cProfile.Profile()
        prof.runcall(score_table, tables[-1], plan, **({"context": type(run["context"])(plan)} if run else {}))
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def dims(args) -> int:
    from wefe_same.models.sources import ArraySource
    from wefe_same.run.config import RankConfig
    from wefe_same.run.plan import make_plan
    from wefe_same.scoring.vectors import build_table

    plan = make_plan(RankConfig())
    words = sorted(plan.words)
    spent = metric_timers()
    widths = [int(d) for d in args.dims.split(",")]
    for dim in widths:
        tables = [build_table(ArraySource(f"random-{dim}d-{i}", words,
                                          np.random.default_rng(i).standard_normal((len(words), dim))), words)
                  for i in range(max(2, args.models))]
        print(f"\n{dim} dimensions: {len(tables)} random tables of {len(words)} words; "
              "the first warms the run's caches, the others are timed", flush=True)
        timed_models(tables, plan, spent, profile=args.profile and dim == widths[-1], dump=args.dump,
                     against=args.against)
    return 0


def zoo(args) -> int:
    from wefe_same.models.catalog import resolve_model
    from wefe_same.run.config import RankConfig
    from wefe_same.run.plan import make_plan
    from wefe_same.scoring.vectors import build_table

    paths = sorted((args.zoo / "zoo").glob("zoo-*"))[:args.models]
    if len(paths) < 2:
        raise SystemExit(f"--zoo {args.zoo}: fewer than 2 encoders in {args.zoo / 'zoo'} (run bench_zoo.py --keep)")
    plan = make_plan(RankConfig())
    words = sorted(plan.words)
    tables = [build_table(resolve_model(f"hf:{p}"), words) for p in paths]
    print(f"{len(tables)} encoders of {args.zoo / 'zoo'} (d = {', '.join(str(t.dim) for t in tables)}), "
          f"{len(words)} words; the first warms the run's caches, the others are timed", flush=True)
    spent = metric_timers() if args.metrics else {}
    timed_models(tables, plan, spent, profile=args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
