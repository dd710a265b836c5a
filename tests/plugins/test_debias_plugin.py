"""A debiasing method of an installed package (issue 40 item 2): ``tests/plugins/toy_debias.py``
registered through the ``wefe_same.debias`` entry point (a temporary ``*.dist-info`` on
``sys.path``, PYTHONPATH for the CLI) is a variant suffix of the grammar, checks its options,
is paired with its base (the debias verdicts and the lipstick tests), runs on worker
processes, and is listed; a broken entry point is one warning and breaks only its specs."""

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
from wefe_same.models.debias import registry
from wefe_same.models.debias.methods import debias_methods, made_from
from wefe_same.models.listing import models_listing
from wefe_same.models.specs import parse_spec

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
WORDS = ["he", "she", "man", "woman", "boy", "girl", "doctor", "engineer", "nurse", "teacher", "good", "bad"]
QUERY_TOML = """
[sets.male]
words = ["he", "man", "boy"]
[sets.female]
words = ["she", "woman", "girl"]
[sets.career]
words = ["doctor", "engineer", "good"]
[sets.care]
words = ["nurse", "teacher", "bad"]
[[queries]]
targets = ["male", "female"]
attributes = ["career", "care"]
"""


def forget_plugins() -> None:
    registry.suffixes.cache_clear()
    registry.plugin_methods.cache_clear()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    sys.path[:0] = install_plugin(site, "toy-debias-plugin", registry.ENTRY_POINT_GROUP,
                                  {"toy-debias": "toy_debias:METHOD", "not-a-method": "toy_debias:NOT_A_METHOD",
                                   "hsr-debias": "toy_debias:METHOD"})
    forget_plugins()
    yield site
    del sys.path[:2]
    forget_plugins()


@pytest.fixture(scope="module")
def glove(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "g.txt"
    rows = np.random.default_rng(0).normal(size=(len(WORDS), 6))
    path.write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in r) + "\n" for w, r in zip(WORDS, rows)))
    return path


def loaded():
    forget_plugins()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        methods = debias_methods()
    return methods, [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]


def test_the_plugin_is_a_method_of_the_grammar_and_broken_entry_points_are_one_warning_each(site):
    methods, said = loaded()
    assert "+toy-debias" in registry.suffixes() and "+toy-debias" in methods
    assert methods["+hsr-debias"].reference.startswith("Yang & Feng")  # the built-in keeps its name
    assert len(said) == 2
    assert any("'not-a-method' (toy_debias:NOT_A_METHOD, package toy-debias-plugin 0.1) is not used: "
               "ModelError: is not a DebiasMethod but int" in s for s in said)
    assert any("'hsr-debias'" in s and "takes the name of the built-in debiasing method hsr-debias" in s for s in said)
    spec = parse_spec("mine=g.txt+hard-debias+toy-debias[strength=0.5]")
    assert [str(v) for v in spec.variants] == ["+hard-debias", "+toy-debias[strength=0.5]"]
    with pytest.raises(ModelError, match=r"no debiasing method '\+not-a-method' \(a plugin that failed to load\?\)"):
        resolve_model("glove-6b-50d+not-a-method")


def test_the_plugin_checks_its_options_and_pairs_its_objects(site, glove):
    loaded()
    source = resolve_model(f"{glove}+toy-debias[strength=0.5]")
    assert type(source).__name__ == "ToyDebiased" and source.strength == 0.5
    assert made_from(source) == (source.base, "+toy-debias")
    with pytest.raises(ModelError, match="strength"):
        resolve_model(f"{glove}+toy-debias[strength=2]")
    with pytest.raises(ModelError, match="no option 'alpha'|alpha"):
        resolve_model(f"{glove}+toy-debias[alpha=1]")
    he, she = (source.lookup(["he", "she"])[w] for w in ("he", "she"))
    base = source.base.lookup(["he", "she"])
    direction = (base["he"] - base["she"]) / np.linalg.norm(base["he"] - base["she"])
    assert abs(he @ direction) == pytest.approx(abs(base["he"] @ direction) / 2)  # half the component left
    assert "toy-debias" in models_listing() and "SPEC+toy-debias[strength=1]" in models_listing()


def test_rank_pairs_the_plugin_variant_with_its_base(site, glove, tmp_path):
    loaded()
    (tmp_path / "q.toml").write_text(QUERY_TOML)
    query = Query([WordSet("male", ["he", "man", "boy"]), WordSet("female", ["she", "woman", "girl"])],
                  [WordSet("career", ["doctor", "engineer", "good"]), WordSet("care", ["nurse", "teacher", "bad"])],
                  name="toy")
    result = rank([str(glove), f"{glove}+toy-debias", f"{glove}+toy-debias[strength=0.5]"], queries=[query],
                  metrics=["WEAT", "SAME"], permutations=0, execution=Execution(cache=False, progress=False))
    effect = result.debias_effect
    assert set(effect["method"]) == {"+toy-debias", "+toy-debias[strength=0.5]"}
    assert set(effect["base"]) == {"g"}
    lipstick = result.debias_lipstick  # a gender method: the tests are tried (the toy lists no vocabulary)
    assert set(lipstick["method"]) == {"+toy-debias", "+toy-debias[strength=0.5]"}
    assert lipstick["reason"].str.contains("cannot list its vocabulary").all()


def test_the_cli_ranks_the_plugin_variant_on_workers_and_reports_it(site, glove, tmp_path):
    (tmp_path / "q.toml").write_text(QUERY_TOML)
    out = tmp_path / "res"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), str(HERE)])}
    done = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", str(glove),
                           f"{glove}+toy-debias[strength=0.5]", "--queries", str(tmp_path / "q.toml"),
                           "--metrics", "WEAT", "SAME", "--permutations", "0", "--workers", "2", "--out", str(out),
                           "--formats", "png"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert any(m["name"] == "g+toy-debias[strength=0.5]" and m.get("kind") == "toy-debias"
               for m in manifest["models"]), manifest["models"]
    assert "+toy-debias[strength=0.5]" in (out / "debias_effect.csv").read_text()
    assert "g+toy-debias[strength=0.5]" in (out / "report.html").read_text()
    listing = subprocess.run([sys.executable, "-m", "wefe_same.cli", "models"], capture_output=True, text=True,
                             env=env, timeout=120)
    assert listing.returncode == 0 and "Debiasing methods of installed plugins" in listing.stdout
