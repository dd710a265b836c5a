"""Hostile input through the command line (issue 7): for every case the exit code, the
one-line message naming the file, set, word or argument, and that every byte present
before the run is still there after it.

docs/reference/safety.md names these tests (the README links it).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, snapshot, users_folder, write_glove

from wefe_same.cli import main

QUERY = MINI_QUERY
FAST = ["--metrics", "WEAT", "SAME", "--permutations", "0", "--formats", "svg", "--no-cache"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder of the user's own files, as the current directory, with a query file and a good model."""
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path, QUERY)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "table.csv").write_text("a,b\n1,2\n")
    return tmp_path


def run_cli(args, capsys):
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse refuses a bad choice itself, with one line
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if not line.startswith("wefe-same: warning:")]
    assert len(lines) == 1, err
    return lines[0]


def write_bytes(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def rows(words, dim=5, seed=1):
    return np.random.default_rng(seed).normal(size=(len(words), dim))


# Each case: (id, how to make the model spec in the work folder, expected piece of the message)
BAD_MODELS = [
    ("empty-file", lambda d: write_bytes(d / "empty.txt", b""), "no vectors"),
    ("header-only", lambda d: write_bytes(d / "header.txt", b"3 5\n"), "no vectors"),
    ("missing-path", lambda d: str(d / "absent.txt"), "no such file"),
    ("directory", lambda d: str(d / "data"), "is a directory"),
    ("non-utf8-word", lambda d: write_bytes(d / "latin.txt", "he 0.1 0.2\ncaf\xe9 0.3 0.4\n".encode("latin-1")),
     "latin.txt:2"),
    ("npy-object-dtype", lambda d: _object_npy(d), "object"),
]


def _object_npy(d: Path) -> str:
    np.save(d / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    (d / "obj.vocab").write_text("he\nshe\n")
    return f"npy:{d / 'obj.npy'},{d / 'obj.vocab'}"


@pytest.mark.parametrize("make, message", [c[1:] for c in BAD_MODELS], ids=[c[0] for c in BAD_MODELS])
def test_a_bad_model_file_exits_2_with_one_line_naming_it(work, capsys, make, message):
    spec = make(work)
    before = snapshot(work)
    code, err = run_cli(["rank", "--models", spec, "--queries", "mini.toml", "--out", "res", *FAST], capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("wefe-same: error: ") and message in line, err
    assert snapshot(work) == before and not (work / "res").exists()


@pytest.mark.parametrize("args, message", [
    (["--out", "."], "."),
    (["--out", "notes.txt"], "notes.txt"),
    (["--out", "data"], "data"),
    (["--bootstrap", "-1"], "'bootstrap' parameter of rank"),
    (["--ties", "avg"], "argument --ties: invalid choice: 'avg'"),
    (["--nan-policy", "x"], "argument --nan-policy: invalid choice: 'x'"),
    (["--seed", "-1"], "'seed' parameter of rank"),
    (["--metrics", "WAET"], "unknown metric 'WAET'"),
    (["--queries", "absent.toml"], "absent.toml"),
    (["--external", "absent.csv"], "absent.csv"),
    (["--formats", "gif"], "gif"),
], ids=["out-dot", "out-file", "out-user-folder", "bootstrap", "ties", "nan-policy", "seed", "metric",
        "query-file", "external-file", "formats"])
def test_bad_arguments_exit_2_before_any_model_is_read(work, capsys, args, message):
    # A model that fails when read ("no vectors"): any other message shows the check came first.
    (work / "unread.txt").write_bytes(b"3 5\n")
    before = snapshot(work)
    code, err = run_cli(["rank", "--models", "unread.txt", "--queries", "mini.toml", *FAST, *args], capsys)
    assert code == 2 and message in one_line(err) and "no vectors" not in err, err
    assert snapshot(work) == before
    assert not any(p.name.startswith((".res", ".results")) for p in work.iterdir())


def test_a_gzipped_text_model_scores_like_the_plain_file(work, capsys):
    with open(work / "good.txt", "rb") as src, gzip.open(work / "good.txt.gz", "wb") as dst:
        dst.write(src.read())
    assert run_cli(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "plain", *FAST],
                   capsys)[0] == 0
    assert run_cli(["rank", "--models", "good.txt.gz", "--queries", "mini.toml", "--out", "gz", *FAST],
                   capsys)[0] == 0
    plain = pd.read_csv(work / "plain" / "aggregates.csv", index_col=0)
    gz = pd.read_csv(work / "gz" / "aggregates.csv", index_col=0)
    np.testing.assert_array_equal(plain.to_numpy(), gz.to_numpy())


def test_nan_and_zero_vectors_count_as_missing_with_their_reason(work, capsys):
    matrix = rows(GENDER_WORDS)
    matrix[GENDER_WORDS.index("doctor"), 2] = np.nan
    matrix[GENDER_WORDS.index("nurse")] = 0.0
    write_glove(work / "odd.txt", GENDER_WORDS, matrix)
    code, _ = run_cli(["rank", "--models", "odd.txt", "good.txt", "--queries", "mini.toml", "--out", "res",
                       "--missing-threshold", "0.5", *FAST], capsys)
    assert code == 0
    lookups = pd.read_csv(work / "res" / "lookups.csv.gz").set_index(["model", "word"])["status"]
    assert lookups[("odd", "doctor")] == "non-finite vector" and lookups[("odd", "nurse")] == "zero vector"


def test_a_model_whose_every_subquery_is_nan_keeps_its_rows_and_exits_0(work, capsys):
    write_glove(work / "other.txt", ["apple", "pear"], rows(["apple", "pear"]))
    code, err = run_cli(["rank", "--models", "other.txt", "good.txt", "--queries", "mini.toml", "--out", "res",
                         *FAST], capsys)
    assert code == 0, err
    details = pd.read_csv(work / "res" / "details.csv.gz")
    other = details[details["model"] == "other"]
    assert len(other) > 0 and other["value"].isna().all() and other["reason"].str.contains("no word").all()
    assert "other" in pd.read_csv(work / "res" / "rankings.csv")["model"].tolist()
    assert "wefe-same: warning:" in err  # the figures that cannot show it say so


def test_lenient_decoding_reports_the_decoded_word(work, capsys):
    path = work / "latin.txt"
    lines = [f"{w} " + " ".join(f"{x:.3f}" for x in r) for w, r in zip(GENDER_WORDS, rows(GENDER_WORDS))]
    path.write_bytes(("\n".join(lines) + "\ncaf\xe9 0.1 0.2 0.3 0.4 0.5\n").encode("latin-1"))
    code, err = run_cli(["rank", "--models", str(path), "--queries", "mini.toml", "--out", "res",
                         "--unicode-errors", "replace", *FAST], capsys)
    assert code == 0, err
    assert "latin.txt: 1 word(s) not valid UTF-8 decoded leniently" in err
    assert "line 13: b'caf\\xe9' decoded as 'caf\\ufffd'" in err


# `python -m wefe_same.cli ARGS` as from a terminal: Ctrl-C handled even when this suite was
# started with SIGINT ignored (``cmd &`` in a script), which a child would otherwise inherit.
_AS_FROM_A_TERMINAL = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                       "sys.argv[0] = 'wefe-same'; runpy.run_module('wefe_same.cli', run_name='__main__')")


def _start(args, cwd):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-c", _AS_FROM_A_TERMINAL, *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_ctrl_c_during_the_default_run_leaves_earlier_results_untouched(work):
    """Ctrl-C while the default models are being scored: exit 130, one line, nothing changed."""
    assert main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", *FAST]) == 0
    before = snapshot(work)
    proc = _start(["rank", "--no-cache"], work)  # the default run, over the earlier results folder
    time.sleep(8)  # imports, planning, and into the scoring of the first models
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "wefe-same: interrupted; earlier results are untouched"
    assert "Traceback" not in err
    assert snapshot(work) == before
    assert sorted(p.name for p in work.iterdir()) == sorted(before_names(before))


def before_names(snap):
    return {k.split("/")[0] for k in snap}


def test_ctrl_c_while_the_results_are_written_leaves_no_temporary_folder(work):
    """SIGINT as soon as the temporary results folder appears (figures being drawn)."""
    write_glove(work / "b.txt", GENDER_WORDS, rows(GENDER_WORDS, seed=2))
    assert main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", *FAST]) == 0
    before = snapshot(work)
    proc = _start(["rank", "--models", "good.txt", "b.txt", "--queries", "mini.toml", "--out", "results",
                   "--metrics", "WEAT", "SAME", "--permutations", "0", "--no-cache"], work)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(p.name.startswith(".results.partial-") for p in work.iterdir()):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert not any(p.name.startswith(".results.") for p in work.iterdir())
    # The run may win the race: it replaced the folder whole, which is allowed. A Ctrl-C that
    # lands while Python itself shuts down (its handlers already reset) ends the process by
    # the signal (-2 here, 130 in a shell) after everything was written.
    if proc.returncode in (0, -signal.SIGINT) and snapshot(work) != before:
        manifest = json.loads((work / "results" / "manifest.json").read_text())
        assert [m["name"] for m in manifest["models"]] == ["good", "b"]
        assert all((work / "results" / name).is_file() for name in manifest["files"])
        return
    assert proc.returncode == 130, err
    assert snapshot(work) == before
    assert not any(p.name.startswith(".results.") for p in work.iterdir())


def test_output_piped_into_a_reader_that_leaves_is_not_a_traceback(monkeypatch, capsys):
    """`wefe-same models | head -1`: the reader has closed the pipe; exit 141 (SIGPIPE), no traceback."""

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    with open(write_end, "w", buffering=1) as closed_pipe:
        monkeypatch.setattr(sys, "stdout", closed_pipe)
        code = main(["models"])
    assert code == 141
    assert "Traceback" not in capsys.readouterr().err


def test_the_cli_module_imports_no_heavy_library_so_an_early_ctrl_c_is_handled():
    """``wefe-same`` is in main()'s try (one line, exit 130 on Ctrl-C) within milliseconds:
    numpy, pandas and scipy load inside the command, not when the module is imported."""
    code = "import sys, wefe_same.cli; print(sorted({'numpy', 'pandas', 'scipy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    # The package's names are still there on first use.
    code = "import wefe_same; print(wefe_same.rank.__module__, wefe_same.WordSet.__name__, 'api' in dir(wefe_same))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["wefe_same.api", "WordSet", "True"]
