"""External columns: numbers measured outside this library (a downstream TPR gap, a
CrowS-Pairs score) joined to a run's aggregates, rankings and correlations.

The table has a ``model`` column and one numeric column per measure. Its columns are
renamed ``external:NAME`` (like ``quality:NAME``), so they never clash with a metric.
By default a lower value is less biased and gets rank 1 (the metrics' order "ascending");
``higher_is_better`` names the columns where a higher value is less biased (an accuracy, a
fairness score: the order "descending"), :func:`external_order`.

>>> frame = pd.DataFrame({"model": ["a", "b", "c"], "tpr_gap": [0.3, 0.1, 0.2],
...                       "fair_acc": [0.5, 0.9, 0.7]})
>>> ext = load_external(frame, ["a", "b", "c"], higher_is_better=["fair_acc"])
>>> list(ext.columns)
['external:tpr_gap', 'external:fair_acc']
>>> rank_external(ext, ["fair_acc"]).to_dict("list")
{'external:tpr_gap': [3, 1, 2], 'external:fair_acc': [3, 1, 2]}
"""

from __future__ import annotations

import csv
import io
import math
import numbers
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pandas as pd

from wefe_same.analysis.ranking import Ties, rank_by_order
from wefe_same.errors import ExternalError, WefeSameWarning, short_list
from wefe_same.metrics.spec import Order
from wefe_same.validation import EXTERNAL_TABLE_MAX_BYTES, parse_decimal, read_regular_file

#: Prefix of external columns in aggregates and rankings.
EXTERNAL_PREFIX = "external:"
#: Prefix of the quality columns in aggregates and rankings (an external column may not use it).
QUALITY_PREFIX = "quality:"
#: Cells read as "no value" (NaN); compared case-insensitively after stripping.
MISSING_CELLS = frozenset({"", "na", "nan", "n/a", "null", "none"})
#: Tie rules of :func:`rank_external` (the run's, :data:`~wefe_same.analysis.ranking.Ties`).
TIES: tuple[str, ...] = get_args(Ties)


def _reserved_names() -> frozenset[str]:
    from wefe_same.metrics.registry import METRICS

    return frozenset(METRICS) | {"quality", "overall", "model"}


def external_name(column: str) -> str:
    """``"tpr_gap"`` → ``"external:tpr_gap"`` (a name that already has the prefix keeps it)."""
    return column if column.startswith(EXTERNAL_PREFIX) else EXTERNAL_PREFIX + column


def _read_csv(path: Path) -> tuple[list[str], list[tuple[str, list[Any]]]]:
    """Header and (row label, cells) of a CSV (TSV when the suffix is .tsv)."""
    # A regular file under the cap only: a FIFO or /dev/zero would hang or fill the memory.
    raw = read_regular_file(path, what="external table", error=ExternalError, max_bytes=EXTERNAL_TABLE_MAX_BYTES)
    try:
        text = raw.decode("utf-8-sig")
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t" if path.suffix.lower() == ".tsv" else ","))
    except UnicodeDecodeError as err:
        raise ExternalError(f"{path}: external table is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except csv.Error as err:
        raise ExternalError(f"{path}: malformed CSV: {err}") from None
    numbered = [(i, r) for i, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not numbered:
        raise ExternalError(f"{path}: external table is empty; it needs a header with a 'model' column")
    header = [c.strip() for c in numbered[0][1]]
    body = []
    for line, cells in numbered[1:]:
        if len(cells) != len(header):
            raise ExternalError(f"{path}: line {line} has {len(cells)} cells, the header has {len(header)}")
        body.append((f"line {line}", list(cells)))
    return header, body


def _read_frame(frame: pd.DataFrame) -> tuple[list[str], list[tuple[str, list[Any]]]]:
    if "model" not in frame.columns and frame.index.name == "model":
        frame = frame.reset_index()
    header = [str(c) if not isinstance(c, str) else c.strip() for c in frame.columns]
    body = [(f"row {i}", list(row)) for i, row in enumerate(frame.itertuples(index=False, name=None))]
    return header, body


def _number(cell: Any, where: str) -> float:
    if isinstance(cell, str):
        text = cell.strip()
        if text.lower() in MISSING_CELLS:
            return math.nan
        parsed = parse_decimal(text)  # float() would take "1_000", "١٢" and "inf"
        if parsed is None:
            try:
                finite = math.isfinite(float(text))
            except ValueError:
                finite = True
            kind = "number (plain decimals only: ASCII digits, sign, fraction, exponent)" if finite else \
                "finite number"
            raise ExternalError(f"{where}: {cell!r} is not a {kind}")
        value = parsed
    elif cell is None or cell is pd.NA or cell is pd.NaT:
        return math.nan
    elif isinstance(cell, numbers.Real) and not isinstance(cell, (bool, np.bool_)):
        value = float(cell)
        if math.isnan(value):
            return value
    else:
        raise ExternalError(f"{where}: {cell!r} is not a number")
    if not math.isfinite(value):
        raise ExternalError(f"{where}: {cell!r} is not a finite number")
    return value


def load_external(
    source: str | Path | pd.DataFrame,
    models: Sequence[str],
    *,
    higher_is_better: Iterable[str] = (),
    reserved: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Read and check an external table; nothing is written.

    Parameters
    ----------
    source : path to a CSV (TSV if ``.tsv``) or DataFrame
        A ``model`` column (or a DataFrame index named ``model``) and numeric columns.
        Empty cells and NA/NaN/null are missing values.
    models : sequence of str
        The run's model names, in run order.
    higher_is_better : iterable of str
        Columns (with or without the ``external:`` prefix) where a higher value is less
        biased; each must be a column of the table.
    reserved : iterable of str, optional
        Names a column may not take; default: every metric of the registry, ``quality``,
        ``overall`` and ``model``.

    Returns
    -------
    DataFrame, index ``model`` (the run's models, in run order), columns ``external:NAME``
        A run model the table lacks gets NaN (a :class:`~wefe_same.errors.WefeSameWarning`
        names it): it is left out of the correlations of those columns.

    Raises
    ------
    ExternalError
        One line naming the file, the column and the row: no ``model`` column, a
        duplicated or empty model, a model that is not in the run (all of them listed),
        a non-numeric or infinite value, a duplicated column, a column named like a
        metric or a quality column, a ``higher_is_better`` name that is not a column.
    """
    if isinstance(source, pd.DataFrame):
        label = "external DataFrame"
        header, body = _read_frame(source)
    elif isinstance(source, (str, Path)):
        label = str(source)
        header, body = _read_csv(Path(source))
    else:
        raise ExternalError(f"external must be a path to a CSV file or a DataFrame, not {type(source).__name__}")

    if "model" not in header:
        raise ExternalError(f"{label}: no 'model' column; columns: {', '.join(header) or 'none'}")
    reserved_names = _reserved_names() if reserved is None else frozenset(reserved) | {"model"}
    seen: set[str] = set()
    for name in header:
        if not name:
            raise ExternalError(f"{label}: a column has an empty name")
        if name in seen:
            raise ExternalError(f"{label}: column {name!r} appears twice")
        seen.add(name)
        if name != "model" and (name in reserved_names or name.startswith(QUALITY_PREFIX)):
            raise ExternalError(f"{label}: column {name!r} has the name of a metric or quality column; rename it")
    columns = [c for c in header if c != "model"]
    if not columns:
        raise ExternalError(f"{label}: no column besides 'model'")
    at = header.index("model")
    positions = [(c, header.index(c)) for c in columns]

    run_models = list(models)
    known = set(run_models)
    rows: dict[str, list[float]] = {}
    first: dict[str, str] = {}
    unknown: list[str] = []
    for where, cells in body:
        model = cells[at]
        if not isinstance(model, str):
            raise ExternalError(f"{label}: {where}: column 'model' holds {model!r}, not a model name")
        if not model.strip():
            raise ExternalError(f"{label}: {where}: column 'model' is empty")
        model = model.strip()
        if model in first:
            raise ExternalError(f"{label}: model {model!r} appears twice ({first[model]} and {where})")
        first[model] = where
        if model not in known:
            unknown.append(model)
            continue
        rows[model] = [_number(cells[i], f"{label}: column {c!r}, {where} (model {model!r})")
                       for c, i in positions]
    if unknown:
        raise ExternalError(f"{label}: models not in this run: {short_list(unknown)}; "
                            f"the run's models: {short_list(run_models)}")

    names = {c: external_name(c) for c in columns}
    for wanted in higher_is_better:
        if not isinstance(wanted, str) or external_name(wanted) not in names.values():
            raise ExternalError(f"{label}: higher_is_better names {short_list([wanted], quote=True)}, which is not "
                                f"a column; columns: {short_list(columns)}")
    absent = [m for m in run_models if m not in rows]
    if absent:
        warnings.warn(f"{label}: no row for model{'s' if len(absent) > 1 else ''} {short_list(absent)}; "
                      "its external values are NaN", WefeSameWarning, stacklevel=2)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=[names[c] for c in columns], dtype="float64")
    return table.reindex(run_models).rename_axis(index="model", columns=None)


def rank_external(frame: pd.DataFrame, higher_is_better: Iterable[str] = (), ties: Ties = "min") -> pd.DataFrame:
    """Ranks of external columns: 1 = least biased, NaN stays NaN.

    A lower value is less biased (rank 1) unless the column is in ``higher_is_better``
    (with or without the ``external:`` prefix), which is ranked in descending order.

    Parameters
    ----------
    frame : DataFrame, models × external columns (from :func:`load_external`)
    higher_is_better : iterable of str
    ties : {"min", "average", "max", "dense", "first"}
        As the run's rankings; integer ranks (Int64) unless "average".
    """
    if ties not in TIES:
        raise ExternalError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    higher = {external_name(h) for h in higher_is_better}
    unknown = sorted(higher - {external_name(str(c)) for c in frame.columns})
    if unknown:
        raise ExternalError(f"higher_is_better names {unknown[0]!r}, which is not an external column; "
                            f"columns: {', '.join(map(str, frame.columns))}")
    return pd.DataFrame({c: rank_by_order(frame[c], external_order(str(c), higher), ties=ties)
                         for c in frame.columns}, index=frame.index)


def external_order(column: str, higher_is_better: Iterable[str] = ()) -> Order:
    """A column's order in the metrics' vocabulary: "descending" when ``higher_is_better``
    names it (with or without the ``external:`` prefix), else "ascending".

    >>> external_order("external:fair_acc", ["fair_acc"]), external_order("tpr_gap", ["fair_acc"])
    ('descending', 'ascending')
    """
    higher = {external_name(h) for h in higher_is_better}
    return "descending" if external_name(column) in higher else "ascending"
