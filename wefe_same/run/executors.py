"""Stage 2 of a run: score every model, one task per model, through an executor and the cache.

Three executors run the same top-level job functions, so the tables are byte-identical
whichever runs them:

- in-process (``workers=1``, the default);
- local worker processes (``workers=N``): started with "spawn", they ignore SIGINT (a
  Ctrl-C reaches the parent once, which stops them) and use one BLAS thread each;
- a Dask cluster (``scheduler=ADDRESS``, the optional ``dask`` extra): one
  ``client.submit`` per model, results taken ``as_completed``.

Every job runs with one BLAS thread, in-process too: a matrix product split over a
different number of threads may round differently, and the same bytes come first.

The cache (:mod:`wefe_same.run.cache`) is read and written by the calling process only;
workers compute. Each model's entries are written as soon as it finishes, so a run
killed at any point (SIGKILL included) and started again recomputes only the models
that had not finished. A model whose scores are cached is never read: only its
``identity()`` (file stats) is computed.

A worker's :class:`~wefe_same.errors.WefeSameError` is raised again in the calling
process as that very error (one line), not wrapped in a remote traceback.

With ``plan.shared_words`` a run has two stages: every model's table is read first
(from the cache when it holds the vectors), then each model is scored on the words
every model has (:func:`~wefe_same.scoring.matrices.shared_vocabulary`,
:func:`~wefe_same.scoring.matrices.restrict`).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import multiprocessing
import pickle
import signal
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from wefe_same.run.cache import CacheStatus, ModelCache, scores_key, vectors_key
from wefe_same.errors import ExecutorError, ModelError, WefeSameError, WefeSameWarning
from wefe_same.run.plan import ModelTask, RunPlan
from wefe_same.scoring.matrices import restrict, shared_vocabulary
from wefe_same.scoring.model import ModelScores, compact, load_table, score_table
from wefe_same.validation import InvalidParameterError, check_int
from wefe_same.scoring.vectors import VectorTable

#: One job of an executor: a top-level function and its arguments (both picklable).
Job = tuple[Callable[..., Any], tuple[Any, ...]]

NOT_PICKLABLE = ("model {name!r}: a ModelSource object sent to {where} must be picklable ({error}); "
                 "give a model spec string instead, or run in-process (workers=1)")
NEEDS_DASK = "scheduler {address!r} needs dask.distributed: pip install 'wefe_same[dask]'"
NO_SCHEDULER = "cannot reach the Dask scheduler at {address!r} ({error})"
WORKER_DIED = ("{where} ended abruptly (killed, or out of memory) while scoring a model; the models "
               "finished before it are in the cache when one is used: run again to resume, with fewer workers")
#: How long to wait for a scheduler before giving up (Dask's own retries run inside it).
SCHEDULER_TIMEOUT = "20s"
CHANGED = ("model {name!r} changed while it was read (its identity is not the same before and after); "
           "its cache entries are not written")


# ----------------------------------------------------------------------------- jobs
@dataclass
class _Outcome:
    """What a job sends back: its value, or the WefeSameError it raised (pickled as itself)."""

    value: Any = None
    error: WefeSameError | None = None


def _guarded(fn: Callable[..., Any], *args: Any) -> _Outcome:
    """Run one job with one BLAS thread; a WefeSameError travels back as a value."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        try:
            return _Outcome(fn(*args))
        except WefeSameError as err:
            err.__traceback__ = None  # a one-line error needs no remote frames
            return _Outcome(error=err)


def read_and_score(plan: RunPlan, task: ModelTask) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None,
                                                            ModelScores]:
    """Job: one lookup pass over the model, then every metric (its table comes back for the cache)."""
    table, description, identity = load_table(task, plan.words)
    return table, description, identity, score_table(table, plan, description, identity)


def read_only(plan: RunPlan, task: ModelTask) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """Job: one lookup pass over the model (stage 1 of a shared-words run)."""
    return load_table(task, plan.words)


def score_only(plan: RunPlan, table: VectorTable, description: Mapping[str, str],
               identity: Mapping[str, Any] | None) -> ModelScores:
    """Job: every metric on a table already read (cached vectors, or stage 2)."""
    return score_table(table, plan, description, identity)


def _unwrap(outcome: _Outcome) -> Any:
    if outcome.error is not None:
        raise outcome.error from None
    return outcome.value


# ----------------------------------------------------------------------------- executors
class InProcess(AbstractContextManager["InProcess"]):
    """Jobs one after another in this process."""

    where = "in-process"

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Any]]:
        for i, (fn, args) in enumerate(jobs):
            yield i, _unwrap(_guarded(fn, *args))


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

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Any]]:
        assert self._pool is not None, "use Processes as a context manager"
        with _sigint_ignored():  # the workers start on submit and inherit "ignore" from their first instruction
            futures = {self._pool.submit(_guarded, fn, *args): i for i, (fn, args) in enumerate(jobs)}
        try:
            for future in cf.as_completed(futures):
                try:
                    outcome = future.result()
                except cf.process.BrokenProcessPool:
                    raise ExecutorError(WORKER_DIED.format(where="a worker process")) from None
                yield futures[future], _unwrap(outcome)
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

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Any]]:
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
                yield futures[future], _unwrap(outcome)
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
        return Dask(scheduler)
    return Processes(workers) if workers > 1 else InProcess()


# ----------------------------------------------------------------------------- one model's state
@dataclass
class _Model:
    """What the parent knows of one task as the run goes."""

    task: ModelTask
    source: Any = None  # resolved in the parent when the cache needs its identity
    identity: dict[str, Any] | None = None
    vkey: str | None = None  # None: not cacheable
    table: VectorTable | None = None
    description: dict[str, str] | None = None
    scores: ModelScores | None = None
    status: CacheStatus = "off"

    def job_task(self, in_process: bool) -> ModelTask:
        """In-process the source resolved for the identity is reused; workers resolve the spec."""
        if in_process and self.source is not None:
            return dataclasses.replace(self.task, spec=self.source)
        return self.task


def _identify(model: _Model, plan: RunPlan) -> None:
    """Resolve the model and compute its cache key from ``identity()`` (stats, no read)."""
    model.source = model.task.source()
    try:
        identity = model.source.identity()
    except OSError as err:
        raise ModelError(f"model {model.task.name!r}: cannot stat its files ({err})") from None
    if identity is not None:
        model.identity = identity
        model.vkey = vectors_key(identity, plan.words)


def _scores_key(model: _Model, fingerprint: str, scoring: str) -> str:
    assert model.vkey is not None
    return scores_key(model.vkey, fingerprint, model.task.name, scoring)


def _check_picklable(models: Sequence[_Model], executor: Executor) -> None:
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
    for model in models:
        if not isinstance(model.task.spec, str):
            try:
                dumps(model.task)
            except Exception as err:  # pickling raises TypeError, PicklingError, AttributeError...
                raise ModelError(NOT_PICKLABLE.format(name=model.task.name, where=executor.where,
                                                      error=f"{type(err).__name__}: {err}")) from None


# ----------------------------------------------------------------------------- the stage
def score_models(
    plan: RunPlan,
    tasks: Sequence[ModelTask],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    cache: ModelCache | None = None,
    progress: bool | None = None,
) -> tuple[list[ModelScores], dict[str, CacheStatus]]:
    """Score every model of a run, cached per model.

    Parameters
    ----------
    plan : RunPlan
    tasks : sequence of ModelTask
        One per model; names are unique.
    workers : int >= 1
        Local worker processes; 1 runs in this process.
    scheduler : str, optional
        A dask.distributed scheduler address (``tcp://host:8786``); models are the tasks.
    cache : ModelCache, optional
        Read and written here, in the calling process; None: no cache.
    progress : bool, optional
        A progress bar counting models; default only on a terminal.

    Returns
    -------
    scores : list of ModelScores
        In task order.
    statuses : dict
        Model name → "hit" (scores read from the cache, the model not read), "miss"
        (computed and written) or "off" (no cache, or a model without identity).
    """
    executor = make_executor(workers, scheduler)
    models = [_Model(t) for t in tasks]
    scoring = plan.scoring_key() if cache is not None else ""
    if cache is not None:
        for model in models:
            _identify(model, plan)
            if model.vkey is not None:
                model.status = "miss"
                if plan.shared_words:  # every table is needed for the shared vocabulary
                    _cached_table(model, cache)
                    continue
                peek = cache.peek_vectors(model.vkey)
                if peek is not None:
                    model.scores = compact(cache.get_scores(_scores_key(model, peek[0], scoring)))
                    if model.scores is not None:
                        model.status, model.source = "hit", None
                    else:  # new scoring options: the vectors are reused
                        _cached_table(model, cache)
    _check_picklable([m for m in models if m.scores is None], executor)

    with executor, _bar(len(models), progress) as bar:
        if plan.shared_words:
            _shared_words(plan, models, executor, cache, scoring, bar)
        else:
            bar.update(sum(m.scores is not None for m in models))
            todo = [m for m in models if m.scores is None]
            in_process = isinstance(executor, InProcess)
            jobs: list[Job] = [(score_only, (plan, m.table, m.description, m.identity)) if m.table is not None
                               else (read_and_score, (plan, m.job_task(in_process))) for m in todo]
            for i, value in executor.run(jobs):
                model = todo[i]
                if model.table is None:
                    table, model.description, identity, scores = value
                    if _unchanged(model, identity):
                        cache.put_vectors(model.vkey, table, model.description)  # type: ignore[union-attr]
                else:
                    scores = value
                if _unchanged(model, scores.identity):
                    cache.put_scores(_scores_key(model, scores.fingerprint, scoring), scores)  # type: ignore[union-attr]
                model.scores = compact(scores)
                model.table = model.source = None  # done: memory stays flat in the number of models
                bar.set_postfix_str(model.task.name, refresh=False)
                bar.update(1)
    return [m.scores for m in models], {m.task.name: m.status for m in models}  # type: ignore[misc]


def _cached_table(model: _Model, cache: ModelCache) -> None:
    got = cache.get_vectors(model.vkey)  # type: ignore[arg-type]
    if got is not None:
        model.table, model.description = got
        model.table.model = model.task.name  # vectors do not depend on the name


def _unchanged(model: _Model, identity: Mapping[str, Any] | None) -> bool:
    """Whether this model's entries may be written: cacheable, and not changed while read."""
    if model.vkey is None:
        return False
    if identity != model.identity:
        warnings.warn(CHANGED.format(name=model.task.name), WefeSameWarning, stacklevel=3)
        model.vkey = None
        return False
    return True


def _shared_words(plan: RunPlan, models: list[_Model], executor: Executor, cache: ModelCache | None,
                  scoring: str, bar: Any) -> None:
    """Stage 1: every model's table (cache or one read); stage 2: each scored on the shared words."""
    in_process = isinstance(executor, InProcess)
    todo = [m for m in models if m.table is None]
    for i, (table, description, identity) in executor.run([(read_only, (plan, m.job_task(in_process)))
                                                           for m in todo]):
        model = todo[i]
        model.table, model.description, model.source = table, description, None
        if model.vkey is None:  # not cached: the identity the job saw goes into the scores
            model.identity = identity
        elif _unchanged(model, identity):
            cache.put_vectors(model.vkey, table, description)  # type: ignore[union-attr]
    shared = shared_vocabulary([m.table for m in models], plan)  # type: ignore[misc]
    restricted = {id(m): restrict(m.table, shared) for m in models}  # type: ignore[arg-type]
    todo = []
    for model in models:
        if model.vkey is not None and cache is not None:
            model.scores = compact(cache.get_scores(_scores_key(model, restricted[id(model)].fingerprint(),
                                                                scoring)))
            model.status = "hit" if model.scores is not None else "miss"
        if model.scores is None:
            todo.append(model)
    bar.update(len(models) - len(todo))
    jobs: list[Job] = [(score_only, (plan, restricted[id(m)], m.description, m.identity)) for m in todo]
    for i, scores in executor.run(jobs):
        model = todo[i]
        if model.vkey is not None:
            cache.put_scores(_scores_key(model, scores.fingerprint, scoring), scores)  # type: ignore[union-attr]
        model.scores = compact(scores)
        bar.set_postfix_str(model.task.name, refresh=False)
        bar.update(1)


def _bar(total: int, progress: bool | None) -> Any:
    """One bar counting models; ``disable=None`` is tqdm's "only on a terminal"."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="model", desc="scoring", disable=None if progress is None else not progress)
