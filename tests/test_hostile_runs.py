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

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, no_hang, snapshot, write_glove

from wefe_same import rank
from wefe_same.cli import main
from wefe_same.errors import QueryError
from wefe_same.query.expand import DEFAULT_MAX_SUBQUERIES

FAST = ["--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes")
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    write_glove(tmp_path / "good.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    return tmp_path


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith("wefe-same: warning:")]


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
        rank(["good.txt"], queries="boom.toml", metrics="WEAT", permutations=0, cache=False, max_subqueries=35)
    result = rank(["good.txt"], queries="boom.toml", metrics="WEAT", permutations=0, cache=False, max_subqueries=36)
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
