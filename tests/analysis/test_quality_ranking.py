"""Quality in the ranking and the `wefe-same quality` command, on hand-built models."""

import math

import numpy as np
import pandas as pd
import pytest
from conftest import write_glove

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.cli import main

WORDS = ["he", "man", "she", "woman", "doctor", "engineer", "nurse", "teacher", "king", "queen",
         "boy", "girl", "cat", "dog"]
# Gold similarity: (king, queen) and (cat, dog) similar, (king, cat) not.
SIMILARITY = "# word1 word2 score\nking\tqueen\t9\ncat\tdog\t8\nking\tcat\t1\nman\tdog\t2\nunknown\tcat\t5\n"
ANALOGY = ": family\nman woman king queen\nboy girl man woman\nman woman boy girl\n"


def model(seed, tidy):
    """Random vectors; ``tidy`` models encode gender as an offset so analogies and
    similarities work (higher quality)."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(len(WORDS), 12))
    if tidy:
        gender = rng.normal(size=12) * 2
        base = {"king": "queen", "man": "woman", "boy": "girl", "he": "she"}
        for m, f in base.items():
            M[WORDS.index(f)] = M[WORDS.index(m)] + gender
        M[WORDS.index("dog")] = M[WORDS.index("cat")] + 0.1 * rng.normal(size=12)
    return M


@pytest.fixture
def setup(tmp_path):
    models = [str(write_glove(tmp_path / f"{name}.txt", WORDS, model(i, tidy)))
              for i, (name, tidy) in enumerate([("tidy_a", True), ("messy_b", False), ("tidy_c", True)])]
    sim, ana = tmp_path / "mysim.txt", tmp_path / "myanalogy.txt"
    sim.write_text(SIMILARITY)
    ana.write_text(ANALOGY)
    query = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                  [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])])
    return models, str(sim), str(ana), query


def test_rank_adds_quality_columns_and_the_combined_rank(setup):
    models, sim, ana, query = setup
    result = rank(models, query, metrics=["SAME", "WEAT"], quality=[sim, ana], execution=Execution(progress=False))
    q = result.quality.set_index(["model", "benchmark"])
    assert q.loc[("tidy_a", "myanalogy"), "score"] == 1.0  # the offset model solves every analogy
    assert q.loc[("messy_b", "mysim"), "coverage"] == pytest.approx(4 / 5)  # "unknown" is missing
    cols = ["quality:mysim", "quality:myanalogy", "quality"]
    assert list(result.rankings.columns) == ["SAME", "WEAT", *cols]
    scores = result.aggregates[["quality:mysim", "quality:myanalogy"]]
    expected = scores.rank(ascending=False, method="min")
    pd.testing.assert_frame_equal(result.rankings[cols[:2]].astype(float), expected, check_names=False)
    total = expected.sum(axis=1)
    np.testing.assert_array_equal(result.rankings["quality"].astype(float), total.rank(method="min"))
    assert result.rankings.at["messy_b", "quality"] == 3
    # Fairness × quality correlations, with p-values.
    assert {"quality", "SAME"} <= set(result.correlations.columns)
    assert not math.isnan(result.correlation_pvalues.at["SAME", "quality"])
    assert result.quality_columns == cols and result.metric_names == ["SAME", "WEAT"]


def test_cli_rank_with_quality_writes_quality_and_tables(setup, tmp_path):
    models, sim, ana, _ = setup
    query = tmp_path / "q.toml"
    query.write_text('[sets.male]\nwords=["he","man"]\n[sets.female]\nwords=["she","woman"]\n'
                     '[sets.jobs]\nwords=["doctor","nurse","engineer","teacher"]\n'
                     '[[queries]]\ntargets=["male","female"]\nattributes=["jobs"]\n')
    out = tmp_path / "res"
    assert main(["rank", "--models", *models, "--queries", str(query), "--metrics", "SAME", "RND",
                 "--quality", sim, ana, "--out", str(out)]) == 0
    quality = pd.read_csv(out / "quality.csv")
    assert list(quality.columns[:5]) == ["model", "benchmark", "score", "coverage", "n_items"]
    assert len(quality) == 6
    tex = (out / "tables" / "rankings.tex").read_text()
    assert "quality:mysim" in tex and r"\textit{Overall}" in tex
    assert "quality" in pd.read_csv(out / "rankings.csv", index_col=0).columns


def test_cli_quality_command(setup, tmp_path, capsys):
    models, sim, ana, _ = setup
    out = tmp_path / "q"
    assert main(["quality", "--models", *models, "--benchmarks", sim, ana, "--out", str(out)]) == 0
    table = pd.read_csv(out / "quality.csv")
    assert table.shape[0] == 6 and set(table["benchmark"]) == {"mysim", "myanalogy"}
    assert "quality.csv" in capsys.readouterr().out


def test_cli_quality_bad_benchmark_is_one_line_exit_2(setup, tmp_path, capsys):
    models, *_ = setup
    assert main(["quality", "--models", models[0], "--benchmarks", "ws999", "--out", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("wefe-same: error: unknown benchmark 'ws999'") and len(err.splitlines()) == 1
