"""Whether a process that left something behind (a temporary folder, a cache temp file)
is gone: the one check behind every cleanup of a killed run's leftovers; handing a
process's freed memory back to the system (:func:`release_freed_memory`); and what the
command line asks of its own process: whether standard output's reader has left
(:func:`stdout_gone`), whether an import failed for want of memory (:func:`out_of_memory`),
BLAS loaded first under an address-space limit."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def boot_id() -> str | None:
    """This boot's id (Linux), None when unknown."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def process_start(pid: int) -> int | None:
    """The start time of a process in clock ticks since boot (Linux), None when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    return int(stat.rsplit(")", 1)[1].split()[19])


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists and belongs to someone else
        return True
    return True


def process_gone(pid: int, start: int | None) -> bool:
    """True when process ``pid`` of this boot, started at ``start`` (ticks since boot; None
    when unknown), no longer runs: it is dead, or its pid now belongs to a later process.

    >>> process_gone(os.getpid(), process_start(os.getpid()))
    False
    """
    if not pid_alive(pid):
        return True
    return start is not None and process_start(pid) not in (None, start)


#: Seconds between a worker process's checks that its parent is still alive.
PARENT_CHECK_S = 0.5


def owner_tag() -> str:
    """``HOST-PID-START-`` of this process: the start of its temporary files' names, so a
    later run can tell a file whose writer died (:func:`left_by_dead_process`)."""
    return f"{socket.gethostname()}-{os.getpid()}-{process_start(os.getpid()) or 0}-"


def left_by_dead_process(tail: str) -> bool:
    """Whether ``tail`` (a temporary name after its fixed prefix: ``HOST-PID-START-RANDOM``,
    see :func:`owner_tag`) was left by a process of this host that is gone.

    Read from the right: a host name may hold "-" (``box`` and ``box-2`` sharing a temp
    folder), the random part of ``mkstemp``/``mkdtemp`` never does.

    >>> left_by_dead_process(owner_tag() + "abc")  # this process: alive
    False
    >>> left_by_dead_process("another-host-1-0-abc")  # not this host's: never
    False
    """
    parts = tail.rsplit("-", 3)
    if len(parts) != 4:
        return False
    host, pid, start, _ = parts
    return (host == socket.gethostname() and pid.isdigit() and start.isdigit()
            and process_gone(int(pid), int(start) or None))


def exit_with_parent() -> None:
    """In a worker process: exit as soon as the parent is gone.

    A parent killed with SIGKILL cannot stop its workers; a worker busy with a model would
    run on for minutes, and the multiprocessing resource tracker (which waits for every
    holder of its pipe) with it. A daemon thread notices the new parent (the process is
    re-parented) within :data:`PARENT_CHECK_S` and ends the worker at once.
    """
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="wefe-same-parent-watch", daemon=True).start()


def release_freed_memory() -> None:
    """Give the memory freed by the model just done back to the system (glibc only).

    Writing an entry makes several model-sized temporary buffers; glibc keeps freed heap
    memory for reuse, so without this the resident size of a run keeps the high-water mark
    of every model. ``malloc_trim(0)`` returns it;
    elsewhere (macOS, musl) there is no such call and nothing is done.
    """
    libc = _glibc()
    if libc:
        libc.malloc_trim(0)


def trim_heap_eagerly() -> None:
    """In the encoders' worker: buffers of 4 MiB and more come from ``mmap`` (returned to
    the system when freed) and glibc gives the top of its heap back at every ``free``.

    A forward pass frees large buffers between small allocations that live on (tokens
    kept for the next model); with glibc's defaults (its mmap threshold grows to 32 MiB)
    that memory stayed resident and was the default run's peak (the thresholds tried are
    in benchmarks/RESULTS.md). Only the worker does it; nothing is done off glibc.

    Every thread allocates from one arena: torch's second intra-op thread (a worker's first
    encoder has every core) otherwise got an arena of its own that held memory of its own.
    """
    libc = _glibc()
    if libc:
        libc.mallopt(_M_MMAP_THRESHOLD, 4 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 0)
        libc.mallopt(_M_ARENA_MAX, 1)


@functools.cache
def _glibc() -> Any:
    """glibc's handle, opened once per process (a property of the process, not of a run);
    False where the C library is not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 (raises AttributeError when not glibc)
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return False
    return libc


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8  # glibc's malloc.h


#: Allocations between two young-generation collections while a run scores (Python's 700).
RUN_GC_THRESHOLD = 20_000


@contextlib.contextmanager
def fewer_collections(threshold: int = RUN_GC_THRESHOLD) -> Iterator[None]:
    """Inside the block Python's cycle collector skips the objects made before it and runs
    less often; both settings come back when it ends.

    A run's process holds the objects of pandas', scipy's and pyarrow's imports, and
    scoring a model makes enough short-lived objects that the collector's passes, most of
    their time walking the imports' objects, were a large share of a zoo's parent
    (benchmarks/RESULTS.md). Frozen (:func:`gc.freeze`) those objects are skipped, and a
    larger young generation collects as much in far fewer passes. Only cyclic garbage waits
    longer (refcounting frees everything else at once).
    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


_CONTROLLERS: dict[str | None, Any] = {}


def one_thread(user_api: str | None = "blas") -> Any:
    """``threadpoolctl.threadpool_limits(limits=1, user_api=...)`` through one controller
    per process, made at the first call: each ``threadpool_limits`` lists the process's
    shared libraries again, several times per model of a run. The BLAS libraries
    numpy and scipy compute with are loaded when they are imported, before any scoring, so
    the controller holds them. ``user_api=None``: every thread pool it knows (OpenMP too)."""
    controller = _CONTROLLERS.get(user_api)
    if controller is None:
        from threadpoolctl import ThreadpoolController

        controller = _CONTROLLERS[user_api] = ThreadpoolController()
    return controller.limit(limits=1, user_api=user_api)


@contextlib.contextmanager
def own_objects_collected() -> Iterator[None]:
    """Python's cycle collector looks only at the objects made inside the block, and
    collects their cycles (the model's) when it ends.

    The worker holds the many objects of torch's and transformers' imports; a full
    collection walks them all, and reading a model makes enough objects to trigger full
    collections. Frozen
    (:func:`gc.freeze`) they are skipped; refcounting still frees them as before. The
    caller imports the model's libraries before the block, or its first collection
    walks their objects too.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.collect()  # the block's own cycles only: everything older is frozen
        gc.unfreeze()


def out_of_memory(err: ImportError) -> bool:
    """An extension module that could not be mapped for want of address space (ulimit -v)."""
    text = str(err).lower()
    return "failed to map segment" in text or "cannot allocate memory" in text


def load_blas_first_under_a_memory_limit() -> None:
    """Under an address-space limit (``ulimit -v``), load numpy and SciPy's BLAS first.

    OpenBLAS spins forever (holding the GIL, deaf to signals) when it cannot map its
    buffers while being loaded, and SciPy's copy was loaded late, after pandas and pyarrow
    had used the room. Loaded first, it gets its buffers, and a later shortage is a
    MemoryError or an ImportError, reported as one line.
    """
    try:
        import resource
    except ImportError:  # not POSIX
        return
    if resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY:
        return
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401


def stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has left (POLLERR on its write end)."""
    import select

    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return True
    except (OSError, ValueError):
        return False
    if not hasattr(select, "poll"):
        return True  # no way to ask: the one BrokenPipeError a CLI sees is stdout's
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (OSError, ValueError):
        return False
