"""Regenerate every command output shown in the README from running the command.

    python docs/make_readme.py            # rewrite README.md in place
    python docs/make_readme.py --check    # exit 1 if an output marked (check) differs

A shown output is a fenced ``text`` block right after a marker line:

    <!-- run: wefe-same metrics -->          the shell command's stdout (+ stderr)
    <!-- run(check): wefe-same metrics -->   the same, and ``--check`` (the test suite)
                                            compares it byte for byte
    <!-- output -->                         after a ```python block: what the block
                                            prints when run (blocks run in order, in
                                            one namespace, like a notebook)

Commands run in a scratch folder (so ``--out results`` writes there), with ``wefe-same``
being this checkout's. Timings ("in 12.3 s") are replaced by "in N s" so that output is
stable; nothing else is edited by hand.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = re.compile(r"^<!-- (run|run\(check\)): (.+?) -->$|^<!-- output -->$")
TIMING = re.compile(r"\bin \d+(\.\d+)? s\b")
FENCE = "```"


def run_command(command: str, cwd: Path) -> str:
    argv = shlex.split(command)
    if argv[0] == "wefe-same":
        argv = [sys.executable, "-m", "wefe_same.cli", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    env = {**os.environ, "COLUMNS": "120", "PYTHONWARNINGS": "ignore::DeprecationWarning"}
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    return stable((done.stdout + done.stderr).replace(f"{cwd}/", ""))


def stable(text: str) -> str:
    return TIMING.sub("in N s", text).rstrip() + "\n"


def run_python(code: str, namespace: dict, cwd: Path) -> str:
    buffer = io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, "<README>", "exec"), namespace)
    finally:
        os.chdir(old)
    return stable(buffer.getvalue())


def blocks_after(lines: list[str], i: int) -> tuple[int, int]:
    """(start, end) line indices of the fenced block that follows line i (end exclusive)."""
    start = i + 1
    while not lines[start].startswith(FENCE):
        start += 1
    end = start + 1
    while not lines[end].startswith(FENCE):
        end += 1
    return start, end + 1


def regenerate(text: str, *, only_checked: bool = False) -> tuple[str, list[str]]:
    """The README with fresh outputs, and the commands whose checked output changed."""
    lines = text.split("\n")
    out: list[str] = []
    changed: list[str] = []
    namespace: dict = {"__name__": "__readme__"}
    last_python: str | None = None
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith(FENCE + "python"):
                end = i + 1
                while not lines[end].startswith(FENCE):
                    end += 1
                last_python = "\n".join(lines[i + 1:end])
            match = MARKER.match(line)
            if not match:
                out.append(line)
                i += 1
                continue
            kind = match.group(1) or "output"
            checked = kind == "run(check)"
            start, end = blocks_after(lines, i)
            old = "\n".join(lines[start + 1:end - 1]) + "\n"
            if only_checked and not checked:
                out.extend(lines[i:end])
                i = end
                continue
            if kind == "output":
                new = run_python(last_python or "", namespace, cwd)
            else:
                new = run_command(match.group(2), cwd)
            if checked and new != old:
                changed.append(match.group(2))
            out.extend([line, *lines[i + 1:start], FENCE + "text", *new.rstrip("\n").split("\n"), FENCE])
            i = end
    return "\n".join(out), changed


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (argv if argv is not None else sys.argv[1:])
    text = README.read_text(encoding="utf-8")
    new, changed = regenerate(text, only_checked=check)
    if check:
        for command in changed:
            print(f"README output differs from running: {command}")
        return 1 if changed else 0
    README.write_text(new, encoding="utf-8")
    print(f"regenerated {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
