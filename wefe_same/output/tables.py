"""The tables of the results folder, and what the writer reads of a result.

The tables are the part of a run that must never be lost: they are written first.

Lean by default: the word-level table (one row per model, subquery, word and component:
over a million rows for the default run, 136 MB as CSV) is written as
``word_bias.parquet`` (zstd, about 8 MB) and the long ``details`` and ``lookups`` tables
as ``.csv.gz``; ``full_tables=True`` (``wefe-same rank --full-tables``) writes all three as
plain CSV. The numbers are the same either way: the Parquet file keeps float64 values,
and the gzip files hold the very bytes of the CSV (no name or date in their header).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from wefe_same.output.word_table import WordTable


class ResultTables(Protocol):
    """What the writer reads of a result (:class:`~wefe_same.result.RankResult` has it all)."""

    @property
    def scores(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def aggregates(self) -> pd.DataFrame: ...
    @property
    def rankings(self) -> pd.DataFrame: ...
    @property
    def correlations(self) -> pd.DataFrame: ...
    @property
    def correlation_pvalues(self) -> pd.DataFrame: ...
    @property
    def correlation_pvalues_adjusted(self) -> pd.DataFrame | None: ...
    @property
    def by_query_set(self) -> pd.DataFrame: ...
    @property
    def details(self) -> pd.DataFrame: ...
    @property
    def lookups(self) -> pd.DataFrame: ...
    @property
    def manifest(self) -> dict[str, Any]: ...
    @property
    def word_table(self) -> WordTable | None: ...
    @property
    def aggregates_ci(self) -> pd.DataFrame | None: ...
    @property
    def correlations_ci(self) -> pd.DataFrame | None: ...
    @property
    def rank_stability(self) -> pd.DataFrame | None: ...
    @property
    def quality(self) -> pd.DataFrame | None: ...
    @property
    def set_apart(self) -> list[str] | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def extra(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def metric_names(self) -> list[str]: ...
    @property
    def quality_columns(self) -> list[str]: ...


#: Names up to this many UTF-8 bytes that need no replaced character are file names as
#: they are; with a prefix such as ``most_biased_words_`` and a suffix they stay far
#: below the 255 bytes most file systems allow.
PLAIN_NAME_BYTES = 100
#: UTF-8 bytes of a replaced or long name kept before its hash.
KEPT_BYTES = 60
_HASHED = re.compile(r".*-[0-9a-f]{10}")


def safe_name(name: str) -> str:
    """``name`` as a file name, unique for any two names.

    A short name made of letters, digits and ``-_.+`` is itself (outputs stay stable).
    Any other name (a replaced character, more than :data:`PLAIN_NAME_BYTES` bytes, or
    one that looks like a hashed name) keeps its first :data:`KEPT_BYTES` bytes
    with the others replaced by ``_``, then ``-`` and 10 hex digits of the sha256 of the
    name: ``a b`` and ``a?b`` no longer both become ``a_b`` and overwrite each other's files.

    >>> safe_name("glove-6b-50d+hard-debias")
    'glove-6b-50d+hard-debias'
    >>> safe_name("a b")
    'a_b-c8687a08aa'
    >>> safe_name("WEAT-ES"), safe_name("a_b")
    ('WEAT-ES', 'a_b')
    >>> len({safe_name("a b"), safe_name("a_b"), safe_name("a?b")})
    3
    >>> len(safe_name("m" * 300))
    71
    """
    kept = "".join(ch if (ch.isalnum() and ch.isprintable()) or ch in "-_.+" else "_" for ch in name)
    # surrogateescape: a name from a non-UTF-8 file name still hashes (and differs from its neighbours)
    raw = name.encode("utf-8", "surrogateescape")
    if kept == name and len(raw) <= PLAIN_NAME_BYTES and name not in ("", ".", "..") \
            and not _HASHED.fullmatch(name):
        return name
    return _hashed(kept, raw)


def _hashed(kept: str, raw: bytes) -> str:
    head = kept.encode("utf-8")[:KEPT_BYTES].decode("utf-8", "ignore")  # whole characters only
    return f"{head}-{hashlib.sha256(raw).hexdigest()[:10]}"


def unique_stems(names: Iterable[str]) -> dict[str, str]:
    """{name: file stem} for names that share a folder: :func:`safe_name`, except that
    names whose stems differ only in case (``GloVe`` and ``glove``, one file on macOS
    and Windows) all get the hashed form.

    >>> unique_stems(["GloVe", "glove", "w2v"])
    {'GloVe': 'GloVe-b7fc6a915b', 'glove': 'glove-4bc529d33e', 'w2v': 'w2v'}
    """
    stems = {name: safe_name(name) for name in dict.fromkeys(names)}
    folded = Counter(stem.casefold() for stem in stems.values())
    return {name: stem if folded[stem.casefold()] == 1 else
            _hashed(stem, name.encode("utf-8", "surrogateescape")) for name, stem in stems.items()}


#: zstd level of ``word_bias.parquet``: level 9 is 15 % smaller than the default and as fast to read.
PARQUET_ZSTD_LEVEL = 9
#: gzip level of the ``.csv.gz`` tables; their header has no file name and no date, so
#: equal tables give equal bytes.
GZIP_LEVEL = 6


def _csv(table: pd.DataFrame, folder: Path, name: str, full: bool, later: Callable[[Callable[[], None]], None],
         **options: Any) -> None:
    if full:
        table.to_csv(folder / f"{name}.csv", index=False, **options)
    else:  # the text here, the compression (zlib lets go of the GIL) where ``later`` runs it
        later(functools.partial(_write_gzip, folder / f"{name}.csv.gz",
                                table.to_csv(index=False, **options).encode("utf-8")))


def _write_gzip(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0))


def _now(write: Callable[[], None]) -> None:
    write()


def write_csv_tables(result: ResultTables, folder: Path, *, full_tables: bool = False, words: bool = True,
                     later: Callable[[Callable[[], None]], None] = _now) -> None:
    """Every table of the result (the part of a run that must never be lost): CSV, the
    long ones compressed unless ``full_tables`` (see the module docstring); the word-level
    table too unless ``words`` is False (:func:`write_word_table`). ``later(write)``
    runs the compressing writes (by default at once; the results folder's writer hands
    them to its background thread)."""
    (folder / "scores").mkdir(exist_ok=True)
    for metric, matrix in result.scores.items():
        matrix.to_csv(folder / "scores" / f"{safe_name(metric)}.csv")
    result.aggregates.to_csv(folder / "aggregates.csv")
    result.rankings.to_csv(folder / "rankings.csv")
    result.correlations.to_csv(folder / "correlations.csv")
    result.correlation_pvalues.to_csv(folder / "correlation_pvalues.csv")
    if result.correlation_pvalues_adjusted is not None:
        result.correlation_pvalues_adjusted.to_csv(folder / "correlation_pvalues_adjusted.csv")
    result.by_query_set.to_csv(folder / "by_query_set.csv", index=False)
    _csv(result.details, folder, "details", full_tables, later)
    _csv(result.lookups, folder, "lookups", full_tables, later)
    for name in ("aggregates_ci", "correlations_ci", "rank_stability", "quality"):
        table = getattr(result, name)
        if table is not None:
            table.to_csv(folder / f"{name}.csv", index=False)
    if words:
        write_word_table(result, folder, full_tables=full_tables)
    for name, table in result.extra.items():
        table.to_csv(folder / f"{safe_name(name)}.csv", index=False)


def write_word_table(result: ResultTables, folder: Path, *, full_tables: bool = False) -> None:
    """The word-level table: ``word_bias.parquet`` (``word_bias.csv`` with ``full_tables``)."""
    if result.word_table is not None:  # streamed a model at a time: never whole in memory
        if full_tables:
            result.word_table.write_csv(folder / "word_bias.csv", float_format="%.6g")
        else:
            write_parquet(result.word_table, folder / "word_bias.parquet")


def write_parquet(table: pd.DataFrame | WordTable, path: Path) -> None:
    """``table`` as Parquet (pyarrow, zstd), without the pandas index; the same table
    gives the same bytes (pyarrow writes no date). A :class:`WordTable` is written a
    model at a time."""
    if isinstance(table, WordTable):
        table.write_parquet(path, compression_level=PARQUET_ZSTD_LEVEL)
        return
    # Through a Python file: pyarrow cannot take a path from a non-UTF-8 file name.
    with open(path, "wb") as fh:
        table.to_parquet(fh, engine="pyarrow", compression="zstd", compression_level=PARQUET_ZSTD_LEVEL,
                         index=False)
