"""The encoders' worker job (:func:`wefe_same.scoring.vectors.read_spec`): the same table as
a lookup in the caller's process, and Python's cycle collector confined to the objects the
read made (the imports' ~390,000 objects frozen meanwhile, the read's own cycles collected)."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from wefe_same import processes
from wefe_same.models.catalog import resolve_model
from wefe_same.models.specs import LoadOptions
from wefe_same.scoring.vectors import build_table, read_spec


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_inside_the_block_older_objects_are_frozen_and_its_own_cycles_are_collected_at_its_end():
    assert gc.get_freeze_count() == 0
    with processes.own_objects_collected():
        assert gc.get_freeze_count() > 1000  # this test's own imports at least
        cycle = _Cycle()
        alive = weakref.ref(cycle)
        del cycle
    assert alive() is None
    assert gc.get_freeze_count() == 0


def test_read_spec_gives_the_callers_table_and_leaves_the_collector_as_it_was(tmp_path):
    words = ["he", "she", "doctor", "nurse"]
    rng = np.random.default_rng(0)
    lines = [f"{len(words)} 5"] + [" ".join([w, *(f"{x:.6f}" for x in rng.normal(size=5))]) for w in words]
    path = tmp_path / "toy.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table, description, _ = read_spec(str(path), LoadOptions(cache=False), ["He", "doctor", "nurse", "gone"])
    expected = build_table(resolve_model(str(path), LoadOptions(cache=False)), ["He", "doctor", "nurse", "gone"])
    assert table.words == expected.words
    assert np.array_equal(table.raw, expected.raw) and np.array_equal(table.unit, expected.unit)
    assert table.lookups == expected.lookups
    assert description["kind"]
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_an_encoder_read_by_the_job_equals_the_callers_table_byte_for_byte(tiny, monkeypatch, tmp_path):
    monkeypatch.setenv("WEFE_SAME_CACHE", str(tmp_path / "cache"))
    words = ["physician", "she", "nurse", "He"]
    table, description, identity = read_spec(f"hf:{tiny['bert']}", LoadOptions(cache=False), words)
    expected = build_table(resolve_model(f"hf:{tiny['bert']}", LoadOptions(cache=False)), words)
    assert table.words == expected.words and table.lookups == expected.lookups
    assert table.raw.tobytes() == expected.raw.tobytes() and table.unit.tobytes() == expected.unit.tobytes()
    assert description["kind"] == "hf" and identity is not None and identity["kind"] == "encoder"
    assert gc.get_freeze_count() == 0 and gc.isenabled()
