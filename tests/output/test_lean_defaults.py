"""The lean results folder: what the defaults write, and figures drawn only when their data changed.

Issue 16: the default run's folder holds at most 40 files; the word-level table is
Parquet and the long tables gzipped, with the same numbers as the plain CSV that
``full_tables=True`` writes; a rerun with unchanged data draws no figure.
"""

import gzip
import json
from dataclasses import replace

import pandas as pd
import pytest

import wefe_same.output.rendering as rendering
from wefe_same import Execution, rank
from wefe_same.metrics.registry import METRICS
from wefe_same.output.tables import safe_name


@pytest.fixture(scope="module")
def result():
    # Every metric (the file count grows with the metrics, not with the models).
    return rank(["glove-6b-50d", "glove-6b-50d+hard-debias"], queries=["weat"], permutations=20,
                execution=Execution(cache=False, progress=False))


def files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_default_folder_is_lean(result, tmp_path):
    assert set(result.metric_names) == set(METRICS)
    out = result.save(tmp_path / "res")
    written = files(out)
    assert len(written) <= 50, written  # 40 before the agreement tables (issue 41: 50)
    assert sum((out / f).stat().st_size for f in written) < 15e6
    assert {"word_bias.parquet", "details.csv.gz", "lookups.csv.gz"} <= set(written)
    assert not {"word_bias.csv", "details.csv", "lookups.csv"} & set(written)
    assert [f for f in written if f.startswith("figures/")] == [
        "figures/accumulated_rankings.pdf", "figures/accumulated_rankings.png",
        "figures/correlations.pdf", "figures/correlations.png",
        "figures/debias_effect.pdf", "figures/debias_effect.png"]  # a base and its variant: the debias figure
    assert {f"scores/{m}.csv" for m in result.scores} <= set(written)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["figures"] == "paper" and manifest["figure_formats"] == ["png", "pdf"]
    assert sorted(manifest["figure_digests"]) == ["accumulated_rankings", "correlations", "debias_effect"]


def test_compressed_tables_hold_the_full_tables(result, tmp_path):
    lean = result.save(tmp_path / "lean", formats=())
    full = result.save(tmp_path / "full", formats=(), full_tables=True)
    for name in ("details", "lookups"):
        assert gzip.decompress((lean / f"{name}.csv.gz").read_bytes()) == (full / f"{name}.csv").read_bytes()
    words = pd.read_parquet(lean / "word_bias.parquet")
    pd.testing.assert_frame_equal(words, result.word_bias, check_dtype=False)
    assert words.to_csv(index=False, float_format="%.6g").encode() == (full / "word_bias.csv").read_bytes()
    assert len(words) > 1000 and words["value"].dtype == "float64"


def test_figures_all_adds_per_metric_and_per_model_figures_and_svg(result, tmp_path):
    out = result.save(tmp_path / "res", figures="all")
    figures = [f for f in files(out) if f.startswith("figures/")]
    stems = {f.split("/")[1].rsplit(".", 1)[0] for f in figures}
    assert {f"scores_{m}" for m in result.scores} <= stems
    assert {f"most_biased_words_{safe_name(m)}" for m in result.rankings.index} <= stems
    assert len(figures) == 3 * len(stems)
    with pytest.raises(ValueError, match="figures"):
        result.save(tmp_path / "bad", figures="some")


def test_unchanged_figures_are_copied_not_drawn(result, tmp_path, monkeypatch):
    out = result.save(tmp_path / "res")
    before = {f: (out / f).read_bytes() for f in files(out) if f.startswith("figures/")}

    def no_drawing(job, formats):
        raise AssertionError(f"figure {job.stem} drawn again")

    monkeypatch.setattr(rendering, "render", no_drawing)
    result.save(out)
    assert {f: (out / f).read_bytes() for f in files(out) if f.startswith("figures/")} == before
    # Other data: that figure (only) is drawn again.
    drawn = []
    monkeypatch.setattr(rendering, "render", lambda job, formats: (drawn.append(job.stem), ({}, []))[1])
    changed = result.rankings.copy()
    changed.iloc[0, 0] = changed.iloc[1, 0]
    replace(result, rankings=changed).save(out)
    assert drawn == ["accumulated_rankings"]
