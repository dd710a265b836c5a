"""``report.html``: one self-contained page per results folder.

Everything is inline (style, a small script, SVG figures drawn by :mod:`.report_svg`), so the page
opens from disk with no network. In order: the overall ranking with the rank intervals when the run
has them, per-metric rankings (tables that sort and filter), the correlation heatmap (p-values on
hover), the score heatmaps (values on hover, colours by :mod:`.bias_scale`), the most-biased words
per model and subquery, coverage, warnings and the manifest. User names are escaped.

It is written with the folder (:func:`write_report`; a failure is a warning, never a lost
run) and rebuilt from a results folder by ``wefe-same report`` (:func:`rebuild_report`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from html import escape
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from wefe_same.analysis.debias_effect import VERDICT_RULE
from wefe_same.analysis.uneven import cell_note, uneven_metrics
from wefe_same.errors import OutputError, printable
from wefe_same.output.bias_scale import SCORES_LEAD, bias_legend, bias_shading, metric_orders
from wefe_same.output.folder import MANIFEST, OWNER, read_manifest, staging, write_manifest
from wefe_same.output.report_assets import SCRIPT, STYLE
from wefe_same.output.report_coverage import coverage_section
from wefe_same.output.report_data import ReportData, from_folder, from_result, numbers, pvalue_texts
from wefe_same.output.report_lipstick import Cells, lipstick_section
from wefe_same.output.report_svg import DIVERGING, SEQUENTIAL, Scale, fmt, heatmap, value_heatmap
from wefe_same.output.report_terms import CORRELATION_LEAD, MEASUREMENT_LEAD, SCORING_LEAD, glossary
from wefe_same.output.report_trust import chance_marks, trust_section
from wefe_same.output.tables import ResultTables
from wefe_same.output.word_table import TOP_WORDS  # words shown per model and subquery
from wefe_same.versions import package_version

REPORT = "report.html"
MAX_BYTES = 5 * 2**20  # the page must stay small enough to mail and open anywhere
LONG_TEXT = 60  # a cell's text longer than this may break inside a word (a table then fits its page)
NOT_RESULTS = ("{path} is not a wefe-same results folder (no manifest.json of kind 'results'); "
               "give a folder written by `wefe-same rank --out`")
UNREADABLE = "{path}: cannot read the results tables ({error}); rerun `wefe-same rank`"
BAD_FIELD = "{path}: {field!r} is a JSON {got}, not {expected}; rerun `wefe-same rank`"
OUTSIDE = "{path}: 'files' lists {rel!r}, which is not a path inside the results folder; rerun `wefe-same rank`"

#: The manifest fields the report reads, and the JSON shape each must have (a run writes them so).
MANIFEST_SHAPES: dict[str, type] = {
    "files": dict, "settings": dict, "versions": dict, "metrics": list, "models": list, "queries": list,
    "warnings": list, "skipped_models": list, "wefe_same": str, "python": str, "created": str,
}
_JSON_NAMES: dict[type, str] = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
                                float: "number", type(None): "null"}


def check_manifest_shape(manifest: Mapping[str, Any], path: Path) -> None:
    """An :class:`OutputError` naming the first field of ``manifest`` (read from ``path``)
    whose JSON shape is not the one a run writes: a hand-edited ``"settings": []``."""
    for field, kind in MANIFEST_SHAPES.items():
        if field in manifest and not isinstance(manifest[field], kind):
            got = _JSON_NAMES.get(type(manifest[field]), type(manifest[field]).__name__)
            expected = {"object": "an object", "array": "an array", "string": "a string"}[_JSON_NAMES[kind]]
            raise OutputError(BAD_FIELD.format(path=path, field=field, got=got, expected=expected))
    for rel in manifest.get("files", {}):  # each is linked into the rebuilt folder: never a path outside it
        parts = PurePosixPath(rel).parts
        if not rel or "\0" in rel or "\\" in rel or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise OutputError(OUTSIDE.format(path=path, rel=rel[:80]))

#: A word value with |x| below this share of the largest |value| of the run is rounding
#: noise (a projected-out direction leaves 1e-16, not 0): it counts as 0 and is not listed.
NOISE = 1e-12

SECTIONS = (("overall", "Overall ranking"), ("rankings", "Per-metric rankings"), ("correlations", "Correlations"),
            ("trust", "Can these metrics be trusted on these models?"),
            ("debias", "Debiasing effect"), ("measurement", "Measurement sensitivity"), ("scores", "Score heatmaps"),
            ("words", "Most-biased words"), ("coverage", "Coverage"), ("warnings", "Warnings"),
            ("manifest", "Manifest"))


# -- small pieces ------------------------------------------------------------------------------


def _td(text: str, sort: float | str | None = None, title: str | None = None, numeric: bool = False) -> str:
    attrs = ""
    if sort is not None:
        attrs += f' data-v="{escape(_sort_key(sort))}"'
    if title:
        attrs += f' title="{escape(title)}"'
    if numeric:
        attrs += ' class="n"'
    elif len(text) > LONG_TEXT:  # hashes and paths may break anywhere; names only between words
        attrs += ' class="long"'
    return f"<td{attrs}>{escape(text)}</td>"


def _sort_key(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return repr(float(value)) if np.isfinite(value) else ""


def _num(value: float, digits: int = 4) -> str:
    return _td(fmt(value, digits), sort=value, numeric=True)


def _rank(value: float, title: str | None = None, mark: str = "") -> str:
    text = str(int(value)) if np.isfinite(value) else "–"
    return _td(text + mark, sort=value, title=title, numeric=True)


def _table(headers: list[str], rows: list[list[str]], *, titles: Mapping[str, str] | None = None,
           label: str | None = None) -> str:
    """A table of pre-rendered ``<td>`` rows that sorts and filters: every header is a
    button (click or Enter/Space sorts by it, numbers as numbers, a second press reverses)
    and a search box above keeps the rows that contain every word typed. The controls are
    in the page itself (so a reader without script still sees them and the tests can count
    them); the inline script wires them. ``label`` names the table for screen readers."""
    titles = titles or {}
    name = label or headers[0]
    head = "".join((f'<th title="{escape(titles[h])}">' if h in titles else "<th>")
                   + f'<button type="button" class="sort">{escape(h)}</button></th>' for h in headers)
    body = "".join(f"<tr>{''.join(r)}</tr>" for r in rows)
    box = (f'<div class="filter"><input type="search" placeholder="Filter rows" '
           f'aria-label="Filter the rows of the table: {escape(name)}"> <output></output></div>')
    # A long table scrolls inside its box (80 % of the window) under a header that stays put.
    return (f'{box}<div class="scroll rows"><table class="sortable" aria-label="{escape(name)}"><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table></div>")


def _note(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>'


def _fig(svg: str) -> str:
    return f'<div class="scroll">{svg}</div>'


def _metric_orders(data: ReportData) -> dict[str, str]:
    return {m["name"]: f"{m['name']}: template {m.get('template', '?')}, order {m.get('order', '?')} "
                       "(see Terms at the top)"
            for m in data.manifest.get("metrics", []) if isinstance(m, dict) and "name" in m}


UNEVEN_MARK = "†"
UNEVEN_NOTE = (f"{UNEVEN_MARK}: the model is defined on fewer (or other) subqueries of the metric than another model "
               "of the run; hover the cell, and see Warnings.")


def _uneven_cells(data: ReportData) -> dict[tuple[str, str], str]:
    """(model, metric) → hover text, for the models that lack a subquery another model of
    the metric defines (:mod:`wefe_same.analysis.uneven`)."""
    policy = str(data.manifest.get("settings", {}).get("nan_policy", "skip"))
    return {(model, u.metric): cell_note(u, model, policy)
            for u in uneven_metrics(data.scores, data.metric_names) for model in u.short}


def _overall_order(data: ReportData) -> list[str]:
    """The models, least biased first: by the overall (mean) rank, else as the run listed them."""
    agg = data.aggregation
    if agg is not None and "mean_rank" in agg.columns:
        ranks = dict(zip(agg["model"], pd.to_numeric(agg["mean_rank"], errors="coerce")))
        return sorted(data.models, key=lambda m: (not np.isfinite(ranks.get(m, np.nan)), ranks.get(m, np.inf)))
    return list(data.models)


# -- the sections ------------------------------------------------------------------------------


def _overall(data: ReportData) -> str:
    parts = []
    agg, metrics = data.aggregation, data.metric_names
    if agg is not None and {"mean_rank", "mean_score"} <= set(agg.columns):
        cols = [c for c in ("mean_rank", "mean_score", "borda_rank", "median_rank", "metrics_used")
                if c in agg.columns]
        values = {m: v for m, (_, v) in zip(agg["model"], numbers(agg, cols).iterrows())}
        rows = [[_td(model, sort=model)] + [_rank(values[model][c]) if c.endswith("_rank") or c == "metrics_used"
                                            else _num(values[model][c]) for c in cols]
                for model in _overall_order(data) if model in values]
        names = {"mean_rank": "overall rank", "mean_score": "mean normalised aggregate", "borda_rank": "Borda rank",
                 "median_rank": "median rank", "metrics_used": "metrics used"}
        parts.append(_note("Overall rank: the mean over metrics of each model's aggregate rescaled to [0, 1] "
                           "(0 = least biased of the run); the Borda count (sum of ranks, Badilla et al. 2020) "
                           "and the median rank beside it. 1 = least biased."))
        parts.append(_table(["model"] + [names[c] for c in cols], rows, label="Overall ranking"))
    elif metrics:
        parts.append(_note(f"One metric: the overall ranking is the {metrics[0]} ranking below."))
    parts.append(_rank_matrix(data))
    return "".join(parts)


def _rank_matrix(data: ReportData) -> str:
    """Models (least biased first) × metrics: the rank, with its bootstrap interval when the run has one."""
    metrics, models = data.metric_names, _overall_order(data)
    if not metrics or not models:
        return ""
    ranks = data.rankings.reindex(index=models, columns=metrics).to_numpy(float)
    texts = [["–" if not np.isfinite(r) else str(int(r)) for r in row] for row in ranks]
    tips = [[f"{m} · {metric}: rank {t}" for metric, t in zip(metrics, row)] for m, row in zip(models, texts)]
    uneven, chance = _uneven_cells(data), chance_marks(data.chance)
    for i, model in enumerate(models):
        for j, metric in enumerate(metrics):
            if (model, metric) in uneven:
                texts[i][j] += UNEVEN_MARK
                tips[i][j] += f"; {uneven[(model, metric)]}"
            if (model, metric) in chance:  # ≈: this rank rests on a value within chance
                texts[i][j] += chance[model, metric][0]
                tips[i][j] += f"; {chance[model, metric][1]}"
    iv = data.rank_intervals
    if iv is not None:
        cols = ["rank_ci_low", "rank_ci_high"] + (["share_same_rank"] if "share_same_rank" in iv.columns else [])
        found = {(m, k): v for m, k, (_, v) in zip(iv["model"], iv["metric"], numbers(iv, cols).iterrows())}
        for i, model in enumerate(models):
            for j, metric in enumerate(metrics):
                v = found.get((model, metric))
                if v is None or not np.isfinite(ranks[i, j]) or not np.isfinite(v["rank_ci_low"]):
                    continue
                lo, hi = int(v["rank_ci_low"]), int(v["rank_ci_high"])
                texts[i][j] = f"{texts[i][j]} ({lo}–{hi})" if lo != hi else texts[i][j]
                share = f"; the same rank in {v['share_same_rank']:.0%} of the draws" if "share_same_rank" in v else ""
                tips[i][j] += f", 95 % bootstrap interval {lo}–{hi}{share}"
        note = ("Rank per metric (1 = least biased) with its 95 % bootstrap interval in brackets where it is not "
                "a single rank; models ordered by the overall rank. Hover a cell for details.")
    else:
        note = ("Rank per metric (1 = least biased); models ordered by the overall rank. This run has no "
                "intervals: rank with --bootstrap B to get them.")
    scale = Scale(1.0, max(float(len(models)), 2.0), SEQUENTIAL)
    svg = heatmap(ranks, models, metrics, tips, label="Ranks per metric", grad_id="grad-ranks", scale=scale,
                  texts=texts, legend="rank (darker = more biased)")
    return _note(note + (" " + UNEVEN_NOTE if uneven else "")) + _fig(svg)


def _rankings(data: ReportData) -> str:
    order = _overall_order(data)
    cols = list(data.rankings.columns)
    overall = dict(zip(order, range(1, len(order) + 1))) if data.aggregation is not None else {}
    ci = _value_intervals(data)
    uneven = _uneven_cells(data)
    rows = []
    for model in order:
        r = data.rankings.loc[model]
        cells = [_td(model, sort=model)]
        if overall:
            cells.append(_rank(float(overall[model])))
        for c in cols:
            value = data.aggregates.at[model, c] if c in data.aggregates.columns else np.nan
            note = f"; {uneven[(model, c)]}" if (model, c) in uneven else ""
            cells.append(_rank(r[c], title=f"aggregate {fmt(value, 4)}{ci.get((model, c), '')}{note}",
                               mark=UNEVEN_MARK if note else ""))
        rows.append(cells)
    titles = _metric_orders(data)
    head = ["model"] + (["overall"] if overall else []) + cols
    parts = [_note("Rank of every model under each metric (1 = least biased; click a header to sort, hover a "
                   "rank for the aggregate value)." + (" " + UNEVEN_NOTE if uneven else "")),
             _table(head, rows, titles=titles, label="Per-metric rankings")]
    value_rows, chance = [], chance_marks(data.chance)
    for model in order:
        cells = [_td(model, sort=model)]
        for c in cols:
            value = data.aggregates.at[model, c] if c in data.aggregates.columns else np.nan
            mark, against = chance.get((model, c), ("", None))
            text = fmt(value, 4) + ci.get((model, c), "") + (UNEVEN_MARK if (model, c) in uneven else "") + mark
            cells.append(_td(text, sort=value, title="; ".join(filter(None, [uneven.get((model, c)), against])),
                             numeric=True))
        value_rows.append(cells)
    parts.append("<h3>Aggregates</h3>")
    parts.append(_note("Each metric's aggregate over its subqueries (the value it ranks by)"
                       + (", with the 95 % bootstrap interval." if ci else ".")
                       + (" ≈ within chance, ▲ more biased, ▼ less biased than chance (see the trust section)."
                          if chance else "")))
    parts.append(_table(["model", *cols], value_rows, titles=titles, label="Aggregates"))
    return "".join(parts)


def _value_intervals(data: ReportData) -> dict[tuple[str, str], str]:
    ci = data.aggregates_ci
    if ci is None or not {"model", "metric", "ci_low", "ci_high"} <= set(ci.columns):
        return {}
    v = numbers(ci, ["ci_low", "ci_high"])
    return {(str(m), str(k)): f" [{fmt(lo, 3)}, {fmt(hi, 3)}]"
            for m, k, lo, hi in zip(ci["model"], ci["metric"], v["ci_low"], v["ci_high"]) if np.isfinite(lo)}


def _correlations(data: ReportData) -> str:
    rho, p = data.correlations, data.correlation_pvalues.reindex(index=data.correlations.index,
                                                                  columns=data.correlations.columns)
    if rho.empty:
        return _note("No correlations: the run ranked fewer than two columns.")
    kind = str(data.manifest.get("settings", {}).get("correlation", "rank")).capitalize()
    ci: dict[tuple[str, str], str] = {}
    if data.correlations_ci is not None and {"metric_a", "metric_b", "ci_low", "ci_high"} <= set(
            data.correlations_ci.columns):
        t = data.correlations_ci
        v = numbers(t, ["ci_low", "ci_high"])
        for a, b, lo, hi in zip(t["metric_a"], t["metric_b"], v["ci_low"], v["ci_high"]):
            ci[(a, b)] = ci[(b, a)] = f"; 95 % bootstrap interval [{fmt(lo, 2)}, {fmt(hi, 2)}]"
    names = list(rho.index)
    values = rho.to_numpy(float)
    tested = pvalue_texts(data.correlation_tests)
    tips = [[f"{a} × {b}: {kind} {fmt(values[i, j], 3)}, {tested.get((a, b), f'p = {fmt(p.iat[i, j], 3)}')}"
             f"{ci.get((a, b), '')}" for j, b in enumerate(rho.columns)] for i, a in enumerate(names)]
    texts = [["" if not np.isfinite(x) else f"{x:.2f}" for x in row] for row in values]
    svg = heatmap(values, names, list(rho.columns), tips, label=f"{kind} correlation between rankings",
                  grad_id="grad-corr", scale=Scale(-1.0, 1.0, DIVERGING), texts=texts,
                  legend=f"{kind} correlation")
    return _note(CORRELATION_LEAD.format(kind=kind)) + _fig(svg)


def _scores(data: ReportData) -> str:
    if not data.scores:
        return _note("No score tables in this run.")
    parts, orders = [_note(SCORES_LEAD)], metric_orders(data.manifest)
    for k, (metric, matrix) in enumerate(data.scores.items()):
        models = [m for m in _overall_order(data) if m in matrix.index] or list(matrix.index)
        m = matrix.reindex(models)
        values = m.to_numpy(float)
        order, ideal = orders.get(metric, ("abs", 0.0))
        distance, scale = bias_shading(values, order, ideal)
        svg = value_heatmap(values, models, [str(c) for c in m.columns], metric, label=f"{metric} scores",
                            grad_id=f"grad-s{k}", legend=bias_legend(metric, order, ideal), shade=distance, scale=scale)
        order = _metric_orders(data).get(metric, metric)
        parts.append(f"<details open><summary><h3 style=\"display:inline\">{escape(metric)}</h3> "
                     f"<small>{escape(order)}</small></summary>{_fig(svg)}</details>")
    return "".join(parts)


def _debias(data: ReportData) -> str:
    """Per debiased variant: each metric's aggregate before and after, and its verdict."""
    effect = data.debias_effect
    if effect is None or effect.empty:
        return _note("The run holds no model beside a debiased variant of it.")
    has_ci = {"diff_low", "diff_high"} <= set(effect.columns)
    parts = [_note("Each debiased variant beside its base: the overall aggregates (bias scale) of every metric, "
                   "their difference and the rank change (negative = ranked less biased). 'reduced' means the "
                   f"metric finds less bias by its own order; {VERDICT_RULE['interval' if has_ci else 'tolerance']}. "
                   "The headline counts only the verdicts that clear it.")]
    headers = ["metric", "base", "debiased", "difference", *(["interval"] if has_ci else []),
               *(["tolerance"] if "tolerance" in effect.columns and not has_ci else []), "rank change", "effect"]
    for (base, variant), group in effect.groupby(["base", "variant"], sort=False):
        counts = group["effect"].value_counts()
        rows = []
        for r in group.itertuples():
            cells = [_td(str(r.metric)), _num(float(r.base_score)), _num(float(r.debiased_score)),
                     _num(float(r.difference))]
            cells += ([_td(f"[{fmt(float(r.diff_low), 3)}, {fmt(float(r.diff_high), 3)}]")] if has_ci else
                      [_td(f"±{float(r.tolerance):g}")] if "tolerance" in effect.columns else [])
            change = float(r.rank_change) if pd.notna(r.rank_change) else float("nan")
            cells += [_td(f"{change:+.0f}" if np.isfinite(change) else "–", sort=change, numeric=True),
                      _td(str(r.effect))]
            rows.append(cells)
        n = {k: int(counts.get(k, 0)) for k in ("reduced", "increased", "no change", "undefined")}
        summary = (f"{variant} vs {base}: {n['reduced']} of {len(group)} metrics say reduced, {n['increased']} "
                   f"increased, {n['no change']} no change" + (f", {n['undefined']} undefined" * bool(n["undefined"])))
        parts.append(f"<h3>{escape(summary)}</h3>{_table(headers, rows, label=summary)}")
    return "".join(parts) + lipstick_section(data.debias_lipstick, Cells(_table, _td, _num, _note))


def _words(data: ReportData) -> str:
    summary, chosen = data.words, data.word_metric
    if summary is None or chosen is None or summary.top.empty:
        return _note("No word-level values in this run (the word table is absent or has no values).")
    metric, component = chosen
    # The most-biased words were picked per model as its scores came in (WordSummary); the
    # rows are grouped here as plain lists, in their order (a DataFrame per subquery cost
    # ~0.35 s of a 40-model report).
    top: dict[tuple[Any, Any], list[tuple[Any, Any]]] = {}
    subqueries: dict[str, list[str]] = {}
    t = summary.top
    for m, sq, w, v in zip(t["model"].tolist(), t["subquery"].tolist(), t["word"].tolist(), t["value"].tolist()):
        if (m, sq) not in top:
            top[(m, sq)] = []
            subqueries.setdefault(m, []).append(sq)
        top[(m, sq)].append((w, v))
    overall: dict[Any, list[tuple[Any, Any]]] = {}
    means = summary.means
    for m, w, size in zip(means["model"].tolist(), means["word"].tolist(), means["size"].tolist()):
        overall.setdefault(m, []).append((w, size))
    floor = NOISE * _largest(t["value"], means["size"])
    parts = [_note(f"{metric} {component} per word: the {TOP_WORDS} words with the largest |value| in each "
                   "subquery (signed value beside each word), and over all subqueries (mean |value|). "
                   f"Values below {NOISE:g} of the largest |value| of the run ({fmt(floor, 2)}) are rounding "
                   "noise: they count as 0 and are not listed.")]
    for n, model in enumerate(_overall_order(data)):
        if model not in subqueries:
            parts.append(f"<details><summary>{escape(model)}: no values</summary></details>")
            continue
        rows = [[_td("all subqueries (mean |value|)"), f"<td>{_chips(overall[model], floor)}</td>"]]
        for sq in subqueries[model]:
            rows.append([_td(str(sq)), f"<td>{_chips(top[(model, sq)], floor)}</td>"])
        opened = " open" if n == 0 else ""
        table = _table(["subquery", "most-biased words"], rows, label=f"Most-biased words: {model}")
        parts.append(f"<details{opened}><summary>{escape(model)}</summary>{table}</details>")
    return "".join(parts)


def _largest(*columns: pd.Series) -> float:
    sizes = [np.abs(pd.to_numeric(c, errors="coerce").to_numpy(float)) for c in columns]
    finite = np.concatenate([v[np.isfinite(v)] for v in sizes]) if sizes else np.zeros(0)
    return float(finite.max()) if finite.size else 0.0


def _chips(pairs: Any, floor: float = 0.0) -> str:
    """The words with their values; those at rounding noise (|value| < ``floor``) are
    left out (they are 0), and a subquery left with none says so."""
    kept = [(w, float(v)) for w, v in pairs if not abs(float(v)) < floor or not np.isfinite(float(v))]
    if not kept and pairs:
        return '<span class="zero">every value 0 (rounding noise)</span>'
    return "".join(f'<span class="w">{escape(str(w))} <small>{escape(fmt(v, 3))}</small></span>'
                   for w, v in kept)


def _trust(data: ReportData) -> str:
    return trust_section(data.agreement, data.consensus, data.redundant_metrics, Cells(_table, _td, _num, _note), _rank,
                         n_metrics=len(data.metric_names), mtmm_summary=data.mtmm_summary, mtmm_pairs=data.mtmm,
                         chance=data.chance, models=_overall_order(data), metrics=list(data.metric_names),
                         reliability=data.reliability)


def _coverage(data: ReportData) -> str:
    return coverage_section(data.lookups, _overall_order(data), Cells(_table, _td, _num, _note), _rank)


def _measurement(data: ReportData) -> str:
    """``--vary``, several ``--likelihood-scoring``: Spearman's rho between the rankings under two settings."""
    table = data.measurement
    if table is None or not len(table):
        return _note("Not computed: run with --vary (e.g. --vary pooling=mean,cls layer=-1,-4:-1).")
    def count(value: Any) -> str:
        return _td(str(int(value)), sort=float(value), numeric=True)

    rows = [[_td(str(r.metric)), _td(str(r.setting_a)), _td(str(r.setting_b)), count(r.models),
             _num(float(r.spearman), 2), count(r.models_changing_rank), count(r.max_rank_shift)]
            for r in table.itertuples()]
    scoring = table["setting_a"].astype(str).str.startswith("scoring=")
    lead = (_note(MEASUREMENT_LEAD) if (~scoring).any() else "") + (_note(SCORING_LEAD) if scoring.any() else "")
    return lead + _table(["metric", "setting A", "setting B", "models", "rho", "models changing rank",
                          "largest shift"], rows, label="Measurement sensitivity")


def _warnings(data: ReportData) -> str:
    said = [str(w) for w in data.manifest.get("warnings", [])]
    skipped = [m for m in data.manifest.get("skipped_models", []) if isinstance(m, dict)]
    table = ("<h3>Skipped models</h3>" + _note("Models left out of this run because they cannot be used "
                                                "(skip_unloadable).")
             + _table(["model spec", "reason"], [[_td(str(m.get("spec"))), _td(str(m.get("reason")))]
                                                  for m in skipped], label="Skipped models")) if skipped else ""
    if not said:
        return _note("None.") + table
    return "<ul>" + "".join(f"<li>{escape(w)}</li>" for w in said) + "</ul>" + table


def _kv(mapping: Mapping[str, Any], label: str) -> str:
    rows = [[_td(str(k)), _td(v if isinstance(v, str) else json.dumps(v, default=str))] for k, v in mapping.items()]
    return _table(["name", "value"], rows, label=label)


def _manifest(data: ReportData) -> str:
    man = _shown_manifest(data.manifest)
    parts = ["<h3>Versions</h3>", _kv({"wefe_same": man["wefe_same"], "python": man.get("python", "?"),
                                       **man.get("versions", {})}, "Versions")]
    models = [m for m in man.get("models", []) if isinstance(m, dict)]
    if models:
        main = ["name", "kind", "dim", "words_found", "words_requested"]
        rows = [[_td(str(m.get(k, "")), numeric=k != "name" and k != "kind") for k in main]
                + [_td(str(m.get("fingerprint_sha256", ""))[:12], title=str(m.get("fingerprint_sha256", "")))]
                + [_td("; ".join(f"{k}={v}" for k, v in sorted(m.items())
                                 if k not in main and k != "fingerprint_sha256"))] for m in models]
        parts += ["<h3>Models</h3>", _note("Each model's identity (hover the fingerprint for all of it)."),
                  _table([*main, "fingerprint", "identity and settings"], rows, label="Models")]
    metrics = [m for m in man.get("metrics", []) if isinstance(m, dict)]
    if metrics:
        rows = [[_td(str(m.get("name"))), _td(str(m.get("template", ""))), _td(str(m.get("order", ""))),
                 _td(", ".join(f"{k}={v}" for k, v in dict(m.get("options", {})).items()))] for m in metrics]
        parts += ["<h3>Metrics</h3>", _table(["metric", "template", "order", "options"], rows, label="Metrics")]
    settings = {"seed": man.get("seed"), **man.get("settings", {})}
    parts += ["<h3>Options</h3>", _kv(settings, "Options")]
    queries = [q for q in man.get("queries", []) if isinstance(q, dict)]
    if queries:
        keys = list(dict.fromkeys(k for q in queries for k in q))
        rows = [[_td(str(q.get(k, ""))) for k in keys] for q in queries]
        parts += ["<h3>Query sets</h3>", _table(keys, rows, label="Query sets")]
    text = json.dumps(man, indent=2, sort_keys=True, default=str)
    parts.append(f"<details><summary>manifest.json (without the file inventory)</summary><pre>{escape(text)}</pre>"
                 "</details>")
    return "".join(parts)


def _shown_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest as the report shows it: the same whether read back or about to be written."""
    shown = {k: v for k, v in manifest.items() if k not in ("files", "kind")}
    shown["wefe_same"] = manifest.get("wefe_same") or package_version("wefe_same") or "unknown"
    return dict(sorted(shown.items()))


# -- the page ----------------------------------------------------------------------------------


def build_report(data: ReportData) -> str:
    """The page as a string."""
    man = _shown_manifest(data.manifest)
    created = str(man.get("created", ""))
    queries = ", ".join(str(q.get("name")) for q in man.get("queries", []) if isinstance(q, dict))
    lead = (f"{len(data.models)} models ranked with {len(data.metric_names)} metrics"
            + (f" on the query sets {queries}" if queries else "") + (f"; run {created}" if created else "")
            + ". Rank 1 = least biased.")
    builders = {"overall": _overall, "rankings": _rankings, "correlations": _correlations, "debias": _debias,
                "trust": _trust,
                "measurement": _measurement, "scores": _scores,
                "words": _words, "coverage": _coverage, "warnings": _warnings, "manifest": _manifest}
    # Debiasing only with a base and its variant, measurement only with --vary: others as they were.
    sections = [(k, t) for k, t in SECTIONS
                if (k != "debias" or data.debias_effect is not None)
                and (k != "measurement" or data.measurement is not None)]
    nav = "".join(f'<a href="#{key}">{escape(title)}</a>' for key, title in sections)
    terms = glossary([m for m in man.get("metrics", []) if isinstance(m, dict)])
    body = "".join(f'<section id="{key}"><h2>{escape(title)}</h2>{builders[key](data)}</section>'
                   for key, title in sections)
    # printable: a path from a non-UTF-8 file name (lone surrogates) cannot be written as UTF-8
    return printable("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>wefe-same results</title><style>{STYLE}</style></head><body>"
            f"<h1>wefe-same results</h1>{_note(lead)}<nav>{nav}</nav>{terms}{body}"
            f"<script>{SCRIPT}</script></body></html>\n")


def write_report(result: ResultTables, folder: Path, manifest: Mapping[str, Any]) -> list[str]:
    """Write ``report.html`` into ``folder`` (the staged results folder) from ``result``;
    returns warnings (one line each). Never raises for a report that cannot be built: the
    run's tables come first."""
    try:
        page = build_report(from_result(result, manifest))
    except Exception as err:  # a report is never worth a lost run
        return [f"{REPORT}: could not be built ({type(err).__name__}: {err}); left out"]
    # Outside the try: a full disk or a file size limit fails the run instead of leaving
    # a folder without its report behind a warning.
    (folder / REPORT).write_text(page, encoding="utf-8")
    return _size_warning(len(page.encode("utf-8")))


def _size_warning(size: int) -> list[str]:
    if size <= MAX_BYTES:
        return []
    return [f"{REPORT} is {size / 2**20:.1f} MB, more than {MAX_BYTES / 2**20:.0f} MB; it may open slowly"]


def rebuild_report(path: str | os.PathLike[str]) -> tuple[Path, list[str]]:
    """Rebuild ``report.html`` of a results folder from its tables and manifest.

    The folder is rewritten under the folder contract (:func:`~.folder.staging`): its files
    are linked (or copied) into a staged sibling with the new page and a manifest whose
    inventory lists it, and the sibling is swapped into place; a folder that is not a
    wefe-same results folder, or that holds files it did not write, is refused.

    Returns
    -------
    (Path, list of str)
        The page's path and warnings.

    Raises
    ------
    OutputError
        One line naming the folder.
    """
    folder = Path(os.fspath(path)).expanduser()
    manifest = read_manifest(folder) if folder.is_dir() else None
    if manifest is None or manifest.get("kind", "results") != "results" or not isinstance(manifest.get("files"), dict):
        raise OutputError(NOT_RESULTS.format(path=folder))
    check_manifest_shape(manifest, folder / MANIFEST)
    try:
        page = build_report(from_folder(folder, manifest))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:  # a table or entry of another shape
        raise OutputError(UNREADABLE.format(path=folder, error=f"{type(err).__name__}: {err}")) from None
    kept = {k: v for k, v in manifest.items() if k not in ("files", "kind")}
    try:
        with staging(folder) as tmp:
            for rel in manifest["files"]:
                if rel not in (OWNER, REPORT, MANIFEST):
                    _link_or_copy(folder / rel, tmp / rel)
            (tmp / REPORT).write_text(page, encoding="utf-8")
            write_manifest(tmp, kept)
    except OSError as err:  # e.g. a file of the inventory removed since: the folder is left as it was
        raise OutputError(UNREADABLE.format(path=folder, error=f"{type(err).__name__}: {err}")) from None
    return folder.resolve() / REPORT, _size_warning(len(page.encode("utf-8")))


def _link_or_copy(src: Path, dst: Path) -> None:
    """A hard link (instant, no space) where the file system allows it, else a copy."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
