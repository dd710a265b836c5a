"""The scoring stage stays readable (issue 32): no module of ``scoring/`` nor ``run/score.py``
over 400 lines, and no module-level mutable state there (per-run state lives in a
``ScoringContext`` made once per run and passed down)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "wefe_same"
STAGE = sorted((PACKAGE / "scoring").glob("*.py")) + [PACKAGE / "run" / "score.py"]
#: Calls that make a mutable container.
MUTABLE_CALLS = {"list", "dict", "set", "bytearray", "OrderedDict", "defaultdict", "deque", "Counter",
                 "WeakValueDictionary", "WeakKeyDictionary", "WeakSet"}


def mutable_globals(source: str) -> list[str]:
    """Names bound at module level to a list, dict or set (a display, a comprehension or a call)."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            call = value.func if isinstance(value, ast.Call) else None
            name = call.id if isinstance(call, ast.Name) else call.attr if isinstance(call, ast.Attribute) else None
            if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) \
                    or name in MUTABLE_CALLS:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [ast.unparse(t) for t in targets]
    return found


def test_the_checker_finds_mutable_globals():
    assert mutable_globals("A = []\nB: dict[str, int] = {}\nC = (1, 2)\nD = defaultdict(list)\n") == ["A", "B", "D"]


@pytest.mark.parametrize("path", STAGE, ids=[p.relative_to(PACKAGE).as_posix() for p in STAGE])
def test_scoring_modules_are_short_and_hold_no_mutable_state(path):
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 400
    assert mutable_globals(source) == []
