"""A run's per-word table, held one model at a time: parts on disk, summaries in memory.

The per-word table (model, metric, subquery, word, component, value) has ~10⁵ rows per
model; kept whole until the results folder is written it made a 40-model run's parent
grow with every model. :class:`WordTable` takes each model's rows as its scores come in
(:meth:`WordTable.add`), keeps in memory only what the report and the word figures show
of them (:class:`WordSummary`: the most-biased words), and holds the rows themselves in
memory up to :data:`SPILL_BYTES`, beyond that as parts in Arrow's IPC format in a
temporary folder of its own. The writer streams the parts into ``word_bias.parquet`` (or ``word_bias.csv``)
in the run's model order, one model at a time (:meth:`WordTable.write_parquet`); the table
is the one the whole frame gave (the same rows, values and labels).

The temporary folder is removed when the table is (or at exit); one left by a killed
process is removed by the next table made on this host once that process is gone.
"""

from __future__ import annotations

import itertools
import shutil
import socket
import tempfile
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wefe_same.processes import left_by_dead_process, owner_tag

#: (metric, component) pairs whose words the report and the word figures show, in order
#: of preference: the first that has a value in any model is shown.
WORD_FIGURE_PREFERENCE = (("SAME", "b"), ("DirectBias", "b"), ("WEAT", "s"))
#: Words the report shows per model and subquery, and per model over all subqueries.
TOP_WORDS = 8
#: Words a most-biased-words figure shows (:func:`~wefe_same.output.figures.most_biased_words`).
FIGURE_WORDS = 15
#: Bytes of per-word rows held in memory before they go to parts on disk: the
#: default run's ten models stay in memory (~2 MB each), a zoo's go to disk.
SPILL_BYTES = 32 << 20
#: Rows per row group of ``word_bias.parquet`` (pyarrow's default; a part is ~10⁵ rows).
ROW_GROUP = 1 << 20
LABELS = ("model", "metric", "subquery", "word", "component")
_PREFIX = "wefe-same-words-"


def concat_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Per-word frames in one, labels kept as categories (their union, in order of appearance)."""
    for column in LABELS:
        if all(isinstance(f[column].dtype, pd.CategoricalDtype) for f in frames if column in f):
            categories = list(dict.fromkeys(c for f in frames if column in f for c in f[column].cat.categories))
            frames = [f.assign(**{column: f[column].cat.set_categories(categories)}) if column in f else f
                      for f in frames]
    return pd.concat(frames, ignore_index=True)


def word_rows(frame: pd.DataFrame, pair: tuple[str, str]) -> pd.DataFrame:
    """The rows of ``pair`` with a value: model, subquery, word (labels as they are) and value (float)."""
    keep = (frame["metric"] == pair[0]).to_numpy() & (frame["component"] == pair[1]).to_numpy()
    rows = frame.loc[keep, ["model", "subquery", "word", "value"]]
    rows = rows.assign(value=pd.to_numeric(rows["value"], errors="coerce").astype(float))
    return rows.dropna(subset=["value"]).reset_index(drop=True)


def _as_text(uniques: Any) -> np.ndarray:
    """Labels as strings, as a CSV reads them back."""
    return np.array([str(u) for u in uniques], dtype=object)


def _first_seen(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each key's group number, groups numbered in the order they first appear (in the
    smallest integer type: NumPy sorts 16-bit integers by radix), and where each first appears."""
    groups = pd.factorize(keys)[0]
    groups = groups.astype(np.int16 if len(groups) < 1 << 15 else np.int64)
    new = np.ones(len(groups), dtype=bool)
    new[1:] = groups[1:] > np.maximum.accumulate(groups)[:-1]
    return groups, np.flatnonzero(new)


def _top_candidates(groups: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The rows, in order, whose size is at least the :data:`TOP_WORDS`-th largest of their
    group: a superset of each group's top rows, sorted instead of every row."""
    if np.isnan(size).any():  # NaN sorts last: every row stays
        return np.arange(len(size))
    by_group = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.r_[True, groups[by_group][1:] != groups[by_group][:-1], True])
    threshold = np.full(int(groups.max()) + 1 if len(groups) else 0, -np.inf)
    for start, stop in itertools.pairwise(bounds):
        if stop - start > TOP_WORDS:
            part = size[by_group[start:stop]]
            threshold[groups[by_group[start]]] = np.partition(part, len(part) - TOP_WORDS)[len(part) - TOP_WORDS]
    return np.flatnonzero(size >= threshold[groups])


def _rank_in_group(groups: np.ndarray) -> np.ndarray:
    """Each element's position among the elements of its group, ``groups`` sorted."""
    n = len(groups)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]) if n else np.zeros(0, dtype=np.int64)
    return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))


def _rank_in_order(groups: np.ndarray) -> np.ndarray:
    """Each element's position among the earlier elements of its group (a cumulative count)."""
    by_group = np.argsort(groups, kind="stable")
    out = np.empty(len(groups), dtype=np.int64)
    out[by_group] = _rank_in_group(groups[by_group])
    return out


def present_pairs(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """The pairs of :data:`WORD_FIGURE_PREFERENCE` that have a value in ``frame``."""
    if not len(frame):
        return []
    values = pd.to_numeric(frame["value"], errors="coerce").notna().to_numpy()
    return [pair for pair in WORD_FIGURE_PREFERENCE
            if (values & (frame["metric"] == pair[0]).to_numpy() & (frame["component"] == pair[1]).to_numpy()).any()]


@dataclass
class WordSummary:
    """What the report and the figures show of the rows of one (metric, component).

    ``top``: per (model, subquery) the :data:`TOP_WORDS` rows with the largest |value|
    (model, subquery, word, value), the subqueries of a model in the order of the rows;
    ``means``: per model the :data:`TOP_WORDS` words with the largest mean |value| over
    subqueries (model, word, size); ``figure``: every row of the :data:`FIGURE_WORDS`
    words of each model with the largest mean |value| (the table's columns), all that a
    most-biased-words figure draws.
    """

    top: pd.DataFrame
    means: pd.DataFrame
    figure: pd.DataFrame | None = None

    @staticmethod
    def of_rows(rows: pd.DataFrame, figure: pd.DataFrame | None = None) -> WordSummary:
        """The summary of :func:`word_rows` (any number of models)."""
        # On integer codes, in NumPy (labels become strings only for the rows kept): a
        # model has ~10⁴ rows of a pair; grouping Python strings was most of the report's
        # time, pandas' sorts and group-bys most of the rest (a zoo summarises every model).
        coded, text = {}, {}
        for col in ("model", "subquery", "word"):
            codes, uniques = pd.factorize(rows[col])
            coded[col], text[col] = codes.astype(np.int64), uniques
        values = rows["value"].to_numpy(dtype=float)
        size = np.abs(values)
        # Per (model, subquery) in the order of the rows, its rows by |value| (ties in row order).
        pair = _first_seen(coded["model"] * (len(text["subquery"]) + 1) + coded["subquery"])[0]
        candidates = _top_candidates(pair, size)
        ranked = candidates[np.argsort(-size[candidates], kind="stable")]
        grouped = ranked[np.argsort(pair[ranked], kind="stable")]
        top = grouped[_rank_in_group(pair[grouped]) < TOP_WORDS]
        # Per (model, word) the mean |value| (pandas' group mean: its compensated sum).
        group, first = _first_seen(coded["model"] * (len(text["word"]) + 1) + coded["word"])
        mean = pd.Series(size).groupby(group).mean().to_numpy()
        order = np.argsort(-mean, kind="stable")
        models = coded["model"][first[order]]
        keep = order[_rank_in_order(models) < TOP_WORDS]
        # Strings made of the labels kept only (a model's words are thousands).
        top_out = pd.DataFrame({col: _as_text(text[col][coded[col][top]]) for col in ("model", "subquery", "word")})
        top_out["value"] = values[top]
        means_out = pd.DataFrame({col: _as_text(text[col][coded[col][first[keep]]]) for col in ("model", "word")})
        means_out["size"] = mean[keep]
        return WordSummary(top_out, means_out, figure)

    @staticmethod
    def concat(parts: list[WordSummary]) -> WordSummary:
        """The parts in one (their figure rows too, when every part has them)."""
        rows = [p.figure for p in parts if p.figure is not None]
        return WordSummary(pd.concat([p.top for p in parts], ignore_index=True),
                           pd.concat([p.means for p in parts], ignore_index=True),
                           concat_frames(rows) if rows and len(rows) == len(parts) else None)


def figure_rows(frame: pd.DataFrame, pair: tuple[str, str]) -> pd.DataFrame:
    """Every row of ``pair`` of the :data:`FIGURE_WORDS` words of each model with the
    largest mean |value| (what :func:`~wefe_same.output.figures.top_words` picks)."""
    rows = frame[(frame["metric"] == pair[0]).to_numpy() & (frame["component"] == pair[1]).to_numpy()]
    keep = np.zeros(len(rows), dtype=bool)
    for _, part in rows.groupby("model", sort=False, observed=True):
        size = pd.to_numeric(part["value"], errors="coerce").abs()
        best = size.groupby(part["word"], observed=True).mean().dropna().astype(float).nlargest(FIGURE_WORDS)
        keep[rows.index.get_indexer(part.index[part["word"].isin(best.index).to_numpy()])] = True
    return rows[keep]


class WordTable:
    """The per-word rows of a run, added one model at a time (see the module docstring).

    Parameters
    ----------
    spill_bytes : int, optional
        Rows held in memory up to this many bytes (default :data:`SPILL_BYTES`); beyond,
        every part goes to disk.
    """

    def __init__(self, *, spill_bytes: int | None = None):
        self.spill_bytes = SPILL_BYTES if spill_bytes is None else spill_bytes
        self._parts: dict[int, pd.DataFrame | Path] = {}
        self._rows = 0
        self._held = 0
        self._summaries: dict[int, tuple[list[tuple[str, str]], WordSummary | None]] = {}
        self._folder: Path | None = None
        self._cleanup: Any = None

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> WordTable:
        """A table of rows already in memory (kept there)."""
        table = cls(spill_bytes=1 << 62)
        table.add(0, frame)
        return table

    def __len__(self) -> int:
        return self._rows

    def __reduce__(self) -> Any:  # a copy holds its rows itself, not this table's folder
        return WordTable.from_frame, (self.frame(),)

    # -- filling
    def add(self, position: int, frame: pd.DataFrame) -> None:
        """One model's rows (``position``: its place in the run; the table is in that order)."""
        present = present_pairs(frame)
        summary = None
        if present:  # only this part's first pair can be the one shown (see WORD_FIGURE_PREFERENCE)
            summary = WordSummary.of_rows(word_rows(frame, present[0]))
        self._summaries[position] = (present, summary)
        self._rows += len(frame)
        size = int(frame.memory_usage(deep=False, index=False).sum())
        if self._held + size > self.spill_bytes:
            for pos, held in list(self._parts.items()):
                if isinstance(held, pd.DataFrame):
                    self._parts[pos] = self._spill(pos, held)
            self._held = 0
            self._parts[position] = self._spill(position, frame)
        else:
            self._held += size
            self._parts[position] = frame

    def _spill(self, position: int, frame: pd.DataFrame) -> Path:
        if self._folder is None:
            _remove_orphans()
            self._folder = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{owner_tag()}"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._folder, True)
        path = self._folder / f"{position}.arrow"
        # Arrow's IPC format with zstd, not Parquet: the part is read back by this table only,
        # so no encodings are worth their writing time.
        import pyarrow as pa

        table = pa.Table.from_pandas(frame, preserve_index=False)
        with open(path, "wb") as fh, pa.ipc.new_file(
                fh, table.schema, options=pa.ipc.IpcWriteOptions(compression=pa.Codec("zstd", 1))) as writer:
            writer.write_table(table)
        return path

    @staticmethod
    def _read(path: Path) -> pd.DataFrame:
        with open(path, "rb") as fh:  # pandas' reader: the dtypes read_parquet gives (Feather is Arrow IPC)
            return pd.read_feather(fh)

    # -- reading
    def frames(self) -> Iterator[pd.DataFrame]:
        """Each part in the run's order, read back one at a time."""
        for position in sorted(self._parts):
            part = self._parts[position]
            yield part if isinstance(part, pd.DataFrame) else self._read(part)

    def _arrow_parts(self) -> Iterator[Any]:
        """Each part as an Arrow table (with the pandas metadata of its frame), in the run's order."""
        import pyarrow as pa

        for position in sorted(self._parts):
            part = self._parts[position]
            if isinstance(part, pd.DataFrame):
                yield pa.Table.from_pandas(part, preserve_index=False)
            else:
                with open(part, "rb") as fh:  # as written: no round trip through pandas
                    yield pa.ipc.open_file(fh).read_all()

    def frame(self) -> pd.DataFrame:
        """The whole table in memory (labels as categories, their union)."""
        frames = list(self.frames())
        frame = concat_frames(frames) if frames else pd.DataFrame(columns=[*LABELS, "value"])
        self._made = weakref.ref(frame)
        return frame

    def made(self, frame: pd.DataFrame) -> bool:
        """Whether ``frame`` is the last :meth:`frame` of this table (not a table given anew)."""
        made = getattr(self, "_made", None)
        return made is not None and made() is frame

    def chosen(self) -> tuple[str, str] | None:
        """The (metric, component) the report and the figures show: the first of
        :data:`WORD_FIGURE_PREFERENCE` that has a value in any model."""
        present = {pair for pairs, _ in self._summaries.values() for pair in pairs}
        return next((pair for pair in WORD_FIGURE_PREFERENCE if pair in present), None)

    def word_means(self, pair: tuple[str, str]) -> pd.DataFrame:
        """Per model and word, the mean |value| of ``pair`` over the model's subqueries (one
        row each; what the many-model most-biased-words heatmap draws), read a part at a time."""
        means = []
        for frame in self.frames():
            rows = frame[(frame["metric"] == pair[0]).to_numpy() & (frame["component"] == pair[1]).to_numpy()]
            size = pd.to_numeric(rows["value"], errors="coerce").abs()
            mean = size.groupby([rows["model"].astype(str), rows["word"].astype(str)], observed=True).mean()
            means.append(mean.rename("value").reset_index().assign(metric=pair[0], component=pair[1]))
        return (pd.concat(means, ignore_index=True) if means
                else pd.DataFrame(columns=["model", "word", "value", "metric", "component"]))

    def summary(self, *, figures: bool = True) -> WordSummary | None:
        """The summary of the :meth:`chosen` pair over every model, None when none has values
        (``figures=False``: without the figures' rows)."""
        pair = self.chosen()
        if pair is None:
            return None
        parts = [s for pos in sorted(self._summaries) if (s := self._summaries[pos][1]) is not None
                 and self._summaries[pos][0][0] == pair]
        summary = WordSummary.concat(parts)
        if figures:  # read again a part at a time: only runs that draw every figure need them
            summary.figure = concat_frames([figure_rows(frame, pair) for frame in self.frames()])
        return summary

    # -- writing
    def write_parquet(self, path: Path, *, compression_level: int) -> None:
        """The table as one Parquet file (zstd), written a part at a time: labels as
        dictionaries (categories when read back), values as float64."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if len(self._parts) <= 1:  # one part (rows given whole): written as it is
            with open(path, "wb") as fh:
                self.frame().to_parquet(fh, engine="pyarrow", compression="zstd",
                                        compression_level=compression_level, index=False)
            return
        schema = None
        with open(path, "wb") as fh:  # through a Python file: pyarrow cannot take a non-UTF-8 path
            writer = None
            try:
                batch: list[Any] = []  # parts gathered into row groups of about ROW_GROUP rows
                for table in [*self._arrow_parts(), None]:
                    if table is not None and not len(table):  # no per-word rows: its empty columns have no type
                        continue
                    if table is not None:
                        if schema is None:
                            schema = pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), pa.string())
                                                         if pa.types.is_dictionary(f.type) else f.type)
                                                for f in table.schema], metadata=table.schema.metadata)
                            # Statistics (min, max) of the values only, not of the label columns
                            # (dictionaries of strings); the values (distinct floats) are written
                            # plain, not dictionary-encoded.
                            labels = [f.name for f in schema if pa.types.is_dictionary(f.type)]
                            writer = pq.ParquetWriter(fh, schema, compression="zstd",
                                                      compression_level=compression_level, use_dictionary=labels,
                                                      write_statistics=[f.name for f in schema if f.name not in labels])
                        batch.append(table.cast(schema))
                    if batch and (table is None or sum(len(t) for t in batch) >= ROW_GROUP):
                        writer.write_table(pa.concat_tables(batch), row_group_size=ROW_GROUP)  # type: ignore[union-attr]
                        batch = []
                if writer is None:  # no rows at all: the empty table's columns
                    self.frame().to_parquet(fh, engine="pyarrow", compression="zstd", index=False)
            finally:
                if writer is not None:
                    writer.close()

    def write_csv(self, path: Path, **options: Any) -> None:
        """The table as one CSV file, written a part at a time (the same bytes as the whole)."""
        with open(path, "w", encoding="utf-8", newline="") as fh:
            first = True
            for frame in self.frames():
                frame.to_csv(fh, index=False, header=first, **options)
                first = False
            if first:
                self.frame().to_csv(fh, index=False, **options)


def _remove_orphans() -> None:
    """Folders of this host's word tables whose process is gone (killed before its exit)."""
    try:
        found = list(Path(tempfile.gettempdir()).glob(f"{_PREFIX}{socket.gethostname()}-*"))
    except OSError:
        return
    for folder in found:
        if folder.is_dir() and not folder.is_symlink() and left_by_dead_process(folder.name[len(_PREFIX):]):
            shutil.rmtree(folder, ignore_errors=True)
