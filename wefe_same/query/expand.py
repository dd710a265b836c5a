"""Template expansion: a query → its subqueries of each metric's template (WEFE's §3.1),
and the query-set weights of the overall aggregate (WEFE's §4.2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wefe_same.errors import MetricError, short_list
from wefe_same.query.sets import Query, QuerySet, Template, id_part


class MetricSpec(Protocol):
    """What expansion needs of a metric (a :class:`wefe_same.metrics.MetricSpec`): its shape."""

    @property
    def name(self) -> str: ...

    @property
    def template(self) -> Template: ...


@dataclass(frozen=True)
class Subquery:
    """One column of a score matrix: a subquery and the query set it came from."""

    query_set: str
    query: Query

    @property
    def column(self) -> str:
        return f"{id_part(self.query_set)}:{self.query.id}"


def expand(query_sets: Sequence[QuerySet], spec: MetricSpec) -> list[Subquery]:
    """Q_F = Q_1(s) ∪ … ∪ Q_r(s): subqueries of the metric's template, duplicates merged."""
    out: dict[str, Subquery] = {}
    for qs in query_sets:
        for query in qs.queries:
            for sub in query.subqueries(spec.template):
                out.setdefault(Subquery(qs.name, sub).column, Subquery(qs.name, sub))
    if not out:
        labels = "; ".join(f"{qs.name}: " + short_list(
            f"{q.label} ({len(q.targets)}, {len(q.attributes)})" for q in qs.queries) for qs in query_sets[:5])
        raise MetricError(
            f"metric {spec.name!r} takes queries of template {spec.template}, and no query fits: {labels}"
        )
    return list(out.values())


def query_set_weights(query_sets: Sequence[QuerySet], spec: MetricSpec) -> dict[str, int]:
    """w_s of the overall mean: the queries of set s that yield at least one subquery of
    the metric's template (Badilla et al. 2020, §4.2)."""
    return {qs.name: sum(1 for q in qs.queries if q.subqueries(spec.template)) for qs in query_sets}


def describe_overlap(query: Query) -> list[str]:
    """One message per pair of target sets of ``query`` that share words.

    >>> from wefe_same.query import WordSet
    >>> q = Query((WordSet("a", ["x", "y"]), WordSet("b", ["y", "z"])), (WordSet("c", ["w"]),))
    >>> describe_overlap(q)
    ["target sets 'a' and 'b' share 1 word: y"]
    """
    out = []
    for i, a in enumerate(query.targets):
        for b in query.targets[i + 1:]:
            in_b = set(b.words)
            shared = [w for w in a.words if w in in_b]
            if shared:
                out.append(f"target sets {a.name!r} and {b.name!r} share {len(shared)} word"
                           f"{'s' if len(shared) > 1 else ''}: {', '.join(shared)}")
    return out
