"""``workers="auto"`` (issue 32): the rule is a pure function of the machine and the run,
checked here case by case (CUDA included, which the suite never has); the run says what it
chose, on the terminal and in the manifest; a bad value is one line and exit code 2."""

from __future__ import annotations

import json

import pytest
from conftest import error_lines, users_folder

from wefe_same import Execution, rank
from wefe_same.cli import main
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import ModelTask
from wefe_same.run.workers import (
    DEVICE_WORKER_BYTES,
    MEMORY_SHARE,
    WORKER_BYTES,
    Machine,
    choose_workers,
    model_bytes,
    resolve_workers,
    usable_cores,
)
from wefe_same.validation import InvalidParameterError

GIB = 2**30


@pytest.mark.parametrize(("machine", "models", "expected"), [
    (Machine(cores=2), 1, 1),  # one model: no worker process repays its start
    (Machine(cores=1), 40, 1),  # one core
    (Machine(cores=2), 20, 2),  # the cores bind
    (Machine(cores=16), 41, 16),
    (Machine(cores=16), 7, 3),  # at least two models per worker
    (Machine(cores=16), 3, 1),
    (Machine(cores=16, memory=2 * GIB), 40, int(2 * GIB * MEMORY_SHARE) // WORKER_BYTES),  # the memory binds
    (Machine(cores=16, memory=100 * 2**20), 40, 1),  # not even one worker's worth: in-process
])
def test_the_rule_on_cores_memory_and_models(machine, models, expected):
    assert choose_workers(machine, models).workers == expected


def test_a_models_memory_counts_for_each_worker():
    machine = Machine(cores=16, memory=8 * GIB)
    alone = choose_workers(machine, 40).workers
    heavy = choose_workers(machine, 40, model_bytes=GIB).workers
    assert heavy == int(8 * GIB * MEMORY_SHARE) // (WORKER_BYTES + GIB) < alone


def test_encoders_share_one_cuda_device_within_its_free_memory():
    weights = 440 * 2**20  # BERT-base
    per_worker = DEVICE_WORKER_BYTES + 2 * weights
    roomy = Machine(cores=16, memory=128 * GIB, device_memory=80 * GIB)
    # Five encoders per worker at least (each worker imports torch): 41 BERT-base on 16 cores, 8.
    assert choose_workers(roomy, 41, device_model_bytes=weights, encoders=True).workers == 41 // 5 == 8
    assert choose_workers(roomy, 41, device_model_bytes=weights).workers == 16  # the cores bind
    small = Machine(cores=16, memory=128 * GIB, device_memory=6 * GIB)
    choice = choose_workers(small, 41, device_model_bytes=weights, encoders=True)
    assert choice.workers == int(6 * GIB * MEMORY_SHARE) // per_worker == 2
    assert choice.reason.startswith("2 workers: CUDA memory for 2 (6.0 GiB free, ~1904 MB per worker)")
    # A device too small for two: one worker, in-process; static models never ask the device.
    assert choose_workers(Machine(cores=16, device_memory=2 * GIB), 41, device_model_bytes=weights).workers == 1
    assert choose_workers(Machine(cores=16, device_memory=2 * GIB), 41).workers == 16
    assert choose_workers(Machine(cores=16, device_memory=80 * GIB), 9, encoders=True).workers == 1
    # Encoders on the CPU: in-process (torch spreads each over the cores itself).
    assert choose_workers(Machine(cores=16, memory=128 * GIB), 41, encoders=True).reason.startswith(
        "1 worker (in-process): encoders on the CPU")


def test_the_reason_names_what_binds_and_the_other_limits():
    choice = choose_workers(Machine(cores=2, memory=16 * GIB), 20, model_bytes=31 * 2**20)
    assert choice.workers == 2
    assert choice.reason == "2 workers: 2 usable cores (20 models; memory for 30)"
    assert choose_workers(Machine(cores=2), 1).reason == "1 worker (in-process): 1 model (2 usable cores)"
    assert choose_workers(Machine(cores=8), 40, scheduler=True).reason.startswith(
        "1 worker (in-process): a Dask scheduler")


def test_resolve_keeps_a_number_and_measures_for_auto(tmp_path):
    path = tmp_path / "m.txt"
    path.write_bytes(b"x" * 1000)
    assert model_bytes(str(path)) == 1000 and model_bytes("glove-6b-50d") == 0
    tasks = [ModelTask(f"m{i}", str(path)) for i in range(40)]
    assert resolve_workers(3, tasks).workers == 3
    assert resolve_workers(3, tasks).reason == "3 workers: as asked"
    auto = resolve_workers("auto", tasks, device="cpu")
    assert 1 <= auto.workers <= min(usable_cores(), 20)
    assert auto.reason.startswith(f"{auto.workers} worker")
    encoders = [ModelTask(f"e{i}", f"hf:{tmp_path}") for i in range(9)]  # an encoder folder (no weights in it)
    assert resolve_workers("auto", encoders * 5, device="cpu").reason.startswith(
        "1 worker (in-process): encoders on the CPU")


@pytest.mark.parametrize("value", [0, -1, "many", 1.5, True, None])
def test_a_bad_workers_value_is_refused_naming_auto(value):
    with pytest.raises(InvalidParameterError, match=r"""The 'workers' parameter of Execution must be an integer """
                                                    r""">= 1 or "auto"\. Got"""):
        Execution(workers=value)
    with pytest.raises(InvalidParameterError, match=r"""The 'workers' parameter of rank must be an integer >= 1 """):
        rank(workers=value)  # the flat keyword of earlier versions, as the CLI's --workers
    assert RankConfig(execution={"workers": "auto"}).execution.workers == "auto"
    assert RankConfig(execution=Execution(workers=2)).execution.workers == 2


def test_the_cli_says_what_auto_chose_and_the_manifest_records_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    fast = ["--queries", "mini.toml", "--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"]
    assert main(["rank", "--models", "good.txt", "--workers", "auto", "--out", "r", *fast]) == 0
    out = capsys.readouterr().out
    assert "Workers (auto): 1 worker (in-process): 1 model (" in out
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["workers"]["asked"] == "auto" and manifest["workers"]["chosen"] == 1
    assert manifest["settings"]["workers"] == "auto"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["rank", "--models", "good.txt", "--workers", "lots", "--out", "r2", *fast]) == 2
    err = capsys.readouterr().err
    assert error_lines(err) == ["wefe-same: error: The 'workers' parameter of rank must be an integer >= 1 or "
                                "\"auto\". Got 'lots' instead."]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
