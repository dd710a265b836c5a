"""A small-vocabulary model ranked with GloVe (glove-6b-50d): the uneven metrics are named at
the terminal, in RankResult.warnings, the manifest and on the page; ``--nan-policy common``
ranks every metric on the subqueries both models define (issue 29)."""

import json
import re
import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest
from conftest import GENDER_WORDS, random_source, write_glove

from wefe_same import Bootstrap, Execution, rank
from wefe_same.cli import build_parser
from wefe_same.output.report_html import UNEVEN_MARK, rebuild_report
from wefe_same.run.config import RankConfig

SETS = {
    "male": ["he", "him", "man", "boy"],
    "female": ["she", "her", "woman", "girl"],
    "career": ["executive", "management", "salary", "office"],
    "family": ["home", "parents", "children", "family"],
    "math": ["math", "algebra", "geometry", "calculus"],
    "arts": ["poetry", "art", "dance", "literature"],
}
QUERY = "\n".join(['[meta]\nname = "mixed"']
                  + [f"[sets.{name}]\nwords = {json.dumps(words)}" for name, words in SETS.items()]
                  + ['[[queries]]\ntargets = ["male", "female"]\n'
                     'attributes = ["career", "family", "math", "arts"]'])
#: The small model has no math word: its (2, 2) subqueries with "math" are NaN (3 of 6 left),
#: its (2, 1) subquery on "math" too (3 of 4 left).
SMALL_WORDS = [w for name, words in SETS.items() if name != "math" for w in words]
METRICS = ["WEAT-ES", "RND"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("uneven")
    (root / "mixed.toml").write_text(QUERY)
    write_glove(root / "small.txt", SMALL_WORDS, np.random.default_rng(5).normal(size=(len(SMALL_WORDS), 50)))
    return root


def test_the_terminal_the_manifest_and_the_page_name_the_uneven_metrics(inputs, tmp_path):
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", "glove-6b-50d",
                           f"small=glove:{inputs / 'small.txt'}", "--queries", str(inputs / "mixed.toml"),
                           "--metrics", *METRICS, "--permutations", "0", "--no-cache", "--formats", "png",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    said = ("'small' is defined on fewer subqueries than 'glove-6b-50d': WEAT-ES 3 vs 6 of 6; RND 3 vs 4 of 4: "
            "their aggregates are not comparable; --nan-policy common ranks on the subqueries every model defines")
    assert proc.stderr.count(said) == 1, proc.stderr  # once, both metrics in one line
    manifest = json.loads((out / "manifest.json").read_text())
    assert [w for w in manifest["warnings"] if "fewer subqueries" in w] == [said]
    page = (out / "report.html").read_text()
    assert said.replace("'", "&#x27;") in page
    assert _marked(page) == {("small", "WEAT-ES"), ("small", "RND")}
    # Rebuilt from the folder's tables (wefe-same report): the same cells are marked.
    path, _ = rebuild_report(out)
    assert _marked(path.read_text()) == {("small", "WEAT-ES"), ("small", "RND")}


def _marked(page: str) -> set[tuple[str, str]]:
    """(model, metric) of the rank cells of the per-metric table that carry the mark."""
    table = page.split('aria-label="Per-metric rankings"', 1)[1].split("</table>", 1)[0]
    head = re.findall(r'class="sort">([^<]*)</button>', table)
    marked = set()
    for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1]):
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
        marked |= {(cells[0], head[j]) for j, c in enumerate(cells) if j and c.endswith(UNEVEN_MARK)}
    return marked


def test_common_ranks_each_metric_on_the_subqueries_both_models_define(inputs):
    models = ["glove-6b-50d", f"small=glove:{inputs / 'small.txt'}"]
    kw = dict(queries=[str(inputs / "mixed.toml")], metrics=METRICS, permutations=0,
              execution=Execution(cache=False, progress=False))
    with pytest.warns(UserWarning, match="WEAT-ES 3 vs 6 of 6, 3 common; RND 3 vs 4 of 4, 3 common: every model "
                                         "is ranked on the subqueries they all define"):
        result = rank(models, nan_policy="common", **kw)
    expected_common = {"WEAT-ES": [f"{a}+{b}" for a, b in combinations(["career", "family", "arts"], 2)],
                       "RND": ["career", "family", "arts"]}
    for metric in METRICS:
        scores = result.scores[metric]
        assert scores.loc["glove-6b-50d"].notna().all()
        common = [c for c in scores.columns if scores.loc["small", c] == scores.loc["small", c]]
        assert [c.split("|")[1] for c in common] == expected_common[metric]
        # By hand: one query set, order |x|: the mean of |score| over the common subqueries.
        for model in ("glove-6b-50d", "small"):
            by_hand = sum(abs(float(scores.loc[model, c])) for c in common) / len(common)
            assert result.aggregates.at[model, metric] == pytest.approx(by_hand, rel=1e-12)
        assert sorted(result.rankings[metric].tolist()) == [1, 2]
    assert any("every model is ranked on the subqueries they all define" in w for w in result.warnings)
    assert result.manifest["settings"]["nan_policy"] == "common"


def test_the_command_line_takes_common_and_the_word_draws_are_said_to_be_per_model(toy_query):
    args = build_parser().parse_args(["rank", "--nan-policy", "common"])
    assert RankConfig.from_namespace(args).nan_policy == "common"
    # "gappy" lacks "engineer": with no missing word allowed its two "career" subqueries are NaN.
    gappy = random_source("gappy", 3, words=[w for w in GENDER_WORDS if w != "engineer"])
    models = [random_source("m0", 0), random_source("m1", 1), gappy]
    with pytest.warns(UserWarning, match="the --bootstrap-words and --halves draws still average each model's "
                                         "own defined subqueries"):
        result = rank(models, [toy_query], ["RND"], nan_policy="common", missing_threshold=0.0,
                      bootstrap=Bootstrap(subqueries=20, halves=2), execution=Execution(cache=False, progress=False))
    scores = result.scores["RND"]
    assert scores.loc["gappy"].isna().tolist() == [True, False]
    by_hand = scores.iloc[:, 1].abs()  # the one subquery every model defines
    np.testing.assert_allclose(result.aggregates["RND"].to_numpy(), by_hand.to_numpy(), rtol=0, atol=1e-15)
    # The subquery bootstrap resamples that one subquery: every draw is the point estimate.
    ci = result.aggregates_ci.set_index("model")
    np.testing.assert_allclose(ci.loc[list(scores.index), "ci_low"], by_hand.to_numpy(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(ci.loc[list(scores.index), "ci_high"], by_hand.to_numpy(), rtol=0, atol=1e-15)
