"""Model kinds that are not built in: ``register_model_kind`` and the ``wefe_same.models``
entry points, reached through a temporary ``*.dist-info`` on ``sys.path`` (no pip install).

The example plugin is examples/wefe_same_example (``hashvec:DIM[,salt=TEXT]``); its entry
points are read from its own pyproject.toml, so the test uses what the package declares.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import GENDER_WORDS, MINI_QUERY, error_lines, snapshot

from wefe_same import Execution, Query, WordSet, rank, register_model_kind
from wefe_same.cli import main
from wefe_same.errors import ModelError, WefeSameWarning
from wefe_same.models import ArraySource, ModelSource, kinds
from wefe_same.models.catalog import SCHEMES, resolve_model, resolve_models
from wefe_same.models.kinds import KindSource

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "wefe_same_example"
QUERY = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")


def write_distribution(site: Path, name: str, version: str, entry_points: dict[str, dict[str, str]],
                       modules: dict[str, str] | None = None) -> None:
    """A distribution as an installer leaves it: ``NAME-VERSION.dist-info`` with METADATA and
    entry_points.txt, and its modules beside it."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in entry_points.items()))
    for module, text in (modules or {}).items():
        (site / f"{module}.py").write_text(text)


@pytest.fixture(scope="module")
def example_site(tmp_path_factory) -> Path:
    """The example package's dist-info, written from its pyproject.toml."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    site = tmp_path_factory.mktemp("site")
    groups = {"wefe_same.models": project["entry-points"]["wefe_same.models"]}
    write_distribution(site, project["name"], project["version"], groups)
    return site


@pytest.fixture
def plugins(example_site, monkeypatch):
    """The example plugin installed (for this process and the processes it starts)."""
    paths = [str(example_site), str(EXAMPLE)]
    for p in paths:
        monkeypatch.syspath_prepend(p)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([*paths, str(ROOT), os.environ.get("PYTHONPATH", "")]))
    kinds._forget()
    yield paths
    kinds._forget()


def hash_vector(word: str, dim: int, salt: str = "") -> np.ndarray:
    """The oracle: hashvec's documented vector, computed here from its definition."""
    digest = hashlib.sha256(f"{salt}\0{word}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little")).standard_normal(dim)


def oracle_source(name: str, dim: int, salt: str = "") -> ArraySource:
    return ArraySource(name, GENDER_WORDS, np.array([hash_vector(w, dim, salt) for w in GENDER_WORDS]))


def scores_of(result) -> dict[str, list[float]]:
    return {metric: frame.to_numpy().ravel().tolist() for metric, frame in result.scores.items()}


# ----------------------------------------------------------------------------- the example
def test_builtin_schemes_are_those_kinds_may_not_take():
    assert set(kinds.BUILTIN_SCHEMES) == set(SCHEMES)


def test_an_entry_point_scheme_resolves_to_the_plugins_vectors_with_its_options(plugins):
    source = resolve_model("hashvec:6,salt=pepper")
    assert isinstance(source, KindSource) and source.spec == "hashvec:6,salt=pepper"
    assert source.name == "hashvec:6,salt=pepper" and source.open_vocabulary
    found = source.lookup(["he", "she"])
    np.testing.assert_array_equal(found["he"], hash_vector("he", 6, "pepper"))
    assert not np.array_equal(found["he"], hash_vector("he", 6))
    assert source.describe() == {"kind": "hashvec", "dim": "6", "salt": "pepper", "scheme": "hashvec",
                                 "provided_by": "wefe-same-example 0.1.0"}
    assert source.identity() == {"scheme": "hashvec", "provider": "wefe-same-example", "version": "0.1.0",
                                 "source": {"kind": "hashvec", "algorithm": "sha256-normal-1", "dim": 6,
                                            "salt": "pepper"}}
    assert resolve_model("mine=hashvec:3").name == "mine"


@pytest.mark.parametrize(("spec", "message"), [
    ("hashvec:4,sal=x", "model spec 'hashvec:4,sal=x': unknown option 'sal'; hashvec: takes salt"),
    ("hashvec:4,salt=a,salt=b", "model spec 'hashvec:4,salt=a,salt=b': option 'salt' is given twice"),
    ("hashvec:4,salt", "model spec 'hashvec:4,salt': option 'salt' is not key=value"),
    ("hashvec:", "model spec 'hashvec:': nothing after 'hashvec:'"),
    ("hashvec:four", "model 'hashvec:four': hashvec:DIM needs a dimension in [1, 4096], got 'four'"),
])
def test_a_bad_spec_of_a_plugin_kind_is_one_line_before_any_work(plugins, spec, message):
    with pytest.raises(ModelError) as err:
        resolve_model(spec)
    assert str(err.value) == message


def test_a_declared_option_out_of_its_range_is_refused_by_its_option_spec(plugins):
    with pytest.raises(ModelError, match=r"^model spec 'hashvec:4,salt=x{101}' option salt='x{78}…' \(101 characters\) "
                                         r"must be text of at most 100 characters \(mixed into each word's hash\)$"):
        resolve_model("hashvec:4,salt=" + "x" * 101)


def test_a_plugin_model_ranks_as_the_same_vectors_given_as_an_array_and_is_cached(plugins, tmp_path):
    options = dict(queries=[QUERY], metrics=["WEAT", "RNSB", "SAME"], permutations=0, execution=Execution(cache=tmp_path / "c"))
    got = rank(["hashvec:5", "b=hashvec:5,salt=b", "c=hashvec:7"], **options)
    oracle = rank([oracle_source("hashvec:5", 5), oracle_source("b", 5, "b"), oracle_source("c", 7)],
                  **{**options, "execution": Execution(cache=False)})
    np.testing.assert_equal(scores_of(got), scores_of(oracle))  # bit for bit (NaN equal to NaN)
    assert got.rankings.equals(oracle.rankings)
    models = {m["name"]: m for m in got.manifest["models"]}
    assert [m["cache"] for m in models.values()] == ["miss"] * 3
    assert models["b"]["scheme"] == "hashvec" and models["b"]["provided_by"] == "wefe-same-example 0.1.0"
    again = rank(["hashvec:5", "b=hashvec:5,salt=changed", "c=hashvec:7"], **options)
    assert [m["cache"] for m in again.manifest["models"]] == ["hit", "miss", "hit"]  # b's identity changed
    assert scores_of(again)["WEAT"][0] == scores_of(got)["WEAT"][0]


def test_a_new_plugin_version_misses_the_cache(plugins, example_site, tmp_path, monkeypatch):
    options = dict(queries=[QUERY], metrics=["WEAT"], permutations=0, execution=Execution(cache=tmp_path / "c"))
    assert rank(["hashvec:5"], **options).manifest["models"][0]["cache"] == "miss"
    site = tmp_path / "site"
    write_distribution(site, "wefe-same-example", "0.2.0",
                       {"wefe_same.models": {"hashvec": "wefe_same_example.model_kind:HashVectors"}})
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(example_site)])
    monkeypatch.syspath_prepend(str(site))
    kinds._forget()
    assert rank(["hashvec:5"], **options).manifest["models"][0]["cache"] == "miss"


def test_the_command_line_ranks_a_plugin_model_with_two_workers(plugins, tmp_path):
    """What a user does: install the plugin, then ``wefe-same rank --models hashvec:…``."""
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "wefe_same.cli", "rank", "--models", "hashvec:5", "b=hashvec:5,salt=b", "c=hashvec:7",
         "--queries", str(tmp_path / "mini.toml"), "--metrics", "WEAT", "RNSB", "--permutations", "0",
         "--workers", "2", "--formats", "png", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(m["name"], m["provided_by"]) for m in manifest["models"]] == [
        (n, "wefe-same-example 0.1.0") for n in ("hashvec:5", "b", "c")]
    mini = Query([WordSet("male", ["he", "man"]), WordSet("female", ["she", "woman"])],
                 [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])])
    oracle = rank([oracle_source("hashvec:5", 5), oracle_source("b", 5, "b"), oracle_source("c", 7)], queries=[mini],
                  metrics=["WEAT", "RNSB"], permutations=0, execution=Execution(cache=False))
    ranks = (out / "rankings.csv").read_text()
    assert ranks == oracle.rankings.to_csv(), ranks


def _forget_plugins_and_add(paths):  # run on a Dask worker: the plugin installed there
    sys.path[:0] = paths
    kinds._forget()


def test_a_dask_worker_resolves_the_spec_string_through_its_own_entry_points(plugins):
    distributed = pytest.importorskip("distributed")  # the test extra installs it: never skipped in CI
    from wefe_same.models.specs import LoadOptions
    from wefe_same.run.config import RankConfig
    from wefe_same.run.plan import make_plan, make_tasks
    from wefe_same.run.score import score_models

    plan = make_plan(RankConfig(queries=[QUERY], metrics=("WEAT",), permutations=0))
    tasks = make_tasks(["hashvec:5", "b=hashvec:5,salt=b"], LoadOptions())
    assert [t.spec for t in tasks] == ["hashvec:5", "b=hashvec:5,salt=b"]  # strings travel, not sources
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.run(_forget_plugins_and_add, plugins)
        dask, _ = score_models(plan, tasks, scheduler=cluster.scheduler_address)
    here, _ = score_models(plan, tasks)
    assert [m.description["provided_by"] for m in dask] == ["wefe-same-example 0.1.0"] * 2
    assert [m.fingerprint for m in dask] == [m.fingerprint for m in here]


def test_wefe_same_models_lists_plugin_kinds_with_their_package(plugins, capsys):
    assert main(["models"]) == 0
    listing = capsys.readouterr().out
    assert (f"  {'hashvec:':16} wefe-same-example 0.1.0: Deterministic vectors from a hash of each word "
            "(hashvec:DIM[,salt=TEXT]).") in listing.splitlines()


def test_an_unknown_scheme_names_the_plugin_kinds(plugins):
    with pytest.raises(ModelError, match=r"; plugin kinds: hashvec from wefe-same-example 0\.1\.0$"):
        resolve_model("hashvek:4")


# ----------------------------------------------------------------------------- from Python
class Ones(ModelSource):
    """Ones in every dimension, plus the word's length in the first (ones:DIM)."""

    open_vocabulary = True

    def __init__(self, name, location):
        self.name, self.dim = name, int(location)

    def lookup(self, words):
        return {w: np.r_[len(w), np.ones(self.dim - 1)] for w in words}

    def identity(self):
        return {"kind": "ones", "dim": self.dim}

    def describe(self):
        return {"kind": "ones"}


@pytest.fixture
def registry():
    kinds._forget()
    yield
    kinds._forget()


def test_a_kind_registered_from_python_ranks_and_travels_to_workers_by_import_path(registry, plugins):
    from wefe_same_example.model_kind import HashVectors

    register_model_kind("pyhash", HashVectors)
    register_model_kind("pyhash", HashVectors)  # again (a notebook cell run twice): the same kind
    source = resolve_model("pyhash:4,salt=s")
    assert source.spec is None  # a worker does not know the scheme: the source travels by import path
    copy = pickle.loads(pickle.dumps(source))
    np.testing.assert_array_equal(copy.lookup(["he"])["he"], hash_vector("he", 4, "s"))
    assert copy.describe()["provided_by"] == "wefe_same_example.model_kind:HashVectors (registered from Python)"
    options = dict(queries=[QUERY], metrics=["WEAT"], permutations=0, execution=Execution(cache=False))
    here = rank(["pyhash:4,salt=s", "b=pyhash:4"], **options)
    oracle = rank([oracle_source("pyhash:4,salt=s", 4, "s"), oracle_source("b", 4)], **options)
    assert scores_of(here) == scores_of(oracle)


def test_a_registered_kind_without_declared_options_gets_the_whole_location(registry):
    register_model_kind("ones", Ones)
    source = resolve_model("ones:3")
    np.testing.assert_array_equal(source.lookup(["abc"])["abc"], [3, 1, 1])
    with pytest.raises(ModelError, match=r"^model spec 'ones:3,x=1': the model kind 'ones' \(.*test_model_kinds:Ones "
                                         r"\(registered from Python\)\) failed: ValueError: invalid literal"):
        resolve_model("ones:3,x=1")


def local_builder(name, location, load_options):
    return ArraySource(name or "built", ["he"], np.full((1, int(location)), 2.0))


def test_a_builder_function_is_a_kind_too(registry):
    register_model_kind("built", local_builder)
    source = resolve_model("built:3")
    assert source.name == "built" and source.lookup(["he", "she"])["he"].tolist() == [2, 2, 2]
    assert source.describe()["scheme"] == "built"


@pytest.mark.parametrize(("scheme", "kind", "message"), [
    ("hf", Ones, "model kind 'hf' from register_model_kind clashes with the built-in scheme hf:; it is not used"),
    ("glove", Ones, "model kind 'glove' from register_model_kind clashes with the built-in file format glove:; "
                    "it is not used"),
    ("x", Ones, "model kind 'x' from register_model_kind: a scheme is a letter, then letters, digits, '_' or '-' "
                "(two characters at least); it is not used"),
    ("my scheme", Ones, "model kind 'my scheme' from register_model_kind: a scheme is a letter, then letters, digits, "
                        "'_' or '-' (two characters at least); it is not used"),
    ("nums", int, "register_model_kind('nums', ...): is neither a ModelSource subclass nor a builder function, "
                  "but the class int"),
    ("nums", 3, "register_model_kind('nums', ...): is neither a ModelSource subclass nor a builder function, "
                "but int"),
    ("lam", lambda n, loc, o: None, "register_model_kind('lam', test_model_kinds:<lambda>): give a class or function "
                                    "defined at module level, so that worker processes can import it"),
])
def test_register_model_kind_refuses_with_one_line(registry, scheme, kind, message):
    with pytest.raises(ModelError) as err:
        register_model_kind(scheme, kind)
    assert str(err.value) == message


def test_a_scheme_registered_to_another_kind_is_refused(registry):
    register_model_kind("ones", Ones)
    with pytest.raises(ModelError, match=r"^model kind 'ones' is already registered to .*:Ones; choose another"):
        register_model_kind("ones", local_builder)


# ----------------------------------------------------------------------------- misbehaving plugins
BAD_MODULES = {
    "broken_kind": "import no_such_module_anywhere\n",
    "odd_kinds": """
import numpy as np
from wefe_same.models.base import ModelSource

NOT_A_KIND = 42


class Boom(ModelSource):
    '''Every lookup raises.'''

    def __init__(self, name, location):
        self.name = name

    def lookup(self, words):
        raise RuntimeError("the GPU caught fire\\n(second line)")

    def identity(self):
        return {"boom": 1}

    def describe(self):
        return {"kind": "boom"}


class Picky(ModelSource):
    '''Refuses every location.'''

    def __init__(self, name, location):
        raise ValueError(f"no such model {location!r}")

    def lookup(self, words):
        return {}

    def describe(self):
        return {}


def nothing(name, location, load_options):
    return None


class Fine(Boom):
    '''Looks words up fine.'''

    def lookup(self, words):
        return {w: np.ones(3) for w in words}
""",
}


@pytest.fixture
def bad_plugins(plugins, tmp_path_factory, monkeypatch):
    """Beside the example: a package whose kinds misbehave in every way listed in the issue,
    and a second package that declares a scheme the first one declares too."""
    site = tmp_path_factory.mktemp("bad_site")
    write_distribution(site, "bad-plugins", "1.0", {"wefe_same.models": {
        "broken": "broken_kind:Anything", "hf": "odd_kinds:Fine", "glove": "odd_kinds:Fine",
        "notakind": "odd_kinds:NOT_A_KIND", "boom": "odd_kinds:Boom", "picky": "odd_kinds:Picky",
        "twice": "odd_kinds:Fine", "nothing": "odd_kinds:nothing"}}, BAD_MODULES)
    write_distribution(site, "other-plugins", "2.0", {"wefe_same.models": {"twice": "odd_kinds:Boom"}})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ["PYTHONPATH"]]))
    kinds._forget()
    yield site
    kinds._forget()


BAD_LINES = [
    "model kind 'broken' (entry point broken_kind:Anything in bad-plugins) cannot be loaded: "
    "ModuleNotFoundError: No module named 'no_such_module_anywhere'",
    "model kind 'glove' from entry point odd_kinds:Fine in bad-plugins clashes with the built-in file format glove:; "
    "it is not used",
    "model kind 'hf' from entry point odd_kinds:Fine in bad-plugins clashes with the built-in scheme hf:; "
    "it is not used",
    "model kind 'notakind' (entry point odd_kinds:NOT_A_KIND in bad-plugins) cannot be loaded: is neither a "
    "ModelSource subclass nor a builder function, but int",
    "model kind 'twice' is declared by bad-plugins and other-plugins; neither is used, uninstall one",
]


def test_each_plugin_that_cannot_be_used_is_one_warning_line_and_the_others_work(bad_plugins):
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        source = resolve_model("hashvec:3")
        resolve_model("hashvec:4")  # entry points are read once per process: no second warning
    assert sorted(str(w.message) for w in shown if w.category is WefeSameWarning) == BAD_LINES
    assert source.lookup(["he"])["he"].shape == (3,)


@pytest.mark.parametrize(("spec", "line"), [("broken:1", BAD_LINES[0]), ("twice:1", BAD_LINES[4]),
                                            ("notakind:1", BAD_LINES[3])])
def test_a_run_that_asks_for_a_broken_plugin_stops_with_its_line(bad_plugins, spec, line):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError) as err:
            resolve_model(spec)
    assert str(err.value) == line


def test_a_builder_that_returns_no_source_is_one_line(bad_plugins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError) as err:
            resolve_model("nothing:1")
    assert str(err.value) == ("model spec 'nothing:1': the model kind 'nothing' (bad-plugins 1.0) returned NoneType, "
                              "not a ModelSource")


def test_a_clashing_plugin_leaves_the_built_in_scheme_as_it_is(bad_plugins, tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("he 1 0\nshe 0 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = resolve_model(f"glove:{path}")
    assert not isinstance(source, KindSource) and source.lookup(["he"])["he"].tolist() == [1, 0]


def test_a_plugin_that_refuses_its_location_is_skipped_like_a_built_in(bad_plugins):
    skipped: list[tuple[str, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError, match=r"^2 of the 3 models cannot be used: model spec 'picky:x': the model "
                                             r"kind 'picky' \(bad-plugins 1\.0\) failed: ValueError: no such model "
                                             r"'x'; model kind 'broken' .*\(skip_unloadable=True"):
            resolve_models(["picky:x", "broken:1", "hashvec:2"])
        sources = resolve_models(["picky:x", "broken:1", "hashvec:2"], skip_unloadable=True, skipped=skipped)
    assert [s.name for s in sources] == ["hashvec:2"]
    assert [spec for spec, _ in skipped] == ["picky:x", "broken:1"]


def test_a_lookup_that_raises_is_one_line_naming_the_model_and_the_plugin(bad_plugins, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError) as err:
            rank(["hashvec:3", "b=boom:1"], queries=[QUERY], metrics=["WEAT"], permutations=0,
                 execution=Execution(cache=False))
    assert str(err.value) == ("model 'b': lookup: the model kind 'boom' (bad-plugins 1.0) failed: RuntimeError: "
                              "the GPU caught fire (second line)")


def test_the_command_line_says_a_broken_plugin_in_one_line_and_touches_nothing(bad_plugins, tmp_path, capsys):
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    (tmp_path / "notes.txt").write_text("mine")
    before = snapshot(tmp_path)
    for spec, line in [("broken:1", BAD_LINES[0]),
                       ("boom:1", "model 'boom:1': lookup: the model kind 'boom' (bad-plugins 1.0) failed: "
                                  "RuntimeError: the GPU caught fire (second line)")]:
        code = main(["rank", "--models", "hashvec:3", spec, "--queries", str(tmp_path / "mini.toml"),
                     "--metrics", "WEAT", "--permutations", "0", "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err
        assert code == 2 and error_lines(err) == [f"wefe-same: error: {line}"], err
        assert "Traceback" not in err
        assert snapshot(tmp_path) == before


# ----------------------------------------------------------------------------- the docs
def test_the_docs_model_kind_example_runs(registry, tmp_path, monkeypatch, capsys):
    """docs/extending.md's example as a reader pastes it: two CSV models ranked, their scores
    those of the same vectors given as arrays."""
    page = (ROOT / "docs" / "extending.md").read_text()
    section = page.split("## Your own kind of model", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_extending"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WefeSameWarning)  # two models: no correlation
        exec(compile(code, "docs/extending.md", "exec"), namespace)
        result = namespace["result"]
        arrays = []
        for name in ("mine", "theirs"):
            rows = [line.split(",") for line in (tmp_path / f"{name}.csv").read_text().splitlines()]
            arrays.append(ArraySource(f"csvvec:{name}.csv", [r[0] for r in rows],
                                      np.array([[float(x) for x in r[1:]] for r in rows])))
        oracle = rank(arrays, queries=[namespace["query"]], metrics=["WEAT-ES", "RNSB"], permutations=0,
                      execution=Execution(cache=False))
    assert scores_of(result) == scores_of(oracle) and result.rankings.equals(oracle.rankings)
    manifest = {m["name"]: m for m in result.manifest["models"]}["csvvec:mine.csv"]
    assert manifest["scheme"] == "csvvec" and manifest["path"] == "mine.csv"
    assert capsys.readouterr().out == f"{result.rankings}\n"
