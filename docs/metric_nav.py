"""A mkdocs hook: the User guide's Metrics section lists one page per metric of the registry.

The nav is built from ``wefe_same.metrics.registry.METRICS`` at build time (the page of a
metric is ``guide/metrics/<name in lower case>.md``, the name the report's glossary
gives), so a new built-in metric needs its module and its page, not an edit of
``mkdocs.yml``. A metric without its page fails the (strict) build, naming the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

from wefe_same.metrics.registry import METRICS

#: The nav entry whose list this hook fills: User guide › Metrics.
SECTION = ("User guide", "Metrics")


def metric_pages(docs_dir: Path) -> list[dict[str, str]]:
    """One nav entry per built-in metric, in the registry's order."""
    entries = []
    for name in METRICS:
        page = f"guide/metrics/{name.lower()}.md"
        if not (docs_dir / page).is_file():
            raise PluginError(f"metric {name!r} has no documentation page: add docs/{page}")
        entries.append({name: page})
    return entries


def on_config(config: Any) -> Any:
    section: list[Any] = config["nav"]
    for title in SECTION:
        section = next(entry[title] for entry in section if isinstance(entry, dict) and title in entry)
    section[:] = [entry for entry in section if not isinstance(entry, dict)] + metric_pages(Path(config["docs_dir"]))
    return config
