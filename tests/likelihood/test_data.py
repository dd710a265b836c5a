"""The dataset readers on the committed excerpts and on broken ones; downloads and checksums
on the excerpt; the summaries on hand-built scores. The whole files (not committed: only small
excerpts enter the repository) are checked by ``tests/likelihood/check_whole_files.py``."""

from __future__ import annotations

import hashlib
import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from tiny_lms import CROWS_CSV, STEREOSET_JSON

from wefe_same.errors import LikelihoodError
from wefe_same.likelihood import parse_benchmark
from wefe_same.likelihood.data import DOWNLOADS, checksum, download, read_crows_pairs, read_stereoset
from wefe_same.likelihood.evaluate import dataset_path
from wefe_same.likelihood.summary import crows_summary, stereoset_summary


def test_the_crows_pairs_excerpt_parses_as_pandas_reads_it():
    """Every pair, in file order, with the counts that an independent reader (pandas) gives."""
    pairs = read_crows_pairs(CROWS_CSV)
    raw = pd.read_csv(CROWS_CSV, index_col=0)
    assert len(pairs) == len(raw) == 200
    assert pairs["item_id"].tolist() == [str(i) for i in raw.index]
    assert pairs["sent_more"].tolist() == raw["sent_more"].tolist()
    assert pairs["direction"].value_counts().to_dict() == raw["stereo_antistereo"].value_counts().to_dict() == {
        "stereo": 168, "antistereo": 32}
    assert pairs["bias_type"].value_counts().to_dict() == raw["bias_type"].value_counts().to_dict()
    assert pairs.loc[1, "sent_more"] == "The poor are really ignorant about how to handle the money they do have."


def test_the_stereoset_excerpt_parses():
    examples = read_stereoset(STEREOSET_JSON)
    assert len(examples) == 30
    assert examples["bias_type"].value_counts().to_dict() == {"race": 20, "religion": 9, "profession": 1}
    first = examples.iloc[0]
    assert (first["context"], first["anti-stereotype"]) == ("The chess player was BLANK.", "The chess player was hispanic.")


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "message"), [
    ("sent_more,sent_less,bias_type\na,b,gender\n", "lacks the column(s) stereo_antistereo"),
    (",sent_more,sent_less,stereo_antistereo,bias_type\n0,a,b,both,gender\n", "line 2: stereo_antistereo is 'both'"),
    (",sent_more,sent_less,stereo_antistereo,bias_type\n0,a,,stereo,gender\n", "line 2 has an empty sentence"),
    (",sent_more,sent_less,stereo_antistereo,bias_type\n", "has no pairs"),
])
def test_a_broken_crows_file_is_one_line_naming_it(tmp_path, text, message):
    path = _write(tmp_path / "crows.csv", text)
    before = path.read_bytes()
    with pytest.raises(LikelihoodError, match="crows.csv: ") as err:
        read_crows_pairs(path)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == before


def _example(**changes):
    ex = {"id": "e1", "bias_type": "gender", "target": "mother", "context": "The mother is BLANK.",
          "sentences": [{"sentence": f"The mother is {w}.", "id": f"s{i}", "gold_label": g}
                        for i, (w, g) in enumerate([("caring", "stereotype"), ("cold", "anti-stereotype"),
                                                    ("purple", "unrelated")])]}
    ex.update(changes)
    return ex


@pytest.mark.parametrize(("doc", "message"), [
    ("{not json", "is not JSON"),
    (json.dumps({"data": {}}), "has no data.intrasentence examples"),
    (json.dumps({"data": {"intrasentence": [_example(context="The mother is here.")]}}), "context has no BLANK"),
    (json.dumps({"data": {"intrasentence": [_example(sentences=[])]}}),
     "no stereotype, anti-stereotype, unrelated sentence"),
    (json.dumps({"data": {"intrasentence": [_example(target=7)]}}), "intrasentence example 1 has no 'target' string"),
])
def test_a_broken_stereoset_file_is_one_line_naming_it(tmp_path, doc, message):
    path = _write(tmp_path / "ss.json", doc)
    with pytest.raises(LikelihoodError, match="ss.json: ") as err:
        read_stereoset(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(LikelihoodError, match="is a directory"):
        read_crows_pairs(tmp_path)


def test_benchmark_names_and_files():
    assert parse_benchmark("StereoSet=" + str(STEREOSET_JSON)) == ("stereoset", str(STEREOSET_JSON))
    with pytest.raises(LikelihoodError, match="unknown likelihood benchmark 'crows'"):
        parse_benchmark("crows=" + str(CROWS_CSV))
    with pytest.raises(LikelihoodError, match="never downloaded without --allow-download"):
        dataset_path("crows-pairs", None, allow_download=False, cache=None)
    with pytest.raises(LikelihoodError, match="winobias: no pinned download"):
        download("winobias", CROWS_CSV.parent)


class FakeResponse:
    """What ``urllib.request.urlopen`` returns, serving ``data`` (no network in the tests)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def read(self, n: int = -1) -> bytes:
        return self.data if n < 0 else self.data[:n]


def test_a_download_is_kept_only_when_its_checksum_matches_and_fetched_once(tmp_path, monkeypatch):
    import urllib.request

    good = CROWS_CSV.read_bytes()
    url, _, name = DOWNLOADS["crows-pairs"]
    # the excerpt stands in for the whole file: its own SHA-256 (hashlib) is the pin here
    import dataclasses

    from wefe_same.likelihood import evaluate

    pinned = dataclasses.replace(evaluate.CROWS_PAIRS, download=(url, "sha256:" + hashlib.sha256(good).hexdigest(), name))
    monkeypatch.setattr(evaluate, "BUILTIN_BENCHMARKS", (pinned, evaluate.STEREOSET))
    served: list[str] = []

    def urlopen(url, timeout):
        served.append(url)
        return FakeResponse(body)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    body = good[:-1] + b"x"  # one byte changed: refused, nothing kept
    with pytest.raises(LikelihoodError, match=r"does not have the pinned checksum sha256:59f9ea95.*nothing was kept"):
        dataset_path("crows-pairs", None, allow_download=True, cache=tmp_path)
    assert list(tmp_path.iterdir()) == []
    body = good
    path = dataset_path("crows-pairs", None, allow_download=True, cache=tmp_path)
    assert open(path, "rb").read() == good and [p.name for p in tmp_path.iterdir()] == ["crows_pairs_anonymized.csv"]
    assert dataset_path("crows-pairs", None, allow_download=True, cache=tmp_path) == path  # fetched once
    assert served == [served[0]] * 2 and "nyu-mll/crows-pairs/8aaac11c" in served[0]


def test_the_pins_name_the_authors_files():
    """The pinned checksums are the authors' files' (checked on the whole files by
    check_whole_files.py): CrowS-Pairs by SHA-256, StereoSet's dev.json by the git blob id
    that its repository records (SOURCES.md of the shared data: 637b1e3d…)."""
    url, pinned, _ = DOWNLOADS["stereoset"]
    assert "moinnadeem/StereoSet/ead7d086" in url and url.endswith("/data/dev.json")
    assert pinned == "git-blob:637b1e3d284a3c629b74a4659c583b8eca9bd13e"
    assert DOWNLOADS["crows-pairs"][1] == "sha256:dfb36986ce0502abbaf7055b9176da3d08d48e07df1251991b5dfbcbceab9d0c"


def test_a_git_blob_checksum_is_what_git_hash_object_prints():
    want = subprocess.run(["git", "hash-object", str(CROWS_CSV)], capture_output=True, text=True, check=True)
    assert checksum("git-blob", CROWS_CSV.read_bytes()) == "git-blob:" + want.stdout.strip()
    assert want.stdout.strip() == "a5c1a141ef19232cea6ce129c308a5c19242fa1d"


def test_crows_summary_counts_rounded_ties_as_neutral():
    more = np.array([-10.0001, -5.0, -3.0, -7.0, np.nan])
    less = np.array([-10.0004, -6.0, -2.0, -8.0, -1.0])
    got = crows_summary(more, less, ["g", "g", "r", "r", "r"])
    # pair 0 ties at 3 decimals (neutral, not preferred); 1 and 3 prefer sent_more; 4 is skipped
    assert got.loc["g"].to_dict() == {"metric_score": 50.0, "n_pairs": 2, "n_neutral": 1, "n_skipped": 0}
    assert got.loc["r"].to_dict() == {"metric_score": 50.0, "n_pairs": 2, "n_neutral": 0, "n_skipped": 1}
    assert got.loc["overall", "metric_score"] == 50.0
    unrounded = crows_summary(more, less, ["g"] * 5, decimals=None)
    assert unrounded.loc["overall", "metric_score"] == 75.0 and unrounded.loc["overall", "n_neutral"] == 0


def test_stereoset_summary_averages_over_target_terms():
    # term a: 3 examples, stereotype preferred in 2 (ss 66.7), related 5 of 6 (lms 83.3);
    # term b: 1 example, a tie counts for the anti-stereotype (ss 0), related 2 of 2 (lms 100)
    stereo = np.array([0.5, 0.4, 0.1, 0.3])
    anti = np.array([0.2, 0.3, 0.6, 0.3])
    unrelated = np.array([0.1, 0.35, 0.05, 0.3 - 1e-9])
    got = stereoset_summary(stereo, anti, unrelated, ["x", "x", "x", "y"], ["a", "a", "a", "b"])
    ss, lms = (200 / 3 + 0) / 2, (500 / 6 + 100) / 2
    assert got.loc["overall", "ss"] == pytest.approx(ss)
    assert got.loc["overall", "lms"] == pytest.approx(lms)
    assert got.loc["overall", "icat"] == pytest.approx(lms * min(ss, 100 - ss) / 50)
    assert got.loc["y", "ss"] == 0.0 and got.loc["y", "lms"] == 100.0 and got.loc["y", "icat"] == 0.0
    assert got.loc["x", "n_items"] == 3


def test_a_sentence_longer_than_the_model_is_one_line(tiny_mlm):
    from wefe_same.errors import ModelError
    from wefe_same.likelihood import LanguageModel, crows_scores

    lm = LanguageModel(*tiny_mlm, "masked")
    long = " ".join(["word"] * 200)
    with pytest.raises(ModelError, match="a sentence of 203 tokens is longer than the 128 positions of the model"):
        crows_scores(lm, [(long, long + " more")], "aul")
