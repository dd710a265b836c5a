"""Property audit: which metrics are magnitude-comparable, unbiased-trustworthy, skew- and
stereotype-sensitive (Schröder et al. 2021, Definitions 5–8), checked on constructed embeddings.

Nothing here is typed in: every cell of the table comes from running the metric on
constructed group configurations and word sets whose ground truth (biased, skewed,
stereotyped; Schröder et al. 2021, Definitions 1–4) is computed from s(w, A_i) = mean_a cos(w, a).
A property fails as soon as one constructed case breaks it; the case is the evidence.

The roles follow each metric's template: a metric that takes one attribute set (SAME,
Direct Bias, RND, ECT, RIPA) gets the protected groups as its target sets and the words
as its attribute set; the others (WEAT, WEAT-ES, MAC, RNSB, gWEAT) get the groups as
attribute sets and the words as target sets, split into contiguous halves (X, Y).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wefe_same.errors import MetricError, bad_parameter
from wefe_same.metrics.registry import MetricSpec, resolve_metrics
from wefe_same.query.sets import AtLeast

PROPERTIES = ("magnitude_comparable", "unbiased_trustworthy", "skew_sensitive", "stereotype_sensitive")
#: A value this close to the no-bias value counts as reporting no bias.
TOL = 1e-9
MIN_DIM = 6


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


@dataclass(frozen=True)
class Groups:
    """A protected-group configuration: one (k, d) array of unit vectors per group."""

    name: str
    sets: tuple[np.ndarray, np.ndarray]

    @property
    def direction(self) -> np.ndarray:
        """g = unit(â_0 − â_1): s(w, A_0) − s(w, A_1) = ‖â_0 − â_1‖ · cos(w, g)."""
        return _unit(self.sets[0].mean(axis=0) - self.sets[1].mean(axis=0))


@dataclass(frozen=True)
class Case:
    """Words W (ordered; WEAT-like metrics split them into halves X, Y) under one group configuration."""

    name: str
    groups: Groups
    words: np.ndarray

    def word_bias(self) -> np.ndarray:
        """s(w, A_0) − s(w, A_1) for every word (Definition 1)."""
        a0, a1 = (G.mean(axis=0) for G in self.groups.sets)
        return _unit_rows(self.words) @ (a0 - a1)

    @property
    def biased(self) -> bool:  # Definition 2
        return bool(np.any(np.abs(self.word_bias()) > TOL))

    @property
    def skewed(self) -> bool:  # Definition 3
        return bool(abs(self.word_bias().mean()) > TOL)

    @property
    def stereotyped(self) -> bool:  # Definition 4
        return bool(np.ptp(self.word_bias()) > TOL)


def _unit_rows(M: np.ndarray) -> np.ndarray:
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def group_configurations(dim: int) -> list[Groups]:
    """Group geometries whose differences matter to some metric (Schröder et al. 2021, §3.4;
    Schröder, Schulz, Hinder & Hammer 2024, §4)."""
    e = np.eye(dim)
    theta = math.pi / 3
    x, r = 1.0, 2.0  # Schröder, Schulz, Hinder & Hammer 2024, Theorem 6: a = (−x, r·x), c = −a, r > 1
    a1, a2 = _unit(-x * e[0] + r * x * e[1]), _unit(-x * e[0] - r * x * e[1])
    return [
        Groups("orthogonal groups", (e[[0]], e[[1]])),
        Groups("groups at 60 degrees", (e[[0]], (math.cos(theta) * e[0] + math.sin(theta) * e[1])[None])),
        Groups("opposite groups (she = -he)", (e[[0]], -e[[0]])),
        Groups("Direct Bias PCA counterexample (Schröder, Schulz, Hinder & Hammer 2024, Thm 6)",
               (np.array([a1, a2]), np.array([-a1, -a2]))),
        Groups("two words per group", (
            _unit_rows(np.array([e[0] + 0.3 * e[3], e[0] - 0.3 * e[3]])),
            _unit_rows(np.array([e[1] + 0.3 * e[4], e[1] - 0.3 * e[4]])),
        )),
    ]


def _free_directions(groups: Groups, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """p, q orthogonal to every group word; m ⟂ g inside the groups' span (None if none)."""
    span = np.vstack(groups.sets)
    basis = np.linalg.svd(span, full_matrices=True)[2]
    rank = int(np.sum(np.linalg.svd(span, compute_uv=False) > 1e-10))
    p, q = basis[rank], basis[rank + 1]
    g = groups.direction
    inside = [v - (v @ g) * g for v in basis[:rank]]
    inside = [v for v in inside if np.linalg.norm(v) > 1e-8]
    return p, q, (_unit(inside[0]) if inside else None)


def cases(groups: Groups, dim: int, rng: np.random.Generator) -> list[Case]:
    """Word sets with known ground truth under ``groups``; 4 words each (X = first 2, Y = last 2)."""
    g = groups.direction
    p, q, m = _free_directions(groups, dim)
    m = p if m is None else m

    def word(t: float, perp: np.ndarray) -> np.ndarray:
        """A unit word with cos(w, g) = t."""
        return t * g + math.sqrt(1 - t * t) * _unit(perp)

    out = [
        Case("unbiased words (all orthogonal to the bias direction)", groups, np.array(
            [_unit(p + 0.5 * m), _unit(q - 0.3 * m), _unit(p + q), _unit(0.2 * p + q + 0.8 * m)])),
        Case("equally biased words (skew, no stereotype)", groups, np.array(
            [word(0.5, p), word(0.5, q), word(0.5, p + q), word(0.5, p - q)])),
        Case("opposite biases that cancel (stereotype, no skew)", groups, np.array(
            [word(0.5, p), word(-0.5, q), word(0.5, q), word(-0.5, p)])),
        Case("X and Y with the same biases (Schröder et al. 2021, Thm 2)", groups, np.array(
            [word(0.3, p), word(0.6, q), word(0.3, q), word(0.6, p)])),
        Case("stereotype aligned with X/Y", groups, np.array(
            [word(0.5, p), word(0.4, q), word(-0.5, q), word(-0.4, p)])),
        Case("random words", groups, _unit_rows(rng.normal(size=(4, dim)))),
    ]
    # Extremal candidates for the comparability check: along ±g, along each direction of the
    # groups' span, split ±g (the WEAT effect size's extreme), and orthogonal words.
    span_basis = np.linalg.svd(np.vstack(groups.sets), full_matrices=False)[2]
    directions = [g, -g, *span_basis[: np.linalg.matrix_rank(np.vstack(groups.sets))]]
    out += [Case(f"all words along direction {i}", groups, np.array([v] * 4)) for i, v in enumerate(directions)]
    out.append(Case("X along +g, Y along -g", groups, np.array([g, g, -g, -g])))
    out.append(Case("X along -g, Y along +g", groups, np.array([-g, -g, g, g])))
    return out


def _arity(arity, default: int) -> int:
    return max(arity.k, default) if isinstance(arity, AtLeast) else arity


def evaluate(spec: MetricSpec, case: Case, random_state: int = 0) -> float:
    """The metric's value on a case, with groups and words placed by its template."""
    groups = list(case.groups.sets)
    if spec.template.attributes == 1:
        return spec.compute(groups, [case.words], random_state=random_state).value
    n_targets = _arity(spec.template.targets, 2)
    targets = np.array_split(case.words, n_targets)
    return spec.compute(list(targets), groups, random_state=random_state).value


def no_bias_value(spec: MetricSpec) -> float:
    return spec.ideal


def _fmt(v: float) -> str:
    return "NaN" if math.isnan(v) else f"{0.0 if abs(v) < TOL else v:.4g}"


def audit_metric(spec: MetricSpec, dim: int, random_state: int = 0) -> dict[str, object]:
    """One row of the audit table: the four properties and the case that broke each."""
    rng = np.random.default_rng(random_state)
    b0 = no_bias_value(spec)
    failures: dict[str, list[tuple[int, str]]] = {p: [] for p in PROPERTIES}

    def fail(prop: str, why: str, rank: int = 0) -> None:
        failures[prop].append((rank, why))

    ranges = []
    for groups in group_configurations(dim):
        values = []
        for case in cases(groups, dim, rng):
            value = evaluate(spec, case, random_state)
            values.append(value)
            says_unbiased = not math.isnan(value) and abs(value - b0) <= TOL
            where = f"{case.name}, {groups.name}: {spec.name} = {_fmt(value)}"
            if case.biased and says_unbiased:
                fail("unbiased_trustworthy", f"biased words score the no-bias value {b0:g} ({where})")
            if not case.biased and not says_unbiased:
                # Second in line: a biased set scoring "no bias" is the more telling evidence.
                fail("unbiased_trustworthy", f"unbiased words do not score {b0:g} ({where})", rank=1)
            if case.skewed and (says_unbiased or math.isnan(value)):
                fail("skew_sensitive", f"skewed words score {_fmt(value)} ({where})")
            if case.stereotyped and (says_unbiased or math.isnan(value)):
                fail("stereotype_sensitive", f"stereotyped words score {_fmt(value)} ({where})")
        finite = [v for v in values if not math.isnan(v)]
        ranges.append((groups.name, min(finite), max(finite)) if finite else (groups.name, math.nan, math.nan))
    lows, highs = np.array([r[1] for r in ranges]), np.array([r[2] for r in ranges])
    scale = max(1.0, float(np.nanmax(np.abs(np.r_[lows, highs]))))
    for extremes, label in ((lows, "minimum"), (highs, "maximum")):
        if np.nanmax(extremes) - np.nanmin(extremes) > 1e-6 * scale:
            i, j = int(np.nanargmin(extremes)), int(np.nanargmax(extremes))
            fail("magnitude_comparable", f"the {label} reached depends on the groups: "
                 f"{_fmt(extremes[i])} with {ranges[i][0]}, {_fmt(extremes[j])} with {ranges[j][0]}")
    row: dict[str, object] = {}
    for prop, found in failures.items():
        row[prop] = not found
        row[f"evidence_{prop}"] = min(found, key=lambda f: f[0])[1] if found else ""
    return row


def audit(metrics: Iterable[str] | None = None, model: str | None = None, dim: int = 300,
          random_state: int = 0) -> pd.DataFrame:
    """Check the properties of Schröder et al. 2021 for every metric on embeddings constructed in ``dim``
    dimensions (the model's dimension when ``model`` is given).

    Returns
    -------
    DataFrame
        Indexed by metric, boolean columns ``magnitude_comparable``,
        ``unbiased_trustworthy``, ``skew_sensitive``, ``stereotype_sensitive`` and for each
        an ``evidence_…`` column naming the constructed case that broke it ("" when none did).
    """
    if model is not None:
        dim = model_dimension(model)
    if not isinstance(dim, int) or dim < MIN_DIM:
        raise MetricError(bad_parameter("dim", "audit", f"an integer >= {MIN_DIM}", dim))
    specs = resolve_metrics(metrics)
    rows = {spec.name: audit_metric(spec, dim, random_state) for spec in specs}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "metric"
    frame.attrs["dim"] = dim
    return frame[list(PROPERTIES) + [f"evidence_{p}" for p in PROPERTIES]]


def model_dimension(model: str) -> int:
    from wefe_same.models.catalog import resolve_model
    from wefe_same.scoring.vectors import build_table

    table = build_table(resolve_model(model), ["the", "a", "of", "and", "man", "woman"])
    if not table.words:
        raise MetricError(f"model {model!r} knows none of the probe words; give --dim instead")
    return table.dim
