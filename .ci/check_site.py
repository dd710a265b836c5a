"""Check a built documentation site (``python .ci/check_site.py SITE_DIR``; .ci/run runs it
after ``mkdocs build``): no raw Sphinx role (``:class:`` …) or doubled backtick in the text
a reader sees, and search that works from disk (the offline plugin's inlined index and the
vendored Web Worker shim, no script from the network). Exit 1 with one line per problem."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

#: What a reader must never see: a Sphinx role or a reST literal's doubled backticks.
RAW = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|ref|doc|py:\w+):`?|``")
_CODE = re.compile(r"<(script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")


def visible_text(page: str) -> str:
    """The text of an HTML page outside tags, scripts and styles (code included: the CLI
    page is ``--help`` in code blocks, and a numpydoc type is shown as code)."""
    return html.unescape(_TAG.sub(" ", _CODE.sub(" ", page)))


def problems(site: Path) -> list[str]:
    found = []
    for path in sorted(site.rglob("*.html")):
        page = path.read_text(encoding="utf-8", errors="replace")
        text = visible_text(page)
        for m in RAW.finditer(text):
            context = " ".join(text[max(0, m.start() - 40):m.end() + 40].split())
            found.append(f"{path.relative_to(site)}: raw markup {m.group(0)!r} in: {context}")
        for src in re.findall(r'<script[^>]+src="([^"]+)"', page):
            if "://" in src or src.startswith("//"):
                found.append(f"{path.relative_to(site)}: a script from the network ({src})")
    if not (site / "search" / "search_index.js").is_file():
        found.append("search/search_index.js is missing: search does not work from disk (the offline plugin)")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python .ci/check_site.py SITE_DIR", file=sys.stderr)
        return 2
    found = problems(Path(argv[0]))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
