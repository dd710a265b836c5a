"""What a reader sees has no raw reST (issue 29, item 5): no Sphinx role (``:class:`` …) or
doubled backtick in ``wefe-same --help`` and every subcommand's help, no role in the
docstrings the API page renders, and the site check that CI runs after the build
(``.ci/check_site.py``) finds what it must."""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

from wefe_same.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / ".ci"))
from check_site import RAW, problems  # noqa: E402

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|ref|doc):`")


def helps() -> dict[str, str]:
    parser = build_parser()
    out = {"wefe-same": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update({f"wefe-same {name}": sub.format_help() for name, sub in action.choices.items()})
    return out


def test_the_help_of_every_command_has_no_raw_markup():
    texts = helps()
    assert len(texts) >= 10  # wefe-same and its subcommands
    found = {name: RAW.findall(text) for name, text in texts.items() if RAW.search(text)}
    assert found == {}


def api_objects() -> list[tuple[str, object]]:
    """The objects the API page renders (its ``::: NAME`` lines) and their public members."""
    names = [line[4:].strip() for line in (ROOT / "docs/reference/api.md").read_text().splitlines()
             if line.startswith(":::")]
    out = []
    for name in names:
        try:
            obj = importlib.import_module(name)
        except ImportError:
            module, _, attr = name.rpartition(".")
            obj = getattr(importlib.import_module(module), attr)
        out.append((name, obj))
        members = vars(obj).items() if inspect.isclass(obj) or inspect.ismodule(obj) else ()
        for key, member in members:
            if not key.startswith("_") and (inspect.isfunction(member) or inspect.isclass(member)
                                            or isinstance(member, property)):
                out.append((f"{name}.{key}", member.fget if isinstance(member, property) else member))
    return out


def test_the_docstrings_of_the_api_page_use_no_sphinx_role():
    objects = api_objects()
    assert len(objects) > 20
    found = {name: ROLE.findall(obj.__doc__) for name, obj in objects
             if isinstance(getattr(obj, "__doc__", None), str) and ROLE.search(obj.__doc__)}
    assert found == {}


PAGE = '<html><body><p>{text}</p><script src="{src}"></script><pre><code>{code}</code></pre></body></html>'


@pytest.mark.parametrize(("text", "code", "src", "expected"), [
    ("Returns a <code>RankResult</code>.", "wefe-same rank --out DIR", "assets/bundle.js", []),
    ("See :class:<code>~x.Y</code>.", "", "assets/bundle.js", [":class:"]),
    ("a value", "``wefe-same``: rank models", "assets/bundle.js", ["``", "``"]),
    ("a value", "", "https://unpkg.com/iframe-worker/shim", ["a script from the network"]),
])
def test_the_site_check_finds_raw_markup_and_network_scripts(tmp_path, text, code, src, expected):
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.js").write_text("var __index = {}")
    (tmp_path / "page.html").write_text(PAGE.format(text=text, code=code, src=src))
    found = problems(tmp_path)
    assert len(found) == len(expected)
    for line, what in zip(found, expected):
        assert line.startswith("page.html: ") and what in line


def test_the_site_check_wants_the_offline_search_index(tmp_path):
    (tmp_path / "index.html").write_text(PAGE.format(text="", code="", src="x.js"))
    assert problems(tmp_path) == ["search/search_index.js is missing: search does not work from disk "
                                  "(the offline plugin)"]


def test_no_doc_shows_a_path_into_the_projects_shared_folder():
    """A user's clone has no ``../shared`` (issue 40, item 6): the README, the docs'
    pages, the notebooks and the scripts they run point at files of the repository."""
    texts = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "docs").glob("*.py")), *sorted((ROOT / "notebooks").glob("*.ipynb"))]
    texts = [p for p in texts if "site" not in p.relative_to(ROOT).parts[:2]]
    assert len(texts) > 20
    found = [f"{p.relative_to(ROOT)}:{n}" for p in texts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\.\./shared\b|/work/shared\b", line)]
    assert found == []
