"""Word sets, queries and templates (WEFE, Badilla et al. 2020, §3.1); query files are read by
`wefe_same.query.files`.

A *target set* names a social group, an *attribute set* names traits or neutral words.
A `Template` ``(t, a)`` says how many target and attribute sets a metric takes;
a larger query expands into every subquery of that shape.

>>> women = WordSet("women", ["she", "woman"])
>>> men = WordSet("men", ["he", "man"])
>>> science = WordSet("science", ["physics", "math"])
>>> art = WordSet("art", ["poetry", "dance"])
>>> q = Query([women, men], [science, art])
>>> [s.id for s in q.subqueries(Template(2, 1))]
['women+men|science', 'women+men|art']
>>> len(q.subqueries(Template(AtLeast(2), 2)))
1
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from wefe_same.errors import QueryError, bad_parameter, short_list
from wefe_same.validation import ParameterTypeError


@dataclass(frozen=True)
class AtLeast:
    """The arity "any n ≥ k": a metric that takes all the sets of a role at once.

    >>> AtLeast(2).accepts(3), AtLeast(2).accepts(1)
    (True, False)
    """

    k: int

    def __post_init__(self) -> None:
        if not isinstance(self.k, int) or self.k < 1:
            raise QueryError(bad_parameter("k", "AtLeast", "an integer >= 1", self.k))

    def accepts(self, n: int) -> bool:
        return n >= self.k

    def __str__(self) -> str:
        return f"n>={self.k}"


Arity = int | AtLeast


def _arity_accepts(arity: Arity, n: int) -> bool:
    return arity.accepts(n) if isinstance(arity, AtLeast) else n >= arity


def _choose(sets: tuple[WordSet, ...], arity: Arity) -> list[tuple[WordSet, ...]]:
    """All sub-tuples of ``sets`` that satisfy ``arity``, in the order of ``sets``."""
    if isinstance(arity, AtLeast):
        return [sets] if arity.accepts(len(sets)) else []
    return list(itertools.combinations(sets, arity))


@dataclass(frozen=True)
class Template:
    """How many target and attribute sets a metric takes: ``(t, a)``.

    Each arity is a number or `AtLeast`.
    """

    targets: Arity
    attributes: Arity

    def __post_init__(self) -> None:
        for role in ("targets", "attributes"):
            arity = getattr(self, role)
            if not isinstance(arity, AtLeast) and (
                not isinstance(arity, int) or isinstance(arity, bool) or arity < 1
            ):
                raise QueryError(
                    bad_parameter(role, "Template", "an integer >= 1 or AtLeast(k)", arity)
                )

    def fits(self, query: Query) -> bool:
        """Whether ``query`` has at least one subquery of this shape."""
        return _arity_accepts(self.targets, len(query.targets)) and _arity_accepts(
            self.attributes, len(query.attributes)
        )

    def __str__(self) -> str:
        return f"({self.targets}, {self.attributes})"


@dataclass(frozen=True)
class WordSet:
    """A named, ordered set of words. Frozen and hashable; order is kept for aligned sets.

    Parameters
    ----------
    name : str
        Identifier used in subquery ids and messages.
    words : sequence of str
        The words; duplicates are an error.
    source : str, optional
        Where the list comes from (paper, repository file).
    aligned : bool, default False
        Position i of this set and of the other aligned target sets of a query forms
        tuple i (definitional pairs). Metrics that pair words by position (Direct Bias,
        RIPA) and the word bootstrap keep such tuples whole.
    """

    name: str
    words: tuple[str, ...]
    source: str | None = None
    aligned: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise QueryError(bad_parameter("name", "WordSet", "a non-empty string", self.name))
        if isinstance(self.words, str):
            raise QueryError(f"set {self.name!r}: words must be a list of strings, not one string")
        if isinstance(self.words, bytes) or not isinstance(self.words, Iterable):
            raise ParameterTypeError(bad_parameter("words", "WordSet", "a list of strings", self.words))
        if isinstance(self.words, (AbstractSet, Mapping)):
            # A set or dict has no order a reader can rely on; aligned tuples need one.
            raise QueryError(f"set {self.name!r}: words must be an ordered list of strings, "
                             f"not a {type(self.words).__name__}")
        if not isinstance(self.aligned, bool):
            raise QueryError(bad_parameter("aligned", "WordSet", "True or False", self.aligned))
        words = tuple(str(w) if isinstance(w, str) else w for w in self.words)  # np.str_ as str
        if not words:
            raise QueryError(f"set {self.name!r} has no words")
        seen: set[str] = set()
        for word in words:
            if not isinstance(word, str) or not word.strip():
                raise QueryError(f"set {self.name!r}: word {word!r} is not a non-empty string")
            if word in seen:
                raise QueryError(f"set {self.name!r}: word {word!r} appears twice")
            seen.add(word)
        object.__setattr__(self, "words", words)

    def __len__(self) -> int:
        return len(self.words)


#: Characters that separate names in ids ("qs:T1+T2|A1"), and the escape character itself.
_ID_ESCAPES = {"%": "%25", "+": "%2B", "|": "%7C", ":": "%3A"}


def id_part(name: str) -> str:
    """``name`` as it appears inside an id: the separators ``+ | :`` (and ``%``) are
    percent-escaped, so ids are unique for any names; ordinary names are unchanged.

    >>> id_part("male"), id_part("a+b"), id_part("50%|x")
    ('male', 'a%2Bb', '50%25%7Cx')
    """
    return "".join(_ID_ESCAPES.get(c, c) for c in name)


def _join(sets: Iterable[WordSet]) -> str:
    return "+".join(id_part(s.name) for s in sets)


@dataclass(frozen=True)
class Query:
    """A pair (target sets, attribute sets). Frozen and hashable.

    Its `id` is built from the set names, so it is stable and never positional.
    """

    targets: tuple[WordSet, ...]
    attributes: tuple[WordSet, ...]
    name: str | None = None

    def __post_init__(self) -> None:
        for role in ("targets", "attributes"):
            given = getattr(self, role)
            if isinstance(given, (str, bytes, WordSet, Mapping)) or not isinstance(given, Iterable):
                raise ParameterTypeError(bad_parameter(role, "Query", "a sequence of WordSet", given))
            sets = tuple(given)
            if not sets:
                raise QueryError(f"query {self.label!r} has no {role[:-1]} sets")
            for s in sets:
                if not isinstance(s, WordSet):
                    raise QueryError(
                        bad_parameter(role, "Query", "a sequence of WordSet", type(s).__name__)
                    )
            object.__setattr__(self, role, sets)
        names = [s.name for s in (*self.targets, *self.attributes)]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise QueryError(f"query {self.label!r} uses set {duplicates[0]!r} twice")

    @property
    def id(self) -> str:
        """``"T1+T2|A1+A2"`` from the set names (separators inside a name escaped: `id_part`)."""
        return f"{_join(self.targets)}|{_join(self.attributes)}"

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        try:
            return self.id
        except AttributeError:  # during __post_init__ on bad input
            return "<query>"

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w for s in (*self.targets, *self.attributes) for w in s.words)

    def subqueries(self, template: Template) -> list[Query]:
        """Every subquery of ``template``'s shape (Badilla et al. 2020, §3.1), in set order."""
        return [
            Query(targets, attributes, name=self.name)
            for targets in _choose(self.targets, template.targets)
            for attributes in _choose(self.attributes, template.attributes)
        ]


@dataclass(frozen=True)
class QuerySet:
    """The queries of one file (or one call), with the provenance the manifest records."""

    name: str
    queries: tuple[Query, ...]
    path: str | None = None
    sha256: str | None = None
    description: str | None = None
    sets: tuple[WordSet, ...] = field(default=())

    def __post_init__(self) -> None:
        # Ids are built from set names: two different sets under one name would share ids,
        # and one of their subqueries would be silently dropped.
        seen: dict[str, WordSet] = {}
        for ws in (*self.sets, *(s for q in self.queries for s in (*q.targets, *q.attributes))):
            other = seen.setdefault(ws.name, ws)
            if other.words != ws.words or other.aligned != ws.aligned:
                raise QueryError(f"{self.path or self.name}: two different sets are called {ws.name!r}; "
                                 "give them distinct names")

    @property
    def words(self) -> frozenset[str]:
        return frozenset().union(*(q.words for q in self.queries)) | frozenset(
            w for s in self.sets for w in s.words
        )

    def word_set(self, name: str) -> WordSet:
        """The set called ``name`` in this file."""
        for s in self.sets:
            if s.name == name:
                return s
        raise QueryError(
            f"{self.path or self.name}: no set {short_list([name], quote=True)}; sets defined: "
            + short_list(s.name for s in self.sets)
        )


#: Pairs of sets sharing words that the overlap warnings list; beyond, one line says there are more.
MAX_OVERLAP_PAIRS = 50


def set_overlaps(query_set: QuerySet, where: str | None = None) -> list[str]:
    """One message per pair of sets that share words within a query of ``query_set``
    (targets or attributes); a pair used by several queries is one message naming them.

    Sets that share words make a query's scores meaningless (a word cannot stand for two
    groups at once). The message names the file, the sets, the words (the first few when
    there are many) and the queries; ``where`` names the file (default: its path, else the
    query set's name).

    >>> a, b, c = WordSet("a", ["x", "y"]), WordSet("b", ["y", "z"]), WordSet("c", ["w"])
    >>> set_overlaps(QuerySet("demo", (Query((a, b), (c,), name="q1"),)))
    ["demo: target sets 'a' and 'b' share 1 word: y (query 'q1')"]
    """
    roles: dict[tuple[str, str, str, str], tuple[list[str], list[str]]] = {}
    more = False
    for q in query_set.queries:
        label = q.label
        members = [("target", s) for s in q.targets] + [("attribute", s) for s in q.attributes]
        # Only the pairs that share a word are looked at (an index of the words), and at most
        # MAX_OVERLAP_PAIRS of them: 2,000 sets that all hold "he" are 2 million pairs.
        pairs = sorted(itertools.islice(_sharing_pairs(members), MAX_OVERLAP_PAIRS + 1))
        for i, j in pairs:
            (role_a, a), (role_b, b) = members[i], members[j]
            key = (role_a, a.name, role_b, b.name)
            if key not in roles and len(roles) == MAX_OVERLAP_PAIRS:
                more = True
                break
            in_b = set(b.words)
            shared = [w for w in a.words if w in in_b]
            roles.setdefault(key, (shared, []))[1].append(label)
    out = []
    for (role_a, a_name, role_b, b_name), (shared, queries) in roles.items():
        kinds = f"{role_a} sets" if role_a == role_b else f"{role_a} set {a_name!r} and {role_b} set"
        pair = f"{kinds} {a_name!r} and {b_name!r}" if role_a == role_b else f"{kinds} {b_name!r}"
        plural = "s" if len(shared) > 1 else ""
        qs = "queries " + short_list(queries, quote=True, shown=5) if len(queries) > 1 else f"query {queries[0]!r}"
        out.append(f"{where or query_set.path or query_set.name}: {pair} share {len(shared)} word{plural}: "
                   f"{short_list(shared)} ({qs})")
    if more:
        out.append(f"{where or query_set.path or query_set.name}: more pairs of sets share words; "
                   f"the first {MAX_OVERLAP_PAIRS} are listed")
    return out


def _sharing_pairs(members: list[tuple[str, WordSet]]) -> Iterator[tuple[int, int]]:
    """(i, j), i < j, once each, for members that share a word (an index word → members)."""
    index: dict[str, list[int]] = {}
    seen: set[tuple[int, int]] = set()
    for i, (_, s) in enumerate(members):
        for w in dict.fromkeys(s.words):
            index.setdefault(w, []).append(i)
    for ids in index.values():
        for x, i in enumerate(ids):
            for j in ids[x + 1:]:
                if (i, j) not in seen:
                    seen.add((i, j))
                    yield i, j
