"""Word sets, queries, templates and query files (WEFE, seed 002 §3.1).

A *target set* names a social group, an *attribute set* names traits or neutral words.
A :class:`Template` ``(t, a)`` says how many target and attribute sets a metric takes;
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

import hashlib
import itertools
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from wefe_same.errors import QueryError, bad_parameter, unknown_name

#: Keys a ``[sets.NAME]`` table may hold; ``description``, ``note`` and ``wefe_key`` are
#: documentary (``aligned = true``: position i of the group's sets forms tuple i).
SET_KEYS = frozenset({"words", "source", "aligned", "description", "note", "wefe_key"})
#: Keys a ``[[queries]]`` entry may hold.
QUERY_KEYS = frozenset({"name", "targets", "attributes", "description", "wefe_id"})
META_KEYS = frozenset({"name", "description", "source"})


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

    Each arity is a number or :class:`AtLeast`.
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
        if isinstance(self.words, (AbstractSet, Mapping)):
            # A set or dict has no order a reader can rely on; aligned tuples need one.
            raise QueryError(f"set {self.name!r}: words must be an ordered list of strings, "
                             f"not a {type(self.words).__name__}")
        if not isinstance(self.aligned, bool):
            raise QueryError(bad_parameter("aligned", "WordSet", "True or False", self.aligned))
        words = tuple(self.words)
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


def _join(sets: Iterable[WordSet]) -> str:
    return "+".join(s.name for s in sets)


@dataclass(frozen=True)
class Query:
    """A pair (target sets, attribute sets). Frozen and hashable.

    Its :attr:`id` is built from the set names, so it is stable and never positional.
    """

    targets: tuple[WordSet, ...]
    attributes: tuple[WordSet, ...]
    name: str | None = None

    def __post_init__(self) -> None:
        for role in ("targets", "attributes"):
            sets = tuple(getattr(self, role))
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
        """``"T1+T2|A1+A2"`` from the set names."""
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
        """Every subquery of ``template``'s shape (seed 002 §3.1), in set order."""
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
            f"{self.path or self.name}: no set {name!r}; sets defined: "
            + ", ".join(s.name for s in self.sets)
        )


def _bundled_dir() -> Path:
    """``queries/`` of the source tree (checkouts, editable installs) or its installed copy."""
    here = Path(__file__).resolve().parent.parent  # the wefe_same package
    for candidate in (here / "bundled_queries", here.parent / "queries"):
        if any(candidate.glob("*.toml")):
            return candidate
    raise QueryError(f"the bundled query files are missing (looked in {here / 'bundled_queries'} "
                     f"and {here.parent / 'queries'}); reinstall wefe_same")


def bundled_query_sets() -> list[str]:
    """Names of the query files that ship with the package.

    >>> {"gender", "ethnicity", "religion", "weat"} <= set(bundled_query_sets())
    True
    """
    return sorted(p.stem for p in _bundled_dir().glob("*.toml"))


def _check_keys(path: Path, where: str, table: dict, allowed: frozenset[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise QueryError(
            f"{path}: {where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(sorted(allowed))}"
        )


def load_query_file(path: str | Path) -> QuerySet:
    """Read one TOML query file; every error names the file, the set and the word."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise QueryError(f"{path}: cannot read query file: {err.strerror or err}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise QueryError(f"{path}: malformed TOML: {err}") from None

    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise QueryError(f"{path}: [meta] must be a table")
    _check_keys(path, "[meta]", meta, META_KEYS)
    for key in META_KEYS:
        if key in meta and not isinstance(meta[key], str):
            raise QueryError(f"{path}: [meta] {key} must be a string")
    _check_keys(path, "top level", doc, frozenset({"meta", "sets", "queries"}))
    set_tables = doc.get("sets", {})
    if not isinstance(set_tables, dict) or not set_tables:
        raise QueryError(f"{path}: no [sets.NAME] tables")

    sets: dict[str, WordSet] = {}
    for set_name, table in set_tables.items():
        if not isinstance(table, dict):
            raise QueryError(f"{path}: sets.{set_name} must be a table with a 'words' list")
        _check_keys(path, f"set {set_name!r}", table, SET_KEYS)
        words = table.get("words")
        if not isinstance(words, list):
            raise QueryError(f"{path}: set {set_name!r} needs a list 'words'")
        if not isinstance(table.get("source", ""), str):
            raise QueryError(f"{path}: set {set_name!r}: 'source' must be a string")
        aligned = table.get("aligned", False)
        if not isinstance(aligned, bool):
            raise QueryError(f"{path}: set {set_name!r}: 'aligned' must be true or false, got {aligned!r}")
        try:
            sets[set_name] = WordSet(set_name, words, table.get("source"), aligned=aligned)
        except QueryError as err:
            raise QueryError(f"{path}: {err}") from None

    queries = []
    entries = doc.get("queries", [])
    if not isinstance(entries, list):
        raise QueryError(f"{path}: 'queries' must be an array of tables ([[queries]])")
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise QueryError(f"{path}: queries entry {i} must be a table")
        label = entry.get("name", f"#{i}")
        if not isinstance(label, str):
            raise QueryError(f"{path}: queries entry {i}: 'name' must be a string")
        _check_keys(path, f"query {label!r}", entry, QUERY_KEYS)
        roles = []
        for role in ("targets", "attributes"):
            names = entry.get(role)
            if not isinstance(names, list) or not names:
                raise QueryError(f"{path}: query {label!r} needs a non-empty list {role!r}")
            for n in names:
                if not isinstance(n, str) or n not in sets:
                    raise QueryError(
                        f"{path}: query {label!r} names unknown set {n!r}; "
                        f"sets defined: {', '.join(sets)}"
                    )
            roles.append([sets[n] for n in names])
        try:
            queries.append(Query(roles[0], roles[1], name=entry.get("name")))
        except QueryError as err:
            raise QueryError(f"{path}: {err}") from None

    return QuerySet(
        name=meta.get("name", path.stem),
        queries=tuple(queries),
        path=str(path),
        sha256=hashlib.sha256(raw).hexdigest(),
        description=meta.get("description"),
        sets=tuple(sets.values()),
    )


QueriesLike = str | Path | Query | QuerySet | Sequence["str | Path | Query | QuerySet"]


def load_queries(spec: QueriesLike) -> list[QuerySet]:
    """Resolve a bundled name, a path, Query objects or QuerySets into query sets.

    Loose :class:`Query` objects are gathered into one query set called ``"queries"``.

    >>> [qs.name for qs in load_queries(["gender", "religion"])]
    ['gender', 'religion']
    """
    items = [spec] if isinstance(spec, (str, Path, Query, QuerySet)) else list(spec)
    if not items:
        raise QueryError(bad_parameter("queries", "load_queries", "at least one query", spec))
    out: list[QuerySet] = []
    loose: list[Query] = []
    for item in items:
        if isinstance(item, QuerySet):
            out.append(item)
        elif isinstance(item, Query):
            loose.append(item)
        elif isinstance(item, (str, Path)):
            path = Path(item)
            if path.suffix == ".toml" or path.exists():
                out.append(load_query_file(path))
            elif str(item) in bundled_query_sets():
                out.append(load_query_file(_bundled_dir() / f"{item}.toml"))
            else:
                raise QueryError(unknown_name("query set", str(item), bundled_query_sets())
                                 + " (or give a path to a .toml file)")
        else:
            raise QueryError(
                bad_parameter("queries", "load_queries", "names, paths or Query objects",
                              type(item).__name__)
            )
    if loose:
        out.append(QuerySet(name="queries", queries=tuple(loose)))
    names = [qs.name for qs in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise QueryError(f"query set name {duplicates[0]!r} is used twice; give the files distinct [meta] names")
    return out
