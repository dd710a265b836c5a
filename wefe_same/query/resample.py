"""Resampling the words inside word sets: the word bootstrap, random halves of the neutral
words (Schröder et al. 2021, §5.3.1) and aligned tuples kept whole when a run keeps only the words
every model has (:func:`close_tuples`).

Everything here is pure and model-free: a draw is a list of positions into a set's words,
computed from ``(random_state, kind, set key, draw)`` alone. So every model of a run, in
any process, gets the same draws, and adding a query file does not move the draws of the
sets already there.

Aligned sets (``WordSet.aligned``) used together as the target sets of a query (all of
them aligned, all of equal length) form a *group*: position i of every member is tuple i,
and every member of a group gets the same positions, so tuples are drawn whole. Groups are
the connected components over the queries (Christianity–Islam and Christianity–Judaism
make one group of three sets).

>>> from wefe_same.query import Query, WordSet
>>> men = WordSet("men", ["he", "him", "man"], aligned=True)
>>> women = WordSet("women", ["she", "her", "woman"], aligned=True)
>>> jobs = WordSet("jobs", ["doctor", "nurse", "pilot", "clerk"])
>>> draws = word_bootstrap_draws([Query([men, women], [jobs])], 2, random_state=0)
>>> draw = draws[0][None]          # draw 0, for every metric
>>> [men.words.index(w) for w in draw[men]] == [women.words.index(w) for w in draw[women]]
True
>>> len(draw[jobs]) == len(jobs)   # sizes kept; words may repeat
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from wefe_same.errors import QueryError
from wefe_same.query.sets import Query, QuerySet, WordSet
from wefe_same.validation import check_int

Kind = Literal["bootstrap", "halves", "split"]
Role = Literal["targets", "attributes"]
ROLES: tuple[Role, ...] = ("targets", "attributes")
_KIND_CODE = {"bootstrap": 1, "halves": 2, "split": 3}

#: Role of the "neutral" words, the words whose word-wise biases a metric averages, for
#: metrics whose spec names no ``word_role`` (halved in Schröder et al. 2021, §5.3.1). WEAT and
#: WEAT-ES average s(w, A, B) over the targets X ∪ Y; MAC over t ∈ T; RNSB over the
#: target words' probabilities. Every other metric averages over its attribute set(s),
#: the WEFE convention for neutral words (RND, ECT, RIPA, gWEAT, the SAME family).
NEUTRAL_ROLE_BY_METRIC: Mapping[str, Role] = {
    "WEAT": "targets", "WEAT-ES": "targets", "MAC": "targets", "RNSB": "targets",
}


def neutral_role(spec: Any) -> Role:
    """The role that holds a metric's neutral words (halved in Schröder et al. 2021, §5.3.1).

    A spec's own ``neutral_role`` attribute wins, then its ``word_role`` (the role its
    word-wise biases belong to), then :data:`NEUTRAL_ROLE_BY_METRIC`, then "attributes".

    >>> from wefe_same.metrics.registry import METRICS
    >>> neutral_role(METRICS["WEAT"]), neutral_role(METRICS["WEAT-ES"]), neutral_role(METRICS["SAME"])
    ('targets', 'targets', 'attributes')
    """
    for attr in ("neutral_role", "word_role"):
        role = getattr(spec, attr, None)
        if role in ROLES:
            return role
    return NEUTRAL_ROLE_BY_METRIC.get(spec.name, "attributes")


def _queries(items: Iterable[Query | QuerySet]) -> list[Query]:
    out: list[Query] = []
    for item in items:
        out.extend(item.queries if isinstance(item, QuerySet) else [item])
    return out


def _aligned_targets(query: Query) -> bool:
    sets = query.targets
    return len(sets) > 1 and all(s.aligned for s in sets) and len({len(s) for s in sets}) == 1


def aligned_groups(items: Iterable[Query | QuerySet]) -> tuple[tuple[WordSet, ...], ...]:
    """Groups of sets drawn as tuples: connected components of the queries whose target
    sets are all aligned and of equal length. Members keep the order first seen.

    >>> a, b, c = (WordSet(n, [n + "1", n + "2"], aligned=True) for n in "abc")
    >>> x = WordSet("x", ["x1"])
    >>> [[s.name for s in g] for g in aligned_groups([Query([a, b], [x]), Query([b, c], [x])])]
    [['a', 'b', 'c']]
    """
    parent: dict[WordSet, WordSet] = {}

    def find(s: WordSet) -> WordSet:
        while parent[s] is not s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for query in _queries(items):
        if not _aligned_targets(query):
            continue
        for s in query.targets:
            parent.setdefault(s, s)
        root = find(query.targets[0])
        for s in query.targets[1:]:
            other = find(s)
            if other is not root:
                parent[other] = root
    groups: dict[WordSet, list[WordSet]] = {}
    for s in parent:
        groups.setdefault(find(s), []).append(s)
    return tuple(tuple(g) for g in groups.values())


def set_key(word_set: WordSet) -> int:
    """A 64-bit key from the set's name and words: its draws depend on nothing else."""
    body = "\0".join((word_set.name, *word_set.words)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(body).digest()[:8], "big")


def group_keys(items: Iterable[Query | QuerySet]) -> dict[WordSet, int]:
    """Key of every set of the queries; the members of an aligned group share one key."""
    queries = _queries(items)
    keys = {s: set_key(s) for q in queries for s in (*q.targets, *q.attributes)}
    for group in aligned_groups(queries):
        shared = int.from_bytes(hashlib.sha256(
            b"".join(k.to_bytes(8, "big") for k in sorted(keys[s] for s in group))).digest()[:8], "big")
        keys.update({s: shared for s in group})
    return keys


def half_size(n: int) -> int:
    """Words in a random half of a set of ``n`` words: ⌈n/2⌉ (at least one word)."""
    return (n + 1) // 2


@lru_cache(maxsize=4096)
def draw_positions(kind: Kind, n: int, random_state: int, key: int, draw: int) -> np.ndarray:
    """Positions into a set of ``n`` words for one draw, sorted, read-only (cached).

    "bootstrap": ``n`` positions drawn with replacement (repeats kept); "halves":
    ⌈n/2⌉ distinct positions; "split": draws 2h and 2h + 1 are the two halves of one
    random split (⌊n/2⌋ positions, then the other ⌈n/2⌉). Sets with the same ``key`` get
    the same positions.

    >>> draw_positions("halves", 5, 0, 1, 0).tolist() == draw_positions("halves", 5, 0, 1, 0).tolist()
    True
    >>> len(draw_positions("halves", 5, 0, 1, 0)), len(draw_positions("bootstrap", 5, 0, 1, 0))
    (3, 5)
    """
    rng = np.random.default_rng(np.random.SeedSequence(
        [random_state, _KIND_CODE[kind], key, draw // 2 if kind == "split" else draw]))
    if kind == "bootstrap":
        out = np.sort(rng.integers(0, n, size=n))
    elif kind == "split":
        order = rng.permutation(n)
        out = np.sort(order[:n // 2] if draw % 2 == 0 else order[n // 2:])
    else:
        out = np.sort(rng.choice(n, size=half_size(n), replace=False))
    out.setflags(write=False)  # shared by the cache
    return out


class SetWords(Mapping[Any, tuple[str, ...]]):
    """The resampled words of one draw, per set (words may repeat, order follows positions).

    Look a set up by the :class:`~wefe_same.query.WordSet` itself (exact), or by its name
    when no other resampled set of the run has that name; an ambiguous name raises
    :class:`~wefe_same.errors.QueryError` rather than silently picking one set. Words are
    computed on access.
    """

    def __init__(self, draws: WordDraws, draw: int, sets: frozenset[WordSet]):
        self._draws, self._draw, self._sets = draws, draw, sets
        by_name: dict[str, list[WordSet]] = {}
        for s in sets:
            by_name.setdefault(s.name, []).append(s)
        self._by_name = by_name

    def _resolve(self, key: object) -> WordSet:
        if isinstance(key, WordSet):
            if key in self._sets:
                return key
            raise KeyError(key)
        if isinstance(key, str) and key in self._by_name:
            found = self._by_name[key]
            if len(found) > 1:
                raise QueryError(f"set name {key!r} names {len(found)} different sets of this run; "
                                 "look resampled words up by the WordSet, not its name")
            return found[0]
        raise KeyError(key)

    def __getitem__(self, key: object) -> tuple[str, ...]:
        s = self._resolve(key)
        return tuple(s.words[i] for i in self._draws.positions(s, self._draw))

    def __iter__(self) -> Iterator[WordSet]:
        return iter(self._sets)

    def __len__(self) -> int:
        return len(self._sets)


@dataclass(frozen=True)
class WordDraws(Sequence[dict[str | None, SetWords]]):
    """``draws`` resamples of the words of a run's sets; ``draws[b]`` is draw b.

    Draw b maps a metric name, or None for "every metric", to a :class:`SetWords` that
    gives the resampled words of the sets that metric resamples (look it up with
    ``draw.get(metric, draw.get(None, {}))``). A set absent from that mapping keeps its
    words.

    Attributes
    ----------
    kind : {"bootstrap", "halves", "split"}
    n_draws : int
    random_state : int
    keys : mapping WordSet → int
        Draw key of each set (aligned group members share one).
    resampled : mapping (metric name or None) → frozenset of WordSet
        Which sets are resampled for which metric.
    """

    kind: Kind
    n_draws: int
    random_state: int
    keys: Mapping[WordSet, int]
    resampled: Mapping[str | None, frozenset[WordSet]]

    def positions(self, word_set: WordSet, draw: int) -> np.ndarray:
        """Positions into ``word_set.words`` for draw ``draw`` (aligned groups: the same)."""
        key = self.keys.get(word_set)
        if key is None:
            key = set_key(word_set)
        return draw_positions(self.kind, len(word_set), self.random_state, key, draw)

    def __len__(self) -> int:
        return self.n_draws

    def __getitem__(self, draw: Any) -> Any:
        if isinstance(draw, slice):
            return [self[b] for b in range(*draw.indices(self.n_draws))]
        b = int(draw)
        if b < 0:
            b += self.n_draws
        if not 0 <= b < self.n_draws:
            raise IndexError(f"draw {draw} of {self.n_draws}")
        return {metric: SetWords(self, b, sets) for metric, sets in self.resampled.items()}


def word_bootstrap_draws(items: Iterable[Query | QuerySet], draws: int, random_state: int) -> WordDraws:
    """The word bootstrap: every set of every query resampled with replacement inside
    itself (size kept), aligned groups as tuples; the same draws for every metric.

    Parameters
    ----------
    items : Query or QuerySet objects
    draws : int
        Number of draws B.
    random_state : int
        Seed; draw b of a set depends only on (random_state, the set's key, b).
    """
    draws = check_int(draws, "draws", "word_bootstrap_draws", minimum=0)
    check_int(random_state, "random_state", "word_bootstrap_draws", minimum=0)
    queries = _queries(items)
    keys = group_keys(queries)
    return WordDraws("bootstrap", draws, random_state, keys, {None: frozenset(keys)})


def halves_draws(subqueries: Iterable[tuple[Any, Iterable[Query | Any]]], halves: int,
                 random_state: int) -> WordDraws:
    """Random halves W_i of the neutral words (Schröder et al. 2021, §5.3.1), per metric.

    For each metric, the sets in its :func:`neutral_role` across its subqueries are
    replaced by ⌈n/2⌉ of their words drawn without replacement (aligned groups: the same
    positions); its other sets keep their words. A set that one metric uses in both
    roles (in different subqueries) is halved in both.

    Parameters
    ----------
    subqueries : sequence of (spec, subqueries)
        As ``RunPlan.subqueries``: a metric spec and its Query (or Subquery) objects.
    halves : int
        Number of halves H.
    random_state : int
    """
    halves = check_int(halves, "halves", "halves_draws", minimum=0)
    check_int(random_state, "random_state", "halves_draws", minimum=0)
    per_metric: dict[str | None, frozenset[WordSet]] = {}
    queries: list[Query] = []
    for spec, subs in subqueries:
        qs = [getattr(s, "query", s) for s in subs]
        queries.extend(qs)
        role = neutral_role(spec)
        per_metric[spec.name] = frozenset(s for q in qs for s in getattr(q, role))
    return WordDraws("halves", halves, random_state, group_keys(queries), per_metric)


def split_half_draws(items: Iterable[Query | QuerySet], splits: int, random_state: int) -> WordDraws:
    """Random splits of every set of every query into two halves (aligned groups as
    tuples), the same for every metric: draws 2h and 2h + 1 are the halves of split h, so
    a run scores each half and compares the rankings (split-half reliability).

    >>> from wefe_same.query import Query, WordSet
    >>> s, t = WordSet("s", list("abcde")), WordSet("t", ["x", "y"])
    >>> draws = split_half_draws([Query([s], [t])], 1, random_state=0)
    >>> a, b = draws[0][None][s], draws[1][None][s]
    >>> len(a), len(b), sorted(a + b) == list("abcde")
    (2, 3, True)
    """
    splits = check_int(splits, "splits", "split_half_draws", minimum=0)
    check_int(random_state, "random_state", "split_half_draws", minimum=0)
    keys = group_keys(_queries(items))
    return WordDraws("split", 2 * splits, random_state, keys, {None: frozenset(keys)})


def _plan_seed(plan: Any, kind: Kind) -> int:
    # One stream per kind, derived from the run's seed: independent of the models.
    return int(np.random.SeedSequence([int(plan.seed), _KIND_CODE[kind]]).generate_state(1)[0])


def word_draws(plan: Any, draws: int) -> WordDraws:
    """:func:`word_bootstrap_draws` over a :class:`~wefe_same.run.plan.RunPlan`'s query sets."""
    return word_bootstrap_draws(plan.query_sets, draws, _plan_seed(plan, "bootstrap"))


def half_draws(plan: Any, halves: int) -> WordDraws:
    """:func:`halves_draws` over a :class:`~wefe_same.run.plan.RunPlan`'s subqueries."""
    return halves_draws(plan.subqueries, halves, _plan_seed(plan, "halves"))


def split_draws(plan: Any, splits: int) -> WordDraws:
    """:func:`split_half_draws` over a :class:`~wefe_same.run.plan.RunPlan`'s query sets."""
    return split_half_draws(plan.query_sets, splits, _plan_seed(plan, "split"))


# ---------------------------------------------------------------- shared words

def close_tuples(keep: Iterable[str], groups: Iterable[Sequence[WordSet]]) -> frozenset[str]:
    """``keep`` without the words of aligned tuples that lost a member.

    For a run restricted to the words every model has: a word of tuple i of an aligned group
    stays only when every member's word i is in ``keep`` (so "niece" goes when a model
    lacks "nephew"). Words outside every group are untouched.

    >>> men = WordSet("men", ["he", "nephew"], aligned=True)
    >>> women = WordSet("women", ["she", "niece"], aligned=True)
    >>> sorted(close_tuples({"he", "she", "niece", "doctor"}, [(men, women)]))
    ['doctor', 'he', 'she']
    """
    kept = set(keep)
    for group in groups:
        for words in zip(*(s.words for s in group)):
            if not all(w in kept for w in words):
                kept.difference_update(words)
    return frozenset(kept)


__all__ = [
    "NEUTRAL_ROLE_BY_METRIC",
    "ROLES",
    "SetWords",
    "WordDraws",
    "aligned_groups",
    "close_tuples",
    "draw_positions",
    "group_keys",
    "half_draws",
    "half_size",
    "halves_draws",
    "neutral_role",
    "set_key",
    "split_draws",
    "split_half_draws",
    "word_bootstrap_draws",
    "word_draws",
]
