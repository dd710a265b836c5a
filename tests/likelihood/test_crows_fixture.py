"""CrowS-Pairs sentence scores and metric scores equal those of the authors' own code, run
unedited on the same tiny models (data/crows_oracle_fixture.json, written by
make_crows_fixture.py from nyu-mll/crows-pairs ``metric.py`` and McGill-NLP/bias-bench
``crows.py``), on the first 200 pairs of CrowS-Pairs (data/crows_pairs_first200.csv).

The character-level model makes the order of an ``antistereo`` pair matter: both codes
align ``sent_less`` with ``sent_more`` (in that order) and a difflib alignment is not
symmetric, which changes the tokens scored on 5 of the 200 pairs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from wefe_same.likelihood import LanguageModel, crows_scores, score_crows
from wefe_same.likelihood.data import read_crows_pairs
from wefe_same.likelihood.sentences import shared_positions

DATA = Path(__file__).resolve().parent / "data"
FIXTURE = json.loads((DATA / "crows_oracle_fixture.json").read_text(encoding="utf-8"))
TOL = 1e-6
#: Rows of the 200 whose alignment changes when the two sentences are swapped (char model).
ORDER_SENSITIVE = [18, 76, 109, 132, 197]
CODES = {"authors": "metric_py", "bias-bench": "bias_bench"}


@pytest.fixture(scope="module")
def pairs():
    return read_crows_pairs(DATA / "crows_pairs_first200.csv")


@pytest.fixture(scope="module")
def models(tiny_mlm, tiny_char_mlm):
    return {"bert-wordpiece": LanguageModel(*tiny_mlm, "masked", batch_size=32),
            "bert-char": LanguageModel(*tiny_char_mlm, "masked", batch_size=32)}


@pytest.fixture(scope="module")
def scored(pairs, models):
    """(items, summary) of score_crows per (model, scoring), computed once: the 200 pairs, but
    for the char model's authors' scoring (about 60 masked tokens a sentence) its 32
    antistereo pairs only."""
    cache = {}

    def get(name, scoring):
        if (name, scoring) not in cache:
            sub = pairs.iloc[rows_of(pairs, name, scoring)]
            cache[name, scoring] = score_crows(models[name], sub, scoring)
        return cache[name, scoring]

    return get


def rows_of(pairs, name, scoring):
    if name == "bert-char" and scoring == "authors":
        return [k for k in range(len(pairs)) if pairs["direction"].iloc[k] == "antistereo"]
    return list(range(len(pairs)))


def theirs(model: str, scoring: str, rows=None):
    """(more, less, score) of their run, sent1/sent2 mapped back by direction (NaN: skipped)."""
    got = FIXTURE["runs"][model][CODES[scoring]]["pairs"]
    rows = range(len(got["row"])) if rows is None else rows
    nan = lambda x: np.nan if x is None else x  # noqa: E731
    s1 = np.array([nan(got["sent1_score"][k]) for k in rows])
    s2 = np.array([nan(got["sent2_score"][k]) for k in rows])
    anti = np.array([got["direction"][k] == "antistereo" for k in rows])
    score = np.array([nan(got["score"][k]) for k in rows])
    return np.where(anti, s2, s1), np.where(anti, s1, s2), score


def test_the_fixture_names_its_code_and_input(pairs):
    assert FIXTURE["input"]["sha256"] == hashlib.sha256((DATA / "crows_pairs_first200.csv").read_bytes()).hexdigest()
    assert FIXTURE["input"]["pairs"] == len(pairs) == 200
    assert pairs["item_id"].tolist() == [str(k) for k in range(200)]
    for run in FIXTURE["runs"].values():
        assert run["metric_py"]["repository"] == "nyu-mll/crows-pairs" and run["metric_py"]["file"] == "metric.py"
        assert run["bias_bench"]["repository"] == "McGill-NLP/bias-bench"
        assert run["bias_bench"]["file"] == "bias_bench/benchmark/crows/crows.py"
        for block in ("metric_py", "bias_bench"):
            assert len(run[block]["commit"]) == 40
            assert run[block]["pairs"]["row"] == list(range(200))
            assert run[block]["pairs"]["direction"] == pairs["direction"].tolist()


def test_the_order_changes_the_alignment_of_5_antistereo_pairs_on_the_char_model(pairs, models):
    """Why the fixture has a character-level model: with BERT's WordPiece vocabulary no pair
    of the 200 aligns differently when swapped, so the order went unchecked."""
    for name, want in (("bert-wordpiece", []), ("bert-char", ORDER_SENSITIVE)):
        tok = models[name].tokenizer
        found = []
        for k, row in enumerate(pairs.itertuples()):
            a, b = tok.encode(row.sent_more.lower()), tok.encode(row.sent_less.lower())
            if row.direction == "antistereo" and any(
                    shared_positions(a, b, equal=eq) != shared_positions(b, a, equal=eq)[::-1] for eq in (True, False)):
                found.append(k)
        assert found == want, name


@pytest.mark.parametrize("scoring", ["authors", "bias-bench"])
@pytest.mark.parametrize("name", ["bert-wordpiece", "bert-char"])
def test_sentence_scores_equal_their_code(pairs, scored, name, scoring):
    items, _ = scored(name, scoring)
    more, less = items["sent_more_score"].to_numpy(), items["sent_less_score"].to_numpy()
    want_more, want_less, _ = theirs(name, scoring, rows_of(pairs, name, scoring))
    assert set(ORDER_SENSITIVE) <= set(rows_of(pairs, name, scoring))
    np.testing.assert_array_equal(np.isnan(more), np.isnan(want_more))
    np.testing.assert_allclose(more, want_more, rtol=0, atol=TOL, err_msg="sent_more")
    np.testing.assert_allclose(less, want_less, rtol=0, atol=TOL, err_msg="sent_less")
    assert np.nanmax(np.abs(want_more)) > 1.0  # real log-probabilities


@pytest.mark.parametrize("scoring", ["authors", "bias-bench"])
def test_aligned_as_given_the_5_pairs_differ_from_their_code(pairs, models, scoring):
    """The fixture catches the order: sent_more first (no ``directions``) scores the 5 pairs otherwise."""
    sub = pairs.iloc[ORDER_SENSITIVE]
    more, less = crows_scores(models["bert-char"], list(zip(sub.sent_more, sub.sent_less)), scoring)
    want_more, want_less, _ = theirs("bert-char", scoring, ORDER_SENSITIVE)
    assert np.all(np.maximum(np.abs(more - want_more), np.abs(less - want_less)) > 0.1)


@pytest.mark.parametrize("name", ["bert-wordpiece", "bert-char"])
def test_bias_bench_metric_per_bias_type_equals_its_runner(scored, name):
    items, summary = scored(name, "bias-bench")
    run = FIXTURE["runs"][name]["bias_bench"]
    for bias_type, got in run["by_bias_type"].items():
        assert round(summary.loc[bias_type, "metric_score"], 2) == got["metric_score_returned"], bias_type
        assert summary.loc[bias_type, "n_pairs"] == got["n_printed"]
    _, _, score = theirs(name, "bias-bench")
    ok = ~np.isnan(score)
    np.testing.assert_array_equal(items["preferred"].to_numpy() != "skipped", ok)
    np.testing.assert_array_equal(items["preferred"].to_numpy()[ok] == "more", score[ok] == 1)
    assert summary.loc["overall", "metric_score"] == pytest.approx(100 * score[ok].mean(), abs=1e-12)
    assert summary.loc["overall", "n_pairs"] == sum(g["n_printed"] for g in run["by_bias_type"].values())
    assert (~ok).sum() == {"bert-wordpiece": 1, "bert-char": 7}[name]


@pytest.mark.parametrize("name", ["bert-wordpiece", "bert-char"])
def test_authors_verdicts_and_metric_equal_metric_py(pairs, scored, name):
    items, summary = scored(name, "authors")
    run = FIXTURE["runs"][name]["metric_py"]
    _, _, score = theirs(name, "authors", rows_of(pairs, name, "authors"))
    np.testing.assert_array_equal(items["preferred"].to_numpy() == "more", score == 1)
    if name == "bert-wordpiece":  # all 200 pairs: the metric itself
        assert summary.loc["overall", "metric_score"] == pytest.approx(100 * score.mean(), abs=1e-12)
        assert round(summary.loc["overall", "metric_score"], 2) == run["metric_score_printed"]
        assert summary.loc["overall", "n_pairs"] == run["n_printed"] == 200
