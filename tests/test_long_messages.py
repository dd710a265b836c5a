"""A message that lists bad inputs stays one short line (issue 15, item 15): 200,000
unknown model names, unknown rows or sets give the count and the first few, never a
multi-megabyte line; a huge argument value is cut."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, snapshot, write_glove

from wefe_same import Execution, rank
from wefe_same.analysis.external import load_external
from wefe_same.cli import main
from wefe_same.errors import ExternalError, ModelError, QueryError
from wefe_same.query.files import load_query_file
from wefe_same.validation import InvalidParameterError

MANY = 200_000
SOME = 20_000  # where each name costs a resolve: the CLI test below takes the full 200,000
LIMIT = 1000  # characters: a line a person reads


def test_unknown_model_names_give_the_first_few_and_the_count():
    with pytest.raises(ModelError) as err:
        rank([f"nomodel{i}" for i in range(SOME)], execution=Execution(cache=False, progress=False))
    message = str(err.value)
    assert len(message) < LIMIT and "\n" not in message
    # every unusable model is named at once (issue 21): the first few with their reason, then the count
    assert message.startswith(f"{SOME} of the {SOME} models cannot be used: unknown model 'nomodel0'")
    assert "'nomodel4'" in message and f"({SOME - 4} in all)" in message


def test_many_copies_of_one_model_name_are_refused_at_once():
    """The duplicate check counted each name with list.count: quadratic, minutes on 200,000."""
    with pytest.raises(ModelError, match="model name 'x' is used twice"):
        rank(["x=word2vec-gnews-weat"] * SOME, execution=Execution(cache=False, progress=False))


def test_an_external_table_with_200000_unknown_models(tmp_path):
    path = tmp_path / "ext.csv"
    path.write_text("model,gap\n" + "".join(f"m{i},0.5\n" for i in range(MANY)), encoding="utf-8")
    with pytest.raises(ExternalError) as err:
        load_external(path, ["a", "b"])
    message = str(err.value)
    assert len(message) < LIMIT and "m0, m1, m2" in message and f"and {MANY - 10} more ({MANY} in all)" in message


def test_a_query_naming_an_unknown_set_among_50000(tmp_path):
    path = tmp_path / "q.toml"
    sets = "".join(f'[sets.s{i}]\nwords = ["w{i}"]\n' for i in range(50_000))
    path.write_text(sets + '[[queries]]\ntargets = ["s0", "nope"]\nattributes = ["s1"]\n', encoding="utf-8")
    with pytest.raises(QueryError) as err:
        load_query_file(path)
    message = str(err.value)
    assert len(message) < LIMIT and "unknown set 'nope'" in message and "(50000 in all)" in message


def test_a_megabyte_argument_is_cut_in_the_message():
    with pytest.raises(InvalidParameterError) as err:
        rank(["word2vec-gnews-weat"], seed="x" * 1_000_000, execution=Execution(cache=False, progress=False))
    message = str(err.value)
    assert len(message) < LIMIT and "(1000002 characters)" in message


def test_cli_with_200000_unknown_models_exits_2_with_one_short_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    write_glove(tmp_path / "good.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    fast = ["--queries", "mini.toml", "--metrics", "WEAT", "--permutations", "0", "--formats", "svg", "--no-cache",
            "--out", "res"]
    assert main(["rank", "--models", "good.txt", *fast]) == 0
    capsys.readouterr()
    before = snapshot(tmp_path)
    code = main(["rank", "--models", *(f"nomodel{i}" for i in range(MANY)), *fast])
    err = capsys.readouterr().err
    assert code == 2 and len(err) < LIMIT and err.count("\n") == 1, err[:2000]
    assert f"{MANY} of the {MANY} models" in err and f"({MANY - 4} in all)" in err
    assert snapshot(tmp_path) == before
