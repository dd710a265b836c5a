"""Collecting the suite stays cheap: no test module imports a heavy library when it is
imported (issue 29, item 6).

Every pytest-xdist worker collects every module, so a module-level ``import torch`` (or an
``importorskip`` of sentence_transformers) is paid once per worker even when the tests that
need it run on the other one: sentence_transformers at the top of one module cost each
worker ~7 s. Such imports belong inside the tests or fixtures that use them.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
#: Libraries that take seconds to import and that few tests need.
HEAVY = {"torch", "transformers", "sentence_transformers", "onnxruntime", "tokenizers", "sklearn", "nbclient",
         "nbformat", "distributed", "dask"}


def _module_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) of the imports that run when the module is imported: its top-level
    statements (under ``if``/``try`` too, not inside functions or classes), and
    ``pytest.importorskip("...")`` calls among them."""
    found: list[tuple[int, str]] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # runs when called, not when imported
            if isinstance(node, (ast.If, ast.Try)):
                for block in (node.body, node.orelse, getattr(node, "finalbody", []),
                              *(h.body for h in getattr(node, "handlers", []))):
                    visit(block)
            elif isinstance(node, ast.Import):
                found.extend((node.lineno, a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.append((node.lineno, node.module))
            else:
                found.extend((call.lineno, call.args[0].value) for call in ast.walk(node)
                             if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                             and call.func.attr == "importorskip" and call.args
                             and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str))

    visit(tree.body)
    return found


def heavy_imports(source: str) -> list[str]:
    return [f"line {line}: {name}" for line, name in _module_level_imports(ast.parse(source))
            if name.split(".")[0] in HEAVY]


def test_no_test_module_imports_a_heavy_library_at_import_time():
    found = {path.relative_to(TESTS).as_posix(): hits for path in sorted(TESTS.rglob("*.py"))
             if (hits := heavy_imports(path.read_text(encoding="utf-8")))}
    assert found == {}, f"import these inside the tests or fixtures that need them: {found}"


def test_the_check_sees_top_level_imports_and_importorskip_but_not_imports_inside_functions():
    source = '''
import os
import torch.nn
from sklearn.linear_model import LogisticRegression
import pytest
st = pytest.importorskip("sentence_transformers")
if os.name:
    import nbformat
try:
    from dask import array
except ImportError:
    import distributed

def test_x():
    import transformers
    pytest.importorskip("onnxruntime")

class T:
    import tokenizers
'''
    assert heavy_imports(source) == ["line 3: torch.nn", "line 4: sklearn.linear_model",
                                     "line 6: sentence_transformers", "line 8: nbformat", "line 10: dask",
                                     "line 12: distributed"]
