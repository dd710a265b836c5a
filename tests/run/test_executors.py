"""Scoring models through executors and the cache: no model read on a hit, resume after
SIGKILL, damaged entries recomputed, byte-identical tables in-process, on worker processes
and on a Dask LocalCluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, write_glove

from wefe_same import Bootstrap, Execution, Query, WordSet
from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.models.sources import ArraySource, LazySource
from wefe_same.models.specs import LoadOptions
from wefe_same.run.cache import ModelCache
from wefe_same.run.cache.codec import FORMAT_VERSION
from wefe_same.run.config import RankConfig
from wefe_same.run.executors import ExecutorError
from wefe_same.run.plan import ModelTask, make_plan, make_tasks
from wefe_same.run.score import score_models
from wefe_same.validation import InvalidParameterError

QUERY = Query(
    [WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
    [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])],
    name="toy",
)
NAMES = ["m0", "m1", "m2"]

# ----------------------------------------------------------------------------- tracing opens
_opened: list[str] | None = None
_watched: frozenset[str] = frozenset()


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.abspath(os.fsdecode(args[0]))
        if path in _watched:
            _opened.append(path)


sys.addaudithook(_audit)  # cannot be removed; inert unless `opens` is recording


@contextmanager
def opens(paths):
    """Record every open() of ``paths`` in this process while the block runs."""
    global _opened, _watched
    _opened, _watched = [], frozenset(os.path.abspath(p) for p in paths)
    try:
        yield _opened
    finally:
        _opened, _watched = None, frozenset()


# ----------------------------------------------------------------------------- fixtures
def write_model(path: Path, seed: int) -> Path:
    return write_glove(path, GENDER_WORDS, np.random.default_rng(seed).normal(size=(len(GENDER_WORDS), 6)))


@pytest.fixture
def model_files(tmp_path):
    return [write_model(tmp_path / f"{name}.txt", seed) for seed, name in enumerate(NAMES)]


def tasks_of(files):
    return make_tasks([f"glove:{p}" for p in files], LoadOptions())


@pytest.fixture(scope="module")
def plan():
    return make_plan(RankConfig(queries=QUERY, seed=3, permutations=50))


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")  # the test extra installs it: never skipped in CI
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def tables(scored) -> list[tuple]:
    """Everything a model contributes, as bytes: CSV of each table and the draw arrays."""
    return [(m.name, m.fingerprint, m.description, m.lookups.to_csv(), m.details.to_csv(), m.word_bias.to_csv(),
             {k: v.tobytes() for k, v in m.draws.items()}) for m in scored]


def cache_entries(root: Path, kind: str) -> list[Path]:
    return sorted((root / f"v{FORMAT_VERSION}" / kind).glob("*/*.entry"))


# ----------------------------------------------------------------------------- the cache in a run
@pytest.mark.parametrize("shared_words", [False, True])
def test_second_run_opens_no_model_file_and_gives_the_same_tables(tmp_path, model_files, shared_words):
    plan = make_plan(RankConfig(queries=QUERY, seed=3, permutations=50, shared_words=shared_words))
    cache = ModelCache(tmp_path / "cache")
    with opens(model_files) as opened:  # the trace sees a run that reads the models
        fresh, statuses = score_models(plan, tasks_of(model_files), cache=cache)
    assert statuses == dict.fromkeys(NAMES, "miss") and sorted(set(opened)) == [str(p) for p in model_files]
    assert len(cache_entries(cache.root, "vectors")) == len(cache_entries(cache.root, "scores")) == 3

    with opens(model_files) as opened:  # tasks are made inside: resolving a spec opens nothing either
        again, statuses = score_models(plan, tasks_of(model_files), cache=cache)
    assert opened == []
    assert statuses == dict.fromkeys(NAMES, "hit")
    assert tables(again) == tables(fresh)
    uncached, statuses = score_models(plan, tasks_of(model_files))
    assert tables(uncached) == tables(fresh) and statuses == dict.fromkeys(NAMES, "off")


@pytest.mark.parametrize("spill", [0, None])
def test_word_rows_go_to_the_word_table_as_models_finish(tmp_path, model_files, plan, spill):
    from wefe_same.output.word_table import WordTable
    from wefe_same.scoring.matrices import concat_word_bias

    cache = ModelCache(tmp_path / "cache")
    expected, _ = score_models(plan, tasks_of(model_files))
    for run in ("miss", "hit"):
        words = WordTable(spill_bytes=spill)
        scored, statuses = score_models(plan, tasks_of(model_files), cache=cache, words=words)
        assert set(statuses.values()) == {run}
        assert all(m.word_bias.empty for m in scored)  # the scores hold none of them
        pd.testing.assert_frame_equal(words.frame(), concat_word_bias(expected))
        assert [t[:5] for t in tables(scored)] == [t[:5] for t in tables(expected)]


def test_a_worker_pool_lets_go_of_each_result_once_yielded():
    import gc
    import weakref

    from wefe_same.run.executors import Processes

    refs = []
    with Processes(1) as executor:
        for _, value in executor.run([(np.ones, (1000,)) for _ in range(3)]):
            refs.append(weakref.ref(value))
            del value
            gc.collect()
            assert all(r() is None for r in refs)  # neither the pool nor its futures keep it


def test_changed_model_file_is_a_miss(tmp_path, model_files, plan):
    cache = ModelCache(tmp_path / "cache")
    first, _ = score_models(plan, tasks_of(model_files), cache=cache)
    write_model(model_files[1], seed=99)  # new vectors: new size or mtime
    stamp = model_files[2].stat()
    os.utime(model_files[2], ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))  # touched, same bytes
    again, statuses = score_models(plan, tasks_of(model_files), cache=cache)
    assert statuses == {"m0": "hit", "m1": "miss", "m2": "miss"}
    expected, _ = score_models(plan, tasks_of(model_files))
    assert tables(again) == tables(expected)
    assert tables(again)[2] == tables(first)[2] and tables(again)[1] != tables(first)[1]


def test_damaged_entries_are_recomputed_never_trusted(tmp_path, model_files, plan):
    cache = ModelCache(tmp_path / "cache")
    first, _ = score_models(plan, tasks_of(model_files), cache=cache)
    scores0 = next(p for p in cache_entries(cache.root, "scores") if b'"name": {"json": "m0"}' in p.read_bytes())
    data = bytearray(scores0.read_bytes())
    data[-3] ^= 0x10  # one flipped bit in the last table's bytes
    scores0.write_bytes(bytes(data))
    vectors1 = next(p for p in cache_entries(cache.root, "vectors") if b'"model": "m1"' in p.read_bytes())
    vectors1.write_bytes(vectors1.read_bytes()[:100])  # truncated
    with pytest.warns(WefeSameWarning, match="is damaged") as record:
        again, statuses = score_models(plan, tasks_of(model_files), cache=cache)
    assert sorted(str(p) for p in (scores0, vectors1)) == sorted(
        next(s for s in str(w.message).split() if s.endswith(".entry")) for w in record)
    assert statuses == {"m0": "miss", "m1": "miss", "m2": "hit"}
    assert tables(again) == tables(first)
    third, statuses = score_models(plan, tasks_of(model_files), cache=cache)  # rewritten whole
    assert statuses == dict.fromkeys(NAMES, "hit") and tables(third) == tables(first)


# ----------------------------------------------------------------------------- resume after SIGKILL
KILLED_RUN = """
import sys, time
import wefe_same.run.score as score
from wefe_same import Query, WordSet, rank

real = score.score_table

def slow(table, plan, *args, **kwargs):
    if table.model == "m2":  # the last model: killed while it is being scored
        print("scoring m2", flush=True)
        time.sleep(300)
    return real(table, plan, *args, **kwargs)

score.score_table = slow
query = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
rank(sys.argv[2:], queries=query, seed=3, permutations=50, cache=sys.argv[1], progress=False)
"""


def result_tables(result) -> dict[str, str]:
    """Every table of a RankResult as CSV text."""
    out = {}
    for name, value in vars(result).items():
        if isinstance(value, pd.DataFrame):
            out[name] = value.to_csv()
        elif isinstance(value, dict) and value and all(isinstance(v, pd.DataFrame) for v in value.values()):
            out.update({f"{name}/{k}": v.to_csv() for k, v in value.items()})
    return out


def test_run_killed_with_sigkill_resumes_with_the_same_tables(tmp_path, model_files):
    from wefe_same import rank

    cache = tmp_path / "cache"
    specs = [f"glove:{p}" for p in model_files]
    script = tmp_path / "killed_run.py"
    script.write_text(textwrap.dedent(KILLED_RUN))
    proc = subprocess.Popen([sys.executable, str(script), str(cache), *specs], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "scoring m2\n", proc.stderr.read()  # m0 and m1 are done
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        proc.kill()
    assert len(cache_entries(cache, "scores")) == 2
    assert not [p for p in cache.rglob("*") if p.is_file() and p.suffix != ".entry"]

    resumed = rank(specs, queries=QUERY, seed=3, permutations=50, execution=Execution(cache=cache, progress=False))
    assert {m["name"]: m["cache"] for m in resumed.manifest["models"]} == {"m0": "hit", "m1": "hit", "m2": "miss"}
    whole = rank(specs, queries=QUERY, seed=3, permutations=50, execution=Execution(cache=False, progress=False))
    assert {m["cache"] for m in whole.manifest["models"]} == {"off"}
    assert result_tables(resumed) == result_tables(whole) and len(result_tables(whole)) > 5


# ----------------------------------------------------------------------------- executors
def test_in_process_workers_and_dask_give_byte_identical_tables(tmp_path, model_files, cluster):
    plan = make_plan(RankConfig(queries=QUERY, seed=3, permutations=50, bootstrap=Bootstrap(words=2, halves=2)))
    # A ModelSource object given by the user travels to the workers by pickle.
    array = ArraySource("arr", GENDER_WORDS, np.random.default_rng(7).normal(size=(len(GENDER_WORDS), 6)))
    tasks = [*tasks_of(model_files), ModelTask("arr", array, LoadOptions())]
    cache = ModelCache(tmp_path / "cache")

    local, statuses = score_models(plan, tasks)
    assert statuses == dict.fromkeys([*NAMES, "arr"], "off") and set(local[0].draws) == {"bootstrap_words", "halves"}
    workers, statuses = score_models(plan, tasks, workers=2, cache=cache)
    assert statuses == {**dict.fromkeys(NAMES, "miss"), "arr": "off"}  # written by the parent, as they came
    dask, _ = score_models(plan, tasks, scheduler=cluster.scheduler_address)
    cached, statuses = score_models(plan, tasks, cache=cache)
    assert statuses == {**dict.fromkeys(NAMES, "hit"), "arr": "off"}
    assert tables(local) == tables(workers) == tables(dask) == tables(cached)
    assert [m.name for m in dask] == [*NAMES, "arr"]  # task order, whatever finished first


def test_shared_words_on_dask_equal_in_process(tmp_path, cluster):
    """The first pass reads every model, the second scores the words all have: one model lacks "nurse"."""
    files = [write_model(tmp_path / f"{n}.txt", s) for s, n in enumerate(NAMES[:2])]
    short = [w for w in GENDER_WORDS if w != "nurse"]
    files.append(write_glove(tmp_path / "m2.txt", short, np.random.default_rng(5).normal(size=(len(short), 6))))
    plan = make_plan(RankConfig(queries=QUERY, seed=3, permutations=50, shared_words=True))
    local, _ = score_models(plan, tasks_of(files))
    dask, _ = score_models(plan, tasks_of(files), scheduler=cluster.scheduler_address)
    assert tables(local) == tables(dask)
    statuses = {m.name: dict(zip(m.lookups["word"], m.lookups["status"]))["nurse"] for m in local}
    assert statuses == {"m0": "not shared", "m1": "not shared", "m2": "missing"}


def test_worker_error_is_the_original_one_line_error(tmp_path, model_files, plan, cluster):
    bad = tmp_path / "bad.txt"
    bad.write_text("he 1 2\nshe 1\n")
    tasks = tasks_of([model_files[0], bad])
    messages = []
    for options in ({}, {"scheduler": cluster.scheduler_address}):
        with pytest.raises(ModelError) as err:
            score_models(plan, tasks, cache=ModelCache(tmp_path / "cache"), **options)
        assert err.value.__cause__ is None and "\n" not in str(err.value)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == f"{bad}:2: word 'she' has 1 numbers, expected 2 numbers"


class Dies(ArraySource):
    """A model whose reading kills its process, as the kernel's OOM killer would."""

    def lookup(self, words):
        os.kill(os.getpid(), signal.SIGKILL)


def test_worker_processes_raise_the_original_error(tmp_path, plan):
    bad = tmp_path / "bad.txt"
    bad.write_text("he 1 2\nshe 1\n")
    with pytest.raises(ModelError, match=r"bad.txt:2: word 'she' has 1 numbers") as err:
        score_models(plan, tasks_of([bad]), workers=2)
    assert err.value.__cause__ is None and "\n" not in str(err.value)
    dies = ModelTask("dies", Dies("dies", GENDER_WORDS, np.ones((len(GENDER_WORDS), 3))), LoadOptions())
    with pytest.raises(ExecutorError, match=r"^a worker process ended abruptly \(killed, or out of memory\)"):
        score_models(plan, [dies], workers=2)


def test_unpicklable_source_is_refused_before_any_work(tmp_path, plan):
    def build():
        return ArraySource("lazy", GENDER_WORDS, np.ones((len(GENDER_WORDS), 3)))

    lazy = LazySource("lazy", lambda: build(), {"kind": "test"}, identity={"kind": "test", "version": 1})
    task = ModelTask("lazy", lazy, LoadOptions())
    cache = ModelCache(tmp_path / "cache")
    started = time.perf_counter()
    with pytest.raises(ModelError) as err:
        score_models(plan, [task], workers=2, cache=cache)
    assert str(err.value).startswith("model 'lazy': a ModelSource object sent to worker processes must be "
                                     "picklable (")
    assert "give a model spec string instead, or run in-process (workers=1)" in str(err.value)
    assert time.perf_counter() - started < 2 and cache_entries(cache.root, "scores") == []  # no pool started
    scored, statuses = score_models(plan, [task], cache=cache)  # in-process it works, and is cached
    assert statuses == {"lazy": "miss"} and scored[0].details["value"].notna().any()


def test_executor_arguments_are_checked(plan, monkeypatch):
    import wefe_same.run.executors as executors

    with pytest.raises(InvalidParameterError, match="'workers' parameter of score_models must be an integer >= 1"):
        score_models(plan, [], workers=0)
    with pytest.raises(InvalidParameterError, match="'workers' parameter of score_models must be 1 when a sched"):
        score_models(plan, [], workers=2, scheduler="tcp://127.0.0.1:1")
    monkeypatch.setattr(executors, "SCHEDULER_TIMEOUT", "0.5s")
    with pytest.raises(ExecutorError, match=r"^cannot reach the Dask scheduler at 'tcp://127.0.0.1:1' \("):
        score_models(plan, [], scheduler="tcp://127.0.0.1:1")


def test_progress_bar_counts_models(tmp_path, model_files, plan, capsys):
    cache = ModelCache(tmp_path / "cache")
    score_models(plan, tasks_of(model_files), cache=cache, progress=True)
    score_models(plan, tasks_of(model_files), cache=cache, progress=False)
    err = capsys.readouterr().err
    assert err.count("scoring:   0%|") == 1 and "| 3/3 [" in err  # one bar (progress=False draws none)


def test_new_scoring_options_reuse_the_cached_vectors(tmp_path, model_files, plan):
    cache = ModelCache(tmp_path / "cache")
    score_models(plan, tasks_of(model_files), cache=cache)
    other = make_plan(RankConfig(queries=QUERY, seed=4, permutations=50))  # another seed: new scores, same vectors
    with opens(model_files) as opened:
        again, statuses = score_models(other, tasks_of(model_files), cache=cache)
    assert opened == [] and statuses == dict.fromkeys(NAMES, "miss")
    assert len(cache_entries(cache.root, "vectors")) == 3 and len(cache_entries(cache.root, "scores")) == 6
    expected, _ = score_models(other, tasks_of(model_files))
    assert tables(again) == tables(expected)


class Drifting(ArraySource):
    """A model whose identity changes each time it is asked (a file rewritten while read)."""

    calls = 0

    def identity(self):
        Drifting.calls += 1
        return {"kind": "drifting", "call": Drifting.calls}


@pytest.mark.parametrize("shared_words", [False, True])
def test_model_changed_while_read_is_not_cached(tmp_path, shared_words):
    plan = make_plan(RankConfig(queries=QUERY, seed=3, permutations=50, shared_words=shared_words))
    source = Drifting("drift", GENDER_WORDS, np.random.default_rng(1).normal(size=(len(GENDER_WORDS), 4)))
    cache = ModelCache(tmp_path / "cache")
    with pytest.warns(WefeSameWarning, match=r"^model 'drift' changed while it was read .* not written$"):
        scored, _ = score_models(plan, [ModelTask("drift", source, LoadOptions())], cache=cache)
    assert cache.entries() == []
    expected, _ = score_models(plan, [ModelTask("drift", source, LoadOptions())])
    assert tables(scored) == tables(expected)


def test_cached_run_with_quality_opens_no_model_file(tmp_path, model_files):
    from wefe_same import rank
    from wefe_same.quality import evaluate_quality

    pairs, questions = tmp_path / "pairs.txt", tmp_path / "questions.txt"
    pairs.write_text("he she 5.0\nman woman 6.0\ndoctor nurse 7.0\nengineer teacher 3.0\n")
    questions.write_text(": gender\nhe she man woman\nman woman he she\ndoctor nurse engineer teacher\n")
    benchmarks = [f"sim:{pairs}", f"analogy:{questions}"]
    models = [f"glove:{p}" for p in model_files]
    options = dict(queries=QUERY, metrics=["WEAT", "SAME"], permutations=0, quality=benchmarks)
    root = tmp_path / "cache"
    first = rank(models, **options, execution=Execution(cache=root, progress=False))
    assert len(cache_entries(root, "quality")) == 3
    with opens(model_files) as opened:
        again = rank(models, **options, execution=Execution(cache=root, progress=False))
    assert opened == [] and [m["cache"] for m in again.manifest["models"]] == ["hit"] * 3
    pd.testing.assert_frame_equal(again.quality, first.quality)
    assert again.rankings.to_csv() == first.rankings.to_csv()
    # one model at a time, cached or not: the table of one evaluate_quality over every model
    expected = evaluate_quality(models, benchmarks, progress=False)
    pd.testing.assert_frame_equal(first.quality, expected)
    pd.testing.assert_frame_equal(rank(models, **options, execution=Execution(cache=False, progress=False)).quality, expected)
    pairs.write_text("he she 5.0\nman woman 6.0\ndoctor nurse 7.0\nengineer teacher 4.0\n")  # a new benchmark file
    with opens(model_files) as opened:
        changed = rank(models, **options, execution=Execution(cache=root, progress=False))
    assert sorted(set(opened)) == [str(p) for p in model_files]  # scores are hits; quality is computed again
    pd.testing.assert_frame_equal(changed.quality, evaluate_quality(models, benchmarks, progress=False))


def test_a_run_collects_cycles_less_often_and_puts_the_collector_back(monkeypatch):
    """Inside a run the collector skips the objects made before it (frozen) and its young
    generation is larger; both come back afterwards, also when the run fails."""
    import gc

    import wefe_same.run.pipeline as pipeline
    from wefe_same import rank
    from wefe_same.processes import RUN_GC_THRESHOLD

    seen = []
    score_models = pipeline.score_models

    def spy(*args, **kwargs):
        seen.append((gc.get_threshold()[0], gc.get_freeze_count()))
        return score_models(*args, **kwargs)

    monkeypatch.setattr(pipeline, "score_models", spy)
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    rank(["glove-6b-50d"], queries="religion", metrics=["WEAT"], permutations=10,
         execution=Execution(cache=False, progress=False))
    assert seen[0][0] == RUN_GC_THRESHOLD and seen[0][1] > frozen
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen

    def fail(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "score_models", fail)
    with pytest.raises(KeyboardInterrupt):
        rank(["glove-6b-50d"], queries="religion", metrics=["WEAT"], permutations=10,
             execution=Execution(cache=False, progress=False))
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


def test_one_thread_limits_blas_through_one_controller_per_process(monkeypatch):
    from threadpoolctl import threadpool_info

    import wefe_same.processes as processes

    monkeypatch.setattr(processes, "_CONTROLLERS", {})
    before = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    controllers = []
    for _ in range(3):
        with processes.one_thread():
            assert all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
        controllers.append(processes._CONTROLLERS["blas"])
    assert all(c is controllers[0] for c in controllers)  # listed the libraries once, not per block
    assert [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"] == before


def test_a_dask_jobs_warnings_come_back_with_its_result_once_per_model_and_kind(cluster):
    """As in-process and on worker processes (tests/test_voice.py): one voice wherever a job runs."""
    import warnings

    from wefe_same.errors import WarningLog, model_warning
    from wefe_same.run.executors import Dask

    log, names = WarningLog(), ["m", "m", "n"]
    jobs = [(warnings.warn, (model_warning("3 text(s) are cut", kind="cut"),)),
            (warnings.warn, (model_warning("5 text(s) are cut", kind="cut"),)),
            (np.multiply, (np.float64(1e308), np.float64(10)))]
    with warnings.catch_warnings(record=True) as shown, Dask(cluster.scheduler_address) as executor:
        warnings.simplefilter("always")
        done = sorted(i for i, _ in executor.run(jobs, said=lambda i, caught: log.add(caught, names[i])))
    assert done == [0, 1, 2]
    assert len(log.messages) == 2
    assert len([m for m in log.messages if m in ("3 text(s) are cut", "5 text(s) are cut")]) == 1
    assert len([m for m in log.messages if m.startswith("model 'n': a numeric step gave values beyond float64")]) == 1
    assert [str(w.message) for w in shown if w.category is WefeSameWarning] == log.messages


def _collector_and_blas() -> tuple[int, bool, list[int]]:
    """A job: the young generation's threshold, whether objects are frozen, the BLAS threads."""
    import gc

    from threadpoolctl import threadpool_info

    return (gc.get_threshold()[0], gc.get_freeze_count() > 0,
            [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"])


def test_a_worker_process_scores_with_the_runs_collector_and_one_blas_thread():
    """A job in a worker process runs as a job of the run's own process does: the cycle
    collector skips the worker's imports (frozen) and collects less often, one BLAS thread."""
    from wefe_same.processes import RUN_GC_THRESHOLD
    from wefe_same.run.executors import Processes

    with Processes(2) as executor:
        got = [value for _, value in executor.run([(_collector_and_blas, ())] * 2)]
    assert len(got) == 2
    for threshold, frozen, blas in got:
        assert threshold == RUN_GC_THRESHOLD and frozen and blas and all(n == 1 for n in blas)


def test_without_a_cache_a_job_sends_no_table_back(tmp_path, model_files, plan):
    """The table comes back from a job only for the cache: without one, a worker would pickle
    a 768-d model's ~45 MB for nothing. The scores are those of a run with the table."""
    from wefe_same.run.score import read_and_score
    from wefe_same.scoring.context import ScoringContext

    task = tasks_of(model_files[:1])[0]
    context = ScoringContext(plan)
    table, description, identity, scores = read_and_score(context, task, False)
    assert table is None and identity is None and description["kind"] == "glove"
    kept, _, identity, again = read_and_score(context, task, True)
    assert kept is not None and kept.fingerprint() == scores.fingerprint == again.fingerprint
    assert identity is not None
    assert tables([scores]) == tables([again])


# ----------------------------------------------------------------------------- a run's state in a worker
def memo_of_this_process(context, n):
    """Job: remember one value in the run's memo; which memo object this process holds, and how full."""
    context.memo.put("svd", n, n)
    return os.getpid(), id(context.memo), context.memo.sizes()["svd"]


def test_a_worker_keeps_the_runs_context_between_its_jobs_and_a_new_run_gets_its_own():
    from wefe_same.run.executors import Processes
    from wefe_same.scoring.context import ScoringContext

    plan = make_plan(RankConfig(queries=[QUERY], metrics=["WEAT"], permutations=0,
                                execution=Execution(progress=False)))
    first, second = ScoringContext(plan), ScoringContext(plan)
    assert first.worker_key != second.worker_key
    with Processes(1) as pool:  # one worker: every job in one process, each with its own pickled copy
        jobs = [(memo_of_this_process, (first, n)) for n in range(3)] + [(memo_of_this_process, (second, 9))]
        got = [value for _, value in sorted(pool.run(jobs))]
    assert len({pid for pid, _, _ in got}) == 1
    assert [filled for _, _, filled in got] == [1, 2, 3, 1]  # the run's memo grows; the next run's starts empty
    assert len({memo for _, memo, _ in got[:3]}) == 1  # one object for the run's three jobs
    assert first.memo.sizes() == {}  # the parent's own memo: the workers' copies are theirs
