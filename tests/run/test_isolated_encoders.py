"""From the command line an encoder is read in a short-lived worker of its own.

The worker only reads the table (:func:`wefe_same.scoring.vectors.read_spec`); the parent
scores it. The path runs only where a "spawn" worker cannot re-run a user's script
(:func:`wefe_same.run.score._spawn_safe`), so these tests force it in a fresh process
and check (1) the scores are the same bytes as an in-process run's, (2) the parent never
imported the encoder's runtime, (3) the worker imports neither pandas nor scipy of ours.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.errors import WarningLog

QUERY = Query([WordSet("male", ["he", "man", "boy"]), WordSet("female", ["she", "woman", "girl"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
MODEL = "paraphrase-minilm-l3-v2"  # ONNX: the fastest encoder of the catalog

CHILD = r"""
import json, sys
import wefe_same.run.score as score
from wefe_same import Query, WordSet, rank
score._spawn_safe = lambda: True  # what the command line gets
query = Query([WordSet("male", ["he", "man", "boy"]), WordSet("female", ["she", "woman", "girl"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
result = rank(models=[sys.argv[1]], queries=query, metrics=["WEAT", "MAC", "RNSB"], seed=3, permutations=50,
              cache=False, progress=False)
print(json.dumps({"scores": result.scores["WEAT"].to_json(double_precision=15) + result.scores["MAC"].to_json(
    double_precision=15) + result.scores["RNSB"].to_json(double_precision=15),
                  "parent_imported": sorted(m for m in ("onnxruntime", "torch") if m in sys.modules)}))
"""


def test_an_encoder_read_in_its_own_worker_scores_the_same_bytes_and_stays_out_of_the_parent():
    out = subprocess.run([sys.executable, "-c", CHILD, MODEL], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    child = json.loads(out.stdout.strip().splitlines()[-1])
    assert child["parent_imported"] == []  # the encoder ran elsewhere
    here = rank(models=[MODEL], queries=QUERY, metrics=["WEAT", "MAC", "RNSB"], seed=3, permutations=50,
                execution=Execution(cache=False, progress=False))
    assert child["scores"] == (here.scores["WEAT"].to_json(double_precision=15)
                               + here.scores["MAC"].to_json(double_precision=15)
                               + here.scores["RNSB"].to_json(double_precision=15))


def test_the_reading_job_imports_neither_pandas_nor_scipy():
    code = ("import sys; from wefe_same.scoring.vectors import read_spec; import wefe_same.run.executors; "
            "print(sorted(m for m in ('pandas', 'scipy', 'wefe_same.metrics.registry') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_torch_leaves_the_parent_a_core_except_for_a_workers_first_model(monkeypatch):
    """The parent scores model k while the worker reads model k + 1; while the worker
    reads its first model the parent has nothing to score, so torch gets every core."""
    import os

    import wefe_same.run.score as score
    import wefe_same.scoring.vectors as vectors
    from wefe_same.models import LoadOptions
    from wefe_same.run.plan import ModelTask

    threads = []

    def read_table(source, words, identify=True):
        threads.append(source.threads)
        return types.SimpleNamespace(fingerprint=lambda: "f"), {}, None

    monkeypatch.setattr(vectors, "read_table", read_table)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    for spare_core in (True, False):
        vectors.read_spec(MODEL, LoadOptions(cache=False), ["he"], spare_core=spare_core)
    assert threads == [2, None]  # one core left to the parent; torch's own choice

    jobs = []

    class Worker:  # records the jobs the worker would run, and runs them here
        def __init__(self, n):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def run(self, batch, said=None):
            jobs.extend(batch)
            return iter([])

    monkeypatch.setattr(score, "Processes", Worker)
    monkeypatch.setattr(score, "_spawn_safe", lambda: True)
    options = LoadOptions(cache=False)
    todo = [score._Model(ModelTask(name, "minilm-l6-v2", options)) for name in ("first", "second", "third")]
    context = types.SimpleNamespace(plan=types.SimpleNamespace(words=["he"]))  # a ScoringContext of a plan
    with score._isolated(context, todo, None, "", None, WarningLog()) as beside:  # one torch worker
        assert beside == []  # torch's worker runs alone
    assert [job[0].keywords for job in jobs] == [{"spare_core": False, "identify": False}, {"spare_core": True, "identify": False},
                                                  {"spare_core": True, "identify": False}]


def test_the_worker_makes_waiting_openmp_threads_sleep_unless_the_user_said_otherwise():
    import os

    code = ("import os; import wefe_same.scoring.vectors as v; from wefe_same.models import LoadOptions; "
            "import types; v.read_table = lambda source, words, **o: (types.SimpleNamespace(fingerprint=str), {}, None); "
            f"v.read_spec({MODEL!r}, LoadOptions(cache=False), ['he']); print(os.environ.get('OMP_WAIT_POLICY'))")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    for given, expected in ((None, "PASSIVE"), ("ACTIVE", "ACTIVE")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                             env=env if given is None else {**env, "OMP_WAIT_POLICY": given})
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip() == expected


BESIDE = r"""
import json, multiprocessing, sys
import wefe_same.run.score as score
from wefe_same import Query, WordSet, rank
score._spawn_safe = lambda: True  # what the command line gets
alive = []
read_and_score = score.read_and_score
def spy(context, task, *rest):  # the static model is read while the ONNX worker is alive
    alive.append(len(multiprocessing.active_children()))
    return read_and_score(context, task, *rest)
score.read_and_score = spy
query = Query([WordSet("male", ["he", "man", "boy"]), WordSet("female", ["she", "woman", "girl"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
result = rank(models=sys.argv[1:], queries=query, metrics=["WEAT", "RNSB"], seed=3, permutations=50,
              cache=False, progress=False)
print(json.dumps({"scores": result.scores["WEAT"].to_json(double_precision=15)
                  + result.scores["RNSB"].to_json(double_precision=15), "alive": alive,
                  "parent_imported": sorted(m for m in ("onnxruntime", "torch") if m in sys.modules)}))
"""


def test_the_onnx_worker_reads_beside_the_static_models_and_scores_the_same_bytes():
    models = [MODEL, "glove-6b-50d"]
    out = subprocess.run([sys.executable, "-c", BESIDE, *models], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    child = json.loads(out.stdout.strip().splitlines()[-1])
    assert child["parent_imported"] == [] and child["alive"] == [1]  # GloVe read while the worker lived
    here = rank(models=models, queries=QUERY, metrics=["WEAT", "RNSB"], seed=3, permutations=50,
                execution=Execution(cache=False, progress=False))
    assert child["scores"] == here.scores["WEAT"].to_json(double_precision=15) + here.scores["RNSB"].to_json(
        double_precision=15)


def test_the_encoders_worker_asks_glibc_for_one_arena_and_eager_trimming(monkeypatch):
    import wefe_same.processes as processes

    calls = []
    monkeypatch.setattr(processes, "_glibc", lambda: types.SimpleNamespace(mallopt=lambda *args: calls.append(args)))
    processes.trim_heap_eagerly()
    assert calls == [(-3, 4 << 20), (-1, 0), (-8, 1)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_ARENA_MAX
