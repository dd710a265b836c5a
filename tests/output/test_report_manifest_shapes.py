"""``wefe-same report`` on a manifest whose fields have another JSON shape than a run writes
(issue 27): one line naming the field, exit 2, no traceback, the folder untouched."""

from __future__ import annotations

import json

import pytest
from conftest import random_source

from wefe_same import Execution, rank
from wefe_same.cli import main
from wefe_same.output.report_html import MANIFEST_SHAPES


@pytest.fixture(scope="module")
def saved(tmp_path_factory, toy_query_module):
    sources = [random_source(f"m{i}", seed=i) for i in range(3)]
    result = rank(sources, queries=[toy_query_module], metrics=["WEAT"], permutations=0,
                  execution=Execution(cache=False))
    return result.save(tmp_path_factory.mktemp("saved") / "res", formats=["svg"])


@pytest.fixture(scope="module")
def toy_query_module():
    from wefe_same import Query, WordSet

    return Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                 [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_fixture_folder_rebuilds(saved, capsys):
    assert main(["report", str(saved)]) == 0, capsys.readouterr().err


VALUES = ([], ["a"], "x", 3, None, True, {"a": 1})
#: Every field the report reads, with every value of another shape than a run writes.
CASES = [(field, value) for field in sorted(set(MANIFEST_SHAPES) - {"files"}) for value in VALUES
         if not isinstance(value, MANIFEST_SHAPES[field])]


@pytest.mark.parametrize(("field", "value"), CASES)
def test_a_field_of_another_shape_is_one_line_exit_2(saved, capsys, tmp_path, field, value):
    folder = tmp_path / "res"
    folder.mkdir()
    for rel, data in _snapshot(saved).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest[field] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    before = _snapshot(folder)
    code = main(["report", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"manifest.json: {field!r} is a JSON" in err and "rerun `wefe-same rank`" in err
    assert _snapshot(folder) == before


@pytest.mark.parametrize("rel", ["../../newdir/x.csv", "/tmp/x.csv", "a/../../b.csv", "a\\..\\b.csv", ""])
def test_an_inventory_path_outside_the_folder_is_refused_and_nothing_is_made_outside(saved, capsys, tmp_path, rel):
    box = tmp_path / "box"
    folder = box / "res"
    for name, data in _snapshot(saved).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"][rel] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    before = _snapshot(folder)
    code = main(["report", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is not a path inside the results folder" in err
    assert _snapshot(folder) == before and sorted(p.name for p in tmp_path.rglob("*") if p.parent != folder
                                                  and folder not in p.parents) == ["box", "res"]
