"""The agreement tables of a run: what rank() computes from its own rankings, the interval
from the subquery bootstrap, the files, and the report's section built alike from the
result in memory and from the folder."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_source
from scipy import stats

from wefe_same import Bootstrap, Execution, Query, QuerySet, WordSet, rank
from wefe_same.analysis.agreement import kendalls_w
from wefe_same.output.folder import read_manifest
from wefe_same.output.report_data import from_folder, from_result
from wefe_same.output.report_html import build_report

METRICS = ["WEAT", "RND", "MAC", "SAME", "SAME-skew", "DirectBias"]
QUERY = Query([WordSet("male", ["he", "man"], aligned=True), WordSet("female", ["she", "woman"], aligned=True)],
              [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])], name="toy")


@pytest.fixture(scope="module")
def run():
    sources = [random_source(f"m{i}", seed=i) for i in range(6)]
    return rank(sources, [QUERY], METRICS, seed=2, bootstrap=Bootstrap(subqueries=50),
                execution=Execution(progress=False))


def test_w_is_that_of_the_runs_aggregates_and_friedmans_test(run):
    row = run.agreement.iloc[0]
    complete = [m for m in METRICS if run.rankings[m].notna().all()]
    assert len(complete) >= 4
    ranks = stats.rankdata(run.aggregates[complete].to_numpy(float), axis=0)  # no descending metric here
    assert row["w"] == pytest.approx(float(kendalls_w(ranks)), rel=1e-15)
    friedman = stats.friedmanchisquare(*ranks)
    assert row["chi2"] == pytest.approx(friedman.statistic, rel=1e-12)
    assert row["n_models"] == 6 and row["n_metrics"] == len(complete)
    assert row["p_method"] == "permutation" and 0 < row["p_value"] <= 1
    assert row["ci_low"] <= row["ci_high"] and np.isfinite(row["ci_low"])


def test_consensus_and_redundant_columns_of_the_run(run):
    table = run.consensus.set_index("model")
    assert sorted(table.index) == sorted(run.rankings.index)
    assert (table["rank_min"] <= table["rank_max"]).all()
    rho = run.correlations
    expected = {(a, b) for i, a in enumerate(METRICS) for b in METRICS[i + 1:] if abs(rho.loc[a, b]) >= 1 - 1e-9}
    assert set(zip(run.redundant_metrics["metric_a"], run.redundant_metrics["metric_b"])) == expected


def test_the_tables_are_written_and_the_report_reads_them_back(run, tmp_path):
    folder = run.save(tmp_path / "out", formats=[])
    for name in ("agreement", "consensus", "redundant_metrics"):
        assert (folder / f"{name}.csv").is_file()
    manifest = read_manifest(folder)
    from_memory, from_disk = (build_report(from_result(run, manifest)), build_report(from_folder(folder, manifest)))
    section = [page.split('<section id="trust">')[1].split("</section>")[0] for page in (from_memory, from_disk)]
    assert section[0] == section[1]
    assert "Can these metrics be trusted on these models?" in from_disk
    assert f"Kendall&#x27;s W of the {int(run.agreement['n_metrics'].iloc[0])} metrics over 6 models" in section[0]


def test_one_metric_has_no_agreement_tables():
    result = rank([random_source(f"m{i}", seed=i) for i in range(3)], [QUERY], ["WEAT"],
                  execution=Execution(progress=False))
    assert result.agreement is None and result.consensus is None and result.redundant_metrics is None
    assert result.mtmm is None and result.mtmm_summary is None


def test_the_tie_rule_of_the_rankings_does_not_change_w_or_the_consensus():
    sources = [random_source(f"m{i}", seed=i) for i in range(4)]
    sources.append(random_source("copy-of-m0", seed=0))  # ties m0 under every metric
    runs = {ties: rank(sources, [QUERY], [*METRICS, "ECT"], seed=2, ties=ties, execution=Execution(progress=False))
            for ties in ("min", "first", "average")}
    ws = {ties: r.agreement.iloc[0]["w"] for ties, r in runs.items()}
    assert ws["min"] == ws["first"] == ws["average"] and np.isfinite(ws["min"])
    means = {ties: r.consensus["mean_rank"].tolist() for ties, r in runs.items()}
    assert means["min"] == means["first"] == means["average"]
    table = runs["min"].consensus.set_index("model")
    assert table.loc["m0", "mean_rank"] == table.loc["copy-of-m0", "mean_rank"]


def test_a_folder_without_the_agreement_tables_says_so(run, tmp_path):
    folder = run.save(tmp_path / "old", formats=[])
    (folder / "agreement.csv").unlink()  # as a folder written before these tables
    page = build_report(from_folder(folder, read_manifest(folder)))
    assert "has no agreement.csv (written by an older wefe-same)" in page


def test_two_query_sets_give_the_mtmm_tables_in_the_folder_and_the_report(tmp_path):
    other = Query(QUERY.targets, [WordSet("good", ["good", "happy"]), WordSet("bad", ["bad", "sad"])], name="mood")
    result = rank([random_source(f"m{i}", seed=i) for i in range(5)],
                  [QuerySet("toy", (QUERY,)), QuerySet("mood", (other,))], METRICS, seed=1,
                  execution=Execution(progress=False))
    assert sorted(result.mtmm_summary["trait"]) == ["mood", "toy"]
    assert set(result.mtmm["kind"]) <= {"monotrait-heteromethod", "heterotrait-monomethod", "heterotrait-heteromethod"}
    folder = result.save(tmp_path / "out", formats=[])
    manifest = read_manifest(folder)
    pages = [build_report(from_result(result, manifest)), build_report(from_folder(folder, manifest))]
    sections = [page.split('<section id="trust">')[1].split("</section>")[0] for page in pages]
    assert sections[0] == sections[1] and 'aria-label="Validity (MTMM)"' in sections[0]
    assert 'aria-label="Multitrait–multimethod matrix"' in sections[0]
    assert sections[0].count("<rect") >= len(result.mtmm_summary) * len(METRICS)  # a cell per pair of rankings
