"""Write the notebooks of this folder from the cell sources below (run: python build_notebooks.py).

The test suite executes every notebook end to end (tests/docs/test_notebooks.py); keeping the
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
# Quickstart: rank built-in models by fairness

`wefe_same` ranks embedding models with many bias metrics at once (the WEFE ranking process,
Badilla et al. 2020) and measures how far the metrics agree. This notebook ranks four of the
built-in models — GloVe 6B 50d, its hard-debiased variant (Bolukbasi et al. 2016), the WEAT
subset of word2vec GoogleNews and the sentence encoder all-MiniLM-L6-v2, static and
contextual models together — on the `same` query set (the protected groups of Schröder et
al. 2024: 8 queries on 220 words), reads the tables and draws the heatmap.
Everything is offline.

`rank()` with no arguments ranks every default model on the WEFE case-study query sets
(gender, ethnicity and religion), as `wefe-same rank` does; their sentiment lexicons hold
thousands of words, so this notebook picks a small query set and a few models to run in
seconds.
"""),
    code("""
import pandas as pd
from wefe_same import rank, load_queries

pd.set_option("display.width", 160)
[(qs.name, len(qs.queries), len({w for s in qs.sets for w in s.words}))
 for qs in load_queries(["gender", "ethnicity", "religion", "same"])]
"""),
    md("Rank the four models on the `same` queries with every metric:"),
    code("""
MODELS = ["glove-6b-50d", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", "minilm-l6-v2"]
result = rank(MODELS, queries="same", execution={"progress": False})
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
    md("`save` writes the results folder (CSV tables, figures, LaTeX tables, manifest); `formats` picks the figure formats, PNG only here."),
    code("""
import tempfile, pathlib
out = result.save(pathlib.Path(tempfile.mkdtemp()) / "results", formats=["png"])
sorted(p.name for p in out.iterdir())
"""),
]

CASE_STUDY = [
    md("""
# The WEFE case study, re-run offline

Badilla et al. (2020, §4) ranked seven embedding models with WEAT, WEAT-ES, RND and
RNSB on 25 queries in three query sets (gender 7, ethnicity 9, religion 9), compared the
rankings by Spearman correlation (their Figure 1), put the rankings beside a quality
ranking from the Word Embeddings Benchmark (Table 1, "WEB"; Figure 2), and found that
(1) the metrics agree on gender but much less on ethnicity and religion, and (2) fairness
rankings do not follow quality rankings.

Here the same query sets (rebuilt from WEFE's replication notebook) run on the four static
built-in models — GloVe 6B 50d, the WEAT subset of word2vec GoogleNews and their
hard-debiased copies — with SAME and Direct Bias beside WEFE's four metrics, and a quality
column from WordSim353, SimLex-999 and the Google analogies. (`rank()` with no model list
also ranks multiclass-debiased variants and two sentence encoders; the encoders are slow,
so this notebook names its models.) The last two sections show what changes when every
model is scored on the same words, and how much the overall ranking depends on the way
the metrics are combined.
"""),
    code("""
import pandas as pd
from wefe_same import Execution, Quality, rank
from wefe_same.analysis.correlation import correlations
from wefe_same.output.figures import accumulated_rankings, correlation_heatmap

pd.set_option("display.width", 160)
MODELS = ["glove-6b-50d", "glove-6b-50d+hard-debias", "word2vec-gnews-weat", "word2vec-gnews-weat+hard-debias"]
QUERY_SETS = ["gender", "ethnicity", "religion"]
METRICS = ["WEAT", "WEAT-ES", "RND", "RNSB", "SAME", "DirectBias"]
result = rank(MODELS, queries=QUERY_SETS, metrics=METRICS,
              quality=Quality(["ws353", "simlex999", "google"], analogy_vocab=100_000),
              execution=Execution(progress=False))
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
  exceptions are WEAT-ES against RNSB, 0.0, and RND against RNSB, 0.4). Each hard-debiased
  variant ranks above its base model in the gender block under every metric, as
  word2vec's hard-debiased version did in the paper.
- **Ethnicity: more agreement than the paper found** (rho 0.6–1.0 here). Gender debiasing
  barely moves the ethnicity scores, so the ethnicity ranking mostly orders the two base
  models; that is easy to agree on and says little about the metrics.
- **Religion: disagreement, as in the paper.** RND ranks the models against WEAT
  (rho −0.8) and WEAT-ES disagrees with most metrics; religion is again where the metrics
  diverge most.
- **Fairness and quality: the opposite of the paper's finding, and not evidence for it.**
  Here the combined quality ranking correlates strongly with most fairness rankings (rho
  1.0 with RNSB, 0.8 with WEAT, SAME and Direct Bias; WordSim353 alone gives 1.0 with
  those three), where the paper found no clear relation. The quality ranking
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
    md("""
## Shared words: every model on the same test

By default each model is scored on the words it has: a word the model lacks is dropped
for that model only, and a subquery is left out for that model when one of its sets loses
more than 20 % of its words (`missing_threshold`). Two models can then be ranked on
different tests — different words inside a subquery, or fewer subqueries — and the ranking
compares them as if the test were the same. `by_query_set` flags the second case:
`fewer_defined` is True when a model was ranked on fewer defined subqueries than the most
any model had.

`shared_words=True` scores every model on the words that all models of the run have, set
by set (aligned pairs are kept or dropped whole). The manifest records per model how many
of its own words were set aside because another model lacks them (`words_not_shared`),
and the lookups table marks them "not shared". Below, the case study again with shared
words. Ranks come from the scores, not from the p-values, so `permutations=0` skips the
permutation tests and the run takes a few seconds.
"""),
    code("""
shared = rank(MODELS, queries=QUERY_SETS, metrics=METRICS, shared_words=True, permutations=0,
              execution=Execution(progress=False))
own = {m["name"]: m["words_found"] for m in result.manifest["models"]}
pd.DataFrame([{"model": m["name"], "words asked": m["words_requested"], "found (own vocabulary)": own[m["name"]],
               "not shared": m["words_not_shared"], "scored on": m["words_found"]}
              for m in shared.manifest["models"]]).set_index("model")
"""),
    md("""
Each base model has words the other lacks, so both lose some. A debiased copy has its
base model's vocabulary and loses the same words. GloVe's extra words are mostly
hyphenated compounds (the `hyphenated` column): the 13k-word WEAT subset of word2vec
GoogleNews has no hyphenated words (GoogleNews joins phrases with underscores). word2vec's
extra words are rare forms and misspellings that GloVe 6B does not have. Per model, then
per word set (the sets with at least one word set aside):
"""),
    code("""
dropped = shared.lookups[shared.lookups["status"] == "not shared"]
dropped.groupby("model")["word"].agg(
    not_shared="size", hyphenated=lambda w: int(w.str.contains("-").sum()),
    examples=lambda w: ", ".join(sorted(w.sample(8, random_state=0))))
"""),
    code("""
from wefe_same import load_queries

word_sets = {s.name: set(s.words) for qs in load_queries(QUERY_SETS) for s in qs.sets}
per_set = pd.DataFrame({model: {name: len(words & set(group["word"])) for name, words in word_sets.items()}
                        for model, group in dropped.groupby("model", sort=False)})
per_set.insert(0, "set size", [len(word_sets[name]) for name in per_set.index])
per_set[per_set.iloc[:, 1:].sum(axis=1) > 0]
"""),
    md("""
Almost all of these words come from the two large sentiment lexicons (positive and
negative words, thousands each), where a few dozen words more or less barely change a
mean. Two small sets matter more: four Hispanic surnames GloVe has and word2vec lacks
(word2vec keeps that set because it loses exactly 20 %, not more), and one word of the
three-word `christian_related_words` set, "judgemental" (the British spelling), which
word2vec lacks. One word of three is 33 % > 20 %, so with its own words word2vec leaves
out every religion subquery that uses this set and is ranked on fewer religion
subqueries than GloVe (`fewer_defined`; the numbers for WEAT are in the first table
below). With shared words GloVe drops the same subqueries and every model is ranked on
the same test.
"""),
    code("""
both = result.by_query_set.merge(shared.by_query_set, on=["query_set", "metric", "model"], suffixes=("", "_shared"))
cols = ["model", "n_subqueries", "n_defined", "fewer_defined", "n_defined_shared", "fewer_defined_shared"]
both.loc[(both["query_set"] == "religion") & (both["metric"] == "WEAT"), cols]
"""),
    code("""
details = result.details
details.loc[details["value"].isna() & (details["metric"] == "WEAT"), ["model", "subquery", "missing_words", "reason"]]
"""),
    md("""
### Per-model and shared-words rankings side by side

The overall rank per metric under both runs, then every (query set, metric, model) whose
rank changes, with the aggregates and the number of defined subqueries behind it.
"""),
    code("""
side = pd.concat({"per model": result.rankings[METRICS], "shared words": shared.rankings[METRICS]}, axis=1)
side.swaplevel(axis=1).reindex(columns=METRICS, level=0)
"""),
    code("""
moved = both.loc[both["rank"] != both["rank_shared"],
                 ["query_set", "metric", "model", "rank", "rank_shared", "value", "value_shared", "n_defined", "n_defined_shared"]]
moved.round(4)
"""),
    md("""
What moved, and why (read from the tables above):

- **Most of the ranking holds.** Overall, WEAT, WEAT-ES, SAME and Direct Bias keep their
  order, and no rank changes inside the gender and religion blocks. The religion values
  change (GloVe now averages over the same, fewer subqueries) but not the order.
- **RND, overall: the two base models swap 3rd and 4th place.** With its own words,
  GloVe's overall RND averages over two more religion subqueries than word2vec's; on the
  common subqueries and words GloVe's value rises and word2vec's falls (the sentiment
  lexicons lose words for both), and the order of two models whose RND values were a few
  per cent apart reverses.
- **RNSB, ethnicity and overall: the two word2vec models swap 1st and 2nd place.** No
  subquery is lost here; RNSB trains a classifier on the sentiment lexicons, and taking
  out the words GloVe lacks shifts values that differed only in the fourth decimal.

So shared words move only models whose scores were already close, and the direction of
a close call can depend on which words a model happens to have. Rank on shared words when
a claim compares models, and treat a `fewer_defined` flag in a per-model run as a reason
to check.
"""),
    md("""
## Aggregation sensitivity: one ranking from six metrics

`rank` also combines the six per-metric rankings into one overall order in three ways,
returned in `result.extra["aggregation"]` (and `aggregation.csv` in a saved results folder):

- **mean** — each metric's overall aggregate rescaled to [0, 1] across the models
  (0 = the least biased model of the run, 1 = the most biased), averaged over the metrics;
  it uses how far apart the models are, not only their order.
- **Borda** — the sum of the per-metric ranks (the paper's accumulated rankings, Figure 2).
- **median** — the median of the per-metric ranks; one outlying metric cannot move it.

`result.extra["aggregation_agreement"]` compares the three orders pairwise with Kendall's
tau and names the models whose position differs.
"""),
    code("""
def orders(r):
    return r.extra["aggregation"].set_index("model")[["mean_rank", "borda_rank", "median_rank",
                                                      "mean_score", "borda_score", "median_score"]]

pd.concat({"per model": orders(result), "shared words": orders(shared)}, axis=1).round(3)
"""),
    code("""
pd.concat({"per model": result.extra["aggregation_agreement"],
           "shared words": shared.extra["aggregation_agreement"]}, names=["run", None]).round(3)
"""),
    md("""
Overall, on these four models, the three methods give the same order with and without
shared words (see `moved`: empty when no model changes place). Mind the p-value: with
four models the smallest two-sided p-value Kendall's tau can reach is 2/24 ≈ 0.083, so
even perfect agreement is not "significant"; with this few models read tau as a
description, not a test.

Agreement overall does not mean the choice never matters. Inside one query set the
metrics disagree more (Figure 1), and the same three methods can be applied to a block of
`by_query_set` with `wefe_same.analysis.sensitivity.aggregation_sensitivity` — no new run needed:
"""),
    code("""
from wefe_same import METRICS as REGISTRY
from wefe_same.analysis.sensitivity import aggregation_sensitivity

def block_sensitivity(r, query_set):
    \"\"\"The three combined orders of the models inside one query set, and their agreement.\"\"\"
    block = r.by_query_set[r.by_query_set["query_set"] == query_set]
    values, ranks = (block.pivot(index="model", columns="metric", values=v).reindex(index=MODELS, columns=METRICS)
                     for v in ("value", "rank"))
    return aggregation_sensitivity(values, ranks, [REGISTRY[m] for m in METRICS])

pd.concat({(run, qs): block_sensitivity(r, qs)[1].set_index(["method_a", "method_b"])
           for run, r in [("per model", result), ("shared words", shared)] for qs in QUERY_SETS},
          names=["run", "query_set"]).round(3)
"""),
    code("""
block_sensitivity(result, "religion")[0].set_index("model").round(3)
"""),
    md("""
Reading the block tables:

- **Gender**: the three methods agree in both runs, as the gender metrics do.
- **Religion**: the methods disagree, with or without shared words (the word change does
  not touch the order inside this block). The metrics split on the two GloVe models
  (Figure 1, religion: RND runs against WEAT), so the mean of the rescaled scores puts
  the original GloVe ahead of its hard-debiased copy, the median puts the copy ahead, and
  Borda gives both the same rank sum; the two word2vec models are tied by Borda and the
  median and separated by the mean by a small margin (see the last table). Which GloVe is
  less biased on religion has no answer independent of the aggregation — and hard
  debiasing targets gender, so no clear answer is expected.
- **Ethnicity**: with each model's own words, the mean puts word2vec ahead of its
  debiased copy while Borda and the median put the copy first; the two have almost the
  same rescaled score. With shared words RNSB reverses this pair (previous section) and
  the three methods agree.

In short: report the aggregation method with an overall ranking, and when the methods
disagree, the models that move are the ones the metrics cannot separate — the honest
statement about them is a tie.
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
from wefe_same.metrics.weat import association, weat
from wefe_same.metrics.weat_es import weat_effect_size
from wefe_same.metrics.same import same, same_skew, same_stereotype
from wefe_same.metrics.direct_bias import direct_bias

e1, e2, e3, e4 = np.eye(4)
A, B = e1[None], e2[None]          # two groups, one word each

def word(t, perp=e3):
    \"\"\"A unit word whose association s(w, A, B) is exactly t.\"\"\"
    return t / 2 * e1 - t / 2 * e2 + math.sqrt(1 - t * t / 2) * perp
"""),
    md("""
## WEAT reports no bias for biased words (Schröder et al. 2021, Theorem 2)

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
## The effect size reaches its extremes only through the variance (Schröder, Schulz, Hinder & Hammer 2024)

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
## Direct Bias's PCA can point the wrong way (Schröder, Schulz, Hinder & Hammer 2024, Theorem 6)

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
## Skew and stereotype (Schröder et al. 2021, §4.4)

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
Schröder et al. 2021 (magnitude-comparable, unbiased-trustworthy, skew- and stereotype-sensitive) and
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
            metric_options={"DirectBias": {"k": 1}}, execution={"progress": False})
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
