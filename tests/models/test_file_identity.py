"""The cache key of a model file sees an edit that keeps size and mtime (issue 15, item 3):
before, the key was path + size + mtime, and a same-size edit with the mtime set back
(``touch -r``, ``os.utime``, a sync tool) served the old file's cached scores."""

from __future__ import annotations

import os

import numpy as np
from conftest import GENDER_WORDS, write_glove

from wefe_same import Query, WordSet, rank
from wefe_same.models.readers import files as files_module
from wefe_same.models.readers.files import file_identity

QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good", "happy"])], name="toy")


def edit_keeping_size_and_mtime(path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
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
    assert before["files"][0]["sha256"] != after["files"][0]["sha256"]
    assert before != after


def test_a_cached_run_sees_the_edit(tmp_path):
    path = write_glove(tmp_path / "m.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    cache = tmp_path / "cache"
    first = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], cache=cache, progress=False)
    line = next(line for line in path.read_text().splitlines() if line.startswith("she "))
    edited = line.split()
    edited[1] = "-" + edited[1] if not edited[1].startswith("-") else "+" + edited[1][1:]  # same length
    edit_keeping_size_and_mtime(path, line.encode(), " ".join(edited).encode())
    second = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], cache=cache, progress=False)
    assert not np.allclose(first.scores["SAME"].to_numpy(), second.scores["SAME"].to_numpy())
    fresh = rank([f"glove:{path}"], [QUERY], metrics=["SAME"], cache=False, progress=False)
    np.testing.assert_array_equal(second.scores["SAME"].to_numpy(), fresh.scores["SAME"].to_numpy())


def test_large_files_are_sampled_not_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(files_module, "FULL_HASH_BYTES", 1000)
    monkeypatch.setattr(files_module, "SAMPLE_BYTES", 100)
    path = tmp_path / "big.bin"
    path.write_bytes(bytes(5000))
    base = files_module.content_hash(path, 5000)
    for offset, seen in [(10, True), (2460, True), (4950, True), (1500, False)]:
        data = bytearray(5000)
        data[offset] = 1
        path.write_bytes(bytes(data))
        assert (files_module.content_hash(path, 5000) != base) is seen, offset
