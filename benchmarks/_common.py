"""What the benchmark scripts share: the machine header, timers, child processes, wefe.

Not a benchmark itself. Each script runs as ``python benchmarks/bench_x.py`` (so this
folder is on ``sys.path``) and prints :func:`machine` first, so every number in
``RESULTS.md`` comes with the machine that produced it.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

#: Distributions whose versions the header prints when installed.
PACKAGES = ("wefe_same", "numpy", "scipy", "pandas", "scikit-learn", "gensim", "wefe",
            "sentence-transformers", "torch", "transformers", "dask", "distributed")
ROOT = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def _git_revision() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (rev or "unknown") + (" (uncommitted changes)" if dirty else "")


def versions(packages: Sequence[str] = PACKAGES) -> dict[str, str]:
    out = {}
    for dist in packages:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def machine() -> str:
    """A few lines naming the machine, the load on it, Python and the package versions."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ram = _ram_gib()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines = [
        f"machine: {_cpu_model()}; {os.cpu_count()} CPUs ({usable} usable); "
        f"RAM {ram:.1f} GiB" if ram else f"machine: {_cpu_model()}; {os.cpu_count()} CPUs",
        f"os: {platform.platform()}; load average {load} (1, 5, 15 min)",
        f"python: {platform.python_implementation()} {platform.python_version()}; "
        f"niceness {os.nice(0)}; wefe_same at {_git_revision()}",
        "packages: " + ", ".join(f"{k} {v}" for k, v in versions().items()),
    ]
    return "\n".join(lines)


def header(title: str) -> None:
    """Print the title, the command line and the machine."""
    print(f"# {title}")
    print("command: python " + " ".join([os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]))
    print(machine())
    print(flush=True)


def median_time(fn: Callable[[], object], repeats: int) -> tuple[float, list[float], object]:
    """(median seconds, every time, the last result) of ``repeats`` calls."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, out


def fmt_times(times: Sequence[float]) -> str:
    return ", ".join(f"{t:.3f}" for t in times)


# ----------------------------------------------------------------------------- children
@dataclass(frozen=True)
class ChildRun:
    """A measured child process: its wall time, peak RSS and what it printed as JSON."""

    wall: float  # seconds, from spawn to exit (interpreter start and imports included)
    peak_mib: float  # ru_maxrss of the child alone, MiB
    result: dict

    def __getitem__(self, key: str):
        return self.result[key]


#: Runs its arguments as a grandchild and prints its wall time and peak RSS (KiB) last.
_LAUNCHER = (
    "import json, resource, subprocess, sys, time\n"
    "t0 = time.perf_counter()\n"
    "code = subprocess.call(sys.argv[1:])\n"
    "wall = time.perf_counter() - t0\n"
    "print(json.dumps({'code': code, 'wall': wall,"
    " 'maxrss': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}), flush=True)\n"
)


def run_child(code: str, *args: str, env: dict | None = None, timeout: float = 3600) -> ChildRun:
    """Run ``python -c code args`` in a fresh process; its last stdout line must be JSON.

    The peak RSS is ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` read by a small
    launcher process that runs the work as its only child. The launcher is needed:
    Linux keeps the high-water mark of the address space a process had before
    ``exec``, and Python starts children with vfork, so a child started directly from
    this (large) process would report at least this process's RSS.
    """
    proc = subprocess.run([sys.executable, "-c", _LAUNCHER, sys.executable, "-c", code, *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    try:
        launcher = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise SystemExit(f"launcher failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}") from None
    if launcher["code"] != 0:
        raise SystemExit(f"child failed (exit {launcher['code']}):\n{proc.stderr[-3000:]}")
    result = json.loads(lines[-2]) if len(lines) > 1 else {}
    return ChildRun(launcher["wall"], launcher["maxrss"] / 1024, result)


# ----------------------------------------------------------------------------- wefe
def import_wefe():
    """Import wefe 0.4.1 under numpy 2 and setuptools 80 (see bench_weat_permutations.py).

    wefe 0.4.1 annotates with ``np.float_`` (removed in numpy 2; restored to float64 only
    during the import) and imports ``pkg_resources`` (deprecated; removed in setuptools
    81, so wefe needs ``setuptools<81``): its warning is silenced here.
    """
    import numpy as np

    had_alias = "float_" in np.__dict__
    if not had_alias:
        np.float_ = np.float64
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
            import wefe
            import wefe.datasets
            import wefe.metrics
            import wefe.utils
    except ModuleNotFoundError as err:
        if err.name == "pkg_resources":
            raise SystemExit("wefe 0.4.1 needs pkg_resources: pip install 'setuptools<81'") from None
        raise
    finally:
        if not had_alias:
            del np.float_
    return wefe


def tree_rss(proc) -> int:
    """Resident bytes of a psutil ``proc`` and every descendant (processes gone meanwhile count 0)."""
    import psutil

    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


def timed_cli(code: Path, args: list[str], log: Path, cwd: Path | None = None) -> tuple[float, int]:
    """``python -m wefe_same.cli ARGS`` of the package at ``code`` in a fresh process, its
    output in ``log``: (wall s, peak RSS bytes of its whole process tree, sampled every 20 ms)."""
    import contextlib

    import psutil

    env = {**os.environ, "PYTHONPATH": str(code)}
    t0 = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen([sys.executable, "-m", "wefe_same.cli", *args], cwd=cwd or code, env=env,
                                 stdout=out, stderr=subprocess.STDOUT)
        proc, peak = psutil.Process(child.pid), 0
        while child.poll() is None:
            with contextlib.suppress(psutil.Error):
                peak = max(peak, tree_rss(proc))
            time.sleep(0.02)
    wall = time.perf_counter() - t0
    if child.returncode != 0:
        raise SystemExit(f"{code}: wefe-same {' '.join(args)} exited with {child.returncode}; see {log}:\n"
                         + log.read_text()[-3000:])
    return wall, peak
