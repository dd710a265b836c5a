"""Zoos with bad models (issue 21, item 4): every unusable model named at once before any
work; ``--skip-unloadable`` ranks the rest and records the skipped ones."""

from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, no_hang, write_glove

from wefe_same import Execution, Loading, rank
from wefe_same.cli import main
from wefe_same.errors import ModelError
from wefe_same.run.zoo import load_models_file

FAST = ["--metrics", "WEAT", "SAME", "--permutations", "0", "--formats", "svg", "--no-cache"]


@pytest.fixture
def zoo(tmp_path, monkeypatch):
    """Three good GloVe files and a query file, in the current directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    for i in range(3):
        write_glove(tmp_path / f"good{i}.txt", GENDER_WORDS, np.random.default_rng(i).normal(size=(12, 5)))
    return tmp_path


BAD = ["nosuchmodel", "hf:missing-folder/x", "glove:absent.txt"]


def test_every_unusable_model_is_named_at_once(zoo, capsys):
    code = main(["rank", "--models", "good0.txt", *BAD, "good1.txt", "--queries", "mini.toml", *FAST])
    err = capsys.readouterr().err.strip()
    assert code != 0 and "\n" not in err and not (zoo / "results").exists()
    assert "3 of the 5 models cannot be used" in err and "--skip-unloadable" in err
    for spec in ("nosuchmodel", "missing-folder/x", "absent.txt"):
        assert spec in err, spec


def test_skip_unloadable_ranks_the_rest_and_records_the_skipped(zoo, capsys):
    code = main(["rank", "--models", "good0.txt", *BAD, "good1.txt", "good2.txt", "--queries", "mini.toml",
                 "--skip-unloadable", *FAST])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: skipped 3 models that cannot be used: 'nosuchmodel', 'hf:missing-folder/x'" in err
    manifest = json.loads((zoo / "results" / "manifest.json").read_text())
    assert [m["name"] for m in manifest["models"]] == ["good0", "good1", "good2"]
    assert [s["spec"] for s in manifest["skipped_models"]] == BAD
    assert all(s["reason"] for s in manifest["skipped_models"])
    assert any("skipped 3 models" in w for w in manifest["warnings"])
    report = (zoo / "results" / "report.html").read_text()
    assert "Skipped models" in report and "absent.txt" in report


def test_skip_unloadable_with_nothing_left_is_an_error(zoo):
    with pytest.raises(ModelError, match="2 of the 2 models cannot be used"):
        rank(["nosuchmodel", "glove:absent.txt"], queries=str(zoo / "mini.toml"),
             loading=Loading(skip_unloadable=True), execution=Execution(cache=False, progress=False))


def test_without_bad_models_the_manifest_has_no_skipped_entry(zoo):
    result = rank([str(zoo / "good0.txt")], queries=str(zoo / "mini.toml"), metrics="WEAT", permutations=0,
                  loading=Loading(skip_unloadable=True), execution=Execution(cache=False, progress=False))
    assert "skipped_models" not in result.manifest and result.manifest["settings"]["skip_unloadable"] is True


# ----------------------------------------------------------------------------- models files
def test_a_csv_models_file_with_a_glob_and_numeric_metadata(zoo, capsys):
    (zoo / "zoo").mkdir()
    for i in (2, 0, 1):  # written out of order: the glob sorts
        (zoo / f"good{i}.txt").rename(zoo / "zoo" / f"m{i}.txt")
    (zoo / "zoo.csv").write_text("spec,family,parameters,year\n"
                                 "glove:zoo/m*.txt,random,5,2020\n")
    code = main(["rank", "--models-file", "zoo.csv", "--queries", "mini.toml", *FAST])
    assert code == 0, capsys.readouterr().err
    manifest = json.loads((zoo / "results" / "manifest.json").read_text())
    assert [m["name"] for m in manifest["models"]] == ["m0", "m1", "m2"]
    assert manifest["models"][0]["metadata"] == {"family": "random", "parameters": 5.0, "year": 2020.0}


def test_numeric_metadata_enter_the_correlations_like_external_columns(zoo):
    (zoo / "zoo.toml").write_text(
        "".join(f'[[models]]\nspec = "glove:good{i}.txt"\nname = "m{i}"\nfamily = "f{i % 2}"\n'
                f"parameters = {10 ** (i + 1)}\n" for i in range(3)))
    result = rank(queries=str(zoo / "mini.toml"), metrics=["WEAT", "SAME"], permutations=0,
                  models_file=zoo / "zoo.toml", execution=Execution(cache=False, progress=False))
    assert list(result.rankings.index) == ["m0", "m1", "m2"]
    assert "external:parameters" in result.aggregates.columns and "external:family" not in result.aggregates
    assert result.aggregates["external:parameters"].tolist() == [10.0, 100.0, 1000.0]
    assert "external:parameters" in result.correlations.columns
    # the same numbers through --external: the metadata are nothing more than that
    ext = zoo / "ext.csv"
    ext.write_text("model,parameters\nm0,10\nm1,100\nm2,1000\n")
    direct = rank([f"m{i}=glove:{zoo}/good{i}.txt" for i in range(3)], queries=str(zoo / "mini.toml"),
                  metrics=["WEAT", "SAME"], permutations=0, external=ext,
                  execution=Execution(cache=False, progress=False))
    assert result.correlations.equals(direct.correlations)


def test_globs_given_to_models_expand_sorted(zoo, monkeypatch):
    # the file system lists them in reverse: the run still takes them in sorted order
    real = glob.glob
    monkeypatch.setattr(glob, "glob", lambda *a, **k: sorted(real(*a, **k), reverse=True))
    result = rank("glove:" + str(zoo / "good*.txt"), queries=str(zoo / "mini.toml"), metrics="WEAT", permutations=0,
                  execution=Execution(cache=False, progress=False))
    assert list(result.rankings.index) == ["good0", "good1", "good2"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_models_file_that_is_not_a_regular_file_is_refused_at_once(zoo, kind):
    path = zoo / "zoo.csv"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with no_hang(10), pytest.raises(ModelError) as err:
        rank(models_file=path, queries=str(zoo / "mini.toml"), execution=Execution(cache=False, progress=False))
    assert str(path) in str(err.value) and "not a regular file" in str(err.value)


@pytest.mark.parametrize(("text", "suffix", "fragment"), [
    ("family,year\nx,1\n", ".csv", "model 1 has no 'spec'"),
    ("[[models]]\nname = 'a'\n", ".toml", "model 1 has no 'spec'"),
    ("[[models]\n", ".toml", "not valid TOML"),
    ("[other]\n", ".toml", "unknown top-level key 'other'"),
    ("spec\nglove:nothing-here-*.txt\n", ".csv", "matches nothing"),
    ("spec,a\nx\n", ".csv", "line 2 has 1 cells"),
])
def test_bad_models_files_give_one_line_errors_naming_the_file(zoo, text, suffix, fragment):
    path = zoo / f"zoo{suffix}"
    path.write_text(text)
    with pytest.raises(ModelError) as err:
        rank(models_file=path, queries=str(zoo / "mini.toml"), execution=Execution(cache=False, progress=False))
    assert str(path) in str(err.value)
    assert fragment in str(err.value) and "\n" not in str(err.value)


# ----------------------------------------------------------------------------- paths of a models file
@pytest.mark.parametrize("spec", ["good0.txt", "glove:good0.txt", "sub/../good0.txt", "npy:e.npy,good0.txt"])
def test_a_path_missing_beside_the_models_file_is_never_read_from_the_working_folder(zoo, spec):
    (zoo / "elsewhere").mkdir()
    (zoo / "elsewhere" / "zoo.csv").write_text(f'spec\n"{spec}"\n')
    np.save(zoo / "e.npy", np.ones((12, 5)))  # beside the working folder, not the models file
    with pytest.raises(ModelError) as err:
        rank(models_file=zoo / "elsewhere" / "zoo.csv", queries=str(zoo / "mini.toml"),
             execution=Execution(cache=False, progress=False))
    assert str(zoo / "elsewhere") in str(err.value) and "no such file" in str(err.value)


def test_paths_of_a_models_file_are_read_beside_it_and_names_stay_names(zoo):
    (zoo / "elsewhere").mkdir()
    (zoo / "good1.txt").rename(zoo / "elsewhere" / "good0.txt")  # same name, other vectors
    (zoo / "elsewhere" / "zoo.csv").write_text("spec\ngood0.txt\nglove-6b-50d\n")
    zoo_file = load_models_file(zoo / "elsewhere" / "zoo.csv")
    assert zoo_file.specs == [str(zoo / "elsewhere" / "good0.txt"), "glove-6b-50d"]


def test_an_encoder_folder_in_the_working_folder_is_not_read_for_a_models_file_elsewhere(zoo):
    (zoo / "org" / "enc").mkdir(parents=True)  # a folder of the working folder, not beside the file
    (zoo / "elsewhere").mkdir()
    (zoo / "elsewhere" / "zoo.csv").write_text("spec\nhf:org/enc\nhf:org/name-on-the-hub\n")
    specs = load_models_file(zoo / "elsewhere" / "zoo.csv").specs
    assert specs == [f"hf:{zoo / 'elsewhere' / 'org' / 'enc'}", "hf:org/name-on-the-hub"]
