"""Hostile names and a hostile file system (issue 15, items 4 and 7): figure files of names
that differ only in replaced characters, a 300-character model name, an output name too
long for the file system, a full disk, a file size limit and non-UTF-8 file names under
a C locale. Each case checks the exit code, the one-line message and that the files
present before the run (an earlier results folder among them) are byte-identical after it.

docs/reference/safety.md's hostile-input table names these tests.
"""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, error_lines, random_source, snapshot, users_folder, write_glove

from wefe_same import Execution, rank
from wefe_same.cli import main
from wefe_same.output.tables import safe_name

FAST = ["--metrics", "WEAT", "SAME", "--permutations", "0", "--formats", "svg", "--no-cache"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def work(tmp_path, monkeypatch):
    """The user's folder: a note, a query file, a model and an earlier results folder."""
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    assert main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", *FAST]) == 0
    return tmp_path


errors = error_lines


def hidden(folder: Path) -> list[str]:
    """Temporary siblings a run left behind."""
    return [p.name for p in folder.iterdir() if ".partial-" in p.name or ".old-" in p.name or ".new-" in p.name]


# ---------------------------------------------------------------------------- item 4
def test_figure_names_that_differ_only_in_replaced_characters_do_not_collide(tmp_path):
    from wefe_same.output.figure_jobs import figure_jobs

    names = ["a b", "a_b", "a?b", "A_B"]  # A_B and a_b: one file on a case-insensitive disk
    (tmp_path / "q.toml").write_text(MINI_QUERY)
    result = rank([random_source(n, seed=i) for i, n in enumerate(names)], queries=tmp_path / "q.toml",
                  metrics=["SAME"], permutations=0, execution=Execution(cache=False))
    jobs, _ = figure_jobs(result, "all")
    words = {job.stem: job.args[1] for job in jobs if job.stem.startswith("most_biased_words_")}
    assert sorted(words.values()) == sorted(names)  # one figure per model, each drawing its own model
    assert len({stem.casefold() for stem in words}) == 4
    # ordinary names stay the file names they always were
    assert [safe_name(n) for n in ("glove-6b-50d", "glove-6b-50d+hard-debias", "WEAT-ES", "a_b")] == [
        "glove-6b-50d", "glove-6b-50d+hard-debias", "WEAT-ES", "a_b"]


def test_safe_names_are_unique_for_names_built_to_collide():
    names = ["a b", "a_b", "a?b", "a/b", "a\\b", "a:b", "a_b-" + "0" * 10, "..", ".", "", "x" * 300, "x" * 301,
             "é" * 100, "caf\udce9", "caf\udce8"]
    stems = [safe_name(n) for n in names]
    assert len(set(stems)) == len(names)
    assert all(len(s.encode("utf-8")) <= 100 and s not in ("", ".", "..") and "/" not in s for s in stems)


# ---------------------------------------------------------------------------- item 7
def test_a_300_character_model_name_gets_a_hashed_file_name(work, capsys):
    before = snapshot(work / "results")
    long = "m" * 300
    code = main(["rank", "--models", f"{long}=good.txt", "--queries", "mini.toml", "--out", "r2",
                 "--figures", "all", "--metrics", "SAME", "--permutations", "0", "--formats", "svg", "--no-cache"])
    assert code == 0, capsys.readouterr().err
    files = [p for p in (work / "r2").rglob("*")]
    assert max(len(p.name.encode()) for p in files) < 100
    assert (work / "r2" / "figures" / f"most_biased_words_{safe_name(long)}.svg").is_file()
    assert long in (work / "r2" / "rankings.csv").read_text()  # the tables keep the whole name
    assert snapshot(work / "results") == before


def test_an_output_name_too_long_for_the_file_system_is_refused_before_any_work(work, capsys):
    before = snapshot(work)
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "o" * 250, *FAST])
    err = capsys.readouterr().err
    assert code == 2 and len(errors(err)) == 1
    assert "is 250 bytes; at most 237 fit" in err and "choose a shorter name" in err
    assert snapshot(work) == before and not hidden(work)


def test_a_full_disk_while_writing_is_one_line_exit_1_and_earlier_results_intact(work, capsys, monkeypatch):
    from wefe_same.output import tables

    def full(table, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(tables, "write_parquet", full)
    before = snapshot(work)
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", "--seed", "3", *FAST])
    err = capsys.readouterr().err
    assert code == 1 and len(errors(err)) == 1, err
    assert "word_bias.parquet: No space left on device (ENOSPC); earlier results are untouched" in err
    assert snapshot(work) == before and not hidden(work)


def cli(args, cwd, *, env=None, limit_fsize=None, timeout=60):
    def limits():
        if limit_fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_fsize, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "wefe_same.cli", *args], cwd=cwd, env=env, capture_output=True,
                          timeout=timeout, preexec_fn=limits)


def test_a_file_size_limit_while_writing_is_one_line_exit_1_and_earlier_results_intact(work):
    # RLIMIT_FSIZE (ulimit -f): a write past it fails with EFBIG (Python ignores SIGXFSZ).
    before = snapshot(work)
    done = cli(["rank", "--models", "good.txt", "--queries", "mini.toml", "--out", "results", "--seed", "3", *FAST],
               work, limit_fsize=3000)
    err = done.stderr.decode()
    assert done.returncode == 1 and len(errors(err)) == 1, err
    assert "File too large (EFBIG) (a file size limit: see ulimit -f); earlier results are untouched" in err
    assert "Traceback" not in err
    assert snapshot(work) == before and not hidden(work)


def test_non_utf8_file_names_under_the_c_locale(work):
    bad = os.fsdecode(b"caf\xe9")  # a Latin-1 name: not UTF-8
    write_glove(work / f"{bad}.txt", GENDER_WORDS, np.random.default_rng(2).normal(size=(12, 5)))
    (work / f"q{bad}.toml").write_text(MINI_QUERY)
    before = snapshot(work)
    done = cli(["rank", "--models", "good.txt", f"{bad}.txt", "--queries", f"q{bad}.toml", "--out", f"r{bad}",
                *FAST], work, env={"LC_ALL": "C", "LANG": "C"})
    err = done.stderr.decode()
    assert done.returncode == 0 and not errors(err), err
    out = work / f"r{bad}"
    assert "caf\\xe9" in (out / "rankings.csv").read_text(encoding="utf-8")  # the name as \xNN, readable
    assert (out / "report.html").read_text(encoding="utf-8").count("caf\\xe9") > 0
    assert {k: v for k, v in snapshot(work).items() if k in before} == before
