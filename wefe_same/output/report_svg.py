"""Hand-built SVG heatmaps for ``report.html``: vector (legible at any zoom), one ``<title>``
tooltip per cell (the browser shows it on hover, no script needed), every label escaped.

Drawn by hand rather than by matplotlib: a matplotlib SVG of a 10 × 50 heatmap is several
times larger, and a tooltip per cell would need post-processing of its output anyway.

A heatmap of more than :data:`INLINE_CELLS` cells (a 100-model zoo's score tables hold
~70,000) is written as its labels plus one compact ``data-cells`` attribute (each cell's
colour and value), from which the page's script draws the same cells and tooltips when
it opens: written out, such a report was 10.7 MB, over the 5 MB a report may take.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

#: Approximate advance of one character of the 11 px sans-serif labels (for the margins).
CHAR_W = 6.4
LABEL_MAX = 48  # longer labels are cut with an ellipsis (the tooltip has them whole)
#: Cells up to which a heatmap is written out cell by cell; larger ones are drawn by the page's script.
INLINE_CELLS = 5000

# Colour anchors (ColorBrewer RdBu and YlOrRd, Harrower & Brewer 2003), interpolated linearly.
DIVERGING = ("#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b")
SEQUENTIAL = ("#ffffcc", "#fed976", "#fd8d3c", "#e31a1c", "#800026")
MISSING = "#d9d9d9"


@dataclass(frozen=True)
class Scale:
    """A colour scale from ``low`` to ``high`` over the anchors ``colours``."""

    low: float
    high: float
    colours: tuple[str, ...]

    @classmethod
    def for_values(cls, values: np.ndarray, *, diverging: bool | None = None) -> Scale:
        """Diverging around 0 (symmetric) when the values have both signs, else sequential."""
        finite = values[np.isfinite(values)]
        if finite.size == 0:
            return cls(0.0, 1.0, SEQUENTIAL)
        lo, hi = float(finite.min()), float(finite.max())
        if diverging if diverging is not None else (lo < 0 < hi):
            m = max(abs(lo), abs(hi)) or 1.0
            return cls(-m, m, DIVERGING)
        return cls(lo, hi if hi > lo else lo + 1.0, SEQUENTIAL)

    def fills(self, values: np.ndarray) -> list[str]:
        """:meth:`colour` of every value (flattened), the same strings, computed as arrays."""
        flat = np.asarray(values, dtype=float).ravel()
        finite = np.isfinite(flat)
        span = len(self.colours) - 1
        t = np.clip((np.where(finite, flat, self.low) - self.low) / (self.high - self.low), 0.0, 1.0) * span
        i = np.minimum(t.astype(np.int64), span - 1)
        stops = np.array([_rgb(c) for c in self.colours], dtype=float)
        channels = np.rint(stops[i] + (stops[i + 1] - stops[i]) * (t - i)[:, None]).astype(np.int64)
        codes = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in channels.tolist()]
        return [c if ok else MISSING for c, ok in zip(codes, finite.tolist())]

    def colour(self, value: float) -> str:
        if not math.isfinite(value):
            return MISSING
        t = min(max((value - self.low) / (self.high - self.low), 0.0), 1.0) * (len(self.colours) - 1)
        i = min(int(t), len(self.colours) - 2)
        a, b = _rgb(self.colours[i]), _rgb(self.colours[i + 1])
        f = t - i
        return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b))


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _ink(fill: str) -> str:
    """Black or white text, whichever reads better on ``fill`` (relative luminance)."""
    r, g, b = _rgb(fill)
    return "#000" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 else "#fff"


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_MAX else label[:LABEL_MAX - 1] + "…"


def fmt(value: float, digits: int = 3) -> str:
    """A number for people: ``digits`` significant digits, "–" for a missing value."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}g}"


def heatmap(values: np.ndarray, rows: Sequence[str], columns: Sequence[str], tips: Sequence[Sequence[str]], *,
            label: str, grad_id: str, scale: Scale | None = None,
            texts: Sequence[Sequence[str]] | None = None, legend: str = "") -> str:
    """An SVG heatmap: ``values`` (rows × columns) as coloured cells, ``tips[i][j]`` the
    tooltip of cell (i, j), ``texts[i][j]`` an optional label inside it; a colour bar with
    ``legend`` below (``grad_id``: its gradient's id, unique in the page). Every string is
    escaped here."""
    values = np.asarray(values, dtype=float)
    scale = scale or Scale.for_values(values)
    frame = _Frame.of(values.shape, rows, columns, texts, legend)
    out = frame.open(label)
    fills = scale.fills(values)
    for i in range(values.shape[0]):
        y = frame.top + frame.cell_h * i
        for j in range(values.shape[1]):
            fill = fills[i * values.shape[1] + j]
            x = frame.left + frame.cell_w * j
            out.append(f'<g><rect x="{x:.1f}" y="{y:.1f}" width="{frame.cell_w:.1f}" height="{frame.cell_h:.1f}" '
                       f'fill="{fill}"/><title>{escape(tips[i][j])}</title>')
            if texts and texts[i][j]:
                out.append(f'<text x="{x + frame.cell_w / 2:.1f}" y="{y + frame.cell_h / 2 + 4:.1f}" '
                           f'text-anchor="middle" fill="{_ink(fill)}">{escape(texts[i][j])}</text>')
            out.append("</g>")
    return frame.close(out, scale, legend, grad_id)


def value_heatmap(values: np.ndarray, rows: Sequence[str], columns: Sequence[str], value_name: str, *,
                  label: str, grad_id: str, scale: Scale | None = None, legend: str = "") -> str:
    """A heatmap whose tooltips read "ROW, COLUMN, VALUE_NAME = value" (4 digits).

    Up to :data:`INLINE_CELLS` cells it is :func:`heatmap`; beyond, the cells travel as
    one ``data-cells`` attribute (a JSON object: origin, cell size, labels, the fills
    as one hex string, the values as one "|"-separated text) that the page's script turns into the same
    ``<g><rect/><title/></g>`` cells: a few bytes a cell instead of ~150.
    """
    values = np.asarray(values, dtype=float)
    tip = [fmt(v, 4) for v in values.ravel()]
    if values.size <= INLINE_CELLS:
        n = values.shape[1]
        tips = [[f"{row}\n{col}\n{value_name} = {tip[i * n + j]}" for j, col in enumerate(columns)]
                for i, row in enumerate(rows)]
        return heatmap(values, rows, columns, tips, label=label, grad_id=grad_id, scale=scale, legend=legend)
    scale = scale or Scale.for_values(values)
    frame = _Frame.of(values.shape, rows, columns, None, legend)
    cells = {"x": frame.left, "y": frame.top, "w": frame.cell_w, "h": frame.cell_h, "name": value_name,
             "rows": list(rows), "cols": list(columns), "values": "|".join(tip),
             "fills": "".join(c[1:] for c in scale.fills(values))}
    out = frame.open(label, data=json.dumps(cells, ensure_ascii=False, separators=(",", ":")))
    return frame.close(out, scale, legend, grad_id)


@dataclass(frozen=True)
class _Frame:
    """A heatmap's geometry: label margins, cell size, canvas."""

    rows: Sequence[str]
    columns: Sequence[str]
    cell_w: float
    cell_h: float
    left: float
    top: float
    width: float
    height: float
    bar_y: float

    @classmethod
    def of(cls, shape: tuple[int, ...], rows: Sequence[str], columns: Sequence[str],
           texts: Sequence[Sequence[str]] | None, legend: str) -> _Frame:
        n_rows, n_cols = shape
        longest = max((len(t) for row in texts for t in row), default=0) if texts else 0
        cell_w = max(16.0, 10 + CHAR_W * longest) if texts else 16.0
        cell_h = 22.0 if texts else 16.0
        left = 8 + CHAR_W * max((len(_cut(r)) for r in rows), default=1)
        top = 10 + CHAR_W * max((len(_cut(c)) for c in columns), default=1)
        bar_y = top + cell_h * n_rows + 14
        width = max(left + cell_w * n_cols + 10, left + 210 + CHAR_W * len(legend) + 70)
        return cls(rows, columns, cell_w, cell_h, left, top, width, bar_y + 34, bar_y)

    def open(self, label: str, data: str | None = None) -> list[str]:
        """The ``<svg>`` element's start, its title and the row and column labels."""
        attrs = f' data-cells="{escape(data)}"' if data is not None else ""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="{escape(label)}" '
               f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" width="{self.width:.0f}" '
               f'height="{self.height:.0f}"{attrs}>', f"<title>{escape(label)}</title>"]
        for j, col in enumerate(self.columns):
            x = self.left + self.cell_w * (j + 0.5) + 4
            out.append(f'<text class="col" transform="translate({x:.1f},{self.top - 6:.0f}) rotate(-90)">'
                       f"<title>{escape(col)}</title>{escape(_cut(col))}</text>")
        for i, row in enumerate(self.rows):
            y = self.top + self.cell_h * i
            out.append(f'<text class="row" x="{self.left - 6:.0f}" y="{y + self.cell_h / 2 + 4:.1f}" '
                       f'text-anchor="end"><title>{escape(row)}</title>{escape(_cut(row))}</text>')
        return out

    def close(self, out: list[str], scale: Scale, legend: str, grad_id: str) -> str:
        out.append(_colour_bar(scale, self.left, self.bar_y, legend, grad_id))
        out.append("</svg>")
        return "".join(out)


def _colour_bar(scale: Scale, x: float, y: float, legend: str, grad_id: str) -> str:
    n = len(scale.colours) - 1
    stops = "".join(f'<stop offset="{k / n:.3f}" stop-color="{c}"/>' for k, c in enumerate(scale.colours))
    return (f'<defs><linearGradient id="{grad_id}">{stops}</linearGradient></defs>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="160" height="10" fill="url(#{grad_id})" stroke="#999" '
            f'stroke-width="0.5"/>'
            f'<text x="{x:.0f}" y="{y + 24:.0f}">{escape(fmt(scale.low))}</text>'
            f'<text x="{x + 160:.0f}" y="{y + 24:.0f}" text-anchor="end">{escape(fmt(scale.high))}</text>'
            f'<text x="{x + 170:.0f}" y="{y + 9:.0f}">{escape(legend)}</text>'
            f'<rect x="{x + 170 + CHAR_W * len(legend) + 10:.0f}" y="{y:.0f}" width="10" height="10" '
            f'fill="{MISSING}"/><text x="{x + 170 + CHAR_W * len(legend) + 24:.0f}" y="{y + 9:.0f}">no value</text>')
