"""The report's section "Can these metrics be trusted on these models?": how far all the
metrics agree (``agreement.csv``: Kendall's W with Friedman's test), the consensus ranking
with each model's spread across metrics (``consensus.csv``) and the metric columns that
say the same thing in this run (``redundant_metrics.csv``).

The page's table helpers live in :mod:`wefe_same.output.report_html`, which imports this
module; they are passed in (``cells``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from wefe_same.analysis.agreement import alike_groups
from wefe_same.output.report_lipstick import Cells
from wefe_same.output.report_svg import DIVERGING, Scale, fmt, heatmap

#: Schmidt (1997)'s anchors for Kendall's W; a value reads as the nearest one.
W_ANCHORS = ((0.1, "very weak"), (0.3, "weak"), (0.5, "moderate"), (0.7, "strong"), (0.9, "unusually strong"))

CONSENSUS_NOTE = ("Per model: the consensus rank (by the mean of its ranks over the metrics that rank every model), "
                  "the lowest and highest rank a metric gives it and their interquartile range, and how far its "
                  "consensus rank moves when one metric is left out (the metric that moves it most). A model whose "
                  "ranks span the whole range is ranked by the choice of metric, not by its bias.")


#: The mark after an aggregate by where it falls against chance (``chance.csv``'s reading).
CHANCE_MARKS = {"within chance": " ≈", "more biased than chance": " ▲", "less biased than chance": " ▼"}
CHANCE_NOTE = ("Each aggregate against what its metric gives on the same model when the query carries no "
               "association ({null}: {how}; {draws} seeded draws): ≈ within the central 95 % of those draws, "
               "▲ more biased than chance, ▼ less biased; hover a value for the band and the share of draws at "
               "least as biased (p). A value within chance does not rank the model by its bias.")
CHANCE_HOW = {"permutation": "the words of each role dealt at random across its sets",
              "random": "random directions of the vectors' lengths"}


def chance_marks(chance: pd.DataFrame | None, null: str | None = None) -> dict[tuple[str, str], tuple[str, str]]:
    """(model, metric) → (mark, hover text) of one null's rows of ``chance.csv`` (default:
    its first null); empty without the table."""
    if chance is None or chance.empty:
        return {}
    rows = chance[chance["null"] == (null or chance["null"].iloc[0])]
    return {(str(r.model), str(r.metric)): (
        CHANCE_MARKS.get(str(r.reading), ""),
        f"{r.reading}: {r.null} band [{fmt(_float(r.low), 3)}, {fmt(_float(r.high), 3)}] over {int(r.draws)} draws, "
        f"p = {fmt(_float(r.p_chance), 3)}") for r in rows.itertuples() if isinstance(r.reading, str) and r.reading}


def chance_tables(chance: pd.DataFrame | None, cells: Cells, models: list[str], metrics: list[str]) -> list[str]:
    """A note and a table of marked aggregates per null of ``chance.csv``; none without it."""
    if chance is None or chance.empty:
        return []
    parts = []
    for null in dict.fromkeys(chance["null"]):
        rows = chance[chance["null"] == null]
        marks, values = chance_marks(chance, null), rows.set_index(["model", "metric"])["value"]
        shown = [m for m in metrics if m in set(rows.loc[rows["draws"] > 0, "metric"])]
        reasons = rows.loc[rows["draws"] == 0].drop_duplicates("metric")
        left = "; ".join(f"{r.metric}: {r.reason}" for r in reasons.itertuples() if isinstance(r.reason, str))
        table = [[cells.text(model, sort=model)] + [
            cells.text(fmt(_float(values.get((model, m))), 3) + marks.get((model, m), ("", ""))[0],
                       sort=_float(values.get((model, m))), title=marks.get((model, m), ("", ""))[1], numeric=True)
            for m in shown] for model in models]
        note = CHANCE_NOTE.format(null=null, how=CHANCE_HOW.get(str(null), str(null)), draws=int(rows["draws"].max()))
        note += f" Without a band: {left}." if left else ""
        parts += [cells.note(note), cells.table(["model", *shown], table, label=f"Against chance ({null})")]
    return parts


RELIABILITY_NOTE = ("Reliability by the definitions of Du, Fang & Nguyen (2021): Cronbach's alpha of each "
                    "measure's word-level scores over the base pairs (internal consistency), ICC(3,1) of the "
                    "measures as raters on z-scores (inter-rater consistency), ICC(2,1) of a family's seeds as "
                    "raters (test-retest: of the word-level scores, of each metric's subquery scores and of its "
                    "query-set aggregates) and the Spearman–Brown corrected agreement of the rankings on two "
                    "random halves of every set (split-half), each with its 95 % interval; read by Koo & Li "
                    "(2016) for an ICC (0.5 poor, 0.75 moderate, 0.9 good) and George & Mallery (2003) for alpha "
                    "and split-half. A metric fit to rank these models is reliable on them.")


def reliability_tables(table: pd.DataFrame | None, cells: Cells) -> list[str]:
    """A note and the sortable table of ``reliability.csv``; none without it."""
    if table is None or table.empty:
        return []
    rows = []
    for r in table.itertuples():
        who = " ".join(filter(None, [str(r.model) if r.model else "", f"family {r.family}" if r.family else ""]))
        interval = (f"{fmt(_float(r.low), 3)} – {fmt(_float(r.high), 3)}" if np.isfinite(_float(r.low)) else "–")
        rows.append([cells.text(str(r.kind)), cells.text(who or "all models"), cells.text(str(r.unit)),
                     cells.text(str(r.measure)), cells.text(str(r.coefficient)), cells.number(_float(r.value)),
                     cells.text(interval), cells.text(f"{int(r.n_subjects)} × {int(r.n_raters)}"),
                     cells.text(str(r.reading) or str(r.reason))])
    head = ["kind", "of", "unit", "measure", "coefficient", "value", "95 % interval", "subjects × raters",
            "reading"]
    return [cells.note(RELIABILITY_NOTE), cells.table(head, rows, label="Reliability")]


def w_reading(w: float) -> str:
    """The anchor of Schmidt (1997) nearest to ``w`` ("" for NaN).

    >>> w_reading(0.62), w_reading(0.05)
    ('strong', 'very weak')
    """
    if not np.isfinite(w):
        return ""
    return min(W_ANCHORS, key=lambda anchor: abs(anchor[0] - w))[1]


def agreement_text(table: pd.DataFrame) -> str:
    """One sentence on Kendall's W of ``agreement.csv``'s row."""
    row = table.iloc[0]
    w = float(row["w"])
    if not np.isfinite(w):
        return f"Kendall's W is undefined: {row['reason']}."
    p = f"p = {fmt(float(row['p_value']), 3)} ({row['p_method']}; χ² p = {fmt(float(row['p_chi2']), 3)})"
    interval = (f", 95 % bootstrap interval [{fmt(float(row['ci_low']), 2)}, {fmt(float(row['ci_high']), 2)}]"
                if np.isfinite(float(row["ci_low"])) else "")
    left = f" Left out (a model unranked): {row['left_out']}." if isinstance(row["left_out"], str) and row[
        "left_out"] else ""
    return (f"Kendall's W of the {int(row['n_metrics'])} metrics over {int(row['n_models'])} models: "
            f"{fmt(w, 3)}{interval}, {w_reading(w)} agreement (Schmidt 1997: 0.1 very weak … 0.9 unusually strong); "
            f"Friedman's χ² = {fmt(float(row['chi2']), 4)} on {int(row['df'])} degrees of freedom, {p}. "
            f"W = 1: every metric orders the models alike; 0: their orders cancel out.{left}")


def _float(value: object) -> float:
    """A table's number as a float; NaN for a missing one (pandas' NA of an Int64 column)."""
    return float("nan") if pd.isna(value) else float(value)  # type: ignore[arg-type]


def agreement_line(agreement: pd.DataFrame | None, redundant: pd.DataFrame | None) -> str:
    """The command line's one line on the agreement of all metrics ("" with one metric).

    >>> row = pd.DataFrame([{"w": 0.62, "n_metrics": 12, "p_value": 1e-05, "p_method": "permutation",
    ...                      "reason": ""}])
    >>> pair = pd.DataFrame({"metric_a": ["SAME"], "metric_b": ["SAME-skew"], "same_order": [True], "p_value": [1e-6]})
    >>> print(agreement_line(row, pair))
    Agreement of the 12 metrics: Kendall's W = 0.62 (strong), p = 1e-05 (permutation); ranked alike: SAME = SAME-skew
    """
    if agreement is None or agreement.empty:
        return ""
    row = agreement.iloc[0]
    w = float(row["w"])
    if not np.isfinite(w):
        return f"Agreement of the metrics: Kendall's W undefined ({row['reason']})"
    line = (f"Agreement of the {int(row['n_metrics'])} metrics: Kendall's W = {fmt(w, 3)} ({w_reading(w)}), "
            f"p = {fmt(float(row['p_value']), 3)} ({row['p_method']})")
    groups = alike_groups(redundant) if redundant is not None and not redundant.empty else []
    if groups:
        line += "; ranked alike: " + "; ".join(" = ".join(map(str, g)) for g in groups)
    return line


MTMM_NOTE = ("Validity as a multitrait–multimethod table (Campbell & Fiske 1959): the query sets are the traits, "
             "the metrics the methods, each (metric, query set) a ranking of the models. Per query set: the mean "
             "Spearman correlation between different metrics on it (convergent), between one metric on it and on "
             "another query set (heterotrait–monomethod) and between different metrics on different query sets "
             "(heterotrait–heteromethod). Valid: the convergent mean is above both (the metrics agree on the trait "
             "more than a metric agrees with itself elsewhere). The matrix below shows every pair, in blocks by metric "
             "(hover a cell for its kind); every pair is in mtmm.csv.")


def mtmm_rows(summary: pd.DataFrame, cells: Cells) -> list[list[str]]:
    """The rows of the validity table, one per query set."""
    return [[cells.text(str(r.trait)), cells.number(_float(r.convergent)),
             cells.number(_float(r.heterotrait_monomethod)), cells.number(_float(r.heterotrait_heteromethod)),
             cells.text(str(int(r.n_convergent)), numeric=True),
             cells.text("–" if pd.isna(r.valid) else "yes" if bool(r.valid) else "no")]
            for r in summary.itertuples()]


def mtmm_heatmap(table: pd.DataFrame) -> str:
    """The multitrait–multimethod matrix as an SVG heatmap: every (metric, query set) ranking
    against every other, grouped by metric, each cell's kind and rho in its tooltip."""
    labels = list(dict.fromkeys([*zip(table["metric_a"], table["trait_a"]), *zip(table["metric_b"], table["trait_b"])]))
    position = {label: i for i, label in enumerate(labels)}
    values = np.eye(len(labels))
    kinds = [["same ranking"] * len(labels) for _ in labels]
    for r in table.itertuples():
        i, j = position[(r.metric_a, r.trait_a)], position[(r.metric_b, r.trait_b)]
        values[i, j] = values[j, i] = _float(r.rho)
        kinds[i][j] = kinds[j][i] = str(r.kind)
    names = [f"{metric} · {trait}" for metric, trait in labels]
    tips = [[f"{a} × {b}: Spearman {fmt(values[i, j], 3)} ({kinds[i][j]})" for j, b in enumerate(names)]
            for i, a in enumerate(names)]
    return heatmap(values, names, names, tips, label="Multitrait–multimethod matrix", grad_id="grad-mtmm",
                   scale=Scale(-1.0, 1.0, DIVERGING), legend="Spearman correlation between rankings")


def trust_section(agreement: pd.DataFrame | None, consensus: pd.DataFrame | None,
                  redundant: pd.DataFrame | None, cells: Cells, rank: Callable[[float], str], *,
                  n_metrics: int, mtmm_summary: pd.DataFrame | None = None,
                  mtmm_pairs: pd.DataFrame | None = None, chance: pd.DataFrame | None = None,
                  models: list[str] | None = None, metrics: list[str] | None = None,
                  reliability: pd.DataFrame | None = None) -> str:
    """The section's notes and tables; a note alone when the run had one metric or the
    folder holds no agreement table (written by an older version), and the chance
    tables (``models`` and ``metrics`` in the page's order) when the run drew them."""
    against_chance = "".join(chance_tables(chance, cells, models or [], metrics or [])
                             + reliability_tables(reliability, cells))
    if agreement is None or agreement.empty:
        return cells.note("One metric in this run: there is no agreement to measure." if n_metrics < 2 else
                          "This results folder has no agreement.csv (written by an older wefe-same): rerun "
                          "`wefe-same rank` for this section.") + against_chance

    def place(value: float) -> str:  # an average rank may be a half
        return rank(value) if not np.isfinite(value) or value == round(value) else cells.number(value)

    parts = [cells.note(agreement_text(agreement))]
    if redundant is not None and not redundant.empty:
        pairs = "; ".join(f"{a} and {b} ({'same' if bool(same) else 'reversed'} order, chance p = {fmt(_float(p), 3)})"
                          for a, b, same, p in zip(redundant["metric_a"], redundant["metric_b"],
                                                   redundant["same_order"], redundant["p_value"]))
        parts.append(cells.note(f"Rank correlation ±1 in this run: {pairs}. Such a pair is one piece of evidence, "
                                "not two; with few models ±1 also happens by chance (p above 0.05: not evidence "
                                "of redundancy)."))
    if consensus is not None and consensus["consensus_rank"].notna().any():
        rows = [[cells.text(str(r.model), sort=str(r.model)), place(_float(r.consensus_rank)),
                 cells.number(_float(r.mean_rank)), place(_float(r.rank_min)), place(_float(r.rank_max)),
                 cells.number(_float(r.rank_iqr)), place(_float(r.loo_max_shift)),
                 cells.text("" if pd.isna(r.loo_metric) else str(r.loo_metric))]
                for r in consensus.sort_values("consensus_rank").itertuples()]
        head = ["model", "consensus rank", "mean rank", "lowest rank", "highest rank", "IQR", "moves by",
                "when leaving out"]
        parts += [cells.note(CONSENSUS_NOTE), cells.table(head, rows, label="Consensus ranking")]
    if mtmm_summary is not None and not mtmm_summary.empty:
        head = ["query set", "convergent", "heterotrait–monomethod", "heterotrait–heteromethod", "metric pairs",
                "valid"]
        parts += [cells.note(MTMM_NOTE), cells.table(head, mtmm_rows(mtmm_summary, cells), label="Validity (MTMM)")]
        if mtmm_pairs is not None and not mtmm_pairs.empty:
            parts.append(f'<div class="scroll">{mtmm_heatmap(mtmm_pairs)}</div>')
    return "".join(parts) + against_chance
