"""The house rules of the layout (DESIGN.md "Layout"), checked on the source with ``ast``.

Every import counts, at module level or inside a function or ``if TYPE_CHECKING``: a
deferred import may bring in a heavy optional library, never reach back into the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "wefe_same"

#: The layers in the order of the data flow; a module may import its own layer and earlier ones.
#: Top-level modules shared by every layer come first; the entry points come last. (A "stage" is
#: a named step of rank's pipeline, wefe_same.run.pipeline; a layer holds the code of one or more.)
LAYERS: list[tuple[str, ...]] = [
    ("errors", "validation", "versions", "interrupts", "processes", "cachedir", "plugins"),
    ("query",),
    ("metrics",),
    ("models",),
    ("quality", "likelihood"),
    ("scoring",),
    ("analysis",),
    ("output",),
    ("result",),  # RankResult holds the tables and hands them to output/ (output never imports it)
    ("options",),  # the option groups rank, load_model and the CLI take (above the layers their checks use)
    ("run",),
    ("audit", "api", "cli", "__main__"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Package modules ``name`` imports, anywhere in its source (parents of itself excluded)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def layer(name: str) -> int:
    """The index in LAYERS of a module (``wefe_same.run.plan`` → the ``run`` layer)."""
    parts = name.split(".")
    if len(parts) == 1:
        return -1  # the package's own __init__: lazy re-exports of the public names
    for i, members in enumerate(LAYERS):
        if parts[1] in members:
            return i
    raise AssertionError(f"{name} is in no layer of LAYERS: add it to the layout first")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_imports_flow_from_earlier_layers_to_later_ones():
    backwards = sorted(f"{m} imports {t}" for m, targets in graph().items() for t in targets
                       if layer(t) > layer(m) and layer(m) >= 0)
    assert backwards == []


def test_subpackage_init_files_import_only_their_own_modules():
    edges = graph()
    for name, path in modules().items():
        if path.name == "__init__.py" and name != "wefe_same":
            strangers = [t for t in edges[name] if not t.startswith(name + ".")]
            assert strangers == [], f"{name}/__init__.py imports {strangers}"


def test_modules_are_short_and_the_top_level_is_small():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}
    top = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(top) <= 12, top


@pytest.mark.parametrize("member", [s for layer_ in LAYERS for s in layer_])
def test_every_member_of_a_layer_exists(member):
    assert (PACKAGE / member).is_dir() or (PACKAGE / f"{member}.py").is_file() or member in ("__main__", "cachedir")
