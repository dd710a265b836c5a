"""Metrics of your own: ``make_metric`` functions given to ``rank()``, and installed plugins
found through the ``wefe_same.metrics`` entry points (the example package under
``examples/wefe_same_example`` reached through a temporary ``*.dist-info`` on ``sys.path``).
"""

import json
import os
import pickle
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GENDER_WORDS, random_source, write_glove
from scipy.stats import spearmanr

from wefe_same import Bootstrap, Execution, Query, WordSet, make_metric, rank
from wefe_same.errors import MetricError, WefeSameWarning
from wefe_same.metrics import registry
from wefe_same.metrics.registry import METRICS, check_sendable, get_metric, number, resolve_metrics
from wefe_same.metrics.result import MetricResult
from wefe_same.metrics.spec import MetricSpec
from wefe_same.query.sets import AtLeast, Template
from wefe_same.run.config import RankConfig
from wefe_same.run.plan import make_plan

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "wefe_same_example"

QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")
QUERY_TOML = """
[sets.male]
words = ["he", "man"]
[sets.female]
words = ["she", "woman"]
[sets.career]
words = ["doctor", "engineer", "good", "happy"]
[sets.care]
words = ["nurse", "teacher", "bad", "sad"]
[[queries]]
targets = ["male", "female"]
attributes = ["career", "care"]
"""


def install_dist_info(site: Path, name: str, version: str, entry_points: dict[str, dict[str, str]]) -> None:
    """What ``pip install`` leaves for importlib.metadata: METADATA and entry_points.txt."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in entry_points.items()))


BROKEN = '''
from dataclasses import replace

from wefe_same.metrics.registry import METRICS


def weat_again():
    return replace(METRICS["MAC"], name="WEAT", origin=None)


NOT_A_SPEC = 42
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The example plugin installed as pip would (its own pyproject's entry points), beside a
    broken package: one entry point that does not import, one that names no spec, one that
    takes a built-in's name. Added to ``sys.path`` for this module; PYTHONPATH for the CLI."""
    site = tmp_path_factory.mktemp("site")
    pyproject = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    install_dist_info(site, pyproject["project"]["name"], pyproject["project"]["version"],
                      pyproject["project"]["entry-points"])
    (site / "broken_plugin.py").write_text(BROKEN)
    install_dist_info(site, "broken-plugin", "0.1", {"wefe_same.metrics": {
        "missing": "no_such_module_here:METRIC", "number": "broken_plugin:NOT_A_SPEC",
        "WEAT": "broken_plugin:weat_again"}})
    paths = [str(site), str(EXAMPLE)]
    sys.path[:0] = paths
    registry.plugin_metrics.cache_clear()
    yield site
    del sys.path[:2]
    registry.plugin_metrics.cache_clear()


def plugins_loaded():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plugins = registry.plugin_metrics()
    return plugins, [str(w.message) for w in caught if issubclass(w.category, WefeSameWarning)]


def test_the_example_plugin_is_found_by_name_with_its_package(site):
    registry.plugin_metrics.cache_clear()
    plugins, said = plugins_loaded()
    spec = get_metric("mean-gap")
    assert spec is plugins.specs["mean-gap"] and list(plugins.specs) == ["mean-gap"]
    assert spec.origin.package == "wefe-same-example"
    assert (spec.origin.module, spec.origin.qualname) == ("wefe_same_example.metric", "mean_gap")
    assert "mean-gap" not in METRICS  # METRICS holds the built-ins: the default run is unchanged
    assert len(said) == 3  # each broken entry point is one line naming itself and its error
    assert any("'missing' (no_such_module_here:METRIC, package broken-plugin) failed to load: "
               "ModuleNotFoundError" in s for s in said)
    assert ("plugin metric entry point 'number' (broken_plugin:NOT_A_SPEC, package broken-plugin) names int, not a "
            "MetricSpec or a function returning one") in said
    assert any("declares metric 'WEAT', which is already a built-in metric" in s for s in said)
    assert get_metric("WEAT") is METRICS["WEAT"]
    with pytest.raises(MetricError, match=r"^plugin metric entry point 'missing' .* failed to load"):
        get_metric("missing")
    registry.plugin_metrics()  # loaded once per process: no second warning
    assert plugins_loaded()[1] == []


def test_the_registry_holds_what_the_metric_modules_declare():
    import wefe_same.metrics.same as same_module
    import wefe_same.metrics.weat as weat_module

    assert METRICS["WEAT"] == weat_module.METRIC and METRICS["SAME-skew"] == same_module.METRIC[1]
    assert all(s.origin.builtin and s.origin.package == "wefe_same" for s in METRICS.values())
    with pytest.raises(TypeError):
        METRICS["mine"] = METRICS["WEAT"]  # type: ignore[index]


def mean_gap_by_hand(vectors: dict[str, np.ndarray], t1, t2, attributes) -> float:
    unit = {w: v / np.linalg.norm(v) for w, v in vectors.items()}
    m1, m2 = (np.mean([unit[w] for w in t], axis=0) for t in (t1, t2))
    A = np.array([unit[w] for w in attributes])
    return float((A @ m1 / np.linalg.norm(m1) - A @ m2 / np.linalg.norm(m2)).mean())


def test_a_function_metric_scores_like_the_formula_and_like_the_same_metric_installed(site):
    from wefe_same_example.metric import mean_gap

    sources = [random_source(f"m{i}", seed=i) for i in range(4)]
    mine = make_metric(mean_gap, name="my-gap", template=(2, 1), order="abs",
                       options={"scale": number(0, low_open=True)})
    result = rank(sources, QUERY, metrics=["mean-gap", mine, "WEAT"],
                  execution=Execution(cache=False, progress=False))
    assert list(result.rankings.columns) == ["mean-gap", "my-gap", "WEAT"]
    mine_scores, plugin_scores = result.scores["my-gap"], result.scores["mean-gap"]
    assert list(mine_scores.columns) == ["queries:male+female|career", "queries:male+female|care"]
    np.testing.assert_array_equal(mine_scores.to_numpy(), plugin_scores.to_numpy())
    for i, source in enumerate(sources):  # random_source's vectors, drawn again
        vectors = dict(zip(GENDER_WORDS, np.random.default_rng(i).normal(size=(12, 8))))
        for attrs, column in ((["doctor", "engineer"], "queries:male+female|career"),
                              (["nurse", "teacher"], "queries:male+female|care")):
            expected = mean_gap_by_hand(vectors, ["he", "man"], ["she", "woman"], attrs)
            assert mine_scores.loc[source.name, column] == pytest.approx(expected, abs=1e-12)
    entry = next(m for m in result.manifest["metrics"] if m["name"] == "my-gap")
    assert entry["source"]["module"] == "wefe_same_example.metric" and entry["source"]["qualname"] == "mean_gap"
    assert len(entry["source"]["sha256"]) == 64 and entry["source"]["package"] is None
    plugin_entry = next(m for m in result.manifest["metrics"] if m["name"] == "mean-gap")
    assert plugin_entry["source"]["package"] == "wefe-same-example"
    assert "source" not in next(m for m in result.manifest["metrics"] if m["name"] == "WEAT")


def flat(targets, attributes):
    return 0.5


def flat_too(targets, attributes):
    return 0.25


def test_a_function_metric_gets_intervals_and_is_ranked_by_its_order():
    def closeness(targets, attributes, *, power=1):
        return float(np.mean(targets[0] @ attributes[0].T) ** power)

    spec = make_metric(closeness, name="closeness", template=(1, AtLeast(1)), order="ideal", ideal=0.25,
                       options={"power": registry.integer(1)})
    assert spec.template == Template(1, AtLeast(1)) and not spec.stochastic
    sources = [random_source(f"m{i}", seed=i) for i in range(3)]
    result = rank(sources, QUERY, metrics=[spec, "MAC"], metric_options={"closeness": {"power": 1}},
                  bootstrap=Bootstrap(subqueries=20, words=5), execution=Execution(cache=False, progress=False))
    agg = result.aggregates["closeness"]
    expected_rank = (agg - 0.25).abs().rank(method="min").astype(int)
    assert result.rankings["closeness"].tolist() == expected_rank.tolist()
    ci = result.aggregates_ci.set_index(["metric", "model"]).loc["closeness"]
    assert len(ci) == 3 and (ci["ci_low"] <= ci["ci_high"]).all() and np.isfinite(ci[["ci_low", "ci_high"]].to_numpy()).all()
    assert len(result.word_bootstrap.query("metric == 'closeness'")) == 3
    with pytest.raises(Exception, match="power"):
        rank(sources, QUERY, metrics=[spec], metric_options={"closeness": {"power": 0}},
             execution=Execution(cache=False))


def misbehaving(kind):
    def func(targets, attributes):
        n = len(targets[0])
        return {"raises": lambda: (_ for _ in ()).throw(ZeroDivisionError("no\nway")),
                "array": lambda: np.ones(3), "inf": lambda: float("inf"), "nan": lambda: float("nan"),
                "text": lambda: "0.5", "none": lambda: None, "bool": lambda: True,
                "complex": lambda: np.array(1j), "result_inf": lambda: MetricResult(np.inf),
                "words": lambda: MetricResult(0.1, word_values={"w": np.ones(n + 1)}),
                "fine": lambda: np.float32(0.25), "result": lambda: MetricResult(0.5, {"k": 1.0})}[kind]()
    return make_metric(func, name=f"bad-{kind}", template=(1, 1), order="abs", word_role="targets")


@pytest.mark.parametrize(("kind", "reason"), [
    ("raises", "bad-raises raised ZeroDivisionError: no way"),
    ("array", "bad-array returned an array of shape (3,), not one number"),
    ("inf", "bad-inf returned a non-finite value (inf)"),
    ("nan", "bad-nan returned a non-finite value (nan)"),
    ("text", "bad-text returned str, not a number or a MetricResult"),
    ("none", "bad-none returned NoneType, not a number or a MetricResult"),
    ("bool", "bad-bool returned bool, not a number or a MetricResult"),
    ("complex", "bad-complex returned an array of complex128, not a number"),
    ("result_inf", "bad-result_inf returned a non-finite value (inf)"),
    ("words", "bad-words returned per-word values 'w' of shape (4,), not (3,): one per targets word"),
])
def test_a_misbehaving_function_is_nan_with_the_reason(kind, reason):
    got = misbehaving(kind).compute([np.eye(3)], [np.eye(3)[:2]])
    assert np.isnan(got.value) and got.reason == reason


def test_a_spec_made_by_hand_is_guarded_once_given_to_a_run():
    def ratio(T, A):
        return MetricResult(float(len(T)) / (len(A) - 2))

    spec = MetricSpec(name="ratio", func=ratio, call=lambda t, a: ratio(t[0], a[0]), template=Template(1, 1),
                      order="ascending", formula="|T| / (|A| − 2)", reference="none")
    with pytest.raises(ZeroDivisionError):
        spec.compute([np.eye(2)], [np.eye(2)])  # not yet given to a run: a plain function call
    (given,) = resolve_metrics([spec])
    assert given == spec and given.origin.qualname.endswith("<locals>.ratio") and given.origin.package is None
    assert given.compute([np.eye(2)], [np.eye(2)]).reason == "ratio raised ZeroDivisionError: float division by zero"
    assert given.compute([np.eye(2)], [np.eye(3)]).value == 2.0


def test_a_well_behaved_function_keeps_its_value_and_details():
    assert misbehaving("fine").compute([np.eye(3)], [np.eye(3)]).value == 0.25
    got = misbehaving("result").compute([np.eye(3)], [np.eye(3)])
    assert (got.value, dict(got.details), got.reason) == (0.5, {"k": 1.0}, None)


def test_misbehaviour_in_a_run_is_a_reason_per_subquery_and_no_traceback(capsys):
    sources = [random_source(f"m{i}", seed=i) for i in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WefeSameWarning)
        result = rank(sources, QUERY, metrics=[misbehaving("raises"), misbehaving("array"), "WEAT"],
                      execution=Execution(cache=False, progress=False))
    details = result.details.set_index("metric")
    assert set(details.loc["bad-raises", "reason"]) == {"bad-raises raised ZeroDivisionError: no way"}
    assert set(details.loc["bad-array", "reason"]) == {"bad-array returned an array of shape (3,), not one number"}
    assert len(details.loc["bad-raises"]) == 3 * 4  # 3 models × 4 subqueries of template (1, 1)
    assert details.loc["WEAT", "value"].notna().all()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("make", "message"), [
    (lambda: make_metric(flat, name="WEAT", template=(2, 2), order="abs"),
     "metric 'WEAT' is already a built-in metric; give yours another name"),
    (lambda: make_metric(flat, name="m", template=(0, 1), order="abs"),
     "The 'targets' parameter of Template must be an integer >= 1 or AtLeast(k). Got 0 instead."),
    (lambda: make_metric(flat, name="m", template="2,2", order="abs"),
     "metric 'm': template must be a Template, such as Template(2, 2) or Template(AtLeast(2), 1), not '2,2'"),
    (lambda: make_metric(flat, name="m", template=(1, 1), order="lower"),
     "metric 'm': order must be one of abs, ascending, descending, ideal, not 'lower'"),
    (lambda: make_metric(flat, name="m", template=(1, 1), order="abs", vectors="normalised"),
     "metric 'm': vectors must be 'unit' or 'raw', not 'normalised'"),
    (lambda: make_metric(flat, name="m", template=(1, 1), order="ideal", ideal=float("nan")),
     "metric 'm': ideal must be a finite number, not nan"),
    (lambda: make_metric(flat, name=" m", template=(1, 1), order="abs"),
     "a metric name must be a non-empty string without surrounding spaces, not ' m'"),
    (lambda: make_metric(lambda t: 0, name="m", template=(1, 1), order="abs"),
     "metric 'm': its function must take (targets, attributes, *, options…)"),
    (lambda: make_metric(lambda t, a, *, k: 0, name="m", template=(1, 1), order="abs", options={"k": number()}),
     "metric 'm': option 'k' of its function has no default value"),
    (lambda: make_metric(lambda t, a, *, k=1: 0, name="m", template=(1, 1), order="abs"),
     "metric 'm': option_checks must have one check per option; options: k; checks: none"),
])
def test_a_bad_metric_is_refused_at_once_in_one_line(make, message):
    with pytest.raises((MetricError, ValueError)) as err:
        make()
    assert str(err.value) == message


def test_a_name_taken_by_a_plugin_or_twice_in_one_run_is_refused(site):
    with pytest.raises(MetricError, match=r"^metric 'mean-gap' is already a metric of package wefe-same-example; "):
        resolve_metrics([make_metric(flat, name="mean-gap", template=(1, 1), order="abs")])
    one, two = (make_metric(f, name="twice", template=(1, 1), order="abs") for f in (flat, flat_too))
    with pytest.raises(MetricError, match="^two different metrics are named 'twice'$"):
        resolve_metrics([one, two])
    with pytest.raises(MetricError, match="^metrics must be metric names or MetricSpec objects"):
        resolve_metrics([flat])  # type: ignore[list-item]


def test_workers_refuse_a_function_they_cannot_import():
    spec = make_metric(lambda t, a: 0.0, name="anon", template=(1, 1), order="abs")
    with pytest.raises(MetricError) as err:
        RankConfig(models=[random_source("m", 0)], queries=QUERY, metrics=[spec], execution=Execution(workers=2))
    assert str(err.value) == (
        "metric 'anon' cannot run in worker processes: test_workers_refuse_a_function_they_cannot_import.<locals>.<lambda> is a lambda or a function defined inside another, "
        "so it cannot be found there by import path; define it at the top level of an importable module, or run "
        "in-process (workers=1)")
    main_like = make_metric(flat, name="flat", template=(1, 1), order="abs")
    object.__setattr__(flat, "__module__", "__main__")
    try:
        with pytest.raises(MetricError, match=r"flat is defined in __main__ \(a script or a notebook\)"):
            check_sendable([main_like], "Dask workers")
    finally:
        flat.__module__ = __name__
    check_sendable([main_like, METRICS["RNSB"]], "Dask workers")  # importable, and found by name
    RankConfig(models=[random_source("m", 0)], queries=QUERY, metrics=[spec])  # in-process: any function


def test_workers_auto_keeps_a_function_it_cannot_send_in_process():
    """``workers="auto"`` never refuses a lambda metric: it scores in this process, and says why."""
    spec = make_metric(lambda t, a: float(len(t[0]) + len(a[0])), name="anon", template=(1, 1), order="abs")
    sources = [random_source(f"m{i}", i) for i in range(4)]
    result = rank(sources, QUERY, metrics=[spec], execution=Execution(workers="auto", cache=False, progress=False))
    assert result.manifest["workers"] == {
        "asked": "auto", "chosen": 1,
        "reason": "1 worker: metric 'anon': test_workers_auto_keeps_a_function_it_cannot_send_in_process.<locals>."
                  "<lambda> is a lambda or a function defined inside another, so it runs in this process"}
    assert (result.scores["anon"].to_numpy() == 4.0).all()  # 2 target words + 2 attribute words, every model


@pytest.fixture
def two_versions(tmp_path, monkeypatch):
    """One function name, two bodies: a module written twice."""
    def version(body: str):
        folder = tmp_path / f"v{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "gapmod.py").write_text(f"def gap(targets, attributes):\n    return {body}\n")
        monkeypatch.syspath_prepend(str(folder))
        sys.modules.pop("gapmod", None)
        import gapmod

        return gapmod.gap
    return version


def test_the_cache_key_holds_the_function_code_and_the_plan_pickles_it_by_reference(two_versions):
    first = two_versions("float(targets[0].sum())")
    config = RankConfig(models=[random_source("m", 0)], queries=QUERY,
                        metrics=[make_metric(first, name="gap", template=(1, 1), order="abs"), "WEAT"])
    plan = make_plan(config)
    copy = pickle.loads(pickle.dumps(plan))
    assert copy.specs[0].func is first and copy.specs[0] == plan.specs[0] and copy.specs[1] is METRICS["WEAT"]
    assert copy.scoring_key() == plan.scoring_key()
    second = two_versions("float(targets[0].sum()) + 1")
    changed = make_plan(config.replace(metrics=[make_metric(second, name="gap", template=(1, 1), order="abs"),
                                                "WEAT"]))
    assert changed.scoring_key() != plan.scoring_key()
    builtin_only = make_plan(config.replace(metrics=["WEAT"]))
    assert "metric_code" not in json.dumps(builtin_only.scoring_key())


@pytest.fixture(scope="module")
def cli_run(site, tmp_path_factory):
    """``wefe-same rank --metrics mean-gap WEAT SAME --workers 2`` on four tiny GloVe files."""
    tmp = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(5)
    models = [str(write_glove(tmp / f"m{i}.txt", GENDER_WORDS, rng.normal(size=(12, 6)))) for i in range(4)]
    (tmp / "q.toml").write_text(QUERY_TOML)
    out = tmp / "res"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), str(EXAMPLE)])}
    done = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", *models, "--queries",
                           str(tmp / "q.toml"), "--metrics", "mean-gap", "WEAT", "SAME", "--workers", "2",
                           "--out", str(out), "--formats", "png"],
                          capture_output=True, text=True, env=env, timeout=300)
    return done, out, env, tmp


def test_the_cli_ranks_a_plugin_metric_with_workers(cli_run):
    done, out, _, _ = cli_run
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    warned = [line for line in done.stderr.splitlines() if "plugin metric entry point" in line]
    assert len(warned) == 3  # the broken plugin beside it: said once, not again by each worker
    rankings = pd.read_csv(out / "rankings.csv", index_col="model")
    assert list(rankings.columns) == ["mean-gap", "WEAT", "SAME"]
    assert (out / "scores" / "mean-gap.csv").is_file()
    corr = pd.read_csv(out / "correlations.csv", index_col=0)
    aggregates = pd.read_csv(out / "aggregates.csv", index_col=0)
    assert "mean-gap" in aggregates.columns
    for other in ("WEAT", "SAME"):
        expected = spearmanr(rankings["mean-gap"], rankings[other]).statistic
        assert corr.loc["mean-gap", other] == pytest.approx(expected, abs=1e-12)
        magnitude = spearmanr(aggregates["mean-gap"].abs(), aggregates[other].abs()).statistic
        assert corr.loc["mean-gap", other] == pytest.approx(magnitude, abs=1e-12)
    manifest = json.loads((out / "manifest.json").read_text())
    entry = next(m for m in manifest["metrics"] if m["name"] == "mean-gap")
    assert entry["source"]["package"] == "wefe-same-example" and entry["options"] == {"scale": "1.0"}
    report = (out / "report.html").read_text()
    assert "<b>mean-gap</b>" in report and "wefe_same_example.metric.mean_gap" in report


def test_the_cli_lists_plugins_and_a_broken_one_fails_only_the_run_asking_for_it(cli_run):
    _, _, env, tmp = cli_run
    listed = subprocess.run([sys.executable, "-m", "wefe_same.cli", "metrics"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert listed.returncode == 0
    plugin_lines = listed.stdout.split("Installed plugin metrics (entry point group wefe_same.metrics):\n")[1]
    assert plugin_lines.startswith("mean-gap    template (2, 1)") and "package: wefe-same-example" in plugin_lines
    warned = [line for line in listed.stderr.splitlines() if line.startswith("wefe-same: warning: plugin metric")]
    assert len(warned) == 3 and "Traceback" not in listed.stderr
    before = sorted(p.name for p in tmp.iterdir())
    asked = subprocess.run([sys.executable, "-m", "wefe_same.cli", "rank", "--models", str(tmp / "m0.txt"),
                            "--queries", str(tmp / "q.toml"), "--metrics", "WEAT", "missing",
                            "--out", str(tmp / "never")], capture_output=True, text=True, env=env, timeout=120)
    assert asked.returncode == 2 and "Traceback" not in asked.stderr
    assert asked.stderr.splitlines()[-1].startswith(
        "wefe-same: error: plugin metric entry point 'missing' (no_such_module_here:METRIC, package broken-plugin) "
        "failed to load: ModuleNotFoundError")
    assert sorted(p.name for p in tmp.iterdir()) == before


def test_dask_workers_find_a_plugin_by_name_and_a_function_by_import_path(site, cli_run):
    """The same plan scored in-process and on a Dask worker process gives the same tables."""
    distributed = pytest.importorskip("distributed")  # the test extra installs it: never skipped in CI
    from wefe_same_example.metric import mean_gap

    from wefe_same.models.specs import LoadOptions
    from wefe_same.run.plan import make_tasks
    from wefe_same.run.score import score_models

    tmp = cli_run[3]
    mine = make_metric(mean_gap, name="my-gap", template=(2, 1), order="abs",
                       options={"scale": number(0, low_open=True)})
    config = RankConfig(queries=str(tmp / "q.toml"), metrics=["mean-gap", mine],
                        execution=Execution(scheduler="tcp://127.0.0.1:1"))
    plan = make_plan(config)
    assert [s.name for s in plan.custom_metrics] == ["my-gap"]
    tasks = make_tasks([f"glove:{tmp / f'm{i}.txt'}" for i in range(2)], LoadOptions())
    local, _ = score_models(plan, tasks)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote, _ = score_models(plan, tasks, scheduler=cluster.scheduler_address)
    for here, there in zip(local, remote):
        pd.testing.assert_frame_equal(here.details, there.details)
        values = here.details.set_index(["metric", "subquery"])["value"]
        assert values.notna().all()
        np.testing.assert_array_equal(values.loc["mean-gap"].to_numpy(), values.loc["my-gap"].to_numpy())
