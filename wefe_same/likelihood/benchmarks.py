"""The likelihood benchmarks: one frozen :class:`BenchmarkSpec` each, built in or from a plugin.

Everything a run does with a benchmark is read from its spec: the name ``--likelihood NAME=FILE``
takes, the reader of its file, the scorer of a language model on its items, its measures
with their order in the metrics' order vocabulary (``ideal`` with the ideal value, or
``descending``), the columns of rankings and aggregates (``likelihood:NAME`` for a
benchmark of one measure, ``likelihood:NAME-MEASURE`` otherwise, and one per bias type
where the spec says so) and the pinned download, if any.

The built-in CrowS-Pairs and StereoSet are declared in :mod:`wefe_same.likelihood.evaluate`;
an installed package declares its own in the entry-point group ``wefe_same.likelihood``,
named after the benchmark::

    [project.entry-points."wefe_same.likelihood"]
    toy-pairs = "my_package.toy:BENCHMARK"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import pandas as pd

from wefe_same.errors import LikelihoodError
from wefe_same.plugins import load_entry_points

__all__ = ["ENTRY_POINT_GROUP", "LIKELIHOOD_PREFIX", "BenchmarkSpec", "Measure", "plugin_benchmarks"]

#: The entry-point group installed packages declare likelihood benchmarks in.
ENTRY_POINT_GROUP = "wefe_same.likelihood"
#: Prefix of the likelihood columns in aggregates and rankings.
LIKELIHOOD_PREFIX = "likelihood:"
NAME = re.compile(r"[a-z][a-z0-9-]*")
#: The built-in benchmarks' names (a plugin may not take one).
BUILTIN_NAMES = ("crows-pairs", "stereoset")


@dataclass(frozen=True)
class Measure:
    """A benchmark's figure and which value is best, in the metrics' order vocabulary:
    ``ideal`` (|x − ideal| ascending: StereoSet's ss, 50) or ``descending`` (higher is
    better: lms, icat)."""

    order: Literal["ideal", "descending"]
    ideal: float = 0.0

    def __post_init__(self) -> None:
        if self.order not in ("ideal", "descending"):
            raise LikelihoodError(f"a measure's order is 'ideal' or 'descending', not {self.order!r}")


@dataclass(frozen=True)
class BenchmarkSpec:
    """One likelihood benchmark.

    Attributes
    ----------
    name : str
        What ``--likelihood NAME=FILE`` and ``rank(likelihood=["NAME=FILE"])`` take.
    read : callable (path) -> DataFrame
        The items of a file, checked (a :class:`~wefe_same.errors.LikelihoodError` naming the
        file and the line otherwise); ``item_id`` and ``bias_type`` columns at least.
    score : callable (language model, items, scoring) -> (items, summary)
        The per-item table (``item_id``, ``bias_type`` and the sentences' scores) and the
        summary: one row per bias type and ``overall`` (index), a column per measure and
        the ``count`` column.
    measures : mapping of str to Measure
        Its figures, in the order of the tables.
    reference : str
        The paper (authors and year) and the code it follows.
    count : str
        The summary's column with the number of items behind each figure.
    by_bias_type : bool
        Rankings and aggregates get a column per bias type besides the overall one.
    download : (url, "KIND:HEX", file name) or None
        The pinned file ``--allow-download`` fetches (KIND ``sha256`` or ``git-blob``); None:
        the user names the file.
    """

    name: str
    read: Callable[[str | Path], pd.DataFrame]
    score: Callable[..., tuple[pd.DataFrame, pd.DataFrame]]
    measures: Mapping[str, Measure]
    reference: str
    count: str = "n_items"
    by_bias_type: bool = False
    download: tuple[str, str, str] | None = field(default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "measures", MappingProxyType(dict(self.measures)))
        if not isinstance(self.name, str) or not NAME.fullmatch(self.name):
            raise LikelihoodError(f"a likelihood benchmark's name is lowercase letters, digits and '-', "
                                  f"not {self.name!r}")
        if not self.measures or not all(isinstance(m, Measure) for m in self.measures.values()):
            raise LikelihoodError(f"likelihood benchmark {self.name!r}: measures must map names to Measure")
        if not callable(self.read) or not callable(self.score):
            raise LikelihoodError(f"likelihood benchmark {self.name!r}: read and score must be callable")

    def column(self, measure: str) -> str:
        """The column of ``measure`` in rankings and aggregates.

        >>> from wefe_same.likelihood.evaluate import CROWS_PAIRS, STEREOSET
        >>> CROWS_PAIRS.column("metric_score"), STEREOSET.column("icat")
        ('likelihood:crows-pairs', 'likelihood:stereoset-icat')
        """
        return LIKELIHOOD_PREFIX + (self.name if len(self.measures) == 1 else f"{self.name}-{measure}")


@cache
def plugin_benchmarks() -> Mapping[str, tuple[BenchmarkSpec, str]]:
    """The installed plugins' benchmarks with their package (``NAME VERSION``), loaded once
    per process (:func:`~wefe_same.plugins.load_entry_points`: a broken one is one warning)."""
    return MappingProxyType(load_entry_points(ENTRY_POINT_GROUP, "likelihood benchmark", BenchmarkSpec,
                                              BUILTIN_NAMES, name_of=lambda b: b.name, error=LikelihoodError))
