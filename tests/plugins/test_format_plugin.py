"""A file format of an installed package (issue 40 item 2): ``tests/plugins/toy_format.py``
registered through the ``wefe_same.formats`` entry point (a temporary ``*.dist-info``;
PYTHONPATH for the CLI) is read as ``toyvec:PATH`` and as a bare ``PATH.toyvec`` by
``rank()`` and by ``wefe-same rank`` on two workers, listed by ``wefe-same models``, and a
broken entry point is one warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from plugin_site import install_plugin

from wefe_same import Execution, Query, WordSet, rank
from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.models import resolve_model
from wefe_same.models.listing import models_listing
from wefe_same.models.readers import formats

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
WORDS = ["he", "she", "man", "woman", "doctor", "engineer", "nurse", "teacher"]
QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    sys.path[:0] = install_plugin(site, "toy-format-plugin", formats.ENTRY_POINT_GROUP,
                                  {"toyvec": "toy_format:FORMAT", "txtclaim": "toy_format:CLAIMS_TXT",
                                   "glove": "toy_format:FORMAT"})
    formats.plugin_formats.cache_clear()
    yield site
    del sys.path[:2]
    formats.plugin_formats.cache_clear()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("toyvec")
    for i in range(3):
        rows = np.random.default_rng(i).normal(size=(len(WORDS), 5))
        (root / f"m{i}.toyvec").write_text("".join(f"{w}: " + ",".join(f"{x:.6f}" for x in r) + "\n"
                                                   for w, r in zip(WORDS, rows)), encoding="utf-8")
    return root


def test_the_plugin_is_a_format_and_broken_entry_points_are_one_warning_each(site):
    formats.plugin_formats.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        known = formats.file_formats()
    said = [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]
    assert "toyvec" in known and "txtclaim" not in known
    assert len(said) == 2 and any("claims the extension .txt" in s for s in said)
    assert any("takes the name of the built-in file format glove" in s for s in said)
    assert "toyvec:" in models_listing() and "(a bare path: .toyvec)" in models_listing()


def test_rank_reads_the_plugin_format_by_scheme_and_by_extension(site, files):
    by_scheme = resolve_model(f"toyvec:{files / 'm0.toyvec'}")
    bare = resolve_model(str(files / "m1.toyvec"))
    assert type(by_scheme).__name__ == type(bare).__name__ == "ToyVectors" and bare.name == "m1"
    with pytest.raises(ModelError, match="no-such.toyvec"):
        resolve_model(f"toyvec:{files / 'no-such.toyvec'}")
    result = rank([f"toyvec:{files / 'm0.toyvec'}", str(files / "m1.toyvec"), str(files / "m2.toyvec")], [QUERY],
                  metrics=["WEAT", "SAME"], permutations=0, execution=Execution(cache=False, progress=False))
    assert list(result.rankings.index) == ["m0", "m1", "m2"]
    assert result.aggregates.notna().all().all()
    expected = np.array([float(x) for x in (files / "m1.toyvec").read_text().splitlines()[0].split(": ")[1].split(",")])
    np.testing.assert_allclose(bare.lookup(["he"])["he"], expected)


def test_the_cli_ranks_the_plugin_format_on_workers_and_reports_it(site, files, tmp_path):
    out = tmp_path / "res"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), str(HERE)])}
    done = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models",
                           *(str(files / f"m{i}.toyvec") for i in range(3)), "--queries", "gender", "--metrics",
                           "WEAT", "SAME", "--permutations", "0", "--workers", "2", "--no-cache", "--out", str(out),
                           "--formats", "png"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [m.get("kind") for m in manifest["models"]] == ["toyvec"] * 3, manifest["models"]
    assert "m2" in (out / "report.html").read_text()
    listing = subprocess.run([sys.executable, "-m", "wefe_same.cli", "models"], capture_output=True, text=True,
                             env=env, timeout=120)
    assert listing.returncode == 0 and "File formats of installed plugins" in listing.stdout
