"""Models of one ranking scored on different subqueries of a metric: found and said.

A metric's aggregate is a mean over subqueries (Badilla et al. 2020, §4.2). A model whose
vocabulary lacks words of a subquery has an undefined (NaN) score there; when another model
defines that subquery, the two aggregates average different subqueries and their ranks
compare unlike things. :func:`uneven_metrics` finds those metrics from the score matrices
(so the results page can find them again from ``scores/*.csv``), :func:`uneven_warnings`
says what it means under the run's NaN policy: ``"skip"`` (the aggregates are not
comparable), ``"propagate"`` (the models that lack a subquery are not ranked) or
``"common"`` (every model is ranked on the subqueries all of them define,
:func:`wefe_same.scoring.aggregate.common_columns`).

A model with no defined subquery of a metric is ranked under no policy; it is named in
the warning but does not make a metric uneven by itself, and it is left out of "every
model" (otherwise one such model would leave no common subquery).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wefe_same.errors import short_list

#: Models named per group of a warning before "and N more".
NAMED = 2


@dataclass(frozen=True)
class Uneven:
    """One metric whose ranked models are defined on different subqueries.

    Attributes
    ----------
    metric : str
    n_subqueries : int
        The metric's subqueries in the run.
    defined : dict of str to int
        Per model (every model of the matrix, in its order), how many subqueries it defines.
    short : tuple of str
        The models that lack a subquery some other model defines (the cells the page marks).
    unranked : tuple of str
        The models that define none of the subqueries.
    n_common : int
        The subqueries every model with at least one defined subquery defines.
    same_count_differ : bool
        Models with the same number of defined subqueries define different ones.
    """

    metric: str
    n_subqueries: int
    defined: dict[str, int]
    short: tuple[str, ...]
    unranked: tuple[str, ...]
    n_common: int
    same_count_differ: bool


def find_uneven(metric: str, scores: pd.DataFrame) -> Uneven | None:
    """The :class:`Uneven` of one metric's models × subqueries matrix, or None when every
    model with a defined subquery defines the same ones (or fewer than two do)."""
    defined = scores.notna().to_numpy()
    ranked = defined.any(axis=1)
    if ranked.sum() < 2:
        return None
    masks = defined[ranked]
    if (masks == masks[0]).all():
        return None
    models = [str(m) for m in scores.index]
    union = masks.any(axis=0)
    counts = defined.sum(axis=1)
    by_count: dict[int, set[bytes]] = {}
    for row in masks:
        by_count.setdefault(int(row.sum()), set()).add(np.packbits(row).tobytes())
    return Uneven(
        metric=metric, n_subqueries=int(defined.shape[1]),
        defined={m: int(c) for m, c in zip(models, counts)},
        short=tuple(m for m, r, row in zip(models, ranked, defined) if r and not (row == union).all()),
        unranked=tuple(m for m, r in zip(models, ranked) if not r),
        n_common=int(masks.all(axis=0).sum()),
        same_count_differ=any(len(v) > 1 for v in by_count.values()),
    )


def uneven_metrics(scores: Mapping[str, pd.DataFrame], metrics: Sequence[str]) -> list[Uneven]:
    """The uneven metrics among ``metrics`` (in that order) whose matrix is in ``scores``."""
    found = (find_uneven(m, scores[m]) for m in metrics if m in scores)
    return [u for u in found if u is not None]


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _groups(u: Uneven) -> list[tuple[int, tuple[str, ...]]]:
    """(count, models) of the models defined on the same number of subqueries, fewest first."""
    groups: dict[int, list[str]] = {}
    for model, count in u.defined.items():
        groups.setdefault(count, []).append(model)
    return [(count, tuple(models)) for count, models in sorted(groups.items())]


def model_names(models: Sequence[str]) -> str:
    """"'a'", "'a', 'b'", "'a', 'b' and 3 more": a line stays short at any number of models."""
    named = ", ".join(short_list([m], quote=True) for m in models[:NAMED])
    return named if len(models) <= NAMED else f"{named} and {len(models) - NAMED} more"


def _amount(count: int, n: int) -> str:
    return "none" if count == 0 else f"{count} of {n}"


def uneven_warnings(found: Sequence[Uneven], nan_policy: str, *, per_model_draws: bool = False) -> list[str]:
    """One line per grouping of the models (the same models defined on fewer subqueries),
    in the order of ``found``: which models, which metrics, how many of how many
    subqueries, and what that means under ``nan_policy``. ``per_model_draws``: the run has
    word-bootstrap or halves draws, which are aggregated per model."""
    lines: dict[tuple[tuple[str, ...], ...], dict[tuple[tuple[int, ...], int, int, bool], list[str]]] = {}
    for u in found:
        groups = _groups(u)
        how = (tuple(c for c, _ in groups), u.n_subqueries, u.n_common, u.same_count_differ)
        lines.setdefault(tuple(m for _, m in groups), {}).setdefault(how, []).append(u.metric)
    out = []
    for who, parts in lines.items():
        zero = any(n_common == 0 for _, _, n_common, _ in parts)
        if len(parts) == 1:
            ((counts, n, n_common, differ), metrics), = parts.items()
            head = ", ".join(metrics) + ": " + _one_metric(who, counts, n, differ)
            subject = f"{metrics[0]} ranks" if len(metrics) == 1 else f"{', '.join(metrics)} rank"
        else:
            verb = "is" if len(who[0]) == 1 else "are"
            lead = (f"{model_names(who[0])} {verb} defined on fewer subqueries than {model_names(who[1])}"
                    if len(who) == 2 else " vs ".join(model_names(models) for models in who) + ", subqueries defined")
            head = lead + ": " + "; ".join(
                f"{', '.join(metrics)} {' vs '.join(str(c) if c else 'none' for c in counts)} of {n}"
                + (f", {n_common} common" if nan_policy == "common" else "")
                + (" (not all the same ones)" if differ else "")
                for (counts, n, n_common, differ), metrics in parts.items())
            n_common, subject = -1, ""
        out.append(head + _consequence(nan_policy, n_common, zero, per_model_draws, subject))
    return out


def _one_metric(who: tuple[tuple[str, ...], ...], counts: tuple[int, ...], n: int, differ: bool) -> str:
    """"model 'small' is defined on 1 of 8 subqueries, 'glove' on 8 of 8"."""
    parts = []
    for k, (count, models) in enumerate(zip(counts, who)):
        amount = _amount(count, n) + ("" if count == 0 or k else " subqueries")
        if k == 0:
            noun, verb = ("model", "is") if len(models) == 1 else ("models", "are")
            parts.append(f"{noun} {model_names(models)} {verb} defined on {amount}")
        else:
            parts.append(f"{model_names(models)} on {amount}")
        if count == 0:
            parts[-1] += " (not ranked)"
    return ", ".join(parts) + (" (not all the same ones)" if differ else "")


def _consequence(nan_policy: str, n_common: int, zero: bool, per_model_draws: bool, subject: str) -> str:
    """What the policy makes of it; ``n_common`` -1 when the line holds several counts;
    ``subject`` "WEAT ranks" (the metrics of a line with one count)."""
    if nan_policy == "propagate":
        return ": under --nan-policy propagate the models that lack a subquery are not ranked"
    if nan_policy == "common":
        if n_common == 0:
            return ": no subquery is defined by every ranked model, so under --nan-policy common " \
                   f"{subject} no model"
        common = "the subqueries" if n_common < 0 else f"the {n_common} {_plural(n_common, 'subquery', 'subqueries')}"
        tail = f": every model is ranked on {common} they all define (--nan-policy common)"
        if zero:
            tail += "; a metric with none common ranks no model"
        if per_model_draws:
            tail += "; the --bootstrap-words and --halves draws still average each model's own defined subqueries"
        return tail
    advice = ("no subquery is defined by every ranked model, so --nan-policy common would rank no model"
              if n_common == 0 else "--nan-policy common ranks on the subqueries every model defines")
    return f": their aggregates are not comparable; {advice}"


def cell_note(u: Uneven, model: str, nan_policy: str) -> str:
    """The hover text of a marked (model, metric) cell of the results page."""
    most, own = max(u.defined.values()), u.defined[model]
    other = f"another model on {most}" if most > own else "other models on other ones"
    said = f"defined on {own} of {u.n_subqueries} subqueries ({other})"
    if nan_policy == "common":
        return f"{said}: ranked with every model on the {u.n_common} they all define"
    if nan_policy == "propagate":
        return f"{said}: not ranked (nan_policy propagate)"
    return f"{said}: not comparable with the others' aggregates"
