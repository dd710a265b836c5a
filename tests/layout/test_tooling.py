"""ruff and mypy are clean on the package (configured in pyproject.toml; installed by the test extra)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean():
    done = run("ruff", "check", "wefe_same", "tests", "benchmarks", "docs", "notebooks/build_notebooks.py")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean_on_the_package():
    done = run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
