"""Query files: the bundled TOML files and the TOML loader, with errors that name the file,
the set and the word.

>>> [qs.name for qs in load_queries(["gender", "religion"])]
['gender', 'religion']
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from wefe_same.errors import QueryError, WefeSameWarning, bad_parameter, printable, short_list, unknown_name
from wefe_same.query.sets import Query, QuerySet, WordSet, set_overlaps
from wefe_same.validation import QUERY_FILE_MAX_BYTES, read_regular_file

#: Keys a ``[sets.NAME]`` table may hold; ``description``, ``note`` and ``wefe_key`` are
#: documentary (``aligned = true``: position i of the group's sets forms tuple i).
SET_KEYS = frozenset({"words", "source", "aligned", "description", "note", "wefe_key"})
#: Keys a ``[[queries]]`` entry may hold.
QUERY_KEYS = frozenset({"name", "targets", "attributes", "description", "wefe_id"})
META_KEYS = frozenset({"name", "description", "source"})


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
    raw = read_regular_file(path, what="query file", error=QueryError, max_bytes=QUERY_FILE_MAX_BYTES)
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
            sets[set_name] = WordSet(set_name, tuple(words), table.get("source"), aligned=aligned)
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
        roles: list[tuple[WordSet, ...]] = []
        for role in ("targets", "attributes"):
            names = entry.get(role)
            if not isinstance(names, list) or not names:
                raise QueryError(f"{path}: query {label!r} needs a non-empty list {role!r}")
            for n in names:
                if not isinstance(n, str) or n not in sets:
                    raise QueryError(
                        f"{path}: query {label!r} names unknown set {short_list([n], quote=True)}; "
                        f"sets defined: {short_list(sets)}"
                    )
            roles.append(tuple(sets[n] for n in names))
        try:
            queries.append(Query(roles[0], roles[1], name=entry.get("name")))
        except QueryError as err:
            raise QueryError(f"{path}: {err}") from None

    return QuerySet(
        name=meta.get("name", printable(path.stem)),
        queries=tuple(queries),
        path=str(path),
        sha256=hashlib.sha256(raw).hexdigest(),
        description=meta.get("description"),
        sets=tuple(sets.values()),
    )


QueriesLike = str | Path | Query | QuerySet | Sequence["str | Path | Query | QuerySet"]


@functools.lru_cache(maxsize=64)
def _bundled_file(name: str) -> QuerySet:
    """A bundled query file, read once per process: package data that no run changes (the
    debiasing variants read their word lists from it once per model; a QuerySet is frozen)."""
    return load_query_file(_bundled_dir() / f"{name}.toml")


def load_queries(spec: QueriesLike) -> list[QuerySet]:
    """Resolve a bundled name, a path, Query objects or QuerySets into query sets.

    Loose `Query` objects are gathered into one query set called ``"queries"``.
    Two sets of one query that share words give a `WefeSameWarning`
    naming the file, the sets and the words (`set_overlaps`).

    Examples
    --------
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
                out.append(_bundled_file(str(item)))
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
    counts = Counter(qs.name for qs in out)
    duplicates = sorted(n for n, k in counts.items() if k > 1)
    if duplicates:
        raise QueryError(f"query set name {duplicates[0]!r} is used twice; give the files distinct [meta] names")
    bundled = {str(_bundled_dir() / f"{name}.toml") for name in bundled_query_sets()}
    for qs in out:
        # A bundled file is named as such: its installed path says nothing to the user.
        where = f"bundled query set {qs.name!r}" if qs.path in bundled else None
        for message in set_overlaps(qs, where):
            warnings.warn(message, WefeSameWarning, stacklevel=2)
    return out
