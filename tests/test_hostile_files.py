"""Files that are not files (issue 15, item 8): a FIFO, ``/dev/zero``, a directory or a huge
file given as a query file, an ``--external`` table, a model path, a quality benchmark
or a cache entry. Each is refused with one line naming it (exit 2) and never read: a
FIFO would wait for a writer forever, ``/dev/zero`` never ends. The files present
before the run are byte-identical after it.

docs/reference/safety.md's hostile-input table names these tests.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from conftest import GENDER_WORDS, no_hang, snapshot, users_folder

from wefe_same.cli import main
from wefe_same.validation import EXTERNAL_TABLE_MAX_BYTES, QUERY_FILE_MAX_BYTES

FAST = ["--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "kept.txt").write_text("kept")
    return tmp_path


def fifo(d: Path) -> str:
    os.mkfifo(d / "pipe")
    return str(d / "pipe")


def huge(d: Path, size: int, name: str) -> str:
    with open(d / name, "wb") as fh:  # sparse: no disk used
        fh.truncate(size + 1)
    return str(d / name)


KINDS = {"fifo": (fifo, "is a FIFO (named pipe), not a regular file"),
         "dev-zero": (lambda d: "/dev/zero", "is a character device, not a regular file"),
         "directory": (lambda d: str(d / "folder"), "is a directory")}

# Where each path goes on the command line, with the other arguments good.
PLACES = {
    "query": lambda p: ["--models", "good.txt", "--queries", p],
    "external": lambda p: ["--models", "good.txt", "--queries", "mini.toml", "--external", p],
    "model": lambda p: ["--models", "good.txt", f"glove:{p}", "--queries", "mini.toml"],
    "benchmark": lambda p: ["--models", "good.txt", "--queries", "mini.toml", "--quality", p],
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_path_that_is_not_a_regular_file_is_refused_with_one_line(work, capsys, place, kind):
    make, message = KINDS[kind]
    path = make(work)
    before = snapshot(work)
    with no_hang(20):
        code = main(["rank", *PLACES[place](path), "--out", "r", *FAST])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("wefe-same: warning:")]
    assert code == 2 and len(lines) == 1, err
    assert path in lines[0] and (message in lines[0] or (place == "model" and "not a regular file" in lines[0])), err
    assert snapshot(work) == before and not (work / "r").exists()


@pytest.mark.parametrize("place, cap, what", [("query", QUERY_FILE_MAX_BYTES, "query file"),
                                              ("external", EXTERNAL_TABLE_MAX_BYTES, "external table")])
def test_a_file_over_the_cap_of_files_read_whole_is_refused_unread(work, capsys, place, cap, what):
    path = huge(work, cap, "big.toml" if place == "query" else "big.csv")
    with no_hang(20):
        code = main(["rank", *PLACES[place](path), "--out", "r", *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{path}: {what} is {(cap + 1) // (1 << 20)} MiB; {what}s are read whole and may hold at most " \
           f"{cap >> 20} MiB" in err
    assert not (work / "r").exists()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_cache_entry_that_is_not_a_regular_file_is_not_read_nor_deleted(tmp_path, kind):
    from conftest import random_source

    from wefe_same.run.cache.store import ModelCache
    from wefe_same.scoring.vectors import build_table

    cache = ModelCache(tmp_path / "cache")
    key = "ab" * 32
    path = cache.path("vectors", key)
    path.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with no_hang(10), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert cache.get_vectors(key) is None
        table = build_table(random_source("m", 0), GENDER_WORDS)
        cache.put_vectors(key, table, {"name": "m"})
    assert any("not a regular file" in str(w.message) and "recomputed" in str(w.message) for w in said)
    assert any("could not be written" in str(w.message) for w in said)
    assert os.path.lexists(path) and not path.is_file()  # still the user's FIFO / link
