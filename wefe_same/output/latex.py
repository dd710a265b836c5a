"""Tables for papers: LaTeX (booktabs) and Markdown, in the style of Badilla et al. 2020, Table 1.

``rankings`` gives "rank (score)" per metric, the best in bold, one block per query set
plus "Overall", and the quality ranks (higher score = better) in the Overall block.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from wefe_same.output.notes import Note
from wefe_same.output.tables import ResultTables

_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters.

    >>> latex_escape("glove_6b & 50%")
    'glove\\_6b \\& 50\\%'
    """
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def _cell(rank: float, value: float | None, digits: int) -> tuple[str, bool]:
    """("rank (score)", is_best) for one table cell."""
    if pd.isna(rank):
        return "n/a", False
    text = f"{int(rank)}" if float(rank).is_integer() else f"{float(rank):g}"
    if value is not None and not pd.isna(value):
        text += f" ({float(value):.{digits}f})"
    return text, float(rank) == 1.0


def ranking_blocks(by_query_set: pd.DataFrame, quality_ranks: pd.DataFrame | None,
                   metrics: Sequence[str], models: Sequence[str], digits: int = 2
                   ) -> list[tuple[str, list[str], list[list[tuple[str, bool]]]]]:
    """(block title, column names, rows of (text, bold)) for every query set and Overall."""
    blocks = []
    for query_set in dict.fromkeys(by_query_set["query_set"]):
        part = by_query_set[by_query_set["query_set"] == query_set].set_index(["model", "metric"])
        columns = list(metrics)
        rows = [[_cell(part.at[(m, k), "rank"], part.at[(m, k), "value"], digits) if (m, k) in part.index
                 else ("n/a", False) for k in metrics] for m in models]
        if query_set == "overall" and quality_ranks is not None:
            columns += list(quality_ranks.columns)
            for row, m in zip(rows, models):
                row += [_cell(quality_ranks.at[m, q], None, digits) for q in quality_ranks.columns]
        blocks.append(("Overall" if query_set == "overall" else query_set.capitalize(), columns, rows))
    return blocks


def rankings_latex(blocks, models: Sequence[str], caption: str) -> str:
    n = max(len(cols) for _, cols, _ in blocks)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{l" + "r" * n + "}", r"\toprule"]
    for k, (title, columns, rows) in enumerate(blocks):
        if k:
            lines.append(r"\midrule")
        lines.append(rf"\multicolumn{{{n + 1}}}{{l}}{{\textit{{{latex_escape(title)}}}}} \\")
        lines.append("Model & " + " & ".join(latex_escape(c) for c in columns) + r" \\")
        lines.append(r"\midrule")
        for model, row in zip(models, rows):
            cells = [rf"\textbf{{{latex_escape(t)}}}" if bold else latex_escape(t) for t, bold in row]
            cells += [""] * (n - len(cells))
            lines.append(latex_escape(model) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(caption)}}}", r"\end{table}", ""]
    return "\n".join(lines)


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", r"\|") for c in cells) + " |"


def rankings_markdown(blocks, models: Sequence[str], caption: str) -> str:
    out = [f"{caption}", ""]
    for title, columns, rows in blocks:
        out += [f"**{title}**", "", _md_row(["Model", *columns]), _md_row(["---"] + ["---:"] * len(columns))]
        for model, row in zip(models, rows):
            out.append(_md_row([model] + [f"**{t}**" if bold else t for t, bold in row]))
        out.append("")
    return "\n".join(out)


def correlations_latex(rho: pd.DataFrame, caption: str) -> str:
    cols = list(rho.columns)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{l" + "r" * len(cols) + "}",
             r"\toprule", " & " + " & ".join(latex_escape(c) for c in cols) + r" \\", r"\midrule"]
    for name, row in rho.iterrows():
        cells = ["n/a" if pd.isna(v) else f"{v:.2f}" for v in row]
        lines.append(latex_escape(name) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(caption)}}}", r"\end{table}", ""]
    return "\n".join(lines)


def correlations_markdown(rho: pd.DataFrame, caption: str) -> str:
    out = [caption, "", _md_row(["", *rho.columns]), _md_row(["---"] + ["---:"] * len(rho.columns))]
    for name, row in rho.iterrows():
        out.append(_md_row([str(name)] + ["n/a" if pd.isna(v) else f"{v:.2f}" for v in row]))
    return "\n".join(out) + "\n"


def write_tables(result: ResultTables, folder: Path) -> list[Note]:
    """``rankings`` and ``correlations`` as LaTeX (booktabs) and Markdown; a table that
    cannot be built is left out with a note."""
    folder.mkdir(exist_ok=True)
    models = list(result.rankings.index)
    apart = [c for c in (result.set_apart or ()) if c in result.rankings.columns]
    notes: list[Note] = []

    def rankings() -> None:
        blocks = ranking_blocks(result.by_query_set, result.rankings[apart] if apart else None,
                                result.metric_names, models)
        caption = ("Rank (aggregated score) of each model per metric and query set; 1 = least biased, "
                   "best in bold." + (" Quality: 1 = best." if result.quality_columns else ""))
        (folder / "rankings.tex").write_text(rankings_latex(blocks, models, caption))
        (folder / "rankings.md").write_text(rankings_markdown(blocks, models, caption))

    def correlations() -> None:
        caption = "Spearman correlation between the rankings."
        (folder / "correlations.tex").write_text(correlations_latex(result.correlations, caption))
        (folder / "correlations.md").write_text(correlations_markdown(result.correlations, caption))

    for name, write in (("rankings", rankings), ("correlations", correlations)):
        try:
            write()
        except OSError:  # a full disk is the run's failure, not this table's: never a mere warning
            raise
        except Exception as err:  # a finished run outlives a table that cannot be typeset
            notes.append((None, f"table {name} failed ({type(err).__name__}: {err})", "left out"))
    return notes
