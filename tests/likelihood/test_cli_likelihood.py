"""``wefe-same rank --likelihood``: hostile inputs give one line, exit 2, and write nothing;
a run with a static model writes the likelihood tables with the reason of its NaN."""

from __future__ import annotations

import pandas as pd
import pytest
from tiny_lms import CROWS_CSV

from wefe_same.cli import main

FAST = ["--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache"]


def _run(args, capsys):
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse refuses a bad choice itself
        code = exit_.code
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("wefe-same: warning:")]
    return code, err


@pytest.mark.parametrize(("value", "message"), [
    ("crowspairs=x.csv", "unknown likelihood benchmark 'crowspairs'"),
    ("crows-pairs", "name its file (crows-pairs=FILE); the data is not shipped and is never downloaded without "
                    "--allow-download"),
    ("crows-pairs=bad.csv", "bad.csv: CrowS-Pairs file lacks the column(s) sent_less, stereo_antistereo"),
    ("stereoset=bad.csv", "bad.csv: StereoSet file is not JSON"),
    ("crows-pairs=missing.csv", "missing.csv: cannot read CrowS-Pairs file"),
])
def test_a_bad_likelihood_argument_is_one_line_exit_2_and_nothing_written(tmp_path, monkeypatch, capsys, value,
                                                                          message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.csv").write_text("sent_more,bias_type\nx,gender\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, err = _run(["rank", "--models", "glove-6b-50d", "--queries", "gender", "--out", "res",
                      "--likelihood", value, *FAST], capsys)
    assert code == 2 and len(err) == 1 and message in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "bad.csv").read_text(encoding="utf-8") == "sent_more,bias_type\nx,gender\n"


def test_a_bad_scoring_is_refused_by_the_parser(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, err = _run(["rank", "--likelihood", f"crows-pairs={CROWS_CSV}", "--likelihood-scoring", "sum"], capsys)
    assert code == 2 and "invalid choice: 'sum'" in err[-1]


def test_a_scoring_without_a_likelihood_benchmark_is_one_line_exit_2_and_nothing_written(tmp_path, monkeypatch,
                                                                                         capsys):
    monkeypatch.chdir(tmp_path)
    code, err = _run(["rank", "--models", "glove-6b-50d", "--queries", "gender", "--out", "res",
                      "--likelihood-scoring", "pll", *FAST], capsys)
    assert code == 2 and err == ["wefe-same: error: The 'likelihood_scoring' parameter of rank says how the "
                                 "likelihood benchmarks are scored, and no likelihood benchmark was given."], err
    assert list(tmp_path.iterdir()) == []


def test_a_static_model_gets_nan_with_its_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _ = _run(["rank", "--models", "glove-6b-50d", "--queries", "gender", "--out", "res",
                    "--likelihood", f"crows-pairs={CROWS_CSV}", *FAST], capsys)
    assert code == 0
    table = pd.read_csv(tmp_path / "res" / "likelihood.csv")
    assert table["value"].isna().all() and set(table["reason"]) == {"static word vectors: not a language model"}
    assert pd.read_csv(tmp_path / "res" / "rankings.csv", index_col=0)["likelihood:crows-pairs"].isna().all()
