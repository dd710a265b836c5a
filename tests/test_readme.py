"""Every README output marked ``run(check)`` is what its command prints today."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _make_readme():
    spec = importlib.util.spec_from_file_location("make_readme", ROOT / "docs" / "make_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_readme_outputs_are_real():
    make_readme = _make_readme()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- run(check):" in text
    _, changed = make_readme.regenerate(text, only_checked=True)
    assert changed == [], f"rerun python docs/make_readme.py: {changed}"


def test_a_changed_output_is_detected():
    make_readme = _make_readme()
    text = "<!-- run(check): wefe-same queries -->\n```text\nnot what it prints\n```\n"
    new, changed = make_readme.regenerate(text, only_checked=True)
    assert changed == ["wefe-same queries"]
    assert "gender" in new and "not what it prints" not in new
