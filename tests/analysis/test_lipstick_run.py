"""The lipstick tests in a run: ``rank(..., lipstick=...)``, ``--lipstick KEY=VALUE`` and
``--no-lipstick``, the ``debias_lipstick`` table, its CSV and the manifest's settings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import GENDER_WORDS, snapshot, users_folder, write_glove

from wefe_same import Execution, rank
from wefe_same.analysis.lipstick import LIPSTICK_COLUMNS, LipstickSettings
from wefe_same.cli import main
from wefe_same.run.config import RankConfig
from wefe_same.validation import InvalidParameterError

SETTINGS = {"words": 20, "train": 20, "test": 60, "neighbours": 5, "neighbour_words": 40, "seeds": 2}


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    """A 700-word GloVe text file whose words carry gender along the first axis."""
    rng = np.random.default_rng(3)
    made = ["".join(t) for t in itertools.islice(itertools.product("abcdefgh", repeat=4), 700 - len(GENDER_WORDS))]
    words = [*GENDER_WORDS, *made]
    vectors = rng.normal(size=(len(words), 8)) + np.outer(rng.uniform(-1, 1, len(words)), np.eye(8)[0]) * 2
    return write_glove(tmp_path_factory.mktemp("model") / "m.txt", words, vectors)


def test_a_run_with_a_hard_debiased_variant_has_the_lipstick_table(model_file, toy_query, tmp_path):
    models = [f"glove:{model_file}", f"glove:{model_file}+hard-debias"]
    with pytest.warns(UserWarning):  # the hard-debias lists' words the small model lacks
        result = rank(models, [toy_query], metrics=["WEAT"], permutations=0, lipstick=SETTINGS,
                      execution=Execution(cache=False, progress=False))
    table = result.debias_lipstick
    assert list(table.columns) == LIPSTICK_COLUMNS
    assert list(table["test"]) == ["clustering", "classification", "neighbours", "agreement"]
    assert set(table["variant"]) == {"m+hard-debias"} and table["reason"].isna().all()
    assert table["n_words"].tolist() == [40, 160, 80, 80] and table["seeds"].tolist() == [2, 1, 1, 1]
    assert ((table["value"] > 0) & (table["value"] <= 1)).all()
    assert result.manifest["settings"]["lipstick"] == LipstickSettings(**SETTINGS).to_dict()
    folder = result.save(tmp_path / "out", formats=())
    assert (folder / "debias_lipstick.csv").read_text().splitlines()[0] == ",".join(LIPSTICK_COLUMNS)
    # The report shows the table under the debiasing effect, the clustering's value to 4 digits.
    page = (folder / "report.html").read_text()
    section = page[page.index("Does debiasing hide gender bias? (lipstick tests)"):]
    value = float(table.at[0, "value"])
    assert f'<td data-v="{value!r}" class="n">{value:.4g}</td>' in section


def test_lipstick_off_and_settings_in_the_config():
    assert RankConfig(lipstick=False).lipstick is None
    assert RankConfig().lipstick == LipstickSettings()
    assert RankConfig(lipstick={"vocab": 1000}).lipstick == LipstickSettings(vocab=1000)
    with pytest.raises(InvalidParameterError, match=r"^The 'lipstick' parameter of rank must be True, False or a "
                                                   r"mapping of its settings\. Got 3 instead\.$"):
        RankConfig(lipstick=3)


@pytest.mark.parametrize("args, message", [
    (["--lipstick", "word=3"], "The 'lipstick' parameter of rank has no setting 'word'; valid: words, train, "),
    (["--lipstick", "words"], "--lipstick takes KEY=VALUE (e.g. words=500). Got 'words' instead."),
    (["--lipstick", "gamma=rbf"], "The 'lipstick' setting 'gamma' of rank must be 'auto' or 'scale'."),
    (["--lipstick", "words=5", "--no-lipstick"], "--lipstick and --no-lipstick exclude each other"),
], ids=["setting", "item", "gamma", "both"])
def test_bad_lipstick_options_exit_2_before_any_work(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    before = snapshot(tmp_path)
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--metrics", "WEAT", "--no-cache",
                 "--out", "res", *args])
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("wefe-same: warning:")]
    assert code == 2 and len(err) == 1 and err[0].startswith("wefe-same: error: ") and message in err[0], err
    assert snapshot(tmp_path) == before and not (tmp_path / "res").exists()
