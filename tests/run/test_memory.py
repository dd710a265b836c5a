"""Nothing of a model outlives its scores: a many-model run's memory stays flat.

Measuring RSS growth per model in a test is noisy (allocator caches, other tests in the
same process), so this checks the mechanism instead: once a model's scores are in, its
source (which holds the whole model file once read) and its VectorTable are garbage.
Before the fix the in-process job list held every model's source until the last model,
so the default run grew by ~150 MB per GloVe-sized model.
"""

from __future__ import annotations

import dataclasses
import gc
import weakref

import numpy as np
import pytest
from conftest import GENDER_WORDS, write_glove

import wefe_same.run.score as score_module
from wefe_same import Query, WordSet
from wefe_same.models.specs import LoadOptions
from wefe_same.run.cache import ModelCache
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import make_plan, make_tasks

QUERY = Query(
    [WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
    [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])],
    name="toy",
)


@pytest.mark.parametrize("cached", [True, False])
def test_each_model_is_let_go_once_scored(tmp_path, monkeypatch, cached):
    files = [write_glove(tmp_path / f"m{seed}.txt", GENDER_WORDS,
                         np.random.default_rng(seed).normal(size=(len(GENDER_WORDS), 6))) for seed in range(3)]
    tasks = make_tasks([f"glove:{p}" for p in files], LoadOptions())
    plan = make_plan(RankConfig(queries=QUERY, seed=3, permutations=20))
    held: list[tuple[weakref.ref, weakref.ref]] = []
    alive_at_start: list[int] = []
    load_table = score_module.load_table
    score_table = score_module.score_table

    def watched_load(task, words, **options):
        gc.collect()
        alive_at_start.append(sum(ref() is not None for pair in held for ref in pair))
        source = task.source()
        table, description, identity = load_table(dataclasses.replace(task, spec=source), words, **options)
        held.append((weakref.ref(source), weakref.ref(table)))
        return table, description, identity

    monkeypatch.setattr(score_module, "load_table", watched_load)
    monkeypatch.setattr(score_module, "score_table", score_table)
    scores, _ = score_module.score_models(plan, tasks, cache=ModelCache(tmp_path / "cache") if cached else None)
    gc.collect()
    assert len(held) == 3 and [s.name for s in scores] == [t.name for t in tasks]
    # when each model starts, no earlier model's source or table is alive; none at the end
    assert alive_at_start == [0, 0, 0]
    assert all(ref() is None for pair in held for ref in pair)
