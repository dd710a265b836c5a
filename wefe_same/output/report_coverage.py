"""The report's coverage section: the words of the run's sets looked up in each model.

One row per model: how many words were looked up and found, by status, the words not found,
and the *uneven* words (:func:`wefe_same.analysis.uneven_words.uneven_words`): those this
model lacks that another model has, and those it has that another model lacks. A set that
keeps enough of its words is scored on those it kept, so such words make the models' scores
rest on different words (the run warns once per set; ``--shared-words`` evens them out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

import numpy as np
import pandas as pd

from wefe_same.analysis.uneven_words import uneven_words
from wefe_same.output.report_lipstick import Cells
from wefe_same.scoring.vectors import FOUND

MISSING_SHOWN = 200  # missing words listed per model
#: The mark of an uneven word in the coverage table.
UNEVEN_MARK = "‡"


def _listing(words: Sequence[str]) -> str:
    shown = ", ".join(words[:MISSING_SHOWN]) + (f" … and {len(words) - MISSING_SHOWN} more"
                                                if len(words) > MISSING_SHOWN else "")
    return escape(shown)


def coverage_section(lk: pd.DataFrame, models: Sequence[str], cells: Cells, rank: Callable[[float], str]) -> str:
    """The note and table of the coverage section; ``models`` in the page's order, ``rank``
    the page's integer cell."""
    if lk.empty or not {"model", "word", "status"} <= set(lk.columns):
        return cells.note("No lookup table in this run.")
    statuses = list(dict.fromkeys(str(s) for s in pd.unique(lk["status"])))  # unique first: ~10⁵ rows
    counts = pd.crosstab(lk["model"].astype(str), lk["status"].astype(str)).reindex(columns=statuses, fill_value=0)
    found_cols = [s for s in statuses if s in FOUND]
    lost = lk[~lk["status"].isin(FOUND)]
    not_found = {str(m): list(part) for m, part in lost.groupby(lost["model"].astype(str), sort=False)["word"]}
    lacking = uneven_words(lk)
    rows = []
    for model in [*models, *[m for m in counts.index if m not in models]]:
        if model not in counts.index:
            continue
        c = counts.loc[model]
        total, found = int(c.sum()), int(c[found_cols].sum())
        missing = sorted(str(w) for w in not_found.get(model, ()))
        marked = [w + UNEVEN_MARK if w in lacking else w for w in missing]
        listing = f"<details><summary>{len(missing)}</summary>{_listing(marked)}</details>" if missing else "0"
        lacks = sorted(w for w, ms in lacking.items() if model in ms)
        has = sorted(w for w, ms in lacking.items() if model not in ms)
        n = len(lacks) + len(has)
        uneven = (f"<details><summary>{n}{UNEVEN_MARK}</summary>"
                  + (f"lacks, another model has: {_listing(lacks)}" if lacks else "")
                  + ("<br>" if lacks and has else "")
                  + (f"has, another model lacks: {_listing(has)}" if has else "") + "</details>") if n else "0"
        rows.append([cells.text(model, sort=model), rank(total), rank(found),
                     cells.number(found / total if total else np.nan), *[rank(int(c[s])) for s in statuses],
                     f'<td data-v="{len(missing)}">{listing}</td>', f'<td data-v="{n}">{uneven}</td>'])
    head = ["model", "words looked up", "found", "share found", *statuses, "not found (words)", "uneven words"]
    note = ("Words of the run's sets looked up in each model; found = " + ", ".join(FOUND) + ". "
            f"{UNEVEN_MARK} marks an uneven word: found in some models and not in others. A set that keeps "
            "enough of its words (--missing-threshold) is scored on those it kept, so the models' scores rest on "
            "different words there; --shared-words scores every model on the words all of them have.")
    return cells.note(note) + cells.table(head, rows, label="Coverage")
