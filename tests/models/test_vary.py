"""``--vary``: every hf: model as one variant per measurement setting, all ranked, and the
measurement-sensitivity table checked against scipy's Spearman on the run's own aggregates."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, spearmanr

from wefe_same import Encoding, Execution, ModelError, rank
from wefe_same.models.encoders.vary import parse_vary

METRICS = ["WEAT-ES", "SAME", "RND"]


# module-scoped encoder fixtures read and hash into one temporary cache
pytestmark = pytest.mark.usefixtures("module_encoder_cache")


@pytest.fixture(scope="module")
def query(tmp_path_factory):
    from conftest import MINI_QUERY

    path = tmp_path_factory.mktemp("q") / "mini.toml"
    path.write_text(MINI_QUERY, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def varied(tiny, query):
    models = [f"hf:{tiny['bert']}", f"hf:{tiny['roberta']}", f"hf:{tiny['gpt2']}", "glove-6b-50d"]
    return rank(models, query, metrics=METRICS, permutations=0, execution=Execution(progress=False, cache=False),
                encoding=Encoding(vary=["pooling=cls,word-mean", "layer=-1,-2:-1"]))


def test_every_hf_model_becomes_one_variant_per_setting(varied, tiny, query):
    names = list(varied.rankings.index)
    settings = [f"pooling={p},layer={x}" for p, x in itertools.product(["cls", "word-mean"], ["-1", "-2:-1"])]
    assert names == [f"{base}[{s}]" for base in ("bert", "roberta", "gpt2") for s in settings] + ["glove-6b-50d"]
    # A variant scores as the same model given with those options.
    alone = rank([f"hf:{tiny['roberta']},pooling=cls,layer=-2:-1"], query, metrics=METRICS, permutations=0,
                 execution=Execution(progress=False, cache=False))
    np.testing.assert_allclose(alone.aggregates.iloc[0].to_numpy(dtype=float),
                               varied.aggregates.loc["roberta[pooling=cls,layer=-2:-1]"].to_numpy(dtype=float),
                               rtol=1e-9)


def test_measurement_sensitivity_is_spearman_between_the_rankings_under_each_setting(varied):
    table = varied.measurement_sensitivity
    assert table is not None and "measurement_sensitivity" in varied.extra
    settings = list(dict.fromkeys(n[n.index("[") + 1:-1] for n in varied.aggregates.index if "[" in n))
    assert len(table) == len(METRICS) * len(settings) * (len(settings) - 1) // 2
    for metric in METRICS:
        descending = False  # none of these metrics ranks descending
        by_abs = metric in ("WEAT-ES", "RND")
        ranks = {}
        for s in settings:
            names = [f"{b}[{s}]" for b in ("bert", "roberta", "gpt2")] + ["glove-6b-50d"]
            values = varied.aggregates.loc[names, metric].to_numpy(dtype=float)
            values = np.abs(values) if by_abs else values
            ranks[s] = rankdata(-values if descending else values, method="min")
        for a, b in itertools.combinations(settings, 2):
            row = table[(table.metric == metric) & (table.setting_a == a) & (table.setting_b == b)].iloc[0]
            rho = spearmanr(ranks[a], ranks[b]).statistic
            assert row.models == 4
            assert (np.isnan(rho) and np.isnan(row.spearman)) or row.spearman == pytest.approx(rho), (metric, a, b)
            assert row.models_changing_rank == int((ranks[a] != ranks[b]).sum())
            assert row.max_rank_shift == int(np.abs(ranks[a] - ranks[b]).max())


def test_the_table_figure_and_report_section_are_written_with_the_results(varied, tmp_path):
    from wefe_same.cli import main

    out = varied.save(tmp_path / "res", formats=("svg",))
    written = pd.read_csv(out / "measurement_sensitivity.csv")
    assert list(written.columns) == ["metric", "setting_a", "setting_b", "models", "spearman",
                                     "models_changing_rank", "max_rank_shift"]
    assert len(written) == len(varied.measurement_sensitivity)
    assert [p.name for p in out.rglob("measurement_sensitivity.svg")]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert '<section id="measurement">' in report and "pooling=word-mean,layer=-2:-1" in report
    # Rebuilt from the folder's tables, the section is the same.
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0
    assert '<section id="measurement">' in (out / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("vary, fragment", [
    (["pool=mean"], "can vary pooling, layer"),
    (["pooling=mean,max"], "--vary option pooling='max' must be one of"),
    (["layer=x"], r"not an integer in \[-1000, 1000\] or a range"),
    (["pooling=mean", "pooling=cls"], "given twice"),
])
def test_bad_vary_is_one_line_error(vary, fragment):
    with pytest.raises(ModelError, match=fragment.replace("(", r"\(")):
        parse_vary(vary)


def test_vary_needs_an_hf_model(query):
    with pytest.raises(ModelError, match="--vary needs at least one hf: model"):
        rank(["glove-6b-50d"], query, metrics=["SAME"], permutations=0,
             execution=Execution(progress=False, cache=False), encoding=Encoding(vary=["pooling=mean,cls"]))
