"""The chance table of a run: what rank() makes of each model's chance draws, the metrics a
null leaves out, the cache, the results folder and report (alike from memory and from the
folder), and the command line's flags, cost line and refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import error_lines, random_source, snapshot, users_folder, write_glove

from wefe_same import Bootstrap, Execution, Query, WordSet, rank
from wefe_same.analysis.chance_bands import CHANCE_COLUMNS
from wefe_same.cli import main
from wefe_same.output.folder import read_manifest
from wefe_same.output.report_data import from_folder, from_result
from wefe_same.output.report_html import build_report
from wefe_same.output.report_trust import CHANCE_MARKS, chance_marks

METRICS = ["WEAT", "RND", "MAC", "SAME", "ECT", "RNSB"]
WORDS = [f"w{i}" for i in range(40)]
QUERY = Query([WordSet("x", WORDS[:8]), WordSet("y", WORDS[8:16])],
              [WordSet("a", WORDS[16:28]), WordSet("b", WORDS[28:])], name="q")


def sources():
    return [random_source(f"m{i}", seed=i, words=WORDS) for i in range(4)]


@pytest.fixture(scope="module")
def run():
    return rank(sources(), [QUERY], METRICS, seed=2, permutations=0,
                bootstrap=Bootstrap(chance=40, chance_nulls=("permutation", "random"), chance_every=True),
                execution=Execution(progress=False, cache=False))


def test_the_chance_table_reads_each_aggregate_against_its_band(run):
    table = run.chance
    assert list(table.columns) == list(CHANCE_COLUMNS)
    assert set(table["null"]) == {"permutation", "random"} and len(table) == 2 * 4 * len(METRICS)
    banded = table[table["reason"] == ""]
    unbanded = table[table["reason"] != ""]
    # RNSB fits a model per draw (asked for apart); MAC has no permutation null
    assert set(zip(unbanded["metric"], unbanded["null"])) == {("RNSB", "permutation"), ("RNSB", "random"),
                                                             ("MAC", "permutation")}
    assert (unbanded["draws"] == 0).all() and unbanded["low"].isna().all() and (unbanded["reading"] == "").all()
    assert unbanded["reason"].str.contains("--chance-fitted|no permutation null").all()
    assert (banded["draws"] == 40).all()
    for r in banded.itertuples():
        assert r.value == run.aggregates.at[r.model, r.metric]
        assert r.low <= r.median <= r.high and 0 < r.p_chance <= 1
        inside = r.low <= r.value <= r.high
        higher = r.value > r.high
        descending = r.metric == "ECT"
        expected = ("within chance" if inside else
                    "more biased than chance" if higher != descending else "less biased than chance")
        assert r.reading == expected


def test_fitted_metrics_join_when_asked():
    got = rank(sources()[:3], [QUERY], ["RNSB", "WEAT"], seed=2, permutations=0,
               bootstrap=Bootstrap(chance=3, chance_fitted=True, chance_every=True), execution=Execution(progress=False, cache=False))
    assert set(got.chance["metric"]) == {"RNSB", "WEAT"} and (got.chance["draws"] == 3).all()
    assert (got.chance["reason"] == "").all()


def test_a_cached_run_gives_the_same_table_and_other_draws_score_again(tmp_path):
    models = [str(write_glove(tmp_path / f"m{i}.txt", WORDS, np.random.default_rng(i).normal(size=(40, 8))))
              for i in range(3)]
    options = dict(seed=2, permutations=0, execution=Execution(progress=False, cache=tmp_path / "cache"))

    def ranked(**bootstrap):
        got = rank(models, [QUERY], ["WEAT", "SAME"], bootstrap=Bootstrap(**bootstrap), **options)
        return got, [m["cache"] for m in got.manifest["models"]]

    (first, status), (again, status_again) = ranked(chance=10), ranked(chance=10)
    assert status == ["miss"] * 3 and status_again == ["hit"] * 3  # the draws are kept with the scores
    pd.testing.assert_frame_equal(first.chance, again.chance, check_exact=True)
    (more, status_more), (none, _) = ranked(chance=12), ranked(chance=0)
    assert status_more == ["miss"] * 3 and (more.chance["draws"] == 12).all()
    assert none.chance is None and "chance" not in none.extra


def test_without_every_the_one_pass_metrics_have_their_permutation_band_and_the_others_say_why():
    metrics = ["WEAT", "WEAT-ES", "SAME", "SAME-skew", "SAME-stereotype", "RND", "MAC"]
    got = rank(sources()[:3], [QUERY], metrics, seed=2, permutations=0, bootstrap=Bootstrap(chance=200),
               execution=Execution(progress=False, cache=False)).chance
    assert set(got["null"]) == {"permutation"} and len(got) == 3 * len(metrics)
    banded = got[got["reason"] == ""]
    assert set(banded["metric"]) == set(metrics[:5]) and (banded["draws"] == 200).all()
    left_out = got[got["metric"].isin(["RND", "MAC"])]
    assert (left_out["draws"] == 0).all() and left_out["reason"].str.contains("one scoring per draw.*--chance-every").all()
    # the same draws as a run that asks for every metric (one ordinary call per draw for RND)
    asked = rank(sources()[:3], [QUERY], metrics, seed=2, permutations=0, bootstrap=Bootstrap(chance=200, chance_every=True),
                 execution=Execution(progress=False, cache=False)).chance
    pd.testing.assert_frame_equal(banded, asked[asked["metric"].isin(metrics[:5])], check_exact=True)
    assert (asked[asked["metric"] == "RND"]["draws"] == 200).all()


def test_the_folder_and_the_report_keep_the_table(run, tmp_path):
    out = run.save(tmp_path / "r", formats=[])
    written = pd.read_csv(out / "chance.csv")
    written[["reading", "reason"]] = written[["reading", "reason"]].fillna("")  # CSV: "" reads as missing
    pd.testing.assert_frame_equal(written, run.chance, check_dtype=False)
    manifest = read_manifest(out)
    pages = [build_report(from_result(run, manifest)), build_report(from_folder(out, manifest))]
    sections = [page.split('<section id="trust">')[1].split("</section>")[0] for page in pages]
    assert sections[0] == sections[1]
    for null in ("permutation", "random"):
        assert f'aria-label="Against chance ({null})"' in sections[0]
    marks = chance_marks(run.chance)
    assert len(marks) == 4 * 4  # every model and metric but RNSB and MAC, the first null's (permutation)
    assert "Without a band: MAC: MAC averages over its attribute sets alike" in sections[0]
    model, metric = next(iter(marks))
    row = run.chance[(run.chance["model"] == model) & (run.chance["metric"] == metric)].iloc[0]
    assert marks[model, metric] == (CHANCE_MARKS[row["reading"]], marks[model, metric][1])
    assert marks[model, metric][1].startswith(f"{row['reading']}: permutation band [")
    aggregates = pages[0].split('aria-label="Aggregates"')[1].split("</table>")[0]
    assert any(mark in aggregates for mark in CHANCE_MARKS.values())


def test_the_command_line_states_the_cost_first_and_refuses_bad_values(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    users_folder(tmp_path)
    fast = ["--models", "good.txt", "--queries", "mini.toml", "--metrics", "WEAT", "SAME", "--permutations", "0",
            "--no-cache", "--formats", "svg"]
    assert main(["rank", *fast, "--chance", "5", "--chance-every", "--chance-null", "permutation", "random",
                 "--out", "r"]) == 0
    err = capsys.readouterr().err
    assert "Chance baselines: 5 draws of permutation and random, one scoring of each model per draw " \
           "(about 10x its time)" in err
    assert set(pd.read_csv(tmp_path / "r" / "chance.csv")["null"]) == {"permutation", "random"}
    before = snapshot(tmp_path)
    assert main(["rank", *fast, "--chance", "-1", "--out", "bad"]) == 2
    err = capsys.readouterr().err
    assert "The 'chance' parameter of rank must be an integer >= 0. Got -1" in err and len(error_lines(err)) == 1
    with pytest.raises(SystemExit) as refused:  # argparse's own refusal of a choice
        main(["rank", *fast, "--chance-null", "shuffle", "--out", "bad"])
    assert refused.value.code == 2 and "argument --chance-null: invalid choice: 'shuffle'" in capsys.readouterr().err
    assert snapshot(tmp_path) == before and not (tmp_path / "bad").exists()


def test_the_figure_draws_each_band_and_marks_the_values_within_it(run, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from wefe_same.output import figures as plots

    table = run.chance[run.chance["null"] == "permutation"]
    models = list(run.rankings.index)
    axes = plots.chance_bands(table, models, fig=Figure())
    banded = table[table["draws"] > 0]
    assert [ax.get_title() for ax in axes] == list(dict.fromkeys(banded["metric"]))  # MAC, RNSB: no band
    for ax, (_, rows) in zip(axes, banded.groupby("metric", sort=False)):
        rows = rows.set_index("model").reindex(models)
        bars = [(p.get_x(), p.get_x() + p.get_width()) for p in ax.patches]
        np.testing.assert_allclose(np.array(bars), rows[["low", "high"]].to_numpy(float), rtol=1e-12)
        filled, hollow = (np.asarray(line.get_xdata(), float) for line in ax.get_lines()[:2])
        within = rows["reading"] == "within chance"
        np.testing.assert_array_equal(np.isfinite(hollow), within.to_numpy())
        np.testing.assert_array_equal(np.isfinite(filled), ~within.to_numpy())
    folder = run.save(tmp_path / "fig", formats=["png"])
    assert {"chance_permutation.png", "chance_random.png"} <= {p.name for p in (folder / "figures").iterdir()}
