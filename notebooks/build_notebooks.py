"""Write the notebooks of this folder from the cell sources below (run: python build_notebooks.py).

The test suite executes every notebook end to end (tests/test_notebooks.py); keeping the
sources here makes them reviewable as code. Outputs are not stored.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent


def md(text):
    return new_markdown_cell(text.strip())


def code(text):
    return new_code_cell(text.strip())


QUICKSTART = [
    md("""
# Quickstart: rank the built-in models by fairness

`wefe_same` ranks embedding models with many bias metrics at once (the WEFE ranking process)
and measures how far the metrics agree. This notebook ranks the four built-in models —
GloVe 6B 50d, the WEAT subset of word2vec GoogleNews, and their hard-debiased variants —
on the WEFE case-study query sets, reads the tables and draws the heatmap. Everything is
offline.
"""),
    code("""
import pandas as pd
from wefe_same import rank, load_queries

pd.set_option("display.width", 160)
[(qs.name, len(qs.queries)) for qs in load_queries(["gender", "ethnicity", "religion"])]
"""),
    md("Rank every installed catalog model with every metric (about a minute on 2 cores)."),
    code("""
result = rank(progress=False)
result.rankings
"""),
    md("""
`aggregates` holds the values behind the ranks: per metric, the mean of |score| (WEAT, RND, …),
of the score (SAME, RNSB, Direct Bias) or of |score − 1| (MAC) over the subqueries, and the
overall value weighted by query-set size.
"""),
    code("result.aggregates.round(3)"),
    md("How far do the metrics agree? Spearman's rho between the ranking columns:"),
    code("result.heatmap();"),
    md("Every number behind a rank is in `details` (one row per model, metric and subquery):"),
    code("""
cols = ["model", "metric", "subquery", "value", "words_found", "missing_words", "reason", "p_value"]
result.details.loc[result.details["metric"] == "WEAT-ES", cols].head(8)
"""),
    md("A score matrix is a DataFrame: models × subqueries."),
    code("result.scores['SAME'].iloc[:, :4].round(3)"),
    md("`save` writes the results folder (CSV tables, figures, LaTeX tables, manifest)."),
    code("""
import tempfile, pathlib
out = result.save(pathlib.Path(tempfile.mkdtemp()) / "results")
sorted(p.name for p in out.iterdir())
"""),
]

CASE_STUDY = [
    md("""
# The WEFE case study, re-run offline

Badilla et al. (2020; seed 002 §4) ranked seven embedding models with WEAT, WEAT-ES, RND and
RNSB on 25 queries in three query sets (gender 7, ethnicity 9, religion 9), compared the
rankings by Spearman correlation (their Figure 1), put the rankings beside a quality
ranking from the Word Embeddings Benchmark (Table 1, "WEB"; Figure 2), and found that
(1) the metrics agree on gender but much less on ethnicity and religion, and (2) fairness
rankings do not follow quality rankings.

Here the same query sets (rebuilt from WEFE's replication notebook) run on the four models
available offline, with SAME and Direct Bias beside WEFE's four metrics, and a quality
column from WordSim353, SimLex-999 and the Google analogies.
"""),
    code("""
import pandas as pd
from wefe_same import rank
from wefe_same.analysis import correlations
from wefe_same.plots import accumulated_rankings, correlation_heatmap

pd.set_option("display.width", 160)
METRICS = ["WEAT", "WEAT-ES", "RND", "RNSB", "SAME", "DirectBias"]
result = rank(queries=["gender", "ethnicity", "religion"], metrics=METRICS,
              quality=["ws353", "simlex999", "google"], analogy_vocab=100_000, progress=False)
"""),
    md("""
## Table 1: rank (aggregated score) per query set

As in the paper, 1 = least biased and the overall block weights the query sets by their
number of queries; the quality columns rank higher scores first and `quality` ranks the
sum of the three benchmark ranks (the paper's WEB column).
"""),
    code("""
long = result.by_query_set
table = (long.assign(cell=long["rank"].astype(str) + " (" + long["value"].round(2).astype(str) + ")")
             .pivot(index="model", columns=["query_set", "metric"], values="cell"))
table = table.reindex(columns=pd.MultiIndex.from_product([["gender", "ethnicity", "religion", "overall"], METRICS]))
table
"""),
    code("result.quality.pivot(index='model', columns='benchmark', values='score').round(3)"),
    code("result.rankings"),
    md("""
## Figure 1: agreement between the rankings, per query set

Spearman's rho between the metric rankings inside each query set, and overall with the
quality columns set apart.
"""),
    code("""
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 3, figsize=(18, 5.5), layout="constrained")
for ax, query_set in zip(axes, ["gender", "ethnicity", "religion"]):
    ranks = long[long["query_set"] == query_set].pivot(index="model", columns="metric", values="rank")[METRICS]
    correlation_heatmap(correlations(ranks)[0], ax=ax, title=query_set)
"""),
    code("result.heatmap();"),
    md("## Figure 2: accumulated rankings, overall plus quality"),
    code("accumulated_rankings(result.rankings);"),
    md("""
## What agrees with the paper, and what does not

Read with care: four models, two of which are debiased copies of the other two, so each
Spearman coefficient is computed over four ranks and takes only a handful of values.

- **Gender: agreement, as in the paper.** The metrics mostly agree (rho 0.6–1.0; the
  exceptions are WEAT-ES against RNSB, 0.0, and RND against RNSB, 0.4). Both hard-debiased
  variants move to the top of the gender block under every metric, as word2vec's
  hard-debiased version did in the paper.
- **Ethnicity: more agreement than the paper found** (rho 0.6–1.0 here). Gender debiasing
  barely moves the ethnicity scores, so the ethnicity ranking mostly orders the two base
  models; that is easy to agree on and says little about the metrics.
- **Religion: disagreement, as in the paper.** RND ranks the models against WEAT
  (rho −0.8) and WEAT-ES disagrees with most metrics; religion is again where the metrics
  diverge most.
- **Fairness and quality: the opposite of the paper's finding, and not evidence for it.**
  Here the quality ranking correlates strongly with most fairness rankings (rho 1.0 with
  WEAT, SAME and Direct Bias), where the paper found no clear relation. The quality ranking
  is decided by the base model — word2vec above GloVe on all three benchmarks — and
  debiasing hardly changes quality (GloVe: WordSim353 0.503 → 0.516, SimLex-999
  0.263 → 0.276, Google analogies 0.470 → 0.465). Moreover the word2vec model is the
  13k-word WEAT subset: it covers 58 % of WordSim353, 55 % of SimLex-999 and 22 % of the
  Google questions, and its analogy candidates are 13k words instead of 100k, so its
  quality scores are not comparable with GloVe's. In the paper debiasing lowered
  word2vec's quality rank; here it leaves quality almost unchanged.
- **SAME and Direct Bias** rank these models exactly as WEAT does overall.

Testing the paper's claims properly needs more, and more varied, full-vocabulary models:
point `rank` at local model files (`rank(["word2vec:GoogleNews.bin", "glove:glove.840B.300d.txt", ...])`).
"""),
]

THEORY = [
    md("""
# The cosine scores and their theory

The seeds behind this library (Schröder et al.) prove that several popular cosine bias
scores can miss a bias or report one that is not there. This notebook shows the
counterexamples — WEAT missing a bias, the effect size driven by variance, the Direct Bias
PCA failure — first on constructed embeddings and then on a real model, and shows SAME
behaving.
"""),
    code("""
import math
import numpy as np
import pandas as pd
from wefe_same.metrics.weat import association, weat, weat_effect_size
from wefe_same.metrics.same import same, same_skew, same_stereotype
from wefe_same.metrics.direct_bias import direct_bias

e1, e2, e3, e4 = np.eye(4)
A, B = e1[None], e2[None]          # two groups, one word each

def word(t, perp=e3):
    \"\"\"A unit word whose association s(w, A, B) is exactly t.\"\"\"
    return t / 2 * e1 - t / 2 * e2 + math.sqrt(1 - t * t / 2) * perp
"""),
    md("""
## WEAT reports no bias for biased words (seed 000, Theorem 2)

Give X and Y words with the same associations: every word is biased, yet the test statistic
and the effect size are 0.
"""),
    code("""
X = np.array([word(0.6), word(0.0)])
Y = np.array([word(0.6, e4), word(0.0, e4)])
print("associations:", association(np.vstack([X, Y]), A, B).round(2))
print("WEAT statistic:", round(weat(X, Y, A, B).value, 12))
print("WEAT effect size:", round(weat_effect_size(X, Y, A, B).value, 12))
print("SAME over the same words:", round(same(np.vstack([X, Y]), A, B).value, 3))
"""),
    md("""
## The effect size reaches its extremes only through the variance (seed 004)

Slightly biased words with no spread give the maximal effect size; strongly biased words
with spread give less.
"""),
    code("""
small = weat_effect_size(np.array([word(0.1), word(0.1, e4)]), np.array([word(-0.1), word(-0.1, e4)]), A, B, ddof=0)
large = weat_effect_size(np.array([word(0.1), word(0.9, e4)]), np.array([word(-0.1), word(-0.9, e4)]), A, B, ddof=0)
print(f"associations ±0.1:        d = {small.value:.3f}")
print(f"associations ±0.1, ±0.9:  d = {large.value:.3f}")
"""),
    md("""
## Direct Bias's PCA can point the wrong way (seed 004, Theorem 6)

With defining pairs a = (−x, r·x), c = −a and r > 1, the first principal component is (0, 1):
a neutral word scores 1 and a maximally biased word scores 0. SAME, which uses the group
means, gets both right.
"""),
    code("""
r = 2.0
a = np.array([[-1.0, r], [-1.0, -r]]); a /= np.linalg.norm(a, axis=1, keepdims=True)
neutral, biased = np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])
pd.DataFrame({
    "s(w,A) - s(w,C)": [association(w, a, -a)[0] for w in (neutral, biased)],
    "Direct Bias": [direct_bias(w, a, -a).value for w in (neutral, biased)],
    "SAME": [same(w, a, -a).value for w in (neutral, biased)],
}, index=["neutral word (0, 1)", "biased word (1, 0)"]).round(3)
"""),
    md("""
## Skew and stereotype (seed 000 §4.4)

Skew (the mean signed SAME) misses words biased in opposite directions; stereotype (its
standard deviation) misses words all biased alike. SAME sees both.
"""),
    code("""
g = (e1 - e2) / math.sqrt(2)
opposite = np.array([g + e3, -g + e3]) / math.sqrt(2)
alike = np.array([g + 0.2 * e3, g - 0.2 * e3]) / math.sqrt(1.04)
pd.DataFrame({name: [f(W, A, B).value for f in (same, same_skew, same_stereotype)]
              for name, W in [("opposite biases", opposite), ("alike biases", alike)]},
             index=["SAME", "SAME-skew", "SAME-stereotype"]).round(3)
"""),
    md("""
## The property audit

`wefe_same.audit` checks every metric on constructed embeddings for the four properties of
seed 000 (magnitude-comparable, unbiased-trustworthy, skew- and stereotype-sensitive) and
names the case that breaks each. Only SAME passes all four.
"""),
    code("""
from wefe_same import audit
table = audit(dim=50)
table.iloc[:, :4]
"""),
    code("table.loc[['WEAT-ES', 'DirectBias', 'MAC'], 'evidence_unbiased_trustworthy'].to_dict()"),
    md("""
## On a real model

GloVe 6B 50d, Bolukbasi's professions against his definitional pairs, before and after hard
debiasing. Debiasing removes each profession's component along the PCA gender direction of
those pairs, so Direct Bias (k = 1) falls sharply; SAME, which measures against the group
means rather than the principal component, falls too but not to zero, and the stereotype
score keeps the largest share: the spread of the professions' signed biases survives
better than their mean. (Gonen & Goldberg 2019 make the point that such residual structure
remains after debiasing.)
"""),
    code("""
from wefe_same import rank, load_queries, Query
(bolukbasi,) = load_queries("bolukbasi")
query = Query([bolukbasi.word_set("definitional_female"), bolukbasi.word_set("definitional_male")],
              [bolukbasi.word_set("professions")], name="professions")
real = rank(["glove-6b-50d", "glove-6b-50d+hard-debias"], query,
            metrics=["SAME", "DirectBias", "SAME-skew", "SAME-stereotype"],
            metric_options={"DirectBias": {"k": 1}}, progress=False)
real.aggregates.round(3)
"""),
    md("Per word: the occupations most associated with either group before and after debiasing."),
    code("""
wb = real.word_bias.query("metric == 'SAME' and component == 'b'")
wb.pivot_table(index="word", columns="model", values="value").sort_values("glove-6b-50d", ascending=False).head(10).round(3)
"""),
]


def write(name, cells):
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:02d}"  # stable ids: rebuilding changes nothing unless a source does
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    write("01_quickstart.ipynb", QUICKSTART)
    write("02_wefe_case_study.ipynb", CASE_STUDY)
    write("03_cosine_scores_theory.ipynb", THEORY)
