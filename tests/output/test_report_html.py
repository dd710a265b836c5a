"""report.html: written with every results folder, rebuilt by `wefe-same report`, self-contained,
escaped, and rendered by a real browser (headless Chromium) without a script error."""

import gzip
import html
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from conftest import GENDER_WORDS, random_source, snapshot

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.cli import main
from wefe_same.output import report_data, report_html
from wefe_same.output.folder import read_manifest
from wefe_same.output.report_svg import fmt

HOSTILE_MODEL = "<script>alert(1)</script>"
HOSTILE_WORD = '<img src=x onerror="alert(2)">'
WORDS = [*GENDER_WORDS, HOSTILE_WORD]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small run: four models (one named like a script), a word named like an image tag,
    bootstrap intervals; saved without figures (fast)."""
    sources = [random_source(f"model_{i}", seed=i, words=WORDS) for i in range(3)]
    sources.append(random_source(HOSTILE_MODEL, seed=7, words=WORDS))
    q = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good", HOSTILE_WORD]),
               WordSet("care", ["nurse", "teacher", "sad", "happy"])])
    result = rank(sources, [q], bootstrap=20, execution=Execution(progress=False))
    out = result.save(tmp_path_factory.mktemp("run") / "results", formats=())
    return result, out


class Page(HTMLParser):
    """Tags, attributes and text of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.titles: list[str] = []
        self._in_title = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.titles.append(data)


def test_every_results_folder_has_a_report_in_its_inventory(run):
    _, out = run
    assert (out / "report.html").is_file()
    assert "report.html" in read_manifest(out)["files"]


def test_report_is_self_contained_escaped_and_shows_every_model_and_metric(run):
    result, out = run
    raw = (out / "report.html").read_bytes()
    assert len(raw) <= report_html.MAX_BYTES
    text = raw.decode("utf-8")
    page = Page(text)
    words = "\n".join(page.text)
    for name in [*result.rankings.index, *result.metric_names]:
        assert name in words, name
    # The hostile names are shown as text, never as markup: one script (ours), no image.
    assert HOSTILE_MODEL not in text and html.escape(HOSTILE_MODEL) in text
    assert HOSTILE_WORD not in text and HOSTILE_WORD in words
    scripts = [attrs for tag, attrs in page.tags if tag == "script"]
    assert scripts == [{}]
    assert not [tag for tag, _ in page.tags if tag in ("img", "link", "iframe", "object", "embed")]
    for tag, attrs in page.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href")
        assert href is None or href.startswith("#"), (tag, attrs)
        for k, v in attrs.items():
            assert "http" not in (v or "") or k == "xmlns", (tag, k, v)
    # The sections, in the order the issue lists them.
    ids = [attrs["id"] for tag, attrs in page.tags if tag == "section"]
    assert ids == [key for key, _ in report_html.SECTIONS if key not in ("debias", "measurement")]  # neither here
    # Figures: the rank matrix, the correlations and one heatmap per metric, as inline SVG.
    assert sum(tag == "svg" for tag, _ in page.tags) == 2 + len(result.scores)


def test_tooltips_and_tables_carry_the_run_s_numbers(run):
    result, out = run
    page = Page((out / "report.html").read_text(encoding="utf-8"))
    titles = set(page.titles)
    # A correlation cell: rho and its p-value.
    rho, p = result.correlations.at["WEAT", "SAME"], result.correlation_pvalues.at["WEAT", "SAME"]
    assert any(t.startswith(f"WEAT × SAME: Spearman {fmt(rho)}, p = {fmt(p)}") for t in titles)
    # A score cell: model, subquery and the value.
    sq = result.scores["SAME"].columns[0]
    value = result.scores["SAME"].at["model_1", sq]
    assert f"model_1\n{sq}\nSAME = {fmt(value, 4)}" in titles
    # A rank cell with its bootstrap interval.
    row = result.rank_stability.query("model == 'model_2' and metric == 'WEAT'").iloc[0]
    tip = f"model_2 · WEAT: rank {int(row['rank'])}"
    assert any(t.startswith(tip) for t in titles)
    if row["rank_ci_low"] != row["rank_ci_high"]:
        assert f"{tip}, 95 % bootstrap interval {int(row['rank_ci_low'])}–{int(row['rank_ci_high'])}" in "".join(titles)
    # The sortable rankings table: each model's rank under each metric, as data-v.
    cells = [attrs.get("data-v") for tag, attrs in page.tags if tag == "td"]
    weat = result.rankings["WEAT"]
    assert all(repr(float(r)) in cells for r in weat)


def test_every_table_has_a_filter_box_and_sort_buttons(run):
    """Issue 21, item 5: each table sorts (a button in every header: keyboard reachable and
    pressed with Enter or Space) and filters (a labelled search box right before it)."""
    _, out = run
    text = (out / "report.html").read_text(encoding="utf-8")
    tables = text.split("<table")[1:]
    assert len(tables) >= 8
    before = text.split("<table")[:-1]
    for head, table in zip(before, tables):
        box = head[head.rindex('<div class="filter">'):]
        assert '<input type="search"' in box and 'aria-label="Filter the rows of the table: ' in box
        assert box.endswith('<div class="scroll rows">'), box[-200:]  # nothing between the box and its table
        header = table[:table.index("</thead>")]
        cells = header.count("<th>") + header.count("<th ")
        assert cells >= 2 and header.count('<button type="button" class="sort">') == cells, header
        assert 'class="sortable"' in table[:table.index(">")]


def test_coverage_counts_words_found_and_missing(tmp_path):
    a = random_source("full", seed=1)
    b = random_source("partial", seed=2, words=[w for w in GENDER_WORDS if w != "nurse"])
    q = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer", "good"]), WordSet("care", ["nurse", "teacher", "sad"])])
    out = rank([a, b], [q], execution=Execution(progress=False)).save(tmp_path / "r", formats=())
    text = (out / "report.html").read_text(encoding="utf-8")
    coverage = text[text.index('<section id="coverage">'):text.index('<section id="warnings">')]
    rows = {Page(row).text[0]: Page(row).text for row in coverage.split("<tr>")[2:]}
    assert rows["full"][:3] == ["full", "10", "10"]
    assert rows["partial"][:3] == ["partial", "10", "9"]
    # nurse is in one model only: marked as uneven (issue 39 item 5) in the list of words not found
    assert "nurse‡" in rows["partial"] and not any("nurse" in t for t in rows["full"][:-1])


def test_report_command_rebuilds_the_same_page_and_lists_it(run, tmp_path, capsys):
    _, out = run
    folder = tmp_path / "copy"
    shutil.copytree(out, folder)
    before = snapshot(folder)
    (folder / "report.html").unlink()
    manifest = read_manifest(folder)
    del manifest["files"]["report.html"]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["report", str(folder)]) == 0
    assert capsys.readouterr().out.strip() == f"Wrote {folder.resolve() / 'report.html'}"
    after = snapshot(folder)
    assert after.pop("manifest.json") and before.pop("manifest.json")
    after.pop(".wefe-same-owner.json"), before.pop(".wefe-same-owner.json")
    assert after == before  # the page rebuilt from the tables equals the one written with them
    assert read_manifest(folder)["files"]["report.html"] == read_manifest(out)["files"]["report.html"]
    assert main(["report", str(folder)]) == 0  # the rebuilt folder is still the tool's own


@pytest.mark.parametrize("make", ["empty", "foreign", "edited", "missing"])
def test_report_command_refuses_folders_it_did_not_write(run, tmp_path, capsys, make):
    _, out = run
    folder = tmp_path / "f"
    if make == "empty":
        folder.mkdir()
        (folder / "notes.txt").write_text("mine")
    elif make == "missing":  # a file of the inventory removed since
        shutil.copytree(out, folder)
        (folder / "tables" / "rankings.md").unlink()
    else:
        shutil.copytree(out, folder)
        (folder / ("notes.txt" if make == "foreign" else "rankings.csv")).write_text("mine")
    before = snapshot(folder)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(folder) in err
    assert snapshot(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == ["f"]  # no staged folder left behind


def test_a_report_that_cannot_be_built_is_a_warning(monkeypatch, tmp_path, run):
    result, _ = run

    def broken(data):
        raise RuntimeError("boom")

    monkeypatch.setattr(report_html, "build_report", broken)
    with pytest.warns(UserWarning, match="report.html: could not be built"):
        out = result.save(tmp_path / "r", formats=())
    assert not (out / "report.html").exists() and (out / "rankings.csv").is_file()
    assert any("report.html" in w for w in read_manifest(out)["warnings"])


@pytest.mark.parametrize("name", report_data.WORD_TABLES)
def test_the_word_table_is_read_in_any_of_its_formats(run, tmp_path, name):
    result, _ = run
    table = result.word_bias
    path = tmp_path / name
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
        table.to_parquet(path, index=False)
    elif name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            table.to_csv(fh, index=False)
    else:
        table.to_csv(path, index=False)
    back = report_data.read_word_bias(tmp_path)
    expected = table[table["metric"].isin([m for m, _ in report_data.WORD_FIGURE_PREFERENCE])]
    assert len(back) == len(expected) and set(back["word"]) == set(expected["word"])
    assert HOSTILE_WORD in set(back["word"])
    pd.testing.assert_series_equal(back["value"].reset_index(drop=True),
                                   expected["value"].astype(float).reset_index(drop=True), check_names=False)


# -- in a real browser ------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "LANG": "C.UTF-8"})


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs it)")
def test_report_renders_in_headless_chromium_without_a_script_error(run, tmp_path):
    result, out = run
    url = (out / "report.html").as_uri()
    dom = _chromium(["--dump-dom", url], tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Uncaught" not in dom.stderr, dom.stderr[-2000:]
    page = Page(dom.stdout)
    body = next(attrs for tag, attrs in page.tags if tag == "body")
    assert body.get("data-ready") == "1" and "data-error" not in body, body
    words = "\n".join(page.text)
    for name in [*result.rankings.index, *result.metric_names]:
        assert name in words, name
    # The charts are in the rendered DOM, cells and all.
    svgs = sum(tag == "svg" for tag, _ in page.tags)
    rects = sum(tag == "rect" for tag, _ in page.tags)
    assert svgs == 2 + len(result.scores)
    assert rects >= sum(m.size for m in result.scores.values())
    # That the script ran to its end is the body's data-ready mark above; sorting and
    # filtering are tested on their own in test_report_sorting.py.

    shot = tmp_path / "report.png"
    taken = _chromium(["--window-size=1280,2400", f"--screenshot={shot}", url], tmp_path / "profile2")
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    from PIL import Image

    pixels = Image.open(shot).convert("L")
    assert pixels.size == (1280, 2400)
    assert len(set(pixels.tobytes())) > 50  # text and colour, not a blank page
