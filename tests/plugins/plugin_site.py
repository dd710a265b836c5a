"""A plugin package as ``pip install`` leaves it for importlib.metadata, for the tests of
tests/plugins: a ``*.dist-info`` with METADATA and entry_points.txt in a temporary site folder,
the toy modules importable from this folder."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def install_plugin(site: Path, package: str, group: str, entries: dict[str, str]) -> list[str]:
    """Write ``package`` 0.1 declaring ``entries`` (entry point name → ``module:attr``) in
    ``group``; the folders to put on ``sys.path`` (or PYTHONPATH): the site and the toys'."""
    info = site / f"{package.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    return [str(site), str(HERE)]
