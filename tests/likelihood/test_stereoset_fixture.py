"""StereoSet intrasentence sentence scores and ss / lms / icat equal those of bias-bench's own
code, run unedited on the same tiny models (data/stereoset_oracle_fixture.json, written by
make_stereoset_fixture.py from McGill-NLP/bias-bench ``stereoset.py``, ``dataloader.py`` and
``experiments/stereoset_evaluation.py``) on 30 examples (data/stereoset_excerpt.json)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from wefe_same.likelihood import LanguageModel, score_stereoset
from wefe_same.likelihood.data import read_stereoset

DATA = Path(__file__).resolve().parent / "data"
FIXTURE = json.loads((DATA / "stereoset_oracle_fixture.json").read_text(encoding="utf-8"))
LABELS = ("stereotype", "anti-stereotype", "unrelated")
#: Scores are probabilities (1e-8 .. 1e-3 on the tiny models): compared relatively.
RTOL = 1e-9
MEASURES = {"ss": "SS Score", "lms": "LM Score", "icat": "ICAT Score"}


@pytest.fixture(scope="module")
def examples():
    return read_stereoset(DATA / "stereoset_excerpt.json")


def test_the_fixture_names_its_code_and_input(examples):
    assert FIXTURE["input"]["sha256"] == hashlib.sha256((DATA / "stereoset_excerpt.json").read_bytes()).hexdigest()
    assert FIXTURE["code"]["repository"] == "McGill-NLP/bias-bench" and len(FIXTURE["code"]["commit"]) == 40
    assert set(FIXTURE["code"]["files"]) == {"bias_bench/benchmark/stereoset/stereoset.py",
                                             "bias_bench/benchmark/stereoset/dataloader.py",
                                             "experiments/stereoset_evaluation.py"}
    assert len(examples) == 30 and (examples["context"].str.count("BLANK") == 2).sum() == 1
    assert set(examples["bias_type"]) == {"profession", "race", "religion"}


@pytest.mark.parametrize("name", ["bert-wordpiece", "bert-char", "gpt2"])
def test_scores_and_figures_equal_bias_bench(examples, name, tiny_mlm, tiny_char_mlm, tiny_clm):
    run = FIXTURE["runs"][name]
    pair = {"bert-wordpiece": tiny_mlm, "bert-char": tiny_char_mlm, "gpt2": tiny_clm}[name]
    lm = LanguageModel(*pair, run["kind"], batch_size=16)
    items, summary = score_stereoset(lm, examples, "bias-bench")
    for label in LABELS:
        got = items[label.replace("-", "_") + "_score"].to_numpy()
        want = np.array([run["scores"][i] for i in examples[label + "_id"]])
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=0, err_msg=label)
    assert len(run["scores"]) == 3 * len(examples)
    for bias_type in ("overall", "race", "religion", "profession"):
        for ours, theirs in MEASURES.items():
            assert summary.loc[bias_type, ours] == pytest.approx(run["evaluation"][bias_type][theirs], abs=1e-9), \
                (bias_type, ours)
    # their per-domain Count is 3x the examples (each example is listed once per sentence); overall is not
    assert run["evaluation"]["overall"]["Count"] == summary.loc["overall", "n_items"] == 30
    assert run["evaluation"]["race"]["Count"] == 3 * summary.loc["race", "n_items"]
