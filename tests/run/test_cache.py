"""The model cache: exact round trips, keys, damaged entries, atomic writes, an unusable folder."""

from __future__ import annotations

import os
import socket
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wefe_same.errors import CacheError, WefeSameWarning
from wefe_same.processes import owner_tag, process_start
from wefe_same.run.cache import (
    CACHE_UNUSABLE,
    ENV_VAR,
    ModelCache,
    check_cache,
    scores_key,
    vectors_key,
)
from wefe_same.scoring.scores import ModelScores
from wefe_same.scoring.vectors import Lookup, VectorTable

KEY = "ab" + "0" * 62
OTHER = "cd" + "1" * 62


def awkward_frame() -> pd.DataFrame:
    """Every dtype the score tables use, with the missing values that make CSV output differ."""
    frame = pd.DataFrame({
        "model": ["m", "m", "m"],
        "found_as": ["he", None, "She"],                       # str with NaN
        "value": [0.1, float("nan"), -1e-300],                  # float64, NaN, tiny
        "words_found": [3, 0, 12],                              # int64
        "p_value": [None, 0.5, np.float64(1 / 3)],             # float64 from None
        "n_splits": pd.array([None, 6, 100], dtype="Int64"),    # nullable ints print without ".0"
        "mixed": pd.Series([None, 1, np.float64(2.5)], dtype=object),  # object keeps each cell's type
        "names": pd.Series(["a", None, "a"], dtype=object),      # object strings keep None
        "flag": [True, False, True],
        "small": np.array([1.5, 2.5, 3.5], dtype=np.float32),
    })
    frame["text"] = pd.array(["a", pd.NA, "c"], dtype=pd.StringDtype("python", na_value=pd.NA))
    return frame


def scores(name: str = "m", **over) -> ModelScores:
    fields = dict(
        name=name, description={"kind": "glove", "path": "/x/m.txt"}, identity={"kind": "glove", "size": 3},
        fingerprint="f" * 64, lookups=awkward_frame(), details=awkward_frame().iloc[::-1],
        word_bias=pd.DataFrame(columns=["model", "metric", "word", "value"]).astype({"value": "float64"}),
        draws={"halves": np.arange(6.0).reshape(3, 2), "bootstrap_words": np.full((2, 2), np.nan)},
    )
    return ModelScores(**{**fields, **over})


def table() -> VectorTable:
    vectors = {"he": np.array([1.0, -2.5, 1e-310]), "she": np.array([np.pi, 0.0, -0.0])}
    lookups = [Lookup("he", "he", "exact"), Lookup("She", "she", "lower"), Lookup("they", None, "missing")]
    return VectorTable("m", vectors, lookups)


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.entry"))


def test_scores_round_trip_is_exact(tmp_path):
    cache = ModelCache(tmp_path)
    original = scores()
    cache.put_scores(KEY, original)
    back = cache.get_scores(KEY)
    for name in ("lookups", "details", "word_bias"):
        a, b = getattr(original, name), getattr(back, name)
        assert a.to_csv() == b.to_csv()
        assert a.dtypes.to_dict() == b.dtypes.to_dict()
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert [type(v) for v in back.details["mixed"]] == [np.float64, int, type(None)]
    assert back.details["names"].tolist() == ["a", None, "a"]
    assert back.details.index.tolist() == [2, 1, 0]
    assert back.draws.keys() == original.draws.keys()
    for k in original.draws:
        np.testing.assert_array_equal(back.draws[k], original.draws[k])
    assert (back.name, back.description, back.identity, back.fingerprint) == (
        original.name, original.description, original.identity, original.fingerprint)
    assert entries(tmp_path) == [tmp_path / "v2" / "scores" / "ab" / f"{KEY}.entry"]


def test_vectors_round_trip_is_exact(tmp_path):
    cache = ModelCache(tmp_path)
    original = table()
    cache.put_vectors(KEY, original, {"kind": "glove"})
    back, description = cache.get_vectors(KEY)
    assert back.raw.tobytes() == original.raw.tobytes() and back.words == original.words
    assert back.lookups == original.lookups and back.fingerprint() == original.fingerprint()
    assert description == {"kind": "glove"}
    assert cache.get_vectors(OTHER) is None  # a miss is None, silently


def test_vectors_fingerprint_reads_the_header_only(tmp_path, monkeypatch):
    cache = ModelCache(tmp_path)
    original = table()
    cache.put_vectors(KEY, original, {"kind": "glove"})
    monkeypatch.setattr(np, "frombuffer", None)  # the vectors are not decoded
    assert cache.vectors_fingerprint(KEY) == original.fingerprint()
    assert cache.vectors_fingerprint(OTHER) is None


def test_vectors_fingerprint_of_a_bad_entry_is_none(tmp_path):
    cache = ModelCache(tmp_path)
    cache.put_vectors(KEY, table(), {"kind": "glove"})
    path = cache.path("vectors", KEY)
    cache.put_vectors(OTHER, table(), {"kind": "glove"})
    moved = cache.path("vectors", OTHER).read_bytes()
    path.write_bytes(moved)  # another key's entry under this key
    assert cache.vectors_fingerprint(KEY) is None
    path.write_bytes(moved[:40])  # cut inside the header
    assert cache.vectors_fingerprint(KEY) is None
    path.unlink()
    os.mkfifo(path)  # would block a plain read
    assert cache.vectors_fingerprint(KEY) is None


def test_keys_cover_identity_words_and_scoring():
    ident = {"kind": "glove", "files": [{"path": "/m.txt", "size": 10, "mtime_ns": 1}]}
    base = vectors_key(ident, ["she", "he"])
    assert base == vectors_key(ident, ["he", "she", "he"])
    newer = {"kind": "glove", "files": [{"path": "/m.txt", "size": 10, "mtime_ns": 2}]}
    assert len({base, vectors_key(newer, ["he", "she"]), vectors_key(ident, ["he"])}) == 3
    keys = {scores_key(base, "f", "m", "s"), scores_key(base, "g", "m", "s"), scores_key(base, "f", "n", "s"),
            scores_key(base, "f", "m", "t")}
    assert len(keys) == 4
    with pytest.raises(CacheError, match="JSON-able"):
        vectors_key({"kind": object()}, ["he"])


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[:-7])


def _flip(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01
    p.write_bytes(bytes(data))


def _garbage(p: Path) -> None:
    p.write_bytes(b"not an entry")


def _empty(p: Path) -> None:
    p.write_bytes(b"")


@pytest.mark.parametrize("damage, why", [
    (_truncate, "checksum mismatch"), (_flip, "checksum mismatch"),
    (_garbage, "not a wefe_same cache entry"), (_empty, "empty file"), (None, "it holds 'scores' entry"),
])
def test_damaged_entry_is_deleted_and_never_trusted(tmp_path, damage, why):
    cache = ModelCache(tmp_path)
    cache.put_scores(KEY, scores())
    path = cache.path("scores", KEY)
    if damage is None:  # a whole, valid entry under another key's name
        target = cache.path("scores", OTHER)
        target.parent.mkdir(parents=True)
        path.rename(target)
        path = target
    else:
        damage(path)
    with pytest.warns(WefeSameWarning) as record:
        assert cache.get_scores(OTHER if damage is None else KEY) is None
    message = str(record[0].message)
    assert str(path) in message and why in message and "recomputed" in message
    assert not path.exists()


def test_vectors_entry_with_wrong_shape_is_damaged(tmp_path):
    """A header that passes the checksum but whose arrays do not fit the words (a writer bug)."""
    from wefe_same.run.cache import codec

    cache = ModelCache(tmp_path)
    t = table()
    meta = {"model": "m", "words": ["he"], "fingerprint": t.fingerprint(), "description": {},
            "lookups": [["he", "he", "exact"]]}
    cache._write("vectors", KEY, meta, {"raw": t.raw})
    with pytest.warns(WefeSameWarning, match=r"vectors of shape \(2, 3\).*for 1 words"):
        assert cache.get_vectors(KEY) is None
    assert entries(tmp_path) == []
    assert codec.FORMAT_VERSION == 2 and codec.MAGIC == b"WEFESAME-CACHE 2\n"


def test_unstorable_value_is_a_warning_and_no_entry(tmp_path):
    cache = ModelCache(tmp_path)
    odd = scores(details=pd.DataFrame({"c": pd.Categorical(["a", "b"])}))
    with pytest.warns(WefeSameWarning, match="could not be written.*dtype category"):
        cache.put_scores(KEY, odd)
    assert entries(tmp_path) == [] and cache.get_scores(KEY) is None


def test_writes_leave_no_temporary_file_and_orphans_are_removed(tmp_path):
    cache = ModelCache(tmp_path)
    cache.put_vectors(KEY, table(), {})
    folder = cache.path("vectors", KEY).parent
    assert [p.name for p in folder.iterdir()] == [f"{KEY}.entry"]
    host = socket.gethostname()
    dead = folder / f".tmp-{host}-999999999-0-x.tmp"  # no such process
    alive = folder / f".tmp-{owner_tag()}y.tmp"  # a writer still at work
    foreign = folder / ".tmp-otherhost-999999999-0-z.tmp"  # another machine's writer: not ours to judge
    # A live writer on host "HOST-2" (a cache shared over NFS): read from the left, its name
    # looked like this host's pid 2 with a start time that pid 2 does not have
    neighbour = folder / f".tmp-{host}-2-{os.getpid()}-{process_start(os.getpid())}-w.tmp"
    for p in (dead, alive, foreign, neighbour):
        p.write_bytes(b"partial")
    ModelCache(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{KEY}.entry", alive.name, foreign.name,
                                                              neighbour.name])


def test_unusable_cache_dir_is_one_error_naming_it(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("mine")
    for path, why in [(blocker, "exists and is not a directory"), (blocker / "sub", "not writable")]:
        with pytest.raises(CacheError) as err:
            ModelCache(path)
        message = str(err.value)
        assert message.startswith(f"cache directory {path}: {why}") and "--no-cache" in message
        assert "\n" not in message
    assert blocker.read_text() == "mine" and sorted(tmp_path.iterdir()) == [blocker]
    assert CACHE_UNUSABLE.startswith("cache directory {path}")


def test_default_root_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env-cache"))
    assert ModelCache().root == tmp_path / "env-cache"
    monkeypatch.delenv(ENV_VAR)
    import platformdirs

    assert check_cache.__module__.startswith("wefe_same.run.cache")
    from wefe_same.run.cache import default_cache_dir

    assert default_cache_dir() == Path(platformdirs.user_cache_dir("wefe_same"))


def test_bad_key_is_refused(tmp_path):
    with pytest.raises(CacheError, match="sha256 hex digest"):
        ModelCache(tmp_path).path("scores", "../../etc/passwd")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ModelCache(tmp_path).get_scores(KEY) is None


def test_prune_deletes_the_least_recently_used_entries(tmp_path):
    cache = ModelCache(tmp_path)
    keys = [f"{i:02x}" + "0" * 62 for i in range(3)]
    for i, key in enumerate(keys):
        cache.put_vectors(key, table(), {})
        os.utime(cache.path("vectors", key), ns=(0, 10**18 + i))  # written in this order
    assert cache.get_vectors(keys[0]) is not None  # a read marks the oldest as used
    size = cache.path("vectors", keys[0]).stat().st_size
    assert cache.prune(max_bytes=2 * size) == size
    assert [p.stem for p in cache.entries()] == [keys[0], keys[2]]
    assert cache.prune(max_bytes=0) == 2 * size and cache.entries() == []


# ----------------------------------------------------------------------------- code digests
def _source(module: str) -> Path | None:
    """The file of a wefe_same module or package, None for anything else."""
    from wefe_same.versions import ROOT

    if not module.startswith("wefe_same."):
        return None
    rel = Path(*module.split(".")[1:])
    return next((p for p in (ROOT / rel / "__init__.py", ROOT / rel.with_suffix(".py")) if p.is_file()), None)


def _import_closure(module: str) -> dict[str, Path]:
    """Every wefe_same module ``module`` imports, transitively, anywhere in its source (in
    functions too), with the packages above each (importing ``a.b.c`` runs ``a/b/__init__.py``)."""
    import ast

    seen: dict[str, Path] = {}
    stack = [module]
    while stack:
        name = stack.pop()
        path = _source(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        stack += [".".join(parts[:i]) for i in range(2, len(parts))]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                stack += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert not node.level, "the package imports absolutely"
                stack += [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
    return seen


def _covered(path: Path, parts) -> bool:
    from wefe_same.versions import ROOT

    rel = path.relative_to(ROOT).as_posix()
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in parts)


@pytest.mark.parametrize("module, digest", [
    ("wefe_same.scoring.model", "SCORING_CODE"),   # a model's scores (plan.scoring_key)
    ("wefe_same.scoring.vectors", "VECTORS_CODE"),  # a model's vectors (vectors_key)
    ("wefe_same.quality.evaluate", "QUALITY_CODE"),  # a model's quality rows (quality_key)
    ("wefe_same.likelihood.evaluate", "LIKELIHOOD_CODE"),  # a model's likelihood tables (likelihood_key)
    ("wefe_same.analysis.lipstick", "LIPSTICK_CODE"),  # a debiased variant's lipstick rows (lipstick_key)
])
def test_code_digests_cover_every_module_the_cached_code_imports(module, digest):
    from wefe_same.run import cache, plan
    from wefe_same.versions import ROOT, code_digest

    parts = getattr(plan, digest, None) or getattr(cache, digest)
    assert [p for p in parts if not (ROOT / p).exists()] == []
    code_digest(*parts)  # raises on a missing path
    closure = _import_closure(module)
    assert module in closure and len(closure) > 3
    assert sorted(m for m, path in closure.items() if not _covered(path, parts)) == []
