"""``workers="auto"``: how many worker processes score a run's models.

:func:`choose_workers` is the rule, a pure function of the machine (usable cores, available
memory, free memory of the CUDA device the encoders use) and of the run (how many models,
how much memory one of them takes); :func:`measure_machine` and :func:`model_bytes` are the
I/O that feed it, and :func:`resolve_workers` puts them together for a run. The choice and
its reason go into the manifest (``workers``) and onto the terminal.

The rule: one worker per usable core, but

* at least ``MODELS_PER_WORKER`` models per worker: a worker is a fresh interpreter that
  imports the scientific stack before its first model, which a single model does not
  repay; so one model (or one core) means no worker process at all. With encoders on a
  CUDA device ``ENCODER_MODELS_PER_WORKER``: each worker imports torch and transformers
  too, where an in-process run reads every encoder in one worker of its own (measured on
  a GPU machine in benchmarks/RESULTS.md). With encoders on the CPU, one: torch spreads an
  encoder over the cores itself, and worker processes that each run torch beside each
  other cost far more than they save (benchmarks/RESULTS.md: the tiny encoder zoo);
* no more workers than the available memory holds, each counted as ``WORKER_BYTES`` plus
  the largest model of the run;
* with encoders on a CUDA device, no more workers than its free memory holds, each counted
  as ``DEVICE_WORKER_BYTES`` (its CUDA context and batches) plus twice the largest
  encoder's weights: the workers share the one device without running out of its memory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wefe_same.models.encoders import ENCODER_SCHEMES
from wefe_same.models.specs import parse_spec
from wefe_same.run.plan import ModelTask

AUTO = "auto"
#: Models a worker process must have to repay its start.
MODELS_PER_WORKER = 2
#: The same when the run holds encoders (each worker imports torch and transformers).
ENCODER_MODELS_PER_WORKER = 5
#: Host memory of one worker besides its model: Python with numpy, scipy, pandas and this package.
WORKER_BYTES = 400 * 2**20
#: Device memory of one worker besides its encoder's weights: the CUDA context and a batch's activations.
DEVICE_WORKER_BYTES = 1024 * 2**20
#: The weights of an encoder whose files are not local (a hub name): BERT-large's order.
UNKNOWN_ENCODER_BYTES = 1024 * 2**20
#: The share of the available (host or device) memory the workers may plan on.
MEMORY_SHARE = 0.8
#: Weight files of an encoder folder, counted for its memory.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack")


@dataclass(frozen=True)
class Machine:
    """What :func:`choose_workers` needs to know of the machine.

    ``memory``: bytes of host memory available (None: unknown, not a limit);
    ``device_memory``: free bytes of the CUDA device the encoders run on (None: no such
    device, or no encoder in the run)."""

    cores: int
    memory: int | None = None
    device_memory: int | None = None


@dataclass(frozen=True)
class WorkerChoice:
    """How many workers score the run's models (1: in this process) and why, in one line."""

    workers: int
    reason: str

    def manifest(self, asked: object) -> dict[str, object]:
        """The manifest's ``workers`` entry."""
        return {"asked": asked, "chosen": self.workers, "reason": self.reason}


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def choose_workers(machine: Machine, models: int, *, model_bytes: int = 0, device_model_bytes: int = 0,
                   encoders: bool = False, scheduler: bool = False) -> WorkerChoice:
    """Workers for ``models`` models on ``machine`` (see the module's rule).

    Parameters
    ----------
    machine : Machine
    models : int
        Models the run scores.
    model_bytes : int
        Host memory of the largest model (its files), beyond a worker's own.
    device_model_bytes : int
        Device memory of the largest encoder on the CUDA device (0: none runs there).
    encoders : bool
        The run holds encoders: on the CUDA device of ``machine``, ``ENCODER_MODELS_PER_WORKER``
        models per worker at least; without one (``device_memory`` None), 1.
    scheduler : bool
        A Dask cluster scores the models: its workers are its own, so 1.

    >>> choose_workers(Machine(cores=16, memory=64 * 2**30), 41).workers
    16
    >>> choose_workers(Machine(cores=16, memory=64 * 2**30, device_memory=80 * 2**30), 41,
    ...                device_model_bytes=440 * 2**20, encoders=True).reason
    '8 workers: 41 models, 5 per worker at least (encoders) (16 usable cores; memory for 131; CUDA memory for 34)'
    >>> choose_workers(Machine(cores=2), 1).reason
    '1 worker (in-process): 1 model (2 usable cores)'
    """
    if scheduler:
        return WorkerChoice(1, "1 worker (in-process): a Dask scheduler runs the models on its own workers")
    if encoders and machine.device_memory is None:
        return WorkerChoice(1, "1 worker (in-process): encoders on the CPU (torch uses the cores itself; "
                               "workers running torch side by side cost more than they save)")
    plural = "s" if models != 1 else ""
    per = ENCODER_MODELS_PER_WORKER if encoders else MODELS_PER_WORKER
    # (workers allowed, why in full, why in short) per limit
    limits: list[tuple[int, str, str]] = [
        (max(1, machine.cores), f"{machine.cores} usable core{'s' if machine.cores != 1 else ''}", ""),
        (max(1, models // per),
         f"{models} model{plural}" + (f", {per} per worker at least" + (" (encoders)" if encoders else "")
                                      if models > 1 else ""),
         f"{models} model{plural}")]
    if machine.memory is not None:
        per_worker = WORKER_BYTES + max(0, model_bytes)
        fit = int(machine.memory * MEMORY_SHARE) // per_worker
        limits.append((max(1, fit), f"memory for {fit} ({_gib(machine.memory)} available, "
                                    f"~{per_worker / 2**20:.0f} MB per worker)", f"memory for {fit}"))
    if machine.device_memory is not None and device_model_bytes > 0:
        per_device = DEVICE_WORKER_BYTES + 2 * device_model_bytes
        fit = int(machine.device_memory * MEMORY_SHARE) // per_device
        limits.append((max(1, fit), f"CUDA memory for {fit} ({_gib(machine.device_memory)} free, "
                                    f"~{per_device / 2**20:.0f} MB per worker)", f"CUDA memory for {fit}"))
    workers = min(n for n, _, _ in limits)
    head = f"{workers} workers" if workers > 1 else "1 worker (in-process)"
    binding = "; ".join(why for n, why, _ in limits if n == workers)
    others = "; ".join(short or why for n, why, short in limits if n != workers)
    return WorkerChoice(workers, f"{head}: {binding}" + (f" ({others})" if others else ""))


# ----------------------------------------------------------------------------- measuring
def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (``os.process_cpu_count`` on
    Python 3.13+), within a cgroup's CPU quota when one is set (a container)."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        cores = count() or 1
    elif hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0)) or 1
    else:
        cores = os.cpu_count() or 1
    try:  # cgroup v2: "QUOTA PERIOD", or "max PERIOD" without a quota
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max" and int(period) > 0:
            cores = max(1, min(cores, int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return cores


def available_memory() -> int | None:
    """Bytes of host memory available to new processes (psutil when installed, else
    /proc/meminfo's MemAvailable); None when unknown."""
    try:
        import psutil
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def free_device_memory(device: str) -> int | None:
    """Free bytes of the CUDA device encoders run on with ``device`` ("auto", "cuda", "cpu");
    None when they run on the CPU or torch is not installed."""
    if device == "cpu":
        return None
    try:
        import torch
    except ImportError:
        return None
    try:
        if not torch.cuda.is_available():
            return None
        return int(torch.cuda.mem_get_info()[0])
    except RuntimeError:  # a driver that torch cannot talk to: encoders run on the CPU
        return None


def _is_encoder(spec: str) -> bool:
    return parse_spec(spec).scheme in ENCODER_SCHEMES


def model_bytes(spec: str) -> int:
    """The size of a model's local files (a file, or an encoder folder's weight files); 0
    for a name that is not a local path (a catalog entry, a hub name)."""
    try:
        path = Path(parse_spec(spec).location).expanduser()
        if path.is_file():
            return path.stat().st_size
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.suffix in WEIGHT_SUFFIXES and p.is_file())
    except (OSError, ValueError):
        pass
    return 0


def resolve_workers(asked: int | str, tasks: Sequence[ModelTask], *, device: str = "auto",
                    scheduler: str | None = None, unsendable: str | None = None) -> WorkerChoice:
    """The workers of a run: ``asked`` as it is when a number, else :func:`choose_workers`
    on this machine and the run's models; 1 when ``unsendable`` says why a metric of the run
    could not be found in a worker process (`wefe_same.metrics.registry.sendable_problem`)."""
    if asked != AUTO:
        n = int(asked)
        return WorkerChoice(n, f"{n} worker{'s' if n != 1 else ''}: as asked")
    if unsendable is not None and scheduler is None:
        return WorkerChoice(1, f"1 worker: {unsendable}, so it runs in this process")
    specs = [t.spec for t in tasks if isinstance(t.spec, str)]
    encoders = [s for s in specs if _is_encoder(s)]
    # Asked only when an encoder may run on CUDA (torch is then imported by the run anyway);
    # the device's free memory is read once, here, before any worker starts.
    device_memory = free_device_memory(device) if encoders else None
    sizes = {s: model_bytes(s) for s in specs}
    return choose_workers(Machine(usable_cores(), available_memory(), device_memory), len(tasks),
                          model_bytes=max(sizes.values(), default=0),
                          device_model_bytes=max((sizes[s] or UNKNOWN_ENCODER_BYTES for s in encoders), default=0)
                          if device_memory is not None else 0,
                          encoders=bool(encoders), scheduler=scheduler is not None)
