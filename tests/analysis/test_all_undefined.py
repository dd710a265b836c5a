"""A run where no requested metric ranks any model completes (issue 15, item 5): the
metrics show as undefined with their reason, and the aggregation-sensitivity tables say
there is nothing to compare. Before, ``rank`` raised from the sensitivity step."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, snapshot, write_glove

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.cli import main
from wefe_same.errors import WefeSameWarning
from wefe_same.models import ArraySource

NOT_ALIGNED = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                    [WordSet("career", ["doctor", "engineer", "nurse", "teacher"])], name="toy")
ALIGNED = Query([WordSet("male", ["he", "man"], aligned=True), WordSet("female", ["she", "woman"], aligned=True)],
                [WordSet("career", ["doctor", "engineer", "nurse", "teacher"])], name="toy")


def coinciding_groups(name: str, seed: int) -> ArraySource:
    """"she"/"woman" have the vectors of "he"/"man": the group means coincide."""
    matrix = np.random.default_rng(seed).normal(size=(len(GENDER_WORDS), 6))
    matrix[GENDER_WORDS.index("she")] = matrix[GENDER_WORDS.index("he")]
    matrix[GENDER_WORDS.index("woman")] = matrix[GENDER_WORDS.index("man")]
    return ArraySource(name, GENDER_WORDS, matrix)


def random_model(name: str, seed: int) -> ArraySource:
    return ArraySource(name, GENDER_WORDS, np.random.default_rng(seed).normal(size=(len(GENDER_WORDS), 6)))


@pytest.mark.parametrize("query, metrics, make, reason", [
    (NOT_ALIGNED, ["DirectBias", "RIPA"], random_model, "not declared aligned"),
    (ALIGNED, ["SAME", "SAME-stereotype"], coinciding_groups, "coincide"),
], ids=["not-aligned", "coinciding-means"])
def test_rank_completes_when_no_metric_ranks_any_model(query, metrics, make, reason):
    with pytest.warns(WefeSameWarning, match="nothing to compare"):
        result = rank([make("a", 0), make("b", 1)], [query], metrics=metrics, permutations=0,
                      execution=Execution(cache=False, progress=False))
    assert result.rankings[metrics].isna().all(axis=None)
    assert result.details["value"].isna().all()
    assert result.details["reason"].str.contains(reason).all(), result.details["reason"].tolist()
    table, agreement = result.aggregation, result.aggregation_agreement
    assert list(table["model"]) == ["a", "b"] and (table["metrics_used"] == 0).all()
    assert table.filter(like="_rank").isna().all(axis=None) and not table["changes"].any()
    assert agreement["kendall_tau"].isna().all() and (agreement["n_models"] == 0).all()
    assert any("nothing to compare" in w for w in result.warnings)


def test_cli_exits_0_with_a_complete_results_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for i in range(2):
        write_glove(tmp_path / f"m{i}.txt", GENDER_WORDS, np.random.default_rng(i).normal(size=(12, 5)))
    (tmp_path / "q.toml").write_text(
        '[sets.male]\nwords = ["he", "man"]\n[sets.female]\nwords = ["she", "woman"]\n'
        '[sets.career]\nwords = ["doctor", "engineer", "nurse"]\n'
        '[[queries]]\ntargets = ["male", "female"]\nattributes = ["career"]\n')
    (tmp_path / "notes.txt").write_text("mine")
    args = ["rank", "--models", "m0.txt", "m1.txt", "--queries", "q.toml", "--metrics", "DirectBias", "RIPA",
            "--permutations", "0", "--formats", "svg", "--no-cache", "--out", "res"]
    before = snapshot(tmp_path)
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "nothing to compare" in err and "Traceback" not in err
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("res/")} == before
    res = tmp_path / "res"
    for name in ("rankings.csv", "aggregates.csv", "details.csv.gz", "aggregation.csv", "aggregation_agreement.csv",
                 "manifest.json", "scores/DirectBias.csv", "scores/RIPA.csv"):
        assert (res / name).is_file(), name
    details = pd.read_csv(res / "details.csv.gz")
    assert details["reason"].str.contains("not declared aligned").all()
    assert "nothing to compare" in (res / "manifest.json").read_text()
