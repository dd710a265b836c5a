"""Executors: where the jobs of a run (one per model) run, with the same bytes wherever.

Three executors run the same top-level job functions, so the tables are byte-identical
whichever runs them:

- in-process (``workers=1``, the default);
- local worker processes (``workers=N``): started with "spawn", they ignore SIGINT (a
  Ctrl-C reaches the parent once, which stops them) and use one BLAS thread each;
- a Dask cluster (``scheduler=ADDRESS``, the optional ``dask`` extra): one
  ``client.submit`` per model, results taken ``as_completed``.

Every job runs with one BLAS thread, in-process too: a matrix product split over a
different number of threads may round differently, and the same bytes come first.

A worker's :class:`~wefe_same.errors.WefeSameError` is raised again in the calling
process as that very error (one line), not wrapped in a remote traceback. The warnings a
job raised travel back with its result (:class:`~wefe_same.errors.Caught` records, once
each) and go to the ``said`` callback of :meth:`run`: the caller logs them once per model
(:class:`~wefe_same.errors.WarningLog`), whichever process ran the job.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import multiprocessing
import pickle
import signal
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wefe_same.errors import Caught, ExecutorError, ModelError, WarningLog, WefeSameError, caught_in
from wefe_same.processes import exit_with_parent, fewer_collections, one_thread
from wefe_same.validation import InvalidParameterError, check_int, check_scheduler_address

if TYPE_CHECKING:  # a worker imports this module: not the plan, which pulls in pandas and scipy
    from wefe_same.run.plan import ModelTask

#: One job of an executor: a top-level function and its arguments (both picklable).
Job = tuple[Callable[..., Any], tuple[Any, ...]]
#: Where a job's warnings go: ``said(job index, records)``.
Said = Callable[[int, list[Caught]], None]

NOT_PICKLABLE = ("model {name!r}: a ModelSource object sent to {where} must be picklable ({error}); "
                 "give a model spec string instead, or run in-process (workers=1)")
NEEDS_DASK = "scheduler {address!r} needs dask.distributed: pip install 'wefe_same[dask]'"
NO_SCHEDULER = "cannot reach the Dask scheduler at {address!r} ({error})"
WORKER_DIED = ("{where} ended abruptly (killed, or out of memory) while scoring a model; the models "
               "finished before it are in the cache when one is used: run again to resume, with fewer workers")
#: How long to wait for a scheduler before giving up (Dask's own retries run inside it).
SCHEDULER_TIMEOUT = "20s"
#: Seconds within which the address must answer as a Dask scheduler (connect, then Dask's
#: "identity" request) before any work: a plain TCP listener would otherwise hold the
#: Dask client forever.
SCHEDULER_ANSWER_S = 10.0
NOT_A_SCHEDULER = "{address!r} is not a Dask scheduler: {why}"


def _check_reachable(address: str, limit: float) -> None:
    """A refused or unreachable TCP address fails at once (Dask's connect retries until its
    timeout); other schemes are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if parts.scheme not in ("tcp", "tls") or parts.hostname is None or parts.port is None:
        return
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=limit).close()
    except OSError as err:
        raise ExecutorError(NO_SCHEDULER.format(address=address, error=f"{type(err).__name__}: {err}")) from None


def probe_scheduler(address: str, timeout: float | None = None) -> None:
    """Ask ``address`` who it is, within ``timeout`` seconds (default
    :data:`SCHEDULER_ANSWER_S`); an :class:`ExecutorError` unless a Dask scheduler answers.

    Runs in a thread of its own with its own event loop (a notebook's loop is running).
    """
    import asyncio

    from distributed.comm import connect
    from distributed.core import send_recv

    limit = SCHEDULER_ANSWER_S if timeout is None else timeout
    _check_reachable(address, limit)

    async def identity() -> Any:
        comm = await connect(address, timeout=limit)
        try:
            return await send_recv(comm, op="identity")
        finally:
            comm.abort()

    with cf.ThreadPoolExecutor(1) as pool:
        future = pool.submit(asyncio.run, asyncio.wait_for(identity(), limit))
        try:
            reply = future.result(timeout=limit + 5)
        except (TimeoutError, cf.TimeoutError):
            raise ExecutorError(NOT_A_SCHEDULER.format(address=address, why=f"no Dask answer within {limit:g} s "
                                                       "(a listener of another kind, or a scheduler too busy)")) \
                from None
        except Exception as err:  # a reply Dask cannot decode, a closed connection: "not usable"
            raise ExecutorError(NOT_A_SCHEDULER.format(address=address, why=f"{type(err).__name__}: {err}")) \
                from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        kind = reply.get("type") if isinstance(reply, dict) else type(reply).__name__
        raise ExecutorError(NOT_A_SCHEDULER.format(address=address, why=f"it answers as {kind!r}"))


# ----------------------------------------------------------------------------- jobs
@dataclass
class _Outcome:
    """What a job sends back: its value, or the WefeSameError it raised (pickled as itself),
    and the warnings it raised."""

    value: Any = None
    error: WefeSameError | None = None
    caught: list[Caught] = dataclasses.field(default_factory=list)


def _guarded(fn: Callable[..., Any], *args: Any) -> _Outcome:
    """Run one job with one BLAS thread; a WefeSameError and the warnings travel back as values."""
    with one_thread(), warnings.catch_warnings(record=True) as block:
        try:
            outcome = _Outcome(fn(*args))
        except WefeSameError as err:
            err.__traceback__ = None  # a one-line error needs no remote frames
            outcome = _Outcome(error=err)
    outcome.caught = caught_in(block)
    return outcome


#: In a worker process of :class:`Processes`: the one job argument kept between jobs
#: (:func:`_kept`). A pool's workers live for one run, so nothing outlives the run.
_WORKER_KEPT: dict[str, Any] = {}


def _kept(arg: Any) -> Any:
    """``arg``, or, when it declares a ``worker_key`` (the run's ScoringContext), the copy
    this worker unpickled for its first job with that key: the jobs one worker runs for a
    run then share what the run remembers (its memo: the permutation splits, RNSB's masks),
    as in-process jobs share the one object. Only the latest key is kept."""
    key = getattr(arg, "worker_key", None)
    if not isinstance(key, str):
        return arg
    known = _WORKER_KEPT.get(key)
    if known is None:
        _WORKER_KEPT.clear()
        known = _WORKER_KEPT[key] = arg
    return known


def _in_worker(fn: Callable[..., Any], *args: Any) -> _Outcome:
    """:func:`_guarded` in a worker process (its run's state kept between jobs: :func:`_kept`),
    with the cycle collector set as the run's own process sets it
    (:func:`~wefe_same.processes.fewer_collections`): with Python's defaults it walked the
    worker's imported objects again and again while a model was scored."""
    with fewer_collections():
        return _guarded(fn, *(_kept(a) for a in args))


def _unwrap(outcome: _Outcome, i: int, said: Said | None) -> Any:
    """The job's value (or its error raised here); its warnings to ``said``, or warned here
    once each when there is no ``said``."""
    if outcome.caught:
        if said is None:
            WarningLog().add(outcome.caught)
        else:
            said(i, outcome.caught)
    if outcome.error is not None:
        raise outcome.error from None
    return outcome.value


# ----------------------------------------------------------------------------- executors
class InProcess(AbstractContextManager["InProcess"]):
    """Jobs one after another in this process."""

    where = "in-process"

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, jobs: Sequence[Job], said: Said | None = None) -> Iterator[tuple[int, Any]]:
        # Each job is let go of once it has run: its arguments can hold a model (a source
        # that read its whole file, a table), which would otherwise live until the last job.
        # The caller passes the list without keeping it (see run.score).
        queue = deque(jobs)
        del jobs
        i = 0
        while queue:
            fn, args = queue.popleft()
            outcome = _guarded(fn, *args)
            del fn, args
            yield i, _unwrap(outcome, i, said)
            del outcome
            i += 1


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while worker processes are started (main thread only; else a no-op).

    A process started meanwhile keeps ignoring it through exec, so a Ctrl-C while a worker
    is still importing does not print its traceback: only the parent handles Ctrl-C.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _init_worker() -> None:
    """In each worker process: Ctrl-C is the parent's to handle; one BLAS thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()  # a parent killed with SIGKILL leaves no worker (nor resource tracker) behind
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


class Processes(AbstractContextManager["Processes"]):
    """Jobs on ``workers`` local processes started with "spawn" (no state inherited by fork)."""

    where = "worker processes"

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: cf.ProcessPoolExecutor | None = None

    def __enter__(self) -> Processes:
        self._pool = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_init_worker)
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._pool is None:
            return
        if exc_type is not None:
            # Stopped (Ctrl-C, an error): the models still running are not waited for. The
            # pool has no public way to stop running work before Python 3.14 (terminate_workers).
            for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
                proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None

    def run(self, jobs: Sequence[Job], said: Said | None = None) -> Iterator[tuple[int, Any]]:
        """Submit every job now (the workers start at once); the results as they complete
        (``said``: where each job's warnings go)."""
        assert self._pool is not None, "use Processes as a context manager"
        with _sigint_ignored():  # the workers start on submit and inherit "ignore" from their first instruction
            futures = {self._pool.submit(_in_worker, fn, *args): i for i, (fn, args) in enumerate(jobs)}
        return self._results(futures, said)

    def close_when_done(self) -> None:
        """Let the workers exit as soon as the jobs submitted so far have run (their results
        stay readable): an idle worker would keep its memory until the block ends."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    @staticmethod
    def _results(futures: dict[cf.Future, int], said: Said | None) -> Iterator[tuple[int, Any]]:
        try:
            for future in cf.as_completed(futures):
                # Let go of the finished future: it holds its result (a model's whole table)
                # for as long as anything refers to it, and the dict would keep every one of
                # them until the last job ended (a 40-encoder run's parent grew by 300 MB).
                i = futures.pop(future)
                try:
                    outcome = [future.result()]
                except cf.process.BrokenProcessPool:
                    raise ExecutorError(WORKER_DIED.format(where="a worker process")) from None
                del future
                yield i, _unwrap(outcome.pop(), i, said)  # popped: this generator holds no reference while suspended
        finally:
            for future in futures:
                future.cancel()


class Dask(AbstractContextManager["Dask"]):
    """Jobs on a dask.distributed cluster: one task per job, results as they complete."""

    where = "Dask workers"

    def __init__(self, address: str):
        self.address = address
        self._client: Any = None

    def __enter__(self) -> Dask:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError(NEEDS_DASK.format(address=self.address)) from None
        probe_scheduler(self.address)
        try:
            self._client = Client(self.address, set_as_default=False, timeout=SCHEDULER_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as err:
            raise ExecutorError(NO_SCHEDULER.format(address=self.address, error=f"{type(err).__name__}: {err}")) \
                from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def run(self, jobs: Sequence[Job], said: Said | None = None) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        futures = {self._client.submit(_guarded, fn, *args, pure=False): i for i, (fn, args) in enumerate(jobs)}
        try:
            for future in as_completed(list(futures), loop=self._client.loop):
                try:
                    outcome = future.result()
                except Exception as err:
                    if type(err).__name__ == "KilledWorker":  # dask gave up after the workers it lost
                        raise ExecutorError(WORKER_DIED.format(where="a Dask worker")) from None
                    raise
                yield futures[future], _unwrap(outcome, futures[future], said)
        finally:
            self._client.cancel(list(futures))


Executor = InProcess | Processes | Dask


def make_executor(workers: int = 1, scheduler: str | None = None) -> Executor:
    """The executor for ``workers`` (1: in-process) or a ``scheduler`` address (then workers=1)."""
    check_int(workers, "workers", "score_models", minimum=1)
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler:
            raise InvalidParameterError(f"The 'scheduler' parameter of score_models must be an address string. "
                                        f"Got {scheduler!r} instead.")
        if workers != 1:
            raise InvalidParameterError(
                f"The 'workers' parameter of score_models must be 1 when a scheduler is given (the cluster "
                f"has its own workers). Got {workers!r} instead.")
        return Dask(check_scheduler_address(scheduler, "score_models"))
    return Processes(workers) if workers > 1 else InProcess()


def check_picklable(tasks: Sequence[ModelTask], executor: Executor) -> None:
    """A ModelSource object given to workers must travel there: refuse before any work."""
    if isinstance(executor, InProcess):
        return
    dumps = pickle.dumps
    if isinstance(executor, Dask):
        try:
            import cloudpickle  # what Dask pickles tasks with: it takes more than pickle does

            dumps = cloudpickle.dumps
        except ImportError:
            pass
    for task in tasks:
        if not isinstance(task.spec, str):
            try:
                dumps(task)
            except Exception as err:  # pickling raises TypeError, PicklingError, AttributeError...
                raise ModelError(NOT_PICKLABLE.format(name=task.name, where=executor.where,
                                                      error=f"{type(err).__name__}: {err}")) from None
