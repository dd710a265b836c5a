"""The reliability table of a run: the word-level array each metric's own code builds, the
per-model internal and inter-rater consistency, test-retest across the seeds a models file
declares (identical seeds give 1, independent ones little), split-half reliability, and the
models file's refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import write_glove

from wefe_same import Bootstrap, Execution, Query, QuerySet, WordSet, rank
from wefe_same.analysis.reliability import cronbach_alpha, icc, spearman_brown, split_half_rows
from wefe_same.errors import ModelError
from wefe_same.metrics.registry import METRICS
from wefe_same.models import ArraySource
from wefe_same.scoring.vectors import build_table
from wefe_same.scoring.word_level import WORD_MEASURES, no_measure_reason, reliability_units, word_level_scores

MALE, FEMALE = [f"m{i}" for i in range(6)], [f"f{i}" for i in range(6)]
JOBS = [f"w{i}" for i in range(16)]
VOCABULARY = MALE + FEMALE + JOBS
GROUPS = [WordSet("male", MALE, aligned=True), WordSet("female", FEMALE, aligned=True)]
QUERY_SETS = [QuerySet("first", [Query(GROUPS, [WordSet("a", JOBS[:8]), WordSet("b", JOBS[8:])], name="q1")]),
              QuerySet("second", [Query(GROUPS, [WordSet("c", JOBS[:4] + JOBS[12:]), WordSet("d", JOBS[4:12])],
                                        name="q2")])]
METRIC_NAMES = ["WEAT", "SAME", "DirectBias", "RIPA", "RND"]


def unit_vectors(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_the_word_level_scores_are_each_metrics_own_per_word_values():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(len(VOCABULARY), 9))
    table = build_table(ArraySource("m", VOCABULARY[:-1], matrix[:-1]), VOCABULARY)  # the last word is missing
    unit, _ = reliability_units(QUERY_SETS)
    array = word_level_scores(table, unit, [METRICS[n] for n in WORD_MEASURES], {})
    assert array.shape == (4, 16, 6) and np.isnan(array[:, -1]).all() and np.isfinite(array[:, :-1]).all()
    raw = dict(zip(VOCABULARY, matrix))
    unit_of = {w: unit_vectors(v) for w, v in raw.items()}
    for i, w in enumerate(unit.words[:-1]):
        for j, (m, f) in enumerate(unit.pairs):
            t = unit_of[w]
            cos_m, cos_f = t @ unit_of[m], t @ unit_of[f]
            signed = t @ unit_vectors(unit_of[m] - unit_of[f])
            ripa = raw[w] @ unit_vectors(raw[m] - raw[f])
            np.testing.assert_allclose(array[:, i, j], [cos_m - cos_f, signed, abs(signed), ripa], rtol=1e-10)
    assert no_measure_reason("RND") == "RND gives no score per attribute word and base pair"
    assert "the same measure as SAME" in no_measure_reason("SAME-skew") and no_measure_reason("WEAT") is None


def write_family(folder, name, matrices):
    lines = []
    for seed, matrix in enumerate(matrices, start=1):
        path = write_glove(folder / f"{name}{seed}.txt", VOCABULARY, matrix)
        lines.append(f'[[models]]\nspec = "{path.name}"\nfamily = "{name}"\nseed = {seed}\n')
    return "".join(lines)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zoo")
    rng = np.random.default_rng(5)
    base = rng.normal(size=(len(VOCABULARY), 10))
    text = (write_family(folder, "same", [base] * 3)
            + write_family(folder, "noise", [rng.normal(size=base.shape) for _ in range(4)])
            + write_family(folder, "one", [rng.normal(size=base.shape)]))
    (folder / "zoo.toml").write_text(text)
    return rank(models_file=folder / "zoo.toml", queries=QUERY_SETS, metrics=METRIC_NAMES, seed=3, permutations=0,
                bootstrap=Bootstrap(reliability=True, split_halves=6), execution=Execution(progress=False, cache=False))


def rows(table, **where):
    got = table
    for column, value in where.items():
        got = got[got[column] == value]
    return got


def test_identical_seeds_are_perfectly_reliable_and_independent_ones_are_not(run):
    table = run.reliability
    same = rows(table, family="same")
    for kind in ("test-retest (words)", "test-retest (scores)", "test-retest (aggregates)"):
        got = rows(same, kind=kind)
        defined = got[got["reason"] == ""]
        assert len(defined) and np.allclose(defined["value"], 1.0, atol=1e-12), kind
        assert (defined["coefficient"] == "icc2").all() and (defined["n_raters"] == 3).all()
    words = rows(table, family="noise", kind="test-retest (words)")
    assert len(words) == 8 and (words["value"] < 0.5).all()  # four measures, two units (one per query set)
    lone = rows(table, family="one")
    assert len(lone) and lone["value"].isna().all()
    assert lone["reason"].str.contains("family 'one' has 1 seed in this run: at least 2 are needed").all()
    assert "external:seed" not in run.rankings.columns  # a seed declares a training; it ranks nothing


def test_per_model_consistency_is_the_coefficient_of_its_own_array(run):
    table = run.reliability
    unit, _ = reliability_units(QUERY_SETS)
    specs = [METRICS[n] for n in ("WEAT", "SAME", "DirectBias", "RIPA")]
    model = "noise2"
    assert model in [m["name"] for m in run.manifest["models"]]
    internal = rows(table, kind="internal consistency", model=model, unit=unit.id).set_index("measure")
    inter = rows(table, kind="inter-rater consistency", model=model, unit=unit.id).iloc[0]
    assert list(internal.index) == [s.name for s in specs] and inter["measure"] == "WEAT + SAME + DirectBias + RIPA"
    assert (internal["unit"] == unit.id).all() and internal["reading"].isin(
        ["unacceptable", "poor", "questionable", "acceptable", "good", "excellent"]).all()
    for _, r in internal.iterrows():
        assert r["n_subjects"] == 16 and r["n_raters"] == 6 and r["low"] <= r["value"] <= r["high"]
    assert inter["n_subjects"] == 16 and inter["n_raters"] == 4


@pytest.mark.filterwarnings("ignore:Spearman needs at least three ranked models")
def test_per_model_rows_equal_the_coefficients_on_the_array_rebuilt_here(tmp_path):
    rng = np.random.default_rng(8)
    matrix = rng.normal(size=(len(VOCABULARY), 10))
    got = rank([ArraySource("m", VOCABULARY, matrix)], QUERY_SETS, ["WEAT", "SAME", "DirectBias", "RIPA"],
               permutations=0, bootstrap=Bootstrap(reliability=True), execution=Execution(progress=False))
    unit, _ = reliability_units(QUERY_SETS)
    array = word_level_scores(build_table(ArraySource("m", VOCABULARY, matrix), VOCABULARY), unit,
                              [METRICS[n] for n in WORD_MEASURES], {})
    table = got.reliability
    for k, measure in enumerate(WORD_MEASURES):
        r = rows(table, kind="internal consistency", measure=measure, unit=unit.id).iloc[0]
        assert r["value"] == pytest.approx(float(cronbach_alpha(array[k])[0]), rel=1e-12)
    pair_mean = array.mean(axis=2)
    z = (pair_mean - pair_mean.mean(axis=1, keepdims=True)) / pair_mean.std(axis=1, ddof=1, keepdims=True)
    assert rows(table, kind="inter-rater consistency", unit=unit.id).iloc[0]["value"] == pytest.approx(
        float(icc(z.T, "icc3")[0]), rel=1e-12)
    assert set(table["kind"]) == {"internal consistency", "inter-rater consistency"}  # no family, no split


def test_split_half_rows_in_a_run_and_by_hand(run):
    split = rows(run.reliability, kind="split-half")
    assert list(split["measure"]) == METRIC_NAMES and (split["coefficient"] == "spearman_brown").all()
    assert (split["n_subjects"] == 8).all() and (split["value"] <= 1).all()
    same = np.arange(8.0)[None, :, None] * np.ones((2, 1, 1))
    assert split_half_rows(same, list("abcdefgh"), [METRICS["WEAT"]])[0][6] == pytest.approx(1.0)
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0, 4.0, 3.0])  # Spearman rho 0.6
    got = split_half_rows(np.stack([a, b])[:, :, None], list("abcd"), [METRICS["WEAT"]])[0]
    assert got[6] == pytest.approx(float(spearman_brown(np.array(0.6))), rel=1e-12) == pytest.approx(0.75)


@pytest.mark.parametrize(("row", "message"), [
    ('spec = "x.txt"\nseed = 2\n', "model 'x.txt' has a 'seed' but no 'family'"),
    ('spec = "x.txt"\nfamily = "w2v"\nseed = "two"\n', "model 'x.txt': 'seed' must be an integer"),
    ('spec = "x.txt"\nfamily = "w2v"\nseed = 1.5\n', "model 'x.txt': 'seed' must be an integer"),
])
def test_a_bad_seed_is_refused_with_the_file_and_model(tmp_path, row, message):
    write_glove(tmp_path / "x.txt", VOCABULARY, np.ones((len(VOCABULARY), 3)))
    (tmp_path / "zoo.toml").write_text(f"[[models]]\n{row}")
    with pytest.raises(ModelError, match="zoo.toml") as raised:
        rank(models_file=tmp_path / "zoo.toml", queries=QUERY_SETS, metrics=["WEAT"], permutations=0,
             execution=Execution(progress=False, cache=False))
    assert message in str(raised.value)


def test_the_folder_and_the_report_keep_the_table(run, tmp_path):
    from wefe_same.output.folder import read_manifest
    from wefe_same.output.report_data import from_folder, from_result
    from wefe_same.output.report_html import build_report

    out = run.save(tmp_path / "r", formats=[])
    written = pd.read_csv(out / "reliability.csv", keep_default_na=False, na_values={"value": [""], "low": [""],
                                                                                       "high": [""]})
    pd.testing.assert_frame_equal(written, run.reliability, check_dtype=False)
    manifest = read_manifest(out)
    pages = [build_report(from_result(run, manifest)), build_report(from_folder(out, manifest))]
    sections = [page.split('<section id="trust">')[1].split("</section>")[0] for page in pages]
    assert sections[0] == sections[1] and 'aria-label="Reliability"' in sections[0]
    assert "family one" in sections[0] and "at least 2 are needed" in sections[0]
    assert manifest["settings"]["reliability"] is True and manifest["settings"]["split_halves"] == 6


def test_the_command_line_states_the_split_halves_cost_and_writes_the_table(tmp_path, monkeypatch, capsys):
    from conftest import users_folder

    from wefe_same.cli import main

    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    code = main(["rank", "--models", "good.txt", "--queries", "mini.toml", "--metrics", "WEAT", "SAME",
                 "--permutations", "0", "--no-cache", "--formats", "svg", "--reliability", "--split-halves", "2",
                 "--out", "r"])
    err = capsys.readouterr().err
    assert code == 0 and "Split-half reliability: 2 splits, two scorings of each model per split (about 4x" in err
    table = pd.read_csv(tmp_path / "r" / "reliability.csv")
    assert set(table["kind"]) >= {"split-half"} and list(table.loc[table["kind"] == "split-half", "measure"]) == [
        "WEAT", "SAME"]


def test_the_figure_draws_every_defined_coefficient_with_its_interval(run, tmp_path):
    from matplotlib.figure import Figure

    from wefe_same.output import figures as plots

    defined = run.reliability[run.reliability["value"].notna()]
    ax = plots.reliability_intervals(defined, ax=Figure().subplots())
    dots = np.asarray(ax.get_lines()[0].get_xdata(), float)
    np.testing.assert_allclose(dots, defined["value"].clip(lower=-1).to_numpy(), rtol=1e-12)
    assert len(ax.get_yticklabels()) == len(defined)
    folder = run.save(tmp_path / "fig", formats=["png"])
    assert "reliability.png" in {p.name for p in (folder / "figures").iterdir()}
