"""Inputs that gave tracebacks (issue 27) give one line naming the file and exit code 2, or a
result: an empty contexts file, one where no sentence holds a query word, a lone surrogate
or deep nesting in JSON-lines contexts, and a cut ``model.safetensors`` in an ``hf:``
folder, which ``--skip-unloadable`` skips with its reason."""

from __future__ import annotations

import json
import shutil
import warnings

import pandas as pd
import pytest
from conftest import MINI_QUERY, snapshot

from wefe_same.cli import main
from wefe_same.errors import ModelError
from wefe_same.models import LoadOptions, resolve_model
from wefe_same.models.encoders.contexts import read_sentences
from wefe_same.models.encoders.weights import safetensors_problem

pytestmark = pytest.mark.usefixtures("module_encoder_cache")


@pytest.fixture(scope="module")
def bert(tiny):
    return tiny["bert"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    return tmp_path


def rank(args, capsys):
    code = main(["rank", "--queries", "mini.toml", "--metrics", "WEAT", "--permutations", "0", "--no-cache",
                 "--formats", "svg", *args])
    return code, capsys.readouterr().err


CONTEXTS = [
    ("empty.txt", b"", r"contexts file .*empty.txt: holds no sentence"),
    ("blank.txt", b"\n  \n\n", r"contexts file .*blank.txt: holds no sentence"),
    ("empty.jsonl", b"\n", r"contexts file .*empty.jsonl: holds no sentence"),
    ("lone.jsonl", b'"The nurse is here."\n"The caf\\ud800 nurse."\n',
     r"contexts file .*lone.jsonl, line 2: holds a lone surrogate '\\ud800' \(an escape \\ud800 of half a character\)"),
    ("lone_object.jsonl", b'{"text": "\\udfff nurse"}\n', r"contexts file .*lone_object.jsonl, line 1: holds a lone surrogate '\\udfff'"),
    ("deep.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n", r"contexts file .*deep.jsonl, line 1: JSON nested too deeply"),
]


@pytest.mark.parametrize(("name", "content", "message"), CONTEXTS, ids=[c[0] for c in CONTEXTS])
def test_a_contexts_file_that_cannot_serve_is_one_line_before_any_work(work, capsys, bert, name, content, message):
    (work / name).write_bytes(content)
    with pytest.raises(ModelError, match=message):
        read_sentences(work / name) if content.strip() else resolve_model(
            f"hf:{bert}", LoadOptions(contexts=str(work / name))).lookup(["nurse"])
    before = snapshot(work)
    code, err = rank(["--models", f"hf:{bert}", "--contexts", name, "--out", "results"], capsys)
    assert code == 2 and "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("wefe-same: error: contexts file ") and name in line
    assert snapshot(work) == before  # no results folder, nothing of the user's touched


def test_contexts_with_no_sentence_holding_a_query_word_mark_every_word_missing(work, capsys, bert):
    """No sentence holds any word: nothing to encode (np.vstack of nothing raised); every word
    is missing, and the run finishes with NaN scores."""
    (work / "other.txt").write_text("The cat sat on the mat.\nIt rained all day.\n")
    source = resolve_model(f"hf:{bert}", LoadOptions(contexts=str(work / "other.txt")))
    assert source.lookup(["nurse", "doctor"]) == {}
    matrix, has = source.lookup_matrix(["doctor", "nurse"])
    assert matrix.shape[0] == 2 and not has.any()
    assert json.loads(source.describe()["context_counts"]) == {"doctor": 0, "nurse": 0}


def test_no_context_sentence_for_any_word_finishes_the_run(work, capsys, bert):
    (work / "other.txt").write_text("The cat sat on the mat.\n")
    code, err = rank(["--models", f"hf:{bert}", "--contexts", "other.txt", "--out", "results"], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    lookups = pd.read_csv(work / "results" / "lookups.csv.gz")
    assert len(lookups) == 8 and set(lookups["status"]) == {"missing"}


# -- a damaged model.safetensors -------------------------------------------------------------------


def _damaged_copy(bert, folder, how):
    shutil.copytree(bert, folder)
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes({"cut": data[: len(data) // 2], "padded": data + b"\0" * 16,
                         "header": (10**12).to_bytes(8, "little") + data[8:], "json": data[:8] + b"{" * 8 + data[16:],
                         "empty": b""}[how])
    return weights


@pytest.mark.parametrize(("how", "problem"), [
    ("cut", r"\d+ bytes where its header describes \d+: cut short or padded"),
    ("padded", r"\d+ bytes where its header describes \d+: cut short or padded"),
    ("header", r"its header length 1000000000000 is beyond its \d+ bytes"),
    ("json", r"its header is not JSON"),
    ("empty", r"0 bytes: shorter than its 8-byte header length"),
])
def test_a_damaged_safetensors_file_is_named_before_loading(tmp_path, bert, how, problem):
    assert safetensors_problem(bert / "model.safetensors") is None
    weights = _damaged_copy(bert, tmp_path / "damaged", how)
    with pytest.raises(ModelError, match=rf"^model spec 'hf:.*damaged': .*model.safetensors is not a readable "
                                         rf"safetensors file \({problem}\)$"):
        resolve_model(f"hf:{tmp_path / 'damaged'}")
    assert safetensors_problem(weights) is not None


def test_a_damaged_safetensors_exits_2_or_is_skipped_with_its_reason(work, capsys, bert):
    _damaged_copy(bert, work / "damaged", "cut")
    before = snapshot(work)
    code, err = rank(["--models", "hf:damaged", f"hf:{bert}", "--out", "results"], capsys)
    assert code == 2 and "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("wefe-same: error: ") and "damaged/model.safetensors is not a readable safetensors" in line
    assert snapshot(work) == before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, err = rank(["--models", "hf:damaged", f"hf:{bert}", "--skip-unloadable", "--out", "results"], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    manifest = json.loads((work / "results" / "manifest.json").read_text())
    (skipped,) = manifest["skipped_models"]
    assert skipped["spec"] == "hf:damaged" and "cut short or padded" in skipped["reason"]
    assert [m["name"] for m in manifest["models"]] == ["bert"]


def test_safetensors_errors_while_loading_are_one_line_too(tmp_path, bert, monkeypatch):
    """Damage the header check cannot see (a header whose offsets agree with the size but
    whose dtype is unknown) still fails in one line, through the loader."""
    folder = tmp_path / "odd"
    shutil.copytree(bert, folder)
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    n = int.from_bytes(data[:8], "little")
    header = data[8:8 + n].replace(b'"F32"', b'"Q99"')
    weights.write_bytes(data[:8] + header + data[8 + n:])
    assert safetensors_problem(weights) is None
    with pytest.raises(ModelError, match=r"^model spec 'hf:.*odd': cannot load .*odd: a weights file is damaged \("):
        resolve_model(f"hf:{folder}").lookup(["nurse"])
