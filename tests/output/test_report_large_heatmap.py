"""A heatmap too large to write out cell by cell (a 100-model zoo's score tables) travels as
one ``data-cells`` attribute and the page's script draws it: the written page stays small,
and the browser's DOM holds the same cells, colours and tooltips as a written-out heatmap."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from wefe_same.output.report_assets import SCRIPT
from wefe_same.output.report_svg import INLINE_CELLS, Scale, fmt, value_heatmap

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Cells(HTMLParser):
    """(fill, tooltip) of every ``<g><rect/><title/></g>`` cell, the other titles apart."""

    def __init__(self, text: str):
        super().__init__()
        self.cells: list[tuple[str, str]] = []
        self.svg_attrs: list[dict] = []
        self._fill: str | None = None
        self._title = False
        self._text = ""
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svg_attrs.append(a)
        if tag == "rect" and "fill" in a and "stroke" not in a and a["fill"].startswith("#"):
            self._fill = a["fill"]
        self._title = tag == "title"
        self._text = ""

    def handle_data(self, data):
        if self._title:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "title" and self._fill is not None:
            self.cells.append((self._fill, self._text))
            self._fill = None
        self._title = False


def _matrix(n_rows: int, n_cols: int) -> tuple[np.ndarray, list[str], list[str]]:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(n_rows, n_cols))
    values[1, 2] = np.nan  # a missing score: grey, "–"
    return values, [f"model <{i}>" for i in range(n_rows)], [f"q|sub & {j}" for j in range(n_cols)]


def _expected(values, rows, cols) -> list[tuple[str, str]]:
    scale = Scale.for_values(values)
    return [(scale.colour(values[i, j]), f"{rows[i]}\n{cols[j]}\nWEAT = {fmt(values[i, j], 4)}")
            for i in range(len(rows)) for j in range(len(cols))]


def test_a_small_heatmap_is_written_cell_by_cell():
    values, rows, cols = _matrix(3, 4)
    svg = value_heatmap(values, rows, cols, "WEAT", label="WEAT scores", grad_id="g")
    page = Cells(svg)
    assert "data-cells" not in page.svg_attrs[0]
    assert page.cells == _expected(values, rows, cols)


def test_a_large_heatmap_travels_as_data_of_a_few_bytes_a_cell():
    values, rows, cols = _matrix(100, 80)
    assert values.size > INLINE_CELLS
    svg = value_heatmap(values, rows, cols, "WEAT", label="WEAT scores", grad_id="g")
    page = Cells(svg)
    assert page.cells == []  # nothing written cell by cell
    data = json.loads(page.svg_attrs[0]["data-cells"])
    assert data["values"].split("|")[1 * 80 + 2] == "–" and len(data["fills"]) == 6 * values.size
    # ~150 bytes a cell written out (10.7 MB for a 100-model zoo); this way under 25
    assert len(svg.encode()) / values.size < 25


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs it)")
def test_the_page_script_draws_the_same_cells_and_tooltips(tmp_path: Path):
    values, rows, cols = _matrix(100, 60)
    svg = value_heatmap(values, rows, cols, "WEAT", label="WEAT scores", grad_id="g")
    page = tmp_path / "page.html"
    page.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{svg}'
                    f"<script>{SCRIPT}</script></body></html>", encoding="utf-8")
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout).group(0)
    assert 'data-ready="1"' in body and "data-error" not in body, body
    assert Cells(dom.stdout).cells == _expected(values, rows, cols)
