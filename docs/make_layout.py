"""The layout of the package, layer by layer, from the layout test's list of layers.

    python docs/make_layout.py

``tests/layout/test_import_graph.py`` holds the layers of the data flow (``LAYERS``: a module
imports its own layer and earlier ones only); this prints each layer's packages and modules
with the first line of their docstrings, so that docs/reference/layout.md (which shows this
output, checked by the test suite through docs/make_readme.py) is never a second copy.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "wefe_same"
WIDTH = 100


def layers() -> list[tuple[str, ...]]:
    test = ROOT / "tests" / "layout" / "test_import_graph.py"
    spec = importlib.util.spec_from_file_location("test_import_graph", test)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAYERS


#: The end of a docstring's first sentence (not the "." of "et al." or "e.g.").
SENTENCE_END = re.compile(r"(?<!\bal)(?<!e\.g)\.(?:\s|$)")
ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def first_sentence(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], " ".join(doc.split("\n\n")[0].split()))
    text = text.replace("``", "")  # a reST literal reads as plain text in the page's code block
    return SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".")


def main() -> None:
    for number, layer in enumerate(layers()):
        for name in layer:
            package = PACKAGE / name
            path = package / "__init__.py" if package.is_dir() else PACKAGE / f"{name}.py"
            if not path.is_file():  # a layer's member the package does not have (yet)
                continue
            shown = f"wefe_same/{name}/" if package.is_dir() else f"wefe_same/{name}.py"
            print(f"{number:>2} {shown:26} " + "\n".ljust(31).join(textwrap.wrap(first_sentence(path), WIDTH - 30)))
            if package.is_dir():
                parts = sorted(p.name for p in package.iterdir() if p.suffix == ".py" and p.name != "__init__.py")
                parts += sorted(p.name + "/" for p in package.iterdir() if (p / "__init__.py").is_file())
                print(textwrap.fill(" ".join(parts), WIDTH, initial_indent=" " * 30, subsequent_indent=" " * 30))


if __name__ == "__main__":
    main()
