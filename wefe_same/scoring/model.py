"""One model's scores: every metric on every subquery of a run, Badilla et al. 2020, §3.2.

Each model is read once: the union of every query word is looked up in one pass, and
every metric then works on that small :class:`~wefe_same.scoring.vectors.VectorTable`.
A set that lost too many words makes its subquery NaN with the reason; it never stops
the run.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from wefe_same.metrics._frozen import freeze
from wefe_same.metrics.registry import MetricSpec
from wefe_same.metrics.result import MetricResult
from wefe_same.models.sources import ModelSource
from wefe_same.query import resample as resampling
from wefe_same.query.expand import Subquery, describe_overlap
from wefe_same.query.sets import Query, QuerySet, WordSet
from wefe_same.scoring.aggregate import NanPolicy, aggregate
from wefe_same.scoring.vectors import VectorTable, read_table

DETAIL_COLUMNS = [
    "model", "metric", "query_set", "subquery", "value", "words_found", "missing_words",
    "reason", "warning", "p_value", "n_splits", "p_method", "metric_details",
]
WORD_BIAS_COLUMNS = ["model", "metric", "subquery", "word", "component", "value"]
#: Details shown in columns of their own (a metric spec's ``promoted_details``), in order.
PROMOTED = ("p_value", "n_splits", "p_method")
_PAIR_KEY = re.compile(r"^(signed|pair)_(\d+)_(\d+)$")


class ScoringPlan(Protocol):
    """What scoring reads of a run's plan (:class:`~wefe_same.run.plan.RunPlan` has it all)."""

    @property
    def seed(self) -> int: ...
    @property
    def missing_threshold(self) -> float: ...
    @property
    def nan_policy(self) -> NanPolicy: ...
    @property
    def bootstrap_words(self) -> int: ...
    @property
    def halves(self) -> int: ...
    @property
    def query_sets(self) -> Sequence[QuerySet]: ...
    @property
    def metric_options(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def specs(self) -> Sequence[MetricSpec]: ...
    @property
    def subqueries(self) -> Sequence[tuple[MetricSpec, Sequence[Subquery]]]: ...
    @property
    def column_sets(self) -> Mapping[str, Mapping[str, str]]: ...
    @property
    def weights(self) -> Mapping[str, Mapping[str, int]]: ...


class ModelTaskLike(Protocol):
    """One model of a run (:class:`~wefe_same.run.plan.ModelTask`): a source on demand."""

    def source(self) -> ModelSource: ...


def stream_seed(seed: int, *keys: str) -> int:
    """A seed for one (metric, subquery): the same for every model, whatever else runs.

    Using the same random draws for every model compares models on equal terms.
    """
    entropy = [seed, *(zlib.crc32(k.encode("utf-8")) for k in keys)]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


#: Words that replace a set's own words (a word-bootstrap draw, a random half), keyed by
#: the WordSet itself: two query files may use one set name for different words.
WordsOf = Mapping[WordSet, Sequence[str]]


@dataclass(frozen=True)
class Prepared:
    targets: list[np.ndarray]
    attributes: list[np.ndarray]
    words: dict[str, list[str]]  # role → the found words behind the rows, sets concatenated
    words_found: int
    missing: list[str]
    reason: str | None
    word_rows: dict[str, np.ndarray] = field(default_factory=dict)  # role → the table's rows of ``words``


def _loss_reason(what: str, lost: int, total: int, threshold: float, unit: str) -> str | None:
    if lost == total:
        return f"{what} has no {unit} in the model"
    if lost / total > threshold:
        return f"{what} lost {lost} of {total} {unit}s ({lost / total:.0%} > {threshold:.0%})"
    return None


def _aligned_words(table: VectorTable, columns: Sequence[Sequence[str]]) -> tuple[list[list[str]], int, int]:
    """Columns of the tuples whose every word is known; (columns, tuples lost, tuples)."""
    tuples = list(zip(*columns))
    kept = [t for t in tuples if all(w in table for w in t)]
    return [list(col) for col in zip(*kept)] or [[] for _ in columns], len(tuples) - len(kept), len(tuples)


def unaligned_reason(sets: Sequence[WordSet]) -> str | None:
    """Why target sets cannot be read as aligned tuples (Direct Bias, RIPA), or None."""
    undeclared = [s.name for s in sets if not getattr(s, "aligned", False)]
    if undeclared:
        return ("target sets " + ", ".join(repr(n) for n in undeclared) + " are not declared aligned "
                "(aligned = true in the query file), so their words cannot be paired by position")
    if len({len(s) for s in sets}) > 1:
        return "aligned target sets differ in length: " + ", ".join(f"{s.name}={len(s)}" for s in sets)
    return None


@dataclass(frozen=True)
class _Layout:
    """Which words of a subquery's sets a metric receives, and why not (no arrays)."""

    word_lists: dict[str, list[tuple[str, ...]]]  # role → the found words of each set (aligned: columns)
    rows: dict[str, list[np.ndarray]]  # their rows in the table
    words: dict[str, list[str]]
    word_rows: dict[str, np.ndarray]  # the rows of ``words``
    words_found: int
    missing: list[str]
    reason: str | None


class _Vocabulary:
    """What depends on a table's words only, not on its vectors: each query's layout (its
    word lists and their rows in the table).

    Models that find the same words share it (a zoo's encoders all find every word, and
    a run's static models often the same ones): splitting every set and laying out every
    query again was most of a model's scoring outside the metrics. Entries are keyed by
    the plan's queries (by value, and by identity: an entry holds its query, so an id is
    never reused while the entry lives); only the last vocabulary is kept
    (:func:`vocabulary_of`), a few hundred small entries.
    """

    def __init__(self, words: tuple[str, ...]):
        self.words = words
        self.layouts: dict[tuple[Query, bool, float], _Layout] = {}
        self.layout_ids: dict[tuple[int, bool, float], tuple[Query, _Layout]] = {}
        self.word_categories: list[tuple[np.ndarray, np.ndarray, pd.CategoricalDtype]] = []  # _category_column's


_last_vocabulary: list[_Vocabulary] = []


def vocabulary_of(table: VectorTable) -> _Vocabulary:
    """The :class:`_Vocabulary` of ``table``'s words: the last one when it has the same words."""
    last = _last_vocabulary[-1] if _last_vocabulary else None
    if last is not None and (last.words is table.words or last.words == table.words):
        return last
    last = _Vocabulary(table.words)
    _last_vocabulary[:] = [last]
    return last


class WordVectors:
    """One model's word lists, each split into (found, missing) and gathered once.

    A set takes part in many subqueries and metrics (the default run: ~480 subqueries over
    a few dozen sets per model); splitting it and gathering its rows again each time was
    most of a model's scoring outside the metrics' maths. The gathered arrays are shared
    by every metric that receives them, so they are read-only: a metric that wrote into
    its input would change another metric's scores, and raises instead. A query's layout
    (which words each metric receives) depends on the model's words only: it is kept
    beyond the model, in the :class:`_Vocabulary` of those words.

    Arrays are looked up by the identity of the found-words tuple first (this memo made
    it, and every metric's subquery of that set receives the same one); such an entry
    holds the tuple, so its id is never reused while the entry lives.

    >>> from wefe_same.models.sources import ArraySource
    >>> from wefe_same.scoring.vectors import build_table
    >>> memo = WordVectors(build_table(ArraySource("toy", ["a", "b"], np.eye(2)), ["a", "b", "c"]))
    >>> memo.split(("c", "a"))
    (('a',), ('c',))
    >>> v = memo.vectors(("a",), "unit"); v is memo.vectors(("a",), "unit"), v.flags.writeable
    (True, False)
    """

    def __init__(self, table: VectorTable):
        self.table = table
        self.vocabulary = vocabulary_of(table)
        self._splits: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._rows: dict[tuple[str, ...], np.ndarray] = {}
        self._arrays: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
        self._array_ids: dict[tuple[str, int], tuple[object, np.ndarray]] = {}

    def split(self, words: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(found, missing) of ``words`` in the table, each in the order given."""
        key = tuple(words)
        got = self._splits.get(key)
        if got is None:
            found, missing = self.table.split(key)
            got = self._splits[key] = (tuple(found), tuple(missing))
        return got

    def rows(self, words: tuple[str, ...]) -> np.ndarray:
        """The rows of ``words`` (all found) in the table."""
        got = self._rows.get(words)
        if got is None:
            got = self._rows[words] = self.table.rows(words)
        return got

    def vectors(self, words: tuple[str, ...], kind: Literal["unit", "raw"],
                rows: np.ndarray | None = None) -> np.ndarray:
        """The unit or raw vectors of ``words`` (all found; ``rows``: their rows, when known),
        shape (len(words), d), read-only."""
        known = self._array_ids.get((kind, id(words)))
        if known is not None and known[0] is words:
            return known[1]
        got = self._arrays.get((kind, words))
        if got is None:
            got = (self.table.unit if kind == "unit" else self.table.raw)[self.rows(words) if rows is None else rows]
            got = freeze(got)  # read-only, and trusted unchanged by the metrics' own caches
            self._arrays[kind, words] = got
        self._array_ids[kind, id(words)] = (words, got)
        return got

    def layout(self, query: Query, aligned: bool, threshold: float) -> _Layout:
        """:func:`_layout` of a query's own words, once per query and alignment for every
        model with these words (each metric's subqueries are Query objects of their own:
        equal queries share it; looked up by the object first, a query hashes its words)."""
        vocabulary = self.vocabulary
        known = vocabulary.layout_ids.get((id(query), aligned, threshold))
        if known is None or known[0] is not query:
            got = vocabulary.layouts.get((query, aligned, threshold))
            if got is None:
                got = vocabulary.layouts[query, aligned, threshold] = _layout(self, query, aligned, threshold, {})
            known = vocabulary.layout_ids[id(query), aligned, threshold] = (query, got)
        return known[1]


def _layout(memo: WordVectors, query: Query, aligned: bool, threshold: float, words_of: WordsOf) -> _Layout:
    def words(s: WordSet) -> Sequence[str]:
        return words_of.get(s, s.words) if words_of else s.words

    sets = (*query.targets, *query.attributes)
    set_words = [words(s) for s in sets]
    missing = list(dict.fromkeys(w for ws in set_words for w in memo.split(ws)[1]))
    reasons: list[str | None] = []
    word_lists: dict[str, list[tuple[str, ...]]] = {"targets": [], "attributes": []}
    n_targets = len(query.targets)
    for role, role_sets, role_words in (("targets", query.targets, set_words[:n_targets]),
                                        ("attributes", query.attributes, set_words[n_targets:])):
        if role == "targets" and aligned:
            reason = unaligned_reason(role_sets)
            if reason:
                reasons.append(reason)
                continue
            columns, lost, total = _aligned_words(memo.table, role_words)
            reasons.append(_loss_reason("the target sets", lost, total, threshold, "tuple"))
            word_lists[role] = [tuple(c) for c in columns]
            continue
        for s, ws in zip(role_sets, role_words):
            found, lost_words = memo.split(ws)
            reasons.append(_loss_reason(f"set {s.name!r}", len(lost_words), len(ws), threshold, "word"))
            word_lists[role].append(found)
    reason = "; ".join(r for r in reasons if r) or None
    n_found = sum(len(w) for lists in word_lists.values() for w in lists)
    rows = {role: [memo.rows(w) for w in lists] for role, lists in word_lists.items()}
    role_words_all = {role: [w for ws in lists for w in ws] for role, lists in word_lists.items()}
    role_rows = {role: np.concatenate(r) if r else np.zeros(0, dtype=np.int64) for role, r in rows.items()}
    return _Layout(word_lists, rows, role_words_all, role_rows, n_found, missing, reason)


def prepare(table: VectorTable, query: Query, spec: MetricSpec, threshold: float,
            words_of: WordsOf | None = None, memo: WordVectors | None = None,
            vectors: Literal["unit", "raw"] | None = None) -> Prepared:
    """Arrays of one subquery after the out-of-vocabulary policy.

    ``words_of`` replaces the words of the sets it names (resampled draws); aligned sets
    must then be given with the same positions drawn. ``memo`` remembers each word list's
    split and vectors in ``table`` across the subqueries of one model (its arrays are
    read-only). ``vectors``: which vectors (default: the spec's; see
    :meth:`~wefe_same.metrics.registry.MetricSpec.inputs`).
    """
    memo = WordVectors(table) if memo is None else memo
    kind = vectors or spec.vectors
    layout = (_layout(memo, query, spec.aligned_targets, threshold, words_of) if words_of
              else memo.layout(query, spec.aligned_targets, threshold))
    arrays = {role: [memo.vectors(w, kind, r) for w, r in zip(lists, layout.rows[role])]
              if layout.reason is None else [] for role, lists in layout.word_lists.items()}
    return Prepared(arrays["targets"], arrays["attributes"], layout.words, layout.words_found,
                    layout.missing, layout.reason, layout.word_rows)


def name_pairs(key: str, names: Sequence[str]) -> str:
    """``signed_0_1`` → ``signed:male-female``: index pairs of target sets by their names."""
    match = _PAIR_KEY.match(key)
    if not match:
        return key
    kind, i, j = match.group(1), int(match.group(2)), int(match.group(3))
    return f"{kind}:{names[i]}-{names[j]}"


def _json(details: Mapping[str, Any]) -> str:
    def clean(v: Any) -> Any:
        v = v.item() if isinstance(v, np.generic) else v
        return None if isinstance(v, float) and math.isnan(v) else v

    return json.dumps({k: clean(v) for k, v in details.items()}, sort_keys=True)


@dataclass
class ModelScores:
    """Everything one model contributed to a run (what the cache stores per model).

    ``word_bias`` holds its labels (model, metric, subquery, word, component) as
    categories (:func:`compact`); the cache stores them as strings (:func:`expand`).

    ``draws`` holds resampled overall aggregates, shape (draws, metrics) in the plan's
    metric order: ``"bootstrap_words"`` (words resampled inside every set) and
    ``"halves"`` (random halves of the neutral words, Schröder et al. 2021, §5.3.1).
    """

    name: str
    description: dict[str, str]
    identity: dict[str, Any] | None
    fingerprint: str
    lookups: pd.DataFrame
    details: pd.DataFrame
    word_bias: pd.DataFrame
    draws: dict[str, np.ndarray] = field(default_factory=dict)


def _random_state(plan: ScoringPlan, spec: MetricSpec, sub: Subquery) -> int | None:
    if not spec.stochastic:
        return None
    key = sub.column if spec.seed_by == "subquery" else sub.query.id.split("|")[1]
    return stream_seed(plan.seed, spec.random_stream or spec.name, key)


@dataclass(frozen=True)
class _SubqueryKeys:
    """What scoring derives from one metric's subqueries alone, the same for every model."""

    columns: list[str]
    seeds: list[int | None]
    names: list[list[str]]  # the target sets' names
    overlaps: list[str | None]  # the query's overlapping sets, as the details' warning


class _PlanKeys:
    """:class:`_SubqueryKeys` of every metric of a plan, made once for all its models (a
    column, a query id and a seed are strings and SeedSequences built anew at each call:
    ~500 subqueries per model). Only the last plan's are kept (:func:`plan_keys`)."""

    def __init__(self, plan: ScoringPlan):
        self.subqueries, self.seed = plan.subqueries, plan.seed
        overlaps: dict[int, tuple[Query, str | None]] = {}  # by id(query): the plan holds the queries
        for _, subs in self.subqueries:
            for sub in subs:
                if id(sub.query) not in overlaps:
                    overlaps[id(sub.query)] = (sub.query, "; ".join(describe_overlap(sub.query)) or None)
        self.by_spec = [_SubqueryKeys([sub.column for sub in subs], [_random_state(plan, spec, sub) for sub in subs],
                                      [[t.name for t in sub.query.targets] for sub in subs],
                                      [overlaps[id(sub.query)][1] for sub in subs])
                        for spec, subs in self.subqueries]


_last_plan_keys: list[_PlanKeys] = []


def plan_keys(plan: ScoringPlan) -> _PlanKeys:
    """The :class:`_PlanKeys` of ``plan`` (the last ones when it has the same subqueries and seed)."""
    last = _last_plan_keys[-1] if _last_plan_keys else None
    if last is not None and last.subqueries is plan.subqueries and last.seed == plan.seed:
        return last
    last = _PlanKeys(plan)
    _last_plan_keys[:] = [last]
    return last


#: Subqueries prepared (and handed to the metric's ``prefit``) at a time: bounds the words
#: held at once, and stays within RNSB's classifier cache (64 attribute pairs).
PREFIT_CHUNK = 32


def _compute_all(table: VectorTable, plan: ScoringPlan, spec: MetricSpec, subqueries: Sequence[Subquery],
                 options: Mapping[str, Any], words_of: WordsOf | None = None,
                 memo: WordVectors | None = None,
                 seeds: Sequence[int | None] | None = None) -> list[tuple[Prepared, MetricResult]]:
    """One metric on many subqueries; the metric's ``prefit`` (RNSB: every classifier in
    one batched solve) sees each chunk of them first. ``seeds``: the subqueries' random
    states, when known."""
    memo = WordVectors(table) if memo is None else memo
    kind, options = spec.inputs(options)
    all_seeds = [_random_state(plan, spec, sub) for sub in subqueries] if seeds is None else seeds
    out = []
    for start in range(0, len(subqueries), PREFIT_CHUNK):
        chunk = subqueries[start:start + PREFIT_CHUNK]
        preps = [prepare(table, sub.query, spec, plan.missing_threshold, words_of, memo, kind)
                 for sub in chunk]
        seeds = all_seeds[start:start + PREFIT_CHUNK]
        if spec.prefit is not None:
            spec.prefit([(p.targets, p.attributes, options, seed) for p, seed in zip(preps, seeds) if not p.reason])
        out += [(p, MetricResult.undefined(p.reason, {}) if p.reason
                 else spec.compute(p.targets, p.attributes, options, seed)) for p, seed in zip(preps, seeds)]
    return out


#: The dtype pandas gives a column built from a list of strings ("str" with pandas 3, object before).
_STR_DTYPE = pd.Series(["x"]).dtype
#: The label columns of the per-word table (held as categories, see :func:`compact`).
WORD_LABELS = ("model", "metric", "subquery", "word", "component")


def _category_column(codes: np.ndarray, labels: Sequence[str],
                     known: list[tuple[np.ndarray, np.ndarray, pd.CategoricalDtype]] | None = None) -> pd.Categorical:
    """``[labels[i] for i in codes]`` as ``astype("category")`` makes it (the labels used,
    sorted), from the codes: no string is built per row. ``known``: the last labels used
    and their dtype, kept there (a zoo's models use the same thousands of words)."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(labels)))
    if known and np.array_equal(known[0][0], used):
        _, remap, dtype = known[0]
    else:
        names = np.array(labels, dtype=object)[used]
        order = np.argsort(names, kind="stable")
        remap = np.zeros(len(labels), dtype=np.int64)
        remap[used[order]] = np.arange(len(used))
        dtype = pd.CategoricalDtype(pd.Index(names[order], dtype=_STR_DTYPE))
        if known is not None:
            known[:] = [(used, remap, dtype)]
    return pd.Categorical.from_codes(remap[codes], dtype=dtype)


class _WordRows:
    """The per-word table of one model, gathered as codes and built once at the end
    (one small DataFrame per subquery and component was a third of a model's scoring;
    strings per row, later turned into categories, a fifth of the rest)."""

    def __init__(self, table: VectorTable, vocabulary: _Vocabulary | None = None):
        self.table = table
        self.vocabulary = vocabulary_of(table) if vocabulary is None else vocabulary
        self.labels: dict[str, dict[str, int]] = {c: {} for c in ("metric", "subquery", "component")}
        self.codes: dict[str, list[int]] = {c: [] for c in ("metric", "subquery", "component")}
        self.lengths: list[int] = []
        self.words: list[np.ndarray] = []
        self.values: list[np.ndarray] = []

    def add(self, metric: str, subquery: str, rows: np.ndarray, component: str, values: np.ndarray) -> None:
        """One value per word: ``rows`` are the words' rows in the table."""
        values = np.asarray(values)
        if len(values) != len(rows):
            raise ValueError(f"metric {metric!r} on {subquery!r}: {len(values)} word values for {len(rows)} words")
        for column, label in (("metric", metric), ("subquery", subquery), ("component", component)):
            self.codes[column].append(self.labels[column].setdefault(label, len(self.labels[column])))
        self.lengths.append(len(rows))
        self.words.append(rows)
        self.values.append(values)

    def frame(self) -> pd.DataFrame:
        """The rows, labels as categories (what :func:`compact` makes of strings)."""
        n = sum(self.lengths)
        if not n:
            return pd.DataFrame(columns=WORD_BIAS_COLUMNS).astype({"value": "float64"})
        lengths = np.array(self.lengths, dtype=np.int64)
        codes = {column: np.repeat(np.array(self.codes[column], dtype=np.int64), lengths)
                 for column in ("metric", "subquery", "component")}
        codes["model"] = np.zeros(n, dtype=np.int64)
        codes["word"] = np.concatenate(self.words)
        labels = {column: list(names) for column, names in self.labels.items()}
        labels["model"], labels["word"] = [self.table.model], list(self.table.words)
        known = {"word": self.vocabulary.word_categories}
        return pd.DataFrame({**{column: _category_column(codes[column], labels[column], known.get(column))
                                for column in WORD_BIAS_COLUMNS[:-1]},
                             "value": np.concatenate(self.values)})


def score_table(table: VectorTable, plan: ScoringPlan, description: Mapping[str, str] | None = None,
                identity: Mapping[str, Any] | None = None, *, on_metric_done: Any = None) -> ModelScores:
    """Every metric on every subquery of one model's table (and its resampled draws)."""
    rows = []
    memo = WordVectors(table)  # each set split and gathered once per model
    word_rows = _WordRows(table, memo.vocabulary)
    keys = plan_keys(plan)
    for (spec, subqueries), sub_keys in zip(keys.subqueries, keys.by_spec):
        options = plan.metric_options.get(spec.name, {})
        computed = _compute_all(table, plan, spec, subqueries, options, memo=memo, seeds=sub_keys.seeds)
        for sub, (prep, result), column, names, overlap in zip(subqueries, computed, sub_keys.columns,
                                                                sub_keys.names, sub_keys.overlaps):
            details = {name_pairs(k, names) if spec.pair_keyed else k: v for k, v in result.details.items()}
            promoted = [details.pop(k, None) if k in spec.promoted_details else None for k in PROMOTED]
            rows.append((table.model, spec.name, sub.query_set, column, result.value,
                         prep.words_found, " ".join(prep.missing), result.reason, overlap, *promoted,
                         _json(details)))
            if spec.word_role and result.word_values:
                words = prep.word_rows[spec.word_role]
                for key, values in result.word_values.items():
                    word_rows.add(spec.name, column, words, name_pairs(key, names) if spec.pair_keyed else key,
                                  values)
        if on_metric_done is not None:
            on_metric_done()
    del memo
    details = pd.DataFrame(rows, columns=DETAIL_COLUMNS).astype(
        {"value": "float64", "words_found": "int64", "p_value": "float64", "n_splits": "Int64"})
    draws = {}
    if plan.bootstrap_words:
        draws["bootstrap_words"] = score_draws(table, plan, resampling.word_draws(plan, plan.bootstrap_words))
    if plan.halves:
        draws["halves"] = score_draws(table, plan, resampling.half_draws(plan, plan.halves))
    return ModelScores(
        name=table.model,
        description=dict(description or {}),
        identity=dict(identity) if identity is not None else None,
        fingerprint=table.fingerprint(),
        lookups=table.lookup_frame(),
        details=details,
        word_bias=word_rows.frame(),
        draws=draws,
    )


def compact(scores: ModelScores | None) -> ModelScores | None:
    """The same scores holding their per-word table's repeated labels as categories.

    A model's per-word rows repeat a few model, metric, subquery and component labels
    over ~10⁵ rows: as categories they take about a tenth of the memory, which keeps a
    many-model run's parent flat. The values, and every CSV written from them, are the same.
    :func:`score_table` makes them so; scores read from the cache hold strings.
    """
    if scores is None or scores.word_bias.empty:
        return scores
    frame = scores.word_bias
    labels = {c: "category" for c in WORD_LABELS
              if c in frame and not isinstance(frame[c].dtype, pd.CategoricalDtype)}
    return replace(scores, word_bias=frame.astype(labels)) if labels else scores


def expand(scores: ModelScores) -> ModelScores:
    """The same scores with their per-word labels as strings (what the cache stores: the
    entry format holds no categories; :func:`compact` undoes it)."""
    frame = scores.word_bias
    labels = {c: _STR_DTYPE for c in WORD_LABELS if c in frame and isinstance(frame[c].dtype, pd.CategoricalDtype)}
    return replace(scores, word_bias=frame.astype(labels)) if labels else scores


def score_draws(table: VectorTable, plan: ScoringPlan, draws: Sequence[Mapping[str | None, WordsOf]]) -> np.ndarray:
    """Overall aggregates of one model per draw: (draws, metrics).

    Each draw maps a metric name (or None: every metric) to the words of every set; the
    permutation tests are skipped (only the values are needed).
    """
    out = np.full((len(draws), len(plan.specs)), np.nan)
    keys = plan_keys(plan)
    for k, spec in enumerate(plan.specs):
        options = {**plan.metric_options.get(spec.name, {})}
        if "permutations" in options:
            options["permutations"] = 0
        subqueries, sub_keys = keys.subqueries[k][1], keys.by_spec[k]
        for b, draw in enumerate(draws):
            words_of = draw.get(spec.name, draw.get(None, {}))
            computed = _compute_all(table, plan, spec, subqueries, options, words_of, seeds=sub_keys.seeds)
            values = {column: result.value for column, (_, result) in zip(sub_keys.columns, computed)}
            frame = pd.DataFrame([values], index=[table.model])
            agg = aggregate(frame, spec, plan.column_sets[spec.name], plan.weights[spec.name],
                            nan_policy=plan.nan_policy)
            out[b, k] = agg["overall"].iloc[0]
    return out


def load_table(task: ModelTaskLike,
               words: Collection[str]) -> tuple[VectorTable, dict[str, str], dict[str, Any] | None]:
    """One lookup pass over a model: its table, description and identity."""
    return read_table(task.source(), words)
