"""No module-level mutable state in the layers that compute numbers (metrics, scoring,
analysis): what a run remembers lives in objects it passes in (wefe_same/metrics/memo.py,
ScoringContext), so two runs in one process never read each other's values.

The modules are read, not imported: a module global that any code of the module changes
(item or attribute assignment, ``del``, a mutating method, a ``global`` statement), a
module-level lock, a ``functools.lru_cache``/``cache`` decorator on a function of
arguments (a function of nothing, such as loading the plugins' entry points once, may),
and a class body that holds a mutable container all fail, with the file, line and name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "wefe_same"
LAYERS = ("metrics", "scoring", "analysis")
MUTATING = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "discard",
            "remove", "move_to_end", "put", "sort", "reverse", "appendleft", "extendleft", "__setitem__"}
MUTABLE_CALLS = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter", "WeakValueDictionary",
                 "WeakKeyDictionary", "WeakSet", "Lock", "RLock", "bytearray"}
CACHE_DECORATORS = {"lru_cache", "cache"}


def _modules() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def _name(node: ast.AST) -> str | None:
    """The root name of ``x``, ``x[...]``, ``x.attr`` …, or None."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_mutable_value(node: ast.AST | None) -> bool:
    if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return called in MUTABLE_CALLS
    return False


def module_state(path: Path) -> list[str]:
    """Every place in ``path`` that keeps or changes module-level (or class-level) state."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = str(path.relative_to(ROOT.parent)) if path.is_relative_to(ROOT.parent) else path.name
    module_names: set[str] = set()
    problems: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                module_names.add(target.id)
            value = getattr(node, "value", None)
            called = value.func if isinstance(value, ast.Call) else None
            if getattr(called, "attr", getattr(called, "id", None)) in {"Lock", "RLock"}:
                problems.append(f"{where}:{node.lineno}: a module-level lock ({ast.unparse(target)})")

    def local_names(func: ast.AST) -> set[str]:
        args = func.args  # type: ignore[attr-defined]
        names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        for sub in ast.walk(func):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
        return names

    def check(scope: ast.AST, shadowed: set[str]) -> None:
        for sub in ast.walk(scope):
            changed: list[ast.AST] = []
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = sub.targets if isinstance(sub, (ast.Assign, ast.Delete)) else [sub.target]
                changed += [t for t in targets if isinstance(t, (ast.Subscript, ast.Attribute))]
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in MUTATING:
                changed.append(sub.func.value)
            elif isinstance(sub, ast.Global):
                problems.append(f"{where}:{sub.lineno}: global statement ({', '.join(sub.names)})")
            for target in changed:
                name = _name(target)
                if name in module_names and name not in shadowed:
                    problems.append(f"{where}:{sub.lineno}: changes the module-level {name!r}")

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            check(node, local_names(node))
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                takes = node.args.posonlyargs or node.args.args or node.args.kwonlyargs or node.args.vararg
                if name in CACHE_DECORATORS and takes:  # a function of nothing (the plugins' entry points) may load once
                    problems.append(f"{where}:{node.lineno}: @{name} on {node.name}() keeps a cache in the module")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                value = item.value if isinstance(item, (ast.Assign, ast.AnnAssign)) else None
                if _is_mutable_value(value):
                    problems.append(f"{where}:{item.lineno}: class {node.name} holds a mutable "
                                    f"{ast.unparse(value)[:30]} shared by its instances")  # type: ignore[arg-type]
    top = ast.Module(body=[n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.ClassDef))], type_ignores=[])
    check(top, set())
    return problems


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_level_mutable_state(path):
    assert module_state(path) == []


@pytest.mark.parametrize("source", [
    "_SEEN = {}\ndef f(x):\n    _SEEN[x] = 1\n",
    "_SEEN = []\ndef f(x):\n    _SEEN.append(x)\n",
    "import threading\n_LOCK = threading.Lock()\n",
    "from functools import lru_cache\n@lru_cache(maxsize=8)\ndef f(x):\n    return x\n",
    "import functools\n@functools.cache\ndef f(x):\n    return x\n",
    "class C:\n    known = {}\n",
    "N = 0\ndef f():\n    global N\n    N += 1\n",
    "from collections import OrderedDict\n_M = OrderedDict()\ndef f(k):\n    _M.move_to_end(k)\n",
])
def test_the_check_finds_each_kind_of_module_state(tmp_path, source):
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert module_state(path), source


def test_the_check_lets_constants_and_instance_state_be(tmp_path):
    source = ("LIMITS = {'a': 1}\n"  # never changed
              "def f(x):\n    seen = {}\n    seen[x] = LIMITS['a']\n    return seen\n"
              "class C:\n    def __init__(self):\n        self.known = {}\n    def put(self, k):\n"
              "        self.known[k] = 1\n")
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert module_state(path) == []
