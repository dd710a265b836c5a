"""The report's lipstick table: Gonen & Goldberg's 2019 tests of each gender-debiased
variant (``debias_lipstick.csv``), shown under the debiasing effect.

The page's table helpers live in :mod:`wefe_same.output.report_html`, which imports this
module; they are passed in (``cells``) rather than imported back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from wefe_same.output.report_svg import fmt

INTRO = ("Gonen & Goldberg (2019), 'Lipstick on a Pig': the words most male- and female-biased in the base "
         "(by cos(w, he) - cos(w, she)), read in the debiased space. clustering: k-means accuracy of the two "
         "groups (0.5 = no gender left, 1 = the clusters are the genders); classification: an RBF SVM trained on "
         "some of them, accuracy on the others; neighbours: Pearson's r between a word's bias and the share of "
         "male-biased words among its nearest neighbours; agreement: the mean share of neighbours biased the "
         "word's way. 'base' is the same test in the base space; near it, debiasing hid the bias without "
         "removing it.")

HEADERS = ["variant", "test", "debiased", "base", "k-means seeds (min–max)", "words", "reason"]


class Cells(NamedTuple):
    """The page's helpers: a table of rendered rows, a text cell, a number cell, a note."""

    table: Callable[..., str]
    text: Callable[..., str]
    number: Callable[[float], str]
    note: Callable[[str], str]


def lipstick_section(table: pd.DataFrame | None, cells: Cells) -> str:
    """The heading, note and sortable table of ``debias_lipstick``; "" when the run has none."""
    if table is None or table.empty:
        return ""
    rows = []
    for r in table.itertuples():
        low, high = float(r.spread_min), float(r.spread_max)
        spread = f"{fmt(low, 3)}–{fmt(high, 3)} ({int(r.seeds)})" if np.isfinite(low) else "–"
        words = int(r.n_words) if pd.notna(r.n_words) else None
        rows.append([cells.text(str(r.variant)), cells.text(str(r.test)), cells.number(float(r.value)),
                     cells.number(float(r.base_value)), cells.text(spread),
                     cells.text(str(words) if words is not None else "–", sort=words or 0, numeric=True),
                     cells.text("" if pd.isna(r.reason) else str(r.reason))])
    title = "Does debiasing hide gender bias? (lipstick tests)"
    return f"<h3>{title}</h3>" + cells.note(INTRO) + cells.table(HEADERS, rows, label=title)
