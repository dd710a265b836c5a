"""The inline style and script of ``report.html`` (kept apart from the page's structure)."""

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;
color:#222;background:#fff}
h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:32px 0 6px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 4px}nav a{margin-right:12px}p.note{color:#555;margin:4px 0 8px}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}th{background:#f4f4f4}table.sortable th{cursor:pointer;user-select:none}
table.sortable th:after{content:" \\2195";color:#aaa}table.sortable th[aria-sort=ascending]:after{content:" \\25B2"}
table.sortable th[aria-sort=descending]:after{content:" \\25BC"}.scroll{overflow-x:auto;max-width:100%}
svg.chart{max-width:100%;height:auto}svg.chart text{font:11px system-ui,sans-serif;fill:#222}
svg.chart g:hover rect{stroke:#000;stroke-width:1.5}span.w{display:inline-block;margin:0 8px 2px 0}
span.w small{color:#666}pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
.js-error{background:#fdd;padding:8px;border:1px solid #c00}details>summary{cursor:pointer}
"""

# Sorting a table on a header click takes a few lines of plain DOM code: no library is
# needed. It ends by marking the page ready (the browser test reads that mark) and writes
# any error into the page instead of failing silently.
SCRIPT = """
(function () {
  function key(row, col) {
    var cell = row.cells[col];
    var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
    var n = v === "" ? NaN : Number(v);
    return isNaN(n) ? v : n;
  }
  function empty(v) { return v === "" || (typeof v === "number" && isNaN(v)); }
  function compare(a, b) {
    var ea = empty(a), eb = empty(b);
    if (ea || eb) { return ea === eb ? 0 : (ea ? 1 : -1); }
    if (typeof a === typeof b) { return a < b ? -1 : (a > b ? 1 : 0); }
    return typeof a === "number" ? -1 : 1;
  }
  try {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      var heads = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(heads, function (th, col) {
        th.tabIndex = 0;
        function sort() {
          var up = th.getAttribute("aria-sort") !== "ascending";
          Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", up ? "ascending" : "descending");
          var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var ka = key(a, col), kb = key(b, col), c = compare(ka, kb);
            return up || empty(ka) || empty(kb) ? c : -c;  // missing values stay last
          });
          rows.forEach(function (r) { body.appendChild(r); });
        }
        th.addEventListener("click", sort);
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
        });
      });
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
