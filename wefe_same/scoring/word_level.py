"""Word-level bias scores per base pair: the array of Du, Fang & Nguyen 2021 (measures ×
target words × base pairs), one per model and *unit*, that their reliability coefficients
(:mod:`wefe_same.analysis.reliability`) read.

A unit is a query set's two aligned target sets (their tuple i, such as he/she, is base
pair i) with every attribute word the set's queries pair them with (the "target words" of
Du et al., whose words are occupations and adjectives). A measure is a metric of the run
that gives a score per attribute word for one base pair, computed by the metric's own
code on a subquery of that one pair (:data:`WORD_MEASURES`):

- WEAT: s(w, {m}, {f}) = cos(w, m) − cos(w, f), Du et al.'s "DB/WA";
- SAME: the signed binary b(w) = cos(w, m̂ − f̂) (SAME-skew and SAME-stereotype average
  the same word-level score, so they are not measures of their own);
- DirectBias: |cos(w, g)| with g the principal component of the one pair;
- RIPA: ⟨w, (m − f)/‖m − f‖⟩ on raw vectors (Ethayarajh et al. 2019, as WEFE has it).

The other metrics give no score per word and base pair (:func:`no_measure_reason`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from wefe_same.metrics.registry import MetricSpec
from wefe_same.query.sets import QuerySet, WordSet
from wefe_same.scoring.vectors import VectorTable

#: metric → (the role of the one pair's words, the word-value key of the attribute words)
WORD_MEASURES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "WEAT": ("attributes", "s"), "SAME": ("targets", "signed_0_1"), "DirectBias": ("targets", "b"),
    "RIPA": ("targets", "ripa"),
})
SAME_WORD_SCORE = ("SAME-skew", "SAME-stereotype")


@dataclass(frozen=True)
class Unit:
    """Two aligned target sets of a query set and the attribute words paired with them."""

    query_set: str
    groups: tuple[WordSet, WordSet]
    words: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.query_set}:{self.groups[0].name}/{self.groups[1].name}"

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return list(zip(self.groups[0].words, self.groups[1].words))


def word_measures(specs: Sequence[MetricSpec]) -> list[MetricSpec]:
    """The metrics of ``specs`` that are word-level measures, in their order."""
    return [s for s in specs if s.name in WORD_MEASURES]


def no_measure_reason(name: str) -> str | None:
    """Why metric ``name`` is not a word-level measure (None: it is one)."""
    if name in WORD_MEASURES:
        return None
    if name in SAME_WORD_SCORE:
        return f"{name} averages SAME's signed word-level score b(w): the same measure as SAME"
    return f"{name} gives no score per attribute word and base pair"


def reliability_units(query_sets: Sequence[QuerySet]) -> list[Unit]:
    """The units of a run's query sets: every two aligned target sets of equal length that
    a query pairs with attribute sets, with those attribute words in order (once each)."""
    units: dict[tuple[str, WordSet, WordSet], list[str]] = {}
    for qs in query_sets:
        for query in qs.queries:
            if len(query.targets) != 2 or not all(s.aligned for s in query.targets) \
                    or len(query.targets[0]) != len(query.targets[1]):
                continue
            words = units.setdefault((qs.name, *query.targets), [])
            words.extend(w for s in query.attributes for w in s.words)
    return [Unit(name, (a, b), tuple(dict.fromkeys(words))) for (name, a, b), words in units.items()]


def word_level_scores(table: VectorTable, unit: Unit, specs: Sequence[MetricSpec],
                      options: Mapping[str, Mapping[str, object]]) -> np.ndarray:
    """(measures × words × pairs) of one model: ``specs`` are the measures (in order); NaN
    where a word or a pair's word is missing from the model."""
    pairs, words = unit.pairs, list(unit.words)
    out = np.full((len(specs), len(words), len(pairs)), np.nan)
    found = [i for i, w in enumerate(words) if w in table]
    kept = [j for j, (m, f) in enumerate(pairs) if m in table and f in table]
    if not found or not kept:
        return out
    for k, spec in enumerate(specs):
        role, key = WORD_MEASURES[spec.name]
        kind, opts = spec.inputs(options.get(spec.name, {}))
        if "permutations" in opts:
            opts = {**opts, "permutations": 0}
        vectors = table.unit_vectors if kind == "unit" else table.raw_vectors
        T = vectors([words[i] for i in found])
        for j in kept:
            m, f = (vectors([w]) for w in pairs[j])
            if role == "targets":
                result = spec.compute([m, f], [T], opts)
            else:  # WEAT: the words are its targets (twice: only X's s(w) is read), the pair its attributes
                result = spec.compute([T, T], [m, f], opts)
            values = (result.word_values or {}).get(key)
            if values is not None:
                out[k, found, j] = np.asarray(values, dtype=float)[:len(found)]
    return out
