"""Where the time of the default ``wefe-same rank`` goes.

    python benchmarks/bench_default_run.py [--repeats 1] [--skip-cache] [--formats png pdf svg]
                                           [--quick] [-- EXTRA RANK ARGUMENTS]

Runs ``wefe-same rank --out TMP`` (every installed catalog model and its variants,
queries gender, ethnicity and religion, every metric, figures in every format) in fresh
processes:

1. without the cache (``--no-cache``), timed: the wall time a first-time user sees,
   interpreter start and imports included;
2. with an empty cache folder, then again with the filled one (``--cache DIR``): a miss
   and a hit (skipped with ``--skip-cache`` or when the CLI has no ``--cache``);
3. once more without the cache under cProfile, to split the time into stages: plan,
   model resolution, the lookup pass per model, each metric, aggregation, analysis,
   manifest, tables and figures. Figures drawn by worker processes are seen as the time
   the parent waits for them. cProfile slows Python-heavy code, so the shares matter
   more than the profiled seconds.

``--quick`` ranks one model (glove-6b-50d) on WEAT 1-10 with WEAT, RND and MAC, PNG only.
Arguments after ``--`` are passed to ``wefe-same rank`` as they are.
"""

from __future__ import annotations

import argparse
import json
import pstats
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _common import fmt_times, header, run_child

RUN = r"""
import json, sys, time
t0 = time.perf_counter()
from wefe_same.cli import main
import wefe_same.api, wefe_same.output.writer  # the package loads lazily: time its imports here
t1 = time.perf_counter()
code = main(sys.argv[1:])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "run": t2 - t1, "code": code}))
"""

PROFILE = r"""
import cProfile, json, sys, time
from wefe_same.cli import main
out = sys.argv[1]
profiler = cProfile.Profile()
t0 = time.perf_counter()
code = profiler.runcall(main, sys.argv[2:])
t1 = time.perf_counter()
profiler.dump_stats(out)
print(json.dumps({"run": t1 - t0, "code": code}))
"""


def stage_functions() -> list[tuple[str, object]]:
    """(label, function) of the pipeline's stages, found in the installed code.

    A function that this version of the package does not have is left out, so the
    script keeps working while the pipeline changes.
    """
    import importlib

    from wefe_same.metrics.registry import METRICS

    def get(module: str, name: str):
        try:
            obj = importlib.import_module(f"wefe_same.{module}")
        except ImportError:
            return None
        for part in name.split("."):
            obj = getattr(obj, part, None)
        return obj

    wanted = [
        ("plan: check arguments, expand subqueries", "run.pipeline", "prepare"),
        ("  resolve model specs", "run.plan", "make_tasks"),
        ("score every model (stage total)", "run.score", "score_models"),
        ("  lookup pass (build_table), all models", "scoring.vectors", "build_table"),
        ("  score tables, all models", "scoring.model", "score_table"),
        ("    prepare subqueries (word arrays)", "scoring.model", "prepare"),
    ]
    rows = [(label, get(module, name)) for label, module, name in wanted]
    rows += [(f"    metric {spec.name}", spec.func) for spec in METRICS.values()]
    rows += [(label, get(module, name)) for label, module, name in [
        ("score matrices", "scoring.matrices", "score_matrices"),
        ("aggregate, rank", "analysis.ranking", "aggregate_run"),
        ("quality columns (cached per model)", "run.quality", "quality_table"),
        ("analyse: correlations, intervals", "analysis.analyse", "analyse"),
        ("manifest", "run.manifest", "make_manifest"),
        ("save the results folder (total)", "result", "RankResult.save"),
        ("  tables (CSV)", "output.tables", "write_csv_tables"),
        ("  tables (LaTeX, markdown)", "output.latex", "write_tables"),
        ("  start the figure workers", "output.writer", "figures_rendering"),
        ("  figures (drawn here, or waited for after the tables)", "output.writer", "write_figures"),
    ]]
    return [(label, fn) for label, fn in rows if callable(fn)]


def _key(fn) -> tuple[str, int, str]:
    code = getattr(fn, "__wrapped__", fn).__code__  # a context manager: its generator
    return code.co_filename, code.co_firstlineno, code.co_name


def report_profile(path: Path, wall: float, top: int) -> None:
    stats = pstats.Stats(str(path))
    table = stats.stats  # (file, line, name) -> (primitive calls, calls, own time, cumulative, callers)
    total = max((v[3] for v in table.values()), default=wall)
    print(f"\nprofiled run: {wall:.2f} s wall (cProfile on); seconds are cumulative (callees included)")
    print("| stage | calls | seconds | share |")
    print("|---|---:|---:|---:|")
    for label, fn in stage_functions():
        entry = table.get(_key(fn))
        if entry is None:
            continue
        calls, cum = entry[1], entry[3]
        print(f"| {label.replace('  ', '&nbsp;&nbsp;')} | {calls:,} | {cum:.2f} | {cum / total:.0%} |")
    lookups = [(k, v) for k, v in table.items()
               if "wefe_same/models/" in k[0].replace("\\", "/") and k[2] in ("lookup", "lookup_with_status")]
    if lookups:
        print("\nlookups by source (cumulative seconds; a source's lookup_with_status includes its lookup):")
        for (file, line, name), v in sorted(lookups, key=lambda kv: -kv[1][3]):
            print(f"  {Path(file).name}:{line} {name}: {v[1]} calls, {v[3]:.2f} s")
    print(f"\ntop {top} wefe_same functions by cumulative time:")
    ours = sorted(((k, v) for k, v in table.items() if "/wefe_same/" in k[0].replace("\\", "/")),
                  key=lambda kv: -kv[1][3])[:top]
    for (file, line, name), v in ours:
        rel = file.replace("\\", "/").split("/wefe_same/", 1)[1]
        print(f"  {v[3]:7.2f} s  {v[1]:>7,} calls  {rel}:{line} {name}")
    print(f"\ntop {top} functions by own time (any library):")
    for (file, line, name), v in sorted(table.items(), key=lambda kv: -kv[1][2])[:top]:
        short = "/".join(Path(file).parts[-2:]) if file != "~" else "builtin"
        print(f"  {v[2]:7.2f} s  {v[1]:>9,} calls  {short}:{line} {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1, help="timed runs without the cache (median)")
    ap.add_argument("--formats", nargs="+", default=None, help="figure formats (default: the CLI's)")
    ap.add_argument("--skip-cache", action="store_true", help="no cache miss / hit runs")
    ap.add_argument("--skip-profile", action="store_true")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="smoke size: one model, WEAT 1-10, three metrics, PNG")
    ap.add_argument("extra", nargs="*", help="after --: more wefe-same rank arguments")
    args = ap.parse_args()

    header("Where the default wefe-same rank spends its time")
    from wefe_same.cli import build_parser

    rank_help = build_parser()._subparsers._group_actions[0].choices["rank"].format_help()
    has_cache = "--no-cache" in rank_help
    extra = list(args.extra)
    if args.quick:
        extra += ["--models", "glove-6b-50d", "--queries", "weat", "--metrics", "WEAT", "RND", "MAC"]
        args.formats = args.formats or ["png"]
    if args.formats:
        extra += ["--formats", *args.formats]
    from wefe_same.models.catalog import default_models

    if "--models" in extra:
        given = extra[extra.index("--models") + 1:]
        models = given[:next((i for i, a in enumerate(given) if a.startswith("--")), len(given))]
    else:
        models = default_models()
    print(f"models ({len(models)}): " + ", ".join(models))
    folder = Path(tempfile.mkdtemp(prefix="wefe-same-bench-run-"))
    try:
        def rank(*more: str) -> tuple[float, dict]:
            out = folder / "results"
            child = run_child(RUN, "rank", "--out", str(out), *more, *extra)
            if child["code"] != 0:
                raise SystemExit(f"wefe-same rank exited with {child['code']}")
            return child.wall, child.result

        no_cache = ["--no-cache"] if has_cache else []
        runs = [rank(*no_cache) for _ in range(args.repeats)]
        walls = [w for w, _ in runs]
        print(f"wefe-same rank {' '.join(no_cache + extra)}: {statistics.median(walls):.2f} s wall "
              f"(median of {len(walls)}: {fmt_times(walls)}), of which imports {runs[-1][1]['import']:.2f} s",
              flush=True)
        if has_cache and not args.skip_cache:
            cache = folder / "cache"
            miss, _ = rank("--cache", str(cache))
            hit, _ = rank("--cache", str(cache))
            manifest = json.loads((folder / "results" / "manifest.json").read_text()) \
                if (folder / "results" / "manifest.json").exists() else {}
            status = [m.get("cache") for m in manifest.get("models", []) if isinstance(m, dict)]
            print(f"with --cache DIR: first run (cache miss) {miss:.2f} s, second run {hit:.2f} s "
                  f"(cache status per model: {', '.join(map(str, status)) or 'not in manifest.json'})", flush=True)
        elif not has_cache:
            print("TODO: wefe-same rank has no --cache yet: cached runs not measured")
        if not args.skip_profile:
            prof = folder / "rank.prof"
            child = run_child(PROFILE, str(prof), "rank", "--out", str(folder / "results"), *no_cache, *extra)
            report_profile(prof, child["run"], args.top)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
