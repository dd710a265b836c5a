"""The tables of report.html sort and filter (issue 21, item 5): numbers sort as numbers,
missing values stay last, a second press reverses, the filter keeps the rows holding every
word typed. The page's own script runs in headless Chromium on a page that presses the
controls on load; the DOM it leaves is read back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_body

from wefe_same.output.report_assets import SCRIPT
from wefe_same.output.report_html import _table, _td

# name, value as data-v (NaN is the empty string, as _sort_key writes it)
ROWS = [("ten", "10.0"), ("nine", "9.0"), ("missing", ""), ("hundred", "100.0"), ("minus", "-2.5"),
        ("tiny", "0.001"), ("nine again", "9.0")]
#: What a press on the "value" header must give: numbers as numbers (lexicographic order
#: would put "10" before "9"), ties in their first order, the missing value last both ways.
ASCENDING = ["minus", "tiny", "nine", "nine again", "ten", "hundred", "missing"]
DESCENDING = ["hundred", "ten", "nine", "nine again", "tiny", "minus", "missing"]

# Presses the controls as a reader would, recording the row order after each step.
PRESS = """
(function () {
  var table = document.querySelector("table"), body = table.tBodies[0];
  function order() {
    return Array.prototype.map.call(body.rows, function (r) { return r.cells[0].textContent; }).join("|");
  }
  var value = table.tHead.rows[0].cells[1].querySelector("button");
  value.click();
  document.body.setAttribute("data-up", order());
  document.body.setAttribute("data-up-sort", table.tHead.rows[0].cells[1].getAttribute("aria-sort"));
  value.click();
  document.body.setAttribute("data-down", order());
  var input = document.querySelector("div.filter input");
  input.value = "NINE  aga";
  input.dispatchEvent(new Event("input"));
  var kept = Array.prototype.filter.call(body.rows, function (r) { return !r.hidden; });
  document.body.setAttribute("data-kept", kept.map(function (r) { return r.cells[0].textContent; }).join("|"));
  document.body.setAttribute("data-count", document.querySelector("div.filter output").textContent);
})();
"""



def page() -> str:
    rows = [[_td(name, sort=name), f'<td data-v="{v}">{v or "–"}</td>'] for name, v in ROWS]
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
            f"{_table(['name', 'value'], rows, label='test')}<script>{SCRIPT}</script><script>{PRESS}</script>"
            "</body></html>")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs it)")
def test_the_page_script_sorts_numbers_as_numbers_and_filters_rows(tmp_path: Path):
    path = tmp_path / "sort.html"
    path.write_text(page(), encoding="utf-8")
    body = chromium_body(path, tmp_path / "profile")
    assert body.get("data-ready") == "1" and "data-error" not in body, body
    assert body["data-up"].split("|") == ASCENDING
    assert body["data-up-sort"] == "ascending"
    assert body["data-down"].split("|") == DESCENDING
    assert body["data-kept"] == "nine again" and body["data-count"] == "1 of 7 rows"


def test_the_sort_order_in_node_js(tmp_path: Path):
    """The same key/compare functions, taken out of the page's script and run by Node.js
    (a second way to run the JS where there is no browser)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("neither Chromium's test nor Node.js can run here")
    start, end = SCRIPT.index("  function key("), SCRIPT.index("  function sortable(")
    rows = ", ".join(f'{{cells: [{{textContent: "{n}", hasAttribute: () => false}}, '
                     f'{{hasAttribute: () => true, getAttribute: () => "{v}"}}]}}' for n, v in ROWS)
    code = (SCRIPT[start:end] + f"var rows = [{rows}].map(function (r, i) {{ return [key(r, 1), i, r]; }});\n"
            "rows.sort(function (a, b) { return compare(a[0], b[0]) || a[1] - b[1]; });\n"
            "console.log(rows.map(function (r) { return r[2].cells[0].textContent; }).join('|'));\n")
    done = subprocess.run([node, "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split("|") == ASCENDING
