"""The worked test-retest example of docs/guide/trust.md on real vectors: five word2vec
trainings of gensim's own test corpus that differ only by their seed (docs/seed_family.py),
built offline; a seed gives the same vectors every time, so the family's test-retest rows
measure the seeds and nothing else."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from wefe_same import Bootstrap, Execution, rank

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "seed_family.py"


def example():
    spec = importlib.util.spec_from_file_location("seed_family", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_family_of_five_seeds_trains_offline_and_its_test_retest_rows_are_defined(tmp_path):
    module = example()
    models = module.train_family(tmp_path / "family", seeds=5, epochs=1)
    again = module.train_family(tmp_path / "again", seeds=1, epochs=1)
    assert (tmp_path / "family" / "w2v-seed1.txt").read_bytes() == (again.parent / "w2v-seed1.txt").read_bytes()
    assert (tmp_path / "family" / "w2v-seed1.txt").read_bytes() != (tmp_path / "family" / "w2v-seed2.txt").read_bytes()
    result = rank(models_file=models, queries=models.parent / "wiki-gender.toml", metrics=["WEAT", "SAME"],
                  permutations=0, bootstrap=Bootstrap(reliability=True), execution=Execution(progress=False, cache=False))
    table = result.reliability
    words = table[(table["family"] == "w2v") & (table["kind"] == "test-retest (words)")]
    assert list(words["measure"]) == ["WEAT", "SAME"]
    assert (words["n_raters"] == 5).all() and (words["n_subjects"] == 29).all()  # every occupation and pair found
    assert np.isfinite(words["value"]).all()
    assert ((words["low"] <= words["value"]) & (words["value"] <= words["high"])).all()
    pairs = table[(table["kind"] == "internal consistency") & (table["model"] == "w2v-seed1")]
    assert (pairs["n_raters"] == 8).all()  # the eight gender pairs of the corpus
