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
LABEL_MAX = 48  # longer row labels are cut with an ellipsis (the tooltip has them whole)
COLUMN_MAX = 80  # the same for a column label (a subquery id; one line of ~500 px)
BAR_W = 240.0  # px: the colour bar's length
#: A subquery label longer than this is written in two lines (targets | attributes),
#: in columns :data:`TWO_LINES` px wide, where the heatmap stays within :data:`PAGE_W` px.
WRAP_OVER = 40
TWO_LINES = 28.0
LINE_H = 12.0
PAGE_W = 1160.0
BAND_H = 16.0  # px per band of column groups (query set, target sets) above the labels
#: Scales are made robust from this many values on (fewer: the full range).
ROBUST_MIN = 20
#: A diverging metric whose max |x| is this many times its median |x| (RND's ±433 over a
#: median of 0.6) gets a symmetric log scale, linear within ± the median.
WIDE_RANGE = 100.0
#: Cells up to which a heatmap is written out cell by cell; larger ones are drawn by the page's script.
INLINE_CELLS = 5000

# Colour anchors (ColorBrewer RdBu and YlOrRd, Harrower & Brewer 2003), interpolated linearly.
DIVERGING = ("#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b")
SEQUENTIAL = ("#ffffcc", "#fed976", "#fd8d3c", "#e31a1c", "#800026")
MISSING = "#d9d9d9"


@dataclass(frozen=True)
class Scale:
    """A colour scale from ``low`` to ``high`` over the anchors ``colours``; values beyond
    take the end colours. ``linear`` > 0 makes it a symmetric log scale (linear within
    ± ``linear``, logarithmic beyond); ``note`` says how the limits were chosen (legend).
    ``open_low``: with a note, no value lies below ``low`` (a distance that starts at the
    ideal), so the legend writes "0", not "≤ 0"."""

    low: float
    high: float
    colours: tuple[str, ...]
    linear: float = 0.0
    note: str = ""
    open_low: bool = True

    @classmethod
    def for_values(cls, values: np.ndarray, *, diverging: bool | None = None) -> Scale:
        """Diverging around 0 (symmetric) when the values have both signs, else sequential.

        Limits that show the spread: from :data:`ROBUST_MIN` values on, a diverging scale
        whose max |x| is over :data:`WIDE_RANGE` times the median |x| is a symmetric log
        scale; otherwise, where the 2nd–98th percentiles span less than 3/4 of the range,
        they are the limits (a few outliers no longer leave every other cell white).
        """
        finite = np.asarray(values, dtype=float)
        finite = finite[np.isfinite(finite)]
        if finite.size == 0:
            return cls(0.0, 1.0, SEQUENTIAL)
        lo, hi = float(finite.min()), float(finite.max())
        robust = finite.size >= ROBUST_MIN
        if diverging if diverging is not None else (lo < 0 < hi):
            size = np.abs(finite)
            m = float(size.max()) or 1.0
            median = float(np.median(size[size > 0])) if (size > 0).any() else 0.0
            if robust and median > 0 and m > WIDE_RANGE * median:
                # linear within ±c, c = median²/max: the median |x| falls halfway to either end
                return cls(-m, m, DIVERGING, linear=median * median / m,
                           note=f"symmetric log scale: ±{fmt(median, 2)} (the median |x|) halfway to either end")
            p = float(np.percentile(size, 98))
            if robust and 0 < p < 0.75 * m:
                return cls(-p, p, DIVERGING, note=f"limits ±{fmt(p, 3)}: 98th percentile of |x| (max {fmt(m, 3)})")
            return cls(-m, m, DIVERGING)
        if robust:
            p_lo, p_hi = (float(x) for x in np.percentile(finite, [2, 98]))
            if p_hi > p_lo and p_hi - p_lo < 0.75 * (hi - lo):
                return cls(p_lo, p_hi, SEQUENTIAL,
                           note=f"limits: 2nd–98th percentile (values from {fmt(lo, 3)} to {fmt(hi, 3)})")
        return cls(lo, hi if hi > lo else lo + 1.0, SEQUENTIAL)

    def _t(self, x: np.ndarray) -> np.ndarray:
        """Position of ``x`` in [0, 1] along the scale."""
        if self.linear > 0:
            def f(v: np.ndarray | float) -> np.ndarray:
                return np.sign(v) * np.log1p(np.abs(v) / self.linear)
            return np.clip((f(x) - f(self.low)) / (f(self.high) - f(self.low)), 0.0, 1.0)
        return np.clip((x - self.low) / (self.high - self.low), 0.0, 1.0)

    def fills(self, values: np.ndarray) -> list[str]:
        """:meth:`colour` of every value (flattened), the same strings, computed as arrays."""
        flat = np.asarray(values, dtype=float).ravel()
        finite = np.isfinite(flat)
        span = len(self.colours) - 1
        t = self._t(np.where(finite, flat, self.low)) * span
        i = np.minimum(t.astype(np.int64), span - 1)
        stops = np.array([_rgb(c) for c in self.colours], dtype=float)
        channels = np.rint(stops[i] + (stops[i + 1] - stops[i]) * (t - i)[:, None]).astype(np.int64)
        codes = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in channels.tolist()]
        return [c if ok else MISSING for c, ok in zip(codes, finite.tolist())]

    def colour(self, value: float) -> str:
        if not math.isfinite(value):
            return MISSING
        t = float(self._t(np.array([value], dtype=float))[0]) * (len(self.colours) - 1)
        i = min(int(t), len(self.colours) - 2)
        a, b = _rgb(self.colours[i]), _rgb(self.colours[i + 1])
        f = t - i
        return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b))


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an sRGB colour ``#rrggbb`` (0 black, 1 white).

    >>> luminance("#ffffff"), luminance("#000000")
    (1.0, 0.0)
    """
    def linear(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink(fill: str) -> str:
    """Black or white text on ``fill``: whichever has the higher WCAG contrast ratio
    (at least 4.6:1 on any fill; the darkest rank cells took dark text before)."""
    return "#000000" if contrast("#000000", fill) >= contrast("#ffffff", fill) else "#ffffff"


def _cut(label: str, width: int = LABEL_MAX) -> str:
    return label if len(label) <= width else label[:width - 1] + "…"


def _runs(keys: Sequence[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for j, key in enumerate(keys):
        if out and out[-1][0] == key:
            out[-1] = (key, out[-1][1], j + 1)
        else:
            out.append((key, j, j + 1))
    return out


def bands(columns: Sequence[str]) -> tuple[list[list[tuple[str, int, int]]], list[str]]:
    """Subquery ids "SET:TARGETS|ATTRIBUTES" as bands over the columns and short labels.

    The query set and, where neighbours share them (two columns a band on average), the
    target sets become bands (name, first column, end column) above the columns, and each
    column is labelled by what is left: a 60-subquery label of 60 characters becomes
    its attribute sets.

    >>> levels, labels = bands(["g:m+f|career+family", "g:m+f|math+arts"])
    >>> levels, labels
    ([[('g', 0, 2)], [('m+f', 0, 2)]], ['career+family', 'math+arts'])
    """
    labels = list(columns)
    levels: list[list[tuple[str, int, int]]] = []
    for sep in (":", "|"):
        if len(labels) < 2 or not all(sep in c for c in labels):
            break
        heads = [c.split(sep, 1)[0] for c in labels]
        runs = _runs(heads)
        if sep == "|" and (len(runs) * 2 > len(labels)
                           or any(CHAR_W * len(name) > 16 * (end - start) for name, start, end in runs)):
            break  # short runs, or names wider than their columns: the targets stay in the labels
        levels.append(runs)
        labels = [c.split(sep, 1)[1] for c in labels]
    return levels, labels


def fmt(value: float, digits: int = 3) -> str:
    """A number for people: ``digits`` significant digits, "–" for a missing value."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}g}"


def heatmap(values: np.ndarray, rows: Sequence[str], columns: Sequence[str], tips: Sequence[Sequence[str]], *,
            label: str, grad_id: str, scale: Scale | None = None,
            texts: Sequence[Sequence[str]] | None = None, legend: str = "",
            flagged: np.ndarray | None = None, shade: np.ndarray | None = None) -> str:
    """An SVG heatmap: ``values`` (rows × columns) as coloured cells, ``tips[i][j]`` the
    tooltip of cell (i, j), ``texts[i][j]`` an optional label inside it; a colour bar with
    ``legend`` below (``grad_id``: its gradient's id, unique in the page). ``flagged``
    (booleans, rows × columns) marks cells with the ``flagged`` class (a dashed outline;
    say why in the tooltip). ``shade`` (rows × columns): the numbers that pick the colours
    when they are not ``values`` (a score's distance from its metric's ideal). Every
    string is escaped here."""
    values = np.asarray(values, dtype=float) if shade is None else np.asarray(shade, dtype=float)
    scale = scale or Scale.for_values(values)
    frame = _Frame.of(values.shape, rows, columns, texts, legend, scale.note)
    out = frame.open(label)
    fills = scale.fills(values)
    for i in range(values.shape[0]):
        y = frame.top + frame.cell_h * i
        for j in range(values.shape[1]):
            fill = fills[i * values.shape[1] + j]
            x = frame.left + frame.cell_w * j
            mark = ' class="flagged"' if flagged is not None and flagged[i, j] else ""
            out.append(f'<g><rect{mark} x="{x:.1f}" y="{y:.1f}" width="{frame.cell_w:.1f}" '
                       f'height="{frame.cell_h:.1f}" fill="{fill}"/><title>{escape(tips[i][j])}</title>')
            if texts and texts[i][j]:
                out.append(f'<text x="{x + frame.cell_w / 2:.1f}" y="{y + frame.cell_h / 2 + 4:.1f}" '
                           f'text-anchor="middle" class="v" style="fill:{ink(fill)}">{escape(texts[i][j])}</text>')
            out.append("</g>")
    return frame.close(out, scale, legend, grad_id)


def value_heatmap(values: np.ndarray, rows: Sequence[str], columns: Sequence[str], value_name: str, *,
                  label: str, grad_id: str, scale: Scale | None = None, legend: str = "",
                  shade: np.ndarray | None = None) -> str:
    """A heatmap whose tooltips read "ROW, COLUMN, VALUE_NAME = value" (4 digits); the
    colours come from ``shade`` where given (see :func:`heatmap`).

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
        return heatmap(values, rows, columns, tips, label=label, grad_id=grad_id, scale=scale, legend=legend,
                       shade=shade)
    colours = values if shade is None else np.asarray(shade, dtype=float)
    scale = scale or Scale.for_values(colours)
    frame = _Frame.of(values.shape, rows, columns, None, legend, scale.note)
    cells = {"x": frame.left, "y": frame.top, "w": frame.cell_w, "h": frame.cell_h, "name": value_name,
             "rows": list(rows), "cols": list(columns), "values": "|".join(tip),
             "fills": "".join(c[1:] for c in scale.fills(colours))}
    out = frame.open(label, data=json.dumps(cells, ensure_ascii=False, separators=(",", ":")))
    return frame.close(out, scale, legend, grad_id)


@dataclass(frozen=True)
class _Frame:
    """A heatmap's geometry: label margins, cell size, canvas; subquery ids are labelled
    under bands of their query set and target sets (:func:`bands`)."""

    rows: Sequence[str]
    columns: Sequence[str]
    labels: list[list[str]]
    bands: list[list[tuple[str, int, int]]]
    cell_w: float
    cell_h: float
    left: float
    top: float
    width: float
    height: float
    bar_y: float
    note: str

    @classmethod
    def of(cls, shape: tuple[int, ...], rows: Sequence[str], columns: Sequence[str],
           texts: Sequence[Sequence[str]] | None, legend: str, note: str = "") -> _Frame:
        n_rows, n_cols = shape
        levels, labels = bands(columns)
        longest = max((len(t) for row in texts for t in row), default=0) if texts else 0
        cell_w = max(16.0, 10 + CHAR_W * longest) if texts else 16.0
        cell_h = 22.0 if texts else 16.0
        left = 8 + CHAR_W * max((len(_cut(r)) for r in rows), default=1)
        lines = [[c] for c in labels]
        if (not texts and any(len(c) > WRAP_OVER and "|" in c for c in labels)
                and left + TWO_LINES * n_cols <= PAGE_W):  # long "TARGETS|ATTRIBUTES": two lines
            lines = [[c[:c.index("|") + 1], c[c.index("|") + 1:]] if "|" in c else [c] for c in labels]
            cell_w = TWO_LINES
        top = 10 + CHAR_W * max((len(_cut(t, COLUMN_MAX)) for ls in lines for t in ls), default=1) + (
            BAND_H * len(levels))
        bar_y = top + cell_h * n_rows + 14
        width = max(left + cell_w * n_cols + 10, left + BAR_W + 50 + CHAR_W * len(legend) + 70,
                    left + CHAR_W * len(note) + 10)
        return cls(rows, columns, lines, levels, cell_w, cell_h, left, top, width,
                   bar_y + (48 if note else 34), bar_y, note)

    def open(self, label: str, data: str | None = None) -> list[str]:
        """The ``<svg>`` element's start, its title, the bands and the row and column
        labels (each with its whole name as a tooltip)."""
        attrs = f' data-cells="{escape(data)}"' if data is not None else ""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="{escape(label)}" '
               f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" width="{self.width:.0f}" '
               f'height="{self.height:.0f}"{attrs}>', f"<title>{escape(label)}</title>"]
        for j, (col, lines) in enumerate(zip(self.columns, self.labels)):
            # the lines side by side, centred on the column, each read bottom to top
            x = self.left + self.cell_w * (j + 0.5) + 4 - LINE_H * (len(lines) - 1) / 2
            text = "".join(f'<tspan x="0" y="{LINE_H * k:.0f}">{escape(_cut(t, COLUMN_MAX))}</tspan>'
                           for k, t in enumerate(lines))
            out.append(f'<text class="col" transform="translate({x:.1f},{self.top - 6:.0f}) rotate(-90)">'
                       f"<title>{escape(col)}</title>{text}</text>")
        for k, runs in enumerate(self.bands):
            y = BAND_H * (k + 1)
            for name, start, end in runs:
                x0, x1 = self.left + self.cell_w * start + 1, self.left + self.cell_w * end - 1
                room = int((x1 - x0) / CHAR_W)
                shown = name if len(name) <= room else name[:room - 1] + "…" if room > 1 else ""
                out.append(f'<g class="band"><title>{escape(name)}</title>'
                           f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{y:.0f}" y2="{y:.0f}" stroke="#777"/>'
                           f'<text x="{(x0 + x1) / 2:.1f}" y="{y - 3:.0f}" text-anchor="middle">{escape(shown)}'
                           "</text></g>")
        for i, row in enumerate(self.rows):
            y = self.top + self.cell_h * i
            out.append(f'<text class="row" x="{self.left - 6:.0f}" y="{y + self.cell_h / 2 + 4:.1f}" '
                       f'text-anchor="end"><title>{escape(row)}</title>{escape(_cut(row))}</text>')
        return out

    def close(self, out: list[str], scale: Scale, legend: str, grad_id: str) -> str:
        out.append(_colour_bar(scale, self.left, self.bar_y, legend, grad_id))
        if self.note:
            out.append(f'<text class="scale-note" x="{self.left:.0f}" y="{self.bar_y + 40:.0f}">'
                       f"{escape(self.note)}</text>")
        out.append("</svg>")
        return "".join(out)


def _colour_bar(scale: Scale, x: float, y: float, legend: str, grad_id: str) -> str:
    n = len(scale.colours) - 1
    stops = "".join(f'<stop offset="{k / n:.3f}" stop-color="{c}"/>' for k, c in enumerate(scale.colours))
    beyond = ("≤ ", "≥ ") if scale.note and not scale.linear else ("", "")  # robust limits: the ends saturate
    middle = (f'<text x="{x + BAR_W / 2:.0f}" y="{y + 24:.0f}" text-anchor="middle">0</text>'
              if scale.low < 0 < scale.high and scale.colours == DIVERGING else "")
    if scale.linear > 0:  # symmetric log: the median |x| sits halfway to either end
        half = math.sqrt(scale.linear * scale.high)
        middle += "".join(f'<text x="{x + px:.0f}" y="{y + 24:.0f}" text-anchor="middle">{escape(fmt(v, 2))}</text>'
                          for px, v in ((BAR_W / 4, -half), (3 * BAR_W / 4, half)))
    beyond = (beyond[0] if scale.open_low else "", beyond[1])
    return (f'<defs><linearGradient id="{grad_id}">{stops}</linearGradient></defs>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{BAR_W:.0f}" height="10" fill="url(#{grad_id})" stroke="#999" '
            f'stroke-width="0.5"/>'
            f'<text x="{x:.0f}" y="{y + 24:.0f}">{escape(beyond[0] + fmt(scale.low))}</text>{middle}'
            f'<text x="{x + BAR_W:.0f}" y="{y + 24:.0f}" text-anchor="end">{escape(beyond[1] + fmt(scale.high))}</text>'
            f'<text x="{x + BAR_W + 10:.0f}" y="{y + 9:.0f}">{escape(legend)}</text>'
            f'<rect x="{x + BAR_W + 10 + CHAR_W * len(legend) + 10:.0f}" y="{y:.0f}" width="10" height="10" '
            f'fill="{MISSING}"/><text x="{x + BAR_W + 10 + CHAR_W * len(legend) + 24:.0f}" y="{y + 9:.0f}">'
            "no value</text>")
