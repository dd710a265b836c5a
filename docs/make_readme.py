"""Regenerate every output shown in the README and the documentation pages by running it.

    python docs/make_readme.py                 # README.md, docs/**/*.md and docs/notebooks/
    python docs/make_readme.py README.md       # only the files named
    python docs/make_readme.py --no-notebooks  # the Markdown files only
    python docs/make_readme.py --check         # exit 1 if an output marked (check) differs

A shown output is a fenced ``text`` block right after a marker line:

    <!-- run: wefe-same metrics -->          the shell command's stdout (+ stderr)
    <!-- run(check): wefe-same metrics -->   the same, and ``--check`` (the test suite)
                                            compares it byte for byte
    <!-- output -->                         after a ```python block: what the block
                                            prints when run (blocks of one file run in
                                            order, in one namespace, like a notebook)

Commands run in one scratch folder shared by all files, README first, then the pages in
the order of ``PAGES`` (so ``--out results`` written by the README's or the getting-started
page's default run is there for later pages), with ``wefe-same`` being this checkout's.
Timings ("in 12.3 s") are replaced by "in N s" so that output is stable; nothing else is
edited by hand.

The notebooks of ``notebooks/`` are executed (offline, in the scratch folder) and stored
with their outputs in ``docs/notebooks/``, which the site shows as they are (mkdocs-jupyter
with ``execute: false``): the site build never runs a model.
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

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
EXECUTED = DOCS / "notebooks"
MARKER = re.compile(r"^<!-- (run|run\(check\)): (.+?) -->$|^<!-- output -->$")
TIMING = re.compile(r"\bin \d+(\.\d+)? s\b")
FENCE = "```"


def run_command(command: str, cwd: Path) -> str:
    argv = shlex.split(command)
    if argv[0] == "wefe-same":
        argv = [sys.executable, "-m", "wefe_same.cli", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
        if len(argv) > 1 and (ROOT / argv[1]).is_file() and not (cwd / argv[1]).exists():
            argv[1] = str(ROOT / argv[1])  # a script of this checkout (docs/…), run in the scratch folder
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


def regenerate(text: str, *, only_checked: bool = False, cwd: Path | None = None) -> tuple[str, list[str]]:
    """The text with fresh outputs, and the commands whose checked output changed.

    Commands and Python blocks run in ``cwd`` (a fresh scratch folder when None).
    """
    with contextlib.ExitStack() as stack:
        if cwd is None:
            cwd = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        return _regenerate(text, only_checked=only_checked, cwd=cwd)


def _regenerate(text: str, *, only_checked: bool, cwd: Path) -> tuple[str, list[str]]:
    lines = text.split("\n")
    out: list[str] = []
    changed: list[str] = []
    namespace: dict = {"__name__": "__readme__"}
    last_python: str | None = None
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


def pages() -> list[Path]:
    """README.md, the getting-started page, then every other page of docs/ in path order."""
    first = [README, DOCS / "getting-started.md"]
    rest = sorted(p for p in DOCS.rglob("*.md") if p not in first and EXECUTED not in p.parents)
    return [*first, *rest]


def execute_notebooks(cwd: Path) -> list[Path]:
    """Run every notebook of notebooks/ in ``cwd`` and store it with its outputs in docs/notebooks/."""
    import nbformat
    from nbclient import NotebookClient

    EXECUTED.mkdir(exist_ok=True)
    written = []
    for source in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(source, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
        target = EXECUTED / source.name
        tmp = target.with_suffix(".ipynb.partial")
        nbformat.write(nb, tmp)
        tmp.replace(target)  # a failed run leaves the previous executed copy whole
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    check = "--check" in args
    notebooks = "--no-notebooks" not in args and not check
    named = [Path(a).resolve() for a in args if not a.startswith("--")]
    files = [p for p in pages() if not named or p in named]
    if named and len(files) != len(named):
        unknown = sorted(set(map(str, named)) - set(map(str, files)))
        print(f"not a README or docs page: {', '.join(unknown)}", file=sys.stderr)
        return 2
    all_changed: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        for path in files:
            text = path.read_text(encoding="utf-8")
            new, changed = regenerate(text, only_checked=check, cwd=cwd)
            rel = path.relative_to(ROOT)
            if check:
                all_changed += [f"{rel}: {command}" for command in changed]
            elif new != text:
                path.write_text(new, encoding="utf-8")
                print(f"regenerated {rel}")
        if notebooks and not named:
            for path in execute_notebooks(cwd):
                print(f"executed {path.relative_to(ROOT)}")
    if check:
        for command in all_changed:
            print(f"output differs from running: {command}")
        return 1 if all_changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
