"""Write reference/cli.md at build time from ``wefe_same.cli.build_parser()`` (mkdocs-gen-files).

The page is the parser's own ``--help`` text for ``wefe-same`` and every subcommand, so it
cannot drift from the code: a new option shows up on the next build.
"""

from __future__ import annotations

import argparse
import os

import mkdocs_gen_files

from wefe_same.cli import build_parser

# argparse wraps help at the terminal width; fix it so the page is the same on every machine.
os.environ["COLUMNS"] = "110"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subparsers of ``parser`` by name, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def page() -> str:
    parser = build_parser()
    lines = [
        "# Command line reference",
        "",
        "Generated when the site is built, from `wefe_same.cli.build_parser()`: each block is",
        "exactly what `wefe-same … --help` prints. The [user guide](../guide/queries.md) explains",
        "the options; bad input exits with code 2 and one line naming the argument",
        "([safety and hostile input](safety.md)).",
        "",
        "## wefe-same",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
    ]
    for name, sub in subcommands(parser).items():
        lines += ["", f"## wefe-same {name}", "", "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(lines) + "\n"


with mkdocs_gen_files.open("reference/cli.md", "w") as f:
    f.write(page())
