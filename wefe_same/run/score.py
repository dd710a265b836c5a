"""The score stage of rank: score every model, one job per model, through an executor and the cache.

The cache (:mod:`wefe_same.run.cache`) is read and written by the calling process only;
workers compute (:mod:`wefe_same.run.executors`). Each model's entries are written as
soon as it finishes, so a run killed at any point (SIGKILL included) and started again
recomputes only the models that had not finished. Once a model's scores are in, nothing
else of it is kept (its source, which holds the whole model once read, and its table), so
memory stays flat in the number of models. From the command line, encoder models are
scored first, in one short-lived worker process, so torch's memory goes back when it
ends (:func:`_isolated`). A model whose scores are cached is
never read: only its ``identity()`` (file stats) is computed, and its vectors entry's
header gives its table's fingerprint (part of the scores key) without reading the vectors.

With ``plan.shared_words`` the stage makes two passes: every model's table is read first
(from the cache when it holds the vectors), then each model is scored on the words
every model has (:func:`~wefe_same.scoring.matrices.shared_vocabulary`,
:func:`~wefe_same.scoring.matrices.restrict`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wefe_same.errors import ModelError, WarningLog, WefeSameWarning
from wefe_same.models.encoders import EncoderSource
from wefe_same.models.sources import ModelSource
from wefe_same.output.word_table import WordTable
from wefe_same.processes import one_thread, release_freed_memory
from wefe_same.run.cache import CacheStatus, ModelCache, scores_key, vectors_key
from wefe_same.run.executors import Executor, InProcess, Job, Processes, check_picklable, make_executor
from wefe_same.run.plan import ModelTask, RunPlan
from wefe_same.scoring.context import ScoringContext
from wefe_same.scoring.matrices import restrict, shared_vocabulary
from wefe_same.scoring.model import load_table, score_table
from wefe_same.scoring.scores import ModelScores, compact, expand_scores
from wefe_same.scoring.vectors import VectorTable, read_spec

CHANGED = ("model {name!r} changed while it was read (its identity is not the same before and after); "
           "its cache entries are not written")


# ----------------------------------------------------------------------------- jobs
# Each job gets the run's ScoringContext (its plan and what scoring derives from it once);
# in-process every job shares it, a worker process gets a copy.
# ``identify``: the run has a cache (the identity is its key; without one nothing is hashed for it).
def read_and_score(context: ScoringContext, task: ModelTask, identify: bool = True) -> tuple[
        VectorTable | None, dict[str, str], dict[str, Any] | None, ModelScores]:
    """Job: one lookup pass over the model, then every metric. Its table comes back for the
    cache (``identify``: the run has one); without a cache, None: from a worker process the
    table would be pickled, sent and unpickled for nothing."""
    table, description, identity = load_table(task, context.plan.words, identify=identify)
    scores = score_table(table, context.plan, description, identity, context=context)
    return (table if identify else None), description, identity, scores


def read_pass(context: ScoringContext, task: ModelTask,
              identify: bool = True) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """Job: one lookup pass over the model (the first pass of a shared-words run)."""
    return load_table(task, context.plan.words, identify=identify)


def score_only(context: ScoringContext, table: VectorTable, description: Mapping[str, str],
               identity: Mapping[str, Any] | None) -> ModelScores:
    """Job: every metric on a table already read (cached vectors, or the second pass)."""
    return score_table(table, context.plan, description, identity, context=context)


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
    position: int = 0  # in the run
    words: WordTable | None = None

    def keep(self, scores: ModelScores | None) -> None:
        """Hold the model's compacted scores; its per-word rows go to the run's word table."""
        kept = compact(scores)
        if kept is not None and self.words is not None:
            self.words.add(self.position, kept.word_bias)
            kept = dataclasses.replace(kept, word_bias=kept.word_bias.iloc[:0])
        self.scores = kept

    def job_task(self, in_process: bool) -> ModelTask:
        """In-process the source resolved for the identity is reused; workers resolve the spec."""
        if in_process and self.source is not None:
            return dataclasses.replace(self.task, spec=self.source)
        return self.task


def source_identity(source: ModelSource, name: str) -> dict[str, Any] | None:
    """A model's ``identity()`` (file stats, no model byte read), or None when it has none."""
    try:
        return source.identity()
    except OSError as err:
        raise ModelError(f"model {name!r}: cannot stat its files ({err})") from None


def _identify(model: _Model, plan: RunPlan) -> None:
    """Resolve the model and compute its cache key from its identity."""
    model.source = model.task.source()
    identity = source_identity(model.source, model.task.name)
    if identity is not None:
        model.identity = identity
        model.vkey = vectors_key(identity, plan.words)


def _scores_key(model: _Model, fingerprint: str, scoring: str) -> str:
    assert model.vkey is not None
    return scores_key(model.vkey, fingerprint, model.task.name, scoring)


# ----------------------------------------------------------------------------- the stage
def score_models(
    plan: RunPlan,
    tasks: Sequence[ModelTask],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    cache: ModelCache | None = None,
    progress: bool | None = None,
    words: WordTable | None = None,
    log: WarningLog | None = None,
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
    words : WordTable, optional
        Where each model's per-word rows go as soon as its scores are in; its
        ``ModelScores.word_bias`` is then left empty, so the caller does not hold every
        model's rows (~10⁵ each) until the end. None: they stay in the scores.
    log : WarningLog, optional
        The run's warnings: each model's (from whichever process read or scored it) go
        here once per model and kind. None: a log of this call's own.

    Returns
    -------
    scores : list of ModelScores
        In task order.
    statuses : dict
        Model name → "hit" (scores read from the cache, the model not read), "miss"
        (computed and written) or "off" (no cache, or a model without identity).
    """
    executor = make_executor(workers, scheduler)
    context = ScoringContext(plan)  # the run's scoring state, handed to every job
    models = [_Model(t, position=i, words=words) for i, t in enumerate(tasks)]
    log = WarningLog() if log is None else log
    scoring = plan.scoring_key() if cache is not None else ""
    if cache is not None:
        for model in models:
            _identify(model, plan)
            if model.vkey is not None:
                model.status = "miss"
                if plan.shared_words:  # every table is needed for the shared vocabulary
                    _cached_table(model, cache)
                    continue
                # The table's fingerprint keys the scores: read from the vectors entry's header
                # (the vectors themselves are read only when the scores are not there).
                fingerprint = cache.vectors_fingerprint(model.vkey)
                got = cache.get_scores(_scores_key(model, fingerprint, scoring)) if fingerprint else None
                if got is not None and got.fingerprint == fingerprint:
                    model.keep(got)
                    model.status, model.source = "hit", None
                else:  # new scoring options (or no vectors entry): the cached vectors are scored again
                    _cached_table(model, cache)
    check_picklable([m.task for m in models if m.scores is None], executor)

    with executor, _bar(len(models), progress) as bar:
        if plan.shared_words:
            _shared_words(context, models, executor, cache, scoring, bar, log)
        else:
            bar.update(sum(m.scores is not None for m in models))
            todo = [m for m in models if m.scores is None]
            in_process = isinstance(executor, InProcess)
            encoders: contextlib.AbstractContextManager[list[_Model]] = (
                _isolated(context, todo, cache, scoring, bar, log) if in_process else contextlib.nullcontext([]))
            with encoders as beside:
                later = {id(m) for m in beside}  # read by the ONNX worker meanwhile, scored when the block ends
                todo = [m for m in todo if m.scores is None and id(m) not in later]
                jobs: list[Job] = [(score_only, (context, m.table, m.description, m.identity))
                                   if m.table is not None
                                   else (read_and_score, (context, m.job_task(in_process), cache is not None))
                                   for m in todo]
                # Only the executor holds the jobs from here, and lets each go once run: in-process
                # a job's task holds its source, which holds the whole model once read.
                results = executor.run(jobs, said=log.of_jobs([m.task.name for m in todo]))
                del jobs
                for i, value in results:
                    _finish(todo[i], value, cache, scoring, bar)
                    value = None  # the table lives no longer than it takes to write its entries
    return [m.scores for m in models], {m.task.name: m.status for m in models}  # type: ignore[misc]


@contextlib.contextmanager
def _isolated(context: ScoringContext, todo: list[_Model], cache: ModelCache | None, scoring: str,
              bar: Any, log: WarningLog) -> Iterator[list[_Model]]:
    """Read the encoder models of an in-process run in worker processes of their own; yields
    the models still being read while the caller scores the others (see below).

    An encoder imports torch (or onnxruntime) and its weights, memory that a process
    keeps after the model is read (imported libraries and allocator caches are not given
    back). In a worker all of it goes back when the worker ends; run first, the worker
    runs beside a parent that has read no model yet, so the whole process tree stays
    smallest. One worker per backend (torch, onnxruntime) reads its encoders in turn: the
    library is imported and set up once per run, not once per model, and no worker holds
    two runtimes at once. Each model's weights are let go once its table is read
    (:func:`~wefe_same.scoring.vectors.read_spec`), so a worker does not grow with the
    number of encoders. The worker only reads the table (``read_spec`` imports neither
    pandas nor scipy nor the metrics); this process scores it, while the worker reads the
    next encoder (the last one of a worker is scored after the worker has ended, so that a
    run of one encoder per backend never holds the worker and the scoring at once). Only
    models given as spec strings go (a ModelSource object may not be picklable).

    torch's worker, the larger, runs alone, before the other models are read.
    onnxruntime's runs beside them: its models are yielded, read meanwhile and scored when
    the block ends. What each costs is measured in benchmarks/RESULTS.md.
    """
    if not _spawn_safe():
        yield []
        return
    by_backend: dict[str, list[_Model]] = {}
    for m in todo:
        if m.table is None and isinstance(m.task.spec, str):
            source = m.source if m.source is not None else m.task.source()
            if isinstance(source, EncoderSource):
                by_backend.setdefault(_runtime(source), []).append(m)
    light = by_backend.pop("onnxruntime", [])
    held: tuple[_Model, Any] | None = None  # a worker's last read: scored once the worker has ended
    for heavy in by_backend.values():
        if held is not None:
            _score_read(context, *held, cache, scoring, bar, log)
            held = None
        with Processes(1) as executor:
            results = executor.run(_read_jobs(context.plan.words, heavy, cache is not None),
                                   said=log.of_jobs([m.task.name for m in heavy]))
            for done, (i, value) in enumerate(results, start=1):
                if done == len(heavy):  # the worker and this scoring never peak together
                    held = (heavy[i], value)
                    break
                _score_read(context, heavy[i], value, cache, scoring, bar, log)
                value = None
    with contextlib.ExitStack() as stack:
        light_results: Iterator[tuple[int, Any]] = iter(())
        if light:  # started before the held read is scored: that scoring is not on its path
            executor = stack.enter_context(Processes(1))
            # submitted: the worker starts now
            light_results = executor.run(_read_jobs(context.plan.words, light, cache is not None),
                                         said=log.of_jobs([m.task.name for m in light]))
            executor.close_when_done()  # and exits once read, not when the other models are done
        if held is not None:
            _score_read(context, *held, cache, scoring, bar, log)
            held = None
        yield light
        for i, value in light_results:
            _score_read(context, light[i], value, cache, scoring, bar, log)
            value = None


def _read_jobs(words: Collection[str], models: list[_Model], identify: bool) -> list[Job]:
    """One worker's reads; the first has every core (the parent has nothing to score meanwhile)."""
    return [(functools.partial(read_spec, spare_core=i > 0, identify=identify), (m.task.spec, m.task.options, words))
            for i, m in enumerate(models)]


def _score_read(context: ScoringContext, model: _Model,
                read: tuple[VectorTable, dict[str, str], dict[str, Any] | None],
                cache: ModelCache | None, scoring: str, bar: Any, log: WarningLog) -> None:
    """Score a table an encoder's worker read, here, and write its entries."""
    table, description, identity = read
    with one_thread(), log.capture(model.task.name):  # one BLAS thread: the same bytes as every other job
        scores = score_table(table, context.plan, description, identity, context=context)
    _finish(model, (table, description, identity, scores), cache, scoring, bar)


def _runtime(source: EncoderSource) -> str:
    """The library an encoder runs on: sentence-transformers and transformers share torch."""
    return "onnxruntime" if source.settings.backend == "onnx" else "torch"


def _spawn_safe() -> bool:
    """Whether a "spawn" worker can start here without running the caller's script again.

    A spawned process imports the main module; a user's script that calls ``rank`` at top
    level (no ``if __name__ == "__main__"``) would then fail. Only the command line
    (``wefe-same``, ``python -m wefe_same.cli``) is known to be safe.
    """
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and (spec.name or "").startswith("wefe_same."):
        return True
    return os.path.basename(getattr(main, "__file__", None) or "") == "wefe-same"


def _finish(model: _Model, value: Any, cache: ModelCache | None, scoring: str, bar: Any) -> None:
    """Write a finished job's entries; of the model only its compacted scores stay."""
    if model.table is None:
        table, model.description, identity, scores = value
        if _unchanged(model, identity) and cache is not None and model.vkey is not None:
            cache.put_vectors(model.vkey, table, model.description)
    else:
        scores = value
    if _unchanged(model, scores.identity):
        cache.put_scores(_scores_key(model, scores.fingerprint, scoring), expand_scores(scores))  # type: ignore[union-attr]
    model.keep(scores)
    # done: nothing of the model is kept, so memory stays flat in the number of models
    model.table = model.source = None
    release_freed_memory()
    bar.set_postfix_str(model.task.name, refresh=False)
    bar.update(1)


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


def _shared_words(context: ScoringContext, models: list[_Model], executor: Executor, cache: ModelCache | None,
                  scoring: str, bar: Any, log: WarningLog) -> None:
    """First pass: every model's table (cache or one read); second pass: each scored on the shared words."""
    in_process = isinstance(executor, InProcess)
    todo = [m for m in models if m.table is None]
    jobs: list[Job] = [(read_pass, (context, m.job_task(in_process), cache is not None)) for m in todo]
    for i, (table, description, identity) in executor.run(jobs, said=log.of_jobs([m.task.name for m in todo])):
        model = todo[i]
        model.table, model.description, model.source = table, description, None
        if model.vkey is None:  # not cached: the identity the job saw goes into the scores
            model.identity = identity
        elif _unchanged(model, identity):
            cache.put_vectors(model.vkey, table, description)  # type: ignore[union-attr]
    shared = shared_vocabulary([m.table for m in models], context.plan)  # type: ignore[misc]
    restricted = {id(m): restrict(m.table, shared) for m in models}  # type: ignore[arg-type]
    todo = []
    for model in models:
        if model.vkey is not None and cache is not None:
            model.keep(cache.get_scores(_scores_key(model, restricted[id(model)].fingerprint(), scoring)))
            model.status = "hit" if model.scores is not None else "miss"
        if model.scores is None:
            todo.append(model)
    bar.update(len(models) - len(todo))
    jobs = [(score_only, (context, restricted[id(m)], m.description, m.identity)) for m in todo]
    for i, scores in executor.run(jobs, said=log.of_jobs([m.task.name for m in todo])):
        model = todo[i]
        if model.vkey is not None:
            cache.put_scores(_scores_key(model, scores.fingerprint, scoring), expand_scores(scores))  # type: ignore[union-attr]
        model.keep(scores)
        bar.set_postfix_str(model.task.name, refresh=False)
        bar.update(1)


def _bar(total: int, progress: bool | None) -> Any:
    """One bar counting models; ``disable=None`` is tqdm's "only on a terminal"."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="model", desc="scoring", disable=None if progress is None else not progress)
