"""Template expansion: a query → its subqueries of each metric's template (WEFE's §3.1),
and the query-set weights of the overall aggregate (WEFE's §4.2)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wefe_same.errors import MetricError, QueryError, short_list
from wefe_same.query.sets import Arity, AtLeast, Query, QuerySet, Template, id_part


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


def expand_query(query_sets: Sequence[QuerySet], spec: MetricSpec) -> list[Subquery]:
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


#: Subqueries a run may expand into (all metrics together) unless ``max_subqueries`` /
#: ``--max-subqueries`` says more: ten times the bundled library with every metric (937).
DEFAULT_MAX_SUBQUERIES = 10_000
TOO_MANY = ("the queries expand into {count:,} subqueries for the metrics asked ({by_metric}), more than "
            "max_subqueries={cap:,}; the largest: {largest}. Use fewer sets per query, fewer metrics, or raise "
            "the cap (--max-subqueries N) if you mean it")


def _ways(n: int, arity: Arity) -> int:
    """How many sub-tuples of ``n`` sets fit ``arity`` (what :meth:`Query.subqueries` builds)."""
    if isinstance(arity, AtLeast):
        return 1 if arity.accepts(n) else 0
    return math.comb(n, arity)


def count_subqueries(query: Query, template: Template) -> int:
    """``len(query.subqueries(template))`` without building them: C(t, k)·C(a, l).

    >>> from wefe_same.query import WordSet
    >>> sets = [WordSet(str(i), [f"w{i}"]) for i in range(40)]
    >>> count_subqueries(Query(sets[:20], sets[20:]), Template(2, 2))
    36100
    """
    return _ways(len(query.targets), template.targets) * _ways(len(query.attributes), template.attributes)


def check_subquery_count(query_sets: Sequence[QuerySet], specs: Sequence[MetricSpec], cap: int) -> int:
    """The number of subqueries the run expands into (before duplicates are merged), or a
    :class:`QueryError` with the count when it is over ``cap``; nothing is expanded."""
    by_metric = {spec.name: sum(count_subqueries(q, spec.template) for qs in query_sets for q in qs.queries)
                 for spec in specs}
    count = sum(by_metric.values())
    if count > cap:
        largest = max((count_subqueries(q, spec.template), qs.name, q.label, spec.name)
                       for qs in query_sets for q in qs.queries for spec in specs)
        shown = short_list(f"{name}: {n:,}" for name, n in sorted(by_metric.items(), key=lambda kv: -kv[1]) if n)
        raise QueryError(TOO_MANY.format(count=count, by_metric=shown, cap=cap,
                                         largest=f"query {largest[2]!r} of {largest[1]!r} gives {largest[0]:,} "
                                                 f"for {largest[3]}"))
    return count


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
