"""The README and the documentation site: short README, real outputs, a strict docs build.

Every output shown in README.md and docs/**/*.md is produced by ``docs/make_readme.py``;
the outputs marked ``run(check)`` are rerun here and compared byte for byte. The site is
built with ``mkdocs build --strict`` (a broken link, anchor or API reference fails).
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _make_readme():
    spec = importlib.util.spec_from_file_location("make_readme", ROOT / "docs" / "make_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_outputs_are_real(tmp_path):
    make_readme = _make_readme()
    changed = []
    for page in make_readme.pages():
        _, page_changed = make_readme.regenerate(page.read_text(encoding="utf-8"), only_checked=True, cwd=tmp_path)
        changed += [f"{page.relative_to(ROOT)}: {c}" for c in page_changed]
    assert changed == [], f"rerun python docs/make_readme.py: {changed}"


def test_some_outputs_are_checked():
    make_readme = _make_readme()
    checked = [p.name for p in make_readme.pages() if "<!-- run(check):" in p.read_text(encoding="utf-8")]
    assert {"index.md", "queries.md", "safety.md", "layout.md"} <= set(checked)


def test_a_changed_output_is_detected():
    make_readme = _make_readme()
    text = "<!-- run(check): wefe-same queries -->\n```text\nnot what it prints\n```\n"
    new, changed = make_readme.regenerate(text, only_checked=True)
    assert changed == ["wefe-same queries"]
    assert "gender" in new and "not what it prints" not in new


def test_every_shown_output_has_been_produced():
    """No marker is followed by an empty block: each page has been through make_readme.py."""
    make_readme = _make_readme()
    empty = []
    for page in make_readme.pages():
        lines = page.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            if make_readme.MARKER.match(line):
                start, end = make_readme.blocks_after(lines, i)
                if end - start <= 2:
                    empty.append(f"{page.relative_to(ROOT)}:{i + 1}")
    assert empty == [], f"run python docs/make_readme.py: {empty}"


def test_readme_is_short_and_keeps_the_quickstart():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 12 * 1024
    assert "## Quickstart" in text
    assert '```bash\npython -m pip install -e ".[text]" && wefe-same rank\n```' in text
    # .ci/run runs exactly the README's test command.
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in ci_lines if line.startswith("python -m pip install -e \".[test]\"")]
    assert len(commands) == 1, ci_lines
    ci_command = commands[0]
    assert f"```bash\n{ci_command}\n```" in text


def test_readme_links_point_at_files_of_the_checkout():
    text = README.read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


def test_executed_notebooks_are_the_notebooks_with_their_outputs():
    for source in sorted((ROOT / "notebooks").glob("*.ipynb")):
        executed = ROOT / "docs" / "notebooks" / source.name
        assert executed.exists(), f"run python docs/make_readme.py to execute {source.name}"
        cells = [c for c in json.loads(source.read_text(encoding="utf-8"))["cells"]]
        shown = [c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"]]
        assert [(c["cell_type"], c["source"]) for c in shown] == [(c["cell_type"], c["source"]) for c in cells], (
            f"docs/notebooks/{source.name} is stale: run python docs/make_readme.py")
        code = [c for c in shown if c["cell_type"] == "code"]
        assert all(c["execution_count"] for c in code)
        assert any(c["outputs"] for c in code)
        assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]


class _Resources(HTMLParser):
    """Scripts, stylesheets and images a page loads."""

    def __init__(self):
        super().__init__()
        self.loaded: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img") and attrs.get("src"):
            self.loaded.append(attrs["src"])
        if tag == "link" and attrs.get("rel") in ("stylesheet", "preload", "preconnect") and attrs.get("href"):
            self.loaded.append(attrs["href"])


def test_the_docs_build_strictly_and_offline(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for command in ("rank", "robustness", "quality", "audit", "models", "metrics", "queries"):
        assert f"wefe-same {command}" in cli
    assert "--shared-words" in cli
    api = (site / "reference" / "api.html").read_text(encoding="utf-8")
    for name in ("api.rank", "result.RankResult", "result.RankResult.save", "audit.audit", "query.files.load_queries",
                 "query.sets.WordSet", "query.sets.Query", "query.sets.QuerySet", "query.sets.Template",
                 "metrics.registry.METRICS", "metrics.registry.MetricSpec", "metrics.result.MetricResult",
                 "errors.WefeSameError", "errors.QueryError", "validation.InvalidParameterError"):
        assert f'id="wefe_same.{name}"' in api, name
    metric_pages = sorted(p.stem for p in (site / "guide" / "metrics").glob("*.html"))
    assert len(metric_pages) == 13  # the index and one page per metric
    for notebook in ("01_quickstart", "02_wefe_case_study", "03_cosine_scores_theory"):
        assert (site / "notebooks" / f"{notebook}.html").exists()
    remote = {}
    for page in site.rglob("*.html"):
        parser = _Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        urls = [u for u in parser.loaded if re.match(r"(https?:)?//", u)]
        if urls:
            remote[str(page.relative_to(site))] = urls
    assert remote == {}, "pages load scripts, styles or images from the network"


@pytest.mark.parametrize("name", ["weat", "same", "directbias"])
def test_metric_pages_name_their_paper_template_and_order(name):
    text = (ROOT / "docs" / "guide" / "metrics" / f"{name}.md").read_text(encoding="utf-8")
    for heading in ("**Paper:**", "**Template:**", "**Formula**", "**Order:**"):
        assert heading in text
