"""``rank(likelihood=...)`` and ``--likelihood``: the figures of each language model join the
rankings, aggregates, correlations and the results folder; other models get NaN with the reason."""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest
from tiny_lms import CROWS_CSV, STEREOSET_JSON, build_bert, build_gpt2

from wefe_same import Execution, Likelihood, Query, WordSet, rank
from wefe_same.errors import LikelihoodError
from wefe_same.likelihood import load_language_model, score_crows, score_stereoset
from wefe_same.likelihood.data import read_crows_pairs, read_stereoset
from wefe_same.likelihood.sentences import SCORINGS
from wefe_same.options.choices import LIKELIHOOD_SCORINGS

QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
COLUMNS = ["likelihood:crows-pairs", "likelihood:stereoset-ss", "likelihood:stereoset-lms",
           "likelihood:stereoset-icat"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """Two language models (masked, causal), an encoder without a head, 8 pairs, 5 examples."""
    from tiny_transformers import build

    root = tmp_path_factory.mktemp("lm")
    build_bert(root / "mlm")
    build_gpt2(root / "clm")
    build("bert", root / "enc")
    crows = root / "crows.csv"
    with CROWS_CSV.open(encoding="utf-8", newline="") as fh:
        header, *rows = list(csv.reader(fh))
    short = [r for r in rows if len(r[1].split()) <= 9][:8]
    with crows.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([header, *short])
    doc = json.loads(STEREOSET_JSON.read_text(encoding="utf-8"))
    doc["data"]["intrasentence"] = doc["data"]["intrasentence"][:5]
    stereoset = root / "stereoset.json"
    stereoset.write_text(json.dumps(doc), encoding="utf-8")
    return root, crows, stereoset


@pytest.fixture(scope="module")
def result(setup, toy_sources_module):
    root, crows, stereoset = setup
    return rank([toy_sources_module, f"mlm=hf:{root / 'mlm'}", f"clm=hf:{root / 'clm'}", f"enc=hf:{root / 'enc'}"],
                QUERY, metrics=["WEAT", "RNSB"], permutations=0,
                likelihood=[f"crows-pairs={crows}", f"stereoset={stereoset}"],
                execution=Execution(cache=False, progress=False, device="cpu"))


@pytest.fixture(scope="module")
def toy_sources_module():
    from wefe_same.models import ArraySource

    words = ["he", "she", "him", "her", "man", "woman", "boy", "girl", "doctor", "nurse", "engineer", "teacher"]
    return ArraySource("static", words, np.random.default_rng(3).normal(size=(len(words), 8)))


def test_language_models_get_the_benchmark_figures(result, setup):
    root, crows, stereoset = setup
    likelihood = [c for c in result.rankings.columns if c.startswith("likelihood:")]
    by_type = [f"likelihood:crows-pairs[{t}]" for t in read_crows_pairs(crows)["bias_type"].unique()]
    assert likelihood == [COLUMNS[0], *by_type, *COLUMNS[1:]] and len(by_type) >= 3
    assert [c for c in result.aggregates.columns if c.startswith("likelihood:")] == likelihood
    lm = load_language_model(root / "mlm")
    _, want = score_crows(lm, read_crows_pairs(crows))
    assert result.aggregates.loc["mlm", "likelihood:crows-pairs"] == want.loc["overall", "metric_score"]
    _, want = score_stereoset(load_language_model(root / "clm"), read_stereoset(stereoset))
    assert result.aggregates.loc["clm", "likelihood:stereoset-icat"] == pytest.approx(want.loc["overall", "icat"])
    for column in COLUMNS:
        assert np.isfinite(result.aggregates.loc[["mlm", "clm"], column]).all()
        assert result.aggregates.loc[["static", "enc"], column].isna().all()
    assert set(likelihood) <= set(result.correlations.columns) and set(likelihood) <= set(result.set_apart)
    table = result.likelihood
    first = table[(table["model"] == "mlm") & (table["bias_type"] == by_type[0][len("likelihood:crows-pairs["):-1])]
    assert result.aggregates.loc["mlm", by_type[0]] == first["value"].iloc[0]


def test_ranks_follow_each_measure_order(result):
    agg, ranks = result.aggregates.loc[["mlm", "clm"]], result.rankings.loc[["mlm", "clm"]]
    for column, key in [("likelihood:crows-pairs", lambda v: abs(v - 50)),
                        ("likelihood:stereoset-ss", lambda v: abs(v - 50)),
                        ("likelihood:stereoset-icat", lambda v: -v)]:
        a, b = key(agg.loc["mlm", column]), key(agg.loc["clm", column])
        if a != b:
            assert (ranks.loc["mlm", column] < ranks.loc["clm", column]) == (a < b)
    assert result.rankings.loc[["static", "enc"], COLUMNS].isna().all().all()


def test_the_reason_of_every_nan_and_the_per_item_table(result, setup):
    table = result.likelihood
    static = table[table["model"] == "static"]
    assert set(static["reason"]) == {"static word vectors: not a language model"}
    enc = table[table["model"] == "enc"]["reason"].iloc[0]
    assert enc == "encoder without a language-model head (architectures: BertModel)"
    assert any("likelihood scores are NaN for 'static'" in w for w in result.warnings)
    by_type = table[(table["model"] == "mlm") & (table["benchmark"] == "crows-pairs")]
    assert "race-color" in set(by_type["bias_type"]) and by_type["n_items"].max() == 8
    items = result.likelihood_items
    assert set(items["model"]) == {"mlm", "clm"}
    crows = items[(items["model"] == "mlm") & (items["benchmark"] == "crows-pairs")]
    assert len(crows) == 8 and (crows["sent_more_score"] < 0).all()
    assert set(crows["preferred"]) <= {"more", "less", "neutral"}


def test_the_results_folder_holds_the_tables_and_the_report_the_columns(result, tmp_path):
    out = result.save(tmp_path / "res", formats=[])
    assert "likelihood:crows-pairs" in pd.read_csv(out / "rankings.csv", index_col=0).columns
    items = pd.read_csv(out / "likelihood_items.csv")
    assert {"item_id", "bias_type", "stereotype_score", "sent_more_score"} <= set(items.columns)
    assert "static word vectors" in (out / "likelihood.csv").read_text(encoding="utf-8")
    assert "likelihood:stereoset-icat" in (out / "report.html").read_text(encoding="utf-8")


def test_options_are_checked_before_any_work(setup):
    root, crows, _ = setup
    with pytest.raises(LikelihoodError, match="unknown likelihood benchmark 'crowspairs'"):
        rank(["glove-6b-50d"], "gender", likelihood=[f"crowspairs={crows}"], execution=Execution(cache=False))
    with pytest.raises(ValueError, match="'scoring' parameter of Likelihood must be one of 'authors'"):
        rank(["glove-6b-50d"], "gender", likelihood=Likelihood(benchmarks=[f"crows-pairs={crows}"], scoring="x"),
             execution=Execution(cache=False))
    with pytest.raises(LikelihoodError, match="never downloaded without --allow-download"):
        rank(["glove-6b-50d"], "gender", likelihood=["crows-pairs"], execution=Execution(cache=False))
    assert LIKELIHOOD_SCORINGS == SCORINGS


def test_a_second_run_reads_the_tables_from_the_cache(setup, tmp_path, monkeypatch):
    import wefe_same.run.evaluators.likelihood as stage

    root, crows, _ = setup
    args = dict(metrics=["WEAT"], permutations=0, likelihood=[f"crows-pairs={crows}"],
                execution=Execution(progress=False, device="cpu", cache=tmp_path / "cache"))
    first = rank([f"mlm=hf:{root / 'mlm'}"], QUERY, **args)

    def refuse(*_, **__):
        raise AssertionError("the language model was loaded again")

    monkeypatch.setattr(stage, "load_language_model", refuse)
    again = rank([f"mlm=hf:{root / 'mlm'}"], QUERY, **args)
    pd.testing.assert_frame_equal(again.likelihood, first.likelihood)
    pd.testing.assert_frame_equal(again.likelihood_items, first.likelihood_items)
    with pytest.raises(AssertionError, match="loaded again"):  # another scoring is another entry
        rank([f"mlm=hf:{root / 'mlm'}"], QUERY, **{**args, "likelihood": Likelihood(args["likelihood"], scoring="aul")})
