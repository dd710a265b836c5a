"""Numbers in user CSVs are plain decimals (issue 15, item 14): Python's float() takes
"1_000", non-ASCII digits, "nan", "inf" and "1e999"; a benchmark or an --external table
holding them is refused naming the file, the line and the column."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GENDER_WORDS, snapshot, write_glove

from wefe_same.analysis.external import load_external
from wefe_same.cli import main
from wefe_same.errors import ExternalError, QualityError
from wefe_same.quality.datasets import load_similarity

HOSTILE = ["1_000", "١٢", "１２", "nan", "inf", "-Infinity", "1e999", "0x1p3", "٣.5"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_similarity_score_is_refused_naming_file_line_and_column(tmp_path, bad):
    path = tmp_path / "pairs.txt"
    path.write_text(f"cat dog 7.5\ncar bus {bad}\n", encoding="utf-8")
    with pytest.raises(QualityError) as err:
        load_similarity(path)
    assert str(err.value).startswith(f"{path}:2: expected 'word1 word2 score' with a number in column 3")


@pytest.mark.parametrize("bad", ["1_000", "١٢", "inf"])
def test_a_bad_number_on_the_first_line_is_not_taken_for_a_header(tmp_path, bad):
    path = tmp_path / "pairs.txt"
    path.write_text(f"cat dog {bad}\ncar bus 3\n", encoding="utf-8")
    with pytest.raises(QualityError, match=rf"^{path}:1: "):
        load_similarity(path)


def test_plain_decimals_still_load(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("w1,w2,score\ncat,dog,+7.5\ncar,bus,.5\nsun,moon,1E2\n", encoding="utf-8")
    assert load_similarity(path).scores.tolist() == [7.5, 0.5, 100.0]


@pytest.mark.parametrize("bad", [b for b in HOSTILE if b != "nan"])  # "nan" is a documented missing value there
def test_external_cell_is_refused_naming_file_line_and_column(tmp_path, bad):
    path = tmp_path / "ext.csv"
    path.write_text(f"model,gap\na,0.5\nb,{bad}\n", encoding="utf-8")
    with pytest.raises(ExternalError) as err:
        load_external(path, ["a", "b"])
    message = str(err.value)
    assert str(path) in message and "line 3" in message and "column 'gap'" in message and repr(bad) in message


def test_cli_refuses_a_bad_external_number_and_keeps_the_earlier_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_glove(tmp_path / "m.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    (tmp_path / "ext.csv").write_text("model,gap\nm,1_000\n", encoding="utf-8")
    args = ["rank", "--models", "m.txt", "--queries", "gender", "--metrics", "WEAT", "--permutations", "0",
            "--formats", "svg", "--no-cache", "--out", "res"]
    assert main(args) == 0
    capsys.readouterr()
    before = snapshot(tmp_path)
    code = main([*args, "--external", "ext.csv"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("wefe-same: warning:")]
    assert code == 2 and len(lines) == 1, err
    assert "ext.csv" in lines[0] and "line 2" in lines[0] and "'gap'" in lines[0] and "'1_000'" in lines[0]
    assert snapshot(tmp_path) == before
