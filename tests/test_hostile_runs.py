"""Hostile runs (issue 15, items 9, 11, 12, 13): a query that explodes into subqueries, a
``--scheduler`` that is not a Dask scheduler, the parent of ``--workers`` killed, a memory
limit, and standard output closed by its reader. Each case checks the exit code, the
one-line message, that nothing hangs, and that earlier results are intact.

docs/reference/safety.md's hostile-input table names these tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GENDER_WORDS, error_lines, no_hang, snapshot, users_folder

from wefe_same import Execution, rank
from wefe_same.cli import main
from wefe_same.errors import QueryError
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES

FAST = ["--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return users_folder(tmp_path)


errors = error_lines


# ---------------------------------------------------------------------------- item 9
def exploding_query(n_sets: int) -> str:
    """One query of n target and n attribute sets: C(n, 2)² WEAT subqueries."""
    sets = "".join(f'[sets.t{i}]\nwords = ["he", "w{i}"]\n[sets.a{i}]\nwords = ["doctor", "v{i}"]\n'
                   for i in range(n_sets))
    targets = ", ".join(f'"t{i}"' for i in range(n_sets))
    attributes = ", ".join(f'"a{i}"' for i in range(n_sets))
    return f'[meta]\nname = "boom"\n{sets}[[queries]]\ntargets = [{targets}]\nattributes = [{attributes}]\n'


def test_a_subquery_explosion_is_refused_before_any_work_with_the_count(work, capsys):
    (work / "boom.toml").write_text(exploding_query(2000))  # C(2000, 2)² ≈ 4·10^12 subqueries
    before = snapshot(work)
    with no_hang(10):
        code = main(["rank", "--models", "absent-model", "--queries", "boom.toml", "--out", "r", *FAST])
    err = capsys.readouterr().err
    assert code == 2 and len(errors(err)) == 1, err
    assert "the queries expand into 3,996,001,000,000 subqueries for the metrics asked (WEAT: 3,996,001,000,000)" \
           f", more than max_subqueries={DEFAULT_MAX_SUBQUERIES:,}" in err
    assert "--max-subqueries N" in err
    assert snapshot(work) == before and not (work / "r").exists()


def test_max_subqueries_raises_the_cap_and_the_bundled_library_stays_under_the_default(work, capsys):
    (work / "boom.toml").write_text(exploding_query(4))  # C(4, 2)² = 36 subqueries
    with pytest.raises(QueryError, match="expand into 36 subqueries"):
        rank(["good.txt"], queries="boom.toml", metrics="WEAT", permutations=0, max_subqueries=35,
             execution=Execution(cache=False))
    result = rank(["good.txt"], queries="boom.toml", metrics="WEAT", permutations=0, max_subqueries=36,
                  execution=Execution(cache=False))
    assert result.scores["WEAT"].shape == (1, 36)
    assert main(["rank", "--models", "good.txt", "--queries", "boom.toml", "--max-subqueries", "36",
                 "--out", "r", *FAST]) == 0
    assert main(["rank", "--models", "good.txt", "--queries", "boom.toml", "--max-subqueries", "0",
                 "--out", "r2", *FAST]) == 2
    assert "'max_subqueries' parameter of rank must be an integer >= 1" in capsys.readouterr().err

    from wefe_same.metrics.registry import METRICS
    from wefe_same.query.expand import check_subquery_count
    from wefe_same.query.files import bundled_query_sets, load_queries

    with pytest.warns():  # the bundled files' overlap warnings
        every = load_queries(bundled_query_sets())
    assert check_subquery_count(every, list(METRICS.values()), DEFAULT_MAX_SUBQUERIES) < DEFAULT_MAX_SUBQUERIES / 10


# ---------------------------------------------------------------------------- item 11
@pytest.fixture
def listener():
    """A plain TCP listener that accepts and never speaks (or, with ``.reply``, answers
    garbage once): what a mistyped port often reaches."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    state = {"stop": False, "reply": b"", "conns": []}

    def serve():
        while not state["stop"]:
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            state["conns"].append(conn)
            if state["reply"]:
                conn.sendall(state["reply"])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}", state
    state["stop"] = True
    thread.join()
    for conn in state["conns"]:
        conn.close()
    server.close()


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4], ids=["silent", "http"])
def test_a_scheduler_address_that_is_not_a_dask_scheduler_fails_within_the_stated_timeout(
        work, capsys, monkeypatch, listener, reply):
    pytest.importorskip("distributed")
    from wefe_same.run import executors

    address, state = listener
    state["reply"] = reply
    monkeypatch.setattr(executors, "SCHEDULER_ANSWER_S", 1.0)
    started = time.perf_counter()
    with no_hang(20):
        code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--scheduler", address,
                     "--out", "r", *FAST])
    err = capsys.readouterr().err
    assert code == 2 and len(errors(err)) == 1, err
    assert f"wefe-same: error: {address!r} is not a Dask scheduler: " in err
    assert time.perf_counter() - started < 8
    assert not (work / "r").exists()


@pytest.mark.parametrize("address, why", [("not an address", "expected SCHEME://HOST:PORT"),
                                          ("tcp://[::1", "Invalid IPv6 URL"),
                                          ("tcp://host:99999", "out of range"),
                                          ("http://host:8786", "unknown scheme 'http'")])
def test_a_scheduler_address_that_does_not_parse_fails_before_any_work(work, capsys, address, why):
    code = main(["rank", "--models", "absent.txt", "--queries", "mini.toml", "--scheduler", address,
                 "--out", "r", *FAST])
    err = capsys.readouterr().err
    assert code == 2 and len(errors(err)) == 1, err
    assert f"The 'scheduler' parameter of rank must be a Dask scheduler address such as tcp://host:8786. " \
           f"Got {address!r} instead (" in err and why in err


def test_a_refused_scheduler_port_fails_at_once(work, capsys):
    pytest.importorskip("distributed")
    started = time.perf_counter()
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--scheduler", "tcp://127.0.0.1:1",
                 "--out", "r", *FAST])
    assert code == 2 and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1' (ConnectionRefusedError" in \
        capsys.readouterr().err
    assert time.perf_counter() - started < 8


# ---------------------------------------------------------------------------- item 12
SLOW_SOURCE = '''
import os, time
from pathlib import Path
from wefe_same.models import ArraySource

class Slow(ArraySource):
    """A model whose lookup takes two minutes: a worker busy when its parent is killed."""
    def lookup_with_status(self, words):
        Path(os.environ["MARKS"], f"busy-{os.getpid()}").write_text("")
        time.sleep(120)
        return super().lookup_with_status(words)
    lookup = lookup_with_status
'''

RUN_WORKERS = '''
import numpy as np
from slow import Slow
from wefe_same import rank
words = {words!r}
if __name__ == "__main__":  # spawned workers import this file too
    rank([Slow(f"m{{i}}", words, np.random.default_rng(i).normal(size=(len(words), 4))) for i in range(2)],
         queries="mini.toml", metrics="WEAT", permutations=0, cache=False, workers=2)
'''


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc): workers and the resource tracker."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended (its parent, maybe init in a container, reaps it later)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigkill_of_the_parent_leaves_no_worker_or_resource_tracker(work):
    import signal

    (work / "slow.py").write_text(SLOW_SOURCE)
    (work / "run.py").write_text(RUN_WORKERS.format(words=GENDER_WORDS))
    marks = work / "marks"
    marks.mkdir()
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{work}", "MARKS": str(marks)}
    parent = subprocess.Popen([sys.executable, "run.py"], cwd=work, env=env, stderr=subprocess.DEVNULL)
    below: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(list(marks.iterdir())) < 2:  # both workers busy with a model
            assert parent.poll() is None and time.monotonic() < deadline, "the workers never started"
            time.sleep(0.1)
        below = descendants(parent.pid)
        assert len(below) >= 3  # two workers and the resource tracker
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(running(p) for p in below) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in below if running(p)], "processes left behind"
    finally:  # a failed test cleans up after itself
        parent.kill()
        for p in below | descendants(parent.pid):
            if running(p):
                os.kill(p, signal.SIGKILL)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_AS as on Linux")
def test_a_memory_limit_is_one_line_and_exit_1_never_a_hang(work):
    import resource

    assert main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", *FAST]) == 0
    before = snapshot(work)

    def limit():  # ulimit -v 450000: Python starts, the run's libraries do not all fit
        resource.setrlimit(resource.RLIMIT_AS, (450_000 * 1024, resource.getrlimit(resource.RLIMIT_AS)[1]))

    done = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", "good.txt", "--queries",
                           "mini.toml", "--out", "results", "--seed", "2", *FAST], cwd=work, capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, preexec_fn=limit, timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 1 and errors(err) == [
        "wefe-same: error: out of memory (a memory limit such as ulimit -v, or too little memory for these "
        "models; try fewer models at a time); earlier results are untouched"], err
    assert snapshot(work) == before


# ---------------------------------------------------------------------------- item 13
def test_output_into_a_closed_pipe_keeps_the_results_complete_and_exits_quietly(work):
    from wefe_same.output.folder import inventory, read_manifest

    # `| head -1` races (head may leave after the last write); a reader that left before the
    # first line, as head has by the second, makes every run meet the closed pipe.
    script = (f"{sys.executable} -m wefe_same.cli rank --models good.txt --queries mini.toml --out results "
              f"{' '.join(FAST)} | true; exit ${{PIPESTATUS[0]}}")
    done = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    err = done.stderr.decode()
    assert done.returncode == 141 and not errors(err), err  # 128 + SIGPIPE, as `yes | head -1`; no traceback
    manifest = read_manifest(work / "results")
    assert manifest is not None and manifest["files"] == inventory(work / "results")  # complete, as recorded


def test_a_broken_pipe_that_is_not_standard_output_is_a_failure_not_quiet(work, capsys, monkeypatch):
    import errno

    from wefe_same.run import pipeline

    def broken(*args, **kwargs):  # a worker's or a socket's pipe, while stdout is fine
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(pipeline, "run", broken)
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "r", *FAST])
    assert code == 1
    assert errors(capsys.readouterr().err) == ["wefe-same: error: Broken pipe (EPIPE); earlier results are untouched"]
