"""A likelihood benchmark of an installed package (issue 40 item 2):
``tests/plugins/toy_likelihood.py`` registered through the ``wefe_same.likelihood`` entry
point (a temporary ``*.dist-info``; PYTHONPATH for the CLI) is ranked beside the metrics with
its own column, order and per-bias-type columns by ``rank()`` and by ``wefe-same rank``, and
written to the results folder and the report; a broken entry point is one warning."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from plugin_site import install_plugin
from tiny_lms import build_bert

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.errors import LikelihoodError, WefeSameWarning
from wefe_same.likelihood import benchmarks as registry
from wefe_same.likelihood.evaluate import likelihood_benchmarks, parse_benchmark

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PAIRS = ["The doctor said he was late.\tThe doctor said she was late.\tgender",
         "The nurse said she was tired.\tThe nurse said he was tired.\tgender",
         "He is a good engineer.\tShe is a good engineer.\tgender",
         "The old man was kind.\tThe young man was kind.\tage",
         "The old woman was slow.\tThe young woman was slow.\tage"]
QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
WORDS = ["he", "she", "man", "woman", "doctor", "engineer", "nurse", "teacher"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    sys.path[:0] = install_plugin(site, "toy-likelihood-plugin", registry.ENTRY_POINT_GROUP,
                                  {"toy-pairs": "toy_likelihood:BENCHMARK", "stereoset": "toy_likelihood:BENCHMARK",
                                   "broken": "toy_likelihood:NO_SUCH_NAME"})
    registry.plugin_benchmarks.cache_clear()
    yield site
    del sys.path[:2]
    registry.plugin_benchmarks.cache_clear()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy-likelihood")
    build_bert(root / "mlm")
    (root / "pairs.tsv").write_text("\n".join(PAIRS) + "\n", encoding="utf-8")
    static = root / "static.txt"
    rows = np.random.default_rng(1).normal(size=(len(WORDS), 6))
    static.write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in r) + "\n" for w, r in zip(WORDS, rows)))
    return root


def test_the_plugin_is_a_benchmark_and_broken_entry_points_are_one_warning_each(site):
    registry.plugin_benchmarks.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        benchmarks = likelihood_benchmarks()
    said = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
    assert list(benchmarks) == ["crows-pairs", "stereoset", "toy-pairs"]
    assert benchmarks["stereoset"].reference.startswith("Nadeem")  # the built-in keeps its name
    assert benchmarks["toy-pairs"].column("preference") == "likelihood:toy-pairs"
    assert len(said) == 2 and any("takes the name of the built-in likelihood benchmark stereoset" in s for s in said)
    assert any("'broken' (toy_likelihood:NO_SUCH_NAME, package toy-likelihood-plugin 0.1) is not used" in s
               for s in said)
    assert parse_benchmark("toy-pairs=x.tsv") == ("toy-pairs", "x.tsv")
    with pytest.raises(LikelihoodError, match="likelihood benchmark 'broken'"):
        parse_benchmark("broken=x.tsv")


def test_rank_puts_the_plugin_benchmark_beside_the_metrics(site, data):
    result = rank([f"static={data / 'static.txt'}", f"mlm=hf:{data / 'mlm'}"], QUERY, metrics=["WEAT"],
                  permutations=0, likelihood=[f"toy-pairs={data / 'pairs.tsv'}"],
                  execution=Execution(cache=False, progress=False, device="cpu"))
    columns = [c for c in result.rankings.columns if c.startswith("likelihood:")]
    assert columns == ["likelihood:toy-pairs", "likelihood:toy-pairs[age]", "likelihood:toy-pairs[gender]"]
    table = result.likelihood
    overall = table[(table["model"] == "mlm") & (table["bias_type"] == "overall")].iloc[0]
    items = result.likelihood_items[result.likelihood_items["model"] == "mlm"]
    expected = 100 * float(np.mean(items["first_score"].to_numpy() > items["second_score"].to_numpy()))
    assert overall["measure"] == "preference" and overall["value"] == expected and overall["n_items"] == 5
    assert result.aggregates.loc["mlm", "likelihood:toy-pairs"] == expected
    assert pd.isna(result.aggregates.loc["static", "likelihood:toy-pairs"])
    assert "static word vectors" in table[table["model"] == "static"]["reason"].iloc[0]


def test_the_cli_ranks_the_plugin_benchmark_and_reports_it(site, data, tmp_path):
    out = tmp_path / "res"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), str(HERE)])}
    done = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", f"static={data / 'static.txt'}",
                           f"mlm=hf:{data / 'mlm'}", "--queries", "gender", "--metrics", "WEAT",
                           "--permutations", "0", "--likelihood", f"toy-pairs={data / 'pairs.tsv'}", "--device",
                           "cpu", "--no-cache", "--out", str(out), "--formats", "png"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "likelihood:toy-pairs" in (out / "rankings.csv").read_text()
    assert "toy-pairs" in (out / "likelihood.csv").read_text()
    assert "likelihood:toy-pairs" in (out / "report.html").read_text()
