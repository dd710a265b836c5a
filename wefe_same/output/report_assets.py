"""The inline style and script of ``report.html`` (kept apart from the page's structure)."""

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;
color:#222;background:#fff}
h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:32px 0 6px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 4px}nav a{margin-right:12px}p.note{color:#555;margin:4px 0 8px}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}th{background:#f4f4f4;padding:0}
th button.sort{font:inherit;font-weight:bold;background:none;border:0;padding:3px 7px;width:100%;text-align:left;
cursor:pointer;color:inherit}th button.sort:focus-visible{outline:2px solid #1a5fb4;outline-offset:-2px}
th button.sort:after{content:" \\2195";color:#aaa}th[aria-sort=ascending] button.sort:after{content:" \\25B2"}
th[aria-sort=descending] button.sort:after{content:" \\25BC"}div.filter{margin:6px 0 0}
div.filter input{font:inherit;padding:2px 6px;width:16em}div.filter output{color:#666;margin-left:6px}
div.rows{max-height:80vh;overflow:auto}div.rows thead th{position:sticky;top:0;z-index:1}
.scroll{overflow-x:auto;max-width:100%}td{overflow-wrap:break-word}td.long{overflow-wrap:anywhere;min-width:14em}
svg.chart{max-width:none;height:auto}svg.chart text{font:11px system-ui,sans-serif;fill:#222}
svg.chart g.band text{font-weight:bold}svg.chart text.scale-note{fill:#555}
details.terms{background:#f8f8f8;border:1px solid #ddd;padding:4px 10px;margin:12px 0}
details.terms dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}
details.terms dt{font-weight:bold}details.terms dd{margin:0}details.terms ul{margin:4px 0;padding-left:20px}
span.zero{color:#666;font-style:italic}
td.flagged{outline:2px dashed #b35806;outline-offset:-3px}
svg.chart rect.flagged{stroke:#b35806;stroke-width:2;stroke-dasharray:3 2}
svg.chart g:hover rect{stroke:#000;stroke-width:1.5}span.w{display:inline-block;margin:0 8px 2px 0}
span.w small{color:#666}pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
.js-error{background:#fdd;padding:8px;border:1px solid #c00}details>summary{cursor:pointer}
@media print{
@page{size:auto;margin:12mm}
body{font-size:9pt;max-width:none;padding:0}h1{font-size:16pt}h2{font-size:13pt;break-after:avoid}
h3{font-size:11pt;break-after:avoid}p.note{break-after:avoid}
nav,div.filter,th button.sort:after{display:none}
.scroll,div.rows{overflow:visible;max-height:none;max-width:none}
svg.chart{max-width:100%;height:auto;break-inside:avoid}
table{width:100%;table-layout:auto}thead{display:table-header-group}tr{break-inside:avoid}
th,td{padding:1px 4px}th button.sort{padding:1px 4px}
div.rows thead th{position:static}pre{white-space:pre-wrap;overflow-wrap:anywhere}
details.terms{break-inside:avoid}
}
"""

# Sorting and filtering a table take a few lines of plain DOM code: no library is needed.
# ``key`` and ``compare`` are the whole sort order (numbers as numbers, before text;
# missing values last in either direction); ``tests/output/test_report_sorting.py`` runs
# them in Chromium on a page that sorts on load. The script ends by marking the page
# ready (the browser test reads that mark) and writes any error into the page instead of
# failing silently.
SCRIPT = """
(function () {
  function key(row, col) {
    var cell = row.cells[col];
    if (!cell) { return ""; }
    var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
    var n = v === "" ? NaN : Number(v);
    return isNaN(n) ? v.toLowerCase() : n;
  }
  function empty(v) { return v === "" || (typeof v === "number" && isNaN(v)); }
  function compare(a, b) {
    var ea = empty(a), eb = empty(b);
    if (ea || eb) { return ea === eb ? 0 : (ea ? 1 : -1); }
    if (typeof a === typeof b) { return a < b ? -1 : (a > b ? 1 : 0); }
    return typeof a === "number" ? -1 : 1;
  }
  function sortable(table) {
    var heads = table.tHead.rows[0].cells, body = table.tBodies[0];
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector("button.sort");
      if (!button) { return; }
      button.addEventListener("click", function () {  // a button: Enter and Space press it too
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return [key(r, col), i, r]; });
        rows.sort(function (a, b) {
          var c = compare(a[0], b[0]);
          if (!up && !empty(a[0]) && !empty(b[0])) { c = -c; }  // missing values stay last
          return c || a[1] - b[1];  // stable: ties keep their order
        });
        rows.forEach(function (r) { body.appendChild(r[2]); });
      });
    });
  }
  function filterable(box, table) {
    var input = box.querySelector("input"), shown = box.querySelector("output"), body = table.tBodies[0];
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean), kept = 0;
      Array.prototype.forEach.call(body.rows, function (r) {
        var text = r.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        r.hidden = !keep;
        kept += keep ? 1 : 0;
      });
      shown.textContent = words.length ? kept + " of " + body.rows.length + " rows" : "";
    });
  }
  // A large heatmap comes as one data-cells attribute (report_svg.value_heatmap): its cells
  // and tooltips are drawn here, the same <g><rect/><title/></g> as a small one's.
  function drawCells(svg) {
    var d = JSON.parse(svg.getAttribute("data-cells")), ns = "http://www.w3.org/2000/svg";
    var n = d.cols.length, values = d.values.split("|"), frag = document.createDocumentFragment();
    var k, g, rect, title, i, j;
    for (k = 0; k < values.length; k++) {
      i = Math.floor(k / n); j = k % n;
      g = document.createElementNS(ns, "g");
      rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", (d.x + d.w * j).toFixed(1)); rect.setAttribute("y", (d.y + d.h * i).toFixed(1));
      rect.setAttribute("width", d.w); rect.setAttribute("height", d.h);
      rect.setAttribute("fill", "#" + d.fills.substr(6 * k, 6));
      title = document.createElementNS(ns, "title");
      title.textContent = d.rows[i] + "\\n" + d.cols[j] + "\\n" + d.name + " = " + values[k];
      g.appendChild(rect); g.appendChild(title); frag.appendChild(g);
    }
    svg.appendChild(frag);
  }
  try {
    Array.prototype.forEach.call(document.querySelectorAll("svg[data-cells]"), drawCells);
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      sortable(table);
      var box = table.parentNode.previousElementSibling;
      if (box && box.className === "filter") { filterable(box, table); }
    });
    document.body.setAttribute("data-ready", "1");
  } catch (err) {
    document.body.setAttribute("data-error", String(err));
    var p = document.createElement("p");
    p.className = "js-error";
    p.textContent = "Script error: " + err;
    document.body.insertBefore(p, document.body.firstChild);
  }
})();
"""
