"""The cache key of a model file sees an edit that keeps size and mtime (issue 15, item 3):
before, the key was path + size + mtime, and a same-size edit with the mtime set back
(``touch -r``, ``os.utime``, a sync tool) served the old file's cached scores."""

from __future__ import annotations

import os
import time

import numpy as np
from conftest import GENDER_WORDS, write_glove

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.models.readers.files import file_identity

QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good", "happy"])], name="toy")


def edit_keeping_size_and_mtime(path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    # The kernel stamps ctime from a coarse clock (a few ms): an edit within the same tick as
    # the file's creation could keep it. A person's edit comes later than that.
    time.sleep(0.05)
    stat = os.stat(path)
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)


def test_same_size_edit_with_mtime_restored_changes_the_key(tmp_path):
    path = tmp_path / "m.txt"
    path.write_bytes(b"he 0.100 0.200\nshe 0.300 0.400\n")
    before = file_identity("glove", path)
    edit_keeping_size_and_mtime(path, b"0.300", b"0.900")
    after = file_identity("glove", path)
    assert before["files"][0]["ctime_ns"] != after["files"][0]["ctime_ns"]
    assert before != after


def test_a_cached_run_sees_the_edit(tmp_path):
    path = write_glove(tmp_path / "m.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    cache = tmp_path / "cache"
    first = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], execution=Execution(cache=cache, progress=False))
    line = next(line for line in path.read_text().splitlines() if line.startswith("she "))
    edited = line.split()
    edited[1] = "-" + edited[1] if not edited[1].startswith("-") else "+" + edited[1][1:]  # same length
    edit_keeping_size_and_mtime(path, line.encode(), " ".join(edited).encode())
    second = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], execution=Execution(cache=cache, progress=False))
    assert not np.allclose(first.scores["SAME"].to_numpy(), second.scores["SAME"].to_numpy())
    fresh = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], execution=Execution(cache=False, progress=False))
    np.testing.assert_array_equal(second.scores["SAME"].to_numpy(), fresh.scores["SAME"].to_numpy())
