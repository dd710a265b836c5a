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

#: Models named per group of a warning before "… and N more".
NAMED = 3


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


def _who(u: Uneven) -> str:
    """"model 'small' is defined on 1 of 8 subqueries, 'glove' on 8 of 8", fewest first."""
    groups: dict[int, list[str]] = {}
    for model, count in u.defined.items():
        groups.setdefault(count, []).append(model)
    parts = []
    for k, (count, models) in enumerate(sorted(groups.items())):
        names = short_list(models, shown=NAMED, quote=True)
        amount = "none" if count == 0 else f"{count} of {u.n_subqueries}"
        if k == 0:
            noun, verb = ("model", "is") if len(models) == 1 else ("models", "are")
            amount = "none" if count == 0 else f"{amount} subqueries"
            parts.append(f"{noun} {names} {verb} defined on {amount}")
        else:
            parts.append(f"{names} on {amount}")
        if count == 0:
            parts[-1] += " (not ranked)"
    return ", ".join(parts) + (" (not all the same ones)" if u.same_count_differ else "")


def uneven_warnings(found: Sequence[Uneven], nan_policy: str, *, per_model_draws: bool = False) -> list[str]:
    """One line per group of uneven metrics whose models are defined alike (the same
    counts), in the order of ``found``: which models, how many of how many subqueries,
    and what that means under ``nan_policy``. ``per_model_draws``: the run has
    word-bootstrap or halves draws, which are aggregated per model."""
    groups: dict[tuple[str, int], list[str]] = {}
    for u in found:
        groups.setdefault((_who(u), u.n_common), []).append(u.metric)
    return [_warning(", ".join(metrics), who, n_common, nan_policy, per_model_draws)
            for (who, n_common), metrics in groups.items()]


def _warning(names: str, who: str, n_common: int, nan_policy: str, per_model_draws: bool) -> str:
    head = f"{names}: {who}"
    if nan_policy == "common":
        if n_common == 0:
            return f"{head}: no subquery is defined by every ranked model, so under --nan-policy common {names} " \
                   "ranks no model"
        tail = (f": every model is ranked on the {n_common} {_plural(n_common, 'subquery', 'subqueries')} "
                "they all define (--nan-policy common)")
        if per_model_draws:
            tail += "; the --bootstrap-words and --halves draws still average each model's own defined subqueries"
        return head + tail
    if nan_policy == "propagate":
        return f"{head}: under --nan-policy propagate the models that lack a subquery are not ranked"
    advice = ("--nan-policy common ranks on the subqueries every model defines" if n_common
              else "no subquery is defined by every ranked model, so --nan-policy common would rank no model")
    return f"{head}: their aggregates are not comparable; {advice}"


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
