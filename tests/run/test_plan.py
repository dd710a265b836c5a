"""The prepare stage: every argument is checked before any model is read, with one-line messages."""

import pickle
import re

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, snapshot, write_glove

from wefe_same import Encoding, Execution, External, rank
from wefe_same.cli import main
from wefe_same.errors import MetricError, ModelError, QueryError, WefeSameWarning
from wefe_same.query.expand import query_set_weights
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import make_plan
from wefe_same.validation import InvalidParameterError

MINI = MINI_QUERY


@pytest.fixture
def mini(tmp_path):
    path = tmp_path / "mini.toml"
    path.write_text(MINI)
    return str(path)


class ExplodingSource:
    """A model that must never be read: validation failures come before any lookup."""

    name = "never-read"

    def lookup(self, words):
        raise AssertionError("a model was read before the arguments were checked")

    def describe(self):
        return {}


BAD_ARGUMENTS = [
    ({"seed": -1}, "'seed' parameter of rank must be an integer >= 0. Got -1"),
    ({"seed": True}, "'seed' parameter of rank must be an integer"),
    ({"ties": "avg"}, "'ties' parameter of rank must be one of"),
    ({"nan_policy": "drop"}, "'nan_policy' parameter of rank"),
    ({"correlation": "pearson"}, "'correlation' parameter of rank"),
    ({"permutations": -5}, "'permutations' parameter of rank"),
    ({"bootstrap": -1}, "'bootstrap' parameter of rank must be an integer >= 0. Got -1"),  # the shorthand's name
    ({"bootstrap": {"words": 1.5}}, "'words' parameter of Bootstrap"),
    ({"bootstrap": {"wrods": 1}}, "'bootstrap' parameter of rank has no setting 'wrods'; Bootstrap takes subqueries, "
                                  "words, halves"),
    ({"missing_threshold": 1.5}, "'missing_threshold' parameter of rank must be a number in [0, 1]"),
    ({"quality": {"analogy_vocab": 0}}, "'analogy_vocab' parameter of Quality"),
    ({"execution": {"workers": 0}}, "'workers' parameter of Execution"),
    ({"execution": 2}, "'execution' parameter of rank must be an Execution, a mapping of its settings or None"),
    ({"metric_options": {"DirectBias": {"k": 0}}}, "'k' parameter of DirectBias must be an integer >= 1"),
    ({"metric_options": {"DirectBias": {"c": -1}}}, "'c' parameter of DirectBias must be a number >= 0"),
    ({"metric_options": {"RNSB": {"n_iterations": 0}}}, "'n_iterations' parameter of RNSB"),
    ({"metric_options": {"RNSB": {"train_fraction": 0}}}, "'train_fraction' parameter of RNSB must be a number in (0, 1]"),
    ({"templates": ["no slot"]}, "one {word} slot"),
    ({"loading": {"unicode_errors": "lenient"}}, "'unicode_errors' parameter of Loading"),
    ({"unicode_errors": "lenient"}, "'unicode_errors' parameter of rank"),  # the flat keyword of earlier versions
]


@pytest.mark.parametrize("kwargs, message", BAD_ARGUMENTS, ids=[next(iter(k)) + str(i) for i, (k, _) in
                                                               enumerate(BAD_ARGUMENTS)])
def test_a_bad_argument_fails_before_any_model_is_read(kwargs, message, mini):
    with pytest.raises(InvalidParameterError) as info:
        rank(models=[ExplodingSource()], queries=mini, **kwargs)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_single_string_is_one_item(mini, tmp_path):
    rng = np.random.default_rng(0)
    model = str(write_glove(tmp_path / "m.txt", GENDER_WORDS, rng.normal(size=(12, 4))))
    result = rank(models=model, queries=mini, metrics="WEAT", execution=Execution(cache=False))
    assert list(result.rankings.columns) == ["WEAT"] and list(result.rankings.index) == ["m"]


def test_unknown_metric_is_named_with_the_valid_ones(mini):
    with pytest.raises(MetricError, match="unknown metric 'WAET'; valid metrics are: .*WEAT"):
        rank(models=[ExplodingSource()], queries=mini, metrics=["WAET"])


def test_a_missing_model_file_is_named(mini, tmp_path):
    with pytest.raises(ModelError, match="no such file"):
        rank(models=[str(tmp_path / "absent.txt")], queries=mini)


def test_a_query_file_without_queries_says_so(tmp_path):
    path = tmp_path / "sets_only.toml"
    path.write_text('[sets.a]\nwords = ["x"]\n')
    with pytest.raises(QueryError, match="queries"):
        make_plan(RankConfig(queries=str(path)))


def test_a_word_in_two_target_sets_is_reported(tmp_path, mini):
    path = tmp_path / "overlap.toml"
    path.write_text(MINI.replace('words = ["she", "woman"]', 'words = ["she", "man"]'))
    plan = make_plan(RankConfig(queries=str(path)))  # load_queries' warning, kept in the plan; rank emits it
    (message,) = plan.warnings
    assert message.startswith(f"{path}: target sets 'male' and 'female' share 1 word: man (query ")
    rng = np.random.default_rng(0)
    model = str(write_glove(tmp_path / "m.txt", GENDER_WORDS, rng.normal(size=(12, 4))))
    with pytest.warns(WefeSameWarning, match="share 1 word: man"):
        result = rank(models=[model], queries=str(path), metrics=["WEAT"], execution=Execution(cache=False))
    assert set(result.details["warning"]) == {"target sets 'male' and 'female' share 1 word: man"}
    assert result.manifest["warnings"] == [message]


def test_the_plan_pickles_and_keeps_its_key(mini):
    plan = make_plan(RankConfig(queries=mini, metrics=["WEAT", "SAME"], seed=3))
    again = pickle.loads(pickle.dumps(plan))
    assert again.scoring_key() == plan.scoring_key()
    assert [s.name for s in again.specs] == ["WEAT", "SAME"]
    assert make_plan(RankConfig(queries=mini, metrics=["WEAT", "SAME"], seed=4)).scoring_key() != plan.scoring_key()


def test_overall_weights_count_the_queries_that_yield_a_subquery():
    # gender: every query has 2 target sets, so every query fits WEAT (2, 2)? only those with 2 attributes
    plan = make_plan(RankConfig(queries="gender", metrics=["WEAT", "SAME"]))
    qs = plan.query_sets[0]
    weat = sum(1 for q in qs.queries if len(q.targets) >= 2 and len(q.attributes) >= 2)
    same = sum(1 for q in qs.queries if len(q.targets) >= 2 and len(q.attributes) >= 1)
    assert query_set_weights(plan.query_sets, plan.specs[0]) == {"gender": weat}
    assert query_set_weights(plan.query_sets, plan.specs[1]) == {"gender": same}


def test_cli_bad_option_exits_2_with_one_line_and_touches_nothing(tmp_path, capsys, mini, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("user data")
    before = snapshot(tmp_path)
    code = main(["rank", "--queries", mini, "--seed", "-1", "--out", "res"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "'seed' parameter of rank" in err
    assert snapshot(tmp_path) == before


def test_cli_metric_option_values_are_parsed_and_checked(tmp_path, capsys, mini):
    code = main(["rank", "--queries", mini, "--metric-option", "DirectBias.k=0", "--out", str(tmp_path / "r")])
    assert code == 2 and "'k' parameter of DirectBias must be an integer >= 1. Got 0" in capsys.readouterr().err
    code = main(["rank", "--queries", mini, "--metric-option", "DirectBias", "--out", str(tmp_path / "r")])
    assert code == 2 and "METRIC.OPTION=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_seed_and_metric_options_by_position_still_work_with_one_future_warning(toy_query):
    from wefe_same.models import ArraySource

    models = [ArraySource(f"m{i}", ["he", "man", "she", "woman", "doctor", "engineer", "nurse", "teacher"],
                          np.random.default_rng(i).normal(size=(8, 4))) for i in range(3)]
    options = {"WEAT": {"alternative": "two-sided"}}
    common = dict(permutations=50, execution=Execution(cache=False, progress=False))
    with pytest.warns(FutureWarning, match=r"give seed and metric_options by keyword, rank\(models, queries, "
                                           r"metrics, seed=5, metric_options=\{'WEAT'"):
        old = rank(models, [toy_query], ["WEAT"], 5, options, **common)
    new = rank(models, [toy_query], ["WEAT"], seed=5, metric_options=options, **common)
    assert old.details.equals(new.details) and old.manifest["seed"] == 5
    with pytest.raises(TypeError, match="multiple values for argument 'seed'"):
        rank(models, [toy_query], ["WEAT"], 5, seed=6, **common)
    with pytest.raises(TypeError, match="rank\\(\\) takes 3 positional arguments"):
        rank(models, [toy_query], ["WEAT"], 5, options, 7, **common)


@pytest.mark.parametrize("options, error, message", [
    ({"seed": -1}, InvalidParameterError, "'seed' parameter of rank"),
    ({"ties": "avg"}, InvalidParameterError, "'ties' parameter of rank must be one of 'min'"),
    ({"encoding": {"templates": ["no slot"]}}, InvalidParameterError, "one {word} slot"),
    ({"execution": {"workers": 0}}, InvalidParameterError, "'workers' parameter of Execution"),
    ({"external": {"higher_is_better": "x"}}, InvalidParameterError, "no external table"),
    ({"execution": {"cache": 3}}, InvalidParameterError, "'cache' parameter of Execution"),
    ({"metrics": ["WAET"]}, MetricError, "WAET"),
    ({"metric_options": {"WEAT": {"nope": 1}}}, MetricError, "nope"),
])
def test_rank_config_checks_every_option_when_built(options, error, message):
    from wefe_same.run.config import RankConfig

    with pytest.raises(error, match=re.escape(message)):
        RankConfig(**options)


def test_rank_config_normalises_lists_and_comes_from_the_command_line():
    from wefe_same.cli import build_parser
    from wefe_same.run.config import RankConfig

    config = RankConfig(metrics="WEAT", quality="ws353", encoding=Encoding(templates="A {word}."),
                        external=External(table="e.csv", higher_is_better="x"))
    assert (config.metrics, config.quality.benchmarks, config.encoding.templates, config.external.higher_is_better) == (
        ("WEAT",), ("ws353",), ("A {word}.",), ("x",))
    args = build_parser().parse_args(["rank", "--metrics", "WEAT", "--ties", "dense", "--template", "A {word}.",
                                      "--no-subwords"])
    config = RankConfig.from_namespace(args, metric_options={}, execution=Execution(cache=False))
    assert (config.metrics, config.ties, config.encoding.templates, config.loading.subwords,
            config.execution.cache) == (("WEAT",), "dense", ("A {word}.",), False, False)
