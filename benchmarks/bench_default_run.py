"""The default ``wefe-same rank`` against the previous release, in one run.

    python benchmarks/bench_default_run.py [--previous 9bc6278] [--profile] [-- EXTRA RANK ARGUMENTS]

Checks out the previous release (``git worktree add`` of ``--previous``, default commit
9bc6278, into a temporary folder) and runs ``python -m wefe_same.cli rank`` of each
version in a fresh process, with ``PYTHONPATH`` pointing at that version's code:

1. cold: an empty cache folder (``--cache DIR``): every model read or encoded, every
   metric computed, every figure drawn;
2. cached: the same command again, same cache and same results folder (the second run a
   user sees).

For each run it prints the wall time (interpreter start and imports included), the peak
memory of the whole process tree (the sum of the resident sizes of the process and all
its descendants, figure workers included, sampled every 20 ms from ``/proc`` through
psutil), and the size and number of files of the results folder; then the ratios
current / previous against the targets of issue 16 (cold ≤ 0.5×, cached ≤ 0.25×, peak
≤ 800 MB, folder ≤ 15 MB and ≤ 50 files). The previous release runs first, so that the
file system cache favours it, if anything.

``--profile`` adds a cProfile run of the current code (cold cache) split into the
pipeline's stages. Arguments after ``--`` go to both versions' ``rank`` as they are.
"""

from __future__ import annotations

import argparse
import pstats
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, header, run_child, timed_cli

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
        ("    prepare subqueries (word arrays)", "scoring.layout", "subquery_arrays"),
    ]
    rows = [(label, get(module, name)) for label, module, name in wanted]
    rows += [(f"    metric {spec.name}", spec.func) for spec in METRICS.values()]
    rows += [(label, get(module, name)) for label, module, name in [
        ("score matrices", "scoring.matrices", "score_matrices"),
        ("aggregate, rank", "analysis.ranking", "aggregate_run"),
        ("quality columns (cached per model)", "run.evaluators.quality", "quality_table"),
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


TARGETS = {"cold": 0.5, "cached": 0.25}
PEAK_MB, FOLDER_MB, FOLDER_FILES = 800, 15, 50


def timed_run(code: Path, args: list[str], log: Path) -> tuple[float, int]:
    """Run ``python -m wefe_same.cli ARGS`` on the code at ``code``: (wall s, peak tree RSS bytes)."""
    return timed_cli(code, args, log)


def folder_stats(folder: Path) -> tuple[float, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6, len(files)


def measure(label: str, code: Path, work: Path, extra: list[str]) -> dict[str, float]:
    out, cache = work / f"{label}-results", work / f"{label}-cache"
    args = ["rank", "--out", str(out), "--cache", str(cache), *extra]
    row: dict[str, float] = {}
    for run in ("cold", "cached"):
        wall, peak = timed_run(code, args, work / f"{label}-{run}.log")
        size, n = folder_stats(out)
        row |= {run: wall, f"{run}_peak_mb": peak / 1e6, "folder_mb": size, "files": n}
        print(f"  {label:8} {run:6}: {wall:7.2f} s wall, peak {peak / 1e6:7.0f} MB (process tree), "
              f"results folder {size:7.1f} MB in {n} files", flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--previous", default="9bc6278", help="the previous release's commit (default: %(default)s)")
    ap.add_argument("--profile", action="store_true", help="also profile the current code's cold run")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("extra", nargs="*", help="after --: more wefe-same rank arguments (both versions)")
    args = ap.parse_args()

    header("The default wefe-same rank: this version against the previous release")
    from wefe_same.models.catalog import default_models

    models = default_models()
    print(f"models ({len(models)}): " + ", ".join(models))
    work = Path(tempfile.mkdtemp(prefix="wefe-same-bench-default-"))
    previous = work / "previous"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(previous), args.previous],
                   check=True)
    try:
        print(f"previous release: {args.previous} (git worktree in {previous}); current: {ROOT}", flush=True)
        rows = {"previous": measure("previous", previous, work, list(args.extra)),
                "current": measure("current", ROOT, work, list(args.extra))}
        before, now = rows["previous"], rows["current"]
        peak = max(now["cold_peak_mb"], now["cached_peak_mb"])
        checks = [
            ("cold run (empty cache)", f"{before['cold']:.2f} s", f"{now['cold']:.2f} s",
             f"{now['cold'] / before['cold']:.2f}x", f"<= {TARGETS['cold']}x", now["cold"] / before["cold"] <= TARGETS["cold"]),
            ("cached rerun", f"{before['cached']:.2f} s", f"{now['cached']:.2f} s",
             f"{now['cached'] / before['cached']:.2f}x", f"<= {TARGETS['cached']}x",
             now["cached"] / before["cached"] <= TARGETS["cached"]),
            ("peak memory, process tree", f"{max(before['cold_peak_mb'], before['cached_peak_mb']):.0f} MB",
             f"{peak:.0f} MB", f"{peak / max(before['cold_peak_mb'], before['cached_peak_mb']):.2f}x",
             f"<= {PEAK_MB} MB", peak <= PEAK_MB),
            ("results folder size", f"{before['folder_mb']:.1f} MB", f"{now['folder_mb']:.1f} MB",
             f"{now['folder_mb'] / before['folder_mb']:.2f}x", f"<= {FOLDER_MB} MB", now["folder_mb"] <= FOLDER_MB),
            ("results folder files", f"{before['files']:.0f}", f"{now['files']:.0f}",
             f"{now['files'] / before['files']:.2f}x", f"<= {FOLDER_FILES}", now["files"] <= FOLDER_FILES),
        ]
        print("\n| measure | previous | current | ratio | target | met |")
        print("|---|---:|---:|---:|---|---|")
        for name, a, b, ratio, target, met in checks:
            print(f"| {name} | {a} | {b} | {ratio} | {target} | {'yes' if met else 'NO'} |")
        if args.profile:
            prof = work / "rank.prof"
            child = run_child(PROFILE, str(prof), "rank", "--out", str(work / "profiled"), "--cache",
                              str(work / "profile-cache"), *args.extra)
            report_profile(prof, child["run"], args.top)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(previous)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
