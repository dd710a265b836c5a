"""Several ``likelihood_scoring`` options: every masked model is scored under each, the first
one is ranked as a single option would be, and each pair of options adds rows to the
measurement-sensitivity table (Spearman's rho between the models' rankings by each overall
likelihood column), checked against scipy on the per-option columns."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from tiny_lms import CROWS_CSV, STEREOSET_JSON, build_bert, build_gpt2

from wefe_same import Execution, Likelihood, Query, WordSet, rank
from wefe_same.analysis.measurement import COLUMNS, setting_sensitivity
from wefe_same.likelihood import load_language_model, score_crows
from wefe_same.likelihood.data import read_crows_pairs
from wefe_same.run.evaluators.likelihood import scoring_sensitivity
from wefe_same.validation import InvalidParameterError

QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
SCORINGS = ["authors", "pll", "aul"]
OVERALL = ["likelihood:crows-pairs", "likelihood:stereoset-ss", "likelihood:stereoset-lms",
           "likelihood:stereoset-icat"]
MASKED = ["m0", "m1", "m2", "m3"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """Four masked models (seeds 0-3), a causal one, 5 CrowS-Pairs pairs, 3 StereoSet examples."""
    root = tmp_path_factory.mktemp("lms")
    for seed, name in enumerate(MASKED):
        build_bert(root / name, seed=seed)
    build_gpt2(root / "clm")
    crows = root / "crows.csv"
    with CROWS_CSV.open(encoding="utf-8", newline="") as fh:
        header, *rows = list(csv.reader(fh))
    with crows.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header, *[r for r in rows if len(r[1].split()) <= 8][:5]])
    doc = json.loads(STEREOSET_JSON.read_text(encoding="utf-8"))
    doc["data"]["intrasentence"] = doc["data"]["intrasentence"][:3]
    stereoset = root / "stereoset.json"
    stereoset.write_text(json.dumps(doc), encoding="utf-8")
    specs = [f"{name}=hf:{root / name}" for name in [*MASKED, "clm"]]
    args = dict(metrics=["WEAT"], permutations=0, execution=Execution(progress=False, device="cpu", cache=root / "cache"),
                likelihood=Likelihood([f"crows-pairs={crows}", f"stereoset={stereoset}"]))
    return root, crows, specs, args


def scored(args, scoring):
    """``args`` with the likelihood benchmarks scored under ``scoring``."""
    return {**args, "likelihood": dataclasses.replace(args["likelihood"], scoring=scoring)}


@pytest.fixture(scope="module")
def several(setup):
    _, _, specs, args = setup
    return rank(specs, QUERY, **scored(args, SCORINGS))


@pytest.fixture(scope="module")
def single(setup, several):
    """Each option alone, read from the cache the run with all three filled."""
    _, _, specs, args = setup
    return {s: rank(specs, QUERY, **scored(args, s)) for s in SCORINGS}


def _key(values: pd.Series, column: str) -> pd.Series:
    """What the column ranks by: distance to 50 for the preference scores, else higher first."""
    return (values - 50).abs() if column.endswith(("crows-pairs", "-ss")) else -values


def test_each_pair_of_options_is_spearman_of_the_per_option_columns(several, single):
    table = several.measurement_sensitivity
    assert list(table.columns) == COLUMNS
    pairs = list(itertools.combinations([f"scoring={s}" for s in SCORINGS], 2))
    assert list(zip(table["setting_a"], table["setting_b"])) == pairs * len(OVERALL)
    assert list(table["metric"]) == [c for c in OVERALL for _ in pairs]
    finite = 0
    for row in table.itertuples():
        a, b = row.setting_a.removeprefix("scoring="), row.setting_b.removeprefix("scoring=")
        ka = _key(single[a].aggregates[row.metric], row.metric)
        kb = _key(single[b].aggregates[row.metric], row.metric)
        assert row.models == 5
        want = spearmanr(ka, kb).statistic
        if np.isnan(want):
            assert np.isnan(row.spearman)
        else:
            finite += 1
            assert row.spearman == pytest.approx(want, abs=1e-12)
        ra, rb = ka.rank(method="min"), kb.rank(method="min")
        assert row.models_changing_rank == int((ra != rb).sum())
        assert row.max_rank_shift == int((ra - rb).abs().max())
    # The check has teeth: the options rank these models differently.
    assert finite >= 6 and (table["spearman"] < 0.99).sum() >= 3 and table["models_changing_rank"].max() >= 2


def test_the_first_option_is_ranked_as_if_it_were_alone(several, single):
    alone = single["authors"]
    pd.testing.assert_frame_equal(several.aggregates, alone.aggregates)
    pd.testing.assert_frame_equal(several.rankings, alone.rankings)
    pd.testing.assert_frame_equal(several.correlations, alone.correlations)
    pd.testing.assert_frame_equal(several.likelihood, alone.likelihood)
    pd.testing.assert_frame_equal(several.likelihood_items, alone.likelihood_items)
    assert alone.measurement_sensitivity is None
    assert alone.manifest["settings"]["likelihood_scoring"] == "authors"
    assert several.manifest["settings"]["likelihood_scoring"] == SCORINGS


def test_masked_models_differ_between_options_and_the_causal_one_does_not(setup, single):
    root, crows, _, _ = setup
    values = pd.DataFrame({s: single[s].aggregates["likelihood:crows-pairs"] for s in SCORINGS})
    assert values.loc["clm"].nunique() == 1
    assert (values.loc[MASKED].nunique(axis=1) > 1).any()
    # The cached value under an option other than the first is that option's score.
    _, want = score_crows(load_language_model(root / "m1"), read_crows_pairs(crows), "pll")
    assert values.loc["m1", "pll"] == want.loc["overall", "metric_score"]


def test_a_second_run_under_every_option_opens_no_model(setup, several, monkeypatch):
    import wefe_same.run.evaluators.likelihood as stage

    _, _, specs, args = setup
    monkeypatch.setattr(stage, "load_language_model", lambda *_, **__: pytest.fail("a model was loaded again"))
    again = rank(specs, QUERY, **scored(args, list(reversed(SCORINGS))))
    table = again.measurement_sensitivity
    assert list(table["setting_a"][:3]) == ["scoring=aul", "scoring=aul", "scoring=pll"]
    first = several.measurement_sensitivity.set_index(["metric", "setting_a", "setting_b"])["spearman"]
    swapped = table.set_index(["metric", "setting_b", "setting_a"])["spearman"]
    swapped.index = swapped.index.set_names(first.index.names)
    pd.testing.assert_series_equal(swapped.reindex(first.index), first)


def test_rows_join_the_vary_rows_and_skip_models_without_scores():
    vary = pd.DataFrame([("WEAT", "pooling=mean", "pooling=cls", 3, 1.0, 0, 0)], columns=COLUMNS)
    long = {s: pd.DataFrame({"model": ["a", "b", "c", "static"], "benchmark": "crows-pairs",
                             "measure": "metric_score", "bias_type": "overall",
                             "value": values}) for s, values in
            [("authors", [40.0, 55.0, 70.0, np.nan]), ("aul", [50.0, 80.0, 65.0, np.nan])]}
    table = scoring_sensitivity(vary, long, ["a", "b", "c", "static"], "min")
    assert table.iloc[0].tolist() == vary.iloc[0].tolist()
    row = table.iloc[1]
    assert (row.metric, row.setting_a, row.setting_b, row.models) == ("likelihood:crows-pairs", "scoring=authors",
                                                                      "scoring=aul", 3)
    # |x - 50|: authors 10, 5, 20 -> ranks 2, 1, 3; aul 0, 30, 15 -> 1, 3, 2.
    assert row.spearman == pytest.approx(spearmanr([2, 1, 3], [1, 3, 2]).statistic)
    assert (row.models_changing_rank, row.max_rank_shift) == (3, 2)
    assert setting_sensitivity({"s=a": pd.DataFrame({"x": [1.0]})}).empty  # one setting, no pair


@pytest.mark.parametrize(("value", "message"), [
    (["authors", "pll", "authors"], "names 'authors' twice"),
    ([], "must name at least one scoring"),
    (["authors", "sum"], "must be one of 'authors', 'bias-bench', 'pll', 'aul'. Got 'sum'"),
])
def test_a_bad_list_of_options_is_refused_before_any_work(value, message):
    with pytest.raises(InvalidParameterError, match=message):
        rank(["glove-6b-50d"], "gender",
             likelihood=Likelihood(benchmarks=[f"crows-pairs={CROWS_CSV}"], scoring=value),
             execution=Execution(cache=False))


def test_the_command_line_writes_the_rows_the_figure_and_the_report_section(setup, single, tmp_path, monkeypatch,
                                                                            capsys):
    from wefe_same.cli import main

    root, _, specs, args = setup
    monkeypatch.chdir(tmp_path)
    code = main(["rank", "--models", *specs[:3], "--queries", "gender", "--metrics", "WEAT", "--permutations", "0",
                 "--device", "cpu", "--cache", str(args["execution"].cache), "--formats", "svg", "--out", "res",
                 "--likelihood", *args["likelihood"].benchmarks, "--likelihood-scoring", "pll", "authors"])
    assert code == 0, capsys.readouterr().err
    table = pd.read_csv(tmp_path / "res" / "measurement_sensitivity.csv")
    assert list(table.columns) == COLUMNS and len(table) == len(OVERALL)
    assert set(zip(table["setting_a"], table["setting_b"])) == {("scoring=pll", "scoring=authors")}
    assert (table["models"] == 3).all()
    # pll is the first option: the columns are pll's.
    written = pd.read_csv(tmp_path / "res" / "aggregates.csv", index_col=0)["likelihood:crows-pairs"]
    pd.testing.assert_series_equal(written, single["pll"].aggregates.loc[MASKED[:3], "likelihood:crows-pairs"],
                                   check_names=False, check_index_type=False)
    assert set(pd.read_csv(tmp_path / "res" / "likelihood.csv")["scoring"]) == {"pll"}
    assert [p.name for p in (tmp_path / "res").rglob("measurement_sensitivity.svg")]
    report = (tmp_path / "res" / "report.html").read_text(encoding="utf-8")
    assert '<section id="measurement">' in report and "scoring=authors" in report and "Settings scoring=NAME" in report


def test_an_option_named_twice_on_the_command_line_is_one_line_exit_2_and_nothing_written(tmp_path, monkeypatch,
                                                                                        capsys):
    from wefe_same.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["rank", "--models", "glove-6b-50d", "--queries", "gender", "--out", "res", "--no-cache",
                 "--likelihood", f"crows-pairs={CROWS_CSV}", "--likelihood-scoring", "aul", "aul"])
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("wefe-same: warning:")]
    assert code == 2 and len(err) == 1 and "names 'aul' twice" in err[0], err
    assert list(tmp_path.iterdir()) == []
