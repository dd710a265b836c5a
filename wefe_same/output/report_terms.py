"""The short glossary of ``report.html``: what a metric's order, ideal value and template
mean (Badilla et al. 2020, §3), and one line per metric of the run with its paper and its
page of the documentation.

The page is self-contained and links nowhere outside itself (a results folder is mailed
and opened anywhere): the documentation page is named, not linked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from wefe_same.metrics.registry import METRICS, ORDER_MEANING

#: The lead of the measurement-sensitivity section: ``--vary`` rows, ``--likelihood-scoring`` rows.
MEASUREMENT_LEAD = ("Each hf: model was measured under every setting (pooling, layer); the other models are the same "
                    "under all. Per metric and pair of settings: Spearman's rho between the two rankings of the "
                    "models, how many change rank and the largest shift (measurement_sensitivity.csv).")
SCORING_LEAD = ("Settings scoring=NAME: each masked language model scored under every --likelihood-scoring option "
                "(causal models are the same under all); per overall likelihood column and pair of options: "
                "Spearman's rho between the two rankings of the models, how many change rank and the largest "
                "shift (measurement_sensitivity.csv).")

#: The lead of the correlation heatmap ({kind}: Spearman or Kendall).
CORRELATION_LEAD = ("{kind} correlation between the rankings of every pair of metrics; hover a cell for its raw "
                    "p-value (two-sided; exact: every order of the models enumerated, up to 10 models, ties kept; "
                    "permutation: a seeded permutation test above, ± its Monte Carlo error; asymptotic: scipy's "
                    "approximation, only where asked for) and the p-value adjusted for the table's many tests "
                    "(correlation_pvalues_adjusted.csv). Empty cells: a metric that ranked too few models.")

#: The terms, as the report states them once.
TERMS = (
    ("template (t, a)", "how many target sets (social groups) and attribute sets (traits or neutral words) a metric "
                        "takes; \"n>=2\" means any number from 2 on. A query with more sets is expanded into every "
                        "subquery of that shape (Badilla et al. 2020, §3.1)."),
    ("order", "which score is less biased: abs = the smaller |x|, ascending = the smaller x, descending = the "
              "larger x, ideal = the closer to the metric's ideal value. Each metric's aggregate over its "
              "subqueries follows its order."),
    ("ideal", "the value a metric takes when it finds no bias: 0 for most metrics, 1 for MAC (ranked by |x − 1|) "
              "and ECT (ranked descending)."),
    ("rank", "1 = least biased under that metric; ties share the lowest rank."),
)


def glossary(metrics: Sequence[Mapping[str, Any]]) -> str:
    """The glossary as HTML: the terms, then one line per metric of the run (its template,
    its order in words, its ideal value where it has one, its paper and a link)."""
    terms = "".join(f"<dt>{escape(t)}</dt><dd>{escape(d)}</dd>" for t, d in TERMS)
    rows = []
    for m in metrics:
        name = str(m.get("name", "?"))
        spec = METRICS.get(name)
        order = str(m.get("order", "?"))
        meaning = ORDER_MEANING.get(order, order)  # type: ignore[call-overload]
        source = m.get("source")  # a plugin's or the user's own metric: where its code comes from
        ideal, reference = (spec.ideal, spec.reference) if spec is not None else (m.get("ideal"), m.get("reference"))
        if isinstance(ideal, (int, float)) and order == "ideal":
            meaning = meaning.replace("ideal", f"{ideal:g}")
        ref = f"; {escape(str(reference))}" if reference else ""
        page = f"guide/metrics/{name.lower()}.md" if spec is not None else None
        docs = f'; docs: <span class="path">{escape(page)}</span>' if page else ""
        if spec is None and isinstance(source, Mapping):
            package = f", package {source.get('package')}" if source.get("package") else ""
            docs = (f'; code: <span class="path">{escape(str(source.get("module")))}.'
                    f'{escape(str(source.get("qualname")))}</span>{escape(package)}')
        rows.append(f"<li><b>{escape(name)}</b>: template {escape(str(m.get('template', '?')))}, order "
                    f"{escape(order)} ({escape(meaning)}){ref}{docs}</li>")
    where = ('<p class="note">Each metric has a page in the documentation (formula, paper, what its order '
             "means): User guide › Metrics, the file named after each metric below under docs/ "
             "(or site/ once built with mkdocs).</p>")
    return (f'<details class="terms" open><summary>Terms used on this page</summary><dl>{terms}</dl>'
            f"<ul>{''.join(rows)}</ul>{where}</details>")
