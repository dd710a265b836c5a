"""debias_effect.csv: every base/variant pair of a run, its numbers equal to the run's own tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, random_source

from wefe_same import Bootstrap, Execution
from wefe_same.analysis.debias_effect import debias_pairs
from wefe_same.api import rank
from wefe_same.models import ArraySource
from wefe_same.models.debias import HSRDebiasedSource

METRICS = ["WEAT", "RNSB", "MAC", "ECT", "SAME"]  # ECT is undefined on 2-word sets: an "undefined" row


def same(a, b) -> bool:
    return bool(a == b or (np.isnan(a) and np.isnan(b)))


def _run(tmp_path, toy_query, **options):
    base = random_source("toy", seed=1)
    hsr = HSRDebiasedSource(base, definitional=["he", "she", "man", "woman"], alpha=1.0)
    other = random_source("other", seed=2)
    variant = ArraySource("toy+hard-debias[x=1]", GENDER_WORDS, np.random.default_rng(3).normal(size=(12, 8)))
    result = rank([base, hsr, other, variant], queries=[toy_query], metrics=METRICS, **options)
    return result, result.save(tmp_path / "out")


def test_differences_equal_the_runs_own_tables(tmp_path, toy_query):
    result, folder = _run(tmp_path, toy_query, bootstrap=Bootstrap(words=10), seed=5)
    effect = pd.read_csv(folder / "debias_effect.csv")
    aggregates = pd.read_csv(folder / "aggregates.csv", index_col=0)
    rankings = pd.read_csv(folder / "rankings.csv", index_col=0)
    # paired by what the model was made from: an unrelated array named like a variant is not paired
    assert sorted(set(zip(effect["base"], effect["variant"]))) == [("toy", "toy+hsr-debias")]
    assert len(effect) == len(METRICS)
    for row in effect.itertuples():
        before, after = aggregates.at[row.base, row.metric], aggregates.at[row.variant, row.metric]
        assert same(row.base_score, before) and same(row.debiased_score, after)
        assert same(row.difference, after - before)  # exactly: the same float64 operation on the same numbers
        assert same(row.rank_change, rankings.at[row.variant, row.metric] - rankings.at[row.base, row.metric])
        if np.isnan(after - before):
            assert row.effect == "undefined"
            continue
        # with the word bootstrap the verdict is the paired interval's, never the bare sign
        assert row.basis == "interval" and row.diff_low <= row.diff_high
        below, above = row.diff_high < 0, row.diff_low > 0
        if row.order == "descending":
            below, above = above, below
        assert row.effect == ("reduced" if below else "increased" if above else "no change")
    summary = pd.read_csv(folder / "debias_summary.csv")
    for s in summary.itertuples():
        counts = effect[effect["variant"] == s.variant]["effect"].value_counts()
        assert (s.reduced, s.increased, s.no_change, s.undefined, s.metrics, s.basis) == (
            counts.get("reduced", 0), counts.get("increased", 0), counts.get("no change", 0),
            counts.get("undefined", 0), len(METRICS), "interval")
    assert (effect["effect"] == "undefined").sum() == 1  # ECT
    assert (folder / "figures" / "debias_effect.png").is_file()


def test_paired_interval_is_the_difference_of_the_same_draws(tmp_path, toy_query):
    """The interval comes from the word-bootstrap draws of both models: with the base's draws
    shifted by a constant the interval of the difference collapses to that constant."""
    from wefe_same.analysis.debias_effect import debias_effect
    from wefe_same.metrics.registry import get_metric

    specs = [get_metric("WEAT")]
    aggregates = pd.DataFrame({"WEAT": [1.0, 0.25]}, index=["m", "m+ran-debias"])
    rankings = pd.DataFrame({"WEAT": pd.array([2, 1], dtype="Int64")}, index=aggregates.index)
    draws = np.random.default_rng(0).normal(size=(50, 1, 1)) + np.array([0.0, -0.75])[None, :, None]
    effect, summary = debias_effect(aggregates, rankings, specs, pairs=[("m", "m+ran-debias", "+ran-debias")],
                                    draws=draws)
    assert effect.loc[0, "difference"] == -0.75
    assert effect.loc[0, ["diff_low", "diff_high"]].tolist() == pytest.approx([-0.75, -0.75])
    assert effect.loc[0, ["effect", "basis"]].tolist() == ["reduced", "interval"]
    assert summary.loc[0, ["reduced", "increased", "no_change", "basis"]].tolist() == [1, 0, 0, "interval"]


def test_no_pair_no_table(tmp_path, toy_query):
    result = rank([random_source("a", 1), random_source("b", 2)], queries=[toy_query], metrics=["WEAT"])
    assert result.debias_effect is None and "debias_effect" not in result.extra
    assert debias_pairs({"a+hard-debias": random_source("a+hard-debias", 1), "b": random_source("b", 2)}) == []


def test_report_shows_the_effect_from_memory_and_from_the_folder(tmp_path, toy_query):
    from wefe_same.output.report_html import rebuild_report

    _, folder = _run(tmp_path, toy_query)
    first = (folder / "report.html").read_text(encoding="utf-8")
    rebuilt, _ = rebuild_report(folder)
    for page in (first, rebuilt.read_text(encoding="utf-8")):
        assert '<section id="debias">' in page
        assert "toy+hsr-debias vs toy:" in page and "toy+hard-debias[x=1] vs toy:" not in page



# ----------------------------------------------------------------------------- pairs by spec, never by name
@pytest.mark.parametrize(("specs", "pairs"), [
    ({"glove-6b-50d": "glove-6b-50d", "glove-6b-50d+hard-debias": "glove-6b-50d+hard-debias=word2vec-gnews-weat"},
     []),  # a model named like a variant
    ({"c": "c.txt", "c+hard-debias": "c+hard-debias.txt"}, []),  # two unrelated files
    ({"c": "c.txt", "mine": "mine=c.txt+hard-debias"}, [("c", "mine", "+hard-debias")]),  # a renamed variant
    ({"b": "b=glove:d/m[1].txt", "v": "glove:d/m[1].txt+hsr-debias[alpha=30]"},
     [("b", "v", "+hsr-debias[alpha=30]")]),
    ({"a": "a.txt", "a+hard-debias+hsr-debias": "a.txt+hard-debias+hsr-debias"}, []),  # its base is not in the run
])
def test_pairs_come_from_the_specs(specs, pairs):
    assert debias_pairs(specs) == pairs


def _glove(path, seed):
    from conftest import write_glove

    return write_glove(path, GENDER_WORDS, np.random.default_rng(seed).normal(size=(12, 5)))


def test_unrelated_files_named_like_a_variant_are_not_paired_in_a_run(tmp_path, toy_query, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _glove(tmp_path / "c.txt", 1)
    _glove(tmp_path / "c+hard-debias.txt", 2)
    result = rank(["c.txt", "c+hard-debias.txt"], queries=[toy_query], metrics=["WEAT"], permutations=0,
                  execution=Execution(cache=False))
    assert list(result.rankings.index) == ["c", "c+hard-debias"] and result.debias_effect is None


def test_ties_average_with_tied_models_and_a_debiased_variant(tmp_path, toy_query):
    base = random_source("toy", seed=1)
    twin = random_source("twin", seed=1)  # the same vectors: tied with the base under every metric
    hsr = HSRDebiasedSource(base, definitional=["he", "she", "man", "woman"], alpha=1.0)
    result = rank([base, twin, hsr], queries=[toy_query], metrics=["WEAT", "SAME"], permutations=0, ties="average",
                  execution=Execution(cache=False))
    effect = result.debias_effect
    assert list(effect["variant"].unique()) == ["toy+hsr-debias"]
    for row in effect.itertuples():
        assert result.rankings.at["toy", row.metric] == result.rankings.at["twin", row.metric]
        assert row.base_rank == result.rankings.at["toy", row.metric] and row.base_rank % 1 == 0.5
        assert row.rank_change == row.debiased_rank - row.base_rank
    result.save(tmp_path / "out")
    assert (tmp_path / "out" / "debias_effect.csv").is_file()
